"""``tessera admin recover-owner-key`` and ``recover-key``: the operator's way back in.

``recover-owner-key`` issues the home organisation's owner a new key and saves it;
``recover-key --principal NAME`` issues one for another person who lost all of
theirs (no one else may: a key is its holder's whole authority), printed once.

It runs only on the machine that holds the data directory: it opens the store
directly (never through a service) and refuses while a service holds the
directory, since the embedded store has one writer. The new key is printed once
and saved where the first start saves it, and issuing it is audited
(``admin.key.recover``). Holding the data directory already means holding all
memory, so this grants nothing new.
"""

import sys

from domain.errors import InvalidInputError, StoreUnavailableError
from domain.policy import Surface
from domain.reasons import ReasonCode
from entrypoints.backends import running_server
from entrypoints.credentials import save_owner_key
from entrypoints.settings import Settings

__all__ = ["recover_key", "recover_owner_key"]

_ON_DISK = {"surrealkv", "file"}


def _refuse_unless_alone(settings: Settings, command: str) -> None:
    if settings.url_kind not in _ON_DISK:
        raise InvalidInputError(
            ReasonCode.INVALID_REQUEST,
            "recovery opens the store on this machine: it needs a surrealkv:// data directory",
        )
    url = running_server(settings)
    if url is not None:
        raise StoreUnavailableError(
            ReasonCode.STORE_LOCKED,
            f"the service at {url} holds the data directory {settings.data_dir}: stop "
            f"`tessera serve` first, then run `tessera admin {command}` again",
        )


async def recover_owner_key(settings: Settings) -> int:
    from entrypoints.container import build_container

    _refuse_unless_alone(settings, "recover-owner-key")
    services = build_container(settings).services()
    try:
        await services.open(Surface.CLI)
        issued = await services.control.recover_owner_key(Surface.CLI)
    finally:
        await services.close()
    path = save_owner_key(settings, issued.key)
    print(
        f"Issued a new key {issued.key_id} for the owner of organisation {issued.org_id!r} "
        f"and saved it (readable only by you) to {path}. It is shown once:",
        file=sys.stderr,
    )
    print(issued.key, flush=True)
    return 0


async def recover_key(settings: Settings, principal: str, org: str | None) -> int:
    from entrypoints.container import build_container

    _refuse_unless_alone(settings, "recover-key")
    services = build_container(settings).services()
    try:
        await services.open(Surface.CLI)
        issued = await services.control.recover_key(org, principal, Surface.CLI)
    finally:
        await services.close()
    print(
        f"Issued a new key {issued.key_id} for principal {issued.principal_id} of "
        f"organisation {issued.org_id!r}. Hand it to them; it is shown once:",
        file=sys.stderr,
    )
    print(issued.key, flush=True)
    return 0
