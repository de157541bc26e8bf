"""The notmuch mailing-list mail of the evaluation data, message by message.

Read in place: each ``.mbox.xz`` is decompressed to a temporary file (the
stdlib ``mailbox`` module needs a path) that is removed afterwards; nothing
is copied into the project. A message becomes one source: its subject and
sender as a header line, then the text/plain body up to the patch separator
(``---``), without quoted reply lines or the attribution line before them.
"""

import email.utils
import lzma
import mailbox
import re
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import Message
from pathlib import Path

__all__ = ["DEFAULT_MAIL", "Mail", "load_mail"]

DEFAULT_MAIL = Path("/work/shared/data/email")
_WROTE = re.compile(r"^.{0,120}\bwrote:\s*$")
_SPACE = re.compile(r"[ \t]+")


@dataclass(frozen=True)
class Mail:
    message_id: str
    subject: str
    sender: str
    sent_at: datetime | None
    content: str


def _body(message: Message) -> str:
    parts = message.walk() if message.is_multipart() else [message]
    for part in parts:
        if part.get_content_type() == "text/plain":
            payload = part.get_payload(decode=True)
            if isinstance(payload, bytes):
                charset = part.get_content_charset() or "utf-8"
                return payload.decode(charset, errors="replace")
    return ""


def _clean(body: str) -> str:
    lines = []
    for line in body.splitlines():
        if line.rstrip() in ("---", "--"):
            break  # a patch's diffstat or a signature follows
        if line.lstrip().startswith(">") or _WROTE.match(line):
            continue
        lines.append(_SPACE.sub(" ", line).rstrip())
    return "\n".join(lines).strip()


def _sent(message: Message) -> datetime | None:
    try:
        parsed = email.utils.parsedate_to_datetime(str(message.get("Date", "")))
    except (TypeError, ValueError):
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def load_mail(folder: Path = DEFAULT_MAIL) -> list[Mail]:
    """Every message of every ``*.mbox.xz`` in ``folder`` with a non-empty body, deduplicated."""
    seen: set[str] = set()
    out: list[Mail] = []
    for path in sorted(folder.glob("*.mbox.xz")):
        with tempfile.TemporaryDirectory() as tmp:
            plain = Path(tmp) / "mail.mbox"
            plain.write_bytes(lzma.decompress(path.read_bytes()))
            box = mailbox.mbox(plain, create=False)
            try:
                for message in box:
                    mid = str(message.get("Message-ID", "")).strip()
                    body = _clean(_body(message))
                    if not body or mid in seen:
                        continue
                    seen.add(mid)
                    subject = " ".join(str(message.get("Subject", "")).split())
                    sender = email.utils.parseaddr(str(message.get("From", "")))[0]
                    out.append(
                        Mail(
                            message_id=mid,
                            subject=subject,
                            sender=sender,
                            sent_at=_sent(message),
                            content=f"Subject: {subject}\nFrom: {sender}\n\n{body}",
                        )
                    )
            finally:
                box.close()
    return out
