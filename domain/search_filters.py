"""Narrowing a search: which memory a question may draw on, beside the policy.

"Mail from Alice in March about the budget" is one call. A filter
names a space or scope, source types, an import, participants, an
``occurred_at`` range and metadata equalities; every part given must hold.

Why facets: a retrieval index must apply the filter inside its candidate
queries (as it applies the policy), so a filtered query still returns k hits
when k matching ones exist. Each source and turn is therefore described by a
small set of facet strings (``type:email``, ``from:alice``,
``meta:labels=s:work``) and each part of a filter by a group of facets, one
of which must be present. An index keeps the facets beside its rows; this
module is the one owner of what they are, and ``SearchFilters.matches`` is
the plain statement of the rule that every index is tested against.

A filter never widens what the policy admits: it only removes candidates.
"""

import math
import re
from datetime import datetime
from enum import StrEnum

import msgspec

from domain.models import MetadataValue
from domain.scopes import MemoryScope, SourceType
from domain.words import name_words

__all__ = [
    "MAX_FILTER_ENTRIES",
    "MAX_FILTER_VALUE_CHARS",
    "FilterFacts",
    "FilterScalar",
    "ParticipantRole",
    "SearchFilters",
    "in_range",
    "normalize_name",
    "source_facets",
    "speaker_facets",
]

#: metadata entries, source types or participants in one filter
MAX_FILTER_ENTRIES = 16
#: one filter value (a name, a metadata key or value, an import id)
MAX_FILTER_VALUE_CHARS = 200

FilterScalar = str | int | float | bool

#: one space per organisation each: a key names nothing
_UNKEYED = frozenset({MemoryScope.ORGANIZATION, MemoryScope.PUBLIC})
_SPACES = re.compile(r"\s+")


class ParticipantRole(StrEnum):
    """Where a name is recorded: mail headers (``from``/``to``/``cc``) or a turn's speaker."""

    ANY = "any"
    FROM = "from"
    TO = "to"
    CC = "cc"
    SPEAKER = "speaker"


#: the metadata keys the mail adapters record participants under (ImportRecord.metadata)
_HEADER_ROLES = (ParticipantRole.FROM, ParticipantRole.TO, ParticipantRole.CC)
_RECORDED_ROLES = (*_HEADER_ROLES, ParticipantRole.SPEAKER)


def normalize_name(value: str) -> str:
    """Case-folded, trimmed, inner whitespace collapsed: how names and addresses compare."""
    return _SPACES.sub(" ", value.strip()).casefold()


def _name_forms(recorded: str) -> set[str]:
    """Every form a filter may name one recorded participant by.

    ``Alice Smith <alice@example.com>`` is found as ``alice``, ``smith``,
    ``alice smith``, ``alice@example.com`` and ``example.com``; the whole text as
    written is found too. Forms are whole words, never fragments: ``al`` does not
    match Alice.
    """
    text = recorded.strip()
    name, address = text, ""
    if text.endswith(">") and "<" in text:
        cut = text.rindex("<")
        name, address = text[:cut].strip().strip('"').strip(), text[cut + 1 : -1].strip()
    elif "@" in text and " " not in text:
        name, address = "", text
    forms = {normalize_name(text)}
    if name:
        forms.add(normalize_name(name))
        forms.update(word.casefold() for word in name_words(name))
    if address:
        forms.add(address.casefold())
        local, _, domain = address.casefold().partition("@")
        forms.update(part for part in (local, domain) if part)
    forms.discard("")
    return forms


def _metadata_value(value: FilterScalar) -> str:
    """One spelling per value: ``1`` and ``1.0`` are equal, ``True`` is not ``1``."""
    if isinstance(value, bool):
        return "b:" + ("true" if value else "false")
    if isinstance(value, int):
        return f"n:{value}"
    if isinstance(value, float):
        return f"n:{int(value)}" if value.is_integer() else f"n:{value!r}"
    return "s:" + value


def _metadata_facet(key: str, value: FilterScalar) -> str:
    return f"meta:{key}={_metadata_value(value)}"


def _recorded(value: MetadataValue) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def source_facets(source_type: SourceType, metadata: dict[str, MetadataValue]) -> frozenset[str]:
    """The facets of a source: its type, its participants and its scalar metadata.

    A list-valued metadata entry (``labels``) has a facet per item, so equality
    with one value means "contains it".
    """
    facets = {f"type:{source_type}"}
    for role in _HEADER_ROLES:
        for recorded in _recorded(metadata.get(role.value)):
            facets.update(f"{role}:{form}" for form in _name_forms(recorded))
    for key, value in metadata.items():
        if isinstance(value, list):
            facets.update(_metadata_facet(key, item) for item in value if isinstance(item, str))
        elif value is not None and not (isinstance(value, float) and not math.isfinite(value)):
            facets.add(_metadata_facet(key, value))
    return frozenset(facets)


def speaker_facets(speaker: str | None) -> frozenset[str]:
    """The facets of a conversation turn's speaker ("Maya")."""
    if not speaker:
        return frozenset()
    return frozenset(f"{ParticipantRole.SPEAKER}:{form}" for form in _name_forms(speaker))


def in_range(moment: datetime | None, start: datetime | None, end: datetime | None) -> bool:
    """Inside ``[start, end]``; a moment that is unknown is inside no range."""
    if start is None and end is None:
        return True
    if moment is None:
        return False
    return (start is None or moment >= start) and (end is None or moment <= end)


class FilterFacts(msgspec.Struct, frozen=True, kw_only=True):
    """What a filter is decided on for one chunk: its space, source and turn."""

    scope: MemoryScope
    scope_key: str | None
    source_type: SourceType
    metadata: dict[str, MetadataValue] = msgspec.field(default_factory=dict)
    occurred_at: datetime | None = None
    speaker: str | None = None


class SearchFilters(msgspec.Struct, frozen=True, kw_only=True):
    """A narrowing of one search or context pack. Every part given must hold."""

    scope: MemoryScope | None = None
    #: with ``scope``: one space; without a key, every readable space of that scope
    scope_key: str | None = None
    #: any of these types
    source_types: frozenset[SourceType] = frozenset()
    import_id: str | None = None
    #: each (role, name) must be recorded; role ``any``: in a header or as the speaker
    participants: tuple[tuple[ParticipantRole, str], ...] = ()
    #: inclusive bounds, timezone-aware
    occurred_from: datetime | None = None
    occurred_to: datetime | None = None
    #: each key must hold the value (or, for a list, contain it)
    metadata: tuple[tuple[str, FilterScalar], ...] = ()

    def __post_init__(self) -> None:
        if self.scope_key is not None and self.scope is None:
            raise ValueError("scope_key needs a scope")
        if self.scope_key is not None and self.scope in _UNKEYED:
            raise ValueError(f"scope '{self.scope}' takes no scope_key")
        for name, moment in (("from", self.occurred_from), ("to", self.occurred_to)):
            if moment is not None and moment.tzinfo is None:
                raise ValueError(f"occurred_at.{name} must include a timezone offset")
        if self.occurred_from and self.occurred_to and self.occurred_from > self.occurred_to:
            raise ValueError("occurred_at.from is after occurred_at.to")
        for what, count in (
            ("source types", len(self.source_types)),
            ("participants", len(self.participants)),
            ("metadata entries", len(self.metadata)),
        ):
            if count > MAX_FILTER_ENTRIES:
                raise ValueError(f"at most {MAX_FILTER_ENTRIES} {what}")
        texts = [
            *(name for _, name in self.participants),
            *(key for key, _ in self.metadata),
            *(v for _, v in self.metadata if isinstance(v, str)),
            *([self.import_id] if self.import_id is not None else []),
            *([self.scope_key] if self.scope_key is not None else []),
        ]
        for text in texts:
            if not text.strip():
                raise ValueError("filter values must contain non-whitespace text")
            if len(text) > MAX_FILTER_VALUE_CHARS:
                raise ValueError(f"filter values are at most {MAX_FILTER_VALUE_CHARS} characters")
        for key, value in self.metadata:
            if isinstance(value, float) and not math.isfinite(value):
                raise ValueError(f"metadata.{key} must be a finite number")
        if len({key for key, _ in self.metadata}) != len(self.metadata):
            raise ValueError("a metadata key is given twice")

    @property
    def is_empty(self) -> bool:
        return self == _EMPTY

    @property
    def has_time(self) -> bool:
        return self.occurred_from is not None or self.occurred_to is not None

    def admits_space(self, scope: MemoryScope, scope_key: str | None) -> bool:
        if self.scope is None:
            return True
        return scope is self.scope and (self.scope_key is None or scope_key == self.scope_key)

    def facet_groups(self) -> tuple[frozenset[str], ...]:
        """One group per part of the filter; a chunk passes when it has a facet of every group."""
        groups: list[frozenset[str]] = []
        if self.source_types:
            groups.append(frozenset(f"type:{t}" for t in self.source_types))
        if self.import_id is not None:
            groups.append(frozenset({_metadata_facet("import_id", self.import_id)}))
        for role, name in self.participants:
            roles = _RECORDED_ROLES if role is ParticipantRole.ANY else (role,)
            groups.append(frozenset(f"{r}:{normalize_name(name)}" for r in roles))
        groups.extend(frozenset({_metadata_facet(k, v)}) for k, v in self.metadata)
        return tuple(groups)

    def matches(self, facts: FilterFacts) -> bool:
        """The rule itself, on one chunk's facts: what every index must agree with."""
        if not self.admits_space(facts.scope, facts.scope_key):
            return False
        if not in_range(facts.occurred_at, self.occurred_from, self.occurred_to):
            return False
        facets = source_facets(facts.source_type, facts.metadata) | speaker_facets(facts.speaker)
        return all(group & facets for group in self.facet_groups())


_EMPTY = SearchFilters()
