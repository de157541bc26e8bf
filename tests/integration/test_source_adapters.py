"""What each source adapter makes of its format, beyond the shared contract."""

import mailbox
import shutil
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

import msgspec
import pytest

from adapters.sources.chatgpt import ChatGptSourceAdapter
from adapters.sources.html_text import html_to_text
from adapters.sources.jsonl import JsonlSourceAdapter
from adapters.sources.maildir import MaildirSourceAdapter
from adapters.sources.markdown import MarkdownSourceAdapter
from adapters.sources.mbox import MboxSourceAdapter
from application.imports.records import ImportRecord, ReadItem
from domain.errors import InvalidInputError
from domain.reasons import ReasonCode
from tests.support import archives


def _records(items: list[ReadItem]) -> list[ImportRecord]:
    return [i for i in items if isinstance(i, ImportRecord)]


def test_html_becomes_text_without_scripts_or_tags() -> None:
    text = html_to_text(
        "<html><head><style>p{}</style></head><body><h1>Title</h1><p>A&nbsp;&amp; B</p>"
        "<script>alert(1)</script><ul><li>one</li><li>two</li></ul></body></html>"
    )
    assert text == "Title\n\nA & B\n\none\ntwo"


def test_an_html_only_message_is_read_as_text_with_its_attachments(tmp_path: Path) -> None:
    records = _records(list(MboxSourceAdapter().read(archives.build_mbox(tmp_path).path)))
    html = next(r for r in records if r.thread and r.thread.message_id == "m3@example.org")
    assert "Quarterly numbers & notes" in html.content
    assert "<" not in html.content and "var x" not in html.content
    assert "[attachment: minutes.txt]\nline one of the minutes" in html.content
    assert [(a.filename, a.media_type, a.size) for a in html.attachments] == [
        ("minutes.txt", "text/plain", 24),
        ("chart.png", "image/png", 8),
    ]
    assert html.occurred_at == datetime(2024, 3, 4, 9, 0, tzinfo=UTC)
    assert html.participants is not None
    assert html.participants.to == ["Bob <bob@example.org>", "carol@example.org"]


def test_a_message_without_id_or_date_gets_a_content_key_and_no_time(tmp_path: Path) -> None:
    msg = EmailMessage()
    msg["Subject"] = "no id"
    msg["Date"] = "not a date"
    msg.set_content("body")
    path = tmp_path / "m.mbox"
    box = mailbox.mbox(path)
    box.add(msg.as_bytes())
    box.add(msg.as_bytes())
    box.close()
    first, second = _records(list(MboxSourceAdapter().read(path)))
    assert first.dedupe_key.startswith("sha256:")
    assert first.dedupe_key == second.dedupe_key
    assert first.occurred_at is None
    assert first.thread is not None and first.thread.message_id is None


def test_mail_appended_to_an_mbox_is_read_on_resume(tmp_path: Path) -> None:
    sample = archives.build_mbox(tmp_path)
    adapter = MboxSourceAdapter()
    last = list(adapter.read(sample.path))[-1].checkpoint
    box = mailbox.mbox(sample.path)
    box.add(b"Subject: late\n\nlate mail\n")
    box.close()
    (late,) = list(adapter.read(sample.path, after=last))
    assert isinstance(late, ImportRecord) and late.title == "late"


def test_a_maildir_message_moved_and_flagged_keeps_its_place(tmp_path: Path) -> None:
    sample = archives.build_maildir(tmp_path)
    adapter = MaildirSourceAdapter()
    before = list(adapter.read(sample.path))
    for file in (sample.path / "new").iterdir():
        file.rename(sample.path / "cur" / f"{file.name}:2,S")
    after = list(adapter.read(sample.path))
    assert [i.checkpoint for i in after] == [i.checkpoint for i in before]
    assert [getattr(i, "dedupe_key", None) for i in after] == [
        getattr(i, "dedupe_key", None) for i in before
    ]
    assert list(adapter.read(sample.path, after=before[0].checkpoint)) == after[1:]


def test_maildir_reads_loose_trees_and_ignores_server_files(tmp_path: Path) -> None:
    root = tmp_path / "mail"
    (root / "lists" / "dev").mkdir(parents=True)
    (root / "tmp").mkdir()
    message = archives.messages()[0]
    assert isinstance(message, EmailMessage)
    (root / "lists" / "dev" / "01:2,").write_bytes(message.as_bytes())
    (root / "tmp" / "half-written").write_bytes(b"Subject: x\n\npartial")
    (root / ".notmuch").mkdir()
    (root / ".notmuch" / "db").write_bytes(b"binary")
    (root / "dovecot-uidlist").write_text("3 V1\n")
    (record,) = list(MaildirSourceAdapter().read(root))
    assert isinstance(record, ImportRecord)
    assert record.labels == ["lists/dev"]
    assert record.source_uri == "maildir:lists/dev/01"


def test_jsonl_keeps_speakers_and_reads_both_time_forms(tmp_path: Path) -> None:
    records = _records(list(JsonlSourceAdapter().read(archives.build_jsonl(tmp_path).path)))
    first = records[0]
    assert first.turns is not None
    assert [(t.role, t.speaker) for t in first.turns] == [("user", "Ana"), ("assistant", None)]
    assert first.turns[0].occurred_at == datetime(2024, 5, 1, 9, 0, tzinfo=UTC)
    assert first.turns[1].occurred_at == datetime(2024, 5, 1, 9, 1, tzinfo=UTC)
    assert first.title == "Trip 0"
    assert first.metadata()["conversation_id"] == "c0"


def test_a_naive_time_is_read_as_utc(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    line = {"messages": [{"role": "user", "content": "hi", "created_at": "2024-05-01T09:00:00"}]}
    path.write_bytes(msgspec.json.encode(line))
    (record,) = _records(list(JsonlSourceAdapter().read(path)))
    assert record.occurred_at == datetime(2024, 5, 1, 9, 0, tzinfo=UTC)


def test_chatgpt_follows_the_current_branch_and_leaves_tools_out(tmp_path: Path) -> None:
    sample = archives.build_chatgpt(tmp_path)
    adapter = ChatGptSourceAdapter()
    first = _records(list(adapter.read(sample.path)))[0]
    assert first.turns is not None
    assert [(t.role, t.content) for t in first.turns] == [
        ("user", "edited question 0"),
        ("assistant", "answer to the edit 0"),
        ("assistant", "final answer 0"),
    ]
    assert first.metadata()["model"] == "gpt-4o"
    # the file itself works as well as the export folder
    assert list(adapter.read(sample.path / "conversations.json")) == list(adapter.read(sample.path))


def test_chatgpt_without_current_node_takes_the_last_leaf(tmp_path: Path) -> None:
    conversation = archives.chatgpt_conversation(0)
    del conversation["current_node"]
    path = tmp_path / "conversations.json"
    path.write_bytes(msgspec.json.encode([conversation]))
    (record,) = _records(list(ChatGptSourceAdapter().read(path)))
    assert record.turns is not None and record.turns[-1].content == "final answer 0"


def test_a_broken_chatgpt_file_is_refused_as_input(tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    path.write_text("{broken")
    with pytest.raises(InvalidInputError):
        list(ChatGptSourceAdapter().read(path))


def test_markdown_front_matter_becomes_metadata(tmp_path: Path) -> None:
    sample = archives.build_markdown(tmp_path)
    records = {r.record_id: r for r in _records(list(MarkdownSourceAdapter().read(sample.path)))}
    assert sorted(records) == [
        "broken-front.md",
        "inbox.md",
        "projects/deep/idea.md",
        "projects/plan.txt",
    ]
    inbox = records["inbox.md"]
    assert inbox.content.startswith("# Heading")
    assert inbox.title == "Inbox"
    assert inbox.occurred_at == datetime(2024, 3, 5, tzinfo=UTC)
    assert inbox.metadata() == {"title": "Inbox", "tags": ["budget", "q1"], "date": "2024-03-05"}
    assert records["projects/deep/idea.md"].title == "Idea"
    assert records["projects/deep/idea.md"].labels == ["projects/deep"]
    assert records["broken-front.md"].content.startswith("---\nkey: [unclosed")


def test_a_checkpoint_of_another_adapter_is_refused(tmp_path: Path) -> None:
    sample = archives.build_jsonl(tmp_path)
    with pytest.raises(InvalidInputError) as caught:
        list(JsonlSourceAdapter().read(sample.path, after="mbox:1"))
    assert caught.value.reason == ReasonCode.INVALID_CHECKPOINT


def test_copies_of_an_archive_read_alike(tmp_path: Path) -> None:
    """Dedupe keys do not depend on where the archive lies: a re-import of a copy adds nothing."""
    (tmp_path / "a").mkdir()
    sample = archives.build_maildir(tmp_path / "a")
    copy = tmp_path / "b"
    shutil.copytree(sample.path, copy)
    adapter = MaildirSourceAdapter()
    keys = [r.dedupe_key for r in _records(list(adapter.read(sample.path)))]
    assert keys == [r.dedupe_key for r in _records(list(adapter.read(copy)))]
