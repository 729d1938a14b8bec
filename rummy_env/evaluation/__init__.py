"""Playing matches and reading their results: tournaments with ratings (``tournament``), seeded bot matchups
(``bots_eval``) and throughput measurement (``bench``)."""
