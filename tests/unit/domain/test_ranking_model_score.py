"""``score_with_model``: one pass over the contributions gives the score ``RankModel.score``
gives and the reasons a full sort of every contribution gives (the ranking may not move)."""

from collections.abc import Mapping

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.ranking.learned import _REASON_FLOOR, FEATURES, RankModel, _reason, score_with_model
from domain.ranking.learned_weights import LEARNED


def _reference(
    model: RankModel, values: Mapping[str, float], speaker: str | None
) -> tuple[float, list[str]]:
    parts = sorted(((w * values.get(f, 0.0), f) for f, w in model.weights.items()), reverse=True)
    reasons: list[str] = []
    for part, feature in parts:
        if part < _REASON_FLOOR:
            break
        said = _reason(feature, values, speaker)
        if said is not None and said not in reasons:
            reasons.append(said)
    return model.score(values), reasons


_values = st.dictionaries(
    st.sampled_from(FEATURES),
    st.one_of(st.just(0.0), st.just(1.0), st.floats(0.0, 1.0)),
)
_models = st.one_of(
    st.just(LEARNED),
    st.builds(
        RankModel,
        weights=st.dictionaries(st.sampled_from(FEATURES), st.floats(-2.0, 2.0), min_size=1),
        bias=st.floats(-1.0, 1.0),
    ),
)


@given(_models, _values, st.sampled_from([None, "maya"]))
@settings(max_examples=400, deadline=None)
def test_score_and_reasons_are_those_of_a_full_sort(
    model: RankModel, values: dict[str, float], speaker: str | None
) -> None:
    assert score_with_model(model, values, speaker) == _reference(model, values, speaker)
