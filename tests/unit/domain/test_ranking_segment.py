"""``best_segment`` (one sliding window) equals its definition: the best coverage of the
window starting at each hit, read from that hit on."""

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.ranking.features import SEGMENT_TOKENS, best_segment, coverage, weight_of

_TERMS = ["plant", "water", "fern", "pot", "soil", "sun"]


def _by_definition(
    terms: list[str], positions: dict[str, list[int]], idf: dict[str, float]
) -> float:
    total = sum(idf.get(t, 0.0) for t in terms)
    if total <= 0 or not positions:
        return 0.0
    hits = sorted((i, tok) for tok, places in positions.items() for i in places)
    best = 0.0
    for start, (i, _) in enumerate(hits):
        seen = {tok for j, tok in hits[start:] if j - i < SEGMENT_TOKENS}
        best = max(best, sum(idf.get(t, 0.0) for t in seen) / total)
    return best


@st.composite
def _cases(draw: st.DrawFn) -> tuple[list[str], dict[str, list[int]], dict[str, float]]:
    terms = draw(st.lists(st.sampled_from(_TERMS), min_size=1, max_size=6, unique=True))
    idf = {t: draw(st.floats(min_value=0.0, max_value=5.0)) for t in terms}
    # a token stands at one position at most: positions drawn once, then dealt to terms
    places = draw(st.lists(st.integers(0, 200), max_size=40, unique=True))
    positions: dict[str, list[int]] = {}
    for place in sorted(places):
        positions.setdefault(draw(st.sampled_from(terms)), []).append(place)
    return terms, positions, idf


@settings(max_examples=300, deadline=None)
@given(_cases())
def test_best_segment_equals_the_best_window_from_each_hit(
    case: tuple[list[str], dict[str, list[int]], dict[str, float]],
) -> None:
    terms, positions, idf = case
    want = _by_definition(terms, positions, idf)
    assert abs(best_segment(terms, positions, idf) - want) <= 1e-12
    assert abs(best_segment(terms, positions, idf, weight_of(terms, idf)) - want) <= 1e-12


def test_a_window_is_segment_tokens_long_counted_from_its_first_hit() -> None:
    idf = {"plant": 1.0, "water": 1.0}
    near = {"plant": [10], "water": [10 + SEGMENT_TOKENS - 1]}
    far = {"plant": [10], "water": [10 + SEGMENT_TOKENS]}
    assert best_segment(["plant", "water"], near, idf) == 1.0
    assert best_segment(["plant", "water"], far, idf) == 0.5


def test_a_term_left_behind_is_counted_again_where_it_recurs() -> None:
    idf = {"plant": 2.0, "water": 1.0, "sun": 1.0}
    # plant leaves the window before water and sun arrive, then stands beside them
    positions = {"plant": [0, 102], "water": [100], "sun": [101]}
    assert best_segment(["plant", "water", "sun"], positions, idf) == 1.0
    assert best_segment(["plant", "water", "sun"], {**positions, "plant": [0]}, idf) == 0.5


def test_coverage_with_the_weight_given_equals_coverage_computed() -> None:
    idf = {"plant": 2.0, "water": 0.5}
    terms = ["plant", "water", "fern"]
    present = frozenset({"plant"})
    assert coverage(terms, present, idf, weight_of(terms, idf)) == coverage(terms, present, idf)
    assert coverage(terms, present, {"fern": 0.0}) == 0.0
