"""Builds the configured reranker, or none (the default: the pipeline skips the step).

Kept out of container.py so the composition root stays small; adapters are
imported inside, so the default never imports torch. A misconfiguration
(an LLM reranker without an LLM, a model directory that is not there) is a
``SettingsError`` at start-up, not a fallback at every search.
"""

from application.ports.llm import LanguageModel
from application.ports.rerank import Reranker
from entrypoints.settings import RerankKind, Settings, SettingsError

__all__ = ["make_reranker"]


def make_reranker(settings: Settings, llm: LanguageModel | None) -> Reranker | None:
    kind = settings.rerank
    if kind is RerankKind.NONE:
        return None
    if kind is RerankKind.LLM:
        if llm is None:
            raise SettingsError("TESSERA_RERANK=llm needs a language model (set TESSERA_LLM)")
        from adapters.rerankers.llm_listwise import LLMListwiseReranker

        return LLMListwiseReranker(llm)
    folder = settings.rerank_model_dir
    if folder is None or not folder.is_dir():
        raise SettingsError(
            "TESSERA_RERANK=cross-encoder needs TESSERA_RERANK_MODEL_DIR, "
            "a local CrossEncoder model directory"
        )
    from adapters.rerankers.cross_encoder import CrossEncoderReranker

    return CrossEncoderReranker(folder)
