"""The learned ranker's weights, written by ``python -m benchmarks.ranker_fit --write``.

Fitted on: realtalk_dev.json.xz.
Refit with the same command; a test checks that it gives these numbers."""

from domain.ranking.learned import RankModel

__all__ = ["LEARNED"]

LEARNED = RankModel(
    weights={
        "fused": 0.6471,
        "rank_lexical": 0.4821,
        "rank_vector": 1.8375,
        "rank_subject_vector": -0.0237,
        "rank_entity": 2.7443,
        "rank_entity_vector": 2.7443,
        "rank_graph": 2.7443,
        "rank_relation": 2.7443,
        "rank_neighbour": 0.6214,
        "rank_window": 0.6214,
        "rank_episode_lexical": 0.0041,
        "rank_episode_vector": 0.9068,
        "coverage": 0.5248,
        "episode_coverage": 0.5701,
        "phrase": 1.1374,
        "segment": 0.4581,
        "previous_coverage": -0.2333,
        "next_coverage": 0.3153,
        "reply": 0.0736,
        "speaker_role": 0.1127,
        "named_speaker": 2.5575,
        "named_and_matching": 0.666,
        "date": 1.8535,
        "alternatives": 0.3468,
        "short_turn": -0.3815,
        "asks": -0.2906,
        "episode_first": -0.0289,
    }
)
