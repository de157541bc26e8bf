import itertools
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.chunking import ChunkingRules, split_into_chunks


def test_short_text_is_one_chunk() -> None:
    spans = split_into_chunks("I moved to Lisbon in May.")
    assert [(s.start, s.end, s.text) for s in spans] == [(0, 25, "I moved to Lisbon in May.")]


def test_whitespace_only_gives_no_chunks() -> None:
    assert split_into_chunks("   \n\n  ") == []


def test_long_text_prefers_paragraph_then_sentence_boundaries() -> None:
    rules = ChunkingRules(max_chars=100, overlap_chars=0)
    para = "a" * 75 + " end.\n\n" + "b" * 80
    spans = split_into_chunks(para, rules)
    assert spans[0].text.endswith("\n\n")
    sentences = ("This is one sentence. " * 10).strip()
    spans = split_into_chunks(sentences, rules)
    assert all(s.text.rstrip().endswith(".") for s in spans[:-1])


def test_no_word_is_cut_when_spaces_exist() -> None:
    rules = ChunkingRules(max_chars=50, overlap_chars=10)
    text = " ".join(f"word{i}" for i in range(100))
    for span in split_into_chunks(text, rules):
        assert not span.text[0].isspace()
        assert span.text.split()[0].startswith("word")
        assert span.text.split()[-1].startswith("word")


def test_overlap_repeats_the_tail_of_the_previous_chunk() -> None:
    rules = ChunkingRules(max_chars=60, overlap_chars=20)
    text = " ".join(f"w{i:03d}" for i in range(60))
    spans = split_into_chunks(text, rules)
    assert len(spans) > 2
    for prev, nxt in itertools.pairwise(spans):
        assert nxt.start < prev.end  # overlapping
        assert nxt.start > prev.start  # always progressing


def test_unbreakable_text_is_cut_hard() -> None:
    rules = ChunkingRules(max_chars=30, overlap_chars=0)
    spans = split_into_chunks("x" * 95, rules)
    assert [len(s.text) for s in spans] == [30, 30, 30, 5]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_chars": 10}, "max_chars must be at least 20"),
        (
            {"max_chars": 100, "overlap_chars": 60},
            "overlap_chars must be >= 0 and under half of max_chars",
        ),
        ({"boundary_window": 0}, "boundary_window must be in (0, 1]"),
    ],
)
def test_rules_reject_nonsense(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        ChunkingRules(**kwargs)  # type: ignore[arg-type]


@given(st.text(min_size=1, max_size=3000), st.integers(min_value=20, max_value=400))
def test_spans_cover_all_non_space_text_and_respect_the_maximum(text: str, max_chars: int) -> None:
    rules = ChunkingRules(max_chars=max_chars, overlap_chars=max_chars // 5)
    spans = split_into_chunks(text, rules)
    covered = [False] * len(text)
    for span in spans:
        assert 0 < len(span.text) <= max_chars
        assert text[span.start : span.end] == span.text
        for i in range(span.start, span.end):
            covered[i] = True
    assert all(covered[i] for i, ch in enumerate(text) if not ch.isspace())
