"""``tessera import`` as a user runs it: a real process, the real store, Ctrl-C and resume."""

import json
import signal
import subprocess
import time
from pathlib import Path

import msgspec
import pytest

from tests.e2e.conftest import TESSERA, free_port, start_listening, tessera_env
from tests.support import archives

pytestmark = pytest.mark.slow


def _run(data_dir: Path, *args: str, key: str | None = None) -> subprocess.CompletedProcess[str]:
    extra = {} if key is None else {"TESSERA_API_KEY": key}
    return subprocess.run(
        [*TESSERA, "import", *args],
        env=tessera_env(data_dir, **extra),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_start_status_list_and_a_reimport_that_adds_nothing(tmp_path: Path) -> None:
    mbox = archives.build_mbox(tmp_path).path
    out = _run(tmp_path / "data", "start", str(mbox), "--adapter", "mbox")
    assert out.returncode == 0, out.stderr
    assert "completed" in out.stdout and "written 4, duplicates 1, skipped 1" in out.stdout
    assert "skipped message 4 of mail.mbox: not readable" in out.stdout
    assert "importing" in out.stderr and "6/6" in out.stderr  # the progress bar

    again = _run(tmp_path / "data", "start", str(mbox), "--adapter", "mbox", "--json")
    assert again.returncode == 0, again.stderr
    record = json.loads(again.stdout)
    assert record["status"] == "completed"
    assert (record["counters"]["written"], record["counters"]["duplicates"]) == (0, 5)

    status = _run(tmp_path / "data", "status", record["id"], "--json")
    assert json.loads(status.stdout) == record
    listed = json.loads(_run(tmp_path / "data", "list", "--json").stdout)
    assert listed[0]["id"] == record["id"] and len(listed) == 2

    missing = _run(tmp_path / "data", "start", str(tmp_path / "none.mbox"), "--adapter", "mbox")
    assert missing.returncode == 2 and "not_found" in missing.stderr
    unknown = _run(tmp_path / "data", "status", "nope")
    assert unknown.returncode == 2 and "not_found" in unknown.stderr


def test_the_format_is_told_by_the_archive_when_not_named(tmp_path: Path) -> None:
    mbox = archives.build_mbox(tmp_path).path
    renamed = mbox.rename(tmp_path / "download")  # a name that says nothing
    out = _run(tmp_path / "data", "start", str(renamed))
    assert out.returncode == 0, out.stderr
    assert "read as mbox" in out.stderr and "written 4" in out.stdout

    photo = tmp_path / "photo.png"
    photo.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    unknown = _run(tmp_path / "data", "start", str(photo))
    assert unknown.returncode == 2
    assert "says its format: name it with --adapter" in unknown.stderr
    missing = _run(tmp_path / "data", "start", str(tmp_path / "gone"))
    assert missing.returncode == 2 and "not_found" in missing.stderr


def test_ctrl_c_pauses_the_import_and_resume_finishes_it(tmp_path: Path) -> None:
    # enough that the import cannot finish in the second before the interrupt: with
    # 1,200, full-suite runs sometimes saw the import done and exit 0 instead of 130
    n = 5000
    chats = tmp_path / "chats.jsonl"
    chats.write_bytes(b"\n".join(msgspec.json.encode(archives.conversation(i)) for i in range(n)))
    proc = subprocess.Popen(
        [*TESSERA, "import", "start", str(chats), "--adapter", "jsonl"],
        env=tessera_env(tmp_path / "data"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C as a terminal gives it: a suite started in the background by a shell without
        # job control inherits SIGINT ignored, and Python then never sees the interrupt
        preexec_fn=_default_sigint,
    )
    assert proc.stderr is not None
    deadline = time.monotonic() + 120
    line = ""
    while not line.startswith("Import ") and time.monotonic() < deadline:
        line = proc.stderr.readline()  # the key notice of a first start comes before it
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    import_id = line.split()[1]
    assert f"tessera import resume {import_id}" in err and "Traceback" not in err
    assert "paused" in out

    paused = json.loads(_run(tmp_path / "data", "status", import_id, "--json").stdout)
    assert paused["status"] == "paused" and 0 < paused["counters"]["read"] < n

    done = _run(tmp_path / "data", "resume", import_id, "--json")
    assert done.returncode == 0, done.stderr
    counters = json.loads(done.stdout)["counters"]
    assert (counters["read"], counters["written"], counters["duplicates"]) == (n, n, 0)


def test_a_running_service_imports_only_paths_in_the_organisations_area(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    port = free_port()
    proc = start_listening(
        ["serve", "--port", str(port)],
        tessera_env(data_dir),
        f"http://127.0.0.1:{port}/api/health",
    )
    try:
        outside = archives.build_mbox(tmp_path).path
        refused = _run(data_dir, "start", str(outside), "--adapter", "mbox")
        assert refused.returncode == 2
        assert "path_outside_import_root" in refused.stderr and str(data_dir) in refused.stderr

        area = data_dir / "imports" / "local" / "files"  # the service made it, owner-only
        assert str(area) in refused.stderr and area.stat().st_mode & 0o777 == 0o700
        inside = archives.build_mbox(area).path
        out = _run(data_dir, "start", str(inside), "--adapter", "mbox")
        assert out.returncode == 0, out.stderr
        assert f"service at http://127.0.0.1:{port}" in out.stderr
        assert "completed" in out.stdout and "written 4" in out.stdout

        # a member's CLI imports nothing by path: not the owner's file, not the area
        admin = [*TESSERA, "admin"]
        env = tessera_env(data_dir)
        subprocess.run([*admin, "user", "create", "bob"], env=env, check=True, timeout=120)
        bob = subprocess.run(
            [*admin, "key", "create", "--principal", "bob"],
            env=env, capture_output=True, text=True, check=True, timeout=120,
        ).stdout.split()[-1]  # fmt: skip
        for path in (str(inside), str(area)):
            member = _run(data_dir, "start", path, "--adapter", "mbox", key=bob)
            assert member.returncode == 4 and "path_import_not_allowed" in member.stderr
        listed = _run(data_dir, "list", "--json", key=bob)
        assert json.loads(listed.stdout) == []
    finally:
        proc.terminate()
        proc.wait(timeout=30)


MAIL = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "email"


@pytest.mark.skipif(
    not (MAIL / "notmuch_lkml.mbox.xz").is_file(),
    reason=f"the notmuch corpora are not at {MAIL} (../shared is absent on this checkout)",
)
def test_a_compressed_mailbox_imports_and_reading_nothing_is_a_warning(tmp_path: Path) -> None:
    out = _run(tmp_path / "data", "start", str(MAIL / "notmuch_lkml.mbox.xz"), "--adapter", "mbox")
    assert out.returncode == 0, out.stderr
    assert "read 210, written 176, duplicates 34" in out.stdout and "warning" not in out.stdout
    assert "210/210" in out.stderr  # the bar's total counts the decompressed messages

    chats = archives.build_jsonl(tmp_path).path
    nothing = _run(tmp_path / "data", "start", str(chats), "--adapter", "mbox")
    assert nothing.returncode == 0, nothing.stderr
    assert "completed" in nothing.stdout and "read 0" in nothing.stdout
    assert "[warning: no_records_read]" in nothing.stdout
    assert "warning: the archive held no record the mbox adapter reads" in nothing.stdout

    seven = tmp_path / "mail.mbox"
    seven.write_bytes(b"7z\xbc\xaf\x27\x1c" + bytes(64))
    refused = _run(tmp_path / "data", "start", str(seven), "--adapter", "mbox")
    assert refused.returncode == 2 and "unsupported_archive" in refused.stderr
