"""Headers read through the cheap ``email.utils`` path equal the policy parser's reading.

``adapters.sources.email_message`` reads plain headers (ASCII, no encoded words,
comments, groups or escapes) with ``email.utils`` because ``email.policy.default``
was most of the parse time; every other header still goes through the policy.
These tests hold the two ways equal: on headers built to probe the edges, and on
every message of the notmuch corpora (skipped, saying why, where the evaluation
data is absent).
"""

import email
import email.policy
import tarfile
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

import pytest

from adapters.sources.email_message import message_item
from application.imports.records import ImportRecord

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "email"

HEADERS = [
    ("From", "Alice Example <alice@example.org>"),
    ("From", "alice@example.org"),
    ("From", "John Q. Public <john@example.org>"),
    ("From", '"Last, First" <first@example.org>'),
    ("From", "bob@example.org (Bob Comment)"),
    ("From", "=?utf-8?q?J=C3=B6rg?= <joerg@example.de>"),
    ("To", "a@example.org, B <b@example.org>,\r\n\tC. D <c@example.org>"),
    ("To", "undisclosed-recipients:;"),
    ("To", "Team: x@example.org, y@example.org;"),
    ("Cc", ""),
    ("Cc", "<>"),
    ("Subject", "  Re:   [PATCH 1/2]\r\n   folded   subject  "),
    ("Subject", "=?iso-8859-1?q?Gr=FC=DFe?= aus Bern"),
    ("Date", "Tue, 3 Mar 2009 10:00:00 +0100"),
    ("Date", "Tue, 3 Mar 2009 10:00:00"),
    ("Date", "not a date"),
    ("Message-ID", "<id-1@example.org>"),
    ("References", "<a@x>\r\n <b@x> <c@x>"),
]


def _policy_reading(msg: EmailMessage) -> tuple[object, ...]:
    """What ``email.policy.default``'s header objects say, as the adapter once read them."""

    def addresses(name: str) -> list[str]:
        try:  # the stdlib parser raises on some broken lists; the adapter reads them as empty
            header = msg.get(name)
            found = getattr(header, "addresses", ()) if header is not None else ()
            return [str(a) for a in found if a.addr_spec or a.display_name]
        except Exception:
            return []

    def text(name: str) -> str:
        try:
            value = msg.get(name)
        except Exception:
            return ""
        return " ".join(str(value).split()) if value is not None else ""

    try:
        date = getattr(msg.get("Date"), "datetime", None)
    except Exception:
        date = None
    if isinstance(date, datetime) and date.tzinfo is None:
        date = date.replace(tzinfo=UTC)
    return (addresses("From"), addresses("To"), addresses("Cc"), text("Subject") or None, date)


def _adapter_reading(raw: bytes) -> tuple[object, ...]:
    item = message_item(raw, record_id="r", checkpoint="c", source_uri="u", labels=[])
    assert isinstance(item, ImportRecord)
    p = item.participants
    assert p is not None
    return (p.sender, p.to, p.cc, item.title, item.occurred_at)


def _message(name: str, value: str) -> bytes:
    base = {"From": "x@example.org", "Subject": "s", "Date": "Mon, 2 Mar 2009 09:00:00 +0000"}
    base[name] = value
    head = "".join(f"{k}: {v}\r\n" for k, v in base.items())
    return f"{head}Message-ID: <m@example.org>\r\n\r\nbody\r\n".encode("ascii")


@pytest.mark.parametrize(("name", "value"), HEADERS)
def test_edge_headers_read_as_the_policy_reads_them(name: str, value: str) -> None:
    raw = _message(name, value)
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    assert _adapter_reading(raw) == _policy_reading(msg)


@pytest.mark.skipif(
    not (DATA / "notmuch_corpora_default_lkml.tar.xz").is_file(),
    reason=f"the notmuch corpora are not at {DATA} (../shared is absent on this checkout)",
)
def test_every_corpus_message_reads_as_the_policy_reads_it(tmp_path: Path) -> None:
    with tarfile.open(DATA / "notmuch_corpora_default_lkml.tar.xz") as archive:
        archive.extractall(tmp_path, filter="data")
    files = sorted(p for p in tmp_path.rglob("*") if p.is_file() and "/.notmuch" not in str(p))
    compared = 0
    for path in files:
        raw = path.read_bytes()
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        if not isinstance(msg, EmailMessage) or not msg.keys():
            continue
        assert _adapter_reading(raw) == _policy_reading(msg), path.name
        compared += 1
    assert compared >= 263  # 210 lkml + 53 default messages
