"""``rummy_env.shaping``: the hand potentials of potential-based reward shaping (a training option, issue 16 item 5).

The distance is the number of cards a seat's hand is from going out, read from that seat's own view: 0 exactly for
a hand that goes out, the hand size once down, contract cards missing plus the cards left over before; it never
depends on another seat's hand or the stock order.
"""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

import rummy_env
from rummy_env.core.cards import counts_of, parse_cards
from rummy_env.rules.continental_hand import can_go_out, random_shoe_counts, random_valid_counts
from rummy_env.shaping import ShapingError, hand_distance, potential


def _views(profile: str, n: int, seed: int, **kw) -> list:
    """Views of the seat to move at ``n`` decision points of random legal play."""
    env = rummy_env.make(profile, wrapped=False, **kw)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n and not env.session_over:
        agent = env.agent_selection
        out.append(env.public_view(agent))
        env.step(int(rng.choice(np.flatnonzero(env.action_mask(agent)))))
    return out


def test_continental_distance_is_zero_exactly_when_the_hand_goes_out() -> None:
    # C.1-4 "the 15-card splits": 3+3+3+3+3, 4+4+4+3, 5+4+3+3 -- distance 0 is exactly a hand that splits so
    view = next(v for v in _views("continental", 10, 1) if v.phase == "draw")
    rules = view.rules
    rng = random.Random(5)
    hands = [random_valid_counts(rng) for _ in range(60)] + [random_shoe_counts(rng) for _ in range(300)]
    zero = 0
    for counts in hands:
        d = hand_distance(dataclasses.replace(view, hand=tuple(counts)))
        goes_out = can_go_out(counts, patterns=rules.patterns, min_run=rules.min_run)
        assert (d == 0) == goes_out, counts
        assert 0 <= d <= 15
        zero += d == 0
    assert zero >= 60  # every valid hand measured 0; random hands mostly not


def test_continental_card_too_many_counts_the_best_discard() -> None:
    # between the draw and the discard the hand holds 16 cards: a valid 15 plus any card is 0 away (discard it)
    view = next(v for v in _views("continental", 10, 2) if v.phase == "draw")
    rng = random.Random(7)
    for _ in range(30):
        counts = random_valid_counts(rng)
        extra = rng.choice([k for k in range(52) if counts[k] < 2])
        counts[extra] += 1
        assert hand_distance(dataclasses.replace(view, hand=tuple(counts), phase="act")) == 0


def _contract_view(cards: str, opened: bool = False):
    view = next(v for v in _views("contract", 5, 3) if v.round == 1)
    flags = tuple(opened if s == view.seat else f for s, f in enumerate(view.opened))
    return dataclasses.replace(view, hand=tuple(counts_of(parse_cards(cards))), opened=flags)


def test_contract_distance_counts_missing_cards_and_leftovers() -> None:
    # A.1-6, round 1 "G + G": two groups of three. Held: both groups and four cards no group uses
    full = "7C 7D 7H 9C 9D 9S KC QD 4H AS"
    assert hand_distance(_contract_view(full)) == 4  # 0 missing + 4 left over
    # one 9 replaced by a card of no use: one card missing, five left over
    assert hand_distance(_contract_view("7C 7D 7H 9C 9D 5S KC QD 4H AS")) == 1 + 5
    # once down every card in hand must still go: the distance is the hand size
    assert hand_distance(_contract_view("KC QD 4H", opened=True)) == 3
    assert potential(_contract_view("KC QD 4H", opened=True)) == -3.0


def test_every_profile_measures_real_views_and_refuses_other_objects() -> None:
    for profile, kw in (("contract", {}), ("contract_gamerules", {"num_players": 4}), ("continental", {})):
        ds = [hand_distance(v) for v in _views(profile, 150, 11, **kw)]
        assert all(isinstance(d, int) and d >= 0 for d in ds)
        assert len(set(ds)) > 1  # the measure moves as the hand changes
    with pytest.raises(ShapingError, match="PublicView or ContinentalView"):
        hand_distance({"hand": [0] * 53})
    assert issubclass(ShapingError, ValueError)


@pytest.mark.parametrize("profile", ["contract", "continental"])
def test_potential_ignores_the_hidden_cards(profile: str) -> None:
    """Redealing what the seat cannot see (opponents' hands, the stock) leaves its potential unchanged."""
    env = rummy_env.make(profile, wrapped=False)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(40):
        env.step(int(rng.choice(np.flatnonzero(env.action_mask(env.agent_selection)))))
    state = env.unwrapped._state
    seat = env.current_seat
    before = potential(state.public_view(seat))
    hidden = [h for s, h in enumerate(state.to_json()["hands"]) if s != seat]
    changed = 0
    for r in range(3):
        other = state.resample_hidden(seat, np.random.default_rng(r))
        changed += [h for s, h in enumerate(other.to_json()["hands"]) if s != seat] != hidden
        assert potential(other.public_view(seat)) == before
    assert changed  # the redeal did change what the seat cannot see
