"""Every source adapter against the shared contract, on archives built here."""

from pathlib import Path

import pytest

from adapters.sources.chatgpt import ChatGptSourceAdapter
from adapters.sources.jsonl import JsonlSourceAdapter
from adapters.sources.maildir import MaildirSourceAdapter
from adapters.sources.markdown import MarkdownSourceAdapter
from adapters.sources.mbox import MboxSourceAdapter
from application.imports.ports import SourceAdapter
from contracts.source_adapter import SourceAdapterContract, SourceSample
from tests.support import archives


class TestMboxSourceAdapter(SourceAdapterContract):
    @pytest.fixture
    def adapter(self) -> SourceAdapter:
        return MboxSourceAdapter()

    @pytest.fixture
    def sample(self, tmp_path: Path) -> SourceSample:
        return archives.build_mbox(tmp_path)


class TestMaildirSourceAdapter(SourceAdapterContract):
    @pytest.fixture
    def adapter(self) -> SourceAdapter:
        return MaildirSourceAdapter()

    @pytest.fixture
    def sample(self, tmp_path: Path) -> SourceSample:
        return archives.build_maildir(tmp_path)


class TestJsonlSourceAdapter(SourceAdapterContract):
    @pytest.fixture
    def adapter(self) -> SourceAdapter:
        return JsonlSourceAdapter()

    @pytest.fixture
    def sample(self, tmp_path: Path) -> SourceSample:
        return archives.build_jsonl(tmp_path)


class TestChatGptSourceAdapter(SourceAdapterContract):
    @pytest.fixture
    def adapter(self) -> SourceAdapter:
        return ChatGptSourceAdapter()

    @pytest.fixture
    def sample(self, tmp_path: Path) -> SourceSample:
        return archives.build_chatgpt(tmp_path)


class TestMarkdownSourceAdapter(SourceAdapterContract):
    @pytest.fixture
    def adapter(self) -> SourceAdapter:
        return MarkdownSourceAdapter()

    @pytest.fixture
    def sample(self, tmp_path: Path) -> SourceSample:
        return archives.build_markdown(tmp_path)
