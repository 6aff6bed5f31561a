"""The README's command table names every command and every run-code budget flag the CLI has."""

from __future__ import annotations

import re

from cli_helpers import REPO
from dsh_tools.cli.parser import COMMANDS, RUN_CODE_BUDGETS


def test_the_readme_lists_every_command_and_budget_flag() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| `([a-z-]+)[ `]", readme, re.MULTILINE)
    assert set(COMMANDS) <= set(listed), f"missing from README: {set(COMMANDS) - set(listed)}"
    assert "`dsh-tools --version`" in readme
    for flag, *_ in RUN_CODE_BUDGETS:
        assert f"[{flag} " in readme, flag
