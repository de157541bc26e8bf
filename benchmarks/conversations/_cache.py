"""Where the conversation benchmarks keep their document vectors between runs."""

from benchmarks.longmemeval_prefill import CACHE_DIR as _LME_CACHE

__all__ = ["CACHE_DIR"]

CACHE_DIR = _LME_CACHE.parent / "conversation-embedding-cache"
