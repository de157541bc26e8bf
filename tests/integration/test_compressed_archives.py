"""Compressed mailboxes and archives on real mail: read streaming, or refused with a reason.

The mail is the notmuch lkml corpus from the evaluation data (GPL, never
copied into the project): unpacked and compressed again at test time in
every format the readers take. 210 messages, 176 distinct Message-IDs (see
``test_notmuch_corpora.py``).
"""

import bz2
import gzip
import io
import lzma
import mailbox
import tarfile
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest
import zstandard

from adapters.sources.chatgpt import ChatGptSourceAdapter
from adapters.sources.compressed import archive_kind, open_decompressed
from adapters.sources.estimate import estimate_items
from adapters.sources.jsonl import JsonlSourceAdapter
from adapters.sources.maildir import MaildirSourceAdapter
from adapters.sources.mbox import MboxSourceAdapter, mbox_messages
from application.imports.records import ImportRecord
from domain.errors import InvalidInputError
from domain.reasons import ReasonCode
from tests.support import archives

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "email"

pytestmark = pytest.mark.skipif(
    not (DATA / "notmuch_lkml.mbox.xz").is_file(),
    reason=f"the notmuch corpora are not at {DATA} (../shared is absent on this checkout)",
)

COMPRESSORS: dict[str, Callable[[bytes], bytes]] = {
    ".xz": lzma.compress,
    ".gz": gzip.compress,
    ".bz2": bz2.compress,
    ".zst": lambda data: zstandard.ZstdCompressor().compress(data),
}


@pytest.fixture(scope="module")
def lkml(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The lkml mailbox, plain, outside the project."""
    path = tmp_path_factory.mktemp("lkml") / "lkml.mbox"
    path.write_bytes(lzma.decompress((DATA / "notmuch_lkml.mbox.xz").read_bytes()))
    return path


def _records(path: Path) -> list[ImportRecord]:
    return [i for i in MboxSourceAdapter().read(path) if isinstance(i, ImportRecord)]


def test_the_streaming_split_gives_the_bytes_the_standard_mailbox_module_gives(
    lkml: Path,
) -> None:
    box = mailbox.mbox(lkml, create=False)
    expected = [box.get_bytes(key) for key in box.iterkeys()]
    box.close()
    with lkml.open("rb") as stream:
        assert list(mbox_messages(stream)) == expected
    assert len(expected) == 210


@pytest.mark.parametrize("suffix", list(COMPRESSORS))
def test_a_compressed_mailbox_reads_as_the_plain_one(lkml: Path, suffix: str) -> None:
    plain = _records(lkml)
    packed = lkml.with_name(f"lkml.mbox{suffix}")
    packed.write_bytes(COMPRESSORS[suffix](lkml.read_bytes()))
    MboxSourceAdapter().check(packed)
    records = _records(packed)
    assert len(records) == 210 and len({r.dedupe_key for r in records}) == 176
    assert [r.dedupe_key for r in records] == [r.dedupe_key for r in plain]
    assert [r.content for r in records] == [r.content for r in plain]
    assert estimate_items("mbox", packed) == 210
    resumed = list(MboxSourceAdapter().read(packed, after=records[99].checkpoint))
    assert [i.checkpoint for i in resumed] == [r.checkpoint for r in records[100:]]


def test_the_bytes_tell_the_compression_when_the_name_does_not(lkml: Path) -> None:
    unnamed = lkml.with_name("lkml-zstd.mbox")
    unnamed.write_bytes(COMPRESSORS[".zst"](lkml.read_bytes()))
    assert archive_kind(unnamed).compression == "zstd"
    assert len(_records(unnamed)) == 210


def _refused(call: Callable[[], object]) -> str:
    with pytest.raises(InvalidInputError) as refused:
        call()
    assert refused.value.reason is ReasonCode.UNSUPPORTED_ARCHIVE
    return refused.value.detail


def test_what_is_not_understood_is_refused_as_unsupported(lkml: Path, tmp_path: Path) -> None:
    lying = tmp_path / "lkml.mbox.xz"  # gzip bytes under an xz name
    lying.write_bytes(gzip.compress(lkml.read_bytes()))
    assert "xz" in _refused(lambda: MboxSourceAdapter().check(lying))
    real_tar = DATA / "notmuch_corpora_default_lkml.tar.xz"
    assert "tar" in _refused(lambda: MboxSourceAdapter().check(real_tar))
    assert "tar" in _refused(lambda: MaildirSourceAdapter().check(real_tar))
    zipped = tmp_path / "chats.jsonl"
    with zipfile.ZipFile(zipped, "w") as archive:
        archive.writestr("chats.jsonl", "{}\n")
    assert "zip" in _refused(lambda: JsonlSourceAdapter().check(zipped))
    seven = tmp_path / "mail.mbox"
    seven.write_bytes(b"7z\xbc\xaf\x27\x1c" + bytes(64))
    assert "7z" in _refused(lambda: MboxSourceAdapter().check(seven))
    assert "7z" in _refused(lambda: list(MboxSourceAdapter().read(seven)))


def test_damaged_compressed_data_fails_the_read_with_a_reason(lkml: Path, tmp_path: Path) -> None:
    cut = tmp_path / "cut.mbox.xz"
    cut.write_bytes(lzma.compress(lkml.read_bytes())[:20_000])
    MboxSourceAdapter().check(cut)  # its start is fine
    assert "damaged" in _refused(lambda: list(MboxSourceAdapter().read(cut)))


def test_compressed_chat_exports_are_read(tmp_path: Path) -> None:
    jsonl = archives.build_jsonl(tmp_path).path
    packed = tmp_path / "chats.jsonl.gz"
    packed.write_bytes(gzip.compress(jsonl.read_bytes()))
    plain_keys = [i.checkpoint for i in JsonlSourceAdapter().read(jsonl)]
    assert [i.checkpoint for i in JsonlSourceAdapter().read(packed)] == plain_keys
    export = archives.build_chatgpt(tmp_path).path
    folder = tmp_path / "compressed export"
    folder.mkdir()
    plain = (export / "conversations.json").read_bytes()
    (folder / "conversations.json.bz2").write_bytes(bz2.compress(plain))
    records = [i for i in ChatGptSourceAdapter().read(folder) if isinstance(i, ImportRecord)]
    expected = [i for i in ChatGptSourceAdapter().read(export) if isinstance(i, ImportRecord)]
    assert [r.dedupe_key for r in records] == [r.dedupe_key for r in expected] != []


def test_a_large_compressed_mailbox_is_read_without_holding_it(tmp_path: Path) -> None:
    message = b"From x\nSubject: s\n\n" + b"a line of mail text\n" * 200 + b"\n"
    size = 48 * 1024 * 1024
    path = tmp_path / "big.mbox.zst"
    compressor = zstandard.ZstdCompressor(level=1)
    with path.open("wb") as out, compressor.stream_writer(out) as writer:
        for _ in range(size // len(message)):
            writer.write(message)
    tracemalloc.start()
    try:
        with open_decompressed(path) as stream:
            count = sum(1 for _ in mbox_messages(stream))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == size // len(message)
    assert peak < 2 * 1024 * 1024, peak  # a 48 MB mailbox, never more than 2 MB at once


def test_a_tarred_maildir_is_named_for_what_it_is(tmp_path: Path) -> None:
    maildir = archives.build_maildir(tmp_path).path
    packed = io.BytesIO()
    with tarfile.open(fileobj=packed, mode="w") as tarred:
        tarred.add(maildir, arcname="mail")
    archive = tmp_path / "mail.tar.zst"
    archive.write_bytes(zstandard.ZstdCompressor().compress(packed.getvalue()))
    assert archive_kind(archive).container == "tar"
    assert "upload it" in _refused(lambda: MaildirSourceAdapter().check(archive))
    assert msgspec.json.encode(archive_kind(archive)) == b'{"compression":"zstd","container":"tar"}'
