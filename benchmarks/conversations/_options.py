"""``--conversation``: which conversation-aware parts of retrieval a run switches on.

``on`` (the default settings), ``off`` (retrieval as before them), or ``on``
with overrides, e.g. ``windows=false,episode_weight=0.25`` (one part measured
at a time).
"""

from typing import Any

import msgspec

from application.retrieval.options import ConversationRecall

__all__ = ["parse_conversation"]


def _value(raw: str, like: Any) -> Any:
    if isinstance(like, bool):
        if raw.lower() not in ("true", "false", "on", "off", "1", "0"):
            raise ValueError(f"not a yes/no value: {raw}")
        return raw.lower() in ("true", "on", "1")
    return type(like)(raw)


def parse_conversation(spec: str) -> ConversationRecall:
    spec = spec.strip()
    if spec == "off":
        return ConversationRecall.off()
    base = ConversationRecall()
    if spec in ("", "on"):
        return base
    changes: dict[str, Any] = {}
    for part in spec.split(","):
        name, _, raw = part.partition("=")
        name = name.strip()
        if name not in base.__struct_fields__:
            raise ValueError(f"unknown conversation option: {name}")
        changes[name] = _value(raw.strip(), getattr(base, name))
    return msgspec.structs.replace(base, **changes)
