"""``tessera status``'s index line: what it says of an organisation's index in memory."""

from typing import Any

import pytest

from entrypoints.status_cli import print_status


def _status(index: dict[str, Any]) -> dict[str, Any]:
    return {
        "store_url_kind": "surrealkv",
        "engine": "embedded",
        "retrieval_index": "inprocess",
        "embedder_model": "minilm",
        "embedding_dimension": 384,
        "audit_pending": 0,
        "recent_errors": [],
        "organisations": [
            {"org_id": "o1", "name": "acme", "chunks": 10, "sources": 2, "index": index}
        ],
    }


_HELD = {
    "kind": "ivf",
    "resident": True,
    "resident_rows": 1_000_000,
    "resident_bytes": 2_000_000_000,
    "snapshot_bytes": 4_000_000_000,
    "snapshot_rows": 1_000_000,
    "snapshot_age_seconds": 40.0,
    "catch_up_lag": 0,
}


@pytest.mark.parametrize("retraining", [False, True])
def test_the_index_line_says_when_its_vector_index_is_retrained(
    retraining: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    print_status(_status({**_HELD, "retraining": retraining}), as_json=False)
    line = next(x for x in capsys.readouterr().out.splitlines() if "index: ivf" in x)
    assert "in memory: 1000000 rows, ~2000.0 MB (estimate)" in line
    assert ("retraining in the background" in line) is retraining


def test_a_status_from_before_the_field_prints_as_not_retraining(
    capsys: pytest.CaptureFixture[str],
) -> None:
    print_status(_status(dict(_HELD)), as_json=False)
    assert "retraining" not in capsys.readouterr().out
