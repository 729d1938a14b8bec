"""Test oracles shipped for ``rummy fuzz``: random and biased self-play with invariant checks after every action.
Not used by the engines, envs or bots.

``fuzz`` (the driver: sessions, generic sampled checks, ``fuzz`` / ``fuzz_session``), ``policies`` (the move
choosers), ``invariants`` (the rule oracles of profile ``contract``), ``tally`` (counts and the report)."""
