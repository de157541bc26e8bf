"""The query-aware ranker: reorders fused candidates with rules a person can check.

Why it is built this way: docs/decisions/internals.md#domainrankingrankerpy.
"""

from collections.abc import Sequence

import msgspec

from domain.ranking.aliases import speaker_aliases
from domain.ranking.candidate import Candidate
from domain.ranking.dates import DateWindow, date_score
from domain.ranking.features import (
    best_segment,
    coverage,
    idf_weights,
    phrase_adjacency,
    weight_of,
)
from domain.ranking.learned import (
    RankModel,
    candidate_features,
    score_with_model,
    wanted_role,
)
from domain.ranking.question import QuestionProfile
from domain.ranking.reasons import RankCode, RankReason
from domain.ranking.sentences import sentence
from domain.ranking.text import term_hits, term_prefixes, tokens

__all__ = ["Candidate", "RankModel", "RankWeights", "Ranked", "features_of", "rank_candidates"]


class RankWeights(msgspec.Struct, frozen=True, kw_only=True):
    fused: float = 1.0
    coverage: float = 0.5
    episode_coverage: float = 0.4
    phrase: float = 0.2
    segment: float = 0.3
    speaker: float = 0.15
    date: float = 0.5
    alternatives: float = 0.3
    #: word evidence counts this much for an advice request ("can you suggest ... I'd enjoy"):
    #: what the person said about themselves seldom repeats the request's words
    advice_words: float = 0.5
    #: positions of fusion's order that the stabiliser protects
    window: int = 10
    #: how much better an outsider must score to enter the protected window
    margin: float = 0.15
    #: days outside a date window over which the date evidence fades to nothing
    date_fade_days: int = 7
    #: share of a matching question turn's word evidence its reply receives (0: off)
    reply: float = 1.0
    #: a question word naming a candidate's speaker is a speaker match, not a subject word
    speaker_names: bool = True
    #: the named speaker's turns get this much (the other speaker may have said it)
    named_speaker: float = 0.1
    #: a question may name a speaker by what the talk calls them, not only by handle
    aliases: bool = True


_NONE: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())


class Ranked(msgspec.Struct, frozen=True, kw_only=True):
    item_id: str
    score: float
    #: the rules that scored it, as values (``domain.ranking.reasons``)
    rules: list[RankReason]

    @property
    def reasons(self) -> list[str]:
        """The rules in the words a hit's ``reason`` says them."""
        return [sentence(r) for r in self.rules]


class _Scored(msgspec.Struct, kw_only=True):
    item_id: str
    score: float
    reasons: list[RankReason]
    base: int


def _named(
    profile: QuestionProfile, candidates: Sequence[Candidate], aliases: bool
) -> tuple[frozenset[str], frozenset[str]]:
    """The question's terms that name a candidate's speaker ("maya" of "Maya's"), by
    handle or, with ``aliases``, by a name the talk calls them; and the speakers named."""
    handles = {t: c.speaker for c in candidates if c.speaker for t in tokens(c.speaker)}
    if aliases:
        handles = {**speaker_aliases(candidates), **handles}
    terms = frozenset(t for t in profile.terms if t in handles)
    return terms, frozenset(handles[t] for t in terms)


def _without(profile: QuestionProfile, named: frozenset[str]) -> QuestionProfile:
    terms = [t for t in profile.terms if t not in named]
    if not terms:
        return profile
    parts = [kept for part in profile.parts if (kept := [t for t in part if t not in named])]
    return msgspec.structs.replace(
        profile,
        terms=terms,
        bigrams=[b for b in profile.bigrams if not set(b) & named],
        parts=parts,
    )


def _lend_to_replies(
    candidates: Sequence[Candidate], scored: list[_Scored], words: list[float], share: float
) -> None:
    """A question turn's word evidence, times ``share``, goes to the next turn, if another
    speaker said it."""
    at = {
        (c.episode_id, c.turn_index): n
        for n, c in enumerate(candidates)
        if c.turn_index is not None
    }
    for n, cand in enumerate(candidates):
        if cand.turn_index is None:
            continue
        before = at.get((cand.episode_id, cand.turn_index - 1))
        if before is None:
            continue
        asking = candidates[before]
        other = (asking.speaker or asking.role) != (cand.speaker or cand.role)
        lent = share * words[before]
        if other and "?" in asking.text and lent > words[n]:
            scored[n].score += lent - words[n]
            scored[n].reasons.append(RankReason(code=RankCode.REPLY))


def _stabilise(items: list[_Scored], window: int, margin: float) -> list[_Scored]:
    """Keep fusion's top window unless an outsider beats the item it displaces clearly."""
    ranked = sorted(items, key=lambda s: (-s.score, s.base))
    protected = sorted((s for s in items if s.base < window), key=lambda s: (-s.score, s.base))
    out: list[_Scored] = []
    placed: set[str] = set()
    pending = list(ranked)
    while pending and len(out) < window:
        head = pending[0]
        if head.base >= window:
            insider = next((p for p in protected if p.item_id not in placed), None)
            if insider is not None and head.score < insider.score + margin:
                head = insider
            elif insider is not None:
                head.reasons.append(RankReason(code=RankCode.CLEAR_MARGIN))
        out.append(head)
        placed.add(head.item_id)
        pending = [p for p in pending if p.item_id != head.item_id]
    return out + pending


def _rank_with(
    model: RankModel,
    profile: QuestionProfile,
    candidates: Sequence[Candidate],
    window: DateWindow | None,
    speakers: frozenset[str],
    w: RankWeights,
) -> list[Ranked]:
    values = candidate_features(profile, candidates, window, speakers, w.date_fade_days)
    scored = []
    for base, (cand, features) in enumerate(zip(candidates, values, strict=True)):
        if w.reply <= 0:
            features["reply"] = 0.0
        score, reasons = score_with_model(model, features, cand.speaker)
        scored.append(_Scored(item_id=cand.item_id, score=score, reasons=reasons, base=base))
    scored.sort(key=lambda s: (-s.score, s.base))
    return [Ranked(item_id=s.item_id, score=s.score, rules=s.reasons) for s in scored]


def features_of(
    profile: QuestionProfile,
    candidates: Sequence[Candidate],
    window: DateWindow | None = None,
    weights: RankWeights | None = None,
) -> list[dict[str, float]]:
    """The learned ranker's features of each candidate, as ``rank_candidates`` reads them."""
    w = weights or RankWeights()
    named, speakers = _named(profile, candidates, w.aliases) if w.speaker_names else _NONE
    bare = _without(profile, named)
    values = candidate_features(bare, candidates, window, speakers, w.date_fade_days)
    if w.reply <= 0:
        for v in values:
            v["reply"] = 0.0
    return values


def rank_candidates(
    profile: QuestionProfile,
    candidates: Sequence[Candidate],
    window: DateWindow | None = None,
    weights: RankWeights | None = None,
    model: RankModel | None = None,
) -> list[Ranked]:
    """Candidates in fused order in, best first out, each with the rules that scored it.

    ``model``: score with learned weights over ``domain.ranking.learned``'s features
    instead of the hand-set rules below (``weights`` then only says which rules apply)."""
    w = weights or RankWeights()
    if not candidates:
        return []
    named, speakers = _named(profile, candidates, w.aliases) if w.speaker_names else _NONE
    profile = _without(profile, named)
    if model is not None:
        return _rank_with(model, profile, candidates, window, speakers, w)
    # the question's terms are all the rules read of a text (``parts`` are among them)
    question_terms = frozenset(profile.terms)
    prefixes = term_prefixes(question_terms)
    hits = [term_hits(c.text, question_terms, prefixes) for c in candidates]
    sets = [frozenset(h) for h in hits]
    idf = idf_weights(profile.terms, sets)
    # the question's weight, once: every coverage below divides by it
    whole = weight_of(profile.terms, idf)
    # each compared event's weight, once a question rather than once a candidate
    parts = [(part, weight_of(part, idf)) for part in profile.parts]
    episode_terms: dict[str, set[str]] = {}
    for cand, present in zip(candidates, sets, strict=True):
        episode_terms.setdefault(cand.episode_id, set()).update(present)
    episode_cover = {e: coverage(profile.terms, t, idf, whole) for e, t in episode_terms.items()}
    # a share of the best fused score: RRF gaps stay proportional (rank 1 vs 50 ~ 1 : 0.5)
    high = max(max(c.fused for c in candidates), 1e-12)
    words = w.advice_words if profile.preference else 1.0
    episode_weight = words * w.episode_coverage
    scored: list[_Scored] = []
    evidence: list[float] = []
    for base, (cand, positions, present) in enumerate(zip(candidates, hits, sets, strict=True)):
        reasons: list[RankReason] = []
        score = w.fused * cand.fused / high
        cover = coverage(profile.terms, present, idf, whole)
        own = words * w.coverage * cover
        score += own + episode_weight * episode_cover[cand.episode_id]
        if cover >= 0.5:
            reasons.append(RankReason(code=RankCode.COVERAGE, share=cover))
        phrase = 0.0
        if cover > 0:  # no question word in the text: no phrase, no segment
            phrase = phrase_adjacency(profile.bigrams, positions)
            segment = best_segment(profile.terms, positions, idf, whole)
            own += words * (w.phrase * phrase + w.segment * segment)
            score += words * (w.phrase * phrase + w.segment * segment)
        if phrase > 0:
            reasons.append(RankReason(code=RankCode.PHRASE))
        wanted = wanted_role(profile, cand.role)
        if wanted is not None and cand.role == wanted:
            score += w.speaker
            reasons.append(RankReason(code=RankCode.ROLE_ASKED, who=wanted))
        if cand.speaker in speakers:
            score += w.named_speaker
            reasons.append(RankReason(code=RankCode.SPEAKER_NAMED, who=cand.speaker))
        dated = date_score(window, cand.episode_date, w.date_fade_days)
        if dated > 0:
            score += w.date * dated
            reasons.append(RankReason(code=RankCode.DATE))
        if parts:
            best_part = max(coverage(p, present, idf, t) for p, t in parts)
            score += w.alternatives * best_part
            if best_part >= 0.99:
                reasons.append(RankReason(code=RankCode.COMPARED_EVENT))
        scored.append(_Scored(item_id=cand.item_id, score=score, reasons=reasons, base=base))
        evidence.append(own)
    if w.reply > 0:
        _lend_to_replies(candidates, scored, evidence, w.reply)
    ordered = _stabilise(scored, w.window, w.margin)
    return [Ranked(item_id=s.item_id, score=s.score, rules=s.reasons) for s in ordered]
