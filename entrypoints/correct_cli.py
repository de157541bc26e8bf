"""``tessera correct SOURCE_ID ACTION``: preview a correction, and apply it with ``--apply``.

Without ``--apply`` nothing changes: the preview is printed. With it, the
command previews first and applies with that preview's token, so the CLI
follows the same two steps (and the same reason codes) as every surface.
"""

import argparse
import json
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from domain.lifecycle import CorrectionAction

if TYPE_CHECKING:
    from entrypoints.backends import Backend

__all__ = ["add_correct_parser", "run_correct"]


def _span(text: str) -> dict[str, int]:
    start, sep, end = text.partition(":")
    try:
        if not sep:
            raise ValueError(text)
        return {"start": int(start), "end": int(end)}
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not START:END") from None


def add_correct_parser(sub: Any) -> None:
    correct = sub.add_parser(
        "correct",
        help="preview (and with --apply, apply) a correction of a source",
        description="Prints what the correction would change; applies it only with --apply.",
    )
    correct.add_argument("source_id")
    correct.add_argument("action", choices=[a.value for a in CorrectionAction])
    correct.add_argument("--reason", help="why (kept on the source, never in the audit log)")
    correct.add_argument("--replacement", help="supersede: the replacing source id")
    correct.add_argument("--canonical", help="mark_duplicate: the canonical source id")
    correct.add_argument("--span", action="append", type=_span, help="redact: START:END")
    correct.add_argument("--summary", help="redact: what stands in for the redacted text")
    correct.add_argument("--apply", action="store_true", help="apply after the preview")
    correct.add_argument("--json", action="store_true", help="print JSON")


def _body(args: argparse.Namespace) -> dict[str, Any]:
    body: dict[str, Any] = {"action": args.action}
    for name, value in (
        ("reason", args.reason),
        ("replacement_id", args.replacement),
        ("canonical_id", args.canonical),
        ("spans", args.span),
        ("summary", args.summary),
    ):
        if value is not None:
            body[name] = value
    return body


def _print_preview(preview: dict[str, Any]) -> None:
    impact = preview["impact"]
    print(
        f"{preview['action']} on source {preview['source_id']} (version {preview['version']}): "
        f"{preview['state']} -> {preview['resulting_state']}"
        f"{'' if preview['reversible'] else ' (cannot be undone)'}"
    )
    print(
        f"  chunks: {len(preview['affected_chunk_ids'])}; leaving search: {impact['leaving']} "
        f"(for the owner {impact['leaving_for_owner']}); entering: {impact['entering']}; "
        f"demoted: {len(impact['demoted_chunk_ids'])}; text removed: {impact['text_removed']}"
    )
    if impact["chars_removed"]:
        print(
            f"  characters removed for good: {impact['chars_removed']}; "
            f"kept: {impact['chars_kept']}"
        )


async def run_correct(backend: "Backend", args: argparse.Namespace) -> int:
    path = f"/api/memory/inspect/{quote(args.source_id, safe='')}/corrections"
    body = _body(args)
    preview = await backend.call("POST", path + "/preview", body)
    if not args.apply:
        if args.json:
            print(json.dumps(preview))
        else:
            _print_preview(preview)
            print("Nothing changed; run again with --apply to apply it.")
        return 0
    applied = await backend.call("POST", path, {**body, "preview_token": preview["preview_token"]})
    if args.json:
        print(json.dumps(applied))
    else:
        _print_preview(preview)
        print(
            f"Applied: source {applied['source_id']} is now {applied['state']} "
            f"(version {applied['version']})."
        )
    return 0
