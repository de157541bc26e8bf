"""Schema migration 6 gives redactions written before it their words.

A namespace prepared by a release without the ``withheld_term`` table holds
redacted sources without word rows (the old release's writes are simulated by
writing none); after the migration they are matched as if they had been
redacted since.
"""

import msgspec
import pytest

from adapters.surreal import change_log, corrections, schema
from adapters.surreal.memory_store import SurrealMemoryStore
from contracts.samples import SPACE, make_source
from domain.scopes import LifecycleState
from domain.withheld_match import REDACTED_MARK, query_terms

pytestmark = pytest.mark.slow

ORG = "org-migrating"


async def test_migration_6_backfills_the_words_of_earlier_redactions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before_6 = tuple(m for m in schema.MIGRATIONS if m.version < 6)
    assert [m.version for m in before_6] == [1, 2, 3, 4, 5]
    store = SurrealMemoryStore("mem://")
    try:
        with monkeypatch.context() as patch:
            patch.setattr(schema, "MIGRATIONS", before_6)
            patch.setattr(corrections, "REFRESH_WITHHELD", "")  # that release wrote no words
            patch.setattr(change_log, "ADVANCE", "")  # nor change stamps (schema v8)
            patch.setattr(change_log, "STAMP", "")
            patch.setattr(corrections, "DROP_STAGED", "")  # nor staged vectors (schema v9)
            await store.prepare(ORG, SPACE)
            for sid, remainder in (("s1", f"deploy keys {REDACTED_MARK}"), ("s2", "rota")):
                source = make_source(sid, ORG, content="the deploy key is hunter2")
                await store.save_memory(source, [])
                redacted = msgspec.structs.replace(
                    source, version=2, lifecycle=LifecycleState.REDACTED, content=remainder
                )
                await store.update_source(redacted, expected_version=1, drop_text=True)
        await store.prepare(ORG, SPACE)
        deploy = query_terms("deploy key")
        found = await store.redacted_sources(ORG, None, deploy, 10)
        assert [s.source_id for s in found] == ["s1"]
        rota = await store.redacted_sources(ORG, None, frozenset({"rota"}), 10)
        assert [s.source_id for s in rota] == ["s2"]
        assert await store.redacted_sources(ORG, None, query_terms("hunter2"), 10) == []
    finally:
        await store.close()
