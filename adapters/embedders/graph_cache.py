"""The int8 query graph, kept on disk once built, so a restart loads it instead of rebuilding it.

Why: rewriting the graph is Python work on the model's protobuf (~0.2 s on a
2-core machine) that holds the interpreter while the store opens beside it;
loading a saved graph is onnxruntime's own C++ work, which does not. The file
is named by what it was built from (the source model's size and modification
time, the rewrite's settings and onnxruntime's version), so another model or
library version builds and saves its own; it is written owner-only and
atomically, and one that cannot be read or written is simply rebuilt.
"""

import contextlib
import hashlib
import logging
import os
from collections.abc import Callable
from pathlib import Path

__all__ = ["cached_graph"]

_log = logging.getLogger(__name__)


def _name(source: Path, settings: str) -> str:
    import onnxruntime as ort

    stat = source.stat()
    facts = f"{source.name}|{stat.st_size}|{stat.st_mtime_ns}|{settings}|{ort.__version__}"
    return hashlib.sha256(facts.encode()).hexdigest()[:24] + ".onnx"


def cached_graph(
    cache_dir: Path | None, source: Path, settings: str, build: Callable[[], bytes | None]
) -> bytes | str | None:
    """The saved graph's path, else ``build()``'s graph (saved for next time); None when
    ``build`` has no graph to offer (the caller then keeps the original)."""
    if cache_dir is None:
        return build()
    path = cache_dir / _name(source, settings)
    if path.is_file():
        return str(path)
    graph = build()
    if graph is None:
        return None
    with contextlib.suppress(OSError):
        cache_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(graph)
        tmp.replace(path)
        _log.info("saved the int8 query graph to %s", path)
    return graph
