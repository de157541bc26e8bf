"""Ids that sort by creation time: 48-bit milliseconds + 80 random bits, base32.

Sortable ids keep chunk-id order close to insertion order, which keeps index
rebuilds and keyset pagination stable.
"""

import secrets
import time

__all__ = ["TimeOrderedIds"]

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"  # Crockford base32, lowercase


def _encode(value: int, length: int) -> str:
    out = []
    for _ in range(length):
        out.append(_ALPHABET[value & 31])
        value >>= 5
    return "".join(reversed(out))


class TimeOrderedIds:
    def __init__(self) -> None:
        self._last_ms = -1
        self._last_random = 0

    def new_id(self) -> str:
        ms = time.time_ns() // 1_000_000
        if ms <= self._last_ms:
            # same millisecond (or clock stepped back): keep strictly increasing
            ms = self._last_ms
            rand = self._last_random + 1
        else:
            rand = secrets.randbits(80)
        self._last_ms, self._last_random = ms, rand
        return _encode(ms, 10) + _encode(rand & ((1 << 80) - 1), 16)
