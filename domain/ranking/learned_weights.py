"""The learned ranker's weights, written by ``python -m benchmarks.ranker_fit --write``.

Fitted on: realtalk_dev.json.xz, fixture.json.
Refit with the same command; a test checks that it gives these numbers."""

from domain.ranking.learned import RankModel

__all__ = ["LEARNED"]

LEARNED = RankModel(
    weights={
        "fused": 0.404,
        "rank_lexical": 0.4604,
        "rank_vector": 2.4441,
        "rank_subject_vector": -0.0681,
        "rank_entity": 3.4246000000000003,
        "rank_entity_vector": 3.4246000000000003,
        "rank_graph": 3.4246000000000003,
        "rank_relation": 3.4246000000000003,
        "rank_neighbour": 0.7356,
        "rank_window": 0.7356,
        "rank_episode_lexical": 0.3551,
        "rank_episode_vector": 0.9805,
        "coverage": 0.4797,
        "episode_coverage": 0.5707,
        "phrase": 0.9118,
        "segment": 0.4474,
        "previous_coverage": -0.2042,
        "next_coverage": 0.2213,
        "reply": 0.8902,
        "speaker_role": -0.0529,
        "named_speaker": 2.369,
        "named_and_matching": 0.7384,
        "date": 1.6838,
        "alternatives": 0.2286,
        "short_turn": -0.4892,
        "asks": -0.4865,
        "episode_first": 0.2714,
    }
)
