"""The last warnings and errors of this process, for ``GET /api/status``.

Why: an operator asking "is anything wrong?" had only the console. Tessera's own
log lines name types, ids and counts, never memory text; for other libraries'
loggers only the message template is kept (its arguments could quote anything).
"""

import logging
from collections import deque
from datetime import UTC, datetime

from application.operations.diagnostics import RecentError
from domain.errors import bounded_detail

__all__ = ["RecentErrors", "watch_recent_errors"]

_KEEP = 50
_MESSAGE_CHARS = 200


class RecentErrors(logging.Handler):
    def __init__(self, keep: int = _KEEP) -> None:
        super().__init__(logging.WARNING)
        self._items: deque[RecentError] = deque(maxlen=keep)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            own = record.name == "tessera" or record.name.startswith("tessera.")
            message = record.getMessage() if own else str(record.msg)
            if record.exc_info and record.exc_info[0] is not None:
                message = f"{message} ({record.exc_info[0].__name__})"
            self._items.append(
                RecentError(
                    at=datetime.fromtimestamp(record.created, UTC),
                    level=record.levelname,
                    logger=record.name,
                    message=bounded_detail(message, _MESSAGE_CHARS),
                )
            )
        except Exception:  # a diagnostics handler must never break logging
            self.handleError(record)

    def newest_first(self) -> list[RecentError]:
        return list(reversed(self._items))


_watcher: list[RecentErrors] = []


def watch_recent_errors() -> RecentErrors:
    """The process's one watcher, attached on first use to the root and uvicorn loggers."""
    if not _watcher:
        watcher = RecentErrors()
        for name in ("", "uvicorn"):  # uvicorn's loggers do not propagate to the root
            logging.getLogger(name).addHandler(watcher)
        _watcher.append(watcher)
    return _watcher[0]
