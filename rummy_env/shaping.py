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

The Contract measures are the heuristic's own (``bots.contract_hand.contract_structure`` / ``final_structure``
and the ``contract_gamerules`` forms), counted in whole cards (their ``missing``) over the full shoe as the live
cards, so the measure is a function of the hand alone and memoised. ``training/ppo.py`` applies it with its
``shaping`` field (docs/training.md "Learning signal from scratch").
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from .core.cards import JOKER

__all__ = ["hand_distance", "potential"]


def potential(view: Any) -> float:
    """``-hand_distance(view)``: the shaping potential of the view's seat (0 for a hand that has gone out)."""
    return -float(hand_distance(view))


def hand_distance(view: Any) -> int:
    """Cards the hand of ``view``'s seat is away from going out (table above); ``view`` is a ``PublicView`` or a
    ``ContinentalView`` (``env.public_view(agent)``, ``VectorEnv.public_view(i, seat)``). Raises ``ShapingError``
    for any other object."""
    profile = getattr(view, "profile", None)
    if profile == "continental":
        return _continental_distance(view)
    if profile in ("contract", "contract_gamerules"):
        return _contract_distance(view)
    raise ShapingError(
        f"hand_distance() takes a seat's view (PublicView or ContinentalView, e.g. env.public_view(agent)), "
        f"got {type(view).__name__} with profile {profile!r}; profiles: contract, contract_gamerules, continental"
    )


class ShapingError(ValueError):
    """``hand_distance`` was given something that is not a seat's view."""


# ---- continental ------------------------------------------------------------------------------------------------
@lru_cache(maxsize=8)
def _planner(patterns: tuple, min_run: int) -> Any:
    from .bots.heuristic_continental import RunPlanner

    return RunPlanner(patterns, min_run)


def _continental_distance(view: Any) -> int:
    planner = _planner(view.rules.patterns, view.rules.min_run)
    hand = view.hand
    extra = sum(hand) - min(sum(p) for p in view.rules.patterns)  # 1 between a draw and the discard
    return max(0, planner.distance(hand) - max(0, extra))


# ---- contract, contract_gamerules -------------------------------------------------------------------------------
def _contract_distance(view: Any) -> int:
    hand = view.hand
    size = sum(hand)
    if view.opened[view.seat]:
        return size
    rules = view.rules
    gamerules = view.profile == "contract_gamerules"
    if view.final_round:
        missing, used = _final(hand, size, view.contract[1], rules.run_min, gamerules, rules.decks, rules.jokers)
    else:
        g, r = view.contract
        missing, used = _structure(hand, g, r, rules, gamerules)
    return missing + max(0, size - used)


@lru_cache(maxsize=50_000)
def _structure(hand: tuple[int, ...], g: int, r: int, rules: Any, gamerules: bool) -> tuple[int, int]:
    live = _shoe(rules.decks, rules.jokers)
    if gamerules:
        from .bots.heuristic_gamerules import gamerules_structure

        s = gamerules_structure(hand, g, r, live, rules)
    else:
        from .bots.contract_hand import contract_structure

        s = contract_structure(hand, g, r, live, rules)
    return s.missing, sum(s.used)


@lru_cache(maxsize=50_000)
def _final(hand: tuple[int, ...], target: int, n_runs: int, run_min: int, gamerules: bool, decks: int,
           jokers: int) -> tuple[int, int]:  # fmt: skip
    live = _shoe(decks, jokers)
    if gamerules:
        from .bots.heuristic_gamerules import gamerules_final_structure

        s = gamerules_final_structure(hand, target, live, n_runs, run_min)
    else:
        from .bots.contract_hand import final_structure

        s = final_structure(hand, target, live, n_runs)
    return s.missing, sum(s.used)


def _shoe(decks: int, jokers: int) -> list[int]:
    live = [decks] * (JOKER + 1)
    live[JOKER] = jokers
    return live
