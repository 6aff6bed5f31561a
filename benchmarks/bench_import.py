"""Import and start-up time (issue 15: ``import dsh_tools`` <= 40 ms).

Every CLI command and every program that uses the library starts by
importing it. Each figure is the median of several fresh interpreters, timed
inside the child (``perf_counter`` around the statement), so the
interpreter's own start-up is not counted; the whole-process figures (start,
import, exit) are printed beside them for ``python -c pass`` and
``dsh-tools --help``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGET_MS = 40.0
RUNS = 9
STATEMENTS = {
    "import dsh_tools": "import dsh_tools",
    "from dsh_tools import boot, define_tool; boot()": "from dsh_tools import boot, define_tool; boot()",
    "import dsh_tools.cli (what --help loads)": "import dsh_tools.cli",
}
TIMER = (
    "import time\n_t = time.perf_counter()\n{statement}\n"
    "print((time.perf_counter() - _t) * 1000)"
)


def _child_ms(statement: str) -> float:
    """Median milliseconds ``statement`` takes in a fresh interpreter."""
    samples = []
    for _ in range(RUNS):
        done = subprocess.run(
            [sys.executable, "-c", TIMER.format(statement=statement)],
            capture_output=True, text=True, check=True, env=os.environ.copy(),
        )
        samples.append(float(done.stdout.strip()))
    return statistics.median(samples)


def _process_ms(command: list[str]) -> float:
    samples = []
    for _ in range(RUNS):
        started = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True)
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def run() -> list[tuple[str, float, str, bool]]:
    rows: list[tuple[str, float, str, bool]] = []
    for label, statement in STATEMENTS.items():
        ms = _child_ms(statement)
        target = f"<= {TARGET_MS:.0f} ms" if statement == "import dsh_tools" else "informational"
        rows.append((f"ms, {label}", ms, target, ms <= TARGET_MS or target == "informational"))
    script = Path(sys.executable).parent / "dsh-tools"
    rows.append(("ms, process: python -c pass", _process_ms([sys.executable, "-c", "pass"]), "informational", True))
    if script.is_file():
        rows.append(("ms, process: dsh-tools --help", _process_ms([str(script), "--help"]), "informational", True))
    return rows


def main() -> None:
    for figure, value, target, holds in run():
        print(f"{figure:<60} {value:>10.1f}  {target:<16} {'ok' if holds else 'MISSED'}")


if __name__ == "__main__":
    main()
