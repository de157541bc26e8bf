"""What every store and index owes a correction: the update/remove half of their ports.

``MemoryStoreCorrectionContract`` is part of ``MemoryStoreContract``;
``RetrievalIndexCorrectionContract`` is part of ``RetrievalIndexContract``.
An index is always exercised the way the corrections use case drives it:
``store.update_source`` first, then ``index.update`` (or ``index.remove``
when the text goes), and the next query must already see the change.

The last index test applies a sequence of corrections and, after each one,
checks that every search signal returns exactly what the store's truth
(its sources' lifecycles and marks, read back) says the caller may recall.
"""

from typing import Any

import msgspec
import pytest

from application.ports import MemoryStore, RetrievalIndex
from application.ports.records import (
    CandidateFilter,
    EmbeddedChunk,
    IndexEntry,
    ScopeRef,
    SourceLifecycle,
)
from contracts.samples import SPACE, embedded, make_chunk, make_source, unit
from domain.errors import ConflictError, NotFoundError
from domain.lifecycle import Mark, admitted_keys
from domain.models import Source, chunk_recall
from domain.reasons import ReasonCode
from domain.scopes import LifecycleState, MemoryScope
from domain.withheld_match import REDACTED_MARK, query_terms

__all__ = ["MemoryStoreCorrectionContract", "RetrievalIndexCorrectionContract"]

ORG = "corrections-org"
OWNER = "u1"
MINE = CandidateFilter(visible=frozenset({ScopeRef(MemoryScope.PRIVATE, OWNER)}))
#: the owner's filter: open rows and the sensitive rows it owns
OWNERS = CandidateFilter(visible=MINE.visible, recall=admitted_keys([OWNER]))
Q = unit([1, 0, 0, 0])


def _changed(source: Source, **changes: Any) -> Source:
    return msgspec.structs.replace(source, version=source.version + 1, **changes)


async def _remember(
    store: MemoryStore, source_id: str, texts: list[str]
) -> tuple[Source, list[EmbeddedChunk]]:
    source = make_source(source_id, ORG, content=" ".join(texts), scope_key=OWNER)
    chunks = [
        embedded(make_chunk(f"{source_id}-{n}", source, text=t, ordinal=n), unit([1, n, 0, 0]))
        for n, t in enumerate(texts)
    ]
    await store.save_memory(source, chunks)
    return source, chunks


class MemoryStoreCorrectionContract:
    @pytest.fixture
    def store(self) -> MemoryStore:
        raise NotImplementedError("provide a `store` fixture")

    async def test_update_source_round_trips_lifecycle_marks_and_history(
        self, store: MemoryStore
    ) -> None:
        await store.prepare(ORG, SPACE)
        source, _ = await _remember(store, "s1", ["alpha words", "beta words"])
        new = _changed(source, marks=frozenset({Mark.STALE, Mark.SENSITIVE}))
        await store.update_source(new, expected_version=1, drop_text=False)
        assert await store.get_source(ORG, "s1") == new
        superseded = _changed(
            new, lifecycle=LifecycleState.SUPERSEDED, superseded_by="s2", marks=frozenset()
        )
        await store.update_source(superseded, expected_version=2, drop_text=False)
        assert (await store.get_sources(ORG, ["s1", "nope"])) == {"s1": superseded}
        lifecycles = await store.source_lifecycles(ORG, ["s1", "nope"])
        assert lifecycles == {"s1": SourceLifecycle.of(superseded)}
        read, sources = await store.chunks_with_sources(ORG, ["s1-1", "s1-0", "nope"])
        assert set(read) == {"s1-0", "s1-1"} and sources == lifecycles
        assert await store.chunks_with_sources(ORG, []) == ({}, {})
        chunks = await store.chunks_of_source(ORG, "s1")
        assert {c.lifecycle for c in chunks} == {LifecycleState.SUPERSEDED}
        assert await store.linked_sources(ORG, "s2") == ["s1"]

    async def test_list_sources_pages_in_id_order_with_any_lifecycle(
        self, store: MemoryStore
    ) -> None:
        await store.prepare(ORG, SPACE)
        for sid in ("s3", "s1", "s2"):
            await _remember(store, sid, [f"words of {sid}"])
        s2 = await store.get_source(ORG, "s2")
        assert s2 is not None
        hidden = _changed(s2, lifecycle=LifecycleState.HIDDEN)
        await store.update_source(hidden, expected_version=1, drop_text=False)
        first = await store.list_sources(ORG, None, 2)
        assert [s.source_id for s in first] == ["s1", "s2"] and first[1] == hidden
        assert [s.source_id for s in await store.list_sources(ORG, "s2", 10)] == ["s3"]
        assert await store.list_sources("no-such-org", None, 10) == []

    async def test_a_stale_version_is_refused_and_nothing_changes(self, store: MemoryStore) -> None:
        await store.prepare(ORG, SPACE)
        source, _ = await _remember(store, "s1", ["alpha words"])
        hidden = _changed(source, lifecycle=LifecycleState.HIDDEN)
        with pytest.raises(ConflictError) as caught:
            await store.update_source(hidden, expected_version=7, drop_text=False)
        assert caught.value.reason is ReasonCode.SOURCE_CHANGED
        assert await store.get_source(ORG, "s1") == source
        with pytest.raises(NotFoundError):
            await store.update_source(
                msgspec.structs.replace(hidden, source_id="missing"),
                expected_version=1,
                drop_text=False,
            )

    async def test_scanned_entries_carry_the_recall_key(self, store: MemoryStore) -> None:
        await store.prepare(ORG, SPACE)
        source, _ = await _remember(store, "s1", ["alpha words"])
        sensitive = _changed(source, marks=frozenset({Mark.SENSITIVE}))
        await store.update_source(sensitive, expected_version=1, drop_text=False)
        (entry,) = await store.scan_index_entries(ORG, None, 10)
        assert entry.recall_key == sensitive.recall != "open"

    async def test_dropping_text_removes_chunks_vectors_and_unshared_cache(
        self, store: MemoryStore
    ) -> None:
        await store.prepare(ORG, SPACE)
        source, chunks = await _remember(store, "s1", ["secret words", "shared words"])
        await _remember(store, "s2", ["shared words"])
        hashes = [c.chunk.content_hash for c in chunks]
        await store.cache_embeddings(ORG, SPACE.model, {h: [1.0, 0, 0, 0] for h in hashes})
        tomb = _changed(source, lifecycle=LifecycleState.DELETED, content="")
        await store.update_source(tomb, expected_version=1, drop_text=True)
        assert await store.get_source(ORG, "s1") == tomb
        assert await store.chunks_of_source(ORG, "s1") == []
        assert await store.get_chunks(ORG, [c.chunk.chunk_id for c in chunks]) == {}
        left = await store.cached_embeddings(ORG, SPACE.model, hashes)
        assert set(left) == {hashes[1]}  # still used by s2's chunk
        assert [e.source_id for e in await store.scan_index_entries(ORG, None, 10)] == ["s2"]

    async def test_redacted_sources_lists_only_matching_redactions_of_the_given_spaces(
        self, store: MemoryStore
    ) -> None:
        await store.prepare(ORG, SPACE)
        for sid in ("s3", "s1", "s2"):
            await _remember(store, sid, [f"secret words of {sid}"])
        team = make_source("t1", ORG, content="team words", scope=MemoryScope.TEAM, scope_key="x")
        await store.save_memory(team, [])
        redacted = {}
        for sid in ("s3", "s1", "t1"):
            before = await store.get_source(ORG, sid)
            assert before is not None
            redacted[sid] = _changed(
                before, lifecycle=LifecycleState.REDACTED, content=f"rota summaries {sid}"
            )
            await store.update_source(redacted[sid], expected_version=1, drop_text=True)
        rota = query_terms("the pager rota")
        mine = await store.redacted_sources(ORG, MINE.visible, rota, 10)
        assert mine == [SourceLifecycle.of(redacted["s1"]), SourceLifecycle.of(redacted["s3"])]
        everywhere = await store.redacted_sources(ORG, None, query_terms("summary"), 10)
        assert [s.source_id for s in everywhere] == ["s1", "s3", "t1"]  # folded both sides
        digits = frozenset({"3"})  # "s3" is two words, as the analyzer splits it
        assert [s.source_id for s in await store.redacted_sources(ORG, None, digits, 10)] == ["s3"]
        assert [s.source_id for s in await store.redacted_sources(ORG, MINE.visible, rota, 1)] == [
            "s1"
        ]
        assert await store.redacted_sources(ORG, None, query_terms("secret words"), 10) == []
        assert await store.redacted_sources(ORG, None, frozenset(), 10) == []
        assert await store.redacted_sources(ORG, frozenset(), rota, 10) == []
        other = frozenset({ScopeRef(MemoryScope.PRIVATE, "someone-else")})
        assert await store.redacted_sources(ORG, other, rota, 10) == []
        assert await store.redacted_sources("no-such-org", None, rota, 10) == []
        assert await store.chunks_of_source(ORG, "s1") == []  # nothing secret kept to match

    async def test_a_redaction_after_searches_that_found_none_is_counted(
        self, store: MemoryStore
    ) -> None:
        """A store may remember that an organisation redacted nothing; any redaction,
        corrected or saved so (an import of a redacted export), is counted at once."""
        await store.prepare(ORG, SPACE)
        source, _ = await _remember(store, "s1", ["secret words"])
        rota = query_terms("the pager rota")
        for _ in range(2):
            assert await store.redacted_sources(ORG, None, rota, 10) == []
        redacted = _changed(source, lifecycle=LifecycleState.REDACTED, content="rota summaries")
        await store.update_source(redacted, expected_version=1, drop_text=True)
        assert [s.source_id for s in await store.redacted_sources(ORG, None, rota, 10)] == ["s1"]
        back = _changed(redacted, lifecycle=LifecycleState.ACTIVE, content="rota summaries")
        await store.update_source(back, expected_version=2, drop_text=False)
        for _ in range(2):
            assert await store.redacted_sources(ORG, None, rota, 10) == []
        imported = make_source(
            "s2",
            ORG,
            content="rota of the import",
            scope_key=OWNER,
            lifecycle=LifecycleState.REDACTED,
        )
        await store.save_memory(imported, [])
        assert [s.source_id for s in await store.redacted_sources(ORG, None, rota, 10)] == ["s2"]

    async def test_a_redaction_is_matched_on_its_remainder_only_while_it_is_redacted(
        self, store: MemoryStore
    ) -> None:
        await store.prepare(ORG, SPACE)
        source, _ = await _remember(store, "s1", ["the deploy key is hunter2"])
        deploy = query_terms("which deploy keys")
        assert await store.redacted_sources(ORG, None, deploy, 10) == []  # active: not withheld
        redacted = _changed(
            source, lifecycle=LifecycleState.REDACTED, content=f"the deploy key is {REDACTED_MARK}"
        )
        await store.update_source(redacted, expected_version=1, drop_text=True)
        assert [s.source_id for s in await store.redacted_sources(ORG, None, deploy, 10)] == ["s1"]
        assert await store.redacted_sources(ORG, None, query_terms("hunter2"), 10) == []
        assert await store.redacted_sources(ORG, None, query_terms("redacted"), 10) == []
        sensitive = _changed(redacted, marks=frozenset({Mark.SENSITIVE}))
        await store.update_source(sensitive, expected_version=2, drop_text=False)
        (found,) = await store.redacted_sources(ORG, None, deploy, 10)
        assert found.marks == {Mark.SENSITIVE} and found.owner == OWNER
        tomb = _changed(sensitive, lifecycle=LifecycleState.DELETED, content="")
        await store.update_source(tomb, expected_version=3, drop_text=True)
        assert await store.redacted_sources(ORG, None, deploy, 10) == []

    async def test_a_source_saved_redacted_is_matched_on_its_remainder(
        self, store: MemoryStore
    ) -> None:
        await store.prepare(ORG, SPACE)
        saved = make_source(
            "s1", ORG, content="pager rota summary", lifecycle=LifecycleState.REDACTED
        )
        await store.save_memory(saved, [])
        found = await store.redacted_sources(ORG, None, frozenset({"rota"}), 10)
        assert [s.source_id for s in found] == ["s1"]


class RetrievalIndexCorrectionContract:
    @pytest.fixture
    def pair(self) -> tuple[MemoryStore, RetrievalIndex]:
        raise NotImplementedError("provide a `pair` fixture yielding (store, index)")

    async def _load(self, store: MemoryStore, index: RetrievalIndex) -> dict[str, Source]:
        await store.prepare(ORG, SPACE)
        sources = {}
        for sid, texts in (
            ("s1", ["billing uses postgres", "postgres replicas"]),
            ("s2", ["billing moves to surreal"]),
            ("s3", ["the password is hunter2 for billing"]),
        ):
            source, chunks = await _remember(store, sid, texts)
            await index.add(ORG, [IndexEntry.of(c, chunk_recall(source, c.chunk)) for c in chunks])
            sources[sid] = source
        await index.mark_ready(ORG)
        return sources

    async def _correct(
        self, store: MemoryStore, index: RetrievalIndex, new: Source, *, drop: bool = False
    ) -> None:
        await store.update_source(new, expected_version=new.version - 1, drop_text=drop)
        if drop:
            await index.remove(ORG, new.source_id)
        else:
            await index.update(ORG, new.source_id, new.lifecycle, new.recall)

    async def _sources_found(
        self, index: RetrievalIndex, where: CandidateFilter
    ) -> dict[str, set[str]]:
        found = {
            "lexical": {h.item_id for h in await index.lexical(ORG, "billing postgres", 20, where)},
            "vector": {h.item_id for h in await index.vector(ORG, Q, 20, where)},
            "episode_lexical": {
                h.item_id for h in await index.episode_lexical(ORG, "billing", 20, where)
            },
            "episode_vector": {h.item_id for h in await index.episode_vector(ORG, Q, 20, where)},
        }
        return {k: {v.split("-")[0] for v in ids} for k, ids in found.items()}

    async def test_a_hidden_source_vanishes_from_search_at_once(
        self, pair: tuple[MemoryStore, RetrievalIndex]
    ) -> None:
        store, index = pair
        sources = await self._load(store, index)
        assert "s3" in (await self._sources_found(index, MINE))["lexical"]
        await self._correct(store, index, _changed(sources["s3"], lifecycle=LifecycleState.HIDDEN))
        for signal, found in (await self._sources_found(index, MINE)).items():
            assert "s3" not in found, signal
        texts = await index.candidate_texts(ORG, ["s3-0"], MINE)
        assert texts == {}
        assert await index.episode_members(ORG, ["s3"], MINE) == {}

    async def test_removed_text_is_never_returned_again(
        self, pair: tuple[MemoryStore, RetrievalIndex]
    ) -> None:
        store, index = pair
        sources = await self._load(store, index)
        tomb = _changed(sources["s3"], lifecycle=LifecycleState.DELETED, content="")
        await self._correct(store, index, tomb, drop=True)
        everyone = CandidateFilter(recall=admitted_keys([OWNER]))
        assert await index.lexical(ORG, "hunter2", 20, everyone) == []
        assert await index.candidate_texts(ORG, ["s3-0"], everyone) == {}

    async def test_after_each_correction_search_agrees_with_the_store(
        self, pair: tuple[MemoryStore, RetrievalIndex]
    ) -> None:
        store, index = pair
        sources = await self._load(store, index)
        steps: list[tuple[str, dict[str, Any], bool]] = [
            ("s1", {"marks": frozenset({Mark.SENSITIVE})}, False),
            ("s2", {"marks": frozenset({Mark.WRONG})}, False),
            ("s1", {"marks": frozenset(), "lifecycle": LifecycleState.HIDDEN}, False),
            ("s2", {"marks": frozenset()}, False),
            ("s1", {"lifecycle": LifecycleState.ACTIVE}, False),
            ("s2", {"lifecycle": LifecycleState.SUPERSEDED, "superseded_by": "s1"}, False),
            ("s3", {"lifecycle": LifecycleState.REDACTED, "content": "[redacted]"}, True),
        ]
        for sid, changes, drop in steps:
            held = await store.get_source(ORG, sid)
            assert held is not None
            await self._correct(store, index, _changed(held, **changes), drop=drop)
            truth = await store.get_sources(ORG, list(sources))
            with_chunks = {s for s in truth if await store.chunks_of_source(ORG, s)}
            for where in (MINE, OWNERS):
                # every source's text says "billing" and every vector is near Q
                expected = {s for s in with_chunks if truth[s].recall in where.recall}
                for signal, found in (await self._sources_found(index, where)).items():
                    assert found == expected, (sid, changes, signal, where.recall)
