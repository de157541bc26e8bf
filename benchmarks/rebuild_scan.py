"""The store read of an index rebuild: chunk-id pages against whole-source pages.

    python -m benchmarks.rebuild_scan --data-dir STORE [--cursor chunk|source] [--page 2000]

A rebuild (application.indexing.readiness) reads every chunk of an organisation, page
by page. With a chunk-id cursor (``scan_index_entries``) the embedded engine
walks the chunk table from its start up to the cursor on every page, so each
page costs more than the one before and the read grows with the square of the
chunks. Whole sources after a source-id cursor (``scan_index_sources``, what
the rebuild now uses) seek to their first key in the ``chunk_source`` index.

This times only the store's read (the pages decoded into index entries, then
dropped): no index is built. Reported: the pages' seconds in all, the chunks
and sources read, and the first, middle and last tenth of the pages' mean
seconds, which say whether a page's cost grows with its position. Opens STORE
read-only in effect (no write is made); it must not be open elsewhere.
Prints one JSON object.
"""

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

from benchmarks._footprint import peak_rss_mb
from benchmarks._stats import code_version, machine_info, progress

__all__ = ["main"]


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.rebuild_scan", description=__doc__)
    p.add_argument("--data-dir", type=Path, required=True, help="a filled store: holds db/")
    p.add_argument("--org", default="bench")
    p.add_argument("--cursor", choices=["chunk", "source"], default="source")
    p.add_argument("--page", type=int, default=2000, help="chunks asked for a page")
    p.add_argument("--limit", type=int, default=0, help="stop after this many chunks (0: all)")
    return p.parse_args(argv)


def tenths(seconds: list[float]) -> dict[str, float]:
    """The mean page seconds of the first, middle and last tenth of the pages."""
    if not seconds:
        return {}
    tenth = max(1, len(seconds) // 10)
    middle = max(0, len(seconds) // 2 - tenth // 2)

    def mean(part: list[float]) -> float:
        return round(sum(part) / len(part), 4)

    return {
        "first_tenth_s": mean(seconds[:tenth]),
        "middle_tenth_s": mean(seconds[middle : middle + tenth]),
        "last_tenth_s": mean(seconds[-tenth:]),
    }


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks._wiring import make_store

    store = make_store(f"surrealkv://{args.data_dir / 'db'}", native_search=False)
    scan = store.scan_index_sources if args.cursor == "source" else store.scan_index_entries
    total = await store.count_chunks(args.org)
    pages: list[float] = []
    chunks = 0
    sources: set[str] = set()
    after: str | None = None
    began = time.perf_counter()
    try:
        while not args.limit or chunks < args.limit:
            t0 = time.perf_counter()
            page = await scan(args.org, after, args.page)
            if not page:
                break
            pages.append(time.perf_counter() - t0)
            chunks += len(page)
            sources.update(e.source_id for e in page)
            after = page[-1].source_id if args.cursor == "source" else page[-1].chunk_id
            if len(pages) % 25 == 0:
                progress(f"{args.cursor} cursor: {chunks}/{total} chunks, {len(pages)} pages")
    finally:
        await store.close()
    return {
        "benchmark": "rebuild_scan",
        "cursor": args.cursor,
        "page": args.page,
        "store_chunks": total,
        "chunks_read": chunks,
        "sources_read": len(sources),
        "pages": len(pages),
        "seconds": round(time.perf_counter() - began, 2),
        **tenths(pages),
        "peak_rss_mb": peak_rss_mb(),
        "code": code_version(),
        "machine": machine_info(),
    }


def main(argv: list[str] | None = None) -> None:
    print(json.dumps(asyncio.run(_main(_parse(argv))), indent=2))


if __name__ == "__main__":
    main()
