"""Test oracles shipped for ``rummy fuzz``: random and biased self-play with invariant checks after every action.
Not used by the engines, envs or bots."""
