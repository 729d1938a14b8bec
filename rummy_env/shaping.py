"""Hand potentials for potential-based reward shaping: an option of training, never the environments' reward.

Random play almost never ends a Continental deal (the payments are then all 0) and ends few Contract rounds well, so
a policy trained from scratch sees almost no reward. Shaping adds a denser signal without changing which policies
are best (Ng, Harada & Russell, 1999): a seat's transition from its decision ``s`` to its next decision ``s'`` gets
``coef * (gamma * phi(s') - phi(s))`` on top of its reward, with ``phi`` = 0 once the episode is over, so the
shaping terms of a whole episode add up to ``-coef * phi(first decision)``, whatever the seat does.

``phi(view) = -hand_distance(view)``: minus the number of cards the seat's hand is away from going out, read from
that seat's own view (its hand, the contract, whether it is down; never another seat's hand or the stock):

| profile | the seat is ... | ``hand_distance`` |
|---|---|---|
| ``continental`` | to draw | cards missing to a valid 15-card split (the heuristic's ``RunPlanner.distance``; 0: it goes out) |
| ``continental`` | to discard (16 cards) | the same measure of the 16 cards less one (the card too many; at least 0) |
| ``contract``, ``contract_gamerules`` | down | cards in hand (each must still be laid off or discarded) |
| ``contract``, ``contract_gamerules`` | not down, rounds 1-6 | cards missing to the contract plus the cards the contract's target leaves over |
| ``contract``, ``contract_gamerules`` | not down, round 7 | cards missing to runs that hold the whole hand, plus those left over |

Every measure is the profile's own heuristic's (``bots.heuristic.POLICIES``): the continental run planner, the
contract targets ``structure`` / ``final_runs`` (``contract_hand.contract_structure`` / ``final_structure``, the
``contract_gamerules`` heuristic's forms of them), counted in whole cards (their ``missing``) with the full shoe as
the live cards, so the measure is a function of the hand alone and memoised. ``training/ppo.py`` applies it with its
``shaping`` field (docs/guides/training.md "Learning signal from scratch").
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from .bots import heuristic  # its POLICIES read on each call: a registration made later counts
from .core.cards import JOKER

__all__ = ["ShapingError", "hand_distance", "potential"]


class ShapingError(ValueError):
    """``hand_distance`` was given something that is not a seat's view of a profile with a heuristic."""


def potential(view: Any) -> float:
    """``-hand_distance(view)``: the shaping potential of the view's seat (0 for a hand that has gone out)."""
    return -float(hand_distance(view))


def hand_distance(view: Any) -> int:
    """Cards the hand of ``view``'s seat is away from going out (table above); ``view`` is a ``PublicView`` or a
    ``ContinentalView`` (``env.public_view(agent)``, ``VectorEnv.public_view(i, seat)``). Raises ``ShapingError``
    for any other object."""
    profile = getattr(view, "profile", None)
    measure = _heuristic(profile) if isinstance(profile, str) and hasattr(view, "hand") else None
    if hasattr(measure, "planner"):
        return _run_distance(measure.planner(view), view.hand, view.rules.patterns)
    if hasattr(measure, "structure"):
        return _contract_distance(measure, view)
    raise ShapingError(
        f"hand_distance() takes a seat's view (PublicView or ContinentalView, e.g. env.public_view(agent)) of a "
        f"profile with a heuristic; got {type(view).__name__} (profile {profile!r}); profiles: {sorted(heuristic.POLICIES)}"
    )


@cache
def _heuristic(profile: str) -> Any:
    """The profile's heuristic (only its pure, memoised hand measures are used), or None."""
    factory = heuristic.POLICIES.get(profile)
    return None if factory is None else factory(np.random.default_rng(0))


def _run_distance(planner: Any, hand: tuple[int, ...], patterns: tuple) -> int:
    extra = sum(hand) - min(sum(p) for p in patterns)  # 1 between a draw and the discard
    return max(0, planner.distance(hand) - max(0, extra))


def _contract_distance(measure: Any, view: Any) -> int:
    hand = view.hand
    size = sum(hand)
    if view.opened[view.seat]:
        return size
    key = (view.profile, view.rules, view.contract, view.final_round, hand)
    d = _TARGETS.get(key)
    if d is None:
        rules = view.rules
        live = [rules.decks] * (JOKER + 1)
        live[JOKER] = rules.jokers
        s = measure.final_runs(view, hand, size, live) if view.final_round else measure.structure(view, hand, live)
        if len(measure._memo) > 20_000:  # the heuristic's own cache, bounded as its decide() bounds it
            measure._memo.clear()
        if len(_TARGETS) > 200_000:
            _TARGETS.clear()
        d = _TARGETS[key] = s.missing + max(0, size - sum(s.used))
    return d


#: (profile, rules, contract, final round, hand) -> distance of a hand not yet down (a pure cache)
_TARGETS: dict[tuple, int] = {}
