"""Real text for the benchmarks: LongMemEval haystack turns and questions.

The data set is read in place (lzma + json); nothing is copied into the
project. Turns are deduplicated by exact content and kept in data order, so
every run with the same file sees the same texts in the same order.
"""

import json
import lzma
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DEFAULT_DATA", "Corpus", "load_corpus"]

DEFAULT_DATA = Path("/work/shared/data/longmemeval/longmemeval_s_dev250.json.xz")


@dataclass(frozen=True)
class Corpus:
    #: unique, non-blank turn contents in data order
    turns: list[str]
    #: unique questions in data order
    questions: list[str]


def _unique(values: list[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for value in values:
        if value.strip() and value not in seen:
            seen.add(value)
            out.append(value)
    return out


def load_corpus(path: Path = DEFAULT_DATA) -> Corpus:
    with lzma.open(path, "rt", encoding="utf-8") as handle:
        items = json.load(handle)
    if not isinstance(items, list):
        raise ValueError(f"{path}: expected a JSON list of questions")
    turns: list[str] = []
    questions: list[str] = []
    for item in items:
        questions.append(str(item["question"]))
        for session in item["haystack_sessions"]:
            turns.extend(str(turn["content"]) for turn in session)
    return Corpus(turns=_unique(turns), questions=_unique(questions))
