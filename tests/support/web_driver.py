"""The policy suites' ``Driver`` over the memory workspace: each principal signs in.

Every principal signs in with its own key into its own browser-like session
(a cookie jar) and acts through the pages: remember through the form (with
its CSRF token), search and packs read off ``/memory/search``, inspect off
``/memory/sources/<id>``. So the suites check that each page shows exactly
what the policy lets that principal see.
"""

import re
from typing import Any

import httpx

from domain.scopes import MemoryScope
from entrypoints.http.app import create_app
from tests.support.policy_suites import Denied, Seen, Who
from tests.support.web_pages import Item, read_page
from tests.support.world import World
from tests.support.world_driver import WorldDriver

__all__ = ["WebDriver"]


def _space(label: str) -> tuple[str, str | None]:
    scope, _, key = label.partition(" · ")
    return scope, key or None


def _seen(item: Item) -> Seen:
    scope, key = _space(item.space)
    return Seen(item.source_ids[0], scope, key, item.text)


class WebDriver(WorldDriver):
    def __init__(self, world: World | None = None) -> None:
        super().__init__(world)
        self._app = create_app(self.world.services)
        self._sessions: dict[str, tuple[httpx.AsyncClient, str]] = {}

    async def _session(self, who: Who) -> tuple[httpx.AsyncClient, str]:
        found = self._sessions.get(who.principal_id)
        if found is not None:
            return found
        key = await self.world.key(self._records[who.principal_id])
        transport = httpx.ASGITransport(app=self._app)  # type: ignore[arg-type]
        client = httpx.AsyncClient(transport=transport, base_url="http://tessera.test")
        signed = await client.post("/memory/sign-in", data={"api_key": key})
        assert signed.status_code == 303, signed.text
        home = await client.get("/memory")
        token = re.search(r'name="csrf" value="([^"]+)"', home.text)
        assert token is not None
        self._sessions[who.principal_id] = (client, token.group(1))
        return client, token.group(1)

    async def _page(self, who: Who, method: str, path: str, **kw: Any) -> httpx.Response:
        client, _ = await self._session(who)
        answer = await client.request(method, path, **kw)
        if answer.status_code in (403, 404, 409, 422):
            raise Denied(read_page(answer.text).reason or str(answer.status_code))
        assert answer.status_code < 400, answer.text
        return answer

    async def remember(
        self,
        who: Who,
        content: str,
        scope: MemoryScope = MemoryScope.PRIVATE,
        key: str | None = None,
    ) -> str:
        _, csrf = await self._session(who)
        space = f"{scope}:{key}" if key else str(scope)
        answer = await self._page(
            who, "POST", "/memory/remember", data={"csrf": csrf, "content": content, "space": space}
        )
        assert answer.status_code == 303, answer.text
        return answer.headers["location"].split("/")[-1].split("?")[0]

    async def search(self, who: Who, query: str, limit: int = 50) -> list[Seen]:
        answer = await self._page(who, "GET", "/memory/search", params={"q": query})
        return [_seen(item) for item in read_page(answer.text).hits]

    async def pack(self, who: Who, query: str) -> list[Seen]:
        answer = await self._page(who, "GET", "/memory/search", params={"q": query})
        return [_seen(item) for item in read_page(answer.text).pack]

    async def inspect(self, who: Who, source_id: str) -> Seen:
        answer = await self._page(who, "GET", f"/memory/sources/{source_id}")
        source = read_page(answer.text).source
        assert source is not None
        scope, key = _space(source.space)
        return Seen(source.source_ids[0], scope, key, source.text)

    async def close(self) -> None:
        for client, _ in self._sessions.values():
            await client.aclose()
