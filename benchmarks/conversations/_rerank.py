"""The benchmark's ``--rerank`` choice, built by the composition root's own factory.

``none`` measures today's path; ``llm`` needs a language model configured
through the usual settings (``TESSERA_LLM`` and friends) and is refused
without one; ``cross-encoder`` needs ``--rerank-model-dir`` (or
``TESSERA_RERANK_MODEL_DIR``), a local CrossEncoder directory. Only the
``ranked`` mode is reranked (the step runs after the ranker); its row is
labelled ``ranked+<reranker>``.
"""

import os
from pathlib import Path

from application.ports.rerank import Reranker
from application.retrieval.pipeline import RetrievalMode

__all__ = ["RERANK_CHOICES", "build_reranker", "mode_label"]

RERANK_CHOICES = ("none", "llm", "cross-encoder")


def build_reranker(kind: str, model_dir: Path | None, top_n: int) -> Reranker | None:
    """The reranker ``kind`` names, or None for ``none``; SystemExit with a reason if unusable."""
    from entrypoints.llm_factory import make_llm
    from entrypoints.rerank_factory import make_reranker
    from entrypoints.settings import SettingsError, load_settings

    env = dict(os.environ)
    env["TESSERA_RERANK"] = kind
    env["TESSERA_RERANK_TOP_N"] = str(top_n)
    if model_dir is not None:
        env["TESSERA_RERANK_MODEL_DIR"] = str(model_dir)
    try:
        settings = load_settings(env)
        llm = make_llm(settings) if kind == "llm" else None
        return make_reranker(settings, llm)
    except SettingsError as exc:
        raise SystemExit(f"--rerank {kind}: {exc}") from None


def mode_label(mode: RetrievalMode, kind: str) -> str:
    return f"{mode.value}+{kind}" if mode is RetrievalMode.RANKED and kind != "none" else mode.value
