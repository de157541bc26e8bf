"""Retrieval orchestration: candidate signals, episode expansion, fusion and ranking."""
