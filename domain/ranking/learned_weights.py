"""The learned ranker's weights, written by ``python -m benchmarks.ranker_fit --write``.

Fitted on: realtalk_dev.json.xz, fixture.json, longmemeval_s_dev250.json.xz (its first
100 questions in stratified order).
Refit with the same command; a test checks that it gives these numbers."""

from domain.ranking.learned import RankModel

__all__ = ["LEARNED"]

LEARNED = RankModel(
    weights={
        "fused": 0.3102,
        "rank_lexical": 0.6814,
        "rank_vector": 2.4963,
        "rank_subject_vector": -0.1303,
        "rank_entity": 3.4043,
        "rank_entity_vector": 3.4043,
        "rank_graph": 3.4043,
        "rank_relation": 3.4043,
        "rank_neighbour": 0.7236,
        "rank_window": 0.7236,
        "rank_episode_lexical": 0.3581,
        "rank_episode_vector": 0.908,
        "coverage": -0.0318,
        "episode_coverage": 0.5762,
        "phrase": 0.8697,
        "segment": 0.0065,
        "previous_coverage": 0.3122,
        "next_coverage": 0.3293,
        "reply": 0.917,
        "speaker_role": 1.2767,
        "named_speaker": 2.1587,
        "named_and_matching": 0.5998,
        "date": 1.5805,
        "alternatives": 0.3518,
        "short_turn": -0.1607,
        "asks": -0.6054,
        "episode_first": 0.2639,
        "first_person": 1.1061,
        "first_person_named": 0.4016,
        "first_person_statement": -0.6659,
        "first_person_coverage": 1.235,
        "first_person_reply": -0.8329,
    }
)
