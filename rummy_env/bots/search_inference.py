"""What the opponents revealed, and determinizations weighted by it (the ``search`` bot's hidden-card inference).

A seat sees, at each of its own decisions, a ``PublicView``; the search bot hands every view it gets to an
``EventLog``, which keeps what the opponents' visible choices were this round (Contract family; nothing is inferred
in ``continental``, where every hidden card stays uniform):

| event | seen in the view of | meaning under the heuristic's play |
|---|---|---|
| ``discard`` | the seat's own draw (the top, thrown by the seat before it) or a first buy window (the offered card, thrown by the seat before the active one) | the card was the least useful of that hand: it keeps no pair of its rank (group contracts) and no same-suit neighbour (run contracts) |
| ``decline`` | a first buy window: the active seat drew from the stock instead of taking the offered card | the card would not have filled a missing card of its contract |
| ``pass`` | a buy window: the seats asked before this one did not buy the offered card | the same, weaker (a late round passes anyway) |
| ``took`` | the view's ``known`` cards: taken from the discard pile or bought, still held | the card filled a missing card: the hand holds its rank or a neighbour |

An event counts only while its seat is still not down and was not down when it was seen (a hand that has opened
put its pairs on the table). ``EventLog.likelihood(hands, known)`` scores a determinization: the product over the
events of the chance, under a count model of the heuristic's play (the factors in ``FACTORS``), that a hand holding
the determinization's cards made that choice. ``weighted_determinization`` draws ``proposals`` redeals of the hidden
cards and keeps one with probability proportional to that likelihood (sampling-importance-resampling, one
independent draw per determinization: as the proposals grow it samples the posterior of the hidden cards given the
events under the model).

Everything here reads views and the canonical root only, never the true hidden cards.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..core.cards import JOKER, NUM_RANKS

#: likelihood factors of the count model, per same-rank natural (group contracts) or same-suit neighbour within two
#: positions (run contracts) of the card in the hand, at most two counted: a thrown card (``discard_pair``,
#: ``discard_neighbour``), a card refused at the draw (``decline``) or in a buy window (``pass``) while the hand held
#: one or two of its rank, or a neighbour; a card taken while the hand held none (``took_alone``)
FACTORS = {
    "discard_pair": 0.05,
    "discard_neighbour": 0.3,
    "decline": 0.1,
    "pass": 0.4,
    "took_alone": 0.05,
}

class Event(NamedTuple):
    """One visible choice of an opponent: its seat, what it did (``discard``, ``decline``, ``pass``) and the card."""

    seat: int
    kind: str
    card: int


def _rank_count(hand: list[int], q: int) -> int:
    return hand[q] + hand[q + 13] + hand[q + 26] + hand[q + 39]


def _neighbours(hand: list[int], card: int) -> int:
    """Same-suit naturals of ``hand`` one or two positions from ``card`` (the ace at both ends)."""
    suit, q = divmod(card, NUM_RANKS)
    base = suit * NUM_RANKS
    count = 0
    for d in (-2, -1, 1, 2):
        r = q + d
        if r == NUM_RANKS:
            r = 0  # king - ace
        if 0 <= r < NUM_RANKS and hand[base + r]:
            count += 1
    return count


class EventLog:
    """The opponents' visible choices of the current round, gathered from the views the seat is shown."""

    def __init__(self) -> None:
        self._round: Any = None
        self._seen: set[tuple[int, str, int]] = set()
        self.events: list[Event] = []
        self._last_turn = -1

    def observe(self, view: Any) -> None:
        """Record what ``view`` (a view the seat decides on) shows of the opponents' choices."""
        contract = getattr(view, "contract", None)
        if contract is None:
            return  # no inference outside the Contract family
        key = (view.round, view.dealer, tuple(view.rounds), tuple(view.scores))
        if key != self._round or view.turn < self._last_turn:
            self._round, self._seen, self.events = key, set(), []
        self._last_turn = view.turn
        n, seat = view.num_players, view.seat
        if view.phase == "draw" and view.active == seat and view.turn > 1 and view.discard:
            self._add(view, view.turn - 1, (seat - 1) % n, "discard", view.discard[-1])
        if view.phase == "buy" and view.last_buyer < 0 and view.offered >= 0:
            active, card = view.active, view.offered
            if view.turn > 1:
                self._add(view, view.turn - 1, (active - 1) % n, "discard", card)
            self._add(view, view.turn, active, "decline", card)
            for other in view.rules.buy_window(active, view.last_buyer):
                if other == seat:
                    break
                self._add(view, view.turn, other, "pass", card)

    def _add(self, view: Any, turn: int, seat: int, kind: str, card: int) -> None:
        if seat == view.seat or card == JOKER or view.opened[seat]:
            return
        tag = (turn, kind, seat)
        if tag not in self._seen:
            self._seen.add(tag)
            self.events.append(Event(seat, kind, card))

    def active_events(self, view: Any) -> list[Event]:
        """The events that still speak about a hand: of seats not down in ``view``."""
        return [e for e in self.events if not view.opened[e.seat]]

    @staticmethod
    def likelihood(events: list[Event], hands: list[list[int]], known: list[list[int]], view: Any) -> float:
        """The count model's chance of ``events`` and of each opponent's known cards (``took``) given the hands of a
        determinization (1.0: nothing speaks against it)."""
        g, r = view.contract
        w = 1.0
        f = FACTORS
        for e in events:
            hand = hands[e.seat]
            q = e.card % NUM_RANKS
            same = _rank_count(hand, q) if g else 0
            near = _neighbours(hand, e.card) if r else 0
            if e.kind == "discard":
                w *= f["discard_pair"] ** min(same, 2) * f["discard_neighbour"] ** min(near, 2)
            elif (g and 1 <= same <= 2) or (r and near):
                w *= f["decline"] if e.kind == "decline" else f["pass"]
        for p, row in enumerate(known):
            if p == view.seat or view.opened[p] or not any(row):
                continue
            hand = hands[p]
            for k, c in enumerate(row[:JOKER]):
                if not c:
                    continue
                q = k % NUM_RANKS
                hand[k] -= 1  # the card itself does not explain its taking
                alone = (not g or _rank_count(hand, q) == 0) and (not r or _neighbours(hand, k) == 0)
                hand[k] += 1
                if alone:
                    w *= f["took_alone"]
        return w


def redeal(root: Any, seat: int, order: list[int], sizes: list[int]) -> Any:
    """A clone of ``root`` whose hidden cards are ``order`` dealt back: each opponent keeps its known cards and takes
    its ``sizes[p]`` hidden cards from the front of ``order``, the rest is the stock (top at the end)."""
    st = root.clone()
    i = 0
    for p in range(st.n):
        if p == seat:
            continue
        hand = list(st.known[p])
        for k in order[i : i + sizes[p]]:
            hand[k] += 1
        i += sizes[p]
        st.hands[p] = hand
    st.stock = list(order[i:])
    st._legal = None
    return st


def hidden_pool(root: Any, seat: int) -> tuple[list[int], list[int]]:
    """(the cards ``seat`` cannot see in ``root``: the stock and the opponents' unknown cards, sorted; each
    opponent's number of unknown cards)."""
    pool = list(root.stock)
    sizes = [0] * root.n
    for p in range(root.n):
        if p == seat:
            continue
        hand, known = root.hands[p], root.known[p]
        for k, c in enumerate(hand):
            extra = c - known[k]
            if extra:
                pool.extend([k] * extra)
                sizes[p] += extra
    pool.sort()
    return pool, sizes


def weighted_determinization(
    root: Any, seat: int, rng: np.random.Generator, log: EventLog | None, view: Any, proposals: int,
    pool: tuple[list[int], list[int]] | None = None,
) -> Any:
    """One determinization of ``root`` for ``seat``: ``proposals`` redeals of the hidden cards, one kept with
    probability proportional to the count model's likelihood of the opponents' events (``EventLog``); with no log,
    no event or one proposal, a uniform redeal."""
    cards, sizes = pool if pool is not None else hidden_pool(root, seat)
    if proposals <= 1 or log is None or getattr(view, "contract", None) is None:
        return redeal(root, seat, rng.permutation(cards).tolist(), sizes)
    events = log.active_events(view)
    if not events and not any(any(row) for p, row in enumerate(root.known) if p != seat and not view.opened[p]):
        return redeal(root, seat, rng.permutation(cards).tolist(), sizes)
    orders, weights = [], []
    for _ in range(proposals):
        order = rng.permutation(cards).tolist()
        hands = _hands_of(root, seat, order, sizes)
        orders.append(order)
        weights.append(EventLog.likelihood(events, hands, root.known, view))
    total = sum(weights)
    pick = int(rng.choice(len(orders), p=[w / total for w in weights])) if total > 0 else 0
    return redeal(root, seat, orders[pick], sizes)


def _hands_of(root: Any, seat: int, order: list[int], sizes: list[int]) -> list[list[int]]:
    """The opponents' hands (known cards plus the hidden cards ``order`` deals them); ``seat``'s own hand."""
    hands = []
    i = 0
    for p in range(root.n):
        if p == seat:
            hands.append(list(root.hands[p]))
            continue
        hand = list(root.known[p])
        for k in order[i : i + sizes[p]]:
            hand[k] += 1
        i += sizes[p]
        hands.append(hand)
    return hands


__all__ = ["Event", "EventLog", "FACTORS", "redeal", "hidden_pool", "weighted_determinization"]
