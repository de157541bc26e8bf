"""``tessera admin ...``: the control plane from the command line.

Each command is one call to the ``/api/admin`` routes, made through the
same backend as every other CLI command (the running service, or the store
in-process), with the CLI's key.
"""

import argparse
import json
from typing import TYPE_CHECKING, Any

from domain.policy import OrgRole, SpaceRole
from domain.scopes import MemoryScope
from entrypoints.paths import path_segment

if TYPE_CHECKING:
    from entrypoints.backends import Backend

__all__ = ["add_admin_parser", "run_admin"]


def add_admin_parser(sub: Any) -> None:
    admin = sub.add_parser("admin", help="manage organisations, principals, keys and spaces")
    nouns = admin.add_subparsers(dest="noun", required=True)

    org = nouns.add_parser("org").add_subparsers(dest="verb", required=True)
    org.add_parser("create", help="create an organisation").add_argument("name")
    drop = org.add_parser(
        "drop",
        help="drop an organisation and give its space back: without --token, preview "
        "what would be removed and print the token; with it, drop",
    )
    drop.add_argument("name", help="the organisation's name or id")
    drop.add_argument("--token", help="the token printed by the preview")

    store = nouns.add_parser("store").add_subparsers(dest="verb", required=True)
    store.add_parser(
        "compact",
        help="rewrite the store so deleted text and dropped organisations leave its files "
        "(the install's owner; queries wait while it runs)",
    )
    user = nouns.add_parser("user").add_subparsers(dest="verb", required=True)
    user_create = user.add_parser("create", help="create a user")
    user_create.add_argument("name")
    user_create.add_argument("--org")
    user_create.add_argument("--role", choices=[r.value for r in OrgRole], default="member")
    user.add_parser("list").add_argument("--org")

    agent = nouns.add_parser("agent").add_subparsers(dest="verb", required=True)
    agent_create = agent.add_parser("create", help="create an agent acting for a user")
    agent_create.add_argument("name")
    agent_create.add_argument("--org")
    agent_create.add_argument("--for", dest="acting_for", required=True, metavar="USER")
    agent_create.add_argument(
        "--delegation-days",
        type=int,
        default=0,
        help="let the agent act on the user's memory for N days: only that user may give "
        "it, with their own key (default 0: no delegation)",
    )

    key = nouns.add_parser("key").add_subparsers(dest="verb", required=True)
    key_create = key.add_parser("create", help="create an API key (printed once, last line)")
    key_create.add_argument("--org")
    key_create.add_argument("--principal", required=True)
    key.add_parser("revoke", help="revoke an API key").add_argument("key_id")
    key.add_parser("list").add_argument("--org")

    nouns.add_parser(
        "recover-owner-key",
        help="issue a new owner key from the data directory (service stopped; audited)",
    )
    recover = nouns.add_parser(
        "recover-key",
        help="issue a new key for a person who lost all of theirs, from the data directory "
        "(service stopped; audited)",
    )
    recover.add_argument("--principal", required=True, help="the user's name or id")
    recover.add_argument("--org", help="the organisation's name or id (default: the home one)")

    space = nouns.add_parser("space").add_subparsers(dest="verb", required=True)
    space_create = space.add_parser("create", help="create a memory space")
    space_create.add_argument("--org")
    space_create.add_argument("--scope", required=True, choices=[s.value for s in MemoryScope])
    space_create.add_argument("--key", dest="scope_key")
    space_create.add_argument("--name")
    space_create.add_argument("--enable-writes", action="store_true")
    space_create.add_argument("--owner", help="the user who owns the space (default: you)")
    member = space.add_parser("add-member", help="add a member to a space, or change its role")
    member.add_argument("space_id")
    member.add_argument("--org")
    member.add_argument("--principal", required=True)
    member.add_argument("--role", choices=[r.value for r in SpaceRole], default="reader")
    space.add_parser("list").add_argument("--org")
    writes = space.add_parser("writes", help="enable or disable writes to a space")
    writes.add_argument("space_id")
    writes.add_argument("state", choices=["on", "off"])
    writes.add_argument("--org")


def _with_org(body: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    if getattr(args, "org", None):
        body["org"] = args.org
    return body


def _org_params(args: argparse.Namespace) -> dict[str, Any]:
    return {"org": args.org} if args.org else {}


async def _call(backend: "Backend", args: argparse.Namespace) -> Any:
    noun, verb = args.noun, args.verb
    if noun == "org" and verb == "drop":
        org = path_segment(args.name)
        if args.token is None:
            return await backend.call("POST", f"/api/admin/orgs/{org}/drop-preview")
        return await backend.call("POST", f"/api/admin/orgs/{org}/drop", {"token": args.token})
    if noun == "store":
        return await backend.call("POST", "/api/admin/compact")
    if noun == "org":
        return await backend.call("POST", "/api/admin/orgs", {"name": args.name})
    if noun in {"user", "agent"} and verb == "create":
        body: dict[str, Any] = {"name": args.name}
        if noun == "user":
            body["org_role"] = args.role
        else:
            body["acting_for"] = args.acting_for
            body["delegation_days"] = args.delegation_days
        return await backend.call("POST", "/api/admin/principals", _with_org(body, args))
    if noun == "user":
        return await backend.call("GET", "/api/admin/principals", params=_org_params(args))
    if noun == "key":
        if verb == "create":
            body = _with_org({"principal": args.principal}, args)
            return await backend.call("POST", "/api/admin/keys", body)
        if verb == "revoke":
            key_id = path_segment(args.key_id)
            return await backend.call("POST", f"/api/admin/keys/{key_id}/revoke")
        return await backend.call("GET", "/api/admin/keys", params=_org_params(args))
    if verb == "create":
        body = {"scope": args.scope, "writes_enabled": args.enable_writes}
        for field in ("scope_key", "name", "owner"):
            if getattr(args, field):
                body[field] = getattr(args, field)
        return await backend.call("POST", "/api/admin/spaces", _with_org(body, args))
    if verb == "add-member":
        body = _with_org({"principal": args.principal, "role": args.role}, args)
        space_id = path_segment(args.space_id)
        return await backend.call("POST", f"/api/admin/spaces/{space_id}/members", body)
    if verb == "writes":
        body = _with_org({"enabled": args.state == "on"}, args)
        space_id = path_segment(args.space_id)
        return await backend.call("POST", f"/api/admin/spaces/{space_id}/writes", body)
    return await backend.call("GET", "/api/admin/spaces", params=_org_params(args))


async def run_admin(backend: "Backend", args: argparse.Namespace) -> int:
    result = await _call(backend, args)
    if args.noun == "key" and args.verb == "create":
        print(f"Created key {result['key_id']} for principal {result['principal_id']}.")
        print("Store it now; it is not shown again:")
        print(result["key"])
        return 0
    print(json.dumps(result, indent=2))
    if args.noun == "org" and args.verb == "drop" and args.token is None:
        print(f"To drop it: tessera admin org drop {args.name} --token {result['token']}")
    return 0
