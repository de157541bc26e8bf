"""Writes the conversation fixture: made-up, dated, multi-session two-person chats and
questions with their evidence turns, tagged by the pattern each one tests.

    python -m benchmarks.conversations.generate [--split dev|heldout] [--out PATH] [--check]

Deterministic (fixed seed): the committed ``fixture.json`` (``--split dev``) and
``fixture_heldout.json`` (``--split heldout``: another seed and new templates,
``_facts_heldout``, that no development run looked at) are exactly what this
writes, and ``--check`` says whether they still are. Every fact and every line of
small talk comes from the hand-written templates in this package; nothing is
taken from a public benchmark.
"""

import argparse
import json
import random
import string
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks.conversations._facts_a import FIRST_PERSON, REPLY, SHORT
from benchmarks.conversations._facts_b import LISTS, NOT_SAID, PLAIN, SESSION_DATE, UPDATES
from benchmarks.conversations._facts_heldout import HELDOUT
from benchmarks.conversations._filler import FILLER, FILLER_SLOTS, OPENERS
from benchmarks.conversations._model import FactTemplate
from benchmarks.conversations._slots import NAMES, SLOTS

__all__ = ["FIXTURE", "HELDOUT_FIXTURE", "PATTERNS", "build", "main"]

FIXTURE = Path(__file__).resolve().parent / "fixture.json"
HELDOUT_FIXTURE = Path(__file__).resolve().parent / "fixture_heldout.json"
SEED = 16
HELDOUT_SEED = 61
CONVERSATIONS = 12
SESSIONS = 8
FACTS_PER_CONVERSATION = 11
#: small-talk exchanges per session (before the facts placed in it)
FILLER_PER_SESSION = (3, 5)

PATTERNS: dict[str, tuple[tuple[str, FactTemplate], ...]] = {
    "reply": tuple(("reply", t) for t in REPLY),
    "short_turn": tuple(("short_turn", t) for t in SHORT),
    "first_person": tuple(("first_person", t) for t in FIRST_PERSON),
    "session_date": tuple(("session_date", t) for t in SESSION_DATE),
    "cross_session_list": tuple(("cross_session_list", t) for t in LISTS),
    "update_or_not_said": tuple(("update", t) for t in UPDATES)
    + tuple(("not_said", t) for t in NOT_SAID),
    "plain": tuple(("plain", t) for t in PLAIN),
}


def _fields(text: str) -> list[str]:
    return [f for _, f, _, _ in string.Formatter().parse(text) if f]


def _fill_values(rng: random.Random, texts: list[str], people: dict[str, str]) -> dict[str, str]:
    values = dict(people)
    taken: dict[str, set[str]] = {}
    for text in texts:
        for name in _fields(text):
            if name in values:
                continue
            pool_name = name.rstrip("0123456789")
            pool = SLOTS.get(pool_name) or FILLER_SLOTS[pool_name]
            used = taken.setdefault(pool_name, set())
            choice = rng.choice([v for v in pool if v not in used])
            used.add(choice)
            values[name] = choice
    return values


class _Deck:
    """Templates of one pattern dealt in a shuffled cycle, so all get used evenly."""

    def __init__(self, rng: random.Random, items: tuple[tuple[str, FactTemplate], ...]) -> None:
        self._rng = rng
        self._items = items
        self._queue: list[int] = []

    def deal(self, avoid: set[int]) -> tuple[int, str, FactTemplate]:
        for _ in range(3 * len(self._items)):
            if not self._queue:
                self._queue = list(range(len(self._items)))
                self._rng.shuffle(self._queue)
            n = self._queue.pop()
            if n not in avoid:
                kind, template = self._items[n]
                return n, kind, template
        raise ValueError("not enough templates for one conversation")


def _session_dates(rng: random.Random) -> list[datetime]:
    moment = datetime(2023, 1, 2, tzinfo=UTC) + timedelta(days=rng.randrange(0, 200))
    dates = []
    for _ in range(SESSIONS):
        moment += timedelta(days=rng.randrange(3, 22))
        dates.append(moment.replace(hour=rng.randrange(7, 23), minute=rng.randrange(0, 60)))
    return dates


def _conversation(
    rng: random.Random, number: int, names: tuple[str, str], wanted: list[str],
    decks: dict[str, _Deck],
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    cid = f"c{number:02d}"
    # per session: blocks of (who, text, mark, fact number)
    blocks: list[list[list[tuple[str, str, str, int]]]] = [[] for _ in range(SESSIONS)]
    facts: list[dict[str, Any]] = []
    used: dict[str, set[int]] = {}
    for fact_no, pattern in enumerate(wanted):
        n, kind, template = decks[pattern].deal(used.setdefault(pattern, set()))
        used[pattern].add(n)
        owner, other = (names[0], names[1]) if rng.random() < 0.5 else (names[1], names[0])
        texts = [t for piece in template.pieces for _, t in piece]
        values = _fill_values(rng, [*texts, *template.questions, template.answer],
                              {"O": owner, "X": other})
        sessions = sorted(rng.sample(range(SESSIONS), len(template.pieces)))
        for session, piece in zip(sessions, template.pieces, strict=True):
            block = []
            for who, text in piece:
                speaker = owner if who[0] == "o" else other
                block.append((speaker, text.format(**values), who[1:], fact_no))
            blocks[session].append(block)
        facts.append({
            "pattern": pattern, "kind": kind, "person": owner,
            "question": rng.choice(template.questions).format(**values),
            "answer": template.answer.format(**values),
        })
    fillers = rng.sample(range(len(FILLER)), SESSIONS * FILLER_PER_SESSION[1])
    dates = _session_dates(rng)
    sessions_out = []
    evidence: dict[int, list[str]] = {}
    superseded: dict[int, list[str]] = {}
    for s in range(SESSIONS):
        chosen = [fillers.pop() for _ in range(rng.randint(*FILLER_PER_SESSION))]
        talk = [[(names[0] if w == "a" else names[1], t, "", -1) for w, t in FILLER[f]]
                for f in chosen]
        if rng.random() < 0.5:  # who speaks first varies
            talk = [[(names[1] if sp == names[0] else names[0], t, m, k) for sp, t, m, k in b]
                    for b in talk]
        middle = talk + blocks[s]
        rng.shuffle(middle)
        opener = [(names[0] if w == "a" else names[1], t, "", -1)
                  for w, t in rng.choice(OPENERS)]
        turns: list[dict[str, str]] = []
        for speaker, text, mark, fact_no in [*opener, *(line for b in middle for line in b)]:
            values = _fill_values(rng, [text], {})
            tid = f"{cid}-s{s + 1}-t{len(turns):02d}"
            turns.append({"turn_id": tid, "speaker": speaker, "text": text.format(**values)})
            if mark == "*":
                evidence.setdefault(fact_no, []).append(tid)
            elif mark == "~":
                superseded.setdefault(fact_no, []).append(tid)
        sessions_out.append({"session_id": f"{cid}-s{s + 1}", "date": dates[s].isoformat(),
                             "turns": turns})
    asked = (dates[-1] + timedelta(days=rng.randrange(1, 10))).isoformat()
    questions = [
        {**fact, "conversation_id": cid, "asked_at": asked, "evidence": evidence[n],
         "superseded": superseded.get(n, [])}
        for n, fact in enumerate(facts)
    ]
    return {"conversation_id": cid, "speakers": list(names), "sessions": sessions_out}, questions


def build(
    seed: int = SEED, patterns: dict[str, tuple[tuple[str, FactTemplate], ...]] | None = None
) -> dict[str, Any]:
    patterns = patterns or PATTERNS
    rng = random.Random(seed)
    people = rng.sample(NAMES, 2 * CONVERSATIONS)
    decks = {p: _Deck(rng, items) for p, items in patterns.items()}
    total = CONVERSATIONS * FACTS_PER_CONVERSATION
    labels = [list(patterns)[n % len(patterns)] for n in range(total)]
    if patterns is PATTERNS:
        rng.shuffle(labels)
    # else (held out, fewer templates a pattern): in turn, so no conversation needs more
    # templates of one pattern than there are
    conversations = []
    questions: list[dict[str, Any]] = []
    for c in range(CONVERSATIONS):
        wanted = labels[c * FACTS_PER_CONVERSATION : (c + 1) * FACTS_PER_CONVERSATION]
        pair = (people[2 * c], people[2 * c + 1])
        conversation, asked = _conversation(rng, c + 1, pair, wanted, decks)
        conversations.append(conversation)
        questions.extend(asked)
    for n, q in enumerate(questions, start=1):
        q["question_id"] = f"q{n:03d}"
    return {"seed": seed, "conversations": conversations, "questions": questions}


def render(fixture: dict[str, Any]) -> str:
    return json.dumps(fixture, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.conversations.generate")
    p.add_argument("--split", choices=["dev", "heldout"], default="dev")
    p.add_argument("--out", type=Path, help="default: fixture.json or fixture_heldout.json")
    p.add_argument("--check", action="store_true", help="fail if --out differs from a rebuild")
    args = p.parse_args(argv)
    heldout = args.split == "heldout"
    args.out = args.out or (HELDOUT_FIXTURE if heldout else FIXTURE)
    text = render(build(HELDOUT_SEED, HELDOUT) if heldout else build())
    if args.check:
        same = args.out.exists() and args.out.read_text(encoding="utf-8") == text
        print("fixture up to date" if same else f"{args.out} differs from a rebuild")
        sys.exit(0 if same else 1)
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
