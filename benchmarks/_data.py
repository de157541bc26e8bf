"""Real text for the benchmarks: LongMemEval haystack turns and questions.

The data set is read in place (lzma + json); nothing is copied into the
project. Turns are deduplicated by exact content and kept in data order, so
every run with the same file sees the same texts in the same order.

Where it is read from: a benchmark's ``--data`` flag, else the
``TESSERA_LME_DATA`` environment variable, else ``DEFAULT_DATA``, the
evaluation data kept beside the repository.
"""

import json
import lzma
import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DATA_ENV", "DATA_HELP", "DEFAULT_DATA", "Corpus", "data_path", "load_corpus"]

#: the repository root: this file is benchmarks/_data.py
_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = _ROOT.parent / "shared" / "data" / "longmemeval" / "longmemeval_s_dev250.json.xz"
DATA_ENV = "TESSERA_LME_DATA"
DATA_HELP = f"LongMemEval .json.xz (default: ${DATA_ENV}, else {DEFAULT_DATA})"


@dataclass(frozen=True)
class Corpus:
    #: unique, non-blank turn contents in data order
    turns: list[str]
    #: unique questions in data order
    questions: list[str]


def data_path(flag: Path | None = None) -> Path:
    """The flag's path, else ``TESSERA_LME_DATA``'s, else ``DEFAULT_DATA``."""
    if flag is not None:
        return flag
    from_env = os.environ.get(DATA_ENV)
    return Path(from_env).expanduser() if from_env else DEFAULT_DATA


def _unique(values: list[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for value in values:
        if value.strip() and value not in seen:
            seen.add(value)
            out.append(value)
    return out


def load_corpus(path: Path | None = None) -> Corpus:
    path = data_path(path)
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
