"""Primitives every profile shares: card kinds and shoes (``cards``), meld types, validation and searches
(``melds``), and ``_impl``, which selects the pure-Python or the compiled twin of the hot rules functions. Imports
nothing else of the package."""
