"""Language-model adapters: OpenAI, Gemini, and any OpenAI-compatible server."""
