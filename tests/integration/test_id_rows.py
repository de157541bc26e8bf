"""Each id's latest row, found by a search of a restored sorted order or in what was set since."""

import random

import pytest

from adapters.inprocess.id_rows import IdRows, sorted_order


def _restored(ids: list[str]) -> IdRows:
    return IdRows(ids, sorted_order(ids).data)


def test_a_restored_order_finds_every_id_at_its_latest_row() -> None:
    rng = random.Random(3)
    ids = [f"c{rng.randrange(400):04d}" for _ in range(1_000)]  # many held twice or more
    latest = {key: row for row, key in enumerate(ids)}
    rows = _restored(ids)
    assert all(rows[key] == row for key, row in latest.items())
    assert rows == latest and len(rows) == len(latest)
    assert IdRows(ids) == latest  # no order: the dict, built at once


def test_an_id_never_held_is_missing() -> None:
    rows = _restored(["b", "d", "f"])
    for key in ("a", "c", "e", "g", ""):
        assert rows.get(key) is None and key not in rows
        with pytest.raises(KeyError):
            rows[key]
    assert rows.get("a", -1) == -1 and 7 not in rows


def test_rows_set_after_the_restore_win_and_grow_the_list() -> None:
    ids = ["b", "a", "c"]
    rows = _restored(ids)
    ids.append("a")  # re-indexed: its new row is the one that answers
    rows["a"] = 3
    ids.append("z")
    rows["z"] = 4
    assert rows == {"a": 3, "b": 0, "c": 2, "z": 4}
    assert rows["b"] == 0 and "z" in rows


def test_an_empty_list_holds_nothing() -> None:
    for rows in (IdRows([]), _restored([])):
        assert rows.get("a") is None and len(rows) == 0 and list(rows) == []


def test_the_order_keeps_equal_ids_in_row_order() -> None:
    assert sorted_order(["b", "a", "b", "a"]).tolist() == [1, 3, 0, 2]
