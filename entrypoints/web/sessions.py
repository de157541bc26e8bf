"""Server-side sessions of the memory workspace, and the sign-in rate limit.

Why server-side: the browser holds only a random session id (an HttpOnly,
SameSite=Strict cookie); the API key it signed in with stays in this
process's memory and never reaches a page again. Signing out removes the
session here, so a copied cookie is worthless afterwards. Sessions end after
a spell of inactivity and after a fixed lifetime, whichever comes first.
"""

import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["SessionStore", "SignInLimiter", "WebSession"]

#: the session's own recent search words kept, at most (for home's "search again" links)
QUERIES_KEPT = 50

#: a session ends after this long without a request, and this long after sign-in
IDLE_SECONDS = 30 * 60
MAX_AGE_SECONDS = 12 * 60 * 60
#: sessions held at most (the oldest ends first): memory stays bounded
MAX_SESSIONS = 10_000
#: sign-in attempts a client may make per window
SIGN_IN_ATTEMPTS = 10
SIGN_IN_WINDOW_SECONDS = 60.0
_MAX_CLIENTS = 10_000


@dataclass
class WebSession:
    session_id: str
    #: held here only, to authenticate each request as the key would (a revoked key ends it)
    api_key: str
    #: every state-changing form carries it back; checked on the server
    csrf_token: str
    created_at: float
    last_seen: float
    #: the words this session searched, by their hash as receipts keep it (receipts keep no
    #: text): home links a recent recall to a search for it; gone when the session ends
    queries: "OrderedDict[str, str]" = field(default_factory=OrderedDict)

    def searched(self, query_hash: str, query: str) -> None:
        self.queries[query_hash] = query
        self.queries.move_to_end(query_hash)
        while len(self.queries) > QUERIES_KEPT:
            self.queries.popitem(last=False)


@dataclass
class SessionStore:
    clock: Callable[[], float] = time.monotonic
    idle_seconds: float = IDLE_SECONDS
    max_age_seconds: float = MAX_AGE_SECONDS
    max_sessions: int = MAX_SESSIONS
    _sessions: "OrderedDict[str, WebSession]" = field(default_factory=OrderedDict)

    def create(self, api_key: str) -> WebSession:
        now = self.clock()
        session = WebSession(
            session_id=secrets.token_urlsafe(32),
            api_key=api_key,
            csrf_token=secrets.token_urlsafe(32),
            created_at=now,
            last_seen=now,
        )
        self._sessions[session.session_id] = session
        while len(self._sessions) > self.max_sessions:
            self._sessions.popitem(last=False)
        return session

    def get(self, session_id: str | None) -> WebSession | None:
        """The live session with this id (its idle clock restarts), or None."""
        if not session_id:
            return None
        session = self._sessions.get(session_id)
        if session is None:
            return None
        now = self.clock()
        expired = (
            now - session.last_seen > self.idle_seconds
            or now - session.created_at > self.max_age_seconds
        )
        if expired:
            self.end(session_id)
            return None
        session.last_seen = now
        return session

    def end(self, session_id: str | None) -> None:
        if session_id:
            self._sessions.pop(session_id, None)

    def __len__(self) -> int:
        return len(self._sessions)


@dataclass
class SignInLimiter:
    """A client with ``attempts`` failed sign-ins in the last ``window_seconds`` is refused
    every sign-in (429) until the oldest failure leaves the window.

    Why failures: guessing keys is what the limit stops; a person signing in and
    out, or several people behind one address, should not be locked out by
    sign-ins that worked.
    """

    clock: Callable[[], float] = time.monotonic
    attempts: int = SIGN_IN_ATTEMPTS
    window_seconds: float = SIGN_IN_WINDOW_SECONDS
    _seen: "OrderedDict[str, deque[float]]" = field(default_factory=OrderedDict)

    def _recent(self, client: str) -> "deque[float]":
        now = self.clock()
        times = self._seen.pop(client, None) or deque()
        while times and now - times[0] >= self.window_seconds:
            times.popleft()
        self._seen[client] = times
        while len(self._seen) > _MAX_CLIENTS:
            self._seen.popitem(last=False)
        return times

    def allow(self, client: str) -> bool:
        """False while ``client`` is over the limit (checked before the key is)."""
        return len(self._recent(client)) < self.attempts

    def failed(self, client: str) -> None:
        """Count one failed sign-in by ``client``."""
        self._recent(client).append(self.clock())
