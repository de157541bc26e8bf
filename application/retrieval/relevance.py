"""The relevance gate (``domain.relevance_gate``) with each embedder's floors, for search
results and context packs alike.

The near floor is the cosine similarity below which this model's nearest
item is no evidence that memory holds anything about a question; the floor
for meaning alone is the one unrelated text (nonsense included) does not
reach. Both are properties of the model, so they are measured per model and
looked up by the model name of the embedder's space; a model not listed
here has no floors and its results are never gated.

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

So near in meaning counts only beside a shared question word, and meaning
alone needs 0.40. Over the first 40 candidates of 705 real questions (the
conversation fixture's two splits, six real chats of REALTALK, 24 of
LongMemEval dev), every question but one shares a word with a candidate that
also reaches 0.20; the one that does not ("Which instruments has Will been
practising?": its name is spelled like a function word) reaches 0.42. Of
308 nonsense asks ("xylophone quantum banana", "glorp fnord blivet", ...)
that share no word with memory, 3 reached 0.40 (at most 0.43); of 235
questions from other domains sharing none, none did (at most 0.35). See
benchmarks/RESULTS.md.

The hashing embedder is the tests' bag of words: a text sharing no word with
the question lands on random buckets (|cosine| well under 0.5 for short
texts), and one sharing a word can land at 0 when another word's bucket
cancels it.
"""

from collections.abc import Sequence
from typing import TypeVar

import msgspec

from application.retrieval.pipeline import Retrieved
from domain.query_words import QueryWords
from domain.ranking.reasons import RankCode, RankReason
from domain.relevance_gate import WEAK_KEEP, Evidence, Floors, about_the_question

__all__ = [
    "GATE_FLOORS",
    "RELATEDNESS_FLOORS",
    "about",
    "gate_pack",
    "relatedness_floor",
    "relatedness_floors",
]

_T = TypeVar("_T")

#: model-name prefix -> the cosine under which that model's nearest item is no evidence
#: (also the floor of derived memory's vector leg, ``application.reflection.meaning``)
RELATEDNESS_FLOORS: dict[str, float] = {
    "all-MiniLM-L6-v2": 0.20,
    "hashing-bow": 0.5,
}
#: model-name prefix -> the gate's floors for that model
GATE_FLOORS: dict[str, Floors] = {
    "all-MiniLM-L6-v2": Floors(near=0.20, alone=0.40),
    # a bag of words: its cosine is word overlap blurred by hash collisions, so a shared
    # word is all the nearness it can show (any cosine passes its near floor)
    "hashing-bow": Floors(near=-1.0, alone=0.5),
}


def _lookup(table: dict[str, _T], model: str) -> _T | None:
    for prefix, value in table.items():
        if model.startswith(prefix):
            return value
    return None


def relatedness_floor(model: str) -> float | None:
    """The model's relatedness floor, or None when it was never measured."""
    return _lookup(RELATEDNESS_FLOORS, model)


def relatedness_floors(model: str) -> Floors | None:
    """The gate's floors for the model, or None when they were never measured."""
    return _lookup(GATE_FLOORS, model)


def about(
    question: QueryWords,
    evidence: Sequence[Evidence],
    floors: Floors | None,
    meaning_pending: bool,
) -> bool:
    """Whether memory holds something about the question, by its candidates' evidence
    (``Evidence.words`` counts the question's stemmed ``terms``)."""
    return about_the_question(
        evidence, len(question.terms), floors, meaning_pending=meaning_pending
    )


def gate_pack(found: Sequence[Retrieved], is_about: bool) -> tuple[list[Retrieved], int]:
    """The candidates a pack may fill its budget with, and how many the gate left out."""
    if is_about:
        return list(found), 0
    weak = RankReason(code=RankCode.WEAK_MATCH)
    kept = [msgspec.structs.replace(r, reasons=[*r.reasons, weak]) for r in found[:WEAK_KEEP]]
    return kept, len(found) - len(kept)
