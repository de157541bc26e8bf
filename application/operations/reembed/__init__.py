"""Changing the embedding model without downtime (issue 18): ``tessera reembed``."""
