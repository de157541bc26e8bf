"""Single ``remember`` latency with the embedding lane idle and busy, its model niced or not.

The lane embeds on the cores that serve requests. This measures what a busy
lane costs a remember: the notmuch lkml Maildir is imported with the lane
stopped (every chunk pending), then ``--remembers`` short real texts (the
first lines of the same messages) are remembered one at a time, first with
the lane idle, then while a fresh lane backfills the import with the default
ONNX model. ``--no-nice`` keeps the lane's model thread at normal priority
(the A/B of adapters/embedders/background.py); run both, one process each.

    python -m benchmarks.lane_priority --remembers 30
    python -m benchmarks.lane_priority --remembers 30 --no-nice
"""

import argparse
import asyncio
import json
import os
import tempfile
import time
from pathlib import Path

from adapters.sources.maildir import MaildirSourceAdapter
from application.imports.jobs import JobAuthority
from application.imports.records import ImportRecord
from application.memory.commands import RememberRequest
from benchmarks._stats import code_version, machine_info, summarize
from benchmarks._wiring import make_embedder, make_index, make_store
from benchmarks.imports import _unpack, maildir_imports
from domain.policy import Surface


async def _run(maildir: Path, data_dir: Path, remembers: int) -> dict[str, object]:
    store = make_store(f"surrealkv://{data_dir}", native_search=False)
    embedder = make_embedder()
    from entrypoints.container import make_audit_log, make_control_store
    from entrypoints.container import make_services as compose_services

    control = make_control_store(store)
    index = make_index("inprocess", store)
    services = compose_services(store, index, embedder, control, make_audit_log(store), "bench")
    await services.open(Surface.CLI)
    await services.memory.lane.stop()  # the import leaves every chunk pending
    owner = await services.control.principal("bench", "owner")
    ctx = await services.access.context_for(owner, Surface.CLI)
    imports = maildir_imports(services, control)
    authority = JobAuthority(org_id="bench", principal_id=owner.principal_id)
    job = await imports.create(adapter="maildir", path=maildir, authority=authority)
    await imports.run("bench", job.import_id)
    texts = [
        " ".join(item.content.split()[:40])
        for item in MaildirSourceAdapter().read(maildir)
        if isinstance(item, ImportRecord)
    ][: 2 * remembers]
    await embedder.embed(["load the model before timing"])

    async def timed(batch: list[str]) -> list[float]:
        out: list[float] = []
        for text in batch:
            began = time.perf_counter()
            await services.memory.remember(
                RememberRequest(org_id="bench", content=f"{text} (note {len(out)})"), ctx
            )
            out.append((time.perf_counter() - began) * 1000)
        return out

    idle = await timed(texts[:remembers])  # the lane is stopped: nothing embeds
    from application.enrichment.lane import EmbeddingLane

    lane = EmbeddingLane(store=store, index=index, embedder=embedder)
    services.memory.lane = lane  # the lane a restart would start: it backfills the import
    services.memory.writer.lane = lane
    lane.resume("bench")
    began = time.perf_counter()
    queued = (await store.embedding_counts("bench")).pending
    pending_before = queued
    # time the busy remembers once the lane attached its first batch: its model is loaded
    # and it is mid-backfill (on a loaded machine the first batch takes tens of seconds)
    while pending_before >= queued and time.perf_counter() - began < 120:
        await asyncio.sleep(0.5)
        pending_before = (await store.embedding_counts("bench")).pending
    first_batch_s = time.perf_counter() - began
    busy = await timed(texts[remembers:])
    pending_after = (await store.embedding_counts("bench")).pending
    await lane.stop()
    await services.close()
    return {
        "idle_ms": summarize(idle),
        "busy_ms": summarize(busy),
        "lane_first_batch_s": round(first_batch_s, 1),
        "lane_pending_before_busy": pending_before,
        "lane_pending_after_busy": pending_after,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--remembers", type=int, default=30)
    parser.add_argument("--no-nice", action="store_true", help="the lane's model thread unniced")
    args = parser.parse_args()
    if args.no_nice:
        import adapters.embedders.background as background

        background.BACKGROUND_NICENESS = 0
        background.lower_this_thread.__defaults__ = (0,)
    with tempfile.TemporaryDirectory() as tmp:
        _, maildir = _unpack("lkml", Path(tmp))
        result: dict[str, object] = {
            "niced": not args.no_nice,
            **asyncio.run(_run(maildir, Path(tmp) / "data", args.remembers)),
            "load_average": os.getloadavg(),
            "machine": machine_info(),
            "code": code_version(),
        }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
