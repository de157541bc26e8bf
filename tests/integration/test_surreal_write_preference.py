"""Writes are not starved by reads.

Under 50 clients of mostly searches, a write queued for the store's one write
lock for seconds: each turn of the lock was slowed by dozens of reads in the
engine. Now, while a write waits for or holds the lock, new reads wait for it
(measured in benchmarks/load.py; see RESULTS.md). ``prefer_writes = False`` is
the old behaviour, kept for that benchmark.
"""

import asyncio

from adapters.surreal.connection import SurrealConnection


async def _read_while_a_write_waits(prefer_writes: bool) -> tuple[bool, list[str]]:
    conn = SurrealConnection("mem://")
    conn.prefer_writes = prefer_writes
    await conn.open()
    order: list[str] = []
    try:
        await conn._writing.acquire()  # another write is in the engine
        write = asyncio.create_task(
            conn.query(None, "RETURN 1;", operation="a test write", write=True)
        )
        await asyncio.sleep(0)  # the write is now queued for the lock

        async def read() -> None:
            await conn.query(None, "RETURN 2;", operation="a test read")
            order.append("read")

        reader = asyncio.create_task(read())
        for _ in range(50):  # bounded: plenty of turns for an unblocked read to finish
            if reader.done():
                break
            await asyncio.sleep(0.01)
        read_done_first = reader.done()
        conn._writing.release()
        await write
        order.append("write")
        await reader
        return read_done_first, order
    finally:
        await conn.close()


async def test_a_read_waits_for_a_queued_write() -> None:
    read_done_first, _ = await _read_while_a_write_waits(prefer_writes=True)
    assert not read_done_first


async def test_the_old_behaviour_let_reads_pass_a_queued_write() -> None:
    read_done_first, _ = await _read_while_a_write_waits(prefer_writes=False)
    assert read_done_first


async def test_reads_run_concurrently_when_no_write_waits() -> None:
    conn = SurrealConnection("mem://")
    await conn.open()
    try:
        results = await asyncio.gather(
            *(conn.query(None, f"RETURN {n};", operation="a test read") for n in range(20))
        )
        assert [r[0] for r in results] == list(range(20))
    finally:
        await conn.close()
