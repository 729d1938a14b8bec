"""``rummy_env.engine.common``: the shuffle every deal and reshuffle goes through."""

from __future__ import annotations

import numpy as np

from rummy_env.engine.common import shuffled


def _by_permutation(rng: np.random.Generator, cards: list[int]) -> list[int]:
    """The definition ``shuffled`` keeps: the cards in the order of ``rng.permutation(len(cards))``."""
    return [cards[i] for i in rng.permutation(len(cards)).tolist()]


def test_shuffled_is_the_permutation_order_and_leaves_the_generator_where_permutation_does():
    """Same seed, same game: the list shuffle must give what ``rng.permutation`` gave (the order the golden
    playthroughs were recorded with) and consume the same draws, for piles of every size a game meets."""
    for seed in range(40):
        ours, ref = np.random.default_rng(seed), np.random.default_rng(seed)
        for n in list(range(0, 12)) + [20, 31, 52, 60, 107, 108]:
            cards = [(7 * k + seed) % 54 for k in range(n)]
            before = list(cards)
            got = shuffled(ours, cards)
            assert got == _by_permutation(ref, cards), (seed, n)
            assert cards == before  # a new list; the argument is left as it was
        assert ours.random() == ref.random()  # the generators' states agree after the whole sequence


def test_shuffled_is_a_rearrangement():
    rng = np.random.default_rng(0)
    cards = [3, 3, 9, 1, 0, 53, 12]
    assert sorted(shuffled(rng, cards)) == sorted(cards)
    assert shuffled(rng, []) == []
