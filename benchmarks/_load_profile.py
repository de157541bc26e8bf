"""Where a request's time goes inside the served process (``benchmarks.load --profile``).

Wraps, in the benchmark's own child process only: ``SurrealConnection.query``
(total per operation, and the part spent in the engine, so the rest is waiting
for the write lock or a checkpoint), the embedder, and samples the event
loop's lag (how late a 10 ms sleep wakes), which shows CPU work blocking it.
"""

import asyncio
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from benchmarks._stats import summarize

__all__ = ["Profile"]

_Namer = Callable[[tuple[Any, ...], dict[str, Any]], str]


class Profile:
    def __init__(self) -> None:
        self.samples: dict[str, list[float]] = defaultdict(list)
        self._lag_task: asyncio.Task[None] | None = None

    def _timed(self, name: _Namer, fn: Callable[..., Any]) -> Callable[..., Any]:
        samples = self.samples

        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            began = time.perf_counter()
            try:
                return await fn(*args, **kwargs)
            finally:
                samples[name(args, kwargs)].append((time.perf_counter() - began) * 1000)

        return wrapper

    def install(self, embedder: Any) -> None:
        from adapters.surreal.connection import SurrealConnection

        query, run = SurrealConnection.query, SurrealConnection._run

        def whole(_args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
            kind = "write" if kwargs.get("write") else "read"
            return f"query {kind}: {kwargs.get('operation', '?')}"

        def engine(_args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
            return f"  in engine: {kwargs.get('operation', '?')}"

        SurrealConnection.query = self._timed(whole, query)  # type: ignore[method-assign]
        SurrealConnection._run = self._timed(engine, run)  # type: ignore[method-assign]
        embedder.embed = self._timed(
            lambda a, _k: f"embed x{len(a[0])}" if len(a[0]) < 2 else "embed x2+", embedder.embed
        )
        self._lag_task = asyncio.get_running_loop().create_task(self._lag())

    async def _lag(self) -> None:
        while True:
            began = time.perf_counter()
            await asyncio.sleep(0.01)
            self.samples["event loop lag"].append((time.perf_counter() - began) * 1000 - 10)

    def report(self) -> dict[str, Any]:
        if self._lag_task is not None:
            self._lag_task.cancel()
        out = {}
        for name, values in sorted(self.samples.items()):
            s = summarize(values)
            s["total_s"] = round(sum(values) / 1000, 1)
            out[name] = s
        return out
