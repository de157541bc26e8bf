"""What a long-running server built while starting, kept out of the collector's walks.

Why: CPython's cyclic garbage collector walks every tracked container in each
full collection, and a service taking writes runs one every few hundred
requests, on the event loop, inside whichever request it falls in. A started
service holds ~100k such objects that live as long as it does (modules,
classes, the app, the services and their indexes): at 100k chunks a full
collection took 130-220 ms inside a search, 11-26 ms with them frozen
(benchmarks/RESULTS.md, issue 18, "Full collections inside searches").
"""

import gc
import logging
import time

__all__ = ["freeze_startup_objects"]

_log = logging.getLogger("tessera.startup")


def freeze_startup_objects() -> int:
    """Collect the start's garbage once, then move every object alive into the
    collector's permanent generation (``gc.freeze``); how many are frozen now.

    Called once the services are open, before the server listens. What is frozen
    is still freed when its last reference goes; only a reference cycle among
    frozen objects outlives its use, and the objects alive at the start are the
    process's own until it exits."""
    began = time.perf_counter()
    gc.collect()
    gc.freeze()
    frozen = gc.get_freeze_count()
    _log.info(
        "%d objects built while starting left out of garbage collection (%.0f ms)",
        frozen,
        (time.perf_counter() - began) * 1000,
    )
    return frozen
