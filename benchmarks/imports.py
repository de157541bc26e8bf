"""Import throughput on the notmuch mail corpora: read, then write.

Per corpus:

- how fast an adapter reads an archive (messages/s, parsing only);
- how fast ``ImportService`` writes it through the real SurrealDB store and
  index to "lexically searchable" (messages/s): writes no longer wait for the
  model, the embedding lane works beside the import; then how long until every
  vector is searchable too;
- the embedding backfill rate against the embedder's own rate on the same
  texts: an import with the lane stopped leaves every chunk pending, a fresh
  lane (as after a restart) backfills them; the ratio is (chunks/s of the
  backfill) / (chunks/s of the model alone, same batches).

``--embedder onnx`` is the default model, ``--embedder hashing`` the reference
embedder (the write path without the model's cost).

    python -m benchmarks.imports --corpus lkml --embedder onnx
"""

import argparse
import asyncio
import json
import lzma
import tarfile
import tempfile
import time
from pathlib import Path

from adapters.inmemory.import_store import InMemoryImportStore
from adapters.sources.maildir import MaildirSourceAdapter
from adapters.sources.mbox import MboxSourceAdapter
from adapters.system.clock import SystemClock
from adapters.system.ids import TimeOrderedIds
from application.enrichment.lane import EmbeddingLane, LaneSettings
from application.imports.authority import JobAuthorizer
from application.imports.import_service import ImportService
from application.imports.jobs import JobAuthority
from application.ports import Embedder, MemoryStore, RetrievalIndex
from application.services import Services
from application.trust.ports import ControlStore
from benchmarks._stats import code_version, machine_info
from benchmarks._wiring import make_embedder, make_index, make_store
from domain.policy import Surface

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "email"


def _unpack(corpus: str, into: Path) -> tuple[Path, Path]:
    mbox = into / f"{corpus}.mbox"
    mbox.write_bytes(lzma.decompress((DATA / f"notmuch_{corpus}.mbox.xz").read_bytes()))
    with tarfile.open(DATA / "notmuch_corpora_default_lkml.tar.xz") as archive:
        archive.extractall(into / "tree", filter="data")
    return mbox, into / "tree" / "notmuch_corpora" / "test" / "corpora" / corpus


def _read_rate(adapter: MboxSourceAdapter | MaildirSourceAdapter, path: Path) -> float:
    began = time.perf_counter()
    n = sum(1 for _ in adapter.read(path))
    return n / (time.perf_counter() - began)


def _embedder(name: str) -> Embedder:
    if name == "hashing":
        from adapters.inmemory.hashing_embedder import HashingEmbedder

        return HashingEmbedder()
    return make_embedder()


def maildir_imports(services: Services, control: ControlStore) -> ImportService:
    """An import use case over the bench organisation's services, for Maildir only."""
    return ImportService(
        memory=services.memory,
        store=InMemoryImportStore(),
        contexts=JobAuthorizer(control, services.access),
        adapters={"maildir": MaildirSourceAdapter()},
        ids=TimeOrderedIds(),
        clock=SystemClock(),
    )


async def _import_rate(
    maildir: Path, embedder: Embedder, data_dir: Path, index_name: str, backfill: bool
) -> dict[str, float]:
    store = make_store(f"surrealkv://{data_dir}", native_search=index_name == "surreal")
    index = make_index(index_name, store)
    from entrypoints.container import make_audit_log, make_control_store
    from entrypoints.container import make_services as compose_services

    control = make_control_store(store)
    services = compose_services(store, index, embedder, control, make_audit_log(store), "bench")
    await services.open(Surface.CLI)
    if backfill:
        await services.memory.lane.stop()  # every chunk stays pending for the backfill
    owner = await services.control.principal("bench", "owner")
    imports = maildir_imports(services, control)
    authority = JobAuthority(org_id="bench", principal_id=owner.principal_id)
    try:
        job = await imports.create(adapter="maildir", path=maildir, authority=authority)
        began, cpu = time.perf_counter(), time.process_time()
        done = await imports.run("bench", job.import_id)
        seconds, cpu_s = time.perf_counter() - began, time.process_time() - cpu
        c = done.counters
        result: dict[str, float] = {
            "read": c.read,
            "written": c.written,
            "duplicates": c.duplicates,
            "chunks": await store.count_chunks("bench"),
            "import_s": round(seconds, 2),
            "written_per_s": round(c.written / seconds, 1),
            "read_per_s": round(c.read / seconds, 1),
            # this process's CPU seconds (all threads, the engine's included): on a shared
            # machine the wall clock also counts time spent waiting for a core
            "import_cpu_s": round(cpu_s, 2),
            "written_per_cpu_s": round(c.written / cpu_s, 1),
            "embedding_pending_at_completion": c.embedding_pending,
        }
        if backfill:
            result.update(await _backfill(store, index, embedder))
        else:
            await services.memory.lane.drain()
            result["all_vectors_searchable_s"] = round(time.perf_counter() - began, 2)
    finally:
        await services.close()
    return result


async def _backfill(
    store: MemoryStore, index: RetrievalIndex, embedder: Embedder
) -> dict[str, float]:
    """The model alone on the pending texts (as the lane batches them), then a fresh lane."""
    pending = await store.pending_embeddings("bench", 1_000_000)
    texts = list({p.content_hash: p.text for p in pending}.values())
    settings = LaneSettings()
    await embedder.embed(texts[:8])  # load the model before any timing

    async def model_alone() -> float:
        began = time.perf_counter()
        for start in range(0, len(texts), settings.batch_size):
            await embedder.embed(texts[start : start + settings.batch_size])
        return time.perf_counter() - began

    # model, backfill, model again: on a shared machine the load drifts, so the backfill
    # is compared with the mean of the model timed just before and just after it
    before = await model_alone()
    lane = EmbeddingLane(store=store, index=index, embedder=embedder, settings=settings)
    began = time.perf_counter()
    lane.resume("bench")
    await lane.drain()
    backfill_s = time.perf_counter() - began
    await lane.stop()
    after = await model_alone()
    model_s = (before + after) / 2
    left = await store.embedding_counts("bench")
    return {
        "pending_chunks": len(pending),
        "distinct_texts": len(texts),
        "model_alone_s": round(model_s, 2),
        "model_alone_before_s": round(before, 2),
        "model_alone_after_s": round(after, 2),
        "model_chunks_per_s": round(len(pending) / model_s, 1),
        "backfill_s": round(backfill_s, 2),
        "backfill_chunks_per_s": round(len(pending) / backfill_s, 1),
        "backfill_over_model_rate": round(model_s / backfill_s, 3),
        "left_pending": left.pending,
        "dead_lettered": left.failed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", choices=["lkml", "default"], default="lkml")
    parser.add_argument("--embedder", choices=["onnx", "hashing"], default="onnx")
    parser.add_argument("--index", choices=["surreal", "inprocess"], default="surreal")
    parser.add_argument(
        "--only",
        choices=["import", "backfill"],
        help="run one leg (the ONNX backfill alone takes minutes on a busy machine)",
    )
    args = parser.parse_args()
    embedder = _embedder(args.embedder)
    with tempfile.TemporaryDirectory() as tmp:
        mbox, maildir = _unpack(args.corpus, Path(tmp))
        result: dict[str, object] = {
            "corpus": args.corpus,
            "embedder": args.embedder,
            "index": args.index,
            "mbox_read_per_s": round(_read_rate(MboxSourceAdapter(), mbox), 1),
            "maildir_read_per_s": round(_read_rate(MaildirSourceAdapter(), maildir), 1),
        }
        if args.only != "backfill":
            result["import"] = asyncio.run(
                _import_rate(maildir, embedder, Path(tmp) / "data", args.index, backfill=False)
            )
        if args.only != "import":
            result["backfill"] = asyncio.run(
                _import_rate(maildir, embedder, Path(tmp) / "data2", args.index, backfill=True)
            )
    result["machine"] = machine_info()
    result["code"] = code_version()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
