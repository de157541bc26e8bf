"""``tessera import``: start, watch, pause, resume, cancel and list archive imports.

The CLI talks to the import routes like every other command (in-process or
the running service). ``start`` and ``resume`` follow the import with a live
progress bar on stderr (records read, written, duplicates, skipped, rate,
ETA); Ctrl-C pauses the import between batches and says how to resume it.
A running service imports a path only inside the caller's organisation's
import area (it says where); a CLI that opens the store itself, run by
whoever holds the data directory, reads any path its user can. Either way
only an organisation's owner, or a principal the operator approved, imports
by path.
"""

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from domain.errors import InvalidInputError, NotFoundError, UpstreamError
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope
from entrypoints.import_words import record_words, skip_words

if TYPE_CHECKING:
    from entrypoints.backends import Backend
    from entrypoints.settings import Settings

__all__ = ["ADAPTERS", "add_import_parser", "run_import"]

ADAPTERS = ("mbox", "maildir", "jsonl", "chatgpt", "markdown")
_BASE = "/api/sources/imports"
_ACTIVE = {"pending", "running"}
#: how often a followed import is polled
_POLL_S = 0.25


def add_import_parser(sub: Any) -> None:
    imp = sub.add_parser("import", help="import an archive (mail, chats, notes)")
    cmds = imp.add_subparsers(dest="import_command", required=True)
    start = cmds.add_parser("start", help="import an archive, with a progress bar (Ctrl-C pauses)")
    start.add_argument("path", help="the archive: a file or folder")
    start.add_argument(
        "--adapter", choices=ADAPTERS, help="its format (default: told by its name or content)"
    )
    start.add_argument("--scope", choices=[s.value for s in MemoryScope], default="private")
    start.add_argument("--scope-key")
    start.add_argument("--json", action="store_true", help="no bar; print the final record")
    for name, text in (
        ("status", "show an import"),
        ("resume", "resume a paused or interrupted import"),
        ("pause", "pause a running import"),
        ("cancel", "cancel an import for good"),
    ):
        cmd = cmds.add_parser(name, help=text)
        cmd.add_argument("import_id")
        cmd.add_argument("--json", action="store_true", help="print the record as JSON")
    listing = cmds.add_parser("list", help="your imports, newest first")
    listing.add_argument("--json", action="store_true", help="print JSON")


def _summary(record: dict[str, Any]) -> str:
    c = record["counters"]
    target = record["target"]
    where = target["scope"] + (f"/{target['scope_key']}" if target.get("scope_key") else "")
    line = (
        f"{record['id']}  {record['status']:<9}  {record['adapter']:<8} into {where}: "
        f"read {c['read']}, written {c['written']}, duplicates {c['duplicates']}, "
        f"skipped {c['skipped']}, failed {c['failed']}"
    )
    line += f"  [{record['error']}]" if record.get("error") else ""
    warning = record.get("warning")
    return line + (f"  [warning: {warning['reason']}]" if warning else "")


def _print(record: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(record))
        return
    print(_summary(record))
    if record.get("warning"):
        print(f"  warning: {record['warning']['detail']}")
    for problem in record["skipped"][:10]:
        where = record_words(record["adapter"], problem["record_id"])
        print(f"  skipped {where}: {skip_words(problem['reason'])} ({problem['detail']})")
    if len(record["skipped"]) > 10:
        print(f"  ... {len(record['skipped']) - 10} more in --json")


class _Bar:
    """A tqdm bar over records read; the other counters ride along as its postfix."""

    def __init__(self, total: int | None, start: int) -> None:
        from tqdm import tqdm

        self._bar = tqdm(
            total=total, initial=start, unit=" rec", desc="importing", file=sys.stderr,
            dynamic_ncols=True, smoothing=0.1,
        )  # fmt: skip

    def show(self, record: dict[str, Any]) -> None:
        c = record["counters"]
        if self._bar.total is not None and c["read"] > self._bar.total:
            self._bar.total = c["read"]
        self._bar.set_postfix(
            written=c["written"],
            dup=c["duplicates"],
            skipped=c["skipped"],
            failed=c["failed"],
            refresh=False,
        )
        self._bar.update(c["read"] - self._bar.n)

    def close(self) -> None:
        self._bar.close()


async def _follow(
    backend: "Backend", record: dict[str, Any], as_json: bool, total: int | None
) -> int:
    import asyncio

    path = f"{_BASE}/{quote(record['id'], safe='')}"
    bar = None if as_json else _Bar(total, record["counters"]["read"])
    try:
        while record["status"] in _ACTIVE:
            await asyncio.sleep(_POLL_S)
            record = await backend.call("GET", path)
            if bar is not None:
                bar.show(record)
    except asyncio.CancelledError:  # Ctrl-C: pause between batches, then say how to go on
        record = await backend.call("POST", f"{path}/pause")
        if bar is not None:
            bar.close()
        _print(record, as_json)
        print(
            f"Paused. Resume with: tessera import resume {record['id']}",
            file=sys.stderr,
        )
        raise
    if bar is not None:
        bar.close()
    _print(record, as_json)
    if record["status"] == "failed":
        raise UpstreamError(
            ReasonCode(record["error"] or ReasonCode.INTERNAL_ERROR),
            f"import {record['id']} failed; fix the cause and run tessera import resume",
        )
    return 0


def _archive(args: argparse.Namespace) -> Path:
    """The archive's absolute path: the service decides whether it may read it."""
    return Path(args.path).expanduser().absolute()


async def _format_of(path: Path) -> str:
    """The archive's format, told by its name or its content, as the workspace tells it."""
    import asyncio

    from adapters.sources.sniff import format_of

    if not await asyncio.to_thread(path.exists):
        raise NotFoundError(ReasonCode.NOT_FOUND, "there is no archive at that path")
    found = await asyncio.to_thread(format_of, path, ADAPTERS)
    if found is None:
        raise InvalidInputError(
            ReasonCode.UNKNOWN_ADAPTER,
            f"neither the name nor the content of {path.name} says its format: "
            f"name it with --adapter ({', '.join(ADAPTERS)})",
        )
    return found


async def _total(adapter: str, path: Path) -> int | None:
    import asyncio

    from adapters.sources.estimate import estimate_items

    return await asyncio.to_thread(estimate_items, adapter, path)


async def run_import(backend: "Backend", args: argparse.Namespace, settings: "Settings") -> int:
    command = args.import_command
    if command == "list":
        records = await backend.call("GET", _BASE)
        if args.json:
            print(json.dumps(records))
        for record in [] if args.json else records:
            print(_summary(record))
        if not records and not args.json:
            print("No imports yet.")
        return 0
    if command == "start":
        path = _archive(args)
        adapter = args.adapter or await _format_of(path)
        body: dict[str, Any] = {"path": str(path), "adapter": adapter, "scope": args.scope}
        if args.scope_key:
            body["scope_key"] = args.scope_key
        record = await backend.call("POST", _BASE, body)
        if not args.json:
            told = "" if args.adapter else f" (read as {adapter}: name it with --adapter if not)"
            print(
                f"Import {record['id']} of {path}{told} via {backend.description}",
                file=sys.stderr,
            )
        return await _follow(backend, record, args.json, await _total(adapter, path))
    path_of = f"{_BASE}/{quote(args.import_id, safe='')}"
    if command == "status":
        _print(await backend.call("GET", path_of), args.json)
        return 0
    if command == "resume":
        record = await backend.call("POST", f"{path_of}/resume")
        if not args.json:
            print(f"Resuming import {record['id']} via {backend.description}", file=sys.stderr)
        total = await _total(record["adapter"], Path(record["path"]))
        return await _follow(backend, record, args.json, total)
    _print(await backend.call("POST", f"{path_of}/{command}"), args.json)  # pause, cancel
    return 0
