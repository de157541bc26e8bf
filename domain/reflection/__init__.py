"""Derived memory (DESIGN.md section 9): candidates, their review, the rules extractor."""
