"""LongMemEval questions, read in place from the shared ``.json`` or ``.json.xz`` file.

Questions are put in a stratified order (round robin over question types,
data order within a type), so ``--limit N`` is a fair sample of every type
and a cache filled in that order covers any shorter run first.
"""

import json
import lzma
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from domain.chunking import split_into_chunks

__all__ = ["DEFAULT_LME", "chunk_texts", "load_questions", "stratified"]

DEFAULT_LME = Path("/work/shared/data/longmemeval/longmemeval_s_dev250.json.xz")


def load_questions(path: Path) -> list[dict[str, Any]]:
    opener = lzma.open if path.suffix == ".xz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        items = json.load(handle)
    if not isinstance(items, list):
        raise ValueError(f"{path}: expected a JSON list of questions")
    return items


def stratified(items: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    by_type: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        by_type.setdefault(str(item["question_type"]), []).append(item)
    queues = [by_type[t] for t in sorted(by_type)]
    out: list[dict[str, Any]] = []
    depth = 0
    while len(out) < len(items):
        for queue in queues:
            if depth < len(queue):
                out.append(queue[depth])
        depth += 1
    return out


def chunk_texts(item: dict[str, Any]) -> list[str]:
    """The texts remember will embed for this question's haystack (one turn, one or more chunks)."""
    return [
        span.text
        for session in item["haystack_sessions"]
        for turn in session
        if str(turn.get("content", "")).strip()
        for span in split_into_chunks(str(turn["content"]))
    ]
