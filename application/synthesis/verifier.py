"""Deterministic checks of a draft against its section packs.

For every sentence: it must cite (coverage); every source it cites must be
in its section's pack as re-checked now (so readable by actor and audience)
and bear on the question (``domain.synthesis.bearing``: a sentence copied
word for word from off-topic mail is supported by its words, and still no
claim about the question); and each cited source must support it: the share
of the sentence's content words the source contains, and the embedder's
cosine between the two, against the thresholds documented in
``domain.synthesis.verdict``. The whole draft
must not repeat eight consecutive words of any chunk the audience may not
read (counted as leaks). Stale cited sources are flagged or block, as the
run's freshness policy says. Texts are embedded in one batch, reusing the
store's embedding cache for chunks.
"""

from datetime import datetime

from application.enrichment.embedding import embed_for_memory
from application.ports import Embedder, MemoryStore
from application.synthesis.bearing import bearing_chunks
from application.synthesis.records import (
    Draft,
    HiddenCounts,
    SectionPack,
    StoredPack,
    SynthesisRun,
    UnsupportedClaim,
    Verification,
)
from domain.synthesis.text import lexical_support, shares_run
from domain.synthesis.verdict import decide_status, is_supported

__all__ = ["WITHHELD_SENTENCE", "verify_draft"]

#: what a claim citing a source outside the reader's pack shows instead of its words
WITHHELD_SENTENCE = "[withheld: cites a source outside what you may read now]"


def _dot(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


async def verify_draft(
    *,
    store: MemoryStore,
    embedder: Embedder,
    run: SynthesisRun,
    draft: Draft,
    packs: list[SectionPack],
    stored: list[StoredPack],
    now: datetime,
) -> Verification:
    texts_by_source: list[dict[str, list[str]]] = []
    for pack in packs:
        by_source: dict[str, list[str]] = {}
        for s in pack.snippets:
            by_source.setdefault(s.source_id, []).append(s.text)
        texts_by_source.append(by_source)
    # a cited source bears on the question when one of its snippets in the pack does
    bearing = await bearing_chunks(store, embedder, run.org_id, run.query, packs)
    bears = [{s.source_id for s in pack.snippets if s.chunk_id in bearing} for pack in packs]
    pairs: list[tuple[int, int, str, str]] = []  # section, sentence, source, text
    unsupported: list[UnsupportedClaim] = []
    off_topic: set[tuple[int, int]] = set()
    cited = total = 0
    for n, section in enumerate(draft.sections):
        sources = texts_by_source[n] if n < len(texts_by_source) else {}
        for m, sentence in enumerate(section.sentences):
            total += 1
            if not sentence.citations:
                unsupported.append(_claim(section.title, sentence.text, [], "uncited"))
                continue
            cited += 1
            outside = [c for c in sentence.citations if c not in sources]
            if outside:
                # the sentence may quote a source the reader can no longer read (hidden or
                # redacted since the draft): neither its words nor that source's id go back
                inside = [c for c in sentence.citations if c in sources]
                unsupported.append(
                    _claim(section.title, WITHHELD_SENTENCE, inside, "cited_outside_pack")
                )
                continue
            for c in sentence.citations:
                pairs.append((n, m, c, " ".join(sources[c])))
            if any(c not in bears[n] for c in sentence.citations):
                off_topic.add((n, m))
    supported = await _supported(store, embedder, run.org_id, draft, pairs)
    for n, section in enumerate(draft.sections):
        for m, sentence in enumerate(section.sentences):
            if (n, m) in off_topic:
                # its words may be its source's own, but that source is not about the question
                supported[(n, m)] = False
                unsupported.append(
                    _claim(section.title, sentence.text, sentence.citations, "off_topic_source")
                )
            elif (n, m) in supported and not supported[(n, m)]:
                unsupported.append(
                    _claim(section.title, sentence.text, sentence.citations, "not_supported")
                )
    leaks = await _leaks(store, run.org_id, draft, stored)
    stale = sorted(
        {
            s.source_id
            for pack, section in zip(packs, draft.sections, strict=False)
            for s in pack.snippets
            if s.stale and any(s.source_id in x.citations for x in section.sentences)
        }
    )
    gaps = [s.title for s in draft.sections if s.gap or not s.sentences]
    good = sum(1 for ok in supported.values() if ok)
    return Verification(
        status=decide_status(
            leaks=leaks,
            cited_sentences=cited,
            unsupported=len(unsupported),
            stale_cited=len(stale),
            stale_blocks=run.freshness.on_stale == "block",
            gaps=len(gaps),
        ),
        citation_coverage=round(cited / total, 4) if total else 0.0,
        supported_share=round(good / cited, 4) if cited else 0.0,
        sentences=total,
        unsupported_claims=unsupported,
        gaps=gaps,
        hidden_counts=HiddenCounts(
            hidden=sum(p.hidden_count for p in packs),
            denied=sum(p.denied_count for p in packs),
            by_section={p.title: p.hidden_count for p in packs},
        ),
        stale_source_ids=stale,
        leaks=leaks,
        checked_at=now,
    )


def _claim(section: str, sentence: str, citations: list[str], reason: str) -> UnsupportedClaim:
    return UnsupportedClaim(
        section=section, sentence=sentence, citations=list(citations), reason=reason
    )


async def _supported(
    store: MemoryStore,
    embedder: Embedder,
    org_id: str,
    draft: Draft,
    pairs: list[tuple[int, int, str, str]],
) -> dict[tuple[int, int], bool]:
    """Per cited sentence: does every cited source support it?"""
    if not pairs:
        return {}
    sentences = {(n, m): draft.sections[n].sentences[m].text for n, m, _, _ in pairs}
    texts = list(dict.fromkeys([*sentences.values(), *(t for *_, t in pairs)]))
    vectors, _ = await embed_for_memory(store, embedder, org_id, texts)
    vector = dict(zip(texts, vectors, strict=True))
    result: dict[tuple[int, int], bool] = {}
    for n, m, _, source_text in pairs:
        sentence = sentences[(n, m)]
        ok = is_supported(
            lexical_support(sentence, source_text), _dot(vector[sentence], vector[source_text])
        )
        result[(n, m)] = result.get((n, m), True) and ok
    return result


async def _leaks(store: MemoryStore, org_id: str, draft: Draft, stored: list[StoredPack]) -> int:
    hidden_ids = list(dict.fromkeys(c for p in stored for c in p.hidden_chunk_ids))
    if not hidden_ids:
        return 0
    hidden = await store.get_chunks(org_id, hidden_ids)
    sentences = [s.text for section in draft.sections for s in section.sentences]
    return sum(1 for s in sentences if any(shares_run(s, h.text) for h in hidden.values()))
