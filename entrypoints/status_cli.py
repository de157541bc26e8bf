"""``tessera status``: the service's diagnostics as text (or JSON with ``--json``)."""

import json
from typing import Any

__all__ = ["print_status"]


def _snapshot(index: dict[str, Any]) -> str:
    if index.get("snapshot_bytes") is None:
        return ", no snapshot on disk"
    return (
        f", snapshot {index['snapshot_bytes'] / 1e6:.1f} MB ({index['snapshot_rows']} rows), "
        f"{index['snapshot_age_seconds']:.0f} s old, {index['catch_up_lag']} changes behind"
    )


def _resident(index: dict[str, Any]) -> str:
    if index.get("resident") is None:
        return ""
    if not index["resident"]:
        return "; not in memory (loaded on its next use)"
    retraining = ", vector index retraining in the background" if index.get("retraining") else ""
    return (
        f"; in memory: {index['resident_rows']} rows, "
        f"~{index['resident_bytes'] / 1e6:.1f} MB (estimate){retraining}"
    )


def print_status(status: dict[str, Any], *, as_json: bool) -> None:
    if as_json:
        print(json.dumps(status, indent=2))
        return
    print(
        f"store {status['store_url_kind']}:// ({status['engine']}), index "
        f"{status['retrieval_index']}, embedder {status['embedder_model']} "
        f"({status['embedding_dimension']} dims)"
    )
    store = status.get("store") or {}
    if store:
        size = store["data_bytes"]
        on_disk = "not on disk" if size is None else f"{size / 1e6:.1f} MB on disk"
        since = store["written_since_checkpoint"]
        pace = "" if since is None else f", {since} of {store['checkpoint_every']} rows to the next"
        print(f"store: {on_disk}, {store['checkpoints']} checkpoints{pace}")
    print(f"audit receipts waiting to be written: {status['audit_pending']}")
    print(f"embedding queue in this process: {status.get('embedding_queue_depth', 0)} chunks")
    for queue in status.get("queues", []):
        lag = queue["oldest_age_s"]
        waited = "" if lag is None else f", oldest waiting {lag:.1f} s"
        failed = "" if queue.get("failed") is None else f", {queue['failed']} failed"
        print(f"queue {queue['name']}: {queue['depth']} waiting{waited}{failed}")
    print(f"organisations: {len(status['organisations'])}")
    for org in status["organisations"]:
        chunks = "?" if org["chunks"] is None else org["chunks"]
        sources = "?" if org.get("sources") is None else org["sources"]
        ready = "index ready" if org.get("index_ready") else "index not built yet"
        print(f"  {org['org_id']} ({org['name']}): {sources} sources, {chunks} chunks, {ready}")
        index = org.get("index") or {}
        if index:
            print(f"    index: {index['kind']}{_snapshot(index)}{_resident(index)}")
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
