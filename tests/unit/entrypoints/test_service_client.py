"""The CLI's client for a running service: JSON in and out, the service's errors kept."""

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from domain.errors import ConflictError, StoreUnavailableError
from domain.reasons import ReasonCode
from entrypoints.credentials import Credentials
from entrypoints.service_client import ServiceBackend


class _Service(BaseHTTPRequestHandler):
    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        if self.path.startswith("/api/conflict"):
            status, out = 409, {"error": {"reason": "transition_not_allowed", "detail": "no"}}
        elif self.path.startswith("/api/lines"):
            status, out = 200, None
        else:
            status = 200
            out = {
                "method": self.command,
                "path": self.path,
                "body": body,
                "authorization": self.headers.get("authorization"),
                "type": self.headers.get("content-type"),
            }
        data = b'{"a": 1}\n{"a": 2}\n' if out is None else json.dumps(out).encode()
        self.send_response(status)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = _answer

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Service)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_a_call_sends_json_with_the_key_and_reads_json_back(url: str) -> None:
    backend = ServiceBackend(url, Credentials("k1").headers())
    assert await backend.answers()
    got = await backend.call("POST", "/api/search", {"query": "cellar"}, params={"all": True})
    assert got == {
        "method": "POST",
        "path": "/api/search?all=true",
        "body": {"query": "cellar"},
        "authorization": "Bearer k1",
        "type": "application/json",
    }
    as_other = await backend.call("GET", "/api/x", credentials=Credentials("k2", "courier"))
    assert as_other["authorization"] == "Bearer k2"
    assert as_other["body"] is None and as_other["type"] is None
    assert await backend.text("POST", "/api/lines") == '{"a": 1}\n{"a": 2}\n'


async def test_the_service_error_comes_back_as_the_error_it_was(url: str) -> None:
    backend = ServiceBackend(url, {})
    with pytest.raises(ConflictError) as caught:
        await backend.call("POST", "/api/conflict", {})
    assert caught.value.reason is ReasonCode.TRANSITION_NOT_ALLOWED


async def test_nothing_listening_is_told_apart_from_a_failed_call() -> None:
    backend = ServiceBackend(f"http://127.0.0.1:{_free_port()}", {})
    assert not await backend.answers()
    with pytest.raises(StoreUnavailableError) as caught:
        await backend.call("GET", "/api/health")
    assert caught.value.reason is ReasonCode.SERVICE_UNREACHABLE


def test_only_a_plain_http_url_is_taken() -> None:
    with pytest.raises(ValueError, match="plain http"):
        ServiceBackend("https://example.org", {})
