"""The rules extractor and its sentence segmenter on real mail and real chat.

Real mailing-list mail (the notmuch test corpora: lkml and the default corpus)
and real messaging-app chats (REALTALK's development split) are read from
the evaluation data at test time, never copied into the project; the tests skip,
saying why, where they are absent. A dot between a letter or digit and a
lowercase letter or digit is inside a token (a version "1.0", a host
"api.example.com", a decimal "2.5", a file "config.yaml"): no sentence may
begin or end there. A split at every dot cut 2,853 lines of the lkml mail,
407 of the default corpus and 9 chat lines so; the segmenter cuts none.
"""

import json
import lzma
from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters.sources.mbox import MboxSourceAdapter
from adapters.text.sentences import SentencexSegmenter
from application.imports.records import ImportRecord
from domain.composition import conversation_text
from domain.models import Turn
from domain.reflection.candidates import CandidateType
from domain.reflection.rules import extract_by_rules

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
MAIL = DATA / "email"
CHAT = DATA / "realtalk" / "realtalk_dev.json.xz"

_SEGMENTER = SentencexSegmenter()
#: candidates whose text is a sentence of the source (people and relationships are not)
_SENTENCE_KINDS = frozenset(CandidateType) - {CandidateType.PERSON, CandidateType.RELATIONSHIP}


def _inside_a_token(text: str, at: int) -> bool:
    """True when a boundary at ``at`` splits a token at a dot: ``x.y`` with y lowercase or
    a digit (an uppercase letter after a glued dot is a sentence start that lost its space)."""
    if not 2 <= at < len(text) or text[at - 1] != ".":
        return False
    return text[at - 2].isalnum() and (text[at].islower() or text[at].isdigit())


def _mail(name: str, tmp: Path) -> list[str]:
    packed = MAIL / f"notmuch_{name}.mbox.xz"
    if not packed.is_file():
        pytest.skip(f"the notmuch corpora are not at {MAIL} (../shared is absent)")
    mbox = tmp / f"{name}.mbox"
    mbox.write_bytes(lzma.decompress(packed.read_bytes()))
    return [r.content for r in MboxSourceAdapter().read(mbox) if isinstance(r, ImportRecord)]


def _chat_sessions() -> list[str]:
    """Each REALTALK session as one conversation text, turns with their speakers."""
    if not CHAT.is_file():
        pytest.skip(f"REALTALK is not at {CHAT} (../shared is absent)")
    with lzma.open(CHAT) as packed:
        chats = json.load(packed)
    sessions = []
    for chat in chats:
        for key, turns in chat["conversation"].items():
            if key.startswith("session_") and isinstance(turns, list):
                said = [Turn(role="user", content=t["text"], speaker=t["speaker"]) for t in turns]
                sessions.append(conversation_text(said)[0])
    return sessions


@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    tmp = tmp_path_factory.mktemp("real-text")
    return {
        "lkml mail": _mail("lkml", tmp),
        "default mail": _mail("default", tmp),
        "realtalk chat": _chat_sessions(),
    }


def _lines(texts: list[str]) -> Iterator[str]:
    for text in texts:
        yield from (line for line in text.split("\n") if line.strip())


@pytest.mark.parametrize("name", ["lkml mail", "default mail", "realtalk chat"])
def test_no_sentence_boundary_falls_inside_a_token(
    corpora: dict[str, list[str]], name: str
) -> None:
    lines = list(_lines(corpora[name]))
    assert len(lines) > 1_000, "the corpus is smaller than it should be"
    cuts = []
    for line in lines:
        spans = _SEGMENTER.sentences(line)
        assert "".join(line[start:end] for start, end in spans) == line  # nothing dropped
        ends = [end for _, end in spans if _inside_a_token(line, end)]
        cuts += [line[max(0, end - 30) : end + 20] for end in ends]
    assert cuts == [], f"{len(cuts)} cut(s), e.g. {cuts[:3]}"


@pytest.mark.parametrize("name", ["lkml mail", "default mail", "realtalk chat"])
def test_extracted_statements_quote_whole_sentences(
    corpora: dict[str, list[str]], name: str
) -> None:
    statements = 0
    for n, text in enumerate(corpora[name]):
        for found in extract_by_rules(str(n), text, _SEGMENTER.sentences):
            if found.type not in _SENTENCE_KINDS:
                continue
            statements += 1
            (span,) = found.spans
            quoted = text[span.start : span.end]
            assert found.text == quoted or found.text == quoted[: len(found.text) - 1] + "…"
            for at in (span.start, span.end):
                assert not _inside_a_token(text, at), f"cut inside a token: {quoted[:80]!r}"
    # decisions, tasks, preferences, procedures and events the rules find in each corpus
    assert statements >= {"lkml mail": 10, "default mail": 10, "realtalk chat": 100}[name]
