"""mypy ``--strict`` sees ``FrozenDict`` as a read-only ``Mapping``: reads type-check, mutations do not."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SNIPPET = '''
from collections.abc import Mapping
from dsh_tools import FrozenDict, FrozenJson, freeze_json

counts: FrozenDict[str, int] = FrozenDict({"a": 1})
pairs: FrozenDict[str, int] = FrozenDict([("a", 1)])
named: FrozenDict[str, int] = FrozenDict(a=1)
view: Mapping[str, int] = counts
total: int = counts["a"] + len(counts) + hash(counts)
keys: list[str] = list(counts)
merged: FrozenDict[str, int | str] = counts | {"b": "x"}
frozen: FrozenJson = freeze_json({"a": [1]}).unwrap()

counts["a"] = 2  # MUTATION
del counts["a"]  # MUTATION
counts.update(b=1)  # MUTATION
counts.pop("a")  # MUTATION
counts.clear()  # MUTATION
counts.setdefault("c", 3)  # MUTATION
'''


def test_reads_type_check_and_every_mutation_is_a_type_error(tmp_path: Path) -> None:
    source = textwrap.dedent(SNIPPET)
    snippet = tmp_path / "frozen_dict_user.py"
    snippet.write_text(source)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"), "--no-error-summary", str(snippet)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    flagged = {int(line.split(":")[1]) for line in done.stdout.splitlines() if ": error:" in line}
    mutations = {number for number, line in enumerate(source.splitlines(), 1) if line.endswith("# MUTATION")}
    assert len(mutations) == 6
    assert flagged == mutations, done.stdout + done.stderr
