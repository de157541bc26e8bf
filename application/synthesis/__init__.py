"""Source-grounded synthesis: plan, section packs, draft, verify, remember (DESIGN.md §10)."""
