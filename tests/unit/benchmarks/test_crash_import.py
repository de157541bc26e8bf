"""The crash benchmark's archive is one the jsonl import adapter reads in full."""

from pathlib import Path

from adapters.sources.jsonl import JsonlSourceAdapter
from application.imports.records import ImportRecord
from benchmarks.crash_import import write_archive


def test_every_session_becomes_one_conversation_with_its_turns(tmp_path: Path) -> None:
    sessions = [
        [{"role": "user", "content": "I moved to Lisbon in May."}],
        [
            {"role": "user", "content": "Which bike should I buy?"},
            {"role": "assistant", "content": "A steel touring frame, for \"comfort\"."},
        ],
    ]
    archive = tmp_path / "chats.jsonl"
    write_archive(archive, sessions)
    read = list(JsonlSourceAdapter().read(archive))
    assert all(isinstance(item, ImportRecord) for item in read)
    assert [len(item.turns) for item in read if isinstance(item, ImportRecord)] == [1, 2]
    texts = [t.content for item in read if isinstance(item, ImportRecord) for t in item.turns]
    assert texts == [turn["content"] for session in sessions for turn in session]
