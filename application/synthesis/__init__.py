"""Source-grounded synthesis: plan, sections, draft, verify, remember (docs/design.md#synthesis)."""
