"""``make bench``: run every ``benchmarks/bench_*.py`` and print one table.

Each benchmark module exposes ``run() -> list[(figure, value, target, holds)]``.
Figures are measured in this one run on this machine, so ratios between rows
are meaningful even when the machine is noisy; absolute targets are the
issue's, checked as printed.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time
from pathlib import Path

Row = tuple[str, float, str, bool]


def _modules() -> list[str]:
    here = Path(__file__).parent
    return sorted(info.name for info in pkgutil.iter_modules([str(here)]) if info.name.startswith("bench_"))


def main() -> int:
    rows: list[Row] = []
    started = time.perf_counter()
    for name in _modules():
        module = importlib.import_module(f"benchmarks.{name}")
        print(f"running {name} ...", file=sys.stderr, flush=True)
        rows.extend(module.run())
    width = max(len(figure) for figure, *_ in rows)
    print(f"{'figure':{width}}  {'value':>14}  {'target':>12}  holds")
    print("-" * (width + 38))
    for figure, value, target, holds in rows:
        print(f"{figure:{width}}  {value:>14,.3f}  {target:>12}  {'yes' if holds else 'NO'}")
    missed = [figure for figure, _, _, holds in rows if not holds]
    print(f"\n{len(rows)} figures in {time.perf_counter() - started:.1f} s; {len(missed)} target(s) missed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
