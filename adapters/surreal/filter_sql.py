"""Search ``filters`` as SurrealQL conditions for the native index's chunk queries.

The space and the ``occurred_at`` range are fields of every chunk row and become
plain conditions. Source facets (type, mail participants, metadata) live in the
source's JSON metadata, which SurrealQL cannot match, so the sources of the
caller's spaces are read first and matched here by the domain's own facets
(domain.search_filters); the chunk query then keeps ``source_id IN`` the
matching ones (or, for a speaker, ``speaker IN`` the matching names). The
filter is thus inside the query that ranks, as the policy is: k results come
back when k matching chunks exist. The price is a scan of the caller's sources
per filtered query; the in-process index (the default) holds the facets instead.
"""

from typing import Any

import msgspec

from adapters.surreal.connection import SurrealConnection
from domain.models import MetadataValue
from domain.scopes import SourceType
from domain.search_filters import SearchFilters, source_facets, speaker_facets

__all__ = ["narrowing_sql"]

_SOURCES_ALL = "SELECT meta::id(id) AS id, source_type, metadata FROM source;"
_SOURCES_IN = "SELECT meta::id(id) AS id, source_type, metadata FROM source WHERE space IN $spaces;"
_SPEAKERS = "SELECT VALUE speaker FROM chunk WHERE speaker != NONE GROUP BY speaker;"

_metadata = msgspec.json.Decoder(dict[str, MetadataValue])


async def narrowing_sql(
    conn: SurrealConnection,
    namespace: str,
    narrow: SearchFilters,
    spaces: list[str] | None,
) -> tuple[list[str], dict[str, Any]]:
    """Conditions (ANDed) and their variables; ``spaces``: the caller's space codes or None."""
    conditions: list[str] = []
    params: dict[str, Any] = {}
    if narrow.scope is not None:
        conditions.append("scope = $f_scope")
        params["f_scope"] = str(narrow.scope)
        if narrow.scope_key is not None:
            conditions.append("scope_key = $f_key")
            params["f_key"] = narrow.scope_key
    if narrow.has_time:
        conditions.append("occurred_at != NONE")
        if narrow.occurred_from is not None:
            conditions.append("occurred_at >= $f_from")
            params["f_from"] = narrow.occurred_from
        if narrow.occurred_to is not None:
            conditions.append("occurred_at <= $f_to")
            params["f_to"] = narrow.occurred_to
    groups = narrow.facet_groups()
    if not groups:
        return conditions, params
    (rows,) = await conn.query(
        namespace,
        _SOURCES_ALL if spaces is None else _SOURCES_IN,
        {"spaces": spaces or []},
        operation="matching search filters",
    )
    facets = {
        str(row["id"]): source_facets(
            SourceType(row["source_type"]), _metadata.decode(row["metadata"])
        )
        for row in rows or []
    }
    speakers: dict[str, frozenset[str]] = {}
    if any(facet.startswith("speaker:") for group in groups for facet in group):
        (names,) = await conn.query(namespace, _SPEAKERS, operation="matching search filters")
        speakers = {str(name): speaker_facets(str(name)) for name in names or []}
    for n, group in enumerate(groups):
        params[f"f_s{n}"] = sorted(sid for sid, have in facets.items() if group & have)
        params[f"f_p{n}"] = sorted(name for name, have in speakers.items() if group & have)
        conditions.append(f"(source_id IN $f_s{n} OR speaker IN $f_p{n})")
    return conditions, params
