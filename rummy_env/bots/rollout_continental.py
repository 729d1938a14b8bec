"""A fast rollout policy for the ``continental`` profile: the heuristic's rules on cheap hand measures, on the engine.

The ``continental`` heuristic measures every candidate discard and the discard top by the hand's exact *distance* to
going out (``RunPlanner``: a dynamic programme per suit, memoised, then the suits added up against the run-length
patterns): about 1 to 3 ms a decision, so a full-round rollout costs 30 to 100 ms and a one-second search could
afford about ten. ``FastContinentalPolicy`` keeps the heuristic's decisions on cheaper measures:

| decision | heuristic | fast policy |
|---|---|---|
| a valid dealt hand | declare without drawing | the same |
| draw | the discard top if it lowers the distance (a wild always) | the top if it is a wild, or a natural with a same-suit card one position away (or on both sides two away) that is better connected than the hand's least connected natural |
| going out | the discard leaving the best payment; wait while a bigger payment is one card away and the deal is young | the discard leaving the best payment (wilds and the no-wild bonus, not one suit); never waits |
| discard | the least connected of the cards that keep the distance lowest | the least connected natural (same ``keep_value`` weights: neighbours one and two positions away, a second copy, feeding the next player), never a wild while a natural will do |

It reads, of the engine state, the mover's own hand and public facts only (the discard top, the cards known to be in
the next player's hand, the engine's own list of going-out discards), so a rollout seat plays on its own knowledge;
it draws no random numbers (ties go to the highest card), so a rollout depends only on the determinization and the
engine's generator. Its strength against ``heuristic`` and its rollouts a second: ``docs/guides/bots.md`` ("Fast
rollouts").
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.cards import JOKER, NUM_KINDS, NUM_RANKS
from ..rules.continental_hand import MAX_POS
from .heuristic_continental import WILD_KINDS, ContinentalHeuristic, ContinentalStyle, RunPlanner

#: the kinds at each run position 1..14 of a suit (position 1 and 14 are the ace; -1: no position)
_POS_KIND = [[-1] + [s * NUM_RANKS + (0 if p in (1, MAX_POS) else p - 1) for p in range(1, MAX_POS + 1)] for s in range(4)]
#: run positions of each natural kind (the ace has two)
_POSITIONS = [((1, MAX_POS) if k % NUM_RANKS == 0 else (k % NUM_RANKS + 1,)) if k < JOKER else () for k in range(NUM_KINDS)]


class FastContinentalPolicy:
    """The continental heuristic's decisions on cheap measures (module docstring); ``decide(state, legal)`` on the
    engine state, for the player to move."""

    def __init__(self, style: ContinentalStyle | None = None, in_run: float = 1.0, shortlist: int = 5,
                 draw_shortlist: int = 5) -> None:
        self.style = style or ContinentalStyle()
        self.in_run = in_run
        self.shortlist = shortlist
        self.draw_shortlist = draw_shortlist
        self._heuristic = ContinentalHeuristic(np.random.default_rng(0), self.style)
        self._planners: dict[Any, RunPlanner] = {}

    def connection(self, hand: list[int], kind: int, feed: list[int] | None = None) -> float:
        """How connected the natural ``kind`` is in ``hand`` (the heuristic's ``keep_value`` with every gap card
        counted live): same-suit cards one position away, else two away, on each side; a second copy; feeding the
        next player (``feed``: the kinds he is publicly known to hold)."""
        st = self.style
        suit = kind // NUM_RANKS
        row = _POS_KIND[suit]
        best = 0.0
        for p in _POSITIONS[kind]:
            near = 0.0
            for step in (-1, 1):
                p1, p2 = p + step, p + 2 * step
                if 1 <= p1 <= MAX_POS and p1 != 2 and hand[row[p1]]:
                    near += st.near1
                elif 1 <= p2 <= MAX_POS and p2 != 2 and hand[row[p2]]:
                    near += st.near2
            # a card inside three consecutive held positions is part of a run already
            for lo in (p - 2, p - 1, p):
                if lo >= 1 and lo + 2 <= MAX_POS and all(q == p or (q != 2 and hand[row[q]]) for q in (lo, lo + 1, lo + 2)):
                    near += self.in_run
                    break
            if near > best:
                best = near
        if hand[kind] > 1:
            best += st.duplicate
        if feed is not None and self._feeds(feed, kind):
            best += st.feed_weight
        return best

    @staticmethod
    def _feeds(known: list[int], kind: int) -> bool:
        suit, q = divmod(kind, NUM_RANKS)
        for d in (-2, -1, 1, 2):
            q2 = q + d
            if 0 <= q2 < NUM_RANKS and q2 != 1 and known[suit * NUM_RANKS + q2]:
                return True
        return False

    def decide(self, st: Any, legal: list[int]) -> int:
        """The chosen action among ``legal`` (the legal actions of ``st``'s player to move)."""
        lay = st.layout
        p = st.current_player
        hand = st.hands[p]
        if st.phase == "draw":
            if lay.DECLARE in legal:
                return lay.DECLARE
            if lay.DRAW_DISCARD in legal and self.wants_top(hand, st.discard[-1], st.rules):
                return lay.DRAW_DISCARD
            return lay.DRAW_STOCK
        if legal[-1] >= lay.DISCARD_DECLARE:
            return self._going_out(st, legal)
        feed = st.known[(p + 1) % st.n]
        scored = sorted((self.connection(hand, a - lay.DISCARD, feed), ((a * 40503 + st.turn * 977) % 65536), a) for a in legal if a - lay.DISCARD not in WILD_KINDS)
        if not scored:
            return legal[-1]
        if self.shortlist <= 1 or len(scored) == 1:
            return scored[0][2]
        short = scored[: self.shortlist]
        dist = self.planner(st.rules).distances_after_discard(hand, [a - lay.DISCARD for _, _, a in short])
        return min(short, key=lambda sa: (dist[sa[2] - lay.DISCARD], sa))[2]

    def planner(self, rules: Any) -> RunPlanner:
        """The (cached) run planner of ``rules``."""
        key = (rules.patterns, rules.min_run)
        p = self._planners.get(key)
        if p is None:
            p = self._planners[key] = RunPlanner(rules.patterns, rules.min_run)
        return p

    def wants_top(self, hand: list[int], top: int, rules: Any) -> bool:
        """Take the discard top when the hand with it, less the best other discard, is strictly closer to going out
        (the heuristic's test; a wild always is unless the hand is ready). Only the ``draw_shortlist`` least
        connected naturals are tried as the discard after it."""
        planner = self.planner(rules)
        now = planner.distance(hand)
        if now == 0:
            return False
        if top in WILD_KINDS:
            return True
        hand[top] += 1
        try:
            scored = sorted((self.connection(hand, k), k) for k in range(JOKER) if hand[k] > (k == top) and k not in WILD_KINDS)
            short = [k for _, k in scored[: max(1, self.draw_shortlist)]]
            if not short:
                return False
            after = min(planner.distances_after_discard(hand, short).values())
        finally:
            hand[top] -= 1
        return after < now

    def _going_out(self, st: Any, legal: list[int]) -> int:
        """A hand that can go out plays as the heuristic does (``ContinentalHeuristic.choose_discard``: the
        discard paying most, declared unless waiting for a bigger payment is worth it); about once a deal, so its
        cost does not matter. Its random tie-breaks are not reached on this path."""
        return self._heuristic.choose_discard(st.public_view(st.current_player))


__all__ = ["FastContinentalPolicy"]
