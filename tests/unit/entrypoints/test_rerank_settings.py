"""Rerank is off by default; each adapter is built only when named, misconfiguration is refused."""

from pathlib import Path

import pytest

from adapters.inmemory.fake_llm import ScriptedLLM
from adapters.rerankers.cross_encoder import CrossEncoderReranker
from adapters.rerankers.llm_listwise import LLMListwiseReranker
from entrypoints.container import build_container
from entrypoints.rerank_factory import make_reranker
from entrypoints.settings import RerankKind, SettingsError, load_settings


def test_no_reranker_by_default(tmp_path: Path) -> None:
    settings = load_settings({"TESSERA_DATA_DIR": str(tmp_path)})
    assert settings.rerank is RerankKind.NONE and settings.rerank_top_n == 20
    assert make_reranker(settings, ScriptedLLM()) is None
    # the composition root asks for no reranker (and so no LLM) either
    container = build_container(settings)
    assert container.reranker() is None


def test_explicit_none_is_the_default(tmp_path: Path) -> None:
    settings = load_settings({"TESSERA_DATA_DIR": str(tmp_path), "TESSERA_RERANK": "None"})
    assert make_reranker(settings, None) is None


def test_llm_rerank_wraps_the_configured_model(tmp_path: Path) -> None:
    settings = load_settings(
        {"TESSERA_DATA_DIR": str(tmp_path), "TESSERA_RERANK": "llm", "TESSERA_RERANK_TOP_N": "8"}
    )
    assert settings.rerank_top_n == 8
    assert isinstance(make_reranker(settings, ScriptedLLM()), LLMListwiseReranker)
    with pytest.raises(SettingsError, match="TESSERA_LLM"):
        make_reranker(settings, None)


def test_llm_rerank_through_the_container_uses_the_configured_llm(tmp_path: Path) -> None:
    settings = load_settings(
        {
            "TESSERA_DATA_DIR": str(tmp_path),
            "TESSERA_RERANK": "llm",
            "TESSERA_LLM": "openai-compatible",
            "TESSERA_LLM_BASE_URL": "http://127.0.0.1:9/v1",
            "TESSERA_LLM_MODEL": "qwen",
        }
    )
    assert isinstance(build_container(settings).reranker(), LLMListwiseReranker)


def test_cross_encoder_needs_an_existing_model_dir(tmp_path: Path) -> None:
    base = {"TESSERA_DATA_DIR": str(tmp_path), "TESSERA_RERANK": "cross-encoder"}
    with pytest.raises(SettingsError, match="TESSERA_RERANK_MODEL_DIR"):
        make_reranker(load_settings(base), None)
    missing = {**base, "TESSERA_RERANK_MODEL_DIR": str(tmp_path / "nope")}
    with pytest.raises(SettingsError, match="TESSERA_RERANK_MODEL_DIR"):
        make_reranker(load_settings(missing), None)
    (tmp_path / "model").mkdir()
    built = make_reranker(
        load_settings({**base, "TESSERA_RERANK_MODEL_DIR": str(tmp_path / "model")}), None
    )
    assert isinstance(built, CrossEncoderReranker)  # loads lazily: nothing read yet


@pytest.mark.parametrize(
    ("name", "value"),
    [("TESSERA_RERANK", "colbert"), ("TESSERA_RERANK_TOP_N", "1"), ("TESSERA_RERANK_TOP_N", "x")],
)
def test_bad_rerank_settings_name_the_variable(tmp_path: Path, name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        load_settings({"TESSERA_DATA_DIR": str(tmp_path), name: value})
