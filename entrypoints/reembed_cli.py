"""``tessera reembed --embedder NAME``: change the embedding model without downtime.

Calls the same routes as any client (``POST``/``GET /api/admin/reembed``), so a
running service does the work in its background while this command shows the
progress; with no service running the command holds the store itself and the
run lasts as long as the command does (interrupted, the next run resumes).
"""

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from entrypoints.backends import Backend

__all__ = ["add_reembed_parser", "run_reembed"]

_ROUTE = "/api/admin/reembed"
_ACTIVE = {"running", "switching"}


def add_reembed_parser(sub: Any) -> None:
    reembed = sub.add_parser(
        "reembed",
        help="build every chunk's vector with another embedder, then switch to it "
        "(the install's owner; search keeps serving meanwhile)",
    )
    which = reembed.add_mutually_exclusive_group(required=True)
    which.add_argument("--embedder", help="the embedder to switch to (a TESSERA_EMBEDDER name)")
    which.add_argument("--status", action="store_true", help="show the progress and return")
    reembed.add_argument(
        "--detach",
        action="store_true",
        help="with a running service: start it and return without waiting",
    )
    reembed.add_argument(
        "--every", type=float, default=2.0, help="seconds between progress lines (default 2)"
    )
    reembed.add_argument("--json", action="store_true", help="print the final status as JSON")


def _line(status: dict[str, Any]) -> str:
    done, total = status["done"], status["total"]
    share = f" ({100 * done / total:.0f} %)" if total else ""
    rate = f", {status['rate']:.1f} chunks/s" if status.get("rate") else ""
    eta = f", about {status['eta_seconds']:.0f} s left" if status.get("eta_seconds") else ""
    target = status.get("target_model") or "-"
    return (
        f"reembed {status['state']}: {done}/{total} chunks{share}{rate}{eta}; "
        f"target {target}, serving {status['serving_model']}"
    )


async def run_reembed(backend: "Backend", args: argparse.Namespace) -> int:
    import asyncio

    if args.status:
        status = await backend.call("GET", _ROUTE)
    else:
        status = await backend.call("POST", _ROUTE, {"embedder": args.embedder})
        detach = args.detach and backend.description.startswith("service")
        if not args.json:
            print(_line(status), file=sys.stderr)
        while not detach and status["state"] in _ACTIVE:
            await asyncio.sleep(max(args.every, 0.05))
            status = await backend.call("GET", _ROUTE)
            if not args.json:
                print(_line(status), file=sys.stderr)
    if args.json:
        print(json.dumps(status))
    else:
        print(_line(status))
        if status["state"] == "done" and status.get("embedder"):
            print(
                f"Switched to {status['target_model']}. Start Tessera with "
                f"TESSERA_EMBEDDER={status['embedder']} from now on."
            )
        elif status["state"] == "failed":
            print(f"Stopped ({status.get('error')}); run it again to resume.")
    return 1 if status["state"] == "failed" else 0
