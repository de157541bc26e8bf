"""Share: preview, then apply, memory into another space (docs/design.md#sharing)."""
