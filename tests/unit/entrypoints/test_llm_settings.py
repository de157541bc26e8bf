"""The LLM is off by default and each provider is built only when named."""

from pathlib import Path

import pytest

from adapters.llm.gemini_llm import GeminiLLM
from adapters.llm.openai_llm import OpenAICompatibleLLM, OpenAILLM
from entrypoints.llm_factory import make_llm
from entrypoints.settings import LLMKind, SettingsError, load_settings


def test_no_llm_by_default(tmp_path: Path) -> None:
    settings = load_settings({"TESSERA_DATA_DIR": str(tmp_path)})
    assert settings.llm is LLMKind.NONE
    assert make_llm(settings) is None


def test_each_provider_is_built_from_the_environment(tmp_path: Path) -> None:
    base = {"TESSERA_DATA_DIR": str(tmp_path)}
    openai = make_llm(load_settings({**base, "TESSERA_LLM": "openai", "OPENAI_API_KEY": "k"}))
    assert isinstance(openai, OpenAILLM) and "k" not in repr(openai)
    gemini = make_llm(
        load_settings(
            {**base, "TESSERA_LLM": "gemini", "GEMINI_API_KEY": "k", "TESSERA_LLM_MODEL": "m"}
        )
    )
    assert isinstance(gemini, GeminiLLM) and gemini.model == "m"
    local = make_llm(
        load_settings(
            {
                **base,
                "TESSERA_LLM": "openai-compatible",
                "TESSERA_LLM_BASE_URL": "http://127.0.0.1:8080/v1",
                "TESSERA_LLM_MODEL": "qwen",
            }
        )
    )
    assert isinstance(local, OpenAICompatibleLLM) and local.model == "qwen"


@pytest.mark.parametrize(
    "env",
    [
        {"TESSERA_LLM": "openai"},
        {"TESSERA_LLM": "openai-compatible", "TESSERA_LLM_MODEL": "m"},
    ],
)
def test_missing_llm_settings_name_the_variable(tmp_path: Path, env: dict[str, str]) -> None:
    with pytest.raises(SettingsError, match="TESSERA_LLM"):
        make_llm(load_settings({"TESSERA_DATA_DIR": str(tmp_path), **env}))


def test_unknown_llm_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="TESSERA_LLM"):
        load_settings({"TESSERA_DATA_DIR": str(tmp_path), "TESSERA_LLM": "gpt"})
