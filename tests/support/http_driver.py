"""The policy suites' ``Driver`` over HTTP: each principal acts with its own API key.

Setting up stays with the operator (in process, as ``tessera admin`` would);
every read and write goes through the Litestar app with a bearer key, so the
suites check authentication, the key-to-organisation routing and the policy
together.
"""

from typing import Any

import httpx

from entrypoints.http.app import create_app
from tests.support.json_driver import JsonDriver
from tests.support.policy_suites import Denied, Who
from tests.support.world import World

__all__ = ["HttpDriver"]


_ROUTES = {
    "remember": "/api/memory/remember",
    "recall": "/api/search",
    "context": "/api/context/pack",
}


class HttpDriver(JsonDriver):
    def __init__(self, world: World | None = None) -> None:
        super().__init__(world)
        app = create_app(self.world.services)
        transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
        self._client = httpx.AsyncClient(transport=transport, base_url="http://tessera.test")
        self._keys: dict[str, str] = {}

    async def _act(self, who: Who, action: str, args: dict[str, Any]) -> Any:
        if action == "inspect_source":
            return await self._call(who, "GET", f"/api/memory/sources/{args['source_id']}")
        if action.startswith("memory_correct_"):
            body = {k: v for k, v in args.items() if k != "source_id"}
            path = f"/api/memory/inspect/{args['source_id']}/corrections"
            suffix = "/preview" if action.endswith("preview") else ""
            return await self._call(who, "POST", path + suffix, body)
        return await self._call(who, "POST", _ROUTES[action], args)

    async def _call(self, who: Who, method: str, path: str, body: Any = None) -> Any:
        key = self._keys.get(who.principal_id)
        if key is None:
            key = await self.world.key(self._records[who.principal_id])
            self._keys[who.principal_id] = key
        response = await self._client.request(
            method, path, json=body, headers={"authorization": f"Bearer {key}"}
        )
        if response.status_code in (403, 404, 409, 422):
            raise Denied(response.json()["error"]["reason"])
        assert response.status_code < 300, response.text
        return response.json()

    async def close(self) -> None:
        await self._client.aclose()
