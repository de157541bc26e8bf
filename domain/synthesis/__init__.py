"""Synthesis rules that need no I/O: outlines, sentences, support and the verdict."""
