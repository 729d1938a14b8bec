"""The ``contract`` heuristic: how a good club player plays Contract Rummy (spec A.1), one small function per decision.

The yardstick is the hand's *cost* (``contract_hand``): the weighted number of cards still missing for the contract
(rounds 1-6) or for three runs holding the whole hand (round 7). Every decision reads only the ``PublicView``.

| decision | idea |
|---|---|
| draw | take the discard top when it fills a missing card (or, once opened, when it can be laid off at once) |
| buy | buy when the card fills a missing card and the round is young enough to carry the penalty card |
| act, not opened | open as soon as the contract is in hand, with the opening that leaves the best rest |
| act, opened | lay off everything possible (chains first), swap jokers for naturals, then discard |
| discard | the card least useful for the target, weighted by its penalty, that does not feed the next player |
| round 7 | keep the cards of the best three runs; go out the moment the hand forms them |
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.cards import JOKER, NUM_KINDS, NUM_RANKS, PENALTY
from ..core.melds import GROUP, MAX_POS, RUN, Meld, lay_off
from .contract_hand import (
    Structure,
    contract_structure,
    final_structure,
    fits_table,
    opening_plans,
    plan_melds,
    playable,
)
from .view import PublicView


@dataclass(frozen=True)
class ContractStyle:
    """The few numbers of the contract heuristic (cost units are about one missing card)."""

    #: take the discard top when it lowers the cost by this much
    take_gain: float = 1.0
    #: buy when the offered card lowers the cost by this much ...
    buy_gain: float = 1.0
    #: ... and the round's danger (age, opponents down, cards bought) is below this
    buy_danger: float = 1.6
    #: ... or below this when the card completes the contract
    buy_danger_if_completes: float = 2.5
    #: danger: turns of the round (all seats) that count as 1
    danger_turns: float = 48.0
    #: danger per opponent already down, per extra card in hand
    danger_per_opened: float = 0.4
    danger_per_extra_card: float = 0.15
    #: before opening, penalty points count this much in a discard (times 1 + opponents down)
    penalty_weight: float = 0.1
    #: keep value of a pair (group contracts), of a card attached to the target, and the weight of feeding
    pair_keep: float = 1.2
    attach_keep: float = 1.5
    feed_weight: float = 2.0


def _with(hand: tuple[int, ...] | list[int], kind: int, delta: int = 1) -> tuple[int, ...]:
    h = list(hand)
    h[kind] += delta
    return tuple(h)


def _hands_after(view: PublicView, hand: tuple[int, ...]) -> dict[int, tuple[int, ...]]:
    """The seat's hand after each legal action of ``view`` whose result is known: a discard, taking the discard
    top, a buy (without the unseen penalty card) and a deep pickup; the other actions are left out."""
    lay = view.layout
    after: dict[int, tuple[int, ...]] = {}
    top = view.discard_top
    pile = view.discard
    pickup = lay.ranges.get("pickup")
    for a in view.legal:
        if lay.DISCARD <= a < lay.DISCARD + NUM_KINDS:
            after[a] = _with(hand, a - lay.DISCARD, -1)
        elif a == lay.DRAW_DISCARD and top >= 0:
            after[a] = _with(hand, top)
        elif a == getattr(lay, "BUY", -1) and view.offered >= 0:
            after[a] = _with(hand, view.offered)
        elif pickup is not None and pickup.start <= a < pickup.stop:
            depth = a - pickup.start + 2
            h = list(hand)
            for k in pile[-depth:]:
                h[k] += 1
            after[a] = tuple(h)
    return after


def _suit_rank(kind: int) -> tuple[int, int]:
    return divmod(kind, NUM_RANKS)


class ContractHeuristic:
    """The club player's rules for profile ``contract``; ties are broken with ``rng``."""

    def __init__(self, rng: np.random.Generator, style: ContractStyle | None = None):
        self.rng = rng
        self.style = style or ContractStyle()
        self._memo: dict[Any, Structure] = {}

    def __deepcopy__(self, memo: dict[int, Any]) -> ContractHeuristic:
        # the memo of hand measures is a pure cache: a copy starts without it
        return ContractHeuristic(copy.deepcopy(self.rng, memo), self.style)

    def fork(self) -> ContractHeuristic:
        """A copy that decides on from the same point (its generator copied) and shares this one's memo of hand
        measures (a pure cache): cheap enough to make one per rollout."""
        new = copy.copy(self)
        new.rng = copy.deepcopy(self.rng)
        return new

    # ----------------------------------------------------------------------------------------------------------
    # Entry point
    # ----------------------------------------------------------------------------------------------------------
    def decide(self, view: PublicView) -> int:
        """The chosen legal action for the deciding seat."""
        if len(self._memo) > 20000:
            self._memo.clear()
        phase = view.phase
        if phase == "draw":
            return self.choose_draw(view)
        if phase == "buy":
            return self.choose_buy(view)
        if phase == "place_joker":
            return self.choose_joker_place(view)
        if phase == "opening":
            return self.choose_opening_meld(view)
        return self.choose_act(view)

    # ----------------------------------------------------------------------------------------------------------
    # Per-move measures: what a network over this heuristic reads of each legal action
    # ----------------------------------------------------------------------------------------------------------
    #: the columns of ``action_features``
    ACTION_FEATURES = ("cost_delta", "missing_delta", "penalty_delta", "stuck_delta", "feeds_next", "in_target",
                       "danger", "keep", "penalty_down")  # fmt: skip

    def action_features(self, view: PublicView) -> list[list[float]]:
        """One row of ``ACTION_FEATURES`` per legal action of ``view`` (in ``view.legal`` order): the measures this
        heuristic decides by, of the seat's hand after the action, as differences from the hand now.

        | column | meaning |
        |---|---|
        | ``cost_delta`` | the hand's cost (``structure`` / ``final_runs``: weighted cards missing to the target) after the action minus now |
        | ``missing_delta`` | the same for the number of missing cards |
        | ``penalty_delta`` | penalty points in hand after minus now, / 10 |
        | ``stuck_delta`` | once down: cards that cannot be laid off on the table, after minus now (0 before) |
        | ``feeds_next`` | a discard: the risk that the next player takes it (``feeds_next``) |
        | ``in_target`` | a discard before opening: the card belongs to the hand's best target |
        | ``danger`` | the round's ``danger`` (the same in every row) |
        | ``keep`` | a discard before opening (not in the final round): the card's keep value in the discard rule (``priority_keep``: pairs, run neighbours, attaching to the target; 0 for a joker) |
        | ``penalty_down`` | a discard before opening (not in the final round): its penalty points / 10 times one plus the opponents down (what ``penalty_weight`` multiplies) |

        The hand after a move is known for a discard, taking the discard top, a deep pickup and a buy (the penalty
        card is unseen and left out); the other moves (stock draw, pass, melds, lay-offs, joker moves, going out)
        keep the hand's measures (zeros) and are told apart by the network's own inputs. Reads only ``view`` and
        changes nothing (no generator draw, no memory)."""
        lay = view.layout
        hand = tuple(view.hand)
        live = view.unseen()
        seat = view.seat
        opened = bool(view.opened[seat])
        final = view.final_round
        table = view.table()
        target_size = sum(hand) + (1 if view.phase in ("draw", "buy") else 0)

        def measure(h: tuple[int, ...]) -> tuple[float, float]:
            if final:
                s = self.final_runs(view, h, target_size, live)
            else:
                s = self.structure(view, h, live)
            return s.cost, float(s.missing)

        def stuck(h: tuple[int, ...]) -> float:
            can = playable(h, table, view.rules)
            return float(sum(h) - sum(min(h[k], can[k]) for k in range(NUM_KINDS)))

        def penalty(h: tuple[int, ...]) -> float:
            return sum(PENALTY[k] * h[k] for k in range(NUM_KINDS) if h[k]) / 10.0

        base_cost, base_missing = measure(hand)
        base_stuck = stuck(hand) if opened else 0.0
        base_pen = penalty(hand)
        target = None if (opened or final) else self.structure(view, hand, live)
        down = 1 + sum(1 for p in range(view.num_players) if p != seat and view.opened[p])
        danger = self.danger(view)
        after = _hands_after(view, hand)
        rows = []
        for a in view.legal:
            row = [0.0] * len(self.ACTION_FEATURES)
            row[6] = danger
            h = after.get(a)
            if h is not None:
                cost, missing = measure(h)
                row[0] = cost - base_cost
                row[1] = missing - base_missing
                row[2] = penalty(h) - base_pen
                if opened:
                    row[3] = stuck(h) - base_stuck
                if lay.DISCARD <= a < lay.DISCARD + NUM_KINDS:
                    k = a - lay.DISCARD
                    row[4] = self.feeds_next(view, k, table)
                    if target is not None:
                        row[5] = 1.0 if hand[k] <= target.used[k] else 0.0
                        if k != JOKER:
                            row[7] = self.priority_keep(view, k, target, live)
                            row[8] = PENALTY[k] * down / 10.0
            rows.append(row)
        return rows

    # ----------------------------------------------------------------------------------------------------------
    # Hand measures (memoised: the same hand is measured for the draw, each buy and the discard)
    # ----------------------------------------------------------------------------------------------------------
    def structure(self, view: PublicView, hand: tuple[int, ...], live: list[int]) -> Structure:
        """The contract target of ``hand`` this round (rounds 1-6: g groups + r runs)."""
        g, r = view.contract
        key = ("c", hand, g, r, tuple(live))
        s = self._memo.get(key)
        if s is None:
            s = self._memo[key] = contract_structure(hand, g, r, live, view.rules)
        return s

    def final_runs(self, view: PublicView, hand: tuple[int, ...], target: int, live: list[int]) -> Structure:
        """The round-7 target of ``hand``: three runs of ``target`` cards in all."""
        key = ("f", hand, target, tuple(live))
        s = self._memo.get(key)
        if s is None:
            s = self._memo[key] = final_structure(hand, target, live, view.contract[1])
        return s

    # ----------------------------------------------------------------------------------------------------------
    # Draw: the discard top or the stock
    # ----------------------------------------------------------------------------------------------------------
    def choose_draw(self, view: PublicView) -> int:
        """Take the discard top only when it is a card the hand wants; otherwise the stock (opens the buy window)."""
        lay = view.layout
        if lay.DRAW_DISCARD in view.legal and self.wants_discard(view, view.discard_top):
            return lay.DRAW_DISCARD
        return lay.DRAW_STOCK

    def wants_discard(self, view: PublicView, card: int) -> bool:
        """Does ``card`` complete or advance the target (or, once opened, go straight onto the table)?"""
        hand = view.hand
        live = view.unseen()
        if view.final_round:
            target = sum(hand) + 1
            before = self.final_runs(view, hand, target, live).cost
            after = self.final_runs(view, _with(hand, card), target, live).cost
            return after <= before - self.style.take_gain
        if view.opened[view.seat]:
            # opened on an earlier turn: worth taking if it can be laid off this very turn
            table = view.table()
            return playable(_with(hand, card), table, view.rules)[card] > playable(hand, table, view.rules)[card]
        before = self.structure(view, hand, live)
        after = self.structure(view, _with(hand, card), live)
        if before.missing == 0:
            # the contract is in hand already: take it if it will be laid off right after opening
            return self.attaches(view, card, before)
        return after.cost <= before.cost - self.style.take_gain

    def attaches(self, view: PublicView, card: int, target: Structure) -> bool:
        """``card`` could be laid off once the target melds are down (same rank as a target group, next to a target
        run, or onto a meld already on the table)."""
        if card == JOKER:
            return True
        suit, q = _suit_rank(card)
        for meld in target.melds:
            if meld[0] == GROUP and meld[1] == q + 1:
                return True
            if meld[0] == RUN and meld[1] == suit:
                lo, hi = int(meld[2]), int(meld[3])
                pos = (1, MAX_POS) if q == 0 else (q + 1,)
                if any(p == lo - 1 or p == hi + 1 for p in pos):
                    return True
        return fits_table(card, view.table(), view.rules)

    # ----------------------------------------------------------------------------------------------------------
    # Buy ("May I"): the offered card plus a penalty card from the stock
    # ----------------------------------------------------------------------------------------------------------
    def choose_buy(self, view: PublicView) -> int:
        """Buy when the offered card advances the target enough to be worth the penalty card."""
        lay = view.layout
        if lay.BUY in view.legal and self.worth_buying(view, view.offered):
            return lay.BUY
        return lay.PASS

    def danger(self, view: PublicView) -> float:
        """How late the round is for carrying extra cards: its age, opponents already down, cards already bought."""
        seat = view.seat
        opened = sum(1 for p in range(view.num_players) if p != seat and view.opened[p])
        dealt = view.rules.hand_sizes[view.round - 1]
        extra = max(0, view.hand_sizes[seat] - dealt)
        st = self.style
        return view.turn / st.danger_turns + st.danger_per_opened * opened + st.danger_per_extra_card * extra

    def worth_buying(self, view: PublicView, card: int) -> bool:
        """Before opening, a card that fills a missing slot is worth the penalty card while the round is young; after
        opening never (the penalty card is one more card to get rid of)."""
        if card < 0 or view.opened[view.seat]:
            return False
        hand = view.hand
        live = view.unseen()
        danger = self.danger(view)
        if view.final_round:
            # round 7: the hand grows by two, so the card must fill more than the penalty card spoils
            target = sum(hand) + 1
            before = self.final_runs(view, hand, target, live).cost
            after = self.final_runs(view, _with(hand, card), target + 2, live).cost
            return after <= before - self.style.buy_gain and danger < self.style.buy_danger
        before = self.structure(view, hand, live)
        after = self.structure(view, _with(hand, card), live)
        if after.cost > before.cost - self.style.buy_gain:
            return False
        limit = self.style.buy_danger_if_completes if after.missing == 0 else self.style.buy_danger
        return danger < limit

    # ----------------------------------------------------------------------------------------------------------
    # Act: open, lay off, swap, discard, go out
    # ----------------------------------------------------------------------------------------------------------
    def choose_act(self, view: PublicView) -> int:
        """Go out / open when possible, else empty the hand onto the table, then discard."""
        lay = view.layout
        legal = view.legal
        if view.final_round:
            if lay.GO_OUT in legal:
                return lay.GO_OUT
            return self.discard_final_round(view)
        if not view.opened[view.seat]:
            if any(lay.MELD <= a < lay.LAY_OFF for a in legal):
                return self.choose_opening_meld(view)
            return self.discard_before_opening(view)
        for choose in (self.choose_lay_off_natural, self.choose_swap, self.choose_lay_off_joker):
            action = choose(view)
            if action is not None:
                return action
        return self.discard_after_opening(view)

    # opening --------------------------------------------------------------------------------------------------
    def choose_opening_meld(self, view: PublicView) -> int:
        """Open with the plan that leaves the best rest: the fewest and cheapest cards that cannot be laid off next
        turn (one of them goes on the discard pile now)."""
        lay = view.layout
        legal = set(view.legal)
        seat = view.seat
        if view.phase == "opening" and view.opening_left:
            g, r = view.opening_left
            declared = tuple((m.suit, m.low, m.high) for m in view.melds[seat] if m.kind == RUN)
        else:
            g, r = view.contract
            declared = ()
        best: tuple[tuple[float, int], int] | None = None
        table = view.table()
        for plan in opening_plans(view.hand, g, r, view.rules, declared):
            first = self.meld_action(view, plan.melds[0])
            if first not in legal:
                continue
            score = self.rest_after_opening(view, plan.rest, table + plan_melds(plan, seat, view.rules.run_min))
            key = (score, first)
            if best is None or key < best[0]:
                best = (key, first)
        if best is not None:
            return best[1]
        return min(a for a in view.legal if lay.MELD <= a < lay.LAY_OFF)  # pragma: no cover - plans cover legal

    @staticmethod
    def meld_action(view: PublicView, spec: Any) -> int:
        """Action id of declaring a catalog meld."""
        lay = view.layout
        if hasattr(spec, "rank"):
            idx = lay.group_index.get(spec)
            return -1 if idx is None else lay.MELD + idx
        idx = lay.run_index.get(spec)
        return -1 if idx is None else lay.MELD_RUN + idx

    def rest_after_opening(self, view: PublicView, rest: tuple[int, ...], table: list[Meld]) -> float:
        """Penalty of what would stay in hand: cards that cannot be laid off later, after discarding the worst one;
        every such card counts 10 on top of its penalty."""
        can = playable(rest, table, view.rules)
        stuck = [PENALTY[k] for k in range(NUM_KINDS) for _ in range(rest[k] - can[k])]
        if stuck:
            stuck.remove(max(stuck))
        return 10.0 * len(stuck) + sum(stuck)

    # lay-offs and joker swaps ---------------------------------------------------------------------------------
    def choose_lay_off_natural(self, view: PublicView) -> int | None:
        """Lay off a natural card, the dearest first, on the spot that keeps most of the rest playable."""
        lay = view.layout
        cands = [a for a in view.legal if lay.LAY_OFF <= a < lay.SWAP and lay.decode_lay_off(a)[0] != JOKER]
        if not cands:
            return None
        return self.best_spot(view, cands, lambda a: lay.decode_lay_off(a)[0], prefer_groups=False)

    def choose_lay_off_joker(self, view: PublicView) -> int | None:
        """Jokers go down last, where they leave the hand's other cards a place (groups first: a joker at a run end
        opens a new place for the opponents)."""
        lay = view.layout
        cands = [a for a in view.legal if lay.LAY_OFF <= a < lay.SWAP and lay.decode_lay_off(a)[0] == JOKER]
        if not cands:
            return None
        return self.best_spot(view, cands, lambda a: JOKER, prefer_groups=True)

    def choose_swap(self, view: PublicView) -> int | None:
        """A swap always pays: the natural leaves the hand and the freed joker goes onto the table."""
        lay = view.layout
        cands = [a for a in view.legal if lay.SWAP <= a < lay.PLACE]
        if not cands:
            return None
        return max(cands, key=lambda a: (PENALTY[_swap_kind(view, a)], -a))

    def choose_joker_place(self, view: PublicView) -> int:
        """Place the freed joker where the hand's cards keep the most places."""
        lay = view.layout
        cands = [a for a in view.legal if lay.PLACE <= a < lay.DISCARD]
        return self.best_spot(view, cands, lambda a: JOKER, prefer_groups=True)

    def best_spot(self, view: PublicView, cands: list[int], card_of: Callable[[int], int], prefer_groups: bool) -> int:
        """Among lay-off / placement actions: the dearest card, then the spot after which most of the hand is still
        playable, then (for jokers) a group rather than a run end."""
        lay = view.layout
        seat = view.seat

        def score(a: int) -> tuple[float, int, int, int]:
            kind = card_of(a)
            if lay.PLACE <= a < lay.DISCARD:
                slot, end = lay.decode_place(a)
            else:
                _, slot, end = lay.decode_lay_off(a)
            owner, idx = lay.slot_target(seat, slot)
            melds = [[m.copy() for m in ms] for ms in view.melds]
            target = melds[owner][idx]
            lay_off(target, kind, end)
            rest = list(view.hand)
            rest[kind] -= 1  # the card (or the freed joker) leaves the hand
            can = playable(rest, [m for ms in melds for m in ms], view.rules)
            group = 1 if (prefer_groups and target.kind == GROUP) else 0
            return (PENALTY[kind], sum(can), group, -a)

        return max(cands, key=score)

    # discards -------------------------------------------------------------------------------------------------
    def discard_before_opening(self, view: PublicView) -> int:
        """Discard a card outside the best contract target (the least useful, weighted by its penalty); if every card
        is in the target, the one whose loss costs least."""
        live = view.unseen()
        target = self.structure(view, view.hand, live)
        spare = [k for k in self.discardable(view) if view.hand[k] > target.used[k]]
        if spare:
            return self.discard_by_priority(view, spare, target, live)
        kinds = self.discardable(view)
        cost = {k: self.structure(view, _with(view.hand, k, -1), live).cost for k in kinds}
        low = min(cost.values())
        return self.discard_by_priority(view, [k for k in kinds if cost[k] <= low + 1e-9], target, live)

    def discard_after_opening(self, view: PublicView) -> int:
        """Opened: every card left is a penalty; keep those that will be laid off next turn, drop the dearest."""
        table = view.table()
        can = playable(view.hand, table, view.rules)

        def score(k: int) -> float:
            keep = self.gap_to_table(view, k, table)
            if can[k]:
                keep += 4.0  # goes onto the table next turn (the opening turn forbids lay-offs)
            return PENALTY[k] / 5.0 - keep - self.style.feed_weight * self.feeds_next(view, k, table)

        return self.pick_discard(view, self.discardable(view), score)

    def discard_final_round(self, view: PublicView) -> int:
        """Round 7: discard the card whose loss leaves the cheapest three-run target for the next draw."""
        live = view.unseen()
        hand = view.hand
        target = sum(hand)  # after the discard, the next draw brings the hand back to this size
        kinds = self.discardable(view)
        cost = {k: self.final_runs(view, _with(hand, k, -1), target, live).cost for k in kinds}
        low = min(cost.values())
        best = [k for k in kinds if cost[k] <= low + 1e-9]
        table = view.table()

        def score(k: int) -> float:
            keep = self.run_neighbours(view, k)
            return PENALTY[k] / 10.0 - keep - self.style.feed_weight * self.feeds_next(view, k, table)

        return self.pick_discard(view, best, score)

    def discard_by_priority(self, view: PublicView, kinds: list[int], target: Structure, live: list[int]) -> int:
        """Before opening: the card least useful for the target, weighted by its penalty (heavier as opponents go
        down), that does not feed the next player."""
        table = view.table()
        opened = sum(1 for p in range(view.num_players) if p != view.seat and view.opened[p])
        st = self.style
        pen_weight = st.penalty_weight * (1 + opened)

        def score(k: int) -> float:
            if k == JOKER:
                return -100.0
            keep = self.priority_keep(view, k, target, live)
            return pen_weight * PENALTY[k] - keep - st.feed_weight * self.feeds_next(view, k, table)

        return self.pick_discard(view, kinds, score)

    def priority_keep(self, view: PublicView, kind: int, target: Structure, live: list[int]) -> float:
        """Before opening: the keep value of a (non-joker) card in ``discard_by_priority`` -- a pair of its rank
        (group contracts, scaled by how many of the rank are live), its run neighbours (run contracts) and attaching
        to ``target``."""
        g, r = view.contract
        st = self.style
        keep = 0.0
        suit, q = _suit_rank(kind)
        if g:
            same = sum(view.hand[s * NUM_RANKS + q] for s in range(4)) - 1
            live_rank = sum(live[s * NUM_RANKS + q] for s in range(4))
            keep += st.pair_keep * min(same, 2) * min(1.0, live_rank / 2.0)
        if r:
            keep += self.run_neighbours(view, kind)
        if self.attaches(view, kind, target):
            keep += st.attach_keep
        return keep

    def run_neighbours(self, view: PublicView, kind: int) -> float:
        """Run potential of a card: same-suit cards of the hand one or two positions away."""
        if kind == JOKER:
            return 100.0
        suit, q = _suit_rank(kind)
        positions = (1, MAX_POS) if q == 0 else (q + 1,)
        best = 0.0
        for p in positions:
            near = 0.0
            for d, w in ((1, 1.0), (2, 0.6)):
                for p2 in (p - d, p + d):
                    if 1 <= p2 <= MAX_POS and view.hand[suit * NUM_RANKS + (0 if p2 == MAX_POS else p2 - 1)]:
                        near += w
            best = max(best, near)
        return best

    def gap_to_table(self, view: PublicView, kind: int, table: list[Meld]) -> float:
        """Opened: keep value of a card one gap away from a run end (the gap card would take it down too); a joker
        always finds a place."""
        if kind == JOKER:
            return 100.0
        suit, q = _suit_rank(kind)
        for m in table:
            if m.kind == RUN and m.suit == suit:
                for p in (1, MAX_POS) if q == 0 else (q + 1,):
                    if p == m.low - 2 or p == m.high + 2:
                        return 0.5
        return 0.0

    def feeds_next(self, view: PublicView, kind: int, table: list[Meld]) -> float:
        """Risk that the next player takes the card: it fits the table and he is down, or he is publicly collecting
        its rank (group contracts) or its suit nearby (run contracts)."""
        nxt = (view.seat + 1) % view.num_players
        risk = 0.0
        if kind == JOKER:
            return 1.0
        if view.opened[nxt] and not view.final_round and fits_table(kind, table, view.rules):
            risk += 1.0
        known = view.known[nxt]
        if any(known):
            g, r = view.contract
            suit, q = _suit_rank(kind)
            if g and any(known[s * NUM_RANKS + q] for s in range(4)):
                risk += 1.0
            if r:
                for d in (-2, -1, 1, 2):
                    q2 = q + d
                    if 0 <= q2 < NUM_RANKS and known[suit * NUM_RANKS + q2]:
                        risk += 0.7
                        break
        return risk

    def discardable(self, view: PublicView) -> list[int]:
        """Kinds the deciding seat may discard now."""
        lay = view.layout
        return [a - lay.DISCARD for a in view.legal if lay.DISCARD <= a < lay.DISCARD + NUM_KINDS]

    def pick_discard(self, view: PublicView, kinds: list[int], score: Callable[[int], float]) -> int:
        """The discard action of the highest-scoring kind; exact ties broken by the generator."""
        scores = {k: score(k) for k in kinds}
        top = max(scores.values())
        best = [k for k in kinds if scores[k] >= top - 1e-9]
        k = best[int(self.rng.integers(len(best)))] if len(best) > 1 else best[0]
        return view.layout.DISCARD + k


def _swap_kind(view: PublicView, action: int) -> int:
    suit, pos, _ = view.layout.decode_swap(action)
    return suit * NUM_RANKS + (0 if pos == MAX_POS else pos - 1)


__all__ = ["ContractHeuristic", "ContractStyle"]
