"""A local JSON server on 127.0.0.1 for testing hosted-model adapters offline.

The LLM, embedder and reranker adapters talk to real SDKs; their tests point
those SDKs at this server instead of the network. Each test subclasses
``LocalJSONServer`` and implements ``respond`` (route, headers and JSON body
in; status and JSON payload out); the thread, the port and the wire format
live here once.
"""

import json
import threading
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

__all__ = ["LocalJSONServer"]


class LocalJSONServer:
    """Serves ``POST`` requests with ``respond`` on a free loopback port, in a thread."""

    def __init__(self) -> None:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def respond(self, path: str, headers: Message, body: dict[str, Any]) -> tuple[int, object]:
        """The status and JSON payload answering one request."""
        raise NotImplementedError

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: the tests read what they need from the server's records."""

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                status, payload = server.respond(self.path, self.headers, body)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler
