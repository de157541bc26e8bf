"""Every archive format Tessera imports, by the name users pick it with (``--adapter``)."""

from adapters.sources.chatgpt import ChatGptSourceAdapter
from adapters.sources.jsonl import JsonlSourceAdapter
from adapters.sources.maildir import MaildirSourceAdapter
from adapters.sources.markdown import MarkdownSourceAdapter
from adapters.sources.mbox import MboxSourceAdapter
from application.imports.ports import SourceAdapter

__all__ = ["source_adapters"]


def source_adapters() -> dict[str, SourceAdapter]:
    adapters: list[SourceAdapter] = [
        MboxSourceAdapter(),
        MaildirSourceAdapter(),
        JsonlSourceAdapter(),
        ChatGptSourceAdapter(),
        MarkdownSourceAdapter(),
    ]
    return {adapter.name: adapter for adapter in adapters}
