"""The demo's workspace: a small temporary project the tools work on.

Its files are chosen for what the demo shows: ``README.md`` and ``src/`` to
read, list, search and count; ``config.env`` holds a token the post-execute
redactor hides; ``secrets.txt`` is what the pre-execute policy refuses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

__all__ = ["DEMO_TOKEN", "FILES", "fill_workspace"]

DEMO_TOKEN: Final = "sk-demo-7f3a9c2e41b8"
"""A fake credential; the redactor must keep it from the model."""

FILES: Final[dict[str, str]] = {
    "README.md": (
        "# Weather service\n\n"
        "A tiny service that reports the weather for a city.\n"
        "Run it with `python src/app.py Berlin`.\n\n"
        "TODO: document the configuration file.\n"
    ),
    "src/app.py": (
        '"""Report the weather for a city."""\n\n'
        "import sys\n\n\n"
        "def forecast(city: str) -> str:\n"
        "    # TODO: call the real weather API\n"
        '    return f"{city}: sunny, 21 C"\n\n\n'
        'if __name__ == "__main__":\n'
        "    print(forecast(sys.argv[1]))\n"
    ),
    "notes/todo.txt": "- TODO: add tests\n- ship version 1.0\n",
    "config.env": f"REGION=eu-west-1\nAPI_TOKEN={DEMO_TOKEN}\nCACHE_SECONDS=300\n",
    "secrets.txt": "production database password: correct-horse-battery-staple\n",
}


def fill_workspace(root: Path) -> list[str]:
    """Write :data:`FILES` under ``root``; the relative paths written, sorted."""
    for relative, text in FILES.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return sorted(FILES)
