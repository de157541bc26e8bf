"""Derived records' full text in process (``adapters.surreal.lexical_cache``).

The tokens expected below are what SurrealDB 3.0.0b10's ``tx`` analyzer
(``class`` tokenizer, ``lowercase``, ``snowball(english)``) returned for the
same text through ``search::analyze`` (``test_tokens_equal_the_engines``
checks it against the engine too), so a change of the engine's analyzer shows
here. Then: scores as SurrealDB's BM25 variant, the space filter, freshness,
and the whole path against the engine's own index on a seeded graph (same
ids, same order, same scores).
"""

import math
from collections.abc import AsyncIterator

import numpy as np
import pytest

from adapters.surreal import codec
from adapters.surreal.graph_store import SurrealGraphStore
from adapters.surreal.held_tables import HeldTables
from adapters.surreal.lexical_cache import LexicalIndex, tx_terms, tx_tokens
from adapters.surreal.memory_store import SurrealMemoryStore
from application.ports.records import EmbeddingSpace
from contracts.graph_store import ALPHA, ANA, sample_edge, sample_entity
from domain.reflection.candidates import CandidateType

TRICKY = {
    "Don't stop-believing: it's 2026-04-01, café naïve ÉCOLE résumé": [
        "don", "'", "t", "stop", "-", "believ", ":", "it", "'", "s", "2026", "-", "04", "-",
        "01", ",", "café", "naïv", "école", "résumé",
    ],
    "x86_64 foo_bar C++ e-mail a.b.c 3.14 1,000 ½ ² ٣ 五月 東京 Ünïcödé": [
        "x", "86", "_", "64", "foo", "_", "bar", "c", "++", "e", "-", "mail", "a", ".", "b",
        ".", "c", "3", ".", "14", "1", ",", "000", "½", "²", "٣", "五月", "東京", "ünïcödé",
    ],
    "Running RUNS ran, abc123! they're we've O'Brien's": [
        "run", "run", "ran", ",", "abc", "123", "!", "they", "'", "re", "we", "'", "ve", "o",
        "'", "brien", "'", "s",
    ],
    "emoji 🙂 tab\tnewline\nαβγ ΑΒΓ straße STRASSE İstanbul": [
        "emoji", "tab", "newlin", "αβγ", "αβγ", "straße", "strass", "i̇stanbul",
    ],
    "generously generous generation organisational": [
        "generous", "generous", "generat", "organis",
    ],
}  # fmt: skip


def test_the_class_tokenizer_lowercases_and_stems_like_tx() -> None:
    for text, engine in TRICKY.items():
        assert tx_terms(text) == engine, text
    assert tx_tokens("“Curly” — quotes…") == ["curly", "quotes"]  # not ASCII punctuation


def _naive(docs: dict[str, list[str]], query: list[str]) -> dict[str, float]:
    """SurrealDB 3's BM25 straight from the terms: idf floored at 0, tf' = 1 + ln tf."""
    n, avg = len(docs), sum(len(t) for t in docs.values()) / len(docs)
    k1, b = float(np.float32(1.2)), 0.75
    out: dict[str, float] = {}
    for term in query:
        df = sum(term in t for t in docs.values())
        idf = max(math.log((n - df + 0.5) / (df + 0.5)), 0.0) if df else 0.0
        for doc, terms in docs.items():
            if term in terms:
                tf = 1 + math.log(terms.count(term))
                norm = (1 - b) + b / avg * len(terms)
                out[doc] = out.get(doc, 0.0) + (
                    idf * (k1 + 1) * tf / (tf + k1 * norm) if idf else 0
                )
    return {d: float(np.float32(s)) for d, s in out.items()}


def test_scores_are_surreals_bm25_and_ties_go_by_id() -> None:
    texts = {
        "d3": "alpha beta beta",
        "d1": "alpha gamma",
        "d2": "gamma gamma gamma delta",
        "d0": "delta",
        "d4": "epsilon",
        "d5": "epsilon zeta",
        "d6": "alpha",
    }
    rows = [(i, "s1" if i < "d4" else "s2", tx_terms(t), t) for i, t in texts.items()]
    index = LexicalIndex(rows)
    docs = {i: tx_terms(t) for i, t in texts.items()}
    for query in ["beta", "alpha beta", "gamma delta", "beta beta", "alpha", "omega"]:
        want = _naive(docs, tx_terms(query))
        got = index.search(query, 10, None)
        assert {h.item_id: h.score for h in got} == want
        assert [h.item_id for h in got] == sorted(want, key=lambda d: (-want[d], d))
    # "alpha" is in 3 of 7 rows: idf ln(4.5/3.5) > 0; a term in most rows scores 0, yet matches
    assert [h.item_id for h in index.search("alpha", 2, None)] == ["d6", "d1"]
    assert [h.item_id for h in index.search("beta", 10, frozenset({"s2"}))] == []
    assert [h.item_id for h in index.search("epsilon alpha", 10, frozenset({"s2"}))] == [
        "d4",
        "d5",
        "d6",
    ]
    assert index.search("alpha", 0, None) == []
    assert LexicalIndex([]).search("alpha", 5, None) == []


def test_a_query_word_takes_the_term_its_documents_were_given() -> None:
    # the engine (Snowball 2) gives "organ" where PyStemmer (Snowball 3) gives "organiz"
    index = LexicalIndex([("e1", "s", ["organ", "chart"], "organization chart")])
    assert [h.item_id for h in index.search("Organization", 5, None)] == ["e1"]


async def test_held_until_a_write_or_the_time_limit() -> None:
    now = [0.0]
    loads: list[float] = []
    held = HeldTables(ttl=60.0, clock=lambda: now[0])

    async def load(at: float) -> str:
        loads.append(at)
        return "index"

    key = ("ns", "entity")
    assert await held.get(key, load) == "index"
    await held.get(key, load)
    held.forget("other")
    await held.get(key, load)
    assert len(loads) == 1
    held.forget("ns")
    await held.get(key, load)
    now[0] = 61.0
    await held.get(key, load)
    assert loads == [0.0, 0.0, 61.0]

    async def racing(at: float) -> str:
        held.forget("ns")  # a write lands while the rows are read: used once, not kept
        return "old"

    held.forget("ns")
    assert await held.get(key, racing) == "old"
    assert await held.get(key, load) == "index"


NAMES = [
    "We decided to go with SurrealDB for storage.",
    "Tom's organization chart: v2 (final!)",
    "Organize the 2026-04-01 review; Maya's call",
    "Storage, storage and more storage",
    "Café naïve résumé, İstanbul office",
    "Ship the release on Fridays.",
    "x86_64 builds for the C++ toolchain",
    "The emergency evening meeting was added",
    "Universities and international organizations",
    "Running runs ran the runner",
]


@pytest.fixture
async def graphs() -> AsyncIterator[tuple[SurrealGraphStore, SurrealGraphStore]]:
    memory = SurrealMemoryStore("mem://")
    await memory.prepare("org-a", EmbeddingSpace(model="test", dimension=4))
    cached = SurrealGraphStore(memory.connection)
    engine = SurrealGraphStore(memory.connection, lexical_in_process=False)
    kinds = [CandidateType.DECISION, CandidateType.TASK, CandidateType.PERSON]
    entities = [
        sample_entity(f"e{n:02d}", name, kinds[n % 3], ALPHA if n % 4 == 0 else ANA)
        for n, name in enumerate(NAMES * 3)
    ]
    edges = [
        sample_edge(f"e{n:02d}", f"e{n + 1:02d}", f"r{n:02d}", f"{name} — fact {n}", ANA)
        for n, name in enumerate(NAMES)
    ]
    await cached.promote(entities, edges, [])
    yield cached, engine
    await memory.close()


QUERIES = [
    "storage",
    "SurrealDB storage decision",
    "Tom organization",
    "organizations",
    "organize review",
    "2026",
    "cafe café",
    "istanbul İstanbul",
    "storage storage",
    "run",
    "emergency evening added",
    "zebra",
    "x86 64 C",
    "fact",
]


@pytest.mark.slow
async def test_entities_and_facts_rank_as_the_engine_ranks_them(
    graphs: tuple[SurrealGraphStore, SurrealGraphStore],
) -> None:
    cached, engine = graphs
    for visible in (None, frozenset({ANA}), frozenset({ALPHA}), frozenset()):
        for query in QUERIES:
            for limit in (3, 20):
                for search in ("entity_lexical", "edge_lexical"):
                    want = await getattr(engine, search)("org-a", query, limit, visible)
                    got = await getattr(cached, search)("org-a", query, limit, visible)
                    assert got == want, (search, query, limit, visible)
    assert await cached.entity_lexical("org-a", "storage", 20, None)  # not vacuous
    assert await cached.entity_lexical("org-b", "storage", 20, None) == []


@pytest.mark.slow
async def test_writes_of_this_process_are_seen_at_once(
    graphs: tuple[SurrealGraphStore, SurrealGraphStore],
) -> None:
    cached, engine = graphs
    assert await cached.entity_lexical("org-a", "zebra", 5, None) == []
    await cached.promote([sample_entity("z1", "Zebra crossing plan")], [], [])
    assert [h.item_id for h in await cached.entity_lexical("org-a", "zebra", 5, None)] == ["z1"]
    assert await cached.entity_lexical("org-a", "storage", 30, None) == (
        await engine.entity_lexical("org-a", "storage", 30, None)
    )
    assert await cached.forget_source("org-a", "s1") > 0  # every sample cites s1
    assert await cached.entity_lexical("org-a", "zebra", 5, None) == []
    assert await cached.edge_lexical("org-a", "fact", 5, None) == []


@pytest.mark.slow
async def test_tokens_equal_the_engines(
    graphs: tuple[SurrealGraphStore, SurrealGraphStore],
) -> None:
    cached, _ = graphs
    namespace = codec.namespace_for("org-a")
    for text, expected in TRICKY.items():
        (engine,) = await cached._conn.query(
            namespace, "RETURN search::analyze('tx', $t);", {"t": text}, operation="analyzing"
        )
        assert list(engine) == expected == tx_terms(text)
