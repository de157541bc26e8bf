"""Conversation-aware recall is on by default and can be switched off as one setting."""

from pathlib import Path

import pytest

from application.retrieval.options import ConversationRecall
from entrypoints.container import _conversation
from entrypoints.settings import ConversationSwitch, SettingsError, load_settings


def test_on_by_default_and_off_by_setting(tmp_path: Path) -> None:
    settings = load_settings({"TESSERA_DATA_DIR": str(tmp_path)})
    assert settings.conversation_recall is ConversationSwitch.ON
    assert _conversation(settings) == ConversationRecall()
    off = load_settings(
        {"TESSERA_DATA_DIR": str(tmp_path), "TESSERA_CONVERSATION_RECALL": "off"}
    )
    assert _conversation(off) == ConversationRecall.off()


def test_an_unknown_value_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="TESSERA_CONVERSATION_RECALL"):
        load_settings({"TESSERA_DATA_DIR": str(tmp_path), "TESSERA_CONVERSATION_RECALL": "maybe"})
