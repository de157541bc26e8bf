"""The search index of each organisation: snapshots, residency, status, eviction and
the readiness of its first search."""
