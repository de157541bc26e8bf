"""Which part of memory a person is looking at: one scope, or one space of it.

Why its own value: the workspace's home has a switcher over the seven scopes
and the caller's spaces, and each list on it (captures, follow-up, drafts)
narrows by the same choice. It only narrows what the policy already let the
caller read; it never widens anything, so it is a view's filter, not a rule.
"""

import msgspec

from domain.scopes import MemoryScope, ScopeRef

__all__ = ["SpaceChoice"]


class SpaceChoice(msgspec.Struct, frozen=True, kw_only=True):
    scope: MemoryScope
    #: one space of the scope; None for every space of it the caller may read
    scope_key: str | None = None

    def holds(self, scope: MemoryScope | str, scope_key: str | None) -> bool:
        if scope != self.scope:
            return False
        return self.scope_key is None or scope_key == self.scope_key

    def holds_text(self, space: str) -> bool:
        """For a space written ``scope`` or ``scope/key`` (candidates, synthesis audiences)."""
        scope, _, key = space.partition("/")
        return self.holds(scope, key or None)

    def narrow(self, spaces: frozenset[ScopeRef]) -> frozenset[ScopeRef]:
        """The spaces of ``spaces`` (the caller's readable ones) this choice keeps."""
        return frozenset(s for s in spaces if self.holds(s.scope, s.scope_key))
