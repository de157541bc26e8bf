"""Pure rules of Tessera: models, invariants and algorithms. stdlib + msgspec only."""
