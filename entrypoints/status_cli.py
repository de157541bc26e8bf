"""``tessera status``: the service's diagnostics as text (or JSON with ``--json``)."""

import json
from typing import Any

__all__ = ["print_status"]


def print_status(status: dict[str, Any], *, as_json: bool) -> None:
    if as_json:
        print(json.dumps(status, indent=2))
        return
    print(
        f"store {status['store_url_kind']}:// ({status['engine']}), index "
        f"{status['retrieval_index']}, embedder {status['embedder_model']} "
        f"({status['embedding_dimension']} dims)"
    )
    print(f"audit receipts waiting to be written: {status['audit_pending']}")
    print(f"embedding queue in this process: {status.get('embedding_queue_depth', 0)} chunks")
    print(f"organisations: {len(status['organisations'])}")
    for org in status["organisations"]:
        chunks = "?" if org["chunks"] is None else org["chunks"]
        print(f"  {org['org_id']} ({org['name']}): {chunks} chunks")
        if org.get("embedding_pending") is not None:
            print(
                f"    embedding: {org['embedding_pending']} pending, "
                f"{org['embedding_failed']} dead-lettered, "
                f"lag {org['embedding_lag_seconds'] or 0:.1f} s"
            )
    errors = status["recent_errors"]
    print(f"recent warnings and errors: {len(errors)}")
    for error in errors[:20]:
        print(f"  {error['at']} {error['level']} {error['logger']}: {error['message']}")
