"""The fill's varied turns past the real ones: deterministic, new, real-looking; the data path."""

from itertools import islice
from pathlib import Path

import pytest

from benchmarks._data import DATA_ENV, DEFAULT_DATA, data_path
from benchmarks._fill import plan_fill
from benchmarks._variation import vary, vary_turns
from domain.chunking import split_into_chunks

TURNS = [
    "I met Maya at the market on Sunday. She sold me 12 apples. They were sweet.",
    "We drove to Denver with Sam in 2019. The trip took 3 days. It rained twice.",
    "My garden has 40 tomato plants now. I water them at 6 every morning.",
    "Can you suggest a recipe? I have 2 eggs and some flour. Nothing else.",
    "The meeting with Priya moved to Friday. Bring the 5 reports, please.",
]


def test_the_same_turns_give_the_same_variations() -> None:
    first = list(islice(vary_turns(TURNS), 15))
    again = list(islice(vary_turns(list(TURNS)), 15))
    assert first == again and len(first) == 15


def test_variations_are_new_texts_and_never_repeat() -> None:
    made = list(islice(vary_turns(TURNS), 15))
    assert len(set(made)) == len(made)
    assert not set(made) & set(TURNS)


def test_a_variation_is_real_sentences_with_numbers_shifted_and_names_swapped() -> None:
    text = vary(TURNS[1], TURNS[0], 2, {"Sam": "Maya"})
    # the first half of its own sentences, the second half of the partner's
    assert text == "We drove to Denver with Maya in 2021. The trip took 5 days. They were sweet."
    assert vary(TURNS[0], TURNS[1], 1, {}).startswith("I met Maya at the market on Sunday.")


def test_plan_fill_goes_past_the_real_turns_with_varied_ones() -> None:
    real = sum(len(split_into_chunks(t)) for t in TURNS)
    plan = plan_fill(TURNS, real * 3)
    assert len(plan.chunk_texts) == real * 3
    texts = [turn for turn, _ in plan.sources]
    assert texts[: len(TURNS)] == TURNS and len(set(texts)) == len(texts)
    assert plan_fill(TURNS, real * 3).chunk_texts == plan.chunk_texts


def test_plan_fill_refuses_when_nothing_new_can_be_made() -> None:
    with pytest.raises(ValueError, match="yields only"):
        plan_fill(["same"], 50)


def test_the_data_path_is_the_flag_then_the_environment_then_beside_the_repository(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(DATA_ENV, raising=False)
    assert data_path() == DEFAULT_DATA
    assert DEFAULT_DATA.parts[-4:-1] == ("shared", "data", "longmemeval")
    assert DEFAULT_DATA.parent.parent.parent.parent == Path(__file__).resolve().parents[3].parent
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "lme.json.xz"))
    assert data_path() == tmp_path / "lme.json.xz"
    assert data_path(Path("/x.json.xz")) == Path("/x.json.xz")
