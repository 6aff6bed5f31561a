"""``make bench-ab``: which way is worse, and one figure measured in a fresh interpreter of a given tree."""

from __future__ import annotations

from pathlib import Path

import pytest

import dsh_tools
from benchmarks.ab import _measure, _worse


@pytest.mark.parametrize(
    ("figure", "ratio", "worse"),
    [
        ("pipeline: bare execute() calls/s", 0.89, True),
        ("pipeline: bare execute() calls/s", 0.91, False),
        ("pipeline: bare execute() calls/s", 1.5, False),
        ("codegen render, frozen cold: median ms", 1.11, True),
        ("codegen render, frozen cold: median ms", 1.09, False),
        ("codegen render, frozen cold: median ms", 0.5, False),
        ("store: 1,000-call batch, PostgresStore / MemoryStore", 1.3, False),  # ratios are never judged
        ("pipeline: bare / direct ratio", 0.5, False),
    ],
)
def test_a_rate_is_worse_lower_and_a_time_higher(figure: str, ratio: float, worse: bool) -> None:
    assert _worse(figure, ratio) is worse


def test_a_tree_is_measured_with_its_own_package(tmp_path: Path) -> None:
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "__init__.py").write_text("")
    (tmp_path / "benchmarks" / "bench_fake.py").write_text(
        "import dsh_tools\n\ndef run():\n    return [('fake figure/s', 42.0, 'A/B', True), ('path', len(dsh_tools.__file__), '-', True)]\n"
    )
    (tmp_path / "dsh_tools").symlink_to(Path(dsh_tools.__file__).parent)
    measured = _measure(tmp_path, "bench_fake")
    assert measured == {"fake figure/s": 42.0, "path": float(len(str(tmp_path / "dsh_tools" / "__init__.py")))}
    with pytest.raises(RuntimeError, match="bench_missing in .* printed no rows"):
        _measure(tmp_path, "bench_missing")
