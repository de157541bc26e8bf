"""Who is who: the names people call each other, read from how they talk.

Speakers are stored by their handle (``Emi``, ``elise``) while a question
uses the name people call them ("What are Kate's hobbies?", where Kate is
``Emi``). The talk itself says who is who: the other speaker greets or
addresses them by it ("How are you doing today Kate?", "thanks, Kate!"), or
they name themselves ("this is Kate", "I'm Kate"). Only the candidates a
question brought are read, so a name the question uses is usually among
them (the word search finds the turns that say it).
"""

import re
from collections import Counter
from collections.abc import Sequence

from domain.ranking.candidate import Candidate
from domain.words import stem

__all__ = ["speaker_aliases"]

_NAME = r"([A-Z][a-z]{2,})"
_OPENERS = (
    r"hi|hey|hello|hiya|yo|morning|good morning|good night|goodnight|night|evening|"
    r"thanks|thank you|thx|bye|goodbye|congrats|congratulations|sorry|dear|"
    r"love you|miss you|welcome|yes|yeah|no|ok|okay|oh|aww|haha|wow|"
    r"how are you|how are you doing|how are you doing today|how was your day"
)
#: the other speaker addressed: "Hi Kate", "thanks, Kate", "How are you doing today Kate?"
_GREETED = re.compile(r"(?i:\b(?:" + _OPENERS + r"))[,!.]*\s+" + _NAME + r"\b(?!\s+[a-z])")
#: weaker: a name set off at a sentence's end ("see you soon, Kate!")
_TRAILING = re.compile(r",\s*" + _NAME + r"\s*(?:[!?]|$)")
#: the speaker naming themselves: "this is Kate", "I'm Kate", "my name is Kate"
_SELF = re.compile(r"(?i:\b(?:this is|i'm|i am|my name is|call me))\s+" + _NAME + r"\b")
#: capitalised words that open a sentence or name no one
_NOT_NAMES = frozenset(
    [
        "the",
        "and",
        "but",
        "you",
        "your",
        "yes",
        "yeah",
        "yep",
        "nope",
        "okay",
        "well",
        "good",
        "great",
        "nice",
        "cool",
        "sure",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "how",
        "this",
        "that",
        "there",
        "here",
        "then",
        "just",
        "also",
        "really",
        "lol",
        "haha",
        "omg",
        "wow",
        "thanks",
        "thank",
        "sorry",
        "please",
        "hello",
        "bye",
        "morning",
        "night",
        "today",
        "tomorrow",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "january",
        "february",
        "march",
        "april",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "god",
    "indeed",
    "absolutely",
    "definitely",
    "totally",
    "certainly",
    "exactly",
    "right",
    "alright",
    "anyway",
    "honestly",
    ]
)


def _other(speakers: set[str], speaker: str) -> str | None:
    others = speakers - {speaker}
    return next(iter(others)) if len(others) == 1 else None


def speaker_aliases(candidates: Sequence[Candidate]) -> dict[str, str]:
    """Stemmed name -> the speaker it names, where the candidates say so and no other
    speaker is called by it; a speaker's own handle is not listed."""
    everyone = {c.speaker for c in candidates if c.speaker}
    by_episode: dict[str, set[str]] = {}
    for c in candidates:
        if c.speaker:
            by_episode.setdefault(c.episode_id, set()).add(c.speaker)
    handles = {stem(w) for s in everyone for w in re.findall(r"[a-z0-9]+", s.lower())}
    votes: Counter[tuple[str, str]] = Counter()
    strong: set[tuple[str, str]] = set()
    for c in candidates:
        if not c.speaker:
            continue
        addressee = _other(by_episode[c.episode_id], c.speaker) or _other(everyone, c.speaker)
        named = [(m, c.speaker, True) for m in _SELF.findall(c.text)]
        if addressee is not None:
            named += [(m, addressee, True) for m in _GREETED.findall(c.text)]
            named += [(m, addressee, False) for m in _TRAILING.findall(c.text)]
        for name, who, sure in named:
            key = stem(name.lower())
            if name.lower() not in _NOT_NAMES and key not in handles:
                votes[(key, who)] += 1
                if sure:
                    strong.add((key, who))
    aliases: dict[str, str] = {}
    for (name, who), count in votes.most_common():
        rival = max((n for (k, w), n in votes.items() if k == name and w != who), default=0)
        if name not in aliases and count > rival and count >= 2 and (name, who) in strong:
            aliases[name] = who
    return aliases
