"""Made-up one-chunk notes for benchmarks that need many sources and no model.

Fourteen words from a 2,000-word made-up vocabulary per note: every note is
one chunk, words repeat across notes often enough for BM25 to rank, and no
real text is needed.
"""

import random

__all__ = ["made_up_notes"]


def made_up_notes(n: int, rng: random.Random) -> list[str]:
    vocab = [
        f"{a}{b}" for a in ("ka", "lo", "mi", "ne", "ru", "sa", "to", "vi") for b in range(250)
    ]
    return [f"note {i}: " + " ".join(rng.choice(vocab) for _ in range(14)) for i in range(n)]
