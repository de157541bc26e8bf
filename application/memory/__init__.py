"""Remembering, searching and packing context: the memory service and its commands,
results, filters and limits."""
