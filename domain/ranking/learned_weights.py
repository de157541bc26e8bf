"""The learned ranker's weights, written by ``python -m benchmarks.ranker_fit --write``.

Fitted on: realtalk_dev.json.xz, fixture.json.
Refit with the same command; a test checks that it gives these numbers."""

from domain.ranking.learned import RankModel

__all__ = ["LEARNED"]

LEARNED = RankModel(
    weights={
        "fused": 0.5114,
        "rank_lexical": 0.4469,
        "rank_vector": 2.5814,
        "rank_subject_vector": -0.0552,
        "rank_entity": 3.5288,
        "rank_entity_vector": 3.5288,
        "rank_graph": 3.5288,
        "rank_relation": 3.5288,
        "rank_neighbour": 0.748,
        "rank_window": 0.748,
        "rank_episode_lexical": 0.3905,
        "rank_episode_vector": 0.9474,
        "coverage": -0.1055,
        "episode_coverage": 0.5583,
        "phrase": 0.8062,
        "segment": -0.0749,
        "previous_coverage": 0.4369,
        "next_coverage": 0.2751,
        "reply": 0.8622,
        "speaker_role": -0.0424,
        "named_speaker": 1.8884,
        "named_and_matching": 0.6572,
        "date": 1.6074,
        "alternatives": 0.1321,
        "short_turn": -0.2107,
        "asks": -0.718,
        "episode_first": 0.248,
        "first_person": 0.8147,
        "first_person_named": 0.6826,
        "first_person_statement": -0.6635,
        "first_person_coverage": 1.1765,
        "first_person_reply": -0.8331,
    }
)
