"""The words pages use: actions, states and spaces as a person says them.

Why one module: every page names corrections and lifecycle states the same
way, and a space is chosen from one select whose values parse in one place.
"""

from domain.errors import InvalidInputError
from domain.lifecycle import CorrectionAction
from domain.models import MetadataValue
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope, SourceType
from domain.source_titles import metadata_words

__all__ = [
    "ACTION_LABELS",
    "ACTION_WORDS",
    "BADGE_TONES",
    "CANDIDATE_WORDS",
    "DESTRUCTIVE",
    "EXTRACTOR_WORDS",
    "FORMAT_WORDS",
    "KIND_WORDS",
    "REASON_WORDS",
    "SCOPE_WORDS",
    "STATUS_WORDS",
    "SURFACE_WORDS",
    "denial_words",
    "duration_words",
    "metadata_facts",
    "parse_space",
    "reason_words",
    "size_words",
    "space_value",
]

ACTION_LABELS = {
    CorrectionAction.MARK_WRONG: "Mark as wrong",
    CorrectionAction.MARK_STALE: "Mark as stale",
    CorrectionAction.MARK_SENSITIVE: "Mark as sensitive",
    CorrectionAction.MARK_DUPLICATE: "Mark as a duplicate of another source",
    CorrectionAction.SUPERSEDE: "Replace with a newer source",
    CorrectionAction.HIDE: "Hide",
    CorrectionAction.REDACT: "Redact the text",
    CorrectionAction.RESTORE: "Restore",
    CorrectionAction.DELETE: "Delete for good",
}

#: what applying it does, in one sentence
ACTION_WORDS = {
    CorrectionAction.MARK_WRONG: "It stops being recalled; you can still read it here.",
    CorrectionAction.MARK_STALE: "It is still recalled, below fresher sources, flagged stale.",
    CorrectionAction.MARK_SENSITIVE: "Only its owner recalls it from now on.",
    CorrectionAction.MARK_DUPLICATE: "It collapses under the source it duplicates.",
    CorrectionAction.SUPERSEDE: "The replacement ranks first; this one says superseded by it.",
    CorrectionAction.HIDE: "Nobody recalls it; only you see it here.",
    CorrectionAction.REDACT: "The chosen words (or all) go for good; a summary stands in.",
    CorrectionAction.RESTORE: "It is recalled again as before.",
    CorrectionAction.DELETE: "Its text and chunks are removed for good; a tombstone stays.",
}

#: corrections that remove text for good: their buttons wear the danger style
DESTRUCTIVE = frozenset({CorrectionAction.REDACT, CorrectionAction.DELETE})

#: a source's kind as a title line names it
KIND_WORDS = {
    SourceType.NOTE: "Note",
    SourceType.CONVERSATION: "Conversation",
    SourceType.TURN: "Conversation turn",
    SourceType.EMAIL: "Mail",
    SourceType.DOCUMENT: "Document",
    SourceType.WEB: "Web page",
    SourceType.FILE: "File",
}

#: a reflection candidate's type as the review page names it
CANDIDATE_WORDS = {
    "decision": "A decision",
    "procedure": "A way of doing something",
    "task": "A task",
    "preference": "A preference",
    "fact": "A fact",
    "artifact": "A document or file",
    "person": "A person",
    "project": "A project",
    "event": "An event",
    "entity": "Something named",
    "relationship": "How two things relate",
}

#: who found a candidate, as the end of "found by ..."
EXTRACTOR_WORDS = {
    "rules": "the built-in rules",
    "llm": "the language model",
    "caller": "an agent, which proposed it",
}


#: a state's badge colour role: done is calm green, paused or superseded a caution,
#: removed or failed the danger colour, hidden and withdrawn plain grey
BADGE_TONES = {
    "completed": "ok",
    "running": "info",
    "pending": "info",
    "paused": "warn",
    "failed": "danger",
    "cancelled": "quiet",
    "superseded": "warn",
    "duplicate": "quiet",
    "hidden": "quiet",
    "redacted": "danger",
    "deleted": "danger",
    "stale": "warn",
}


#: a scope as a choice over every space of it (the home's switcher, the search filter)
SCOPE_WORDS = {
    MemoryScope.PRIVATE: "Private: yours and your agents' notes",
    MemoryScope.DELEGATED: "Delegated: every delegated space",
    MemoryScope.PROJECT: "Projects: every project space",
    MemoryScope.TEAM: "Teams: every team space",
    MemoryScope.ORGANIZATION: "Organisation-wide",
    MemoryScope.SHARED: "Shared: every shared space",
    MemoryScope.PUBLIC: "Public",
}


def space_value(scope: MemoryScope | str, key: str | None) -> str:
    """The select value for a space: ``project:apollo``, or a bare scope."""
    return f"{scope}" if not key else f"{scope}:{key}"


def parse_space(value: str | None) -> tuple[MemoryScope | None, str | None]:
    """A select value back into scope and key; '' means any space. The rest of the
    service writes a space ``project/apollo``: a typed or linked address may too."""
    if not value:
        return None, None
    scope_raw, _, key = value.replace("/", ":", 1).partition(":")
    try:
        scope = MemoryScope(scope_raw)
    except ValueError:
        raise InvalidInputError(ReasonCode.INVALID_REQUEST, "unknown space") from None
    return scope, key or None


#: a reason code as a sentence a person reads (the code itself stays in a details block)
REASON_WORDS: dict[str, str] = {
    ReasonCode.NOT_FOUND: "There is nothing here, or nothing you may see.",
    ReasonCode.INVALID_REQUEST: "The request was not understood.",
    ReasonCode.INVALID_FILTER: "One of the filters is not one this page knows.",
    ReasonCode.INVALID_SCOPE_KEY: "That space's name is not one memory can hold.",
    ReasonCode.MISSING_SCOPE_KEY: "That kind of space needs a name too.",
    ReasonCode.CONTENT_TOO_LARGE: "It is larger than this service accepts.",
    ReasonCode.EMPTY_CONTENT: "There is no text to remember.",
    ReasonCode.UNVERIFIED_MEMBERSHIP: "You are not a member of that space.",
    ReasonCode.SCOPE_DISABLED: "That kind of space is turned off here.",
    ReasonCode.DELEGATION_REQUIRED: "An agent reads this only while a delegation is live.",
    ReasonCode.DELEGATION_EXPIRED: "The delegation that allowed this has ended.",
    ReasonCode.HIDDEN_SOURCE: "it is hidden",
    ReasonCode.REDACTED_SOURCE: "its text was redacted",
    ReasonCode.SOURCE_DELETED: "it was deleted for good; only a tombstone stays",
    ReasonCode.SENSITIVE_SOURCE: "it is marked sensitive and only its owner reads it",
    ReasonCode.SOURCE_MARKED_WRONG: "it is marked as wrong",
    ReasonCode.INSUFFICIENT_ROLE: "Your role in that space does not allow this.",
    ReasonCode.ADMIN_REQUIRED: "Only an organisation admin or the space's owner may do this.",
    ReasonCode.ORG_OWNER_REQUIRED: "Only the organisation's owner may see this.",
    ReasonCode.SPACE_OWNER_REQUIRED: "Only the space's owner may do this.",
    ReasonCode.KEY_NOT_YOURS: "That key is not yours to change.",
    ReasonCode.DELEGATION_NOT_YOURS: "That delegation is not yours to change.",
    ReasonCode.TRANSITION_NOT_ALLOWED: "That correction does not apply to the source as it is now.",
    ReasonCode.SOURCE_CHANGED: "the source changed since the preview",
    ReasonCode.PREVIEW_STALE: "what the preview showed has changed since",
    ReasonCode.PREVIEW_REQUIRED: "Preview it first.",
    ReasonCode.PREVIEW_INVALID: "The preview is no longer valid; preview again.",
    ReasonCode.REPLACEMENT_NOT_VISIBLE: "You may not read the replacement source.",
    ReasonCode.SOURCE_NOT_ACTIVE: "The source is no longer active.",
    ReasonCode.LAST_OWNER_KEY: "It is the owner's last key; make another first.",
    ReasonCode.ALREADY_EXISTS: "It exists already.",
    ReasonCode.STORE_UNAVAILABLE: "Memory cannot be reached just now; try again shortly.",
    ReasonCode.STORE_LOCKED: "Memory is busy with another process; try again shortly.",
    ReasonCode.INTERNAL_ERROR: "Something failed on our side; nothing you did.",
    ReasonCode.LLM_NOT_CONFIGURED: "No language model is set up for this service.",
    ReasonCode.UNKNOWN_ADAPTER: "That format is not one the importer knows.",
    ReasonCode.UNSUPPORTED_ARCHIVE: "That archive's format is not one the importer reads.",
}


def reason_words(code: str | None) -> str:
    """A reason code in words; a code without words yet reads as its words ("no_x": "no x")."""
    if not code:
        return ""
    return REASON_WORDS.get(code, code.replace("_", " "))


#: metadata a person reads, under its label; the rest are ids and hashes for a details block
_METADATA_LABELS = {
    "from": "From",
    "to": "To",
    "cc": "Cc",
    "labels": "Labels",
    "attachment_names": "Attachments",
}
_METADATA_IDS = frozenset(
    {
        "import_id",
        "import_key",
        "message_id",
        "in_reply_to",
        "thread_id",
        "references",
        "attachment_types",
        "attachment_sizes",
        "attachment_sha256",
    }
)


def metadata_facts(
    metadata: dict[str, MetadataValue],
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(facts, ids): each as (label, words), lists said as comma-separated items; the
    title is the page's heading, so it is neither."""
    facts, ids = [], []
    for key, value in metadata.items():
        if key == "title" or value in (None, "", []):
            continue
        if key in _METADATA_IDS:
            ids.append((key.replace("_", " "), metadata_words(value)))
        else:
            label = _METADATA_LABELS.get(key, key.replace("_", " ").capitalize())
            facts.append((label, metadata_words(value)))
    return facts, ids


def size_words(size: int) -> str:
    """A byte count as a person reads it, in binary units: ``256 MiB``, ``293 KiB``."""
    value = float(size)
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{round(value, 1):g} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


#: an import format as the menu and an import's page name it
FORMAT_WORDS = {
    "mbox": "Mailbox (mbox)",
    "maildir": "Maildir folder",
    "jsonl": "Chat transcripts (JSONL)",
    "chatgpt": "ChatGPT export",
    "markdown": "Markdown or text notes",
}


#: where something was done, as the end of a sentence
SURFACE_WORDS = {
    "web": "in the workspace",
    "api": "through the API",
    "mcp": "by an agent",
    "cli": "from the command line",
}


#: the status page's codes in words: where memory lives, the index, the queues
STATUS_WORDS = {
    "mem": "in this process's memory: nothing survives a restart",
    "memory": "in this process's memory: nothing survives a restart",
    "surrealkv": "on this machine's disk (SurrealKV)",
    "rocksdb": "on this machine's disk (RocksDB)",
    "file": "on this machine's disk",
    "ws": "a separate SurrealDB server",
    "wss": "a separate SurrealDB server, over TLS",
    "http": "a separate SurrealDB server",
    "https": "a separate SurrealDB server, over TLS",
    "surrealdb": "SurrealDB",
    "inmemory": "Tessera's in-memory store",
    "inprocess": "built in this process, from the store",
    "surreal": "SurrealDB's own indexes",
    "audit_receipts": "Audit receipts to write",
}


def duration_words(seconds: float | None) -> str:
    """A wait or lag as a person says it: ``none``, ``12 seconds``, ``3 minutes``, ``2 hours``."""
    if seconds is None:
        return "unknown"
    if seconds < 1:
        return "none"
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1)):
        if seconds >= size:
            n = int(seconds // size)
            return f"{n} {unit}" if n == 1 else f"{n} {unit}s"
    raise AssertionError("unreachable")


#: why a person or agent may not read a space or a source, as a clause about them
_DENIALS = {
    "unverified_membership": "{who} is not a member of this space",
    "insufficient_role": "{who}'s role in this space does not let them read it",
    "delegation_required": "{who} is an agent, which reads its person's memory and spaces "
    "only through a live delegation, and it has none",
    "delegation_expired": "the delegation that let {who} read here has ended",
    "principal_mismatch": "it is someone else's private memory",
    "scope_disabled": "this kind of space is turned off here",
    "missing_scope_key": "the space has no name",
    "scope_crossing_requires_promotion": "it belongs to another space and was not promoted here",
    "sensitive_source": "they are marked sensitive, and only their owner reads them",
    "hidden_source": "they are hidden",
    "redacted_source": "their text was redacted",
    "source_deleted": "they were deleted for good",
    "source_marked_wrong": "they are marked as wrong",
    "agent_identity_required": "{who} is an agent without a person it acts for",
}


def denial_words(code: str | None, who: str) -> str:
    """A refusal's reason as a clause about ``who``: "bea is not a member of this space"."""
    if not code:
        return "no reason was given"
    found = _DENIALS.get(code)
    if found is None:
        return (
            reason_words(code).rstrip(".").lower()
            if code in REASON_WORDS
            else code.replace("_", " ")
        )
    return found.format(who=who)
