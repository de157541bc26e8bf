from datetime import UTC, datetime
from itertools import count

from domain.chunking import ChunkingRules
from domain.composition import compose_memory
from domain.hashing import content_hash
from domain.scopes import MemoryScope, SourceType

NOW = datetime(2026, 5, 1, 9, 30, tzinfo=UTC)


def test_one_source_and_chunks_that_inherit_its_identity_scope_and_times() -> None:
    ids = count()
    content = " ".join(f"word{i}" for i in range(60))
    source, chunks = compose_memory(
        new_id=lambda: f"id{next(ids)}",
        org_id="acme",
        actor_id="ana",
        content=content,
        now=NOW,
        scope=MemoryScope.PROJECT,
        scope_key="apollo",
        source_type=SourceType.EMAIL,
        source_uri="mid:123",
        metadata={"from": "bob"},
        occurred_at=datetime(2026, 4, 30, tzinfo=UTC),
        rules=ChunkingRules(max_chars=100, overlap_chars=10),
    )
    assert (source.source_id, source.created_by, source.content) == ("id0", "ana", content)
    assert (source.org_id, source.created_at) == ("acme", NOW)
    assert source.content_hash == content_hash(content)
    assert (source.source_uri, source.metadata) == ("mid:123", {"from": "bob"})
    assert len(chunks) > 3
    assert [c.chunk_id for c in chunks] == [f"id{n}" for n in range(1, len(chunks) + 1)]
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    for chunk in chunks:
        assert (chunk.source_id, chunk.org_id) == ("id0", "acme")
        assert (chunk.scope, chunk.scope_key) == (MemoryScope.PROJECT, "apollo")
        assert (chunk.created_at, chunk.occurred_at) == (NOW, source.occurred_at)
        assert content[chunk.start : chunk.end] == chunk.text
        assert chunk.content_hash == content_hash(chunk.text)


def test_defaults_are_a_private_note_with_no_metadata() -> None:
    source, (chunk,) = compose_memory(
        new_id=iter(["s", "c"]).__next__, org_id="o", actor_id="u", content="hi", now=NOW
    )
    assert (source.scope, source.source_type, source.metadata) == (
        MemoryScope.PRIVATE,
        SourceType.NOTE,
        {},
    )
    assert chunk.chunk_id == "c"


def test_a_conversation_is_one_source_and_each_turn_keeps_role_index_and_span() -> None:
    from domain.models import Turn

    ids = count()
    later = datetime(2026, 4, 30, 10, 5, tzinfo=UTC)
    source, chunks = compose_memory(
        new_id=lambda: f"id{next(ids)}",
        org_id="acme",
        actor_id="ana",
        content="",
        now=NOW,
        source_type=SourceType.CONVERSATION,
        occurred_at=datetime(2026, 4, 30, 10, 0, tzinfo=UTC),
        turns=[
            Turn(role="user", content="Is the piano tuner coming Monday?"),
            Turn(role="assistant", content=" ".join(["Yes, at nine."] * 12), occurred_at=later),
        ],
        rules=ChunkingRules(max_chars=60, overlap_chars=10),
    )
    assert source.content.startswith("user: Is the piano tuner coming Monday?\n\nassistant: Yes")
    assert [c.role for c in chunks][:2] == ["user", "assistant"]
    assert {c.turn_index for c in chunks} == {0, 1}
    assert all(source.content[c.start : c.end] == c.text for c in chunks)
    assert chunks[0].occurred_at == source.occurred_at
    assert all(c.occurred_at == later for c in chunks if c.turn_index == 1)
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))


def test_content_and_turns_together_are_refused() -> None:
    import pytest

    from domain.models import Turn

    with pytest.raises(ValueError, match=r"^give content or turns, not both$"):
        compose_memory(
            new_id=lambda: "x",
            org_id="o",
            actor_id="a",
            content="text",
            now=NOW,
            turns=[Turn(role="user", content="hi")],
        )


def test_a_turns_speaker_is_kept_beside_its_role_and_its_text_stays_verbatim() -> None:
    from domain.models import Turn

    ids = count()
    source, chunks = compose_memory(
        new_id=lambda: f"id{next(ids)}",
        org_id="acme",
        actor_id="ana",
        content="",
        now=NOW,
        source_type=SourceType.CONVERSATION,
        turns=[
            Turn(role="user", content="Did you adopt the cat?", speaker="Sam"),
            Turn(role="assistant", content="Yes!! We called him Pixel.", speaker="Maya"),
            Turn(role="system", content="(session ended)"),
        ],
    )
    assert source.content == (
        "Sam (user): Did you adopt the cat?\n\n"
        "Maya (assistant): Yes!! We called him Pixel.\n\n"
        "system: (session ended)"
    )
    assert [(c.role, c.speaker) for c in chunks] == [
        ("user", "Sam"),
        ("assistant", "Maya"),
        ("system", None),
    ]
    assert all(source.content[c.start : c.end] == c.text for c in chunks)
    assert chunks[1].text == "Yes!! We called him Pixel."
