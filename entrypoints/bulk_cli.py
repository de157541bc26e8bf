"""``tessera export`` and ``tessera delete``: the bulk routes from the command line.

``delete`` previews by default and deletes only with ``--apply`` (preview,
then apply with its token), like ``tessera correct``.
"""

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from domain.scopes import MemoryScope

if TYPE_CHECKING:
    from entrypoints.backends import Backend

__all__ = ["add_bulk_parsers", "run_bulk"]


def add_bulk_parsers(sub: Any) -> None:
    export = sub.add_parser("export", help="export what you may read as JSON lines")
    export.add_argument("--out", type=Path, help="write to FILE (default: stdout)")
    export.add_argument("--preview", action="store_true", help="only count what would go out")

    delete = sub.add_parser(
        "delete",
        help="delete many sources (preview; --apply to delete)",
        description="Name exactly one selection. Prints the preview; deletes only with --apply.",
    )
    chosen = delete.add_mutually_exclusive_group(required=True)
    chosen.add_argument("--mine", action="store_true", help="every source you own")
    chosen.add_argument("--space", choices=[s.value for s in MemoryScope], help="a space's scope")
    chosen.add_argument("--ids", nargs="+", metavar="SOURCE_ID", help="these sources")
    chosen.add_argument("--uri-prefix", help="an import: sources whose source_uri starts so")
    delete.add_argument("--space-key", help="with --space: the space's key")
    delete.add_argument("--reason", help="why (kept on each tombstone)")
    delete.add_argument("--apply", action="store_true", help="delete after the preview")
    delete.add_argument("--json", action="store_true", help="print JSON")


def _selector(args: argparse.Namespace) -> dict[str, Any]:
    body: dict[str, Any] = {}
    if args.mine:
        body["mine"] = True
    elif args.space:
        body["scope"], body["scope_key"] = args.space, args.space_key
    elif args.ids:
        body["source_ids"] = args.ids
    else:
        body["source_uri_prefix"] = args.uri_prefix
    if args.reason:
        body["reason"] = args.reason
    return body


async def _export(backend: "Backend", args: argparse.Namespace) -> int:
    if args.preview:
        print(json.dumps(await backend.call("POST", "/api/memory/export/preview")))
        return 0
    lines = await backend.text("POST", "/api/memory/export")
    if args.out is None:
        sys.stdout.write(lines)
    else:
        args.out.write_text(lines, encoding="utf-8")
        print(f"Exported {lines.count(chr(10))} source(s) to {args.out}", file=sys.stderr)
    return 0


async def _delete(backend: "Backend", args: argparse.Namespace) -> int:
    body = _selector(args)
    preview = await backend.call("POST", "/api/memory/delete/preview", body)
    if not args.apply:
        if args.json:
            print(json.dumps(preview))
        else:
            print(
                f"Would delete {preview['sources']} source(s) (about "
                f"{preview['chunks_estimate']} chunk(s)); {preview['skipped']} skipped. "
                "This cannot be undone; run again with --apply to delete."
            )
        return 0
    done = await backend.call(
        "POST", "/api/memory/delete", {**body, "preview_token": preview["preview_token"]}
    )
    print(json.dumps(done) if args.json else f"Deleted {done['deleted']} source(s).")
    return 0


async def run_bulk(backend: "Backend", args: argparse.Namespace) -> int:
    return await (_export if args.command == "export" else _delete)(backend, args)
