"""Primitives every profile shares: card kinds and shoes (``cards``), meld types, validation and searches
(``melds``). Imports nothing else of the package."""
