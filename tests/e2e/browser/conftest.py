"""The browser suite: the real app on a loopback port, driven by Debian's chromium.

The service runs as ``tessera serve`` with the embedded SurrealDB (``mem://``)
and the offline MiniLM embedder. Playwright launches the system chromium
through ``executable_path`` and never downloads a browser. Without chromium
(or Playwright) the suite skips with one line saying how to install it; in
CI (``CI=true``) it fails instead.

The server and the browser live for this package only: Playwright's sync API
holds an event loop on the main thread while it runs, which the tests after
this package (``asyncio.run``) must not see.

Every page a test opens is watched: requests must stay on 127.0.0.1, the
console must stay free of errors, no dialog may open.
"""

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.conftest import free_port, start_listening, stop, tessera_env

SCREENSHOTS = Path(__file__).resolve().parents[1] / "screenshots"
WIDTHS = (1280, 400)
_HERE = Path(__file__).resolve().parent


def _chromium() -> str | None:
    return (
        os.environ.get("TESSERA_CHROMIUM")
        or shutil.which("chromium")
        or shutil.which("chromium-browser")
    )


def _missing() -> str | None:
    try:
        import axe_playwright_python  # noqa: F401
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright / axe-playwright-python are not installed: pip install -e '.[dev]'"
    if _chromium() is None:
        return "no chromium: run .ci/install-browser (or: sudo apt-get install chromium)"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    missing = _missing()
    ours = [i for i in items if Path(str(i.path)).resolve().is_relative_to(_HERE)]
    if missing is None or not ours:
        return
    if os.environ.get("CI") == "true":
        return  # the session fixture fails each test: CI must have the browser
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    line = f"BROWSER SUITE SKIPPED ({len(ours)} tests): {missing}"
    if reporter is not None:
        reporter.write_line(line, yellow=True, bold=True)
    for item in ours:
        item.add_marker(pytest.mark.skip(reason=missing))


@dataclass
class Server:
    url: str
    owner_key: str
    keys: dict[str, str] = field(default_factory=dict)

    def api(self, method: str, path: str, key: str | None = None, **kw: Any) -> Any:
        answer = httpx.request(
            method,
            self.url + path,
            headers={"authorization": f"Bearer {key or self.owner_key}"},
            timeout=60,
            **kw,
        )
        assert answer.status_code < 300, answer.text
        return answer.json()


@pytest.fixture(scope="package")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    missing = _missing()
    if missing is not None:
        pytest.fail(f"CI=true and {missing}")
    data_dir = tmp_path_factory.mktemp("web-data")
    port = free_port()
    env = tessera_env(data_dir, TESSERA_DB_URL="mem://", TESSERA_PORT=str(port))
    url = f"http://127.0.0.1:{port}"
    args = ["serve", "--host", "127.0.0.1", "--port", str(port)]
    proc = start_listening(args, env, url + "/api/health")
    try:
        owner_key = (data_dir / "credentials" / "owner.key").read_text().strip()
        site = Server(url=url, owner_key=owner_key)
        site.api("POST", "/api/admin/principals", json={"name": "bea"})
        # an agent of the owner without a delegation: its own notes and open spaces only
        courier = {"name": "courier", "acting_for": "owner", "delegation_days": 0}
        site.api("POST", "/api/admin/principals", json=courier)
        for name in ("bea", "courier"):
            site.keys[name] = site.api("POST", "/api/admin/keys", json={"principal": name})["key"]
        site.keys["owner"] = owner_key
        apollo = {"scope": "project", "scope_key": "apollo"}
        space = site.api("POST", "/api/admin/spaces", json=apollo)
        members = f"/api/admin/spaces/{space['space_id']}/members"
        for name in ("owner", "bea"):
            site.api("POST", members, json={"principal": name, "role": "writer"})
        yield site
    finally:
        stop(proc)


@pytest.fixture(scope="package")
def browser(server: Server) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=_chromium(), args=["--no-sandbox", "--disable-gpu"]
        )
        yield launched
        launched.close()
