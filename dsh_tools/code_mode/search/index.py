"""``CatalogIndex``: the BM25 index behind ``tools.$search``, kept in step with the registry.

Each tool is one document: its name (``_`` separates words), its description
and its parameters' names, stemmed (:mod:`.stem`). A query is scored with
Okapi BM25 (``k1 = 1.2``, ``b = 0.75``, Lucene's always-positive idf) and the
results are ranked by score, ties in code-point order of the names. It is
deterministic: the score is a function of the query and the current catalog
alone (terms are summed in sorted order, so not even the float rounding
depends on history).

Why this and not SQLite FTS5 or a BM25 library: the measurement in
``docs/code-mode.md`` ("Large catalogs", ``benchmarks/retrieval_candidates.py``).
In short, FTS5's ``bm25()`` costs about a microsecond per matching row, and
an ``OR`` query over 10,000 tools matches most of them (5 to 10 ms); the
libraries need NumPy (and SciPy) and rebuild their whole index for one new
tool. Here one registration adds one document, and the per-term weights a
query needs are made on first use after a change.

Speed at 10,000 tools comes from two things: each term's weights are kept
as two flat lists (documents, weights) that a query adds up in one tight
loop, and a term found in more than a quarter of the documents (and in
more than :data:`COMMON_FLOOR` of them) is skipped: its idf is small, its
list long, and leaving it out changes recall@5 on the labelled set by
nothing (measured). A query of common words only, or whose rare words find
nothing the caller may call (the counts are the whole catalog's, every
agent's tools), is scored with every word instead: it never comes back
empty because its words are common. A query is read up to :data:`MAX_QUERY_CHARS` characters
and :data:`MAX_QUERY_TERMS` distinct words; it is data, never syntax, so no
query can fail: an empty one finds nothing.

The index holds every tool of the registry's layers (global and per-agent);
who may call what is the caller's ``admits`` filter, applied to the ranked
results. Statistics are the whole catalog's.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Final

from dsh_tools.code_mode.search.stem import terms
from dsh_tools.tool_types import RegisteredTool

__all__ = ["COMMON_FLOOR", "MAX_QUERY_CHARS", "MAX_QUERY_TERMS", "CatalogIndex", "document_text"]

K1: Final = 1.2
B: Final = 0.75
COMMON_FRACTION: Final = 0.25
COMMON_FLOOR: Final = 256
"""A query term found in more documents than this and than a quarter of them is skipped (see the module docstring)."""
MAX_QUERY_CHARS: Final = 4096
MAX_QUERY_TERMS: Final = 64


def document_text(tool: RegisteredTool) -> str:
    """What the index reads of a tool: its name, its description and its parameters' names."""
    parameters = tool.parameters
    properties = parameters.get("properties") if isinstance(parameters, Mapping) else None
    names = " ".join(str(key) for key in properties) if isinstance(properties, Mapping) else ""
    return f"{tool.name} {tool.description} {names}"


class _Doc:
    __slots__ = ("tool", "length", "counts")

    def __init__(self, tool: RegisteredTool, counts: Counter[str]) -> None:
        self.tool = tool
        self.counts = counts
        self.length = sum(counts.values())


class CatalogIndex:
    """The documents of a set of tools, synced by identity (:meth:`sync`), and :meth:`search` over them."""

    __slots__ = ("_docs", "_postings", "_total", "_weights", "_synced")

    def __init__(self) -> None:
        self._docs: dict[int, _Doc] = {}  # id(tool) -> its document (holding the tool: the id is not recycled)
        self._postings: dict[str, dict[int, int]] = {}  # term -> {document: term frequency}
        self._total = 0  # summed document lengths
        self._weights: dict[str, tuple[list[int], list[float]]] = {}  # per term, made on first use
        self._synced: object = None

    def __len__(self) -> int:
        return len(self._docs)

    def sync(self, version: object, tools: Callable[[], Iterable[RegisteredTool]]) -> None:
        """Make the documents exactly ``tools()`` (by identity), unless ``version`` is the one last synced.

        One registered tool adds one document; nothing else is read again.
        """
        if version is not None and version == self._synced:
            return
        current = {id(tool): tool for tool in tools()}
        for key in [key for key in self._docs if key not in current]:
            self._remove(key)
        for key, tool in current.items():
            if key not in self._docs:
                self._add(key, tool)
        self._synced = version

    def _add(self, key: int, tool: RegisteredTool) -> None:
        doc = _Doc(tool, Counter(terms(document_text(tool))))
        self._docs[key] = doc
        self._total += doc.length
        postings = self._postings
        for term, count in doc.counts.items():
            postings.setdefault(term, {})[key] = count
        self._weights.clear()  # N and the average length moved: every term's weights change

    def _remove(self, key: int) -> None:
        doc = self._docs.pop(key)
        self._total -= doc.length
        for term in doc.counts:
            documents = self._postings[term]
            del documents[key]
            if not documents:
                del self._postings[term]
        self._weights.clear()

    def search(self, query: str, limit: int, admits: Callable[[RegisteredTool], bool]) -> list[RegisteredTool]:
        """The ``limit`` best tools for ``query`` that ``admits`` lets through, best first (ties by name)."""
        docs = self._docs
        if limit < 1 or not docs:
            return []
        words = sorted(list(dict.fromkeys(terms(query[:MAX_QUERY_CHARS])))[:MAX_QUERY_TERMS])
        present = [word for word in words if word in self._postings]
        rare = [word for word in present if not self._common(word)]
        found = self._best(self._scored(rare), limit, admits) if rare else []
        if not found and len(rare) < len(present):
            # Common words only, or the rare ones found nothing this caller may call (common counts
            # are the whole catalog's, every agent's tools): score every word rather than answer nothing.
            found = self._best(self._scored(present), limit, admits)
        return found

    def _scored(self, words: list[str]) -> dict[int, float]:
        """Each document's summed weight over ``words`` (in their sorted order: the float sums never vary)."""
        scores: dict[int, float] = {}
        get = scores.get
        for word in words:
            keys, weights = self._weights_of(word)
            for key, weight in zip(keys, weights):
                scores[key] = get(key, 0.0) + weight
        return scores

    def _best(self, scores: dict[int, float], limit: int, admits: Callable[[RegisteredTool], bool]) -> list[RegisteredTool]:
        """The ``limit`` admitted documents of highest score, ties by name.

        The head is picked by score alone (a C-level key), then every document
        scoring at least as high as its last one is ranked by ``(score, name)``,
        so a tie at the edge of the head is broken by name, never by history.
        """
        docs = self._docs
        wanted = limit * 4 + 8  # room for documents the view hides
        head = heapq.nlargest(wanted, scores, key=scores.__getitem__)
        if len(head) == wanted:
            edge = scores[head[-1]]
            head = [key for key, score in scores.items() if score >= edge]
        ranked = sorted(head, key=lambda key: (-scores[key], docs[key].tool.name))
        found = [docs[key].tool for key in ranked if admits(docs[key].tool)]
        if len(found) < limit and len(head) < len(scores):  # a narrow view: look further down
            ranked = sorted(scores, key=lambda key: (-scores[key], docs[key].tool.name))
            found = [docs[key].tool for key in ranked if admits(docs[key].tool)]
        return found[:limit]

    def _common(self, term: str) -> bool:
        """Whether ``term`` is in more than :data:`COMMON_FLOOR` documents and more than a quarter of them."""
        frequency = len(self._postings[term])
        return frequency > COMMON_FLOOR and frequency > len(self._docs) * COMMON_FRACTION

    def _weights_of(self, term: str) -> tuple[list[int], list[float]]:
        """``term``'s documents and BM25 weights (idf folded in), made on first use after a change."""
        made = self._weights.get(term)
        if made is not None:
            return made
        documents = self._postings[term]
        count = len(self._docs)
        frequency = len(documents)
        idf = math.log(1.0 + (count - frequency + 0.5) / (frequency + 0.5))
        average = self._total / count if self._total else 1.0
        docs = self._docs
        keys = list(documents)
        weights = []
        for key in keys:
            tf = documents[key]
            norm = K1 * (1.0 - B + B * docs[key].length / average)
            weights.append(idf * tf * (K1 + 1.0) / (tf + norm))
        made = self._weights[term] = (keys, weights)
        return made

