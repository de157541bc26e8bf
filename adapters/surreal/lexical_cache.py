"""Derived records' full text held in process: SurrealDB's own BM25, without the engine.

Why it is built this way: docs/decisions/internals.md#adapterssurreallexical_cachepy.
"""

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np
import regex

from adapters.inprocess.analyzer import stem
from application.ports.records import ScoredId

__all__ = ["LexicalIndex", "LexicalRow", "tx_terms", "tx_tokens"]

#: the ``class`` tokenizer's runs: SurrealDB's classes are Rust's ``char::is_alphabetic``
#: (the Unicode Alphabetic property), ``is_numeric`` (Nd, Nl, No; alphabetic first) and
#: ASCII punctuation; whitespace and every other character (emoji, “curly quotes”,
#: combining marks that are not Alphabetic) end a token and are dropped
_CLASS_RUNS = regex.compile(r"\p{Alphabetic}+|[^\P{N}\p{Alphabetic}]+|[!-/:-@\[-`{-~]+")

#: BM25 parameters as the engine holds them (f32) and widens them (f64)
_K1 = float(np.float32(1.2))
_B = float(np.float32(0.75))

#: (id, space code, the engine's terms of the row, the row's text)
LexicalRow = tuple[str, str, Sequence[str], str]


def _stem(word: str) -> str:
    # the engine keeps a word its stemmer empties; PyStemmer's is shared with the chunk index
    return stem(word) or word


def tx_tokens(text: str) -> list[str]:
    """The ``class`` tokenizer's tokens, lowercased (each token lowercased alone, as the
    engine does after splitting: "İstanbul" stays one token)."""
    return [t.lower() for t in _CLASS_RUNS.findall(text)]


def tx_terms(text: str) -> list[str]:
    """``tx`` as this process can reproduce it (the stemmer is Snowball 3, the engine's
    Snowball 2: see the module docstring)."""
    return [_stem(t) for t in tx_tokens(text)]


class LexicalIndex:
    """One table's postings: rows in id order (so a row number breaks ties as ``id``)."""

    __slots__ = ("_lengths", "_postings", "_spaces", "_vocabulary", "ids")

    def __init__(self, rows: Sequence[LexicalRow]) -> None:
        ordered = sorted(rows, key=lambda r: r[0])
        self.ids = [r[0] for r in ordered]
        self._spaces = np.array([r[1] for r in ordered], dtype=object)
        self._lengths = np.array([len(r[2]) for r in ordered], dtype=np.float64)
        postings: dict[str, tuple[list[int], list[float]]] = {}
        #: a query word seen in a document -> the engine's term for it there
        self._vocabulary: dict[str, str] = {}
        for row, (_, _, terms, text) in enumerate(ordered):
            for term, tf in Counter(terms).items():
                docs, tfs = postings.setdefault(term, ([], []))
                docs.append(row)
                tfs.append(float(tf))
            surface = tx_tokens(text)
            if len(surface) == len(terms):  # the same tokenizer: the same tokens, in order
                self._vocabulary.update(zip(surface, terms, strict=True))
        self._postings = {
            t: (np.asarray(d, dtype=np.int64), np.asarray(f, dtype=np.float64))
            for t, (d, f) in postings.items()
        }

    def _query_terms(self, query: str) -> list[str]:
        return [self._vocabulary.get(t) or _stem(t) for t in tx_tokens(query)]

    def search(self, query: str, limit: int, spaces: frozenset[str] | None) -> list[ScoredId]:
        """``text @1,OR@ $q [AND space IN $spaces] ORDER BY s DESC, id LIMIT $limit``."""
        n = len(self.ids)
        if n == 0 or limit < 1:
            return []
        count = float(n)
        b_over_avg = _B / (float(self._lengths.sum()) / count)
        total = np.zeros(n, dtype=np.float64)
        matched = np.zeros(n, dtype=bool)
        for term in self._query_terms(query):  # every token: a repeated word counts twice
            posting = self._postings.get(term)
            if posting is None:
                continue
            docs, tfs = posting
            matched[docs] = True
            df = float(len(docs))
            idf = max(math.log((count - df + 0.5) / (df + 0.5)), 0.0)
            if idf == 0.0:
                continue
            tf_prime = 1.0 + np.log(tfs)
            norm = (1.0 - _B) + b_over_avg * self._lengths[docs]
            total[docs] += idf * (_K1 + 1.0) * tf_prime / (tf_prime + _K1 * norm)
        if spaces is not None:
            matched &= np.isin(self._spaces, list(spaces))
        rows = np.flatnonzero(matched)
        if not len(rows):
            return []
        scores = total[rows].astype(np.float32)
        # best first, then by id: rows are in id order, and lexsort is stable
        order = np.lexsort((rows, -scores))[:limit]
        return [ScoredId(self.ids[int(rows[i])], float(scores[i])) for i in order]
