"""The rankers ``tools.$search`` could use, measured on the frozen retrieval set before one was chosen (issue 37).

For each candidate: recall@5 on ``benchmarks/retrieval_queries.json`` over
``labelled_catalog()`` (overall and per surface), the time to index
``large_catalog(10_000)`` and the median time of one query at 10,000 tools
(the 220 queries, one top-5 each). Every candidate reads the same text of a
tool: its name (``_`` as a space), its description and its parameters' names.

Candidates:

* SQLite FTS5 (standard library ``sqlite3``), the ``porter unicode61``
  tokenizer (and ``unicode61`` alone), every query token quoted and joined
  with ``OR``, ranked by ``bm25()``: one column, or three columns weighted;
* ``bm25s`` (NumPy and SciPy; its English stop words, with and without the
  ``PyStemmer`` stemmer);
* ``rank-bm25`` (NumPy; ``BM25Okapi``, with and without ``PyStemmer``);
* dsh-tools' own :class:`~dsh_tools.code_mode.search.index.CatalogIndex` (pure
  Python, Porter stemming), the one chosen.

The libraries are not dependencies of dsh-tools. To run every row::

    python -m venv /tmp/rank && /tmp/rank/bin/pip install bm25s rank-bm25 PyStemmer returns pyrsistent orjson docstring-parser
    PYTHONPATH=. /tmp/rank/bin/python -m benchmarks.retrieval_candidates

With the project's venv (``.venv/bin/python -m benchmarks.retrieval_candidates``)
the rows whose library is missing are skipped.
"""

from __future__ import annotations

import json
import re
import sqlite3
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.catalog_surfaces import SURFACE_NAMES, labelled_catalog, large_catalog

Ranker = Callable[[str, int], list[str]]
QUERIES: list[dict[str, str]] = json.loads((Path(__file__).parent / "retrieval_queries.json").read_text(encoding="utf-8"))
_WORD = re.compile(r"[^\W_]+")


def _fields(tool: dict[str, Any]) -> tuple[str, str, str]:
    params = " ".join(name.replace("_", " ") for name in tool["parameters"]["properties"])
    return tool["name"].replace("_", " "), tool["description"], params


def _text(tool: dict[str, Any]) -> str:
    return " ".join(_fields(tool))


def fts5(catalog: list[dict[str, Any]], *, tokenizer: str = "porter unicode61", weights: tuple[float, ...] | None = None) -> Ranker:
    db = sqlite3.connect(":memory:")
    if weights is None:
        db.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, tokenize='{tokenizer}')")
        db.executemany("INSERT INTO t (rowid, body) VALUES (?, ?)", [(i, _text(tool)) for i, tool in enumerate(catalog)])
        rank = "bm25(t)"
    else:
        db.execute(f"CREATE VIRTUAL TABLE t USING fts5(name, description, params, tokenize='{tokenizer}')")
        db.executemany("INSERT INTO t (rowid, name, description, params) VALUES (?, ?, ?, ?)",
                       [(i, *_fields(tool)) for i, tool in enumerate(catalog)])
        rank = f"bm25(t, {', '.join(map(str, weights))})"
    names = [tool["name"] for tool in catalog]
    statement = f"SELECT rowid FROM t WHERE t MATCH ? ORDER BY {rank}, rowid LIMIT ?"

    def search(query: str, k: int) -> list[str]:
        tokens = _WORD.findall(query.lower())
        if not tokens:
            return []
        match = " OR ".join('"' + token.replace('"', '""') + '"' for token in tokens)  # data, never syntax
        return [names[row[0]] for row in db.execute(statement, (match, k))]

    return search


def bm25s_ranker(catalog: list[dict[str, Any]], *, stem: bool) -> Ranker:
    import bm25s  # type: ignore[import-not-found, unused-ignore]

    stemmer = _stemmer() if stem else None
    names = [tool["name"] for tool in catalog]
    retriever = bm25s.BM25()
    corpus = bm25s.tokenize([_text(tool) for tool in catalog], stopwords="en", stemmer=stemmer, show_progress=False)
    retriever.index(corpus, show_progress=False)

    def search(query: str, k: int) -> list[str]:
        tokens = bm25s.tokenize([query], stopwords="en", stemmer=stemmer, show_progress=False)
        try:
            documents, _ = retriever.retrieve(tokens, k=k, show_progress=False)
        except Exception:  # noqa: BLE001 - a query with no known word
            return []
        return [names[i] for i in documents[0]]

    return search


def rank_bm25_ranker(catalog: list[dict[str, Any]], *, stem: bool) -> Ranker:
    import numpy  # type: ignore[import-not-found, unused-ignore]
    from rank_bm25 import BM25Okapi  # type: ignore[import-not-found, unused-ignore]

    stemmer = _stemmer() if stem else None

    def tokens(text: str) -> list[str]:
        words = _WORD.findall(text.lower())
        return list(stemmer.stemWords(words)) if stemmer is not None else words

    names = [tool["name"] for tool in catalog]
    model = BM25Okapi([tokens(_text(tool)) for tool in catalog])

    def search(query: str, k: int) -> list[str]:
        scores = model.get_scores(tokens(query))
        return [names[i] for i in numpy.argsort(-scores, kind="stable")[:k]]

    return search


def _stemmer() -> Any:
    import Stemmer  # type: ignore[import-not-found, unused-ignore]

    return Stemmer.Stemmer("english")


def ours(catalog: list[dict[str, Any]]) -> Ranker:
    from dsh_tools.code_mode.search.index import CatalogIndex
    from dsh_tools.registry.snapshot import snapshot

    class Definition:
        def __init__(self, tool: dict[str, Any]) -> None:
            self.name, self.description, self.parameters = tool["name"], tool["description"], tool["parameters"]

        async def execute(self, args: object, exec: object) -> list[Any]:
            return []

    index = CatalogIndex()
    snapshots = [snapshot(Definition(tool)) for tool in catalog]
    index.sync(None, lambda: snapshots)

    def search(query: str, k: int) -> list[str]:
        return [tool.name for tool in index.search(query, k, lambda tool: True)]

    return search


CANDIDATES: dict[str, Callable[[list[dict[str, Any]]], Ranker]] = {
    "FTS5 porter, one column": lambda c: fts5(c),
    "FTS5 porter, name x2, params x0.5": lambda c: fts5(c, weights=(2.0, 1.0, 0.5)),
    "FTS5 unicode61 (no stemming)": lambda c: fts5(c, tokenizer="unicode61"),
    "bm25s, stop words, no stemmer": lambda c: bm25s_ranker(c, stem=False),
    "bm25s, stop words, PyStemmer": lambda c: bm25s_ranker(c, stem=True),
    "rank-bm25 Okapi, no stemmer": lambda c: rank_bm25_ranker(c, stem=False),
    "rank-bm25 Okapi, PyStemmer": lambda c: rank_bm25_ranker(c, stem=True),
    "dsh-tools CatalogIndex (chosen)": ours,
}


def recall_at_5(search: Ranker) -> tuple[float, dict[str, float]]:
    """The share of queries whose labelled tool is in the top five, overall and per surface."""
    hits: dict[str, list[int]] = {surface: [0, 0] for surface in SURFACE_NAMES}
    for row in QUERIES:
        hits[row["surface"]][1] += 1
        hits[row["surface"]][0] += row["tool"] in search(row["query"], 5)
    overall = sum(found for found, _ in hits.values()) / len(QUERIES)
    return overall, {surface: found / total for surface, (found, total) in hits.items()}


def query_p50_ms(search: Ranker) -> float:
    samples = []
    for row in QUERIES:
        start = time.perf_counter()
        search(row["query"], 5)
        samples.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(samples)


def main() -> None:
    labelled, large = labelled_catalog(), large_catalog(10_000)
    print(f"{'candidate':36} {'recall@5':>8} {'build 10k ms':>12} {'p50 10k ms':>10}  per surface")
    for label, make in CANDIDATES.items():
        try:
            overall, per_surface = recall_at_5(make(labelled))
        except ImportError as missing:
            print(f"{label:36} skipped: {missing}")
            continue
        start = time.perf_counter()
        search = make(large)
        build_ms = (time.perf_counter() - start) * 1000.0
        p50 = query_p50_ms(search)
        surfaces = " ".join(f"{surface} {value:.2f}" for surface, value in per_surface.items())
        print(f"{label:36} {overall:8.3f} {build_ms:12.1f} {p50:10.2f}  {surfaces}")


if __name__ == "__main__":
    main()
