"""Source adapters: archive formats read as import records (see application/imports)."""
