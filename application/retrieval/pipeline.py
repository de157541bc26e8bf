"""From a question to ranked, policy-checked chunks: the one path search and packs share.

Signals are ranked candidate lists, each computed inside the caller's
``CandidateFilter`` (visible spaces, active only): turn BM25 and vector,
episode BM25 and vector. Episodes are fused first, so expansion can pull in
the neighbours of strong turns and the turns of strong episodes, again only
where the filter admits them. Everything is fused with RRF (k = 60) and,
in the default mode, reordered by the query-aware ranker.

Modes exist so a benchmark can measure what each stage adds; the API always
runs ``RANKED``.
"""

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import date, datetime
from enum import StrEnum
from itertools import chain
from typing import Any

import msgspec

from application.ports import RetrievalIndex
from application.ports.records import CandidateFilter, IndexedText, ScoredId, Vector
from application.ports.rerank import Reranker
from application.retrieval.conversation import (
    WINDOW_EPISODES,
    UnnamedSearch,
    spread_turns,
    window_list,
)
from application.retrieval.evidence import evidence_of
from application.retrieval.found import Found
from application.retrieval.handover import short_switches
from application.retrieval.options import ConversationRecall
from application.retrieval.rerank_step import DEFAULT_TOP_N, rerank_top
from domain.fusion import FusedHit, fuse_with_episodes, rrf_merge
from domain.models import Chunk
from domain.query_words import QueryWords, query_words
from domain.ranking.dates import DateWindow, date_window
from domain.ranking.learned import is_talk
from domain.ranking.learned_weights import LEARNED
from domain.ranking.question import QuestionProfile, profile_question, subject_phrase
from domain.ranking.ranker import Candidate, RankModel, RankWeights, rank_candidates
from domain.ranking.reasons import RankReason
from domain.ranking.text import read_ahead
from domain.relevance_gate import Evidence

__all__ = ["GATE_POOL", "LEG_DEPTH", "Ranked", "RetrievalMode", "RetrievalPipeline", "Retrieved"]

#: candidates each turn signal returns (more when more results are asked for)
LEG_DEPTH = 50
#: episodes each episode signal returns
_EPISODE_DEPTH = 20
#: fused episodes whose turns all join the candidates
_EXPAND_EPISODES = 6
#: at most this many turns of one expanded episode
_MAX_TURNS_PER_EPISODE = 40
#: top fused turns whose neighbours (one turn either side) join the candidates
_NEIGHBOUR_SEEDS = 10
#: turns of one episode shown before every other episode has had its turn
_TURNS_BEFORE_SPREAD = 3
#: the first ranked candidates whose evidence the relevance gate reads, whatever the limit:
#: a search for one result and a pack of forty judge the question alike
GATE_POOL = 40


#: texts split between two looks at whether the question's vector is made (~0.2 ms)
_READ_BETWEEN_TURNS = 6

#: item signals that say where a turn sits, not what it holds (pooled in fusion)
_CONTEXT_SIGNALS = frozenset({"neighbour", "window"})


#: (query, its profile, the fused candidates, its date window): what the ranker was given
CandidateObserver = Callable[[str, QuestionProfile, Sequence[Candidate], DateWindow | None], None]


class RetrievalMode(StrEnum):
    BM25 = "bm25"  # turn-level BM25 alone
    VECTOR = "vector"  # turn-level vector alone
    HYBRID = "hybrid"  # every signal and expansion, fused with RRF
    RANKED = "ranked"  # hybrid, then the query-aware ranker


class Ranked(msgspec.Struct, frozen=True, kw_only=True):
    """A ranking and what its first candidates say about the question."""

    found: list[Found]
    #: per candidate of the first ``GATE_POOL`` (or ``limit``, if more): for the gate
    evidence: list[Evidence] = msgspec.field(default_factory=list)


class Retrieved(msgspec.Struct, frozen=True, kw_only=True):
    """A found chunk as read back from the store."""

    chunk: Chunk
    score: float
    ranks: dict[str, int]
    reasons: list[RankReason] = msgspec.field(default_factory=list)
    similarity: float | None = None
    words: int | None = None


class _Legs(msgspec.Struct, frozen=True):
    #: turn BM25, episode BM25, turn vector, episode vector, the subject's vector legs
    lists: tuple[
        list[ScoredId], list[ScoredId], list[ScoredId], list[ScoredId], list[list[ScoredId]]
    ]
    #: the turn BM25 leg's turns, read while the question was embedded (may be empty)
    read: dict[str, IndexedText]


def _ids(hits: Sequence[ScoredId]) -> list[str]:
    return [h.item_id for h in hits]


class RetrievalPipeline:
    def __init__(
        self,
        *,
        index: RetrievalIndex,
        query_vector: Callable[[str], Awaitable[Vector]],
        mode: RetrievalMode = RetrievalMode.RANKED,
        weights: RankWeights | None = None,
        reranker: Reranker | None = None,
        rerank_top_n: int = DEFAULT_TOP_N,
        conversation: ConversationRecall | None = None,
        model: RankModel | None = None,
        observe: CandidateObserver | None = None,
    ) -> None:
        self._index = index
        #: told every ranked question's candidates (fitting the learned ranker)
        self._observe = observe
        self._query_vector = query_vector
        self._mode = mode
        self._conversation = conversation or ConversationRecall()
        if model is None and self._conversation.learned_ranker:
            model = self._conversation.model or LEARNED
        #: learned ranker weights (None: the hand-set rules of ``RankWeights``)
        self._model = model
        self._unnamed = UnnamedSearch()
        self._weights = self._conversation.rank_weights(weights or RankWeights())
        #: None (the default) skips the rerank step: results are exactly the ranker's
        self._reranker = reranker
        self._rerank_top_n = rerank_top_n

    @property
    def mode(self) -> RetrievalMode:
        return self._mode

    @property
    def _ranks(self) -> bool:
        """Question-shape rules apply only with the ranker (the other modes are baselines)."""
        return self._mode is RetrievalMode.RANKED

    async def _load(
        self, org_id: str, ids: Sequence[str], where: CandidateFilter
    ) -> dict[str, IndexedText]:
        return await self._index.candidate_texts(org_id, ids, where)

    async def _with(
        self,
        org_id: str,
        chunks: dict[str, IndexedText],
        ids: Sequence[str],
        where: CandidateFilter,
    ) -> dict[str, IndexedText]:
        """``chunks`` and those of ``ids`` not read yet (where ``where`` admits them)."""
        missing = [cid for cid in dict.fromkeys(ids) if cid not in chunks]
        return {**chunks, **await self._load(org_id, missing, where)} if missing else chunks

    async def _single(
        self, org_id: str, question: QueryWords, limit: int, where: CandidateFilter
    ) -> list[Found]:
        if self._mode is RetrievalMode.BM25:
            hits = await self._index.lexical(org_id, question.meaningful, limit, where)
            name = "lexical"
        else:
            vector = await self._query_vector(question.text)
            hits = await self._index.vector(org_id, vector, limit, where)
            name = "vector"
        similarity = {h.item_id: h.score for h in hits} if name == "vector" else {}
        return [
            Found(
                chunk_id=h.item_id,
                score=h.score,
                ranks=h.ranks,
                similarity=similarity.get(h.item_id),
            )
            for h in rrf_merge({name: _ids(hits)})
        ]

    async def run(
        self,
        org_id: str,
        query: str,
        limit: int,
        where: CandidateFilter,
        as_of: datetime | None = None,
        extra: Awaitable[Mapping[str, Sequence[str]]] | None = None,
        on_vector: Callable[[Vector], None] | None = None,
    ) -> list[Found]:
        """``ranked``'s chunk ids alone."""
        ranked = await self.ranked(org_id, query, limit, where, as_of, extra, on_vector)
        return ranked.found

    async def ranked(
        self,
        org_id: str,
        query: str | QueryWords,
        limit: int,
        where: CandidateFilter,
        as_of: datetime | None = None,
        extra: Awaitable[Mapping[str, Sequence[str]]] | None = None,
        on_vector: Callable[[Vector], None] | None = None,
        depth: int | None = None,
    ) -> Ranked:
        """At most ``limit`` chunk ids, best first; every candidate was admitted by ``where``.

        ``extra``: more ranked chunk-id lists computed outside the index (the ``entity``
        signal of derived memory), awaited beside the index searches; they join the turn
        signals, filtered by ``where`` too. The fused modes only (HYBRID, RANKED).
        ``on_vector``: told the query vector at the loop's first turn after it is made,
        before the vector legs at the latest (``extra``'s vector legs reuse it rather than
        embed the query again).
        ``depth``: how many candidates each leg returns (by default as many as asked for,
        at least ``LEG_DEPTH``); the ranked list may hold more than that, from several legs.
        """
        depth = max(limit, LEG_DEPTH) if depth is None else depth
        question = query_words(query)
        if self._mode in (RetrievalMode.BM25, RetrievalMode.VECTOR):
            single = await self._single(org_id, question, depth, where)
            return Ranked(
                found=single[:limit],
                evidence=[
                    Evidence(similarity=f.similarity, words=f.words)
                    for f in single[: max(limit, GATE_POOL)]
                ],
            )
        text = question.text
        # a question naming a speaker met before is embedded without the name (checked below)
        unnamed = self._conversation.unnamed_vector
        guess = self._unnamed.guess(org_id, where, text) if unnamed else None
        shape = profile_question(text)
        # a counted thing is often mentioned in passing, without the question's frame
        # ("how many ... did I"): the subject's meaning alone is one more turn signal
        subject = subject_phrase(text) if shape.counting and self._ranks else ""
        legs = await self._legs(
            org_id,
            question.meaningful,
            text if guess is None else guess,
            subject,
            depth,
            where,
            on_vector,
            shape.terms if self._ranks else None,
        )
        lexical, ep_lexical, semantic, ep_vector, by_subject = legs.lists
        outside = {name: list(ids) for name, ids in (await extra if extra else {}).items() if ids}
        turn_lists = {"lexical": _ids(lexical), "vector": _ids(semantic)}
        if by_subject:
            turn_lists["subject_vector"] = _ids(by_subject[0])
        turn_ids = list(
            dict.fromkeys(chain.from_iterable([*turn_lists.values(), *outside.values()]))
        )
        if legs.read:  # the lexical turns read while the question was embedded
            read = await self._with(org_id, legs.read, turn_ids, where)
            chunks = {cid: read[cid] for cid in turn_ids if cid in read}
        else:
            chunks = await self._load(org_id, turn_ids, where)
        if unnamed:
            wanted = self._unnamed.confirm(org_id, where, text, chunks)
            if wanted != (guess or text):  # the guess was wrong: the meaning legs again
                again = await self._query_vector(wanted)
                semantic, ep_vector = await asyncio.gather(
                    self._index.vector(org_id, again, depth, where),
                    self._index.episode_vector(org_id, again, _EPISODE_DEPTH, where),
                )
                turn_lists["vector"] = _ids(semantic)
                # as if the right query had been embedded first: the old leg's turns leave
                ids = list(
                    dict.fromkeys(chain.from_iterable([*turn_lists.values(), *outside.values()]))
                )
                kept = {cid: chunks[cid] for cid in ids if cid in chunks}
                chunks = await self._with(org_id, kept, ids, where)
        for name, ids in outside.items():
            turn_lists[name] = [cid for cid in ids if cid in chunks]
        seeds = [h.item_id for h in rrf_merge(turn_lists) if h.item_id in chunks]
        seed_episodes = list(dict.fromkeys(chunks[cid].source_id for cid in seeds))
        episode_lists = {"episode_lexical": _ids(ep_lexical), "episode_vector": _ids(ep_vector)}
        episode_order = [h.item_id for h in rrf_merge({**episode_lists, "turns": seed_episodes})]
        window_episodes = seed_episodes[:WINDOW_EPISODES] if self._conversation.windows else []
        chunks, neighbours, members = await self._expand(
            org_id,
            chunks,
            seeds[:_NEIGHBOUR_SEEDS],
            episode_order[:_EXPAND_EPISODES],
            where,
            window_episodes,
        )
        item_lists = {**turn_lists, "neighbour": neighbours}
        if window_episodes:
            windows = window_list(
                turn_lists,
                chunks,
                {e: members[e] for e in window_episodes if e in members},
                self._conversation.window_radius,
                depth,
            )
            chunks = await self._with(org_id, chunks, windows, where)
            item_lists["window"] = [cid for cid in windows if cid in chunks]
        # a request for suggestions fitting the person ("can you suggest ... I'd enjoy") is
        # answered by what they said across a whole talk: its episode counts in full
        whole_talk = (self._ranks and shape.preference and self._conversation.preference_talks) or (
            shape.multi_episode and self._conversation.counting_talks
        )
        pooled = self._conversation.pool_context and not whole_talk
        fused = fuse_with_episodes(
            item_lists,
            episode_lists,
            {cid: c.source_id for cid, c in chunks.items()},
            episode_weight=1.0 if whole_talk else self._conversation.episode_weight,
            context=_CONTEXT_SIGNALS if pooled else None,
        )
        learned = False
        if self._mode is RetrievalMode.HYBRID:
            found = [Found(chunk_id=h.item_id, score=h.score, ranks=h.ranks) for h in fused]
        else:
            found, learned = self._rank(text, shape, as_of, fused, chunks)
        # a question whose answer spans episodes ("how many", "which first") gets one
        # turn per episode first, so the list shows as many of them as it can
        listing = shape.listing and self._conversation.list_spread and self._ranks
        by_runs = self._conversation.run_spread
        per_turns = self._conversation.spread_runs if by_runs else _TURNS_BEFORE_SPREAD
        # the cap stays for the baselines and the hand-set rules
        capped = self._conversation.episode_cap or not learned
        per_episode = 1 if shape.multi_episode or listing else per_turns if capped else 0
        spread = (
            spread_turns(
                found,
                lambda f: chunks[f.chunk_id],
                per_episode,
                by_runs,
                self._conversation.run_turns,
            )
            if per_episode
            else found
        )
        if self._reranker is not None and self._ranks:
            # after the ranker, over the first top-N it shows: may lift one past ``limit``
            spread = await rerank_top(self._reranker, text, spread, chunks, self._rerank_top_n)
        pool = spread[: max(limit, GATE_POOL)]
        evidence = evidence_of(
            question.terms, (f.chunk_id for f in pool), chunks, [semantic, *by_subject]
        )
        return Ranked(
            found=[
                msgspec.structs.replace(
                    f, similarity=evidence[f.chunk_id][0], words=evidence[f.chunk_id][1]
                )
                for f in spread[:limit]
            ],
            evidence=[
                Evidence(similarity=evidence[f.chunk_id][0], words=evidence[f.chunk_id][1])
                for f in pool
            ],
        )

    async def _legs(
        self,
        org_id: str,
        words: str,
        query: str,
        subject: str,
        depth: int,
        where: CandidateFilter,
        on_vector: Callable[[Vector], None] | None,
        read_terms: Sequence[str] | None = None,
    ) -> "_Legs":
        """Every signal's list: (turn BM25, episode BM25, turn vector, episode vector, and
        the subject's vector leg if ``subject``), and the turns read ahead.

        Started together so they share the cores: the model runs on its own threads and
        the in-process index scores its lexical legs on worker threads (both release the
        GIL), so at 1M chunks the lexical legs (~17 CPU-ms a search) run beside the model
        rather than queueing on the loop before its vector is wanted (benchmarks/RESULTS.md).
        The query's vector legs start as soon as its vector is
        made (told to ``on_vector`` first: the derived legs wait for it), beside the
        subject's embedding; the model never runs twice at once. Whichever leg fails, the
        legs not done are cancelled and its error is the one raised.
        ``read_terms``: the ranker's question terms; the turn BM25 leg's turns are read and
        split for them while the model still embeds the question (``_read_ahead``)."""
        embedding = asyncio.ensure_future(self._query_vector(query))
        tasks: list[asyncio.Future[Any]] = [
            embedding,
            asyncio.ensure_future(self._index.lexical(org_id, words, depth, where)),
            asyncio.ensure_future(
                self._index.episode_lexical(org_id, words, _EPISODE_DEPTH, where)
            ),
        ]
        try:
            read: dict[str, IndexedText] = {}
            if read_terms:
                read = await self._read_ahead(org_id, embedding, tasks[1], where, read_terms)
            vector = await embedding
            if on_vector is not None:
                on_vector(vector)
            if subject:
                tasks.append(asyncio.ensure_future(self._query_vector(subject)))
                await asyncio.sleep(0)  # the subject's embedding reaches its thread first
            semantic, ep_vector = await asyncio.gather(
                self._index.vector(org_id, vector, depth, where),
                self._index.episode_vector(org_id, vector, _EPISODE_DEPTH, where),
            )
            by_subject = []
            if subject:
                subject_vector = await tasks[3]
                by_subject.append(await self._index.vector(org_id, subject_vector, depth, where))
            lexical, ep_lexical = await tasks[1], await tasks[2]
        finally:
            for task in tasks:
                if not task.done():  # a leg failed: the others' answers are not wanted
                    task.cancel()
                elif not task.cancelled():
                    task.exception()  # seen: a leg's error, if any, is the one raised
        return _Legs(lists=(lexical, ep_lexical, semantic, ep_vector, by_subject), read=read)

    async def _read_ahead(
        self,
        org_id: str,
        embedding: "asyncio.Future[Vector]",
        lexical: "asyncio.Future[list[ScoredId]]",
        where: CandidateFilter,
        terms: Sequence[str],
    ) -> dict[str, IndexedText]:
        """The turn BM25 leg's turns, each split as the ranker will split it, while the
        question's vector is made, up to when it is (none if it came first): the loop
        would otherwise wait for the model idle. Why and what it saves:
        docs/decisions/internals.md#applicationretrievalhandoverpy."""
        await asyncio.wait((embedding, lexical), return_when=asyncio.FIRST_COMPLETED)
        if embedding.done() or lexical.cancelled() or lexical.exception() is not None:
            return {}
        chunks = await self._load(org_id, _ids(lexical.result()), where)
        read = read_ahead(terms)
        with short_switches():
            for n, chunk in enumerate(chunks.values(), start=1):
                if embedding.done():
                    break
                read(chunk.text)
                if n % _READ_BETWEEN_TURNS == 0:
                    await asyncio.sleep(0)  # a turn of the loop: is the vector made?
        return chunks

    async def _expand(
        self,
        org_id: str,
        chunks: dict[str, IndexedText],
        seeds: Sequence[str],
        episodes: Sequence[str],
        where: CandidateFilter,
        window_episodes: Sequence[str] = (),
    ) -> tuple[dict[str, IndexedText], list[str], dict[str, list[str]]]:
        """Add strong episodes' turns and strong turns' neighbours (and the turns that
        windows are formed from); returns the chunks, the neighbour list and the members."""
        wanted = list(
            dict.fromkeys([*episodes, *(chunks[s].source_id for s in seeds), *window_episodes])
        )
        members = await self._index.episode_members(org_id, wanted, where)
        extra: list[str] = []
        for episode in episodes:
            extra.extend(members.get(episode, [])[:_MAX_TURNS_PER_EPISODE])
        neighbours: list[str] = []
        for seed in seeds:
            turns = members.get(chunks[seed].source_id, [])
            if seed in turns:
                at = turns.index(seed)
                neighbours.extend(turns[max(at - 1, 0) : at] + turns[at + 1 : at + 2])
        chunks = await self._with(org_id, chunks, extra + neighbours, where)
        return chunks, [n for n in dict.fromkeys(neighbours) if n in chunks], members

    def _rank(
        self,
        query: str,
        profile: QuestionProfile,
        as_of: datetime | None,
        fused: Sequence[FusedHit],
        chunks: dict[str, IndexedText],
    ) -> tuple[list[Found], bool]:
        """The ranked candidates, and whether the learned weights ranked them; ``profile``:
        the question's (``profile_question``), made once a search."""
        by_id = {h.item_id: h for h in fused}
        candidates = [
            Candidate(
                item_id=h.item_id,
                episode_id=c.source_id,
                text=c.text,
                fused=h.score,
                role=c.role,
                episode_date=_day(c.occurred_at),
                speaker=c.speaker,
                turn_index=c.turn_index,
                ranks=h.ranks,
                marks=c.marks,
            )
            for h in fused
            for c in (chunks[h.item_id],)
        ]
        window = date_window(query, as_of)
        if self._observe is not None:
            self._observe(query, profile, candidates, window)
        model = self._model if self._model is not None and is_talk(candidates) else None
        ranked = rank_candidates(profile, candidates, window, self._weights, model)
        return [
            Found(chunk_id=r.item_id, score=r.score, ranks=by_id[r.item_id].ranks, reasons=r.rules)
            for r in ranked
        ], model is not None


def _day(moment: datetime | None) -> date | None:
    return None if moment is None else moment.date()
