import re
from datetime import UTC, datetime

import pytest

from domain.hashing import content_hash
from domain.lifecycle import LifecycleState, Mark
from domain.models import Chunk, Principal, PrincipalKind, Source
from domain.scopes import MemoryScope, SourceType

NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def _source(**over: object) -> Source:
    fields: dict[str, object] = dict(
        source_id="s1",
        org_id="o",
        scope=MemoryScope.PRIVATE,
        scope_key=None,
        source_type=SourceType.NOTE,
        content="hello",
        content_hash=content_hash("hello"),
        created_by="u",
        created_at=NOW,
    )
    fields.update(over)
    return Source(**fields)  # type: ignore[arg-type]


def test_source_invariants() -> None:
    assert _source().version == 1
    with pytest.raises(ValueError, match="content"):
        _source(content="")
    with pytest.raises(ValueError, match="version"):
        _source(version=0)
    with pytest.raises(ValueError, match="scope_key"):
        _source(scope=MemoryScope.PROJECT)
    assert _source(scope=MemoryScope.PROJECT, scope_key="apollo").scope_key == "apollo"


def test_chunk_invariants() -> None:
    base: dict[str, object] = dict(
        chunk_id="c",
        source_id="s",
        org_id="o",
        ordinal=0,
        text="x",
        start=0,
        end=1,
        content_hash="h",
        scope=MemoryScope.PRIVATE,
        scope_key=None,
        created_at=NOW,
    )
    Chunk(**base)  # type: ignore[arg-type]
    bad_values: tuple[dict[str, object], ...] = (
        {"text": ""},
        {"start": 2, "end": 1},
        {"ordinal": -1},
        {"scope": MemoryScope.TEAM},
        {"speaker": " "},
        {"speaker": "Maya\n"},
    )
    for bad in bad_values:
        with pytest.raises(ValueError):
            Chunk(**{**base, **bad})  # type: ignore[arg-type]


def test_principal_agent_needs_a_user() -> None:
    assert Principal(principal_id="u").kind is PrincipalKind.USER
    agent = Principal(principal_id="bot", kind=PrincipalKind.AGENT, acting_for="u")
    assert agent.acting_for == "u"
    with pytest.raises(ValueError):
        Principal(principal_id="bot", kind=PrincipalKind.AGENT)
    with pytest.raises(ValueError):
        Principal(principal_id="u", acting_for="x")
    with pytest.raises(ValueError):
        Principal(principal_id="")


def test_content_hash_is_stable_sha256() -> None:
    assert content_hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert content_hash("é") != content_hash("e")


@pytest.mark.parametrize(
    ("speaker", "problem"),
    [
        (None, None),
        ("Maya", None),
        ("Zoë O'Neil-Ødegård", None),
        ("", "non-whitespace"),
        ("   ", "non-whitespace"),
        (" Maya", "one line"),
        ("Maya\nSam", "one line"),
        ("M" * 101, "longer than 100"),
    ],
)
def test_a_speaker_is_a_short_one_line_name(speaker: str | None, problem: str | None) -> None:
    from domain.models import speaker_problem

    found = speaker_problem(speaker)
    if problem is None:
        assert found is None
    else:
        assert found is not None
        assert problem in found


def test_what_the_ranker_reads_names_the_speaker() -> None:
    from domain.models import spoken_text

    assert spoken_text("I ran a marathon", "Maya") == "Maya: I ran a marathon"
    assert spoken_text("I ran a marathon", None) == "I ran a marathon"


def _exactly(message: str) -> str:
    return f"^{re.escape(message)}$"


def test_invalid_sources_say_exactly_why() -> None:
    cases: tuple[tuple[dict[str, object], str], ...] = (
        ({"content": ""}, "a source must have content"),
        ({"superseded_by": "s2"}, "only a superseded source names its replacement"),
        ({"duplicate_of": "s2"}, "only a duplicate names its canonical source"),
        ({"version": 0}, "version starts at 1"),
    )
    for over, message in cases:
        with pytest.raises(ValueError, match=_exactly(message)):
            _source(**over)
    assert _source(content="", lifecycle=LifecycleState.DELETED).content == ""
    assert _source(superseded_by="s2", lifecycle=LifecycleState.SUPERSEDED).superseded_by == "s2"
    assert _source(duplicate_of="s2", lifecycle=LifecycleState.DUPLICATE).duplicate_of == "s2"


def _chunk(**over: object) -> Chunk:
    fields: dict[str, object] = dict(
        chunk_id="c",
        source_id="s",
        org_id="o",
        ordinal=0,
        text="x",
        start=0,
        end=1,
        content_hash="h",
        scope=MemoryScope.PRIVATE,
        scope_key=None,
        created_at=NOW,
    )
    fields.update(over)
    return Chunk(**fields)  # type: ignore[arg-type]


def test_invalid_chunks_say_exactly_why() -> None:
    cases: tuple[tuple[dict[str, object], str], ...] = (
        ({"role": "robot"}, "role must be one of ['assistant', 'system', 'user']"),
        ({"speaker": " "}, "speaker must contain non-whitespace text"),
        ({"turn_index": -1}, "turn_index must be >= 0"),
        ({"text": ""}, "a chunk must have text"),
        ({"start": 1, "end": 1}, "chunk span must be a non-empty range"),
        ({"ordinal": -1}, "ordinal must be >= 0"),
    )
    for over, message in cases:
        with pytest.raises(ValueError, match=_exactly(message)):
            _chunk(**over)
    assert _chunk(role="user", turn_index=0, speaker="Maya").turn_index == 0


def test_invalid_principals_say_exactly_why() -> None:
    with pytest.raises(ValueError, match=_exactly("principal_id must not be empty")):
        Principal(principal_id="")
    with pytest.raises(
        ValueError, match=_exactly("an agent principal must name the user it acts for")
    ):
        Principal(principal_id="bot", kind=PrincipalKind.AGENT)
    with pytest.raises(ValueError, match=_exactly("a user principal acts for nobody else")):
        Principal(principal_id="u", acting_for="x")


def test_speaker_messages_and_the_length_limit() -> None:
    from domain.models import MAX_SPEAKER_CHARS, speaker_problem

    assert speaker_problem("M" * MAX_SPEAKER_CHARS) is None
    assert speaker_problem(" ") == "speaker must contain non-whitespace text"
    assert speaker_problem("Maya ") == "speaker must be one line without leading or trailing spaces"


def test_a_private_source_belongs_to_its_space_other_sources_to_their_writer() -> None:
    assert _source(scope_key="alice", created_by="agent").owner == "alice"
    assert _source(scope_key=None, created_by="agent").owner == "agent"
    shared = _source(scope=MemoryScope.PROJECT, scope_key="apollo", created_by="bob")
    assert shared.owner == "bob"


def test_a_chunk_is_recalled_as_its_source_unless_its_own_state_is_stricter() -> None:
    from domain.models import chunk_recall

    source = _source(scope_key="alice", marks=frozenset({Mark.SENSITIVE}))
    assert chunk_recall(source, _chunk()) == "owner:alice"
    assert chunk_recall(_source(), _chunk()) == "open"
    assert chunk_recall(_source(), _chunk(lifecycle=LifecycleState.HIDDEN)) == "closed"
    deleted = _source(content="", lifecycle=LifecycleState.DELETED)
    assert chunk_recall(deleted, _chunk()) == "closed"
