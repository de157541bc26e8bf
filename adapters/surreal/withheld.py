"""Redacted sources found by the words of what their redaction left, inside the engine.

Why a table of words: a search counts the redacted sources its query is
about (``application.retrieval.withheld``). Reading every redacted source of
the caller's spaces per query cost a search about 8 ms at 10k chunks, and a
field of words on each source did not help: the engine has to read every
redacted row to test it. So each redacted source's remainder (its summary, or
the text outside its spans) is kept as folded words
(``domain.withheld_match.remainder_terms``), one ``withheld_term`` row per
word with its space, indexed by word: a query looks up its own words and
reads only the rows that match. The rows are rewritten in the transaction
that writes the source, so they follow its lifecycle: a redaction writes
them, any other state removes them.
"""

from typing import Any

from adapters.surreal.codec import space_code
from adapters.surreal.connection import SurrealConnection
from domain.models import Source
from domain.scopes import LifecycleState
from domain.withheld_match import remainder_terms

__all__ = ["REFRESH_WITHHELD", "backfill_rows", "withheld_rows"]

#: in a source's write transaction, with ``$source_id`` and ``$withheld`` (its rows)
REFRESH_WITHHELD = (
    "DELETE withheld_term WHERE source_id = $source_id RETURN NONE;\n"
    "INSERT INTO withheld_term $withheld RETURN NONE;"
)


def _rows(source_id: str, space: str, remainder: str) -> list[dict[str, Any]]:
    terms = sorted(remainder_terms(remainder))
    return [{"term": t, "space": space, "source_id": source_id} for t in terms]


def withheld_rows(source: Source) -> list[dict[str, Any]]:
    """The ``withheld_term`` rows of a source: its remainder's words if redacted, else none."""
    if source.lifecycle is not LifecycleState.REDACTED:
        return []
    return _rows(source.source_id, space_code(source.scope, source.scope_key), source.content)


async def backfill_rows(conn: SurrealConnection, namespace: str) -> list[dict[str, Any]]:
    """The rows of every redacted source written before the table existed (migration 6)."""
    (found,) = await conn.query(
        namespace,
        "SELECT meta::id(id) AS id, space, content FROM source WHERE lifecycle = 'redacted';",
        operation="reading redacted sources to migrate",
    )
    return [row for r in found or [] for row in _rows(r["id"], r["space"], r["content"])]
