"""Reranker adapters: none (the default), an LLM listwise reranker, a local cross-encoder."""
