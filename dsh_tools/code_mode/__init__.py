"""Code Mode: the model writes a program against a generated SDK, run in a sandbox (the plugin: :mod:`.plugin`)."""

from typing import Final

RUN_CODE_NAME: Final = "run_code"
"""The reserved Code Mode transport. Here, in the package's leaf, so every module can share it."""
READ_RESULT_NAME: Final = "read_result"
"""The registry's reader of spilled results (``max_inline_bytes``), reserved like ``run_code`` and callable
directly in every mode: a result too large for the model reaches it as a preview that names this tool."""
DIRECT_NAMES: Final = frozenset({RUN_CODE_NAME, READ_RESULT_NAME})
"""What a code-mode agent may call directly (every other tool only from a program): the one list of them."""
