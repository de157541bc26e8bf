"""Use cases and the ports they need. Knows the domain, never a concrete adapter."""
