"""What ``tessera recall``, ``context`` and ``inspect`` print for a person.

Best first, one numbered entry per hit: its words, then one line saying
whose, when and in what state it is, and the id to hand to ``inspect`` or
``correct``. Scores stay in ``--json``: the ranker's score is not the order
once lifecycle has moved stale or superseded evidence down, and a column of
numbers out of order reads as a bug.
"""

import textwrap
from collections import Counter
from datetime import datetime
from typing import Any

__all__ = ["print_context", "print_search", "print_source"]

_WIDTH = 100
_SHOWN_CHARS = 300


def _when(raw: str | None) -> str | None:
    if not raw:
        return None
    try:
        moment = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        return raw
    return f"{moment.day} {moment:%b %Y %H:%M}"


def _words(text: str, limit: int = _SHOWN_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _state(hit: dict[str, Any]) -> list[str]:
    """The lifecycle markers a reader must not miss, each said once."""
    marks = []
    if hit.get("superseded_by"):
        marks.append(f"SUPERSEDED by {hit['superseded_by']}")
    elif hit.get("lifecycle") not in (None, "active"):
        marks.append(str(hit["lifecycle"]).upper())
    if hit.get("duplicate_of"):
        marks.append(f"duplicate of {hit['duplicate_of']}")
    if hit.get("stale"):
        marks.append("STALE")
    return marks


def _about(hit: dict[str, Any]) -> str:
    when = _when(hit.get("occurred_at")) or (
        f"remembered {_when(hit.get('created_at'))}" if hit.get("created_at") else None
    )
    parts = [p for p in (hit.get("scope"), when) if p]
    parts += _state(hit)
    parts.append(f"source {hit['source_id']}")
    return " · ".join(parts)


def _withheld(result: dict[str, Any]) -> str:
    notes = []
    if result.get("withheld"):
        notes.append(f"{result['withheld']} withheld (you may not read them)")
    if result.get("withheld_redacted"):
        notes.append(f"{result['withheld_redacted']} redacted source(s) match, not shown")
    return "; " + "; ".join(notes) if notes else ""


def print_search(result: dict[str, Any], query: str) -> None:
    from domain.relevance_gate import NOTHING_RELEVANT, nothing_relevant_words

    hits = result["results"]
    if result.get("reason") == NOTHING_RELEVANT:
        print(nothing_relevant_words(result["below_floor"]) + _withheld(result))
        return
    count = f"{len(hits)} result{'s' if len(hits) != 1 else ''}" if hits else "No memories matched"
    print(f"{count} for “{_words(query, 80)}”{_withheld(result)}")
    for n, hit in enumerate(hits, start=1):
        said = f"{hit['speaker']}: " if hit.get("speaker") else ""
        print()
        print(
            textwrap.fill(f"{n:>2}. {said}{_words(hit['text'])}", _WIDTH, subsequent_indent="    ")
        )
        print("    " + _about(hit))  # one line, the id whole: it is copied from here


def print_context(pack: dict[str, Any]) -> None:
    from domain.relevance_gate import NOTHING_RELEVANT, weak_pack_words

    print(
        f"Context pack: {pack['token_count']} of {pack['token_budget']} tokens "
        f"({pack['encoding']}), {len(pack['items'])} items, {pack['omitted']} left out"
        + _withheld(pack)
    )
    if pack.get("reason") == NOTHING_RELEVANT:
        print(weak_pack_words(len(pack["items"]), pack["below_floor"]))
    for item in pack["items"]:
        print()
        print(_about(item))
        said = f"{item['speaker']}: " if item.get("speaker") else ""
        print(said + item["text"].strip())


_SURFACES = {"cli": "the CLI", "api": "the HTTP API", "mcp": "MCP", "web": "the workspace"}


def _activity(receipts: list[dict[str, Any]]) -> list[str]:
    """The audit trail as counts per action and surface, newest first: who did what."""
    seen: Counter[tuple[str, str, bool]] = Counter()
    last: dict[tuple[str, str, bool], str] = {}
    for r in receipts:
        key = (str(r.get("action")), str(r.get("surface")), bool(r.get("allowed")))
        seen[key] += 1
        last.setdefault(key, str(r.get("at")))
    lines = []
    for key, count in seen.items():
        action, surface, allowed = key
        times = "once" if count == 1 else f"{count} times"
        refused = "" if allowed else ", refused"
        when = _when(last[key])
        through = _SURFACES.get(surface, surface)
        words = action.replace(":", " ").replace("_", " ")
        lines.append(f"  {words} through {through}{refused}: {times}, last {when}")
    return lines


def print_source(source: dict[str, Any]) -> None:
    kind = str(source.get("source_type") or "source").replace("_", " ")
    when = _when(source.get("occurred_at"))
    made = f"remembered {_when(source.get('created_at'))}"
    print(" · ".join(p for p in (kind.capitalize(), when, made) if p))
    print(f"id {source['source_id']} · version {source.get('version')}")
    state = _state(source) or [str(source.get("lifecycle", "active"))]
    print("State: " + ", ".join(state))
    if source.get("marks"):
        print("Marked: " + ", ".join(source["marks"]))
    visibility = source.get("visibility") or {}
    print(f"Visible to you because: {source.get('visible_because')}")
    if visibility.get("readers"):
        print("Who may read it: " + "; ".join(visibility["readers"]))
    if source.get("source_uri"):
        print(f"From: {source['source_uri']}")
    for key, value in (source.get("metadata") or {}).items():
        shown = ", ".join(map(str, value)) if isinstance(value, list) else value
        print(f"{key.replace('_', ' ').capitalize()}: {shown}")
    print()
    if source.get("content") is not None:
        print(source["content"].rstrip())
    else:
        print(f"(text not shown: {source.get('withheld_reason')})")
    print()
    derived = source.get("derived") or []
    cited = source.get("cited_by") or []
    print(f"{len(derived)} chunk(s) indexed; cited by {len(cited)} document(s)")
    for linked in source.get("linked_from") or []:
        print(f"  source {linked} points here (superseded by or a duplicate of this one)")
    corrections = source.get("corrections") or []
    if corrections:
        print("Corrections, newest first:")
    for c in reversed(corrections):
        target = f" → {c['target_id']}" if c.get("target_id") else ""
        why = f": {c['reason']}" if c.get("reason") else ""
        print(f"  {_when(c['at'])}: {c['action'].replace('_', ' ')}{target}{why}")
    actions = [a["action"] for a in source.get("actions") or []]
    if actions:
        print(
            "Corrections you may make: "
            + ", ".join(actions)
            + f" (tessera correct {source['source_id']} ACTION)"
        )
    activity = _activity(source.get("receipts") or [])
    if activity:
        print("Activity, newest first:")
        print("\n".join(activity))
    print("All fields: tessera inspect --json " + source["source_id"])
