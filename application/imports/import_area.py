"""Where imports read and uploads wait: one area per organisation, one folder per upload.

Layout under the import root (``TESSERA_IMPORT_ROOT``, default ``<data dir>/imports``)::

    <root>/<org>/files/                          what path imports of <org> read
    <root>/<org>/uploads/<principal>/<upload>/   one upload, until its import ends

Why apart: a path import reads files on the server, so where it may read is
the one thing keeping an organisation (or a member) out of another's
archives. A path resolves (symlinks followed) inside its organisation's
``files`` folder, or inside a folder the operator granted that organisation;
nothing under the import root outside the caller's own ``files`` folder is
ever readable by path, so no one imports another's upload by path. Folders
are made owner-only (0700). Ids that are not plain names become a hash, so
an id never walks the tree.
"""

import hashlib
import os
import re
import shutil
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from domain.errors import InvalidInputError, MalformedRequestError, NotFoundError
from domain.reasons import ReasonCode

__all__ = ["ImportArea", "UploadFolder", "checked_path", "folder_name"]

#: what POSIX file systems take (PATH_MAX, NAME_MAX), in bytes
_MAX_PATH_BYTES = 4096
_MAX_NAME_BYTES = 255
_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_FILES = "files"
_UPLOADS = "uploads"


def folder_name(ident: str) -> str:
    """``ident`` as one folder name: itself when plain, else ``~`` and a hash of it."""
    if _PLAIN.fullmatch(ident):
        return ident
    return "~" + hashlib.sha256(ident.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def checked_path(raw: str) -> str:
    """``raw``, or ``invalid_path`` (400) for a path no file system takes."""
    encoded = raw.encode("utf-8", "surrogateescape")
    longest = max(len(name) for name in encoded.split(b"/"))
    if b"\x00" in encoded or len(encoded) > _MAX_PATH_BYTES or longest > _MAX_NAME_BYTES:
        raise MalformedRequestError(
            ReasonCode.INVALID_PATH,
            f"an import path holds no NUL byte, at most {_MAX_PATH_BYTES} bytes "
            f"and names of at most {_MAX_NAME_BYTES} bytes",
        )
    return raw


class UploadFolder:
    """One upload's folder found on disk, for the sweep."""

    def __init__(self, path: Path, modified: float) -> None:
        self.path = path
        #: the newest modification time of the folder and what it directly holds
        self.modified = modified


def _outside(area: Path) -> InvalidInputError:
    return InvalidInputError(
        ReasonCode.PATH_OUTSIDE_IMPORT_ROOT,
        f"imports read only paths inside your organisation's import area {area} "
        "(or a folder the operator granted it); upload an archive instead",
    )


class ImportArea:
    def __init__(
        self,
        root: Path,
        granted: Mapping[str, Sequence[Path]] | None = None,
        *,
        anywhere: bool = False,
    ) -> None:
        """``granted``: folders an operator let an organisation (by id) import from.

        ``anywhere``: the CLI in its own process, run by whoever holds the data
        directory, reads any path its user can, except the import root's other
        folders (the uploads and other organisations' files).
        """
        self.root = root.resolve()
        self._granted = {
            org: tuple(p.resolve() for p in paths) for org, paths in (granted or {}).items()
        }
        self._anywhere = anywhere

    # --- layout ----------------------------------------------------------------

    def files(self, org_id: str) -> Path:
        """The organisation's ``files`` folder, made (0700) when missing."""
        folder = self.root / folder_name(org_id) / _FILES
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        return folder

    def uploads(self, org_id: str, principal_id: str) -> Path:
        return self.root / folder_name(org_id) / _UPLOADS / folder_name(principal_id)

    # --- path imports --------------------------------------------------------------

    def resolve(self, org_id: str, raw: str) -> Path:
        """``raw`` with symlinks resolved, refused unless the organisation may read it.

        A relative path is taken from the organisation's ``files`` folder (the
        working directory for the CLI in its own process). The archive must
        exist now.
        """
        own = self.files(org_id).resolve()
        path = Path(checked_path(raw))
        if self._anywhere:
            path = path.expanduser()
        elif not path.is_absolute():
            path = own / path
        try:
            resolved = path.resolve()
            exists = resolved.exists()
        except (OSError, RuntimeError, ValueError):  # a link loop, a name too long
            raise MalformedRequestError(
                ReasonCode.INVALID_PATH, "the import path cannot be resolved"
            ) from None
        if not self._may_read(org_id, own, resolved):
            raise _outside(self.root / folder_name(org_id) / _FILES)
        if not exists:
            raise NotFoundError(ReasonCode.NOT_FOUND, "there is no archive at that path")
        return resolved

    def _may_read(self, org_id: str, own: Path, resolved: Path) -> bool:
        if resolved.is_relative_to(own):
            return True
        if resolved.is_relative_to(self.root) or self.root.is_relative_to(resolved):
            return False  # another organisation's area, anyone's upload, or a folder above them
        if self._anywhere:
            return True
        return any(resolved.is_relative_to(folder) for folder in self._granted.get(org_id, ()))

    # --- uploads -------------------------------------------------------------------

    def new_upload(self, org_id: str, principal_id: str, upload_id: str) -> Path:
        """A fresh folder (0700) for one upload of ``principal_id``."""
        folder = self.uploads(org_id, principal_id) / folder_name(upload_id)
        folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        folder.mkdir(mode=0o700)
        return folder

    def upload_of(self, org_id: str, principal_id: str, archive: Path) -> tuple[Path, Path] | None:
        """(the upload folder, the archive resolved) when ``archive`` lies in one of
        ``principal_id``'s uploads, else None."""
        mine = self.uploads(org_id, principal_id).resolve()
        resolved = archive.resolve()
        if not resolved.is_relative_to(mine) or resolved == mine:
            return None
        return mine / resolved.relative_to(mine).parts[0], resolved

    @staticmethod
    def kept(folder: str) -> bool:
        """Whether an upload's folder is still on disk."""
        return Path(folder).is_dir()

    def remove(self, folder: Path) -> None:
        """Remove an upload's folder (nothing outside the uploads of the root)."""
        resolved = folder.resolve()
        relative = resolved.relative_to(self.root) if resolved.is_relative_to(self.root) else None
        if relative is None or len(relative.parts) != 4 or relative.parts[1] != _UPLOADS:
            return
        shutil.rmtree(resolved, ignore_errors=True)

    def upload_folders(self) -> Iterator[UploadFolder]:
        """Every upload folder on disk: ``<root>/<org>/uploads/<principal>/<upload>``."""
        for folder in self.root.glob(f"*/{_UPLOADS}/*/*"):
            if not folder.is_dir() or folder.is_symlink():
                continue
            try:
                modified = max(
                    [folder.stat().st_mtime]
                    + [entry.stat().st_mtime for entry in os.scandir(folder)]
                )
            except OSError:
                continue
            yield UploadFolder(folder, modified)
