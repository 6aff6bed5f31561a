"""``make bench-ab BASE=<rev>``: every figure of ``make bench``, this tree against ``BASE``, alternating.

A change is held to "no figure more than 10 % worse than before it" (issue
22). On a shared two-core machine a figure drifts by more than that within
minutes, so the two trees are measured in turns (base, branch, base, ...),
each benchmark module in a fresh interpreter, and the table compares medians
of the rounds. ``BASE`` is checked out in a temporary ``git worktree``; both
trees run with this venv's interpreter, each with its own tree first on
``sys.path`` (the child checks which ``dsh_tools`` it loaded).

Ratios are branch / base, and the last column says whether the figure moved
the bad way by more than 10 % (for a rate, lower is worse; for a time, higher;
the direction is read from the figure's name: ``/s`` is a rate). A figure
named a ratio (``ratio`` in its name, or one figure over another: ``A / B``)
is printed but never flagged: whether higher is better depends on the ratio.
Figures one side does not print are listed, not compared.

Run: ``python -m benchmarks.ab BASE [--rounds 5] [--only bench_pipeline,bench_validation]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
MARK = "@@ab-rows@@"
CHILD = (
    "import importlib, json, sys\n"
    "import dsh_tools\n"
    "assert dsh_tools.__file__.startswith(sys.argv[1]), dsh_tools.__file__\n"
    "rows = importlib.import_module('benchmarks.' + sys.argv[2]).run()\n"
    f"print({MARK!r} + json.dumps([[figure, value] for figure, value, *_ in rows]))\n"
)
TOLERANCE = 0.10


def _modules(tree: Path) -> list[str]:
    return sorted(path.stem for path in (tree / "benchmarks").glob("bench_*.py"))


def _measure(tree: Path, module: str) -> dict[str, float]:
    """One fresh interpreter running one benchmark module of ``tree``: ``{figure: value}``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(tree), module], cwd=tree, env=env, capture_output=True, text=True, check=False
    )
    for line in done.stdout.splitlines():
        if line.startswith(MARK):
            return {figure: float(value) for figure, value in json.loads(line[len(MARK):])}
    raise RuntimeError(f"{module} in {tree} printed no rows:\n{done.stderr[-2000:]}")


def _worse(figure: str, ratio: float) -> bool:
    if "ratio" in figure or " / " in figure:  # a ratio of figures: no direction to judge
        return False
    is_rate = "/s" in figure
    return ratio < 1 - TOLERANCE if is_rate else ratio > 1 + TOLERANCE


def compare(base: Path, branch: Path, modules: list[str], rounds: int) -> list[tuple[str, float, float, float, bool]]:
    """``(figure, base median, branch median, ratio, worse)`` for every figure both trees print."""
    samples: dict[str, tuple[list[float], list[float]]] = {}
    for round_number in range(rounds):
        for module in modules:
            print(f"round {round_number + 1}/{rounds}: {module}", file=sys.stderr, flush=True)
            for tree in (base, branch) if round_number % 2 == 0 else (branch, base):
                for figure, value in _measure(tree, module).items():
                    samples.setdefault(figure, ([], []))[0 if tree is base else 1].append(value)
    table = []
    for figure, (before, after) in samples.items():
        if not before or not after:
            print(f"only one side prints: {figure}", file=sys.stderr)
            continue
        old, new = statistics.median(before), statistics.median(after)
        ratio = new / old if old else float("nan")
        table.append((figure, old, new, ratio, _worse(figure, ratio)))
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ab", description=__doc__.split("\n\n")[0])
    parser.add_argument("base", help="the revision to compare against (a commit, a branch, a tag)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", default="", help="comma-separated bench_* modules (default: every one)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="dsh-bench-base-") as scratch:
        base = Path(scratch) / "tree"
        subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(base), args.base], cwd=HERE, check=True)
        try:
            wanted = [name for name in args.only.split(",") if name] or _modules(HERE)
            in_base = set(_modules(base))
            modules = [name for name in wanted if name in in_base]
            table = compare(base, HERE, modules, args.rounds)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=HERE, check=False)
    width = max((len(row[0]) for row in table), default=10)
    print(f"{'figure':{width}}  {'base':>12}  {'branch':>12}  {'ratio':>6}  worse>10%")
    for figure, old, new, ratio, worse in table:
        print(f"{figure:{width}}  {old:>12,.3f}  {new:>12,.3f}  {ratio:>6.3f}  {'YES' if worse else '-'}")
    print(f"\n{len(table)} figures, {args.rounds} alternating rounds; {sum(row[4] for row in table)} worse by more than 10 %")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
