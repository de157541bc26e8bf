"""Corrections: preview, then apply, a change to a source's lifecycle (DESIGN.md section 7)."""
