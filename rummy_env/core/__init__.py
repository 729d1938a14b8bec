"""Primitives every profile shares: card kinds and shoes (``cards``), meld types, validation and searches
(``melds``). Imports nothing else of the package but ``rummy_env._impl`` (which may swap the hot ``melds``
functions for their compiled twin)."""
