"""The CLI and ``serve`` as a new user meets them."""

import json
import subprocess
from pathlib import Path

import pytest

from tests.e2e.conftest import TESSERA, free_port, start_listening, tessera_env

pytestmark = pytest.mark.slow


def _run(
    data_dir: Path, *args: str, stdin: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TESSERA, *args],
        env=tessera_env(data_dir, **env),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_inspect_encodes_the_id_and_never_reaches_another_route(tmp_path: Path) -> None:
    assert _run(tmp_path, "remember", "The boiler was serviced in May.").returncode == 0
    for odd in ("../spaces", "..", "x/../../spaces", "a?b=c", "%2e%2e"):
        out = _run(tmp_path, "inspect", odd)
        assert out.returncode == 2, (odd, out.stdout, out.stderr)
        assert "not_found" in out.stderr and out.stdout == ""


def test_a_closed_pipe_ends_the_command_quietly(tmp_path: Path) -> None:
    # more than a pipe holds (64 KiB), so the writer meets the closed pipe for sure
    out = _run(tmp_path, "remember", "-", "--json", stdin="Words and more words. " * 6000)
    assert out.returncode == 0, out.stderr
    source_id = json.loads(out.stdout)["source_id"]
    proc = subprocess.run(
        f"{' '.join(TESSERA)} inspect --json {source_id} | head -c 10",
        shell=True,
        env=tessera_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.stdout == '{\n  "sourc'[:10]
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr


def test_a_stale_server_file_does_not_break_the_cli(tmp_path: Path) -> None:
    # after a crash: a server file whose process is alive but no longer this service
    (tmp_path / "server.json").write_text(
        json.dumps({"pid": 1, "url": f"http://127.0.0.1:{free_port()}"})
    )
    out = _run(tmp_path, "remember", "The spare fuse is in the hall cupboard.")
    assert out.returncode == 0, out.stderr
    assert "in-process" in out.stdout
    assert not (tmp_path / "server.json").exists()
    assert _run(tmp_path, "recall", "fuse").returncode == 0


def test_serve_keeps_the_console_quiet_so_the_owner_key_shows(tmp_path: Path) -> None:
    port = free_port()
    # a loaded machine may take over a second for a search: its slow-request warning (which
    # names the route) is not the per-request access line this test is about
    env = tessera_env(tmp_path, TESSERA_LOG_LEVEL="INFO", TESSERA_SLOW_REQUEST_MS="600000")
    proc = start_listening(
        ["serve", "--port", str(port)], env, f"http://127.0.0.1:{port}/api/health"
    )
    key = (tmp_path / "credentials" / "owner.key").read_text().strip()
    try:
        import httpx

        for _ in range(5):
            httpx.post(
                f"http://127.0.0.1:{port}/api/search",
                json={"query": "anything"},
                headers={"authorization": f"Bearer {key}"},
            )
    finally:
        proc.terminate()
        console, _ = proc.communicate(timeout=30)
    assert key in console
    assert "POST /api/search" not in console  # no access line per request
    assert '"action"' not in console and "search" not in console.lower().replace("/api/search", "")


def test_request_lines_can_go_to_an_owner_only_file(tmp_path: Path) -> None:
    port = free_port()
    env = tessera_env(tmp_path, TESSERA_LOG_LEVEL="INFO", TESSERA_REQUEST_LOG="file")
    proc = start_listening(
        ["serve", "--port", str(port)], env, f"http://127.0.0.1:{port}/api/health"
    )
    try:
        import httpx

        httpx.get(f"http://127.0.0.1:{port}/api/memory/spaces")
    finally:
        proc.terminate()
        console, _ = proc.communicate(timeout=30)
    log = tmp_path / "logs" / "requests.log"
    text = log.read_text()
    assert "GET /api/memory/spaces" in text and "admin.org.create" in text
    assert log.stat().st_mode & 0o777 == 0o600
    assert "GET /api/memory/spaces" not in console and "admin.org.create" not in console


def test_the_data_directory_and_every_file_in_it_are_owner_only(tmp_path: Path) -> None:
    data_dir = tmp_path / "home"
    assert _run(data_dir, "remember", "The alarm code is not written down here.").returncode == 0
    loose = [
        (str(p.relative_to(data_dir)), oct(p.stat().st_mode & 0o777))
        for p in [data_dir, *data_dir.rglob("*")]
        if not p.is_symlink() and p.stat().st_mode & 0o077
    ]
    assert loose == []
