"""Words of a tool's text as the search index keeps them: lower-cased, split, Porter-stemmed.

Stemming lets "deletes", "deleted" and "deleting" meet "delete": on the frozen
retrieval set (``benchmarks/retrieval_queries.json``) it is worth three
points of recall@5 (the measurement is in ``docs/code-mode.md``, "Large
catalogs"). The stemmer is M. F. Porter's original algorithm (1980), the
one SQLite's FTS5 ``porter`` tokenizer implements, written out here so the
index needs no dependency; it stems lower-case ASCII words and leaves every
other token (digits, other scripts) as it is.

Tokens are maximal runs of letters and digits in any script; ``_`` separates
them, so ``fs_read_byte_range`` reads as four words.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["stem", "terms"]

_TOKEN: Final = re.compile(r"[^\W_]+")
_ASCII_WORD: Final = re.compile(r"[a-z]+")
_VOWELS: Final = frozenset("aeiou")


def terms(text: str) -> list[str]:
    """The stemmed words of ``text``, in order (repeats kept: a document's term frequencies count them)."""
    known = _STEMS
    out = []
    for token in _TOKEN.findall(text.lower()):
        stemmed = known.get(token)
        if stemmed is None:
            if len(known) >= _KNOWN_WORDS:  # bounded: queries are the program's, any words at all
                known.clear()
            stemmed = known[token] = stem(token)
        out.append(stemmed)
    return out


_KNOWN_WORDS: Final = 65_536
_STEMS: Final[dict[str, str]] = {}
"""Stems already worked out (a catalog repeats its words): a dict lookup is cheaper than the algorithm."""


def stem(word: str) -> str:
    """The Porter stem of a lower-case ASCII ``word``; any other token as it is."""
    if len(word) <= 2 or _ASCII_WORD.fullmatch(word) is None:
        return word
    return _step5(_step4(_step3(_step2(_step1c(_step1b(_step1a(word)))))))


def _consonant(word: str, i: int) -> bool:
    letter = word[i]
    if letter in _VOWELS:
        return False
    if letter == "y":
        return i == 0 or not _consonant(word, i - 1)
    return True


def _measure(stem_: str) -> int:
    """``m`` in ``[C](VC)^m[V]``: how many vowel-consonant runs ``stem_`` has."""
    m, i, n = 0, 0, len(stem_)
    while i < n and _consonant(stem_, i):
        i += 1
    while i < n:
        while i < n and not _consonant(stem_, i):
            i += 1
        if i >= n:
            break
        while i < n and _consonant(stem_, i):
            i += 1
        m += 1
    return m


def _has_vowel(stem_: str) -> bool:
    return any(not _consonant(stem_, i) for i in range(len(stem_)))


def _double(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _consonant(word, len(word) - 1)


def _cvc(word: str) -> bool:
    """Consonant, vowel, consonant at the end, the last not ``w``, ``x`` or ``y`` (``hop``, not ``bow``)."""
    n = len(word)
    return (
        n >= 3 and _consonant(word, n - 3) and not _consonant(word, n - 2) and _consonant(word, n - 1)
        and word[-1] not in "wxy"
    )


def _step1a(word: str) -> str:
    if word.endswith("sses") or word.endswith("ies"):
        return word[:-2]
    if word.endswith("ss"):
        return word
    return word[:-1] if word.endswith("s") else word


def _step1b(word: str) -> str:
    if word.endswith("eed"):
        return word[:-1] if _measure(word[:-3]) > 0 else word
    for suffix in ("ed", "ing"):
        if word.endswith(suffix) and _has_vowel(word[: -len(suffix)]):
            word = word[: -len(suffix)]
            if word.endswith(("at", "bl", "iz")):
                return word + "e"
            if _double(word) and word[-1] not in "lsz":
                return word[:-1]
            if _measure(word) == 1 and _cvc(word):
                return word + "e"
            return word
    return word


def _step1c(word: str) -> str:
    return word[:-1] + "i" if word.endswith("y") and _has_vowel(word[:-1]) else word


def _replace(word: str, rules: tuple[tuple[str, str], ...], minimum: int) -> str:
    """The first rule whose suffix ends ``word``, applied if the stem's measure exceeds ``minimum``."""
    for suffix, replacement in rules:
        if word.endswith(suffix):
            base = word[: -len(suffix)]
            return base + replacement if _measure(base) > minimum else word
    return word


_STEP2: Final = (
    ("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"), ("izer", "ize"),
    ("abli", "able"), ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous"), ("ization", "ize"),
    ("ation", "ate"), ("ator", "ate"), ("alism", "al"), ("iveness", "ive"), ("fulness", "ful"),
    ("ousness", "ous"), ("aliti", "al"), ("iviti", "ive"), ("biliti", "ble"),
)
_STEP3: Final = (
    ("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"), ("ical", "ic"), ("ful", ""), ("ness", ""),
)
_STEP4: Final = (
    "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism", "ate",
    "iti", "ous", "ive", "ize",
)


def _step2(word: str) -> str:
    return _replace(word, _STEP2, 0)


def _step3(word: str) -> str:
    return _replace(word, _STEP3, 0)


def _step4(word: str) -> str:
    for suffix in _STEP4:
        if word.endswith(suffix):
            base = word[: -len(suffix)]
            if _measure(base) > 1 and (suffix != "ion" or base.endswith(("s", "t"))):
                return base
            return word
    return word


def _step5(word: str) -> str:
    if word.endswith("e"):
        base = word[:-1]
        m = _measure(base)
        if m > 1 or (m == 1 and not _cvc(base)):
            word = base
    if word.endswith("ll") and _measure(word) > 1:
        word = word[:-1]
    return word
