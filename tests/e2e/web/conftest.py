"""The workspace over the reference adapters, driven by Litestar's test client."""

import asyncio
import re
from collections.abc import Iterator

import pytest
from litestar.testing import TestClient

from application.services import Services
from domain.policy import Surface
from entrypoints.http.app import create_app
from tests.e2e.conftest import services_over_fakes


class Site:
    def __init__(self, client: TestClient, services: Services, owner_key: str) -> None:  # type: ignore[type-arg]
        self.client = client
        self.services = services
        self.owner_key = owner_key

    def sign_in(self, key: str | None = None) -> str:
        """Sign in and answer the session's CSRF token (read from the home page)."""
        answer = self.client.post(
            "/memory/sign-in", data={"api_key": key or self.owner_key}, follow_redirects=False
        )
        assert answer.status_code == 303, answer.text
        return csrf_of(self.client.get("/memory").text)

    def remember(self, csrf: str, content: str) -> str:
        answer = self.client.post(
            "/memory/remember", data={"csrf": csrf, "content": content}, follow_redirects=False
        )
        assert answer.status_code == 303, answer.text
        return answer.headers["location"].split("/")[-1].split("?")[0]


def csrf_of(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found is not None
    return found.group(1)


@pytest.fixture
def site() -> Iterator[Site]:
    services = services_over_fakes()
    issued = asyncio.run(services.control.bootstrap(Surface.CLI))
    assert issued is not None
    with TestClient(app=create_app(services)) as client:
        yield Site(client, services, issued.key)
