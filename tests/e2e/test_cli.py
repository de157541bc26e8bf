"""The ``tessera`` CLI as a user runs it: a real process, the real embedded store."""

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import TESSERA, free_port, start_listening, tessera_env

pytestmark = pytest.mark.slow


def _run(
    data_dir: Path, *args: str, stdin: str | None = None, key: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = tessera_env(data_dir) if key is None else tessera_env(data_dir, TESSERA_API_KEY=key)
    return subprocess.run(
        [*TESSERA, *args],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_remember_recall_context_without_a_server(tmp_path: Path) -> None:
    out = _run(tmp_path, "remember", "The spare house key is with Mrs. Okafor at number 12.")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Remembered source ")
    out = _run(tmp_path, "remember", "-", "--json", stdin="Dentist on March 3rd at 9am.")
    assert out.returncode == 0, out.stderr
    source_id = json.loads(out.stdout)["source_id"]

    out = _run(tmp_path, "recall", "when is the dentist", "--json", "--limit", "1")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["results"][0]["source_id"] == source_id

    out = _run(tmp_path, "recall", "who has the spare key")
    assert out.returncode == 0 and "Okafor" in out.stdout
    assert "for “who has the spare key”" in out.stdout.splitlines()[0]
    assert "\n 1. The spare house key is with Mrs. Okafor" in out.stdout
    assert "[2." not in out.stdout  # scores stay in --json: lifecycle reorders, they would not

    out = _run(tmp_path, "context", "spare key", "--budget", "50")
    assert out.returncode == 0 and "Context pack:" in out.stdout and "Okafor" in out.stdout


def test_recall_and_context_say_plainly_when_nothing_is_relevant(tmp_path: Path) -> None:
    # with the offline MiniLM, "xylophone quantum banana" sits near the relatedness floor
    # (0.34) from the first note by chance; no note shares a word with it
    for note in (
        "So what instrument did your daughter pick at school?",
        "The spare house key is with Mrs. Okafor at number 12.",
    ):
        assert _run(tmp_path, "remember", note).returncode == 0
    out = _run(tmp_path, "recall", "xylophone quantum banana")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Nothing relevant: nothing in memory shares the question's")
    assert "Okafor" not in out.stdout and "instrument" not in out.stdout
    body = json.loads(_run(tmp_path, "recall", "xylophone quantum banana", "--json").stdout)
    assert body["results"] == [] and body["reason"] == "nothing_relevant"
    assert body["below_floor"] == 2
    out = _run(tmp_path, "context", "xylophone quantum banana")
    assert out.returncode == 0 and "Nothing relevant:" in out.stdout
    out = _run(tmp_path, "recall", "who has the spare key")
    assert " for “who has the spare key”" in out.stdout and "Okafor" in out.stdout


def test_recall_and_context_take_filter_flags(tmp_path: Path) -> None:
    for text, kind in (("Budget mail about the offsite", "email"), ("Budget note", "note")):
        when = ("--occurred-at", "2024-03-10T09:00:00Z")
        out = _run(tmp_path, "remember", text, "--type", kind, *when)
        assert out.returncode == 0, out.stderr
    out = _run(tmp_path, "recall", "budget", "--json", "--type", "email", "--since", "2024-03-01")
    assert out.returncode == 0, out.stderr
    assert [hit["text"] for hit in json.loads(out.stdout)["results"]] == [
        "Budget mail about the offsite"
    ]
    out = _run(tmp_path, "context", "budget", "--json", "--type", "note", "--until", "2024-03-31")
    assert out.returncode == 0, out.stderr
    assert [i["text"] for i in json.loads(out.stdout)["items"]] == ["Budget note"]
    out = _run(tmp_path, "recall", "budget", "--since", "2024-04-01", "--until", "2024-03-01")
    assert out.returncode == 2 and "invalid_filter" in out.stderr


def test_bad_input_exits_2_with_the_reason(tmp_path: Path) -> None:
    out = _run(tmp_path, "recall", "x", "--limit", "0")
    assert out.returncode == 2
    assert "limit_out_of_range" in out.stderr and "Traceback" not in out.stderr
    out = _run(tmp_path, "remember", "   ")
    assert out.returncode == 2 and "empty_content" in out.stderr


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    port = free_port()
    proc = start_listening(
        ["serve", "--port", str(port)],
        tessera_env(tmp_path),
        f"http://127.0.0.1:{port}/api/health",
    )
    yield tmp_path, port
    proc.terminate()
    proc.wait(timeout=30)
    assert not (tmp_path / "server.json").exists()


def test_cli_goes_through_a_running_server_and_a_second_server_is_refused(
    server: tuple[Path, int],
) -> None:
    data_dir, port = server
    out = _run(data_dir, "remember", "Parking spot B17 on level 2.")
    assert out.returncode == 0, out.stderr
    assert f"service at http://127.0.0.1:{port}" in out.stdout
    out = _run(data_dir, "recall", "where did I park", "--json")
    assert json.loads(out.stdout)["results"][0]["text"].startswith("Parking spot B17")

    second = subprocess.run(
        [*TESSERA, "serve", "--port", str(free_port())],
        env=tessera_env(data_dir),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert second.returncode == 3
    assert "store_locked" in second.stderr and "Traceback" not in second.stderr


def test_memory_survives_a_server_restart(tmp_path: Path) -> None:
    out = _run(tmp_path, "remember", "The boiler was serviced on 2 October.")
    assert out.returncode == 0, out.stderr
    out = _run(tmp_path, "recall", "boiler service date", "--json")
    assert json.loads(out.stdout)["results"][0]["text"].startswith("The boiler")


def _run_as(data_dir: Path, key: str, *args: str) -> subprocess.CompletedProcess[str]:
    return _run(data_dir, *args, key=key)


def test_first_start_saves_the_owner_key_for_this_user_only(tmp_path: Path) -> None:
    out = _run(tmp_path, "remember", "Bins go out on Tuesday night.")
    assert out.returncode == 0, out.stderr
    key_file = tmp_path / "credentials" / "owner.key"
    key = key_file.read_text().strip()
    assert key.startswith("tsk_") and key in out.stderr  # shown once, on stderr
    assert key_file.stat().st_mode & 0o777 == 0o600
    assert key_file.parent.stat().st_mode & 0o777 == 0o700
    again = _run(tmp_path, "recall", "bins")
    assert again.returncode == 0 and key not in again.stdout + again.stderr


def test_admin_commands_through_a_running_server(server: tuple[Path, int]) -> None:
    data_dir, _ = server
    assert _run(data_dir, "admin", "org", "create", "acme").returncode == 0
    out = _run(data_dir, "admin", "user", "create", "--org", "acme", "ana")
    assert out.returncode == 0, out.stderr
    out = _run(data_dir, "admin", "agent", "create", "--org", "acme", "--for", "ana", "scribe")
    assert out.returncode == 0 and json.loads(out.stdout)["kind"] == "agent", out.stderr
    out = _run(data_dir, "admin", "key", "create", "--org", "acme", "--principal", "ana")
    assert out.returncode == 0, out.stderr
    ana_key = out.stdout.strip().splitlines()[-1]
    assert ana_key.startswith("tsk_")
    key_id = ana_key.split("_")[1]

    out = _run_as(data_dir, ana_key, "remember", "Ana keeps the spare key in the red boot.")
    assert out.returncode == 0, out.stderr
    out = _run_as(data_dir, ana_key, "recall", "spare key", "--json")
    assert "red boot" in json.loads(out.stdout)["results"][0]["text"]
    owner_view = _run(data_dir, "recall", "spare key red boot", "--json")  # another org's owner
    assert json.loads(owner_view.stdout)["results"] == []

    out = _run(
        data_dir,
        "admin",
        "space",
        "create",
        "--org",
        "acme",
        "--scope",
        "project",
        "--key",
        "apollo",
    )
    assert out.returncode == 0, out.stderr
    space_id = json.loads(out.stdout)["space_id"]
    out = _run(
        data_dir,
        "admin",
        "space",
        "add-member",
        space_id,
        "--org",
        "acme",
        "--principal",
        "ana",
        "--role",
        "writer",
    )
    assert out.returncode == 0, out.stderr
    listed = json.loads(_run(data_dir, "admin", "space", "list", "--org", "acme").stdout)
    assert [s["scope_key"] for s in listed] == ["apollo"]

    refused = _run_as(data_dir, ana_key, "admin", "user", "create", "mallory")
    assert refused.returncode == 4 and "admin_required" in refused.stderr
    assert _run(data_dir, "admin", "key", "revoke", key_id).returncode == 0
    revoked = _run_as(data_dir, ana_key, "recall", "spare key")
    assert revoked.returncode == 4 and "revoked_api_key" in revoked.stderr
    assert "Traceback" not in revoked.stderr


def test_correct_previews_and_applies_only_with_apply(tmp_path: Path) -> None:
    out = _run(tmp_path, "remember", "The alarm code is 5150.", "--json")
    assert out.returncode == 0, out.stderr
    source_id = json.loads(out.stdout)["source_id"]
    out = _run(tmp_path, "correct", source_id, "hide", "--reason", "pasted")
    assert out.returncode == 0, out.stderr
    assert "active -> hidden" in out.stdout and "--apply" in out.stdout
    assert "Okafor" not in out.stdout and "5150" not in out.stdout
    out = _run(tmp_path, "recall", "alarm code", "--json")
    assert json.loads(out.stdout)["results"][0]["source_id"] == source_id
    out = _run(tmp_path, "correct", source_id, "hide", "--apply")
    assert out.returncode == 0 and "is now hidden" in out.stdout, out.stderr
    out = _run(tmp_path, "inspect", source_id)  # for a person: state, history, no JSON
    assert out.returncode == 0 and "State: HIDDEN" in out.stdout, out.stderr
    assert "Corrections, newest first:" in out.stdout and ": hide\n" in out.stdout
    assert "tessera inspect --json" in out.stdout and not out.stdout.startswith("{")
    out = _run(tmp_path, "recall", "alarm code", "--json")
    assert json.loads(out.stdout)["results"] == []
    out = _run(tmp_path, "correct", source_id, "supersede")
    assert out.returncode == 2 and "invalid_request" in out.stderr


def test_correct_redacts_a_span_and_its_summary_stands_in_for_it_alone(tmp_path: Path) -> None:
    text = "Guest network for visitors: heron-quartz-41, ask Ola at the front desk"
    out = _run(tmp_path, "remember", text, "--json")
    assert out.returncode == 0, out.stderr
    source_id = json.loads(out.stdout)["source_id"]
    span = f"{text.index('heron')}:{text.index('heron') + len('heron-quartz-41')}"
    redact = ("correct", source_id, "redact", "--span", span, "--summary", "a wifi password")
    out = _run(tmp_path, *redact)
    assert out.returncode == 0, out.stderr
    assert "characters removed for good: 15; kept: 55" in out.stdout
    assert "heron" not in out.stdout and "front desk" not in out.stdout
    out = _run(tmp_path, *redact, "--apply")
    assert out.returncode == 0 and "is now redacted" in out.stdout, out.stderr
    shown = json.loads(_run(tmp_path, "inspect", source_id, "--json").stdout)
    assert shown["content"] == (
        "Guest network for visitors: [redacted: a wifi password], ask Ola at the front desk"
    )
    out = _run(tmp_path, "recall", "heron quartz guest network", "--json")
    assert "heron" not in out.stdout and source_id not in out.stdout


def test_export_and_bulk_delete(tmp_path: Path) -> None:
    for text in ("Plant the tulips in October.", "Water the ferns on Sundays."):
        assert _run(tmp_path, "remember", text).returncode == 0
    out_file = tmp_path / "export.jsonl"
    out = _run(tmp_path, "export", "--out", str(out_file))
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert {line["content"] for line in lines} == {
        "Plant the tulips in October.",
        "Water the ferns on Sundays.",
    }
    out = _run(tmp_path, "delete", "--mine")
    assert out.returncode == 0 and "Would delete 2 source(s)" in out.stdout, out.stderr
    out = _run(tmp_path, "delete", "--mine", "--apply", "--reason", "spring clean")
    assert out.returncode == 0 and "Deleted 2 source(s)." in out.stdout, out.stderr
    out = _run(tmp_path, "recall", "tulips ferns", "--json")
    assert json.loads(out.stdout)["results"] == []
    out = _run(tmp_path, "export")
    assert "tulips" not in out.stdout and out.stdout.count("\n") == 2


def test_an_org_admin_cannot_key_himself_into_the_owners_memory(tmp_path: Path) -> None:
    assert _run(tmp_path, "remember", "owner canary pangolin-88").returncode == 0
    out = _run(tmp_path, "admin", "user", "create", "adam", "--role", "admin")
    assert out.returncode == 0, out.stderr
    out = _run(tmp_path, "admin", "key", "create", "--principal", "adam")
    adam = out.stdout.strip().splitlines()[-1]
    refused = _run_as(tmp_path, adam, "admin", "key", "create", "--principal", "owner")
    assert refused.returncode == 4 and "[key_not_yours]" in refused.stderr, refused.stderr
    agent = ("admin", "agent", "create", "mole", "--for", "owner", "--delegation-days", "30")
    refused = _run_as(tmp_path, adam, *agent)
    assert refused.returncode == 4 and "[delegation_not_yours]" in refused.stderr
    found = _run_as(tmp_path, adam, "recall", "pangolin canary", "--json")
    assert json.loads(found.stdout)["results"] == []


def test_serve_says_where_the_workspace_is(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    args = ["serve", "--port", str(port)]
    proc = start_listening(args, tessera_env(tmp_path), url + "/api/health")
    proc.terminate()
    output, _ = proc.communicate(timeout=30)
    assert f"{url}/memory" in output, output
    assert "The owner's API key is shown once" in output
