"""Edges of the domain rules: the exact limits, accepted and refused."""

from datetime import UTC, datetime

import pytest

from domain.chunking import ChunkingRules, split_into_chunks
from domain.explain import inclusion_reason
from domain.fusion import rrf_merge
from domain.models import Chunk, Principal, PrincipalKind
from domain.scopes import MemoryScope

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def test_rrf_accepts_k_of_one() -> None:
    (hit,) = rrf_merge({"x": ["a"]}, k=1)
    assert hit.score == pytest.approx(0.5)


def test_chunk_span_must_be_non_empty_and_start_at_zero_or_later() -> None:
    fields: dict[str, object] = dict(
        chunk_id="c",
        source_id="s",
        org_id="o",
        ordinal=0,
        text="x",
        content_hash="h",
        scope=MemoryScope.PRIVATE,
        scope_key=None,
        created_at=NOW,
    )
    assert Chunk(**fields, start=0, end=1).ordinal == 0  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="span"):
        Chunk(**fields, start=3, end=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="span"):
        Chunk(**fields, start=-1, end=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="ordinal"):
        Chunk(**{**fields, "ordinal": -1}, start=0, end=1)  # type: ignore[arg-type]


def test_principal_rules_name_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="principal_id"):
        Principal(principal_id="")
    with pytest.raises(ValueError, match="agent"):
        Principal(principal_id="bot", kind=PrincipalKind.AGENT, acting_for="")
    with pytest.raises(ValueError, match="user principal"):
        Principal(principal_id="u", kind=PrincipalKind.USER, acting_for="v")


@pytest.mark.parametrize(
    ("kwargs", "ok"),
    [
        ({"max_chars": 20, "overlap_chars": 0}, True),
        ({"max_chars": 19, "overlap_chars": 0}, False),
        ({"max_chars": 100, "overlap_chars": 49}, True),
        ({"max_chars": 100, "overlap_chars": 50}, False),
        ({"max_chars": 100, "overlap_chars": -1}, False),
        ({"boundary_window": 1.0}, True),
        ({"boundary_window": 1.01}, False),
        ({"boundary_window": 0.0}, False),
    ],
)
def test_chunking_rule_limits(kwargs: dict[str, float], ok: bool) -> None:
    if ok:
        ChunkingRules(**kwargs)  # type: ignore[arg-type]
    else:
        with pytest.raises(ValueError, match="must"):
            ChunkingRules(**kwargs)  # type: ignore[arg-type]


def test_a_window_is_cut_at_its_last_space() -> None:
    rules = ChunkingRules(max_chars=40, overlap_chars=0, boundary_window=1.0)
    text = "aa bb cc dd ee ff gg hh ii jj kk ll mm nn oo pp"
    first = split_into_chunks(text, rules)[0]
    assert first.text == "aa bb cc dd ee ff gg hh ii jj kk ll mm "


def test_a_newline_also_ends_a_window() -> None:
    rules = ChunkingRules(max_chars=30, overlap_chars=0, boundary_window=1.0)
    text = "abcdefghij\nklmnopqrstuvwxyzabcdefghijklmnop"
    assert split_into_chunks(text, rules)[0].text == "abcdefghij\n"


def test_chunks_always_move_forward_even_with_a_large_overlap() -> None:
    rules = ChunkingRules(max_chars=20, overlap_chars=9)
    spans = split_into_chunks("x" * 100, rules)
    starts = [s.start for s in spans]
    assert starts == sorted(set(starts))
    assert spans[-1].end == 100


def test_reason_orders_signals_by_rank_then_name() -> None:
    assert inclusion_reason({"vector": 2, "lexical": 2}) == (
        "matched the query's words (rank 2); close in meaning to the query (rank 2)"
    )
