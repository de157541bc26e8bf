"""The asynchronous embedding lane: writes commit and are searchable before their vectors."""
