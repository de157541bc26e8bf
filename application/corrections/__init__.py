"""Corrections: preview, then apply, a change to a source's lifecycle (``domain.lifecycle``)."""
