"""The ``contract_gamerules`` heuristic: the club player of ``contract`` adapted to the gamerules family rules (B.1).

What changes from ``heuristic_contract``, and the idea behind each change:

| rule (B.1) | how the player adapts |
|---|---|
| sets of 3-4 distinct suits, runs of 3+, runs of one contract in different suits | the contract target (``gamerules_structure``) counts only distinct suits in a set and never puts two runs in one suit |
| deep pickups (take the card at depth d and all above it) | take one when it completes the contract this turn and the cards it drags along do not leave much dead weight; once down, when the picked cards go onto the table |
| lay-offs on the opening turn, longer melds by lay-offs | open, then lay off everything possible at once |
| a hand emptied by melds / lay-offs goes out without a discard | lay off everything: an empty hand wins the round |
| round 7: three runs of three different suits, the whole hand | the round-7 target (``gamerules_final_structure``) is three runs, one per suit; any pickup or discard top that lets the hand go out at once is taken |
| no buying | no buy decisions |

A round can *freeze*: every seat is down (no new meld may appear, B.2-6), every set is full and no card outside
the table fits a run end, so nobody can ever go out and only the engine's turn cap ends it. With 3-4 players this is
most rounds 1 (two sets) and many rounds 2, 4, 5 between strong players; a lone opener in round 1 can never go out
either (two sets hold at most 8 of his 11 cards). The heuristic does what it can: in a *stalled* round (older than
about nine rounds in ten) it judges the cards by what still circulates (an unseen card not seen in the pile for long
is held for good) and, once down, throws the cards it has held longest, so that an opponent not yet down can get
what he waits for instead of everyone keeping his lowest cards.

Every decision reads only the ``PublicView`` (and the seat's memory of earlier views of this round).
"""

from __future__ import annotations

import copy
import dataclasses
from itertools import combinations
from typing import Any

import numpy as np

from ..core.cards import JOKER, NUM_KINDS, NUM_RANKS, PENALTY
from ..core.melds import GROUP, MAX_POS, RUN, final_partition, pos_kind
from .contract_hand import Structure, kind_weights, opening_plans, plan_melds, playable, slot_weight
from .heuristic_contract import ContractHeuristic, ContractStyle, _with
from .view import PublicView

NUM_NAT = 52

# --------------------------------------------------------------------------------------------------------------
# Hand measures for the gamerules rules
# --------------------------------------------------------------------------------------------------------------


def _apply_jokers(weights: list[float], jokers: int) -> tuple[float, int]:
    """Jokers fill the dearest missing slots: (cost, missing cards) left."""
    if jokers >= len(weights):
        return 0.0, 0
    ws = sorted(weights, reverse=True)[jokers:]
    return sum(ws), len(ws)


def _run_windows(nat: list[int], size: int, kw: tuple[float, ...]) -> list[tuple[float, int, int]]:
    """Runs of ``size`` positions holding at least one natural of the hand: (missing weight, suit, low), cheapest
    first."""
    out = []
    for suit in range(4):
        for low in range(1, MAX_POS - size + 2):
            have = 0
            w = 0.0
            for p in range(low, low + size):
                k = pos_kind(suit, p)
                if nat[k]:
                    have += 1
                else:
                    w += kw[k]
            if have:
                out.append((w, suit, low))
    out.sort()
    return out


def _set_options(nat: list[int], live: list[int], size: int, decks: int) -> list[tuple[float, int, int, int]]:
    """Every set the hand could aim at: (missing weight, rank index, missing cards, nth set of the rank). A set needs
    ``size`` distinct suits; a missing card is weighted by the live copies of the suits it lacks."""
    opts = []
    for q in range(NUM_RANKS):
        copies = [nat[s * NUM_RANKS + q] for s in range(4)]
        suits = sum(1 for c in copies if c)
        if not suits:
            continue
        absent_live = sum(live[s * NUM_RANKS + q] for s in range(4) if not copies[s])
        w = slot_weight(absent_live)
        m1 = max(0, size - suits)
        opts.append((m1 * w, q, m1, 1))
        if decks > 1:
            # a second set of the rank takes the second copies (and a fourth suit the first set did not need)
            second = sum(1 for c in copies if c >= 2) + (1 if suits > size else 0)
            m2 = max(0, size - second)
            opts.append((m2 * slot_weight(sum(live[s * NUM_RANKS + q] for s in range(4))) + 1e-6, q, m2, 2))
    opts.sort()
    return opts


def gamerules_structure(
    counts: list[int] | tuple[int, ...], g: int, r: int, live: list[int], rules: Any, max_windows: int = 10
) -> Structure:
    """The cheapest way to ``g`` sets and ``r`` runs of minimum size from ``counts`` (B.1-3..5): sets of distinct
    suits, the runs of one contract in pairwise different suits. Runs are tried over the windows that hold most of
    the hand, sets take what the runs leave."""
    size_g, size_r = rules.group_min, rules.run_min
    kw = kind_weights(live)
    jokers = counts[JOKER]
    nat = list(counts[:NUM_NAT])
    best: tuple[float, int, tuple[tuple[int, int], ...], list[tuple[int, int, int]], int] | None = None

    def sets_for(runs: tuple[tuple[int, int], ...]) -> None:
        nonlocal best
        took = []
        weights: list[float] = []
        for s, lo in runs:
            for p in range(lo, lo + size_r):
                k = pos_kind(s, p)
                if nat[k]:
                    nat[k] -= 1
                    took.append(k)
                else:
                    weights.append(kw[k])
        chosen: list[tuple[int, int, int]] = []
        if g:
            seen: dict[int, int] = {}
            for w, q, m, nth in _set_options(nat, live, size_g, rules.decks):
                if len(chosen) == g:
                    break
                if nth == 2 and q not in seen:
                    continue  # the second set of a rank only after the first
                seen[q] = nth
                chosen.append((q, m, nth))
                weights += [w / m] * m if m else []
            while len(chosen) < g:  # no natural left for a set: a set of jokers / drawn cards
                chosen.append((-1, size_g, 1))
                weights += [3.0] * size_g
        for k in took:
            nat[k] += 1
        cost, missing = _apply_jokers(weights, jokers)
        if best is None or cost < best[0] - 1e-9:
            best = (cost, missing, runs, chosen, len(weights))

    if r == 0:
        sets_for(())
    else:
        wins = _run_windows(nat, size_r, kw)[:max_windows] or [(size_r * 1.5, 0, 1)]
        for combo in combinations(wins, r):
            if len({s for _, s, _ in combo}) < r:
                continue  # B.1-5: the runs of one contract are of different suits
            sets_for(tuple((s, lo) for _, s, lo in combo))
        if best is None:  # fewer suits in the windows than runs: take the best windows anyway
            sets_for(tuple((s, lo) for _, s, lo in wins[:r]))
    assert best is not None
    cost, missing, runs, chosen, n_missing = best
    used = [0] * NUM_KINDS
    for s, lo in runs:
        for p in range(lo, lo + size_r):
            k = pos_kind(s, p)
            if counts[k] > used[k]:
                used[k] += 1
    for q, m, _ in chosen:
        if q < 0:
            continue
        want = size_g - m
        for s in range(4):
            k = s * NUM_RANKS + q
            if want and counts[k] > used[k]:
                used[k] += 1
                want -= 1
    used[JOKER] = min(jokers, n_missing)
    melds = tuple((RUN, s, lo, lo + size_r - 1) for s, lo in runs) + tuple(
        (GROUP, q + 1) for q, _, _ in chosen if q >= 0
    )
    return Structure(cost, missing, tuple(used), melds)


def _suit_runs(counts: list[int] | tuple[int, ...], suit: int, kw: tuple[float, ...], run_min: int, target: int):
    """One run of ``suit``: per length, the best (value, low, high) with value = weighted missing positions - length
    (lower is better). One ace stands at position 1 or 14, not both."""
    best: dict[int, tuple[float, int, int]] = {}
    aces = counts[suit * NUM_RANKS]
    for lo in range(1, MAX_POS - run_min + 2):
        w = 0.0
        for hi in range(lo, MAX_POS + 1):
            k = pos_kind(suit, hi)
            if not counts[k] or (hi == MAX_POS and lo == 1 and aces < 2):
                w += kw[k]
            length = hi - lo + 1
            if length > target:
                break
            if length >= run_min:
                v = w - length
                cur = best.get(length)
                if cur is None or v < cur[0] - 1e-9:
                    best[length] = (v, lo, hi)
    return best


def gamerules_final_structure(
    counts: list[int] | tuple[int, ...], target: int, live: list[int], n_runs: int = 3, run_min: int = 3
) -> Structure:
    """Round 7 (B.1-11): the cheapest ``n_runs`` runs of different suits whose lengths add up to at most ``target``
    cards (the hand after the next draw); cards short of ``target`` are extension slots of weight 1. Cost 0: the
    hand goes out now."""
    jokers = counts[JOKER]
    kw = kind_weights(live)
    fronts = [_suit_runs(counts, s, kw, run_min, target) for s in range(4)]
    best: tuple[float, tuple[tuple[int, int, int], ...]] | None = None
    for suits in combinations(range(4), n_runs):
        # knapsack over the chosen suits' lengths: total length -> (value, runs)
        states: dict[int, tuple[float, tuple[tuple[int, int, int], ...]]] = {0: (0.0, ())}
        for s in suits:
            new: dict[int, tuple[float, tuple[tuple[int, int, int], ...]]] = {}
            for total, (value, runs) in states.items():
                for length, (v, lo, hi) in fronts[s].items():
                    t = total + length
                    if t > target:
                        continue
                    cand = (value + v, runs + ((s, lo, hi),))
                    cur = new.get(t)
                    if cur is None or cand[0] < cur[0] - 1e-9:
                        new[t] = cand
            states = new
        for value, runs in states.values():
            total = value + target
            if best is None or total < best[0] - 1e-9:
                best = (total, runs)
    if best is None:
        return Structure(float(target), target, tuple([0] * NUM_KINDS), ())
    total, runs = best
    used = [0] * NUM_KINDS
    for s, lo, hi in runs:
        for p in range(lo, hi + 1):
            k = pos_kind(s, p)
            if counts[k] > used[k]:
                used[k] += 1
    covered = sum(used)
    missing = max(0, target - covered - jokers)
    used[JOKER] = min(jokers, max(0, target - covered))
    cost = max(0.0, total - jokers) if missing else 0.0
    return Structure(cost, missing, tuple(used), tuple((RUN, s, lo, hi) for s, lo, hi in runs))


# --------------------------------------------------------------------------------------------------------------
# The policy
# --------------------------------------------------------------------------------------------------------------


class GamerulesHeuristic(ContractHeuristic):
    """The club player's rules for profile ``contract_gamerules``; ties are broken with ``rng``."""

    #: a pickup that completes the contract is taken when the cards stuck after opening weigh less than the
    #: hand now by this much (10 per card plus the penalty points, as in ``rest_after_opening``)
    pickup_margin: float = 0.0
    #: a round older than this many turns per seat has stalled (nine rounds in ten end before)
    stall_turns_per_seat: float = 12.0
    #: in a stalled round, a card counts as coming round only if it was seen in the pile this recently (turns
    #: per seat)
    seen_window_per_seat: float = 6.0

    def __init__(self, rng: np.random.Generator, style: ContractStyle | None = None):
        super().__init__(rng, style)
        # what this seat remembers of the round so far (public facts it saw at its own decisions): when each
        # card of its hand arrived, and when each kind was last seen in the discard pile
        self._round_key: tuple[int, int] | None = None
        self._arrived: dict[int, list[int]] = {}
        self._pile_seen: dict[int, int] = {}

    def __deepcopy__(self, memo: dict[int, Any]) -> GamerulesHeuristic:
        new = GamerulesHeuristic(copy.deepcopy(self.rng, memo), self.style)
        new._round_key = self._round_key
        new._arrived = {k: list(v) for k, v in self._arrived.items()}
        new._pile_seen = dict(self._pile_seen)
        return new

    def fork(self) -> GamerulesHeuristic:
        """``ContractHeuristic.fork`` with the memory of the round copied (not shared)."""
        new = super().fork()
        new._arrived = {k: list(v) for k, v in self._arrived.items()}
        new._pile_seen = dict(self._pile_seen)
        return new

    # ----------------------------------------------------------------------------------------------------------
    # Entry point: remember, then decide (a stalled round is judged by what circulates)
    # ----------------------------------------------------------------------------------------------------------
    def decide(self, view: PublicView) -> int:
        """Update the memory of the round, then decide as in ``contract`` (with the gamerules measures)."""
        self.remember(view)
        if self.stalled(view):
            view = self.with_circulating_live(view)
        return super().decide(view)

    def remember(self, view: PublicView) -> None:
        """Note when each own card arrived and which kinds are in the pile (a new round starts afresh)."""
        key = (view.round, view.scores)
        if key != self._round_key:
            self._round_key = key
            self._arrived = {}
            self._pile_seen = {}
        for k in range(NUM_KINDS):
            have = self._arrived.setdefault(k, [])
            while len(have) < view.hand[k]:
                have.append(view.turn)
            del have[view.hand[k] :]
        for k in view.discard:
            self._pile_seen[k] = view.turn

    def stalled(self, view: PublicView) -> bool:
        """The round has run long: the cards that matter are stuck in hands, the others go round and round."""
        return view.turn > self.stall_turns_per_seat * view.num_players

    def with_circulating_live(self, view: PublicView) -> PublicView:
        """The view with its 'live' cards (``unseen()``) replaced by what a player believes still comes round in a
        stalled round: the pile (it is reshuffled into the stock) and the unseen cards seen in the pile lately;
        an unseen card not seen for long is held by an opponent for good."""
        window = self.seen_window_per_seat * view.num_players
        unseen = view.unseen()
        pile = [0] * NUM_KINDS
        for k in view.discard:
            pile[k] += 1
        live = [
            pile[k] + (unseen[k] if view.turn - self._pile_seen.get(k, -(10**6)) <= window else 0)
            for k in range(NUM_KINDS)
        ]
        out = dataclasses.replace(view)
        out.__dict__["_unseen"] = tuple(live)  # the cached ``unseen()`` of the copy
        return out

    # ----------------------------------------------------------------------------------------------------------
    # Hand measures: the gamerules targets in place of the contract ones
    # ----------------------------------------------------------------------------------------------------------
    def structure(self, view: PublicView, hand: tuple[int, ...], live: list[int]) -> Structure:
        """The contract target of ``hand`` this round (sets of distinct suits, runs of different suits)."""
        g, r = view.contract
        key = ("gc", hand, g, r, tuple(live))
        s = self._memo.get(key)
        if s is None:
            s = self._memo[key] = gamerules_structure(hand, g, r, live, view.rules)
        return s

    def final_runs(self, view: PublicView, hand: tuple[int, ...], target: int, live: list[int]) -> Structure:
        """The round-7 target of ``hand``: three runs of three different suits holding ``target`` cards."""
        key = ("gf", hand, target, tuple(live))
        s = self._memo.get(key)
        if s is None:
            s = self._memo[key] = gamerules_final_structure(hand, target, live, view.contract[1], view.rules.run_min)
        return s

    # ----------------------------------------------------------------------------------------------------------
    # Draw: stock, discard top or a deep pickup
    # ----------------------------------------------------------------------------------------------------------
    def choose_draw(self, view: PublicView) -> int:
        """Round 7: any draw that lets the hand go out at once. Before the contract: a pickup (or the top) that
        completes it with little dead weight. Once down: the draw that leaves the fewest cards stuck in hand.
        Otherwise as in ``contract``: the top when it advances the target, else the stock."""
        if view.final_round:
            action = self.going_out_draw(view)
        elif not view.opened[view.seat]:
            action = self.opening_draw(view)
        else:
            action = self.lay_off_draw(view)
        if action is not None:
            return action
        return super().choose_draw(view)

    def draw_options(self, view: PublicView) -> list[tuple[int, tuple[int, ...], int]]:
        """(action, hand after it, card that must reach the table or -1) of the discard top and every legal deep
        pickup."""
        lay = view.layout
        out = []
        pile = view.discard
        if lay.DRAW_DISCARD in view.legal and pile:
            out.append((lay.DRAW_DISCARD, _with(view.hand, pile[-1]), -1))
        pickup = lay.ranges.get("pickup")
        if pickup is not None:
            for a in view.legal:
                depth = a - pickup.start + 2
                if pickup.start <= a < pickup.stop and depth <= len(pile):
                    hand = list(view.hand)
                    for k in pile[-depth:]:
                        hand[k] += 1
                    out.append((a, tuple(hand), pile[-depth]))
        return out

    def going_out_draw(self, view: PublicView) -> int | None:
        """Round 7: a legal pickup means the hand with the picked cards goes out (the mask checks it); so does a
        discard top that completes three runs. The shallowest such draw."""
        g, r = view.contract
        for action, hand, must in self.draw_options(view):
            if must >= 0 or final_partition(list(hand), r, view.rules) is not None:
                return action
        return None

    def opening_draw(self, view: PublicView) -> int | None:
        """Not down yet: among the top and the pickups that let the contract go down this turn, the one leaving the
        least dead weight after the opening and the lay-offs; taken when that is lighter than the hand now."""
        g, r = view.contract
        table = view.table()
        best: tuple[float, int, int] | None = None
        for action, hand, must in self.draw_options(view):
            score = self.best_opening_rest(view, hand, must, table, taken=-1 if must >= 0 else hand_diff(view, hand))
            if score is None:
                continue
            key = (score, len(hand), action)
            if best is None or key < best:
                best = key
        if best is None:
            return None
        if best[0] <= self.hand_weight(view.hand) - self.pickup_margin:
            return best[2]
        return None

    def hand_weight(self, hand: tuple[int, ...] | list[int]) -> float:
        """Dead weight of a hand on the ``rest_after_opening`` scale (10 per card plus its penalty), the dearest
        card discarded."""
        pens = [PENALTY[k] for k in range(NUM_KINDS) for _ in range(hand[k])]
        if pens:
            pens.remove(max(pens))
        return 10.0 * len(pens) + sum(pens)

    def best_opening_rest(
        self, view: PublicView, hand: tuple[int, ...], must: int, table: list, taken: int
    ) -> float | None:
        """``rest_after_opening`` of the best opening ``hand`` can declare (with ``must`` in it or laid off after
        it), or None when it cannot open."""
        g, r = view.contract
        best = None
        for plan in opening_plans(hand, g, r, view.rules, limit=400):
            melds = plan_melds(plan, view.seat, view.rules.run_min)
            after = table + melds
            if must >= 0 and plan.rest[must] >= hand[must] and not playable(plan.rest, after, view.rules)[must]:
                continue
            score = self.rest_after_opening(view, plan.rest, after, keep=taken)
            if best is None or score < best:
                best = score
        return best

    def lay_off_draw(self, view: PublicView) -> int | None:
        """Down already: every card that cannot go onto the table must leave one per turn, so take the top or a
        pickup when the hand after it has no more stuck cards than now (a stock card is usually one more)."""
        table = view.table()
        now = self.stuck(view, view.hand, table)
        best: tuple[int, int, int, int] | None = None
        for action, hand, _ in self.draw_options(view):
            stuck = self.stuck(view, hand, table)
            pen = sum(PENALTY[k] * c for k, c in enumerate(hand)) - sum(PENALTY[k] * c for k, c in enumerate(view.hand))
            key = (stuck, pen, len(hand), action)
            if best is None or key < best:
                best = key
        if best is not None and best[0] <= now:
            return best[3]
        return None

    def discard_after_opening(self, view: PublicView) -> int:
        """Down already: as in ``contract`` (the dearest card that will not go onto the table). In a stalled round
        the cards held longest go first instead: a card kept for its low penalty is often the one an opponent not
        yet down needs, and while everyone keeps his lowest cards nobody can ever go out."""
        if not self.stalled(view):
            return super().discard_after_opening(view)
        kinds = self.discardable(view)
        table = view.table()
        can = playable(view.hand, table, view.rules)

        def score(k: int) -> float:
            if k == JOKER or can[k]:
                return -1000.0
            arrived = min(self._arrived.get(k) or [view.turn])
            return (view.turn - arrived) + PENALTY[k] / 100.0

        return self.pick_discard(view, kinds, score)

    def stuck(self, view: PublicView, hand: tuple[int, ...], table: list) -> int:
        """Cards of ``hand`` that cannot be laid off on ``table`` (chains followed)."""
        can = playable(hand, table, view.rules)
        return sum(hand) - sum(can)

    # ----------------------------------------------------------------------------------------------------------
    # Opening: the rest after the opening and the same-turn lay-offs
    # ----------------------------------------------------------------------------------------------------------
    def rest_after_opening(self, view: PublicView, rest: tuple[int, ...], table: list, keep: int = -1) -> float:
        """Penalty of what stays in hand after the opening and every lay-off of this turn: the cards that cannot go
        onto the table, less the one discarded (not ``keep``, the card just taken from the pile); 10 per card on
        top of its penalty. A hand that empties goes out now: the best of all."""
        if keep < 0:
            keep = view.taken_discard
        can = playable(rest, table, view.rules)
        stuck = [(PENALTY[k], k) for k in range(NUM_KINDS) for _ in range(rest[k] - can[k])]
        if not stuck:
            return -20.0
        stuck.sort()
        for i in range(len(stuck) - 1, -1, -1):
            if stuck[i][1] != keep:
                del stuck[i]
                break
        return 10.0 * len(stuck) + sum(p for p, _ in stuck)


def hand_diff(view: PublicView, hand: tuple[int, ...]) -> int:
    """The one kind ``hand`` holds more than the view's hand (the card taken from the pile)."""
    for k in range(NUM_KINDS):
        if hand[k] > view.hand[k]:
            return k
    return -1


__all__ = ["GamerulesHeuristic", "gamerules_structure", "gamerules_final_structure"]
