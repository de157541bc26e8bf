"""How many threads numpy's BLAS may use for one call.

Why one by default: the exact vector leg is a matrix-vector product over an
organisation's vectors (below the inverted file's threshold), and OpenBLAS runs
such a product on a pool of threads that spin after each call, waiting for the
next. On two cores that spinning thread took about 15 CPU-ms a search at 10k
chunks, as much as the whole search on the main thread, and the cores it held
were the ones concurrent requests and the query's model needed
(docs/scaling.md#numpys-blas-threads).
"""

__all__ = ["limit_blas_threads"]


def limit_blas_threads(threads: int | None) -> None:
    """Let numpy's BLAS use at most ``threads`` threads from now on (None: as it chose).

    Done after numpy is loaded, which loads the BLAS library: threadpoolctl limits the
    libraries a process has loaded, not those it loads later (faiss's own BLAS, loaded
    with the inverted file, keeps its threads for training it)."""
    if threads is None:
        return
    import numpy  # noqa: F401  (loads the BLAS library to be limited)
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=threads, user_api="blas")
