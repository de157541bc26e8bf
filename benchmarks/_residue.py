"""Pieces of the delete-residue benchmark: the service, the turns, the byte scan, RSS.

The service is the composition root's own (``_wiring``) over a SurrealDB store
and its native index, so every write goes through ``MemoryService.remember``
and the memory policy. Vectors come from the reference hashing embedder at the
production width (384), so rows have the real size (a chunk row then outgrows
the engine's 4 KiB inline limit, as with the ONNX model) without a model.
"""

import os
import random
import resource
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from adapters.inmemory.hashing_embedder import HashingEmbedder
from application.memory.commands import RememberRequest
from application.memory.service import MemoryService
from application.ports import MemoryStore
from benchmarks._data import data_path, load_corpus
from benchmarks._wiring import make_index, make_service, make_store
from domain.models import Principal
from domain.policy import MemoryPolicyContext, OrgRole, Surface
from domain.visible_text import has_visible_text

__all__ = [
    "canary_files",
    "load_turns",
    "owner",
    "remember_all",
    "rss_mib",
    "service_on",
]

#: the production embedder's width (MiniLM)
DIMENSION = 384
_WORDS = [
    *("tea", "garden", "meeting", "budget", "travel", "museum", "recipe", "invoice"),
    *("river", "doctor", "train", "weekend", "project", "deadline", "guitar", "coffee"),
]


def service_on(url: str) -> tuple[MemoryStore, MemoryService]:
    store = make_store(url)
    service = make_service(store, make_index("surreal", store), HashingEmbedder(DIMENSION))
    return store, service


def owner(org: str) -> MemoryPolicyContext:
    return MemoryPolicyContext(
        org_id=org,
        actor=Principal(principal_id="residue-benchmark"),
        surface=Surface.JOB,
        now=datetime.now(UTC),
        org_role=OrgRole.OWNER,
    )


def load_turns(count: int, path: Path | None = None) -> tuple[list[str], str]:
    """Real LongMemEval turns when the data set is there (``path``, else
    ``TESSERA_LME_DATA``, else the data beside the checkout: ``_data.data_path``), else
    seeded synthetic ones; and which of the two, to be printed with the figures (a
    checkout elsewhere, such as a worktree of an older commit, finds no data beside it)."""
    path = data_path(path)
    if path.exists():
        # a turn with no visible text is refused by remember (LongMemEval holds a few)
        turns = [t for t in load_corpus(path).turns if has_visible_text(t)]
        if len(turns) >= count:
            return turns[:count], f"LongMemEval turns ({path.name})"
    rng = random.Random(7)
    synthetic = [
        " ".join(rng.choice(_WORDS) for _ in range(rng.randint(20, 120))) for _ in range(count)
    ]
    return synthetic, "synthetic turns (data set absent)"


async def remember_all(service: MemoryService, org: str, texts: Sequence[str]) -> list[str]:
    ids = []
    for text in texts:
        result = await service.remember(RememberRequest(org_id=org, content=text), owner(org))
        ids.append(result.source_id)
    await service.lane.drain()  # vectors and cached embeddings exist before anything is deleted
    return ids


def canary_files(directory: Path, canary: str) -> dict[str, int]:
    """Files under ``directory`` holding the canary (as written or lowercased), by path."""
    needles = {canary.encode(), canary.lower().encode()}
    found: dict[str, int] = {}
    for root, _, files in os.walk(directory):
        for name in files:
            path = Path(root) / name
            try:
                data = path.read_bytes()
            except FileNotFoundError:
                continue
            hits = sum(data.count(n) for n in needles)
            if hits:
                found[str(path.relative_to(directory))] = hits
    return found


def rss_mib() -> float:
    """Resident set size now (Linux), else the peak, in MiB."""
    try:
        with open("/proc/self/statm") as handle:
            pages = int(handle.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
