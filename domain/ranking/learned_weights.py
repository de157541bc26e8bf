"""The learned ranker's weights, written by ``python -m benchmarks.ranker_fit --write``.

Fitted on: realtalk_dev.json.xz.
Refit with the same command; a test checks that it gives these numbers."""

from domain.ranking.learned import RankModel

__all__ = ["LEARNED"]

LEARNED = RankModel(
    weights={
        "fused": 1.5521,
        "rank_lexical": 0.2234,
        "rank_vector": 2.3567,
        "rank_subject_vector": 0.0357,
        "rank_entity": 3.725,
        "rank_entity_vector": 3.725,
        "rank_graph": 3.725,
        "rank_relation": 3.725,
        "rank_neighbour": 0.8675,
        "rank_window": 0.8675,
        "rank_episode_lexical": 0.0928,
        "rank_episode_vector": 1.3683,
        "coverage": 0.653,
        "episode_coverage": 0.8721,
        "phrase": 0.5324,
        "segment": 0.6192,
        "previous_coverage": -0.1561,
        "next_coverage": 0.6006,
        "reply": 0.0798,
        "speaker_role": 0.1945,
        "named_speaker": 3.0296,
        "named_and_matching": 1.0958,
        "date": 1.5489,
        "alternatives": 0.236,
        "short_turn": -0.474,
        "asks": -0.4183,
        "episode_first": 0.2231,
    }
)
