"""SurrealDB 3 adapters: the MemoryStore (the truth) and its native retrieval index.

Submodules are imported by the composition root only when SurrealDB is chosen.
"""

__all__: list[str] = []
