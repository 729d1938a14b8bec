"""The ``continental`` heuristic: how a good club player plays Continental rummy (spec C.1/C.2).

The yardstick is the hand's *distance*: how many cards are still missing to a valid 15-card split (runs only, 2s
and jokers wild, lengths 3+3+3+3+3 / 4+4+4+3 / 5+4+3+3). ``RunPlanner`` computes it exactly for the plan it
finds: runs are laid over the hand's naturals, the wilds fill holes, and every natural left outside the runs is a
card to exchange; distance 0 is exactly a hand that goes out (tested against ``continental_hand.can_go_out``).
Every decision reads only the ``ContinentalView`` of the deciding seat.

| decision | idea |
|---|---|
| draw | take the discard top when it brings the hand closer to going out (a wild always does), else the stock |
| discard | going out now: the discard that pays most, declared with it (``discard_declare``) unless waiting is worth it; else the card whose loss keeps the distance lowest, the least connected one (never a wild, never what the next player collects; a style with ``outs_weight`` also counts the outs each keeps) |
| declare | at once, unless a bigger payment (one suit, no wild, more wilds) is one card away and the deal is young (then the plain discard; never where the rules make declaring mandatory) |
| first turn | a valid dealt hand declares without drawing (the biggest first-turn bonus) |
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.cards import JOKER, NUM_KINDS, NUM_RANKS
from ..rules.continental_hand import MAX_POS, can_go_out, count_wilds, one_suit_possible
from .view import ContinentalView

#: kinds of the four 2s (wild, C.1-1)
DEUCES = (1, 14, 27, 40)
WILD_KINDS = frozenset(DEUCES + (JOKER,))


def is_wild(kind: int) -> bool:
    """2s and jokers are wild."""
    return kind in WILD_KINDS


def _pos_kind(suit: int, pos: int) -> int:
    return suit * NUM_RANKS + (0 if pos == MAX_POS else pos - 1)


# --------------------------------------------------------------------------------------------------------------
# The distance to going out
# --------------------------------------------------------------------------------------------------------------


class RunPlanner:
    """Best run plans of a hand for the rules' run-length patterns, memoised per suit.

    A *plan* lays runs (lengths from one pattern) over the hand's naturals; every run holds at least one natural,
    wilds fill the holes. For a plan covering ``cov`` of the hand's ``N`` naturals with ``E`` runs still empty, the
    cards missing are ``max(N - cov, E)``: every natural outside the runs must be exchanged for a card of a hole
    (the wilds fill the other holes), and an empty run needs a natural of its own. Per suit a dynamic programme
    over positions 1..14 finds, for every multiset of run lengths, the most naturals runs of those lengths can
    cover; the suits are then added up against the patterns. Suit results are memoised (shared by every planner of
    the same rules: the cache is pure).
    """

    _MEMOS: dict[tuple[int, ...], dict[Any, dict[int, int]]] = {}
    #: sums of several suits' options, by the suits' natural counts (``combined``; a pure cache like ``_MEMOS``)
    _COMBOS: dict[tuple[int, ...], dict[Any, dict[int, int]]] = {}

    def __init__(self, patterns: Sequence[Sequence[int]], min_run: int = 3):
        self.lengths = tuple(sorted({int(x) for p in patterns for x in p}))
        if min(self.lengths) < min_run:
            raise ValueError("run lengths below min_run")
        self.index = {x: i for i, x in enumerate(self.lengths)}
        self.base = 16
        self.patterns = [self._code(p) for p in patterns]
        # every sub-multiset of a pattern, with the fewest runs a pattern still needs on top of it
        self.subs: dict[int, int] = {}
        for p in patterns:
            self._add_subs(sorted(p))
        self.extra_runs = {
            c: min(self.subs[p] - self.subs[c] for p in self.patterns if self._contains(p, c)) for c in self.subs
        }
        self.sums: dict[int, dict[int, int]] = {
            a: {b: a + b for b in self.subs if (a + b) in self.subs} for a in self.subs
        }
        # ways to open runs at one position: one run of each length, two runs of any two lengths
        one = [((L,), self._code([L])) for L in self.lengths]
        two = [((L1, L2), self._code([L1, L2])) for i, L1 in enumerate(self.lengths) for L2 in self.lengths[i:]]
        self.opens = (((), 0),), (((), 0), *one), (((), 0), *one, *two)
        self._memo = self._MEMOS.setdefault(self.lengths + (0,) + tuple(self.patterns), {})
        self._combos = self._COMBOS.setdefault(self.lengths + (0,) + tuple(self.patterns), {})

    # multiset codes ------------------------------------------------------------------------------------------
    def _code(self, lengths: Sequence[int]) -> int:
        return sum(self.base ** self.index[x] for x in lengths)

    def _contains(self, big: int, small: int) -> bool:
        while big or small:
            big, a = divmod(big, self.base)
            small, b = divmod(small, self.base)
            if b > a:
                return False
        return True

    def _add_subs(self, pattern: list[int]) -> None:
        items = sorted(set(pattern))
        mult = [pattern.count(x) for x in items]

        def rec(i: int, lengths: list[int]) -> None:
            if i == len(items):
                self.subs[self._code(lengths)] = len(lengths)
                return
            for c in range(mult[i] + 1):
                rec(i + 1, lengths + [items[i]] * c)

        rec(0, [])

    # one suit ------------------------------------------------------------------------------------------------
    @staticmethod
    def suit_counts(hand: Sequence[int], suit: int) -> tuple[int, ...]:
        """The suit's naturals as counts by rank (the ace, then 3 to the king; the 2 is wild, not a natural): all
        ``suit_options`` depends on."""
        b = suit * NUM_RANKS
        return (hand[b],) + tuple(hand[b + 2 : b + NUM_RANKS])

    def combined(self, hand: Sequence[int], suits: Sequence[int]) -> dict[int, int]:
        """``combine`` of the ``suits``' options of ``hand``, memoised by their natural counts (sorted: the sum does
        not depend on the order of the suits or on which suit is which)."""
        key = tuple(sorted(self.suit_counts(hand, t) for t in suits))
        res = self._combos.get(key)
        if res is None:
            if len(self._combos) > 200_000:
                self._combos.clear()
            res = self._combos[key] = self.combine([self.suit_options(hand, t) for t in suits])
        return res

    def suit_options(self, hand: Sequence[int], suit: int) -> dict[int, int]:
        """For one suit: length-multiset code -> most of its naturals that runs of those lengths can cover."""
        counts = self.suit_counts(hand, suit)
        if not any(counts):
            return {0: 0}
        res = self._memo.get(counts)
        if res is None:
            if len(self._memo) > 200_000:
                self._memo.clear()
            res = {}
            aces = counts[0]
            for low_aces in range(aces, -1, -1):
                nat = [0, low_aces, 0, *counts[1:], aces - low_aces]  # positions 0..14
                for code, v in self._suit_dp(nat).items():
                    if v > res.get(code, -1):
                        res[code] = v
            self._memo[counts] = res
        return res

    def _suit_dp(self, nat: list[int]) -> dict[int, int]:
        """Forward DP over positions 1..14; state = (last positions of the open runs, length code), value = naturals
        covered. Runs open only at a natural (at most one per copy there, and those copies go to the new runs, so
        every run holds a natural); a run that would pass position 14 is laid on 15-L..14 instead (its first
        natural is still the one it opened at)."""
        subs = self.subs
        opens = self.opens
        states: dict[tuple[tuple[int, ...], int], int] = {((), 0): 0}
        for p in range(1, MAX_POS + 1):
            c = nat[p]
            if not c:
                if any(e for ends, _ in states for e in ends):
                    new: dict[tuple[tuple[int, ...], int], int] = {}
                    for (ends, code), val in states.items():
                        key = (tuple(e for e in ends if e != p), code)
                        if val > new.get(key, -1):
                            new[key] = val
                    states = new
                continue
            new = {}
            for (ends, code), val in states.items():
                for lens, add in opens[min(c, 2)]:
                    code2 = code + add
                    if add and code2 not in subs:
                        continue
                    o = len(ends) + len(lens)
                    v = val + (c if c < o else o)
                    nxt = [e for e in ends if e != p]
                    for L in lens:
                        e = p + L - 1
                        if e > MAX_POS:
                            e = MAX_POS
                        if e != p:
                            nxt.append(e)
                    nxt.sort()
                    key = (tuple(nxt), code2)
                    if v > new.get(key, -1):
                        new[key] = v
            states = new
        out: dict[int, int] = {}
        for (ends, code), v in states.items():
            if not ends and v > out.get(code, -1):
                out[code] = v
        return out

    # whole hand ----------------------------------------------------------------------------------------------
    def combine(self, options: list[dict[int, int]]) -> dict[int, int]:
        """Add suits up: code -> most naturals covered."""
        reach = {0: 0}
        sums = self.sums
        for opts in options:
            if len(opts) == 1 and 0 in opts:
                continue
            nxt: dict[int, int] = {}
            for a, va in reach.items():
                row = sums[a]
                for b, vb in opts.items():
                    c = row.get(b)
                    if c is not None:
                        v = va + vb
                        if v > nxt.get(c, -1):
                            nxt[c] = v
            reach = nxt
        return reach

    def score(self, reach: dict[int, int], naturals: int) -> int:
        """Cards missing for the best plan in ``reach`` of a hand with ``naturals`` naturals."""
        extra = self.extra_runs
        best = 99
        for code, cov in reach.items():
            d = naturals - cov
            if extra[code] > d:
                d = extra[code]
            if d < best:
                best = d
        return best

    def score_pair(self, left: dict[int, int], right: dict[int, int], naturals: int) -> int:
        """``score(combine([left, right]))`` without building the sum."""
        sums = self.sums
        extra = self.extra_runs
        best = 99
        for a, va in left.items():
            row = sums[a]
            for b, vb in right.items():
                c = row.get(b)
                if c is not None:
                    d = naturals - va - vb
                    e = extra[c]
                    if e > d:
                        d = e
                    if d < best:
                        best = d
        return best

    def distance(self, hand: Sequence[int]) -> int:
        """Cards missing to go out for a hand of the pattern size (0 exactly when it goes out)."""
        return self.score(self.combined(hand, range(4)), _naturals(hand))

    def distances_after_discard(self, hand: Sequence[int], kinds: Sequence[int]) -> dict[int, int]:
        """``distance`` of ``hand`` less one card of each of ``kinds`` (the other suits' sum is shared)."""
        others: dict[int, dict[int, int]] = {}
        out = {}
        nat = _naturals(hand)
        h = list(hand)
        for k in kinds:
            if is_wild(k):
                out[k] = self.score(self.combined(hand, range(4)), nat)
                continue
            h[k] -= 1
            s = k // NUM_RANKS
            if s not in others:
                others[s] = self.combined(hand, [t for t in range(4) if t != s])
            out[k] = self.score_pair(others[s], self.suit_options(h, s), nat - 1)
            h[k] += 1
        return out

    def improving_draws(self, hand: Sequence[int], live: Sequence[int]) -> int:
        """The *outs* of a pattern-size ``hand``: live copies (``live[k]`` per kind) of the cards whose draw, followed
        by the best discard, lowers its ``distance``; 0 for a hand that already goes out. A drawn wild fills a hole
        (one natural outside the runs can then go); a drawn natural changes its suit's options only."""
        opts = [self.suit_options(hand, s) for s in range(4)]
        nat = _naturals(hand)
        reach = self.combine(opts)
        now = self.score(reach, nat)
        if now == 0:
            return 0
        total = 0
        wild_live = sum(live[k] for k in WILD_KINDS)
        if wild_live and self.score(reach, nat - 1) < now:
            total += wild_live
        # per suit: for each length code b of that suit, the most naturals the other suits cover in a plan whose
        # runs still need fewer than ``now`` cards besides; a draw improves when some b of the new suit options
        # covers enough with it (naturals - left - right < now)
        extra = self.extra_runs
        sums = self.sums
        need_by_suit: dict[int, dict[int, int]] = {}
        target = nat - now  # a drawn natural keeps ``nat`` naturals after the best discard
        h = list(hand)
        for k in range(JOKER):  # the suited kinds
            if not live[k] or k in WILD_KINDS:
                continue
            s = k // NUM_RANKS
            need = need_by_suit.get(s)
            if need is None:
                need = need_by_suit[s] = {}
                for a, va in self.combine([opts[t] for t in range(4) if t != s]).items():
                    for b, c in sums[a].items():
                        if extra[c] < now and va > need.get(b, -1):
                            need[b] = va
            h[k] += 1
            h_opts = self.suit_options(h, s)
            h[k] -= 1
            for b, vb in h_opts.items():
                va = need.get(b)
                if va is not None and va + vb > target:
                    total += live[k]
                    break
        return total

    def outs_after_discard(self, hand: Sequence[int], kind: int, live: Sequence[int]) -> int:
        """``improving_draws`` of ``hand`` less one card of ``kind`` (``hand`` is left as it was)."""
        h = list(hand)
        h[kind] -= 1
        return self.improving_draws(h, live)


def _naturals(hand: Sequence[int]) -> int:
    twos, jokers = count_wilds(hand)
    return sum(hand) - twos - jokers


# --------------------------------------------------------------------------------------------------------------
# The policy
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ContinentalStyle:
    """The few numbers of the continental heuristic."""

    #: declare later only while the deal is younger than this many turns per seat ...
    young_turns_per_seat: float = 6.0
    #: ... and the expected extra payment of waiting one turn beats the risk by this factor
    wait_margin: float = 1.0
    #: chance per opponent and per round of turns that he goes out, per turn per seat already played
    hazard_per_turn: float = 0.012
    #: typical payment of an opponent going out (what waiting risks on top of the own payment)
    opponent_payment: float = 6.0
    #: discard tie-break: weights of same-suit neighbours one and two positions away, of a duplicate
    near1: float = 1.0
    near2: float = 0.5
    duplicate: float = 0.3
    #: weight of feeding the next player a card of a suit he publicly collects near
    feed_weight: float = 0.6
    #: discard tie-break: weight of each *out* the hand keeps (live cards whose draw lowers the distance,
    #: ``RunPlanner.improving_draws``); 0 (the default) leaves them out
    outs_weight: float = 0.0


class ContinentalHeuristic:
    """The club player's rules for profile ``continental``; ties are broken with ``rng``."""

    def __init__(self, rng: np.random.Generator, style: ContinentalStyle | None = None):
        self.rng = rng
        self.style = style or ContinentalStyle()
        self._planners: dict[Any, RunPlanner] = {}

    def __deepcopy__(self, memo: dict[int, Any]) -> ContinentalHeuristic:
        # the planner is a pure cache: a copy starts without it
        return ContinentalHeuristic(copy.deepcopy(self.rng, memo), self.style)

    def fork(self) -> ContinentalHeuristic:
        """A copy that decides on from the same point (its generator copied) and shares this one's run planners (a
        pure cache): cheap enough to make one per rollout."""
        new = copy.copy(self)
        new.rng = copy.deepcopy(self.rng)
        return new

    def planner(self, view: ContinentalView) -> RunPlanner:
        """The (cached) run planner of the view's rules."""
        key = (view.rules.patterns, view.rules.min_run)
        p = self._planners.get(key)
        if p is None:
            p = self._planners[key] = RunPlanner(view.rules.patterns, view.rules.min_run)
        return p

    # ----------------------------------------------------------------------------------------------------------
    # Per-move measures: what a network over this heuristic reads of each legal action
    # ----------------------------------------------------------------------------------------------------------
    #: the columns of ``action_features``
    ACTION_FEATURES = ("distance_delta", "keep_value", "feeds_next", "wild", "payment", "outs")

    def action_features(self, view: ContinentalView) -> list[list[float]]:
        """One row of ``ACTION_FEATURES`` per legal action of ``view`` (in ``view.legal`` order): the measures this
        heuristic decides by.

        | column | meaning |
        |---|---|
        | ``distance_delta`` | a discard: the hand's distance to going out after it minus after the best discard; taking the discard top: the best distance with it minus the distance now (the stock: 0) |
        | ``keep_value`` | a discard: how connected the card is (``keep_value``) |
        | ``feeds_next`` | a discard: the next player publicly collects near it |
        | ``wild`` | a discard of a wild card |
        | ``payment`` | going out (``declare``, ``discard_declare``): what each opponent pays, / 10 |
        | ``outs`` | a plain discard of a natural that keeps the best distance: the outs of the hand it leaves (``RunPlanner.improving_draws``, live cards whose draw lowers the distance), / 10; else 0 |

        Reads only ``view`` and changes nothing (no generator draw)."""
        lay = view.layout
        planner = self.planner(view)
        hand = list(view.hand)
        legal = view.legal
        def discarded(a: int) -> int:
            """The card a discard (plain or declaring) throws; -1 for another action."""
            if a >= lay.DISCARD_DECLARE:
                return a - lay.DISCARD_DECLARE
            return a - lay.DISCARD if lay.DISCARD <= a < lay.DISCARD + NUM_KINDS else -1

        discards = sorted({discarded(a) for a in legal} - {-1})
        dist = planner.distances_after_discard(hand, discards) if discards else {}
        best = min(dist.values()) if dist else 0
        live = view.unseen() if discards else ()
        bonus = view.rules.first_turn_bonus if self.first_turn(view) else 0
        rows = []
        for a in legal:
            row = [0.0] * len(self.ACTION_FEATURES)
            k = discarded(a)
            if k >= 0:
                row[0] = float(dist[k] - best)
                if is_wild(k):
                    row[3] = 1.0
                else:
                    row[1] = self.keep_value(view, k, live)
                    row[2] = self.feeds_next(view, k)
                    if dist[k] == best and a < lay.DISCARD_DECLARE:
                        row[5] = planner.outs_after_discard(hand, k, live) / 10.0
                if a >= lay.DISCARD_DECLARE:
                    hand[k] -= 1
                    row[4] = self.payment(view, hand, bonus) / 10.0
                    hand[k] += 1
            elif a == lay.DRAW_DISCARD:
                top = view.discard_top
                now = planner.distance(hand)
                hand[top] += 1
                kinds = [k for k in range(NUM_KINDS) if hand[k] > (1 if k == top else 0)]
                row[0] = float(min(planner.distances_after_discard(hand, kinds).values()) - now)
                hand[top] -= 1
            elif a == lay.DECLARE:
                row[4] = self.payment(view, hand, view.rules.no_draw_bonus + view.rules.first_turn_bonus) / 10.0
            rows.append(row)
        return rows

    # ----------------------------------------------------------------------------------------------------------
    # Entry point
    # ----------------------------------------------------------------------------------------------------------
    def decide(self, view: ContinentalView) -> int:
        """The chosen legal action for the deciding seat."""
        if view.phase == "draw":
            return self.choose_draw(view)
        return self.choose_discard(view)

    # ----------------------------------------------------------------------------------------------------------
    # Payment (C.1-6)
    # ----------------------------------------------------------------------------------------------------------
    def payment(self, view: ContinentalView, hand: Sequence[int], first_turn_bonus: int) -> int:
        """What each opponent pays for going out with ``hand`` (valid) now."""
        r = view.rules
        twos, jokers = count_wilds(hand)
        w = twos + 2 * jokers
        pay = r.base_payment + (w if w > 0 else r.no_wild_bonus) + first_turn_bonus
        if one_suit_possible(hand, patterns=r.patterns, min_run=r.min_run):
            pay += r.one_suit_bonus
        return pay

    def first_turn(self, view: ContinentalView) -> bool:
        """Still on the own first turn of the deal (the F bonus, C.2-3)."""
        return view.turns_taken[view.seat] == 0

    # ----------------------------------------------------------------------------------------------------------
    # Draw: a valid dealt hand, the discard top or the stock
    # ----------------------------------------------------------------------------------------------------------
    def choose_draw(self, view: ContinentalView) -> int:
        """Declare a valid dealt hand at once (no draw: the biggest first-turn bonus); take the discard top when it
        lowers the distance to going out; otherwise the stock."""
        lay = view.layout
        if lay.DECLARE in view.legal:
            return lay.DECLARE
        if lay.DRAW_DISCARD in view.legal and self.wants_discard_top(view):
            return lay.DRAW_DISCARD
        return lay.DRAW_STOCK

    def wants_discard_top(self, view: ContinentalView) -> bool:
        """The top is worth taking when the hand with it (less the best other discard) is strictly closer to going
        out than the hand now; a wild always is (it fills any hole) unless the hand is already out-ready."""
        top = view.discard_top
        if top < 0:
            return False
        planner = self.planner(view)
        now = planner.distance(view.hand)
        if now == 0:
            return False  # a waiting valid hand: the stock may bring the bonus card, the top did not
        hand = list(view.hand)
        hand[top] += 1
        # the taken card may not go straight back (C.2-6)
        kinds = [k for k in range(NUM_KINDS) if hand[k] > (1 if k == top else 0)]
        return min(planner.distances_after_discard(hand, kinds).values()) < now

    # ----------------------------------------------------------------------------------------------------------
    # Discard
    # ----------------------------------------------------------------------------------------------------------
    def choose_discard(self, view: ContinentalView) -> int:
        """Go out with the best payment if some discard leaves a valid hand (declaring with it, unless waiting is
        worth it); otherwise keep the hand closest to going out and throw the least connected card."""
        lay = view.layout
        outs = [a - lay.DISCARD_DECLARE for a in view.legal if a >= lay.DISCARD_DECLARE]
        out = self.going_out_discard(view, outs) if outs else None
        if out is not None:
            if lay.DISCARD + out in view.legal:
                hand = list(view.hand)
                hand[out] -= 1
                if self.worth_waiting(view, hand):
                    return lay.DISCARD + out
            return lay.DISCARD_DECLARE + out
        kinds = [a - lay.DISCARD for a in view.legal if lay.DISCARD <= a < lay.DISCARD + NUM_KINDS]
        return lay.DISCARD + self.closest_discard(view, kinds)

    #: the most other discards ``search_candidates`` offers besides the heuristic's
    SEARCH_DISCARDS = 4

    def search_candidates(self, view: ContinentalView, prior: int) -> list[int]:
        """The moves a search should weigh against this heuristic's ``prior`` at a discard decision, prior first:
        going out, the other of declaring now and waiting with the same discard; otherwise the other discards that
        keep the distance to going out as low as the prior's (the heuristic's tie-break among them is a rule of
        thumb), at most ``SEARCH_DISCARDS`` of them, the best kept first. Other decisions: ``[prior]``. Draws no
        random numbers."""
        lay = view.layout
        if view.phase == "draw" or prior == lay.DECLARE:
            return [prior]
        if prior >= lay.DISCARD_DECLARE:
            other = prior - lay.DISCARD_DECLARE + lay.DISCARD
            return [prior] + ([other] if other in view.legal else [])
        if not lay.DISCARD <= prior < lay.DISCARD + NUM_KINDS:
            return [prior]
        kind = prior - lay.DISCARD
        if lay.DISCARD_DECLARE + kind in view.legal:
            return [prior, lay.DISCARD_DECLARE + kind]  # the heuristic chose to wait with a valid hand
        kinds = [a - lay.DISCARD for a in view.legal if lay.DISCARD <= a < lay.DISCARD + NUM_KINDS]
        naturals = [k for k in kinds if not is_wild(k)] or kinds
        dist = self.planner(view).distances_after_discard(view.hand, naturals)
        low = dist.get(kind, min(dist.values()))
        live = view.unseen()
        tied = sorted((k for k in naturals if dist[k] <= low and k != kind),
                      key=lambda k: (self.keep_value(view, k, live), k))
        return [prior] + [lay.DISCARD + k for k in tied[: self.SEARCH_DISCARDS]]

    def lookahead(self, view: ContinentalView, prior: int) -> tuple[int, dict[int, float]]:
        """An exact one-draw expectimax over this heuristic's close call after the draw: among the natural discards
        that keep the distance to going out as low as ``prior``'s, the one whose hand is expected closest to going
        out after the seat's next draw (a chance node over the ``view.unseen()`` cards, each equally likely to be
        drawn, followed by the best discard): ``distance - outs / unseen``, ``outs`` the live copies whose draw lowers
        the distance (``RunPlanner.improving_draws``). The prior wins ties. Other decisions (the draw, going out,
        declaring or waiting, a hand of wilds only) keep ``prior``.

        Returns ``(action, {discard action: expected distance saved over the prior's})``, the prior at 0. Reads the
        view only, draws no random numbers and changes no memory."""
        lay = view.layout
        if view.phase == "draw" or not lay.DISCARD <= prior < lay.DISCARD + NUM_KINDS:
            return prior, {prior: 0.0}
        kind = prior - lay.DISCARD
        if is_wild(kind) or lay.DISCARD_DECLARE + kind in view.legal:
            return prior, {prior: 0.0}
        naturals = [a - lay.DISCARD for a in view.legal
                    if lay.DISCARD <= a < lay.DISCARD + NUM_KINDS and not is_wild(a - lay.DISCARD)]
        planner = self.planner(view)
        dist = planner.distances_after_discard(view.hand, naturals)
        tied = [k for k in naturals if dist[k] <= dist[kind]]
        if len(tied) < 2:
            return prior, {prior: 0.0}
        live = view.unseen()
        unseen = max(1, sum(live))
        outs = {k: planner.outs_after_discard(view.hand, k, live) for k in tied}
        best = max(tied, key=lambda k: (outs[k], k == kind))
        return lay.DISCARD + best, {lay.DISCARD + k: (outs[k] - outs[kind]) / unseen for k in tied}

    def going_out_discard(self, view: ContinentalView, kinds: list[int]) -> int | None:
        """Among discards that leave a valid 15, the one paying most (a lone 2 thrown can be worth the no-wild
        bonus); None if no discard does."""
        r = view.rules
        hand = list(view.hand)
        best: tuple[int, int, int] | None = None
        bonus = r.first_turn_bonus if self.first_turn(view) else 0
        for k in kinds:
            hand[k] -= 1
            if can_go_out(hand, patterns=r.patterns, min_run=r.min_run):
                key = (self.payment(view, hand, bonus), -int(is_wild(k)), -k)
                if best is None or key > best:
                    best = key
            hand[k] += 1
        return None if best is None else -best[2]

    def closest_discard(self, view: ContinentalView, kinds: list[int]) -> int:
        """The card whose loss keeps the distance lowest; among those the least connected, never a wild while a
        natural will do."""
        naturals = [k for k in kinds if not is_wild(k)]
        cands = naturals or kinds
        dist = self.planner(view).distances_after_discard(view.hand, cands)
        low = min(dist.values())
        tied = [k for k in cands if dist[k] == low]
        live = view.unseen()
        scores = {k: self.keep_value(view, k, live) for k in tied}
        if self.style.outs_weight and len(tied) > 1:
            planner = self.planner(view)
            for k in tied:
                scores[k] -= self.style.outs_weight * planner.outs_after_discard(view.hand, k, live)
        top = min(scores[k] for k in tied)
        best = [k for k in tied if scores[k] <= top + 1e-9]
        return best[int(self.rng.integers(len(best)))] if len(best) > 1 else best[0]

    def keep_value(self, view: ContinentalView, kind: int, live: Sequence[int]) -> float:
        """How connected a natural is: same-suit cards one and two positions away (a gap counts only while its card
        is still live), a second copy (two runs), and the risk of feeding the next player."""
        st = self.style
        hand = view.hand
        suit, q = divmod(kind, NUM_RANKS)
        positions = (1, MAX_POS) if q == 0 else (q + 1,)
        best = 0.0
        for p in positions:
            near = 0.0
            for step in (-1, 1):
                p1, p2 = p + step, p + 2 * step
                if 1 <= p1 <= MAX_POS and p1 != 2 and hand[_pos_kind(suit, p1)]:
                    near += st.near1
                elif 1 <= p2 <= MAX_POS and p2 != 2 and hand[_pos_kind(suit, p2)]:
                    gap = _pos_kind(suit, p1)
                    near += st.near2 if (p1 == 2 or live[gap] > 0) else st.near2 / 2
            best = max(best, near)
        if hand[kind] > 1:
            best += st.duplicate
        return best + st.feed_weight * self.feeds_next(view, kind)

    def feeds_next(self, view: ContinentalView, kind: int) -> float:
        """1 when the next player publicly holds a card of the same suit within two positions (he took it from the
        pile), else 0."""
        nxt = (view.seat + 1) % view.num_players
        known = view.known[nxt]
        if not any(known):
            return 0.0
        suit, q = divmod(kind, NUM_RANKS)
        for d in (-2, -1, 1, 2):
            q2 = q + d
            if 0 <= q2 < NUM_RANKS and q2 != 1 and known[suit * NUM_RANKS + q2]:
                return 1.0
        return 0.0

    # ----------------------------------------------------------------------------------------------------------
    # Declare or wait
    # ----------------------------------------------------------------------------------------------------------
    def worth_waiting(self, view: ContinentalView, valid_hand: Sequence[int]) -> bool:
        """Whether to keep the valid 15 ``valid_hand`` (what is left after the discard) and not declare yet: the
        deal is young and the expected extra payment of one more turn (chance of drawing a card that raises the
        payment, C.1-6: one suit, no wild at all, more wilds) beats the risk of an opponent going out first."""
        st = self.style
        n = view.num_players
        rounds = view.turn / n  # rounds of turns played this deal
        if rounds > st.young_turns_per_seat:
            return False
        hand = list(valid_hand)
        now = self.payment(view, hand, view.rules.first_turn_bonus if self.first_turn(view) else 0)
        later = self.payment(view, hand, 0)  # waiting loses the first-turn bonus
        live = view.unseen()
        unseen = sum(live)
        if unseen <= 0:
            return False
        gain = 0.0
        r = view.rules
        for k in range(NUM_KINDS):
            if live[k] <= 0 or not self.could_raise_payment(hand, k):
                continue
            hand[k] += 1
            best = later
            for d in range(NUM_KINDS):
                if hand[d]:
                    hand[d] -= 1
                    if can_go_out(hand, patterns=r.patterns, min_run=r.min_run):
                        best = max(best, self.payment(view, hand, 0))
                    hand[d] += 1
            hand[k] -= 1
            gain += live[k] / unseen * (best - later)
        risk = min(0.9, st.hazard_per_turn * (n - 1) * (1 + rounds))
        expected_wait = (1 - risk) * (later + gain) * (n - 1) - risk * st.opponent_payment
        return expected_wait > st.wait_margin * now * (n - 1)

    @staticmethod
    def could_raise_payment(hand: list[int], kind: int) -> bool:
        """Quick filter before the exact check: adding ``kind`` (and dropping some card) can raise the payment only
        if it is a wild, if the hand holds wilds that a natural could replace (the no-wild bonus) or if it keeps all
        naturals in one suit."""
        if is_wild(kind):
            return True
        twos, jokers = count_wilds(hand)
        if twos + jokers == 1:
            return True  # swapping the lone wild for a natural: W jumps to the no-wild bonus
        suits = {k // NUM_RANKS for k in range(52) if hand[k] and not is_wild(k)}
        suits.add(kind // NUM_RANKS)
        return len(suits) <= 2  # one off-suit card could leave for a one-suit hand


__all__ = ["ContinentalHeuristic", "ContinentalStyle", "RunPlanner", "is_wild"]
