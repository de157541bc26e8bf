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

    def _mac(self, ctx: MemoryPolicyContext, source_id: str, version: int, digest: str) -> str:
        message = "\n".join(
            [ctx.org_id, ctx.user_id or "", ctx.agent_id or "", source_id, str(version), digest]
        )
        return hmac.new(self._key, message.encode("utf-8"), hashlib.sha256).hexdigest()

    def issue(self, ctx: MemoryPolicyContext, source_id: str, version: int, digest: str) -> str:
        return f"v{version}.{self._mac(ctx, source_id, version, digest)}"

    def check(
        self,
        token: str | None,
        ctx: MemoryPolicyContext,
        source_id: str,
        version: int,
        digest: str,
    ) -> None:
        """Refuse a missing, foreign or stale token; return when it matches this version."""
        if not token:
            raise InvalidInputError(
                ReasonCode.PREVIEW_REQUIRED, "apply needs the preview_token of a preview"
            )
        made_for, _, mac = token.partition(".")
        try:
            token_version = int(made_for.removeprefix("v"))
        except ValueError:
            token_version = -1
        expected = self._mac(ctx, source_id, token_version, digest)
        if not made_for.startswith("v") or not hmac.compare_digest(mac, expected):
            raise InvalidInputError(
                ReasonCode.PREVIEW_INVALID,
                "the preview_token was not made for this caller, source and request",
            )
        if token_version != version:
            raise ConflictError(
                ReasonCode.SOURCE_CHANGED,
                f"source {source_id} changed since the preview (version {token_version} "
                f"previewed, {version} now); preview again",
            )
