"""An on-disk embedded engine that has grown from reads is reopened in the background.

The engine keeps memory for every record read until it is reopened
(``SurrealConnection.release_read_memory``). The connection looks at the
process's memory every few reads and reopens the engine once it has grown by
``release_after_growth`` since the last release. A fake probe stands in for
``/proc/self/status`` so each step is seen directly.
"""

from pathlib import Path

import pytest

from adapters.surreal import connection as connection_module
from adapters.surreal.connection import SurrealConnection

pytestmark = pytest.mark.slow


class _Probe:
    def __init__(self, *values: int | None) -> None:
        self.values = list(values)

    def __call__(self) -> int | None:
        return self.values.pop(0) if len(self.values) > 1 else self.values[0]


@pytest.fixture(autouse=True)
def look_every_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connection_module, "_CHECK_EVERY", 1)


async def _read(conn: SurrealConnection, times: int = 1) -> None:
    for _ in range(times):
        assert await conn.query(None, "RETURN 1;", operation="reading") == [1]
    if conn._releasing is not None:
        await conn._releasing


async def test_growth_past_the_allowance_reopens_once_and_the_store_still_answers(
    tmp_path: Path,
) -> None:
    # first look 1000 (the floor), then 1050 (under), then 1200 (over): one release,
    # after which the floor is 1200 and 1250 is under the allowance again
    probe = _Probe(1000, 1050, 1200, 1200, 1250)
    conn = SurrealConnection(
        f"surrealkv://{tmp_path / 'data'}", release_after_growth=100, memory_probe=probe
    )
    try:
        await _read(conn, 3)
        assert conn.checkpoints == 1
        await _read(conn, 2)
        assert conn.checkpoints == 1
    finally:
        await conn.close()


async def test_a_release_that_frees_nothing_waits_for_as_much_growth_again(
    tmp_path: Path,
) -> None:
    probe = _Probe(1000, 1100, 1150, 1190, 1250, 1250)
    conn = SurrealConnection(
        f"surrealkv://{tmp_path / 'data'}", release_after_growth=100, memory_probe=probe
    )
    try:
        await _read(conn, 2)  # 1000, then 1100: released; the floor is then 1150
        assert conn.checkpoints == 1
        await _read(conn, 1)  # 1190: under 1150 + 100
        assert conn.checkpoints == 1
        await _read(conn, 1)  # 1250: over
        assert conn.checkpoints == 2
    finally:
        await conn.close()


@pytest.mark.parametrize("url", ["mem://", "surrealkv"])
async def test_never_in_memory_never_without_a_probe(url: str, tmp_path: Path) -> None:
    on_disk = url == "surrealkv"
    conn = SurrealConnection(
        f"surrealkv://{tmp_path / 'data'}" if on_disk else url,
        release_after_growth=1,
        memory_probe=_Probe(None) if on_disk else _Probe(1, 10**9),
    )
    try:
        await _read(conn, 4)
        assert conn.checkpoints == 0
    finally:
        await conn.close()


async def test_close_waits_for_a_release_in_progress(tmp_path: Path) -> None:
    conn = SurrealConnection(
        f"surrealkv://{tmp_path / 'data'}", release_after_growth=1, memory_probe=_Probe(1, 5)
    )
    await conn.query(None, "RETURN 1;", operation="reading")
    await conn.query(None, "RETURN 1;", operation="reading")
    assert conn._releasing is not None
    await conn.close()
    assert conn._releasing is None
