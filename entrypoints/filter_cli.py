"""The CLI's search filter flags: ``tessera recall|context ... --type email --from alice``.

The flags build the same ``filters`` object the HTTP API and the MCP tools take
(application.memory.filters), so the service validates them once, the same way for
every surface; the CLI only splits ``--meta KEY=VALUE``.
"""

import argparse
import json
from typing import Any

from domain.scopes import MemoryScope, SourceType

__all__ = ["add_filter_arguments", "filters_body"]


def add_filter_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "filters", "narrow the search; every filter given must hold (names ignore case)"
    )
    group.add_argument("--scope", choices=[s.value for s in MemoryScope], help="one scope")
    group.add_argument("--scope-key", help="with --scope: one space (a project's key, ...)")
    group.add_argument(
        "--type",
        dest="source_types",
        action="append",
        choices=[s.value for s in SourceType],
        help="a source type (repeat for any of several)",
    )
    group.add_argument("--import", dest="import_id", help="only what this import wrote")
    group.add_argument("--from", dest="sender", help="in the From header (a name or address)")
    group.add_argument("--to", dest="recipient", help="in the To header")
    group.add_argument("--cc", help="in the Cc header")
    group.add_argument("--speaker", help="a conversation turn's speaker")
    group.add_argument("--participant", help="in From, To or Cc, or the speaker")
    group.add_argument("--since", help="occurred at or after (ISO 8601; a date is its whole day)")
    group.add_argument("--until", help="occurred at or before (ISO 8601, inclusive)")
    group.add_argument(
        "--meta",
        action="append",
        metavar="KEY=VALUE",
        help="metadata equality (repeatable); VALUE is read as JSON when it is a number, "
        "true or false, else as text",
    )


def _scalar(text: str) -> Any:
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if isinstance(value, bool | int | float | str) else text


def filters_body(args: argparse.Namespace) -> dict[str, Any] | None:
    """The ``filters`` object of the request body, or None when no flag was given."""
    out: dict[str, Any] = {}
    if args.scope:
        out["scope"] = args.scope
    if args.scope_key:
        out["scope_key"] = args.scope_key
    if args.source_types:
        out["source_type"] = list(dict.fromkeys(args.source_types))
    if args.import_id:
        out["import_id"] = args.import_id
    people = {
        role: value
        for role, value in (
            ("from", args.sender),
            ("to", args.recipient),
            ("cc", args.cc),
            ("speaker", args.speaker),
            ("any", args.participant),
        )
        if value
    }
    if people:
        out["participants"] = people
    span = {name: value for name, value in (("from", args.since), ("to", args.until)) if value}
    if span:
        out["occurred_at"] = span
    if args.meta:
        metadata: dict[str, Any] = {}
        for item in args.meta:
            key, sep, value = item.partition("=")
            if not sep or not key:
                raise SystemExit(f"tessera: --meta takes KEY=VALUE, got {item[:60]!r}")
            metadata[key] = _scalar(value)
        out["metadata"] = metadata
    return out or None
