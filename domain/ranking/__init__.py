"""The query-aware ranker: pure, interpretable rules applied after fusion."""
