"""Import throughput on the notmuch corpora in ../shared/data/email: read, then write.

Two figures per corpus: how fast an adapter reads an archive (messages/s,
parsing only), and how fast ``ImportService`` writes it through the real
SurrealDB store and index (messages/s to written and searchable). Until the
asynchronous embedding lane exists every write waits for its vectors, so the
second figure includes the embedder: ``--embedder onnx`` is the default
model, ``--embedder hashing`` the reference embedder (the write path without
the model's cost).

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
from application.ports import Embedder
from application.sources.authority import JobAuthorizer
from application.sources.import_service import ImportService
from application.sources.jobs import JobAuthority
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


async def _import_rate(maildir: Path, embedder_name: str, data_dir: Path) -> dict[str, float]:
    store = make_store(f"surrealkv://{data_dir}")
    index = make_index("surreal", store)
    from entrypoints.container import make_audit_log, make_control_store
    from entrypoints.container import make_services as compose_services

    control = make_control_store(store)
    services = compose_services(
        store, index, _embedder(embedder_name), control, make_audit_log(store), "bench"
    )
    await services.open(Surface.CLI)
    owner = await services.control.principal("bench", "owner")
    imports = ImportService(
        memory=services.memory,
        store=InMemoryImportStore(),
        contexts=JobAuthorizer(control, services.access),
        adapters={"maildir": MaildirSourceAdapter()},
        ids=TimeOrderedIds(),
        clock=SystemClock(),
    )
    authority = JobAuthority(org_id="bench", principal_id=owner.principal_id)
    try:
        job = await imports.create(adapter="maildir", path=maildir, authority=authority)
        began = time.perf_counter()
        done = await imports.run("bench", job.import_id)
        seconds = time.perf_counter() - began
    finally:
        await services.close()
    c = done.counters
    return {
        "read": c.read,
        "written": c.written,
        "duplicates": c.duplicates,
        "import_s": round(seconds, 2),
        "written_per_s": round(c.written / seconds, 1),
        "read_per_s": round(c.read / seconds, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", choices=["lkml", "default"], default="lkml")
    parser.add_argument("--embedder", choices=["onnx", "hashing"], default="onnx")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        mbox, maildir = _unpack(args.corpus, Path(tmp))
        result: dict[str, object] = {
            "corpus": args.corpus,
            "embedder": args.embedder,
            "mbox_read_per_s": round(_read_rate(MboxSourceAdapter(), mbox), 1),
            "maildir_read_per_s": round(_read_rate(MaildirSourceAdapter(), maildir), 1),
        }
        result.update(asyncio.run(_import_rate(maildir, args.embedder, Path(tmp) / "data")))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
