"""Small archives of every import format, built at test time (nothing checked in).

Each builder returns the path and how many records and skips it holds, and
mixes in the cases adapters must handle: threads, an HTML-only message, a
text attachment, a duplicate Message-ID, a malformed item, an empty one.
"""

import mailbox
from email.message import EmailMessage
from pathlib import Path

import msgspec

from contracts.source_adapter import SourceSample

__all__ = [
    "build_chatgpt",
    "build_jsonl",
    "build_maildir",
    "build_markdown",
    "build_mbox",
    "messages",
]

#: an item with no header at all: the adapters must skip it as malformed
NOT_A_MESSAGE = b"this line is no header\n\njust text\n"


def _message(n: int, *, reply_to: int | None = None) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = f"Alice Example <alice{n}@example.org>"
    msg["To"] = "Bob <bob@example.org>, carol@example.org"
    msg["Cc"] = "Dan <dan@example.org>"
    msg["Subject"] = f"Budget plan {n}"
    msg["Date"] = f"Mon, {n + 1:02d} Mar 2024 10:00:00 +0100"
    msg["Message-ID"] = f"<m{n}@example.org>"
    if reply_to is not None:
        msg["In-Reply-To"] = f"<m{reply_to}@example.org>"
        msg["References"] = f"<m0@example.org> <m{reply_to}@example.org>"
    msg.set_content(f"Plain body number {n}.\n")
    return msg


def messages() -> list[EmailMessage | bytes]:
    """Six items: 4 plain/threaded, 1 HTML-only with attachments, 1 duplicate id, 1 malformed."""
    html = _message(3, reply_to=1)
    html.clear_content()
    html.set_content(
        "<html><body><p>Quarterly <b>numbers</b> &amp; notes</p>"
        "<script>var x = 1;</script></body></html>",
        subtype="html",
    )
    html.add_attachment("line one of the minutes\n", filename="minutes.txt")
    html.add_attachment(b"\x89PNG\r\n\x1a\n", maintype="image", subtype="png", filename="chart.png")
    duplicate = _message(1, reply_to=0)
    duplicate.replace_header("Subject", "Budget plan 1 (resent)")
    return [
        _message(0),
        _message(1, reply_to=0),
        _message(2, reply_to=1),
        html,
        NOT_A_MESSAGE,
        duplicate,
    ]


def _bytes(item: EmailMessage | bytes) -> bytes:
    return item if isinstance(item, bytes) else item.as_bytes()


def build_mbox(tmp_path: Path) -> SourceSample:
    path = tmp_path / "mail.mbox"
    box = mailbox.mbox(path)
    for item in messages():
        box.add(_bytes(item))
    box.close()
    return SourceSample(path=path, records=5, skipped=1)


def build_maildir(tmp_path: Path) -> SourceSample:
    root = tmp_path / "Maildir"
    box = mailbox.Maildir(root)
    work = box.add_folder("Work")
    for n, item in enumerate(messages()):
        (work if n % 2 else box).add(_bytes(item))
    box.close()
    (root / "dovecot-uidlist").write_text("3 V1 N1\n")
    return SourceSample(path=root, records=5, skipped=1)


def conversation(n: int, **extra: object) -> dict[str, object]:
    return {
        "id": f"c{n}",
        "title": f"Trip {n}",
        "created_at": "2024-05-01T09:00:00Z",
        "messages": [
            {
                "role": "user",
                "content": f"Where should we go {n}?",
                "speaker": "Ana",
                "created_at": "2024-05-01T09:00:00Z",
            },
            {"role": "assistant", "content": f"Lisbon, trip {n}.", "created_at": 1714554060},
        ],
        **extra,
    }


def build_jsonl(tmp_path: Path) -> SourceSample:
    path = tmp_path / "chats.jsonl"
    lines = [
        msgspec.json.encode(conversation(0)),
        b"",
        msgspec.json.encode(conversation(1)),
        b"{not json",
        msgspec.json.encode({"id": "x", "messages": [{"role": "tool", "content": "t"}]}),
        msgspec.json.encode({"id": "e", "messages": [{"role": "user", "content": "  "}]}),
        msgspec.json.encode(conversation(2)),
    ]
    path.write_bytes(b"\n".join(lines) + b"\n")
    return SourceSample(path=path, records=3, skipped=3)


def _node(
    node_id: str,
    parent: str | None,
    children: list[str],
    role: str | None,
    text: str | None,
    **meta: object,
) -> dict[str, object]:
    message = None
    if role is not None:
        message = {
            "id": node_id,
            "author": {"role": role, "name": None, "metadata": {}},
            "create_time": 1714554000.5,
            "content": {"content_type": "text", "parts": [text or ""]},
            "metadata": dict(meta),
        }
    return {"id": node_id, "message": message, "parent": parent, "children": children}


def chatgpt_conversation(n: int) -> dict[str, object]:
    """A tree with an edited prompt: the current branch holds the second version."""
    mapping = {
        "root": _node("root", None, ["sys"], None, None),
        "sys": _node(
            "sys", "root", ["u1", "u1b"], "system", "", is_visually_hidden_from_conversation=True
        ),
        "u1": _node("u1", "sys", ["a1"], "user", f"first draft question {n}"),
        "a1": _node("a1", "u1", [], "assistant", "answer to the draft"),
        "u1b": _node("u1b", "sys", ["a1b"], "user", f"edited question {n}"),
        "a1b": _node("a1b", "u1b", ["t1"], "assistant", f"answer to the edit {n}"),
        "t1": _node("t1", "a1b", ["a2"], "tool", "search results"),
        "a2": _node("a2", "t1", [], "assistant", f"final answer {n}"),
    }
    return {
        "title": f"Chat {n}",
        "create_time": 1714554000.0,
        "update_time": 1714554100.0,
        "mapping": mapping,
        "current_node": "a2",
        "conversation_id": f"conv-{n}",
        "default_model_slug": "gpt-4o",
    }


def build_chatgpt(tmp_path: Path) -> SourceSample:
    folder = tmp_path / "export"
    folder.mkdir()
    broken = chatgpt_conversation(9)
    broken["current_node"] = "nowhere"
    data = [chatgpt_conversation(0), broken, chatgpt_conversation(1), "not a conversation"]
    (folder / "conversations.json").write_bytes(msgspec.json.encode(data))
    return SourceSample(path=folder, records=2, skipped=2)


def build_markdown(tmp_path: Path) -> SourceSample:
    root = tmp_path / "vault"
    (root / "projects" / "deep").mkdir(parents=True)
    (root / ".obsidian").mkdir()
    (root / ".obsidian" / "workspace.md").write_text("# not a note\n")
    (root / "inbox.md").write_text(
        "---\ntitle: Inbox\ntags: [budget, q1]\ndate: 2024-03-05\nnested: {a: 1}\n---\n"
        "# Heading\n\nCall the bank about the budget.\n"
    )
    (root / "projects" / "plan.txt").write_text("A plain text plan.\n")
    (root / "projects" / "deep" / "idea.md").write_text("# Idea\n\nA deeper thought.\n")
    (root / "broken-front.md").write_text("---\nkey: [unclosed\n---\nBody survives.\n")
    (root / "empty.md").write_text("---\ntitle: Nothing\n---\n\n")
    (root / "latin1.md").write_bytes("caf\xe9 au lait".encode("latin-1"))
    (root / "image.png").write_bytes(b"\x89PNG")
    return SourceSample(path=root, records=4, skipped=2)
