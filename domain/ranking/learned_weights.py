"""The learned ranker's weights, written by ``python -m benchmarks.ranker_fit --write``.

Fitted on: realtalk_dev.json.xz, fixture.json.
Refit with the same command; a test checks that it gives these numbers."""

from domain.ranking.learned import RankModel

__all__ = ["LEARNED"]

LEARNED = RankModel(
    weights={
        "fused": 0.524,
        "rank_lexical": 0.4499,
        "rank_vector": 2.5656,
        "rank_subject_vector": -0.0575,
        "rank_entity": 3.5099,
        "rank_entity_vector": 3.5099,
        "rank_graph": 3.5099,
        "rank_relation": 3.5099,
        "rank_neighbour": 0.7486,
        "rank_window": 0.7486,
        "rank_episode_lexical": 0.3983,
        "rank_episode_vector": 0.9443,
        "coverage": -0.0934,
        "episode_coverage": 0.5705,
        "phrase": 0.7911,
        "segment": -0.0787,
        "previous_coverage": 0.4305,
        "next_coverage": 0.2926,
        "reply": 0.8621,
        "speaker_role": -0.0575,
        "named_speaker": 1.8874,
        "named_and_matching": 0.6585,
        "date": 1.6016,
        "alternatives": 0.1229,
        "short_turn": -0.2318,
        "asks": -0.5958,
        "episode_first": 0.2456,
        "first_person": 0.8262,
        "first_person_named": 0.6736,
        "first_person_statement": -0.6879,
        "first_person_coverage": 1.1636,
        "first_person_reply": -0.8125,
        "second_person": -0.253,
        "third_person": 0.1314,
    }
)
