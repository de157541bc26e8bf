"""``tessera wake [--space scope[/key]] [--budget N] [--json]``: what matters now.

Calls the same backend (and so the same route, policy and audit) as the
other commands.
"""

import argparse
import json
from typing import TYPE_CHECKING, Any

from domain.wake import DEFAULT_WAKE_BUDGET

if TYPE_CHECKING:
    from entrypoints.backends import Backend

__all__ = ["add_wake_parser", "run_wake"]


def add_wake_parser(sub: Any) -> None:
    wake = sub.add_parser("wake", help="what matters now: decisions, tasks, preferences, recent")
    wake.add_argument("--space", help="scope[/key]: only that space")
    wake.add_argument("--budget", type=int, default=DEFAULT_WAKE_BUDGET, help="at most 1200")
    wake.add_argument("--json", action="store_true", help="print JSON")


async def run_wake(backend: "Backend", args: argparse.Namespace) -> int:
    body: dict[str, Any] = {"token_budget": args.budget}
    if args.space:
        body["space"] = args.space
    pack = await backend.call("POST", "/api/context/wake", body)
    if args.json:
        print(json.dumps(pack))
        return 0
    print(
        f"Wake pack: {pack['token_count']}/{pack['token_budget']} tokens ({pack['encoding']}), "
        f"{len(pack['items'])} items, {pack['omitted']} left out"
    )
    section = None
    for item in pack["items"]:
        if item["section"] != section:
            section = item["section"]
            print(f"\n{section}:")
        print(f"  - {item['text']}")
        print(f"    [{', '.join(item['source_ids'])}] {item['reason']}")
    return 0
