"""The README's tour runs as written and prints what its comments promise.

Every ```python block of README.md is executed in order, in one namespace,
like a reader pasting them into a file; each ``print`` whose line carries a
``# <expected>`` comment must print exactly that.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
import types
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)
EXPECTATION = re.compile(r"^\s*(?:print|asyncio\.run)\(.*\)\s+#\s(?!the |type:)(.+)$")


def test_the_readme_tour_runs_and_prints_what_it_says() -> None:
    blocks = BLOCK.findall(README.read_text(encoding="utf-8"))
    assert len(blocks) >= 4, "the tour has four steps"
    module = types.ModuleType("readme_tour")  # a real module, so TypedDict annotations resolve
    sys.modules[module.__name__] = module
    namespace = module.__dict__
    expected: list[str] = []
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        for block in blocks:
            exec(compile(block, str(README), "exec"), namespace)  # noqa: S102 - the point of the test
            expected.extend(m.group(1).strip() for line in block.splitlines() if (m := EXPECTATION.match(line)))
    printed = output.getvalue().splitlines()
    missing = [line for line in expected if line not in printed]
    assert not missing, f"README promises output it does not print: {missing}\nprinted: {printed}"
    assert len(expected) >= 5
