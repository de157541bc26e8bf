"""API keys: ``tsk_<key id>_<secret>``. Only the secret's SHA-256 is stored.

The key id lets authentication fetch one record directly; the secret has
256 bits of entropy, so a fast hash is enough (nothing to brute-force) and
comparison is constant-time.
"""

import hashlib
import hmac
import re
import secrets

import msgspec

__all__ = [
    "KEY_PREFIX",
    "IssuedKey",
    "ParsedKey",
    "compose_key",
    "hash_secret",
    "new_secret",
    "parse_key",
]

KEY_PREFIX = "tsk_"
_KEY = re.compile(r"^tsk_([a-z0-9]{1,64})_([A-Za-z0-9_-]{20,128})$")


class ParsedKey(msgspec.Struct, frozen=True):
    key_id: str
    secret: str

    def matches(self, secret_hash: str) -> bool:
        return hmac.compare_digest(hash_secret(self.secret), secret_hash)


class IssuedKey(msgspec.Struct, frozen=True, kw_only=True):
    """A key as shown once to the person who created it."""

    key_id: str
    org_id: str
    principal_id: str
    key: str


def new_secret() -> str:
    return secrets.token_urlsafe(32)


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def compose_key(key_id: str, secret: str) -> str:
    return f"{KEY_PREFIX}{key_id}_{secret}"


def parse_key(raw: str) -> ParsedKey | None:
    """The key's parts, or None when it is not shaped like a Tessera key."""
    match = _KEY.match(raw.strip())
    if match is None:
        return None
    return ParsedKey(match.group(1), match.group(2))
