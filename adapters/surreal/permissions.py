"""The embedded store's directory and files readable by their owner only.

Why: the engine created its files with the process umask (0644 files in 0755
directories under the usual 022), so any local user could read remembered text,
which the engine keeps unencrypted. Opening the store now
makes its directory 0700 and takes group and other bits off everything already
in it; new files inherit the protection of the directory.
"""

import contextlib
import logging
import os
import stat
from pathlib import Path

__all__ = ["make_owner_only"]

_log = logging.getLogger("tessera.store")


def _tighten(path: Path, mode: int) -> None:
    with contextlib.suppress(FileNotFoundError):
        current = stat.S_IMODE(path.lstat().st_mode)
        if current & 0o077:
            os.chmod(path, current & ~0o077 | mode)


def make_owner_only(directory: Path) -> None:
    """Create ``directory`` (0700) or tighten it and its contents; a failure only warns."""
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        _tighten(directory, 0o700)
        for root, dirs, files in os.walk(directory):
            for name in dirs:
                _tighten(Path(root) / name, 0o700)
            for name in files:
                if not (Path(root) / name).is_symlink():
                    _tighten(Path(root) / name, 0o600)
    except OSError as exc:
        _log.warning("could not make %s owner-only: %s", directory, type(exc).__name__)
