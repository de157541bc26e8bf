from domain.explain import inclusion_reason


def test_reason_names_each_signal_and_rank_best_first() -> None:
    assert inclusion_reason({"vector": 3, "lexical": 1}) == (
        "matched the query's words (rank 1); close in meaning to the query (rank 3)"
    )
    assert inclusion_reason({}) == "no retrieval signal"
    assert inclusion_reason({"future_signal": 2}) == "future_signal (rank 2)"
    assert inclusion_reason({"graph": 2}) == (
        "reached from a matching promoted record through a relationship (rank 2)"
    )
