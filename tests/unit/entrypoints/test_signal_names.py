"""Each retrieval signal is named once (``domain.signals.Signal``) and every place
that speaks of signals knows all of them: the labels, the hit's ``Signals`` and the
web page's words."""

import msgspec

from application.memory.results import Signals
from application.memory.service import _signals
from domain.explain import SIGNAL_LABELS
from domain.ranking.reasons import found_by
from domain.signals import Signal
from entrypoints.web.why import _SIGNALS, why_of


def test_every_signal_has_a_label_a_web_word_and_a_signals_field() -> None:
    assert set(SIGNAL_LABELS) == set(Signal)
    assert set(_SIGNALS) == set(Signal)
    fields = {name.removesuffix("_rank") for name in Signals.__struct_fields__}
    assert fields == set(Signal)


def test_the_values_are_the_released_keys() -> None:
    assert [s.value for s in Signal] == [
        "lexical",
        "vector",
        "episode_lexical",
        "episode_vector",
        "neighbour",
        "subject_vector",
        "entity",
        "window",
        "graph",
        "relation",
        "entity_vector",
    ]


def test_each_signal_lands_in_its_own_field() -> None:
    ranks = {signal.value: rank for rank, signal in enumerate(Signal, start=1)}
    got = msgspec.structs.asdict(_signals(ranks))
    assert got == {f"{signal}_rank": rank for signal, rank in ranks.items()}


def test_a_record_matched_by_meaning_is_said_in_words_on_the_web() -> None:
    ranks = {"entity_vector": 2}
    said = why_of(found_by(ranks)).short
    assert said == "Backs a matching record"
