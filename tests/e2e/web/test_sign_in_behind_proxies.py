"""The sign-in rate limit over a real ``tessera serve``: the address it counts by.

30 failed sign-ins from loopback, each with another X-Forwarded-For, are one
client unless TESSERA_TRUSTED_PROXIES names loopback as a proxy; then the
header names the client, and each forwarded address has its own limit.
"""

import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import free_port, start_listening, tessera_env

pytestmark = pytest.mark.slow


def _serve(data_dir: Path, **env: str) -> Iterator[str]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = start_listening(
        ["serve", "--port", str(port)], tessera_env(data_dir, **env), f"{base}/api/health"
    )
    try:
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _sign_in(base: str, forwarded_for: str) -> int:
    body = urllib.parse.urlencode({"api_key": "tsk_wrong_wrong"}).encode()
    request = urllib.request.Request(
        f"{base}/memory/sign-in",
        data=body,
        headers={"x-forwarded-for": forwarded_for},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as refused:
        return refused.code


@pytest.fixture
def untrusting(tmp_path: Path) -> Iterator[str]:
    yield from _serve(tmp_path)


@pytest.fixture
def behind_a_local_proxy(tmp_path: Path) -> Iterator[str]:
    yield from _serve(tmp_path, TESSERA_TRUSTED_PROXIES="127.0.0.1, ::1")


def test_a_new_forwarded_address_each_try_does_not_escape_the_limit(untrusting: str) -> None:
    statuses = [_sign_in(untrusting, f"203.0.113.{n}") for n in range(30)]
    assert statuses[:10] == [401] * 10
    assert statuses[10:] == [429] * 20


def test_a_trusted_proxy_names_the_client_it_forwards(behind_a_local_proxy: str) -> None:
    base = behind_a_local_proxy
    assert [_sign_in(base, f"203.0.113.{n}") for n in range(30)] == [401] * 30
    one_client = [_sign_in(base, "198.51.100.4") for _ in range(11)]
    assert one_client == [401] * 10 + [429]
    # what a client writes before the proxy's own entry is not believed
    assert _sign_in(base, "192.0.2.1, 198.51.100.4") == 429
    assert _sign_in(base, "198.51.100.5") == 401
