"""The policy suites' reads and writes over a JSON surface, written once for HTTP and MCP.

A surface names four actions the way the MCP tools do (``remember``,
``recall``, ``context``, ``inspect_source``) with the HTTP bodies as
arguments, and answers with the same JSON; subclasses only carry them.
"""

from typing import Any

from domain.scopes import MemoryScope
from tests.support.policy_suites import Seen, Who
from tests.support.world_driver import WorldDriver

__all__ = ["JsonDriver"]


class JsonDriver(WorldDriver):
    async def _act(self, who: Who, action: str, args: dict[str, Any]) -> Any:
        """Run one action as ``who``; raise ``Denied`` with the reason when refused."""
        raise NotImplementedError

    async def remember(
        self,
        who: Who,
        content: str,
        scope: MemoryScope = MemoryScope.PRIVATE,
        key: str | None = None,
    ) -> str:
        args = {"content": content, "scope": str(scope), "scope_key": key}
        return str((await self._act(who, "remember", args))["source_id"])

    async def search(self, who: Who, query: str, limit: int = 50) -> list[Seen]:
        found = await self._act(who, "recall", {"query": query, "limit": limit})
        return [
            Seen(h["source_id"], h["scope"], h.get("scope_key"), h["text"])
            for h in found["results"]
        ]

    async def pack(self, who: Who, query: str) -> list[Seen]:
        pack = await self._act(who, "context", {"query": query, "token_budget": 4000})
        return [
            Seen(i["source_id"], i["scope"], i.get("scope_key"), i["text"]) for i in pack["items"]
        ]

    async def inspect(self, who: Who, source_id: str) -> Seen:
        view = await self._act(who, "inspect_source", {"source_id": source_id})
        return Seen(view["source_id"], view["scope"], view.get("scope_key"), view.get("content"))

    # -- corrections: the two MCP tools / HTTP routes ------------------------------------

    async def correct(self, who: Who, source_id: str, body: dict[str, Any]) -> dict[str, Any]:
        args = {"source_id": source_id, **body}
        preview = await self._act(who, "memory_correct_preview", args)
        applied: dict[str, Any] = await self._act(
            who, "memory_correct_apply", {**args, "preview_token": preview["preview_token"]}
        )
        return applied

    async def hits(self, who: Who, query: str) -> list[dict[str, Any]]:
        found: dict[str, Any] = await self._act(who, "recall", {"query": query, "limit": 50})
        results: list[dict[str, Any]] = found["results"]
        return results

    async def pack_items(self, who: Who, query: str) -> dict[str, Any]:
        pack: dict[str, Any] = await self._act(
            who, "context", {"query": query, "token_budget": 4000}
        )
        return pack
