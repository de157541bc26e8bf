"""The learned ranker: one score per candidate, a weighted sum of evidence it can name.

Every feature is a number in [0, 1] computed from the question and the
candidates alone (which leg found a turn and how high, how much of the
question's weighted words it and its episode hold, the turn before and after
it, who said it, when). The weights are fitted on real conversations
(docs/design.md#the-learned-ranker); the strongest contributions of a hit are
its reasons, the hand-set rules' reasons (``domain.ranking.reasons``).
"""

from collections.abc import Mapping, Sequence

import msgspec

from domain.ranking.candidate import Candidate
from domain.ranking.dates import DateWindow, date_score
from domain.ranking.features import (
    best_segment,
    coverage,
    idf_weights,
    phrase_adjacency,
    weight_of,
)
from domain.ranking.marks import text_marks
from domain.ranking.question import QuestionProfile
from domain.ranking.reasons import RankCode, RankReason
from domain.ranking.text import term_hits, term_prefixes

__all__ = [
    "FEATURES",
    "RankModel",
    "candidate_features",
    "is_talk",
    "score_with_model",
    "wanted_role",
]

#: ranks of a leg's list that a rank feature spreads over (rank 0 -> 1.0, rank 10 -> 0.5)
_RANK_SCALE = 10.0

#: the legs whose rank is a feature, as the fusion names them
LEGS = (
    "lexical",
    "vector",
    "subject_vector",
    "entity",
    "entity_vector",
    "graph",
    "relation",
    "neighbour",
    "window",
    "episode_lexical",
    "episode_vector",
)

#: each leg and the name of its rank feature, named once rather than per candidate
_RANK_FEATURES = tuple((leg, f"rank_{leg}") for leg in LEGS)

#: fused candidates that decide whether a question is over conversation turns
_TALK_HEAD = 20

#: every feature, in the order a model's weights are listed
FEATURES: tuple[str, ...] = (
    "fused",
    *(f"rank_{leg}" for leg in LEGS),
    "coverage",
    "episode_coverage",
    "phrase",
    "segment",
    "previous_coverage",
    "next_coverage",
    "reply",
    "speaker_role",
    "named_speaker",
    "named_and_matching",
    "date",
    "alternatives",
    "short_turn",
    "asks",
    "episode_first",
    "first_person",
    "first_person_named",
    "first_person_statement",
    "first_person_coverage",
    "first_person_reply",
)


class RankModel(msgspec.Struct, frozen=True, kw_only=True):
    """A linear score over ``FEATURES``: ``bias + sum(weights[f] * value[f])``."""

    weights: dict[str, float]
    bias: float = 0.0

    def __post_init__(self) -> None:
        unknown = set(self.weights) - set(FEATURES)
        if unknown:
            raise ValueError(f"unknown features: {sorted(unknown)}")

    def score(self, values: Mapping[str, float]) -> float:
        return self.bias + sum(w * values.get(f, 0.0) for f, w in self.weights.items())


def is_talk(candidates: Sequence[Candidate]) -> bool:
    """Whether most of the first fused candidates are turns of a conversation: the weights
    were fitted on conversations, so notes and documents keep the hand-set rules (a
    rare word the question names counts more there than meaning)."""
    head = candidates[:_TALK_HEAD]
    return bool(head) and 2 * sum(c.turn_index is not None for c in head) >= len(head)


def wanted_role(profile: QuestionProfile, role: str | None) -> str | None:
    """The role whose turns the question asks about: what the assistant said, or what
    the person said of themselves (their preferences); None: either."""
    if role is None:
        return None
    if profile.asks_assistant:
        return "assistant"
    if profile.personal or profile.preference:
        return "user"
    return None


def candidate_features(
    profile: QuestionProfile,
    candidates: Sequence[Candidate],
    window: DateWindow | None,
    speakers: frozenset[str],
    date_fade_days: int,
) -> list[dict[str, float]]:
    """Each candidate's features (``FEATURES``), in the candidates' order.

    ``speakers``: those the question names (their names already out of ``profile``).
    """
    if not candidates:
        return []
    question_terms = frozenset(profile.terms)
    prefixes = term_prefixes(question_terms)
    texts = [c.text for c in candidates]
    hits = [term_hits(t, question_terms, prefixes) for t in texts]
    sets = [frozenset(h) for h in hits]
    idf = idf_weights(profile.terms, sets)
    whole = weight_of(profile.terms, idf)
    # each compared event's weight, once a question rather than once a candidate
    parts = [(part, weight_of(part, idf)) for part in profile.parts]
    episodes = [c.episode_id for c in candidates]
    episode_terms: dict[str, set[str]] = {}
    for episode, present in zip(episodes, sets, strict=True):
        episode_terms.setdefault(episode, set()).update(present)
    episode_cover = {e: coverage(profile.terms, t, idf, whole) for e, t in episode_terms.items()}
    own = [coverage(profile.terms, present, idf, whole) for present in sets]
    at = {
        (c.episode_id, c.turn_index): n
        for n, c in enumerate(candidates)
        if c.turn_index is not None
    }
    high = max(max(c.fused for c in candidates), 1e-12)
    out: list[dict[str, float]] = []
    earlier: dict[str, int] = {}
    for n, cand in enumerate(candidates):
        values = {"fused": cand.fused / high}
        # a leg that did not find the turn adds no feature (read as 0 by the model)
        for leg, name in _RANK_FEATURES:
            if (place := cand.ranks.get(leg)) is not None:
                values[name] = _RANK_SCALE / (_RANK_SCALE + place)
        values["coverage"] = own[n]
        values["episode_coverage"] = episode_cover[episodes[n]]
        if own[n] > 0:
            values["phrase"] = phrase_adjacency(profile.bigrams, hits[n])
            values["segment"] = best_segment(profile.terms, hits[n], idf, whole)
        if cand.turn_index is not None:
            before = at.get((cand.episode_id, cand.turn_index - 1))
            after = at.get((cand.episode_id, cand.turn_index + 1))
            if before is not None:
                values["previous_coverage"] = own[before]
                asking = candidates[before]
                other = (asking.speaker or asking.role) != (cand.speaker or cand.role)
                if other and "?" in texts[before]:
                    values["reply"] = max(0.0, own[before] - own[n])
            if after is not None:
                values["next_coverage"] = own[after]
        values["speaker_role"] = float(
            cand.role is not None and cand.role == wanted_role(profile, cand.role)
        )
        values["named_speaker"] = float(cand.speaker in speakers)
        # said by the person named, and about the question (or answering a turn that is)
        values["named_and_matching"] = values["named_speaker"] * max(
            own[n], values.get("previous_coverage", 0.0)
        )
        values["date"] = date_score(window, cand.episode_date, date_fade_days)
        if parts:
            values["alternatives"] = max(coverage(p, sets[n], idf, t) for p, t in parts)
        marks = text_marks(texts[n]) if cand.marks is None else cand.marks
        values["short_turn"] = float(marks.short)
        values["asks"] = float("?" in texts[n])
        # how many turns of its episode the fused order placed before it: how crowded
        # the top would be with this talk (the model weighs it, no fixed cap)
        before_it = earlier.get(cand.episode_id, 0)
        values["episode_first"] = 1.0 / (1.0 + before_it)
        earlier[cand.episode_id] = before_it + 1
        if marks.first_person:
            _persons(values)
        out.append(values)
    return out


def _persons(values: dict[str, float]) -> None:
    """A turn that speaks of its speaker, alone and with what says it is about the
    question: a person's facts are mostly told by them, in the first person."""
    values["first_person"] = 1.0
    values["first_person_named"] = values["named_speaker"]
    values["first_person_statement"] = 1.0 - values["asks"]
    values["first_person_coverage"] = values["coverage"]
    values["first_person_reply"] = values.get("previous_coverage", 0.0)


#: a contribution smaller than this is not worth naming
_REASON_FLOOR = 0.05


def _reason(feature: str, values: Mapping[str, float], speaker: str | None) -> RankReason | None:
    """A strong contribution as the hand-set rules' reason (the surfaces say it in words);
    the legs that found a hit are named from its ranks (``domain.ranking.reasons``).
    ``feature``: one the candidate has (``score_with_model`` names no other)."""
    if feature == "coverage" and values[feature] >= 0.5:
        return RankReason(code=RankCode.COVERAGE, share=values["coverage"])
    if feature == "phrase":
        return RankReason(code=RankCode.PHRASE)
    if feature in ("named_speaker", "named_and_matching") and speaker:
        return RankReason(code=RankCode.SPEAKER_NAMED, who=speaker)
    if feature == "date":
        return RankReason(code=RankCode.DATE)
    if feature == "alternatives" and values[feature] >= 0.99:
        return RankReason(code=RankCode.COMPARED_EVENT)
    if feature in ("reply", "previous_coverage", "first_person_reply"):
        return RankReason(code=RankCode.REPLY)
    if feature.startswith("first_person"):
        return RankReason(code=RankCode.FIRST_PERSON)
    return None


def score_with_model(
    model: RankModel, values: Mapping[str, float], speaker: str | None = None
) -> tuple[float, list[RankReason]]:
    """The score and the reasons: the strongest contributions that have words, first.

    Each contribution is computed once, for the score (summed in the weights' order, as
    ``RankModel.score``) and the reasons; only those worth naming are sorted: every
    candidate of every search is scored, and sorting all ~30 per candidate was most of it."""
    # a feature a candidate lacks adds nothing: most of ~40 are absent or zero for a turn,
    # and leaving a zero out of the sum leaves the sum as it was
    parts = [(w * v, f) for f, w in model.weights.items() if (v := values.get(f))]
    score = model.bias + sum(part for part, _ in parts)
    reasons: list[RankReason] = []
    for _, feature in sorted((p for p in parts if p[0] >= _REASON_FLOOR), reverse=True):
        said = _reason(feature, values, speaker)
        if said is not None and said not in reasons:
            reasons.append(said)
    return score, reasons
