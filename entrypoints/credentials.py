"""The owner's API key on this machine (written once at first start, read by the CLI),
and who a call to the HTTP API is made as.

The file is created with mode 0600 inside a 0700 directory, so only the
user who runs Tessera can read it. ``TESSERA_API_KEY`` overrides it.
"""

import contextlib
import os
from pathlib import Path
from typing import NamedTuple

from entrypoints.headers import AGENT_HEADER
from entrypoints.settings import Settings

__all__ = ["Credentials", "key_file", "read_key", "save_owner_key"]


class Credentials(NamedTuple):
    """Who a call is made as: an API key, and the agent the caller claims to be (if any)."""

    key: str | None
    agent: str | None = None

    def headers(self) -> dict[str, str]:
        headers = {"authorization": f"Bearer {self.key}"} if self.key else {}
        if self.agent:
            headers[AGENT_HEADER] = self.agent
        return headers


def key_file(settings: Settings) -> Path:
    return settings.data_dir / "credentials" / "owner.key"


def save_owner_key(settings: Settings, key: str) -> Path:
    path = key_file(settings)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path.parent, 0o700)
    tmp = path.with_suffix(".tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(key + "\n")
    tmp.replace(path)
    return path


def read_key(settings: Settings) -> str | None:
    """The key the CLI uses: TESSERA_API_KEY, else the owner key saved at first start."""
    if settings.api_key:
        return settings.api_key
    try:
        return key_file(settings).read_text().strip() or None
    except OSError:
        return None
