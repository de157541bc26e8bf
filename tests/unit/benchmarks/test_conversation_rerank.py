"""The conversation benchmark's ``--rerank`` flag builds what the settings would, or refuses."""

from pathlib import Path

import pytest

from adapters.rerankers.cross_encoder import CrossEncoderReranker
from adapters.rerankers.llm_listwise import LLMListwiseReranker
from application.retrieval.pipeline import RetrievalMode
from benchmarks.conversations.__main__ import _parse
from benchmarks.conversations._rerank import build_reranker, mode_label


@pytest.fixture(autouse=True)
def _no_llm(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TESSERA_DATA_DIR", str(tmp_path))
    for name in ("TESSERA_LLM", "TESSERA_RERANK", "TESSERA_RERANK_MODEL_DIR"):
        monkeypatch.delenv(name, raising=False)


def test_none_is_the_default_and_builds_nothing() -> None:
    args = _parse([])
    assert args.rerank == "none"
    assert build_reranker(args.rerank, args.rerank_model_dir, args.rerank_top_n) is None
    assert mode_label(RetrievalMode.RANKED, "none") == "ranked"


def test_llm_rerank_needs_a_configured_llm(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(SystemExit, match="TESSERA_LLM"):
        build_reranker("llm", None, 20)
    monkeypatch.setenv("TESSERA_LLM", "openai-compatible")
    monkeypatch.setenv("TESSERA_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("TESSERA_LLM_MODEL", "qwen")
    assert isinstance(build_reranker("llm", None, 20), LLMListwiseReranker)
    assert mode_label(RetrievalMode.RANKED, "llm") == "ranked+llm"
    assert mode_label(RetrievalMode.BM25, "llm") == "bm25"


def test_cross_encoder_needs_a_model_dir(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="TESSERA_RERANK_MODEL_DIR"):
        build_reranker("cross-encoder", None, 20)
    assert isinstance(build_reranker("cross-encoder", tmp_path, 20), CrossEncoderReranker)
    with pytest.raises(SystemExit, match="TESSERA_RERANK_TOP_N"):
        build_reranker("cross-encoder", tmp_path, 1)
