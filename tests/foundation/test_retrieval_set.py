"""The frozen retrieval set of issue 37 and the catalog it labels (``benchmarks/catalog_surfaces.py``).

The queries were written before any ranker existed, by paraphrasing each labelled tool's description;
the digest keeps anyone from tuning them to a ranker afterwards.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from benchmarks.catalog_surfaces import SURFACE_NAMES, labelled_catalog, large_catalog, surfaces

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
QUERIES = BENCHMARKS / "retrieval_queries.json"
DIGEST = BENCHMARKS / "retrieval_queries.sha256"


def _queries() -> list[dict[str, str]]:
    loaded: Any = json.loads(QUERIES.read_text(encoding="utf-8"))
    assert isinstance(loaded, list)
    rows: list[dict[str, str]] = []
    for row in loaded:
        assert isinstance(row, dict) and set(row) == {"query", "tool", "surface"}, row
        assert all(isinstance(value, str) and value for value in row.values()), row
        rows.append({str(key): str(value) for key, value in row.items()})
    return rows


def test_the_set_is_frozen() -> None:
    recorded = DIGEST.read_text(encoding="utf-8").split()[0]
    assert hashlib.sha256(QUERIES.read_bytes()).hexdigest() == recorded


def test_the_set_is_large_enough_and_covers_every_surface() -> None:
    rows = _queries()
    assert len(rows) >= 200
    assert len({row["query"] for row in rows}) == len(rows)
    per_surface = Counter(row["surface"] for row in rows)
    assert len(per_surface) >= 10
    assert set(per_surface) <= set(SURFACE_NAMES)
    assert min(per_surface.values()) >= 15


def test_every_label_is_a_tool_of_its_surface() -> None:
    catalog = {tool["name"] for tool in labelled_catalog()}
    by_surface = {surface: {tool["name"] for tool in tools} for surface, tools in surfaces().items()}
    for row in _queries():
        assert row["tool"] in catalog, row
        assert row["tool"] in by_surface[row["surface"]], row


def test_no_query_copies_its_tool_name() -> None:
    for row in _queries():
        query, name = row["query"].lower(), row["tool"]
        operation = name.removeprefix(f"{row['surface']}_")
        assert name not in query, row
        assert name.replace("_", " ") not in query, row
        # Nor the operation's words in order: "git_cherry_pick" may not be asked for as "cherry pick".
        for form in (operation, operation.replace("_", " ")):
            assert re.search(rf"\b{re.escape(form)}\b", query) is None, row


def test_the_labelled_catalog_is_exactly_1000_unique_tools_from_ten_surfaces() -> None:
    catalog = labelled_catalog()
    names = [tool["name"] for tool in catalog]
    assert len(catalog) == 1000
    assert len(set(names)) == 1000
    assert Counter(name.split("_", 1)[0] for name in names) == {surface: 100 for surface in SURFACE_NAMES}
    assert catalog == labelled_catalog()  # deterministic


def test_every_tool_has_a_realistic_shape() -> None:
    for tool in labelled_catalog():
        assert set(tool) == {"name", "description", "parameters"}
        assert re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)+", tool["name"]), tool["name"]
        assert tool["description"].endswith("."), tool["name"]
        schema = tool["parameters"]
        assert schema["type"] == "object"
        assert 1 <= len(schema["properties"]) <= 8, tool["name"]
        assert set(schema["required"]) <= set(schema["properties"]), tool["name"]
        for parameter in schema["properties"].values():
            assert parameter["type"] in {"string", "integer", "number", "boolean", "object", "array"}
            assert parameter["description"], tool["name"]


@pytest.mark.parametrize("count", [100, 1000, 10_000])
def test_the_large_catalog_is_a_stable_prefix_of_unique_names(count: int) -> None:
    tools = large_catalog(count)
    assert len(tools) == count
    assert len({tool["name"] for tool in tools}) == count
    assert tools == large_catalog(10_000)[:count]
    assert tools[: min(count, 1000)] == labelled_catalog()[: min(count, 1000)]


def test_the_large_catalog_stops_at_10000() -> None:
    with pytest.raises(ValueError):
        large_catalog(10_001)
