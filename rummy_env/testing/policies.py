"""Move choosers of the fuzzer: a uniform random policy and a *biased* one that seeks the rare actions.

A policy is ``policy(state, legal, rng) -> action``: it sees the engine state, its legal action ids and the
session's ``random.Random`` (the fuzzer's other sampled checks draw from the same generator, so a policy must
draw in a fixed order for a run to be reproducible). ``Classifier`` names an action id's kind from the layout's
ranges without building ``action_info`` (the fuzzer and the biased policy classify every legal action).
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Callable
from typing import Any

from ..core.cards import JOKER, NUM_KINDS, NUM_RANKS, PENALTY
from ..core.melds import GROUP, MAX_POS, pos_kind

Policy = Callable[[Any, list[int], random.Random], int]


class Classifier:
    """Action id -> kind name, by the layout's named ranges (fast, no ``action_info``)."""

    def __init__(self, layout: Any):
        ranges = sorted(layout.ranges.values(), key=lambda r: r.start)
        self.starts = [r.start for r in ranges]
        self.names = [r.name for r in ranges]

    def __call__(self, action: int) -> str:
        return self.names[bisect.bisect_right(self.starts, action) - 1]

    def group(self, actions: list[int]) -> dict[str, list[int]]:
        """The actions by kind name (each list in the order given)."""
        by: dict[str, list[int]] = {}
        for a in actions:
            by.setdefault(self(a), []).append(a)
        return by


#: id(layout) -> (layout, its classifier); the layout is kept so that its id cannot be reused by another one
_CLASSIFIERS: dict[int, tuple[Any, Classifier]] = {}


def classifier(state: Any) -> Classifier:
    """The (cached) classifier of ``state``'s action layout."""
    lay = state.layout
    hit = _CLASSIFIERS.get(id(lay))
    if hit is None or hit[0] is not lay:
        hit = _CLASSIFIERS[id(lay)] = (lay, Classifier(lay))
    return hit[1]


def uniform_policy(state: Any, legal: list[int], rng: random.Random) -> int:
    """A uniformly random legal action."""
    return legal[rng.randrange(len(legal))]


def _usefulness(hand: list[int], kind: int, groups: int, runs: int) -> float:
    """How much ``kind`` helps the current contract given ``hand`` (which may or may not hold it)."""
    if kind == JOKER:
        return 100.0
    suit, r0 = divmod(kind, NUM_RANKS)
    score = 0.0
    if groups:
        same = hand[r0] + hand[r0 + 13] + hand[r0 + 26] + hand[r0 + 39] - (1 if hand[kind] else 0)
        score += (1.6 if runs else 2.2) * min(same, 2)
    if runs:
        score += _run_neighbours(hand, kind, suit, r0) * (1.0 if groups else 1.4)
        if hand[kind] >= 2 and not groups:
            score -= 0.8  # a duplicate is dead weight for runs
    return score


def _run_neighbours(hand: list[int], kind: int, suit: int, r0: int) -> float:
    """Weighted count of the cards of ``kind``'s suit held within three positions of it (the ace at both ends)."""
    base = suit * NUM_RANKS
    positions = (1, MAX_POS) if r0 == 0 else (r0 + 1,)
    near = 0.0
    for p in positions:
        for d, w in ((1, 1.0), (2, 0.6), (3, 0.3)):
            for q in (p - d, p + d):
                if 1 <= q <= MAX_POS:
                    k = base + (0 if q == MAX_POS else q - 1)
                    if k != kind and hand[k]:
                        near += w
    return near


def _run_plan(hand: list[int], runs: int) -> list[int]:
    """Greedy plan of ``runs`` runs for the all-runs final round: counts per kind of the naturals it covers."""
    h = list(hand)
    jokers = h[JOKER]
    covered = [0] * NUM_KINDS
    for _ in range(runs):
        best = _best_run(h, jokers)
        if best is None:
            break
        base, lo, hi, gaps = best
        jokers = max(0, jokers - gaps)
        for q in range(lo, hi + 1):
            k = base + (0 if q == MAX_POS else q - 1)
            if h[k]:
                h[k] -= 1
                covered[k] += 1
    return covered


def _best_run(h: list[int], jokers: int) -> tuple[int, int, int, int] | None:
    """(suit base, low, high, gaps) of the best-scoring run window of at least 4 positions, or None."""
    best = None
    best_score = 0.0
    for suit in range(4):
        base = suit * NUM_RANKS
        pre = [0]
        for q in range(1, MAX_POS + 1):
            pre.append(pre[-1] + (1 if h[base + (0 if q == MAX_POS else q - 1)] else 0))
        for lo in range(1, MAX_POS - 2):
            for hi in range(lo + 3, MAX_POS + 1):
                nat = pre[hi] - pre[lo - 1]
                gaps = hi - lo + 1 - nat
                score = nat - (0.7 * gaps if gaps <= jokers else 1.5 * gaps)
                if score > best_score:
                    best, best_score = (base, lo, hi, gaps), score
    return best


def biased_policy(state: Any, legal: list[int], rng: random.Random) -> int:
    """A random policy that strongly prefers buys, openings, lay-offs, joker swaps/placements and going out.

    Draw, buy and discard choices keep the cards that help the contract (jokers, pairs of a rank, near cards of a
    suit; in the all-runs final round a greedy plan of runs), so that openings, lay-offs and going out (rounds
    1-6 and the final round) happen often; buys are frequent while they help and the hand is still small.
    """
    if len(legal) == 1:
        return legal[0]
    if not hasattr(state, "contract"):  # not a Contract-family engine: nothing to prefer
        return uniform_policy(state, legal, rng)
    by = classifier(state).group(legal)
    if "go_out" in by:
        return by["go_out"][0]
    if "buy" in by or "draw_discard" in by:
        return _biased_draw(state, legal, by, rng)
    if "meld" in by and rng.random() < 0.97:
        return rng.choice(by["meld"])
    if "place_joker" in by:
        return rng.choice(by["place_joker"])
    if "swap_joker" in by and rng.random() < 0.9:
        return rng.choice(by["swap_joker"])
    if "lay_off" in by and rng.random() < 0.95:
        return rng.choice(by["lay_off"])
    if "discard" in by:
        return _biased_discard(state, by["discard"], rng)
    return rng.choice(legal)


def _opened_for_play(state: Any, p: int) -> bool:
    """Seat ``p`` is down and may lay off (not in the all-runs final round)."""
    return bool(state.opened[p]) and not state.final_round


def _top_is_useful(state: Any) -> bool:
    """Is the discard top worth taking (or buying) for the player to move?"""
    p = state.current
    groups, runs = state.contract
    hand = state.hands[p]
    top = state.discard[-1]
    if _opened_for_play(state, p):
        return _fits_table(state, top)
    if top == JOKER:
        return True
    if state.final_round:
        return _usefulness(hand, top, groups, runs) >= 1.9 and hand[top] == 0
    return _usefulness(hand, top, groups, runs) >= (2.0 if groups else 1.5)


def _biased_draw(state: Any, legal: list[int], by: dict[str, list[int]], rng: random.Random) -> int:
    """Draw phase or buy window: take (or buy) a useful top, now and then a deep pickup, else the stock."""
    useful = _top_is_useful(state)
    if "buy" in by:
        p = state.current
        final = state.final_round
        dealt = state.rules.hand_sizes[state.round - 1]
        small = state.hand_size[p] <= dealt + (2 if final else 4)
        if state.discard[-1] == JOKER:
            chance = 0.95
        elif useful and small and not _opened_for_play(state, p):
            chance = 0.6 if final else 0.8
        else:
            chance = 0.04
        return by["buy"][0] if rng.random() < chance else by["pass"][0]
    if "pickup" in by and rng.random() < 0.5:
        return rng.choice(by["pickup"])  # deep pickups are offered only when the card can reach the table
    if useful and rng.random() < 0.92:
        return by["draw_discard"][0]
    return by["draw_stock"][0] if rng.random() < 0.95 else rng.choice(legal)


def _biased_discard(state: Any, ds: list[int], rng: random.Random) -> int:
    """The discard of the least useful card (down: the highest penalty); jokers kept; now and then at random."""
    p = state.current
    groups, runs = state.contract
    hand = state.hands[p]
    opened = _opened_for_play(state, p)
    if rng.random() < 0.04:
        return rng.choice(ds)
    if not opened and ds[-1] == state.layout.DISCARD + JOKER and rng.random() < 0.03:
        return ds[-1]  # now and then a joker for the next player to take
    lay = state.layout
    plan = _run_plan(hand, runs) if state.final_round else None
    best: list[int] = []
    best_score = None
    for a in ds:
        k = a - lay.DISCARD
        if k == JOKER:
            sc = 1000.0
        elif opened:
            sc = -PENALTY[k] + rng.random()
        elif plan is not None:
            sc = (20.0 if plan[k] >= hand[k] else 0.0) + _usefulness(hand, k, groups, runs) + rng.random() * 0.3
        else:
            sc = _usefulness(hand, k, groups, runs) + rng.random() * 0.5
        if best_score is None or sc < best_score:
            best, best_score = [a], sc
    return best[0]


def _fits_table(state: Any, kind: int) -> bool:
    """Could ``kind`` be laid off on some table meld now?"""
    if kind == JOKER:
        return bool(state.table)
    suit, r0 = divmod(kind, NUM_RANKS)
    for m in state.table:
        if m.kind == GROUP:
            if m.rank == r0 + 1:
                return True
        elif m.suit == suit:
            if (m.low > 1 and pos_kind(suit, m.low - 1) == kind) or (
                m.high < MAX_POS and pos_kind(suit, m.high + 1) == kind
            ):
                return True
    return False


POLICIES: dict[str, Policy] = {"uniform": uniform_policy, "biased": biased_policy}

__all__ = ["POLICIES", "Classifier", "Policy", "biased_policy", "classifier", "uniform_policy"]
