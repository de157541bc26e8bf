"""Preview tokens: an HMAC over who previewed what, on which version of the source.

Why an HMAC rather than a stored token: nothing to store or expire, and a
token cannot be forged or moved to another source, caller or request. A
token names the version it was made for, so a stale one is told apart from
a foreign one: the first is a 409 (the source changed since the preview),
the second a refusal. The key lives in process memory, so a restart makes
earlier previews invalid; preview again.
"""

import hashlib
import hmac

from domain.errors import ConflictError, InvalidInputError
from domain.policy import MemoryPolicyContext
from domain.reasons import ReasonCode

__all__ = ["PreviewTokens"]


class PreviewTokens:
    def __init__(self, key: bytes) -> None:
        if len(key) < 16:
            raise ValueError("a preview token key needs at least 16 bytes")
        self._key = key

    def _mac(self, ctx: MemoryPolicyContext, subject: str, state: str, digest: str) -> str:
        message = "\n".join(
            [ctx.org_id, ctx.user_id or "", ctx.agent_id or "", subject, state, digest]
        )
        return hmac.new(self._key, message.encode("utf-8"), hashlib.sha256).hexdigest()

    def issue(self, ctx: MemoryPolicyContext, subject: str, state: str, digest: str) -> str:
        """A token for ``subject`` (a source id, a bulk selection) in ``state`` (its version)."""
        if "." in state:
            raise ValueError("a token state has no '.'")
        return f"{state}.{self._mac(ctx, subject, state, digest)}"

    def check(
        self, token: str | None, ctx: MemoryPolicyContext, subject: str, state: str, digest: str
    ) -> None:
        """Refuse a missing, foreign or stale token; return when it matches ``state``."""
        if not token:
            raise InvalidInputError(
                ReasonCode.PREVIEW_REQUIRED, "apply needs the preview_token of a preview"
            )
        made_for, _, mac = token.partition(".")
        if not hmac.compare_digest(mac, self._mac(ctx, subject, made_for, digest)):
            raise InvalidInputError(
                ReasonCode.PREVIEW_INVALID,
                "the preview_token was not made for this caller, target and request",
            )
        if made_for != state:
            raise ConflictError(
                ReasonCode.SOURCE_CHANGED,
                f"{subject} changed since the preview ({made_for} previewed, {state} now); "
                "preview again",
            )
