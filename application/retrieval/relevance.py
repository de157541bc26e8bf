"""The context pack's relevance gate (``domain.relevance_gate``) with each embedder's floor.

The floor is the cosine similarity below which this model's nearest item is
no evidence that memory holds anything about a question. It is a property
of the model, so it is measured per model and looked up by the model name
of the embedder's space; a model not listed here has no floor and its packs
are never gated.

all-MiniLM-L6-v2 (the offline default, int8 ONNX or sentence-transformers):
over the conversation fixture's 132 questions, asked without the speaker's
name as the pipeline embeds them, the nearest turn of the asker's own
conversation had a similarity of at least 0.255 (median 0.59); eight
questions from other domains (router firmware, Kubernetes, engine torque,
the CAP theorem, ...) reached at most 0.216 against six of the conversations
where the conversations say nothing on the subject (0.35 to 0.41 where a
turn does: a dentist visit, a chess club), and at most 0.195 against 30 notes
about watering a garden. The floor is 0.20, below every fixture question as
the ranked pipeline embeds it. The margin is thin: "When did Raj resign?"
against "I handed in my notice this morning." sits at 0.27, and under 0.20
when embedded with the name, as the single-signal vector baseline does; and
off-domain questions over a hundred chatty turns often reach 0.20 by chance
(benchmarks/pack_gate.py: the gate closes about half of their packs).

The hashing embedder is the tests' bag of words: a text sharing no word with
the question lands on random buckets (|cosine| well under 0.5 for short
texts).
"""

from collections.abc import Sequence

import msgspec

from application.retrieval.pipeline import Retrieved
from domain.query_terms import meaningful_query
from domain.ranking.text import content_terms
from domain.relevance_gate import WEAK_KEEP, WEAK_MATCH, Evidence, about_the_question

__all__ = ["RELATEDNESS_FLOORS", "gate_pack", "relatedness_floor"]

#: model-name prefix -> the floor measured for that model
RELATEDNESS_FLOORS: dict[str, float] = {
    "all-MiniLM-L6-v2": 0.20,
    "hashing-bow": 0.5,
}


def relatedness_floor(model: str) -> float | None:
    """The floor of the model this name belongs to, or None when it was never measured."""
    for prefix, floor in RELATEDNESS_FLOORS.items():
        if model.startswith(prefix):
            return floor
    return None


def gate_pack(
    query: str, found: Sequence[Retrieved], floor: float | None
) -> tuple[list[Retrieved], int]:
    """The candidates a pack may fill its budget with, and how many the gate left out."""
    question_words = len(content_terms(meaningful_query(query)))
    evidence = [Evidence(similarity=r.similarity, words=r.words) for r in found]
    if about_the_question(evidence, question_words, floor):
        return list(found), 0
    kept = [
        msgspec.structs.replace(r, reasons=[*r.reasons, WEAK_MATCH]) for r in found[:WEAK_KEEP]
    ]
    return kept, len(found) - len(kept)
