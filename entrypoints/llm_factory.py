"""Builds the configured language model, or none (the default).

Kept out of container.py so the composition root stays small; adapters are
imported inside, so a deployment without an LLM never imports an LLM SDK.
"""

from application.ports.llm import LanguageModel
from entrypoints.settings import LLMKind, Settings, SettingsError

__all__ = ["make_llm"]


def make_llm(settings: Settings) -> LanguageModel | None:
    kind = settings.llm
    if kind is LLMKind.NONE:
        return None
    if kind is LLMKind.OPENAI_COMPATIBLE:
        from adapters.llm.openai_llm import OpenAICompatibleLLM

        if not settings.llm_base_url or not settings.llm_model:
            raise SettingsError(
                "TESSERA_LLM=openai-compatible needs TESSERA_LLM_BASE_URL and TESSERA_LLM_MODEL"
            )
        return OpenAICompatibleLLM(
            base_url=settings.llm_base_url, model=settings.llm_model, api_key=settings.llm_api_key
        )
    if not settings.llm_api_key:
        raise SettingsError(
            f"TESSERA_LLM={kind} needs TESSERA_LLM_API_KEY (or OPENAI_API_KEY / GEMINI_API_KEY)"
        )
    if kind is LLMKind.OPENAI:
        from adapters.llm.openai_llm import DEFAULT_MODEL as OPENAI_MODEL
        from adapters.llm.openai_llm import OpenAILLM

        return OpenAILLM(
            api_key=settings.llm_api_key,
            model=settings.llm_model or OPENAI_MODEL,
            base_url=settings.llm_base_url,
        )
    from adapters.llm.gemini_llm import DEFAULT_MODEL as GEMINI_MODEL
    from adapters.llm.gemini_llm import GeminiLLM

    return GeminiLLM(
        api_key=settings.llm_api_key,
        model=settings.llm_model or GEMINI_MODEL,
        base_url=settings.llm_base_url,
    )
