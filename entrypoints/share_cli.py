"""``tessera share ID --to SCOPE[/KEY]``: preview a share, and apply it with ``--apply``.

Like ``tessera correct``: without ``--apply`` nothing changes and the
preview is printed (who would newly see it, what follows, what stays
withheld); with it, the command previews first and applies with that
preview's token, through the same HTTP use case as every surface.
"""

import argparse
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from entrypoints.backends import Backend

__all__ = ["add_share_parser", "run_share"]


def add_share_parser(sub: Any) -> None:
    share = sub.add_parser(
        "share",
        help="preview (and with --apply, apply) sharing a source or an entity into a space",
        description="Prints who would newly see it; shares a copy only with --apply.",
    )
    share.add_argument("id", help="the source id (or, with --entity, the entity id)")
    share.add_argument("--to", required=True, help="the target space: scope[/key]")
    share.add_argument("--entity", action="store_true", help="share a promoted entity")
    share.add_argument("--apply", action="store_true", help="apply after the preview")
    share.add_argument("--json", action="store_true", help="print JSON")


def _body(args: argparse.Namespace) -> dict[str, Any]:
    scope, _, key = args.to.partition("/")
    return {
        "kind": "entity" if args.entity else "source",
        "id": args.id,
        "scope": scope.strip().lower(),
        "scope_key": key.strip() or None,
    }


def _print_preview(preview: dict[str, Any]) -> None:
    verdict = "allowed" if preview["allowed"] else f"refused ({preview['reason']})"
    print(
        f"Share {preview['kind']} {preview['subject_id']}: "
        f"{preview['from_space']} -> {preview['to_space']}: {verdict}"
    )
    names = ", ".join(r["name"] for r in preview["newly_visible"])
    print(
        f"  newly visible to {preview['newly_visible_users']} user(s) and "
        f"{preview['newly_visible_agents']} agent(s){': ' + names if names else ''}"
    )
    reach = preview["reach"]
    print(
        f"  readers of {preview['to_space']}: {reach['visible']} would see it; withheld from "
        f"{reach['hidden']} (hidden source), {reach['redacted']} (redacted), "
        f"{reach['denied']} (denied)"
    )
    records = ", ".join(f"{n} {kind}" for kind, n in preview["records"].items())
    print(
        f"  copied: {records}; derived records staying behind: {preview['derived_staying']}"
    )


async def run_share(backend: "Backend", args: argparse.Namespace) -> int:
    body = _body(args)
    preview = await backend.call("POST", "/api/memory/share/preview", body)
    if not args.apply or not preview["allowed"]:
        if args.json:
            print(json.dumps(preview))
        else:
            _print_preview(preview)
            if preview["allowed"]:
                print("Nothing changed; run again with --apply to share it.")
        return 0 if preview["allowed"] or not args.apply else 4
    applied = await backend.call(
        "POST", "/api/memory/share", {**body, "preview_token": preview["preview_token"]}
    )
    if args.json:
        print(json.dumps(applied))
    else:
        _print_preview(preview)
        print(f"Shared as {applied['shared_id']} in {applied['to_space']}.")
    return 0
