"""Code Mode: the model writes a program against a generated SDK, run in a sandbox (the plugin: :mod:`.plugin`)."""

from typing import Final

RUN_CODE_NAME: Final = "run_code"
"""The reserved Code Mode transport. Here, in the package's leaf, so every module can share it."""
