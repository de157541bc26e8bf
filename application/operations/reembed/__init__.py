"""Changing the embedding model without downtime: ``tessera reembed``."""
