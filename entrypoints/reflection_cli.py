"""``tessera reflect`` and ``tessera candidates``: derived memory from the command line.

``tessera reflect SOURCE_ID... | --space scope[/key] [--extractor rules|llm]``
proposes candidates; ``tessera candidates list [--state pending]`` shows
them; ``tessera candidates accept|reject|defer ID [--promote-to-scope S
--scope-key K]`` reviews one. Every call goes through the same backend (and
so the same HTTP routes, policy and audit) as the other commands.
"""

import argparse
import json
from typing import TYPE_CHECKING, Any

from domain.errors import InvalidInputError
from domain.reasons import ReasonCode
from domain.reflection.candidates import ReviewState
from domain.scopes import MemoryScope
from entrypoints.paths import path_segment

if TYPE_CHECKING:
    from entrypoints.backends import Backend

__all__ = ["add_reflection_parsers", "run_candidates", "run_reflect"]


def add_reflection_parsers(sub: Any) -> None:
    reflect = sub.add_parser("reflect", help="propose candidates from sources or a space")
    reflect.add_argument("source_ids", nargs="*", help="source ids (or use --space)")
    reflect.add_argument("--space", help="scope[/key]: up to 200 of that space's sources")
    reflect.add_argument("--extractor", choices=["rules", "llm"], default="rules")
    reflect.add_argument("--json", action="store_true", help="print JSON")
    candidates = sub.add_parser("candidates", help="list and review reflection candidates")
    candidates.add_argument("action", choices=["list", "accept", "reject", "defer"])
    candidates.add_argument("candidate_id", nargs="?", help="the candidate (review actions)")
    candidates.add_argument("--state", choices=[s.value for s in ReviewState])
    candidates.add_argument("--limit", type=int, default=50)
    candidates.add_argument(
        "--promote-to-scope", choices=[s.value for s in MemoryScope], help="accept only"
    )
    candidates.add_argument("--scope-key", help="the key of --promote-to-scope's space")
    candidates.add_argument("--json", action="store_true", help="print JSON")


def _print_candidates(items: list[dict[str, Any]]) -> None:
    if not items:
        print("No candidates.")
    for c in items:
        print(
            f"{c['id']}  {c['state']:<8} {c['type']:<12} {c['confidence']:.2f} "
            f"-> {c['suggested_scope']}  sources {', '.join(c['source_ids'])}"
        )
        print("   " + " ".join(c["text"].split())[:200])


async def run_reflect(backend: "Backend", args: argparse.Namespace) -> int:
    body: dict[str, Any] = {"extractor": args.extractor}
    if args.space:
        body["space"] = args.space
    if args.source_ids:
        body["source_ids"] = args.source_ids
    result = await backend.call("POST", "/api/memory/reflect", body)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"Read {result['sources']} source(s); {len(result['candidates'])} candidate(s)")
    for skipped in result["skipped"]:
        print(f"  skipped {skipped['source_id']}: {skipped['reason']}")
    _print_candidates(result["candidates"])
    return 0


async def run_candidates(backend: "Backend", args: argparse.Namespace) -> int:
    if args.action == "list":
        params = f"?limit={args.limit}" + (f"&state={args.state}" if args.state else "")
        result = await backend.call("GET", "/api/memory/candidates" + params)
        print(json.dumps(result)) if args.json else _print_candidates(result["candidates"])
        return 0
    if not args.candidate_id:
        raise InvalidInputError(ReasonCode.INVALID_REQUEST, f"{args.action} needs a candidate id")
    path = f"/api/memory/candidates/{path_segment(args.candidate_id)}/{args.action}"
    body: dict[str, Any] | None = None
    if args.action == "accept":
        body = {}
        if args.promote_to_scope:
            body["promote_to_scope"] = args.promote_to_scope
        if args.scope_key:
            body["scope_key"] = args.scope_key
    result = await backend.call("POST", path, body)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"Candidate {result['candidate']['id']} is {result['candidate']['state']}")
    for record in result["promoted"]:
        print(f"  {record['kind']} {record['id']} ({record['type']}) from {record['source_ids']}")
    return 0
