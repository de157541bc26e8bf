"""An operator's work: dropping an organisation, compacting the store, re-embedding,
inspecting and diagnosing."""
