"""More turns than LongMemEval holds, made from its own: for fills past ~186k chunks.

The dev file's 107k unique turns yield 186,222 chunks; a million-chunk fill
needs about five times that. Repeating turns would make a corpus of exact
duplicates (a BM25 term's document frequency multiplied, every vector hit
five times over), so each further *round* makes every turn anew, by rules that
keep the text real and the term statistics close to the data's:

1. **Recombined sentences.** Turn ``i`` keeps its first half of sentences and
   takes the second half of a partner turn's (the partner is a fixed
   pseudo-random turn per round), so each text is real prose from the data,
   and its length and vocabulary stay those of the data.
2. **Swapped numbers.** Every number is shifted by the round (``3 days`` ->
   ``5 days`` in round 2), keeping its digit count where it can.
3. **Swapped names.** Capitalised words inside a sentence (names of people,
   places, products) are mapped, per round, to another such word of the
   data by a fixed rotation of that vocabulary, so names stay names.

A text that comes out equal to one already made is left out. Everything is
seeded by the round number: the same data gives the same turns in every run.
"""

import random
import re
from collections.abc import Iterator, Sequence

__all__ = ["vary_turns"]

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_NUMBER = re.compile(r"\b\d+\b")
#: a capitalised word inside a sentence (after a lower-case word and a space)
_NAME = re.compile(r"(?<=[a-z] )([A-Z][a-z]{2,})\b")


def _names(turns: Sequence[str]) -> list[str]:
    found: set[str] = set()
    for turn in turns:
        found.update(_NAME.findall(turn))
    return sorted(found)


def _shift_number(match: re.Match[str], by: int) -> str:
    digits = match.group(0)
    value = int(digits) + by
    width = len(digits)
    if len(str(value)) > width and width > 1:  # keep a year a year, a 2-digit a 2-digit
        value %= 10**width
    return str(value).zfill(width) if digits.startswith("0") else str(value)


def vary(turn: str, partner: str, round_no: int, rename: dict[str, str]) -> str:
    """One turn of round ``round_no`` (>= 1), from ``turn`` and its partner."""
    mine = _SENTENCE.split(turn.strip())
    theirs = _SENTENCE.split(partner.strip())
    kept = mine[: (len(mine) + 1) // 2] + theirs[(len(theirs) + 1) // 2 :]
    text = " ".join(kept)
    text = _NUMBER.sub(lambda m: _shift_number(m, round_no), text)
    return _NAME.sub(lambda m: rename.get(m.group(1), m.group(1)), text)


def vary_turns(turns: Sequence[str], skip: set[str] | None = None) -> Iterator[str]:
    """Rounds 1, 2, ... of varied turns, endlessly (the caller stops); never a text in
    ``turns`` or ``skip``, never one twice."""
    if not turns:
        return
    seen = set(turns) | (skip or set())
    names = _names(turns)
    round_no = 0
    while True:
        round_no += 1
        rng = random.Random(f"tessera-vary-{round_no}")
        partners = list(range(len(turns)))
        rng.shuffle(partners)
        shift = rng.randrange(1, max(len(names), 2))
        rename = {n: names[(k + shift) % len(names)] for k, n in enumerate(names)}
        made = 0
        for i, turn in enumerate(turns):
            text = vary(turn, turns[partners[i]], round_no, rename)
            if text.strip() and text not in seen:
                seen.add(text)
                made += 1
                yield text
        if made == 0:  # nothing new can come of these turns
            return
