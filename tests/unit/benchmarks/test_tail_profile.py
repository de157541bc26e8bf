"""The tail profiler picks questions from measured times only."""

from benchmarks.tail_profile import pick


def test_it_picks_the_worst_by_their_slowest_run_and_a_disjoint_median_control() -> None:
    times = {
        "a": [10.0, 12.0],
        "b": [40.0, 300.0],  # slow once: still picked by its worst run
        "c": [20.0, 22.0],
        "d": [25.0, 24.0],
        "e": [30.0, 31.0],
        "f": [150.0, 140.0],
        "g": [100.0, 100.0],
    }
    slow, control = pick(times, slowest=2, median=1)
    assert slow == ["b", "f"]
    assert control == ["d"]  # typical 11, 21, 24.5, 30.5, 100: median 24.5
    assert not set(slow) & set(control)


def test_with_every_question_picked_as_slow_there_is_no_control() -> None:
    slow, control = pick({"a": [1.0], "b": [2.0]}, slowest=5, median=2)
    assert slow == ["b", "a"]
    assert control == []
