"""Share: preview, then apply, memory into another space (DESIGN.md sections 3 and 9)."""
