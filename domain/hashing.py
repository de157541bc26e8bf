"""Content hashes: identity of text for dedup and the embedding cache."""

import hashlib

__all__ = ["content_hash"]


def content_hash(text: str) -> str:
    """sha256 of the UTF-8 text, hex; stable across processes and machines."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
