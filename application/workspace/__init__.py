"""Use cases behind the memory workspace that no other surface needed first."""
