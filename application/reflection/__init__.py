"""Derived memory use cases: reflect into candidates, review them, promote them."""
