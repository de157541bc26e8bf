"""The in-process accelerator's own behaviour, beyond the shared index contract."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters.inprocess import bm25_topk
from adapters.inprocess.analyzer import analyze, stem
from adapters.inprocess.bm25 import Bm25Postings
from adapters.inprocess.index import InProcessIndex
from application.ports.records import CandidateFilter, IndexEntry
from domain.scopes import LifecycleState, MemoryScope
from domain.words import class_tokens

ALL = CandidateFilter()


def _entry(cid: str, text: str, vector: list[float], **kw: object) -> IndexEntry:
    fields: dict[str, object] = dict(
        chunk_id=cid,
        source_id="s" + cid,
        text=text,
        vector=vector,
        scope=MemoryScope.PRIVATE,
        scope_key=None,
    )
    fields.update(kw)
    return IndexEntry(**fields)  # type: ignore[arg-type]


def test_analyzer_splits_on_character_class_lowercases_and_stems() -> None:
    assert analyze("Running RUNS ran, abc123!") == ["run", "run", "ran", "abc", "123"]
    assert analyze("Zoë's café, v2_beta ٣٤") == ["zoë", "s", "café", "v", "2", "beta", "٣٤"]


@given(st.text(alphabet=st.characters(max_codepoint=0x7F)) | st.text())
def test_analyzer_ascii_path_gives_the_class_tokenizer_runs(text: str) -> None:
    """ASCII text takes a narrower pattern than the Unicode classes: the same terms."""
    assert analyze(text) == [stem(w) for w in class_tokens(text.lower())]


def test_bm25_prefers_rarer_terms_and_shorter_documents() -> None:
    import numpy as np

    bm = Bm25Postings()
    bm.extend(0, ["cat dog", "dog dog dog bird fish fish fish fish", "dog"])
    rows, scores = bm.scores("cat dog", np.ones(3, dtype=bool))
    by_row = dict(zip(rows.tolist(), scores.tolist(), strict=True))
    assert max(by_row, key=by_row.__getitem__) == 0  # only doc with the rare "cat"
    assert by_row[2] > by_row[1]  # same single term, shorter doc wins
    with pytest.raises(ValueError):
        bm.add(7, "out of order")


async def test_reindexing_a_chunk_replaces_its_old_row() -> None:
    index = InProcessIndex()
    await index.add("o", [_entry("a", "old words", [1.0, 0.0])])
    await index.add("o", [_entry("a", "new text", [0.0, 1.0])])
    assert await index.lexical("o", "old", 5, ALL) == []
    hits = await index.vector("o", [0.0, 1.0], 5, ALL)
    assert [h.item_id for h in hits] == ["a"]


async def test_inactive_entries_are_never_candidates() -> None:
    index = InProcessIndex()
    await index.add("o", [_entry("h", "hidden words", [1.0, 0.0], lifecycle=LifecycleState.HIDDEN)])
    assert await index.lexical("o", "hidden", 5, ALL) == []
    assert await index.vector("o", [1.0, 0.0], 5, ALL) == []


async def test_grows_past_its_initial_capacity_and_keeps_order() -> None:
    index = InProcessIndex()
    entries = [_entry(f"{i:05d}", f"doc {i}", [1.0, i / 5000]) for i in range(3000)]
    for start in range(0, 3000, 700):
        await index.add("o", entries[start : start + 700])
    hits = await index.vector("o", [1.0, 0.0], 3, ALL)
    assert [h.item_id for h in hits] == ["00000", "00001", "00002"]
    with pytest.raises(ValueError):
        await index.vector("o", [1.0, 0.0, 0.0], 3, ALL)


async def test_an_episode_scores_the_mean_cosine_of_its_admitted_rows() -> None:
    import numpy as np

    rng = np.random.default_rng(4)
    index = InProcessIndex()
    entries, by_episode = [], {}
    for n in range(60):
        vector = rng.normal(size=4)
        episode = f"e{n % 7}" if n % 5 else f"e{n % 3}"  # uneven episodes
        hidden = n % 11 == 0
        lifecycle = LifecycleState.HIDDEN if hidden else LifecycleState.ACTIVE
        entries.append(
            _entry(f"c{n}", "words", vector.tolist(), source_id=episode, lifecycle=lifecycle)
        )
        if not hidden:
            by_episode.setdefault(episode, []).append(vector / np.linalg.norm(vector))
    await index.add("o", entries)
    probe = np.asarray([0.3, -0.2, 0.9, 0.1])
    query = (probe / np.linalg.norm(probe)).astype(np.float32)
    hits = await index.episode_vector("o", probe.tolist(), 10, ALL)
    assert {h.item_id for h in hits} == set(by_episode)
    for hit in hits:
        cosines = np.asarray(by_episode[hit.item_id], dtype=np.float32) @ query
        assert hit.score == pytest.approx(float(cosines.astype(np.float64).mean()), abs=1e-6)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


async def test_large_organisations_score_their_lexical_legs_on_worker_threads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import threading

    from adapters.inprocess import bm25, episode_postings

    words = ["kayak", "lake", "orange", "trip", "tax", "receipt", "month", "june"]
    entries = [
        _entry(
            f"c{n}",
            " ".join(words[(n * k) % len(words)] for k in range(1, 5)),
            [1.0, float(n % 3)],
            source_id=f"s{n // 4}",
        )
        for n in range(400)
    ]
    on_loop = InProcessIndex(legs_off_loop_from=10**9)
    threaded = InProcessIndex(legs_off_loop_from=0)
    # the episode leg reads episode postings from their first search (built in place here)
    for index in (on_loop, threaded):
        await index.add("o", entries)
        index._org("o").episodes = episode_postings.EpisodeLeg(min_rows=0, sync_below=10**9)
    scored_on: list[str] = []
    top_candidates = bm25_topk.top_candidates

    def watched(*args: object, **kwargs: object) -> object:
        scored_on.append(threading.current_thread().name)
        return top_candidates(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(bm25, "top_candidates", watched)
    monkeypatch.setattr(episode_postings, "top_candidates", watched)
    for query in ("kayak trip", "tax receipt june", "orange lake month kayak"):
        want = await on_loop.lexical("o", query, 10, ALL)
        want_episodes = await on_loop.episode_lexical("o", query, 5, ALL)
        assert scored_on and all(n == threading.current_thread().name for n in scored_on)
        scored_on.clear()
        assert await threaded.lexical("o", query, 10, ALL) == want
        assert await threaded.episode_lexical("o", query, 5, ALL) == want_episodes
        assert len(scored_on) == 2 and all(n.startswith("index-leg") for n in scored_on)
        scored_on.clear()
