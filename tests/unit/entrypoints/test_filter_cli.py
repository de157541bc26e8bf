"""The CLI's filter flags build the API's ``filters`` object."""

import argparse

import pytest

from entrypoints.filter_cli import add_filter_arguments, filters_body


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_filter_arguments(parser)
    return parser.parse_args(list(argv))


def test_no_flag_sends_no_filters() -> None:
    assert filters_body(_parse()) is None


def test_flags_become_the_filters_object() -> None:
    args = _parse(
        "--type", "email", "--type", "note", "--type", "email",
        "--from", "alice", "--to", "bob", "--cc", "carol", "--speaker", "Maya",
        "--participant", "dan", "--since", "2024-03-01", "--until", "2024-03-31",
        "--scope", "project", "--scope-key", "apollo", "--import", "imp1",
        "--meta", "labels=work", "--meta", "priority=2", "--meta", "urgent=true",
        "--meta", 'code="007"', "--meta", "note=a=b",
    )  # fmt: skip
    assert filters_body(args) == {
        "scope": "project",
        "scope_key": "apollo",
        "source_type": ["email", "note"],
        "import_id": "imp1",
        "participants": {
            "from": "alice",
            "to": "bob",
            "cc": "carol",
            "speaker": "Maya",
            "any": "dan",
        },
        "occurred_at": {"from": "2024-03-01", "to": "2024-03-31"},
        "metadata": {"labels": "work", "priority": 2, "urgent": True, "code": "007", "note": "a=b"},
    }


def test_a_meta_flag_without_a_key_stops_the_command() -> None:
    with pytest.raises(SystemExit, match="KEY=VALUE"):
        filters_body(_parse("--meta", "work"))
