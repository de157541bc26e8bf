"""The search walk: the calls that receive the question, and the files they enter."""

import asyncio

from benchmarks.search_walk import QUESTION, Walk, walk


def test_a_walk_counts_a_file_once_per_entry_not_per_stop() -> None:
    files = ["a.py", "a.py", "b.py", "a.py", "c.py", "c.py"]
    summary = Walk(stops=[f"{f}:f" for f in files], files=files).summary()
    assert summary["stops"] == 6 and summary["files"] == 3
    assert summary["file_entries"] == 4
    assert summary["most_entered"][0] == ("a.py", 2)


def test_the_walk_of_a_real_search_starts_at_the_service_and_names_each_stop_once() -> None:
    traced = asyncio.run(walk())
    assert traced.stops[0] == "application/memory/service.py:MemoryService.search"
    assert any(s.startswith("application/retrieval/pipeline.py:") for s in traced.stops)
    # a coroutine resumed after an await is the same stop
    assert traced.stops.count("application/memory/service.py:MemoryService.search") == 1
    assert all(not s.startswith(("benchmarks/", "tests/")) for s in traced.stops)
    assert QUESTION.endswith("?")
