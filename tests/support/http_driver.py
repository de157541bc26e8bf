"""The policy suites' ``Driver`` over HTTP: each principal acts with its own API key.

Setting up stays with the operator (in process, as ``tessera admin`` would);
every read and write goes through the Litestar app with a bearer key, so the
suites check authentication, the key-to-organisation routing and the policy
together.
"""

from typing import Any

import httpx

from domain.scopes import MemoryScope
from entrypoints.http.app import create_app
from tests.support.policy_suites import Denied, Seen, Who
from tests.support.world import World
from tests.support.world_driver import WorldDriver

__all__ = ["HttpDriver"]


class HttpDriver(WorldDriver):
    def __init__(self, world: World | None = None) -> None:
        super().__init__(world)
        app = create_app(self.world.services)
        transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
        self._client = httpx.AsyncClient(transport=transport, base_url="http://tessera.test")
        self._keys: dict[str, str] = {}

    async def _call(self, who: Who, method: str, path: str, body: Any = None) -> Any:
        key = self._keys.get(who.principal_id)
        if key is None:
            key = await self.world.key(self._records[who.principal_id])
            self._keys[who.principal_id] = key
        response = await self._client.request(
            method, path, json=body, headers={"authorization": f"Bearer {key}"}
        )
        if response.status_code in (403, 404):
            raise Denied(response.json()["error"]["reason"])
        assert response.status_code < 300, response.text
        return response.json()

    async def remember(
        self,
        who: Who,
        content: str,
        scope: MemoryScope = MemoryScope.PRIVATE,
        key: str | None = None,
    ) -> str:
        body = {"content": content, "scope": str(scope), "scope_key": key}
        result = await self._call(who, "POST", "/api/memory/remember", body)
        return str(result["source_id"])

    async def search(self, who: Who, query: str, limit: int = 50) -> list[Seen]:
        found = await self._call(who, "POST", "/api/search", {"query": query, "limit": limit})
        return [
            Seen(h["source_id"], h["scope"], h.get("scope_key"), h["text"])
            for h in found["results"]
        ]

    async def pack(self, who: Who, query: str) -> list[Seen]:
        pack = await self._call(
            who, "POST", "/api/context/pack", {"query": query, "token_budget": 4000}
        )
        return [
            Seen(i["source_id"], i["scope"], i.get("scope_key"), i["text"]) for i in pack["items"]
        ]

    async def inspect(self, who: Who, source_id: str) -> Seen:
        view = await self._call(who, "GET", f"/api/memory/sources/{source_id}")
        return Seen(view["source_id"], view["scope"], view.get("scope_key"), view.get("content"))

    async def close(self) -> None:
        await self._client.aclose()
