"""One RFC 5322 message as an import record: shared by the mbox and maildir adapters.

Why lenient: real mailboxes hold broken headers and odd charsets, and one bad
message must never stop an import. Whatever cannot be read is left out (a
date becomes unknown, an address list empty); a message with no headers at
all is skipped as malformed, one with no text as empty.

Why headers are read two ways: ``email.policy.default`` builds a parsed header
object on every ``msg.get`` and that was about three quarters of the parse time
of the lkml Maildir (cProfile). A plain header (ASCII, no encoded
words, no comments, groups or escapes) reads the same through the cheap
``email.utils`` functions, so those take the raw value (``fast_headers``); any
other header still goes through the policy's parser. A test compares both ways
on every message of the notmuch corpora.
"""

import email
import email.policy
import email.utils
import hashlib
from collections.abc import Iterator
from datetime import UTC, datetime
from email.message import EmailMessage, Message

from adapters.sources.html_text import html_to_text
from application.imports.records import (
    AttachmentInfo,
    ImportRecord,
    Participants,
    ReadItem,
    SkippedRecord,
    SkipReason,
    ThreadIds,
    content_key,
    message_id_key,
)
from application.memory.limits import MAX_CONTENT_CHARS
from domain.scopes import SourceType

__all__ = ["message_item"]

#: headers some exporters use for labels (Gmail takeout, Thunderbird, Dovecot)
_LABEL_HEADERS = ("X-Gmail-Labels", "X-Keywords", "X-Label")


def message_item(
    raw: bytes, *, record_id: str, checkpoint: str, source_uri: str, labels: list[str]
) -> ReadItem:
    """The record for ``raw`` (a message's bytes), or the reason it is skipped."""
    try:
        msg = email.message_from_bytes(raw, policy=email.policy.default)
    except Exception as exc:  # the parser is lenient; anything it raises is a broken message
        return _skip(record_id, checkpoint, SkipReason.MALFORMED, type(exc).__name__)
    if not isinstance(msg, EmailMessage) or not msg.keys():
        return _skip(record_id, checkpoint, SkipReason.MALFORMED, "the message has no headers")
    subject = _header(msg, "Subject")
    body, body_part = _body(msg)
    attachments, attachment_texts = _attachments(msg, body_part)
    content = _compose(subject, body, attachment_texts)
    if not content.strip():
        return _skip(record_id, checkpoint, SkipReason.EMPTY, "no subject, body or text attachment")
    message_id = _ids(msg, "Message-ID")
    dedupe = message_id_key(message_id[0]) if message_id else content_key(raw)
    return ImportRecord(
        record_id=record_id,
        dedupe_key=dedupe,
        checkpoint=checkpoint,
        source_type=SourceType.EMAIL,
        source_uri=source_uri,
        content=content,
        title=subject or None,
        occurred_at=_date(msg),
        participants=Participants(
            sender=_addresses(msg, "From"), to=_addresses(msg, "To"), cc=_addresses(msg, "Cc")
        ),
        thread=ThreadIds(
            message_id=message_id[0] if message_id else None,
            in_reply_to=next(iter(_ids(msg, "In-Reply-To")), None),
            references=_ids(msg, "References"),
        ),
        labels=_labels(msg, labels),
        attachments=attachments,
    )


def _skip(record_id: str, checkpoint: str, reason: SkipReason, detail: str) -> SkippedRecord:
    return SkippedRecord(record_id=record_id, checkpoint=checkpoint, reason=reason, detail=detail)


def _plain(msg: Message, name: str, unsafe: str = "") -> str | None:
    """The unfolded raw value of a plain header, "" if absent; None when only the policy's
    parser reads it right (not ASCII, encoded words, any of ``unsafe``, repeated)."""
    values = [v for k, v in msg.raw_items() if k.lower() == name.lower()]
    if not values:
        return ""
    raw = values[0]
    if len(values) > 1 or not raw.isascii() or "=?" in raw or any(c in raw for c in unsafe):
        return None
    return "".join(raw.splitlines())


def _header(msg: Message, name: str) -> str:
    raw = _plain(msg, name)
    if raw is not None:
        return " ".join(raw.split())
    try:
        value = msg.get(name)
    except Exception:  # a header the policy cannot parse reads as absent
        return ""
    return " ".join(str(value).split()) if value is not None else ""


def _ids(msg: Message, name: str) -> list[str]:
    """Message ids in a header, without brackets; a bare id without brackets counts too."""
    value = _header(msg, name)
    ids: list[str] = []
    for token in value.replace(">", "> ").split():
        token = token.strip().strip("<>,").strip()
        if "@" in token and token not in ids:
            ids.append(token)
    if not ids and value and name == "Message-ID":
        ids.append(value.strip("<> "))
    return ids


#: RFC 5322 specials: a display name holding one is quoted (as ``Address.__str__`` does)
_SPECIALS = frozenset('()<>@,:;.\\"[]')


def _address(display: str, addr_spec: str) -> str:
    if display and not _SPECIALS.isdisjoint(display):
        display = '"' + display.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if display:
        return f"{display} <{'' if addr_spec == '<>' else addr_spec}>"
    return addr_spec


def _addresses(msg: Message, name: str) -> list[str]:
    raw = _plain(msg, name, unsafe='()\\:;"')  # comments, escapes, groups, quoted names
    if raw is not None and "<>" not in raw:  # the null address reads as "<>" to the policy
        pairs = email.utils.getaddresses([raw]) if raw.strip() else []
        return [_address(n, a) for n, a in pairs if a or n]
    try:
        header = msg.get(name)
        addresses = getattr(header, "addresses", ()) if header is not None else ()
        return [str(a) for a in addresses if a.addr_spec or a.display_name]
    except Exception:  # an unparseable address list reads as empty
        return []


def _date(msg: Message) -> datetime | None:
    raw = _plain(msg, "Date")
    try:
        if raw is not None:
            value = email.utils.parsedate_to_datetime(raw) if raw.strip() else None
        else:
            header = msg.get("Date")
            value = getattr(header, "datetime", None) if header is not None else None
    except Exception:  # an unparseable date reads as unknown
        return None
    if not isinstance(value, datetime):
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _labels(msg: Message, folders: list[str]) -> list[str]:
    labels = list(folders)
    for name in _LABEL_HEADERS:
        for label in _header(msg, name).split(","):
            label = label.strip()
            if label and label not in labels:
                labels.append(label)
    return labels


def _text_of(part: Message) -> str:
    try:
        text = part.get_content() if isinstance(part, EmailMessage) else None
    except Exception:  # an unknown charset or a broken transfer encoding
        text = None
    if not isinstance(text, str):
        payload = part.get_payload(decode=True)
        text = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else ""
    if part.get_content_subtype() == "html":
        text = html_to_text(text)
    return text.strip()


def _body(msg: EmailMessage) -> tuple[str, Message | None]:
    """The text part if there is one, else the HTML part as text."""
    try:
        part = msg.get_body(preferencelist=("plain", "html"))
    except Exception:  # a broken MIME tree has no body we can find
        part = None
    if part is None:
        return "", None
    return _text_of(part), part


def _leaves(part: Message, parent: str) -> Iterator[tuple[Message, str]]:
    """Every non-multipart part with its parent's content type, in document order.

    A forwarded message (``message/rfc822``) is one leaf: an attachment, not more body.
    """
    if part.get_content_maintype() == "multipart":
        for child in part.iter_parts() if isinstance(part, EmailMessage) else ():
            yield from _leaves(child, part.get_content_type())
    else:
        yield part, parent


def _attachments(
    msg: EmailMessage, body: Message | None
) -> tuple[list[AttachmentInfo], list[tuple[str, str]]]:
    """Every part but the body; text parts beside the body in an alternative are skipped."""
    infos: list[AttachmentInfo] = []
    texts: list[tuple[str, str]] = []
    if not msg.is_multipart():
        return infos, texts
    for part, parent in _leaves(msg, ""):
        if part is body:
            continue
        name = part.get_filename()
        attached = name is not None or part.get_content_disposition() == "attachment"
        is_text = part.get_content_maintype() == "text"
        if not attached and is_text and parent == "multipart/alternative":
            continue  # the HTML beside the text body (or the other way round)
        payload = part.get_payload(decode=True)
        data = payload if isinstance(payload, bytes) else part.as_bytes()
        infos.append(
            AttachmentInfo(
                filename=name,
                media_type=part.get_content_type(),
                size=len(data),
                sha256=hashlib.sha256(data).hexdigest(),
            )
        )
        if is_text:
            texts.append((name or part.get_content_type(), _text_of(part)))
    return infos, texts


def _compose(subject: str, body: str, attachments: list[tuple[str, str]]) -> str:
    """Subject, body, then the text attachments while they fit the content limit."""
    content = "\n\n".join(part for part in (subject, body) if part)
    for name, text in attachments:
        block = f"\n\n[attachment: {name}]\n{text}"
        if text and len(content) + len(block) <= MAX_CONTENT_CHARS:
            content += block
    return content[:MAX_CONTENT_CHARS]
