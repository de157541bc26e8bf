"""A search in an organisation that redacted nothing asks the engine once, not each time."""

import pytest

from adapters.surreal.memory_store import SurrealMemoryStore
from adapters.surreal.withheld_presence import WithheldPresence
from contracts.samples import SPACE, make_source
from domain.withheld_match import query_terms

pytestmark = pytest.mark.slow

ORG = "org-presence"


def test_a_read_marks_none_only_if_no_write_of_withheld_words_ran_beside_it() -> None:
    presence = WithheldPresence(exact=True)
    token = presence.reading("ns")
    with presence.writing("ns"):  # a redaction sent and committed while the read ran
        pass
    presence.read_none("ns", token)
    assert not presence.known_none("ns")
    with presence.writing("ns"):  # sent before the read, committed after it: the read ran
        token = presence.reading("ns")  # in the engine first and found nothing
        presence.read_none("ns", token)
        assert not presence.known_none("ns")
    presence.read_none("ns", presence.reading("ns"))
    assert presence.known_none("ns")
    with presence.writing("ns"):
        assert not presence.known_none("ns")


def test_with_an_engine_other_processes_write_to_nothing_is_known() -> None:
    presence = WithheldPresence(exact=False)
    presence.read_none("ns", presence.reading("ns"))
    assert not presence.known_none("ns")


async def test_the_second_search_of_an_organisation_without_redactions_skips_the_engine() -> None:
    store = SurrealMemoryStore("mem://")
    try:
        await store.prepare(ORG, SPACE)
        await store.save_memory(make_source("s1", ORG, content="the pager rota"), [])
        rota = query_terms("the pager rota")
        assert await store.redacted_sources(ORG, None, rota, 10) == []
        before = store._conn.round_trips
        assert await store.redacted_sources(ORG, None, rota, 10) == []
        assert store._conn.round_trips == before
    finally:
        await store.close()
