"""Derived memory (docs/design.md#derived-memory): candidates, their review, the rules extractor."""
