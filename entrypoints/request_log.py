"""Per-request lines (uvicorn's access line, the audit receipt line) off the console.

Why: ``serve`` printed an access line and an audit JSON line for every request,
which buried the owner key printed at first start and made the console useless
for warnings. They are now opt-in (``TESSERA_REQUEST_LOG=console``) or go to an
owner-only file under the data directory (``TESSERA_REQUEST_LOG=file``); audit
receipts are stored in the database either way.
"""

import logging
import os
from pathlib import Path

from entrypoints.settings import RequestLog, Settings

__all__ = ["ACCESS_LOGGER", "AUDIT_LOGGER", "apply_request_log", "request_log_file"]

ACCESS_LOGGER = "uvicorn.access"
AUDIT_LOGGER = "tessera.audit"


def request_log_file(settings: Settings) -> Path:
    return settings.data_dir / "logs" / "requests.log"


_HANDLERS: dict[Path, logging.Handler] = {}


def _file_handler(path: Path) -> logging.Handler:
    if path in _HANDLERS:
        return _HANDLERS[path]
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s: %(message)s"))
    _HANDLERS[path] = handler
    return handler


def apply_request_log(settings: Settings, *names: str) -> None:
    """Route the named per-request loggers (both by default).

    The audit logger before the store opens (the first start audits its bootstrap);
    uvicorn's access logger after ``uvicorn.Config``, which configures it anew.
    """
    loggers = [logging.getLogger(name) for name in names or (ACCESS_LOGGER, AUDIT_LOGGER)]
    if settings.request_log is RequestLog.CONSOLE:
        return
    if settings.request_log is RequestLog.OFF:
        for logger in loggers:
            logger.setLevel(max(logging.WARNING, logging.root.level))
        return
    handler = _file_handler(request_log_file(settings))
    for logger in loggers:
        logger.handlers = [handler]
        logger.propagate = False
        logger.setLevel(logging.INFO)
