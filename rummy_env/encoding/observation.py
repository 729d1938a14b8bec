"""Observation encoders: one flat float32 vector built from named, shaped pieces, seen from the observer's seat.

Seats are rotated so the observer is seat 0 (seat 1 = the next player clockwise). Nothing here reads an
opponent's hidden cards or the stock order: only the observer's hand and public information.

Every piece has finite bounds (``Pieces.high``): 1 for flags, one-hots and fractions, the shoe's copies of a kind
for card counts, and the most a seat can reach for hand sizes and scores; ``observer.low`` / ``observer.high`` are
the bounds of the whole vector (the env's ``Box``). Scores and balances loaded from a scenario beyond what play can
reach are clipped to the bound.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.cards import JOKER, NUM_KINDS, NUM_RANKS, PENALTY, Shoe
from ..core.melds import GROUP

CONTRACT_PHASES = ("draw", "buy", "act", "opening", "place_joker")
MELD_FEATURES = 3 + 52 + 14 + 14 + 13 + 1  # empty/group/run, naturals, run occupancy, run jokers, rank, jokers
TOP_CARDS = 4


#: the pieces every profile starts with: own hand, discard pile, pile sizes (filled by ``encode_cards``)
CARD_PIECES: list[tuple[str, tuple[int, ...], str]] = [
    ("hand", (NUM_KINDS,), "own hand: copies of each card kind"),
    ("discard_counts", (NUM_KINDS,), "the whole discard pile: copies of each kind"),
    ("discard_top", (TOP_CARDS, NUM_KINDS), "the top 4 discards in order (row 0 = top), one-hot"),
    ("pile_sizes", (2,), "stock size and discard-pile size / shoe size"),
]


def encode_cards(out: np.ndarray, o: dict[str, int], st: Any, seat: int, shoe_size: float) -> None:
    """Fill the ``CARD_PIECES``: ``seat``'s hand and the public piles."""
    out[o["hand"] : o["hand"] + NUM_KINDS] = st.hands[seat]
    disc = st.discard
    dc, dt = o["discard_counts"], o["discard_top"]
    for k in disc:
        out[dc + k] += 1.0
    for i in range(min(TOP_CARDS, len(disc))):
        out[dt + i * NUM_KINDS + disc[-1 - i]] = 1.0
    out[o["pile_sizes"]] = len(st.stock) / shoe_size
    out[o["pile_sizes"] + 1] = len(disc) / shoe_size


class Pieces:
    """Named pieces with shapes and offsets into one flat vector; the total is their sum."""

    def __init__(self, pieces: list[tuple[str, tuple[int, ...], str]], highs: dict[str, Any] | None = None):
        self.shapes: dict[str, tuple[int, ...]] = {}
        self.offsets: dict[str, int] = {}
        self.docs: dict[str, str] = {}
        off = 0
        for name, shape, doc in pieces:
            self.shapes[name] = shape
            self.offsets[name] = off
            self.docs[name] = doc
            off += int(np.prod(shape))
        self.size = off
        #: upper bound of every value of a piece (broadcast to its shape; 1.0 where not given); the lower bound is 0
        self.highs: dict[str, np.ndarray] = {}
        for name, shape in self.shapes.items():
            high = (highs or {}).get(name, 1.0)
            self.highs[name] = np.broadcast_to(np.asarray(high, dtype=np.float32), shape).copy()

    def low(self) -> np.ndarray:
        """The lower bound of the flat vector (zeros)."""
        return np.zeros(self.size, dtype=np.float32)

    def high(self) -> np.ndarray:
        """The upper bound of the flat vector, piece by piece."""
        out = np.empty(self.size, dtype=np.float32)
        for name in self.shapes:
            out[self.slice(name)] = self.highs[name].ravel()
        return out

    def slice(self, name: str) -> slice:
        """The flat slice of a piece."""
        o = self.offsets[name]
        return slice(o, o + int(np.prod(self.shapes[name])))

    def views(self, flat: np.ndarray) -> dict[str, np.ndarray]:
        """A dict of shaped views into ``flat``."""
        return {name: flat[self.slice(name)].reshape(shape) for name, shape in self.shapes.items()}

    def table_rows(self) -> list[tuple[str, int, tuple[int, ...], str]]:
        """(name, offset, shape, description) for documentation."""
        return [(n, self.offsets[n], self.shapes[n], self.docs[n]) for n in self.shapes]

    def bound_text(self, name: str) -> str:
        """The bounds of a piece as documentation text: ``[0, 1]``, or ``[0, 2]``, ``[0, 2 or 3]`` per value."""
        vals = sorted({float(v) for v in self.highs[name].ravel()})
        return "[0, " + " or ".join(f"{v:g}" for v in vals) + "]"


def card_count_highs(shoe: Shoe) -> np.ndarray:
    """Per card kind, the most copies any hand or pile can hold: the shoe's copies."""
    return np.asarray(shoe.copies_list(), dtype=np.float32)


def _clip_piece(out: np.ndarray, sl: slice, high: np.ndarray) -> None:
    """Clip a piece (scores loaded from a scenario may lie beyond what play reaches) to ``[0, high]``."""
    np.clip(out[sl], 0.0, high, out=out[sl])


class ContractObserver:
    """Observation of a Contract-family state (profiles ``contract`` and ``contract_gamerules``)."""

    def __init__(self, rules: Any, num_players: int, num_rounds: int, max_melds: int, shoe_size: int):
        n = num_players
        self.n = n
        self.max_melds = max_melds
        self.slots = n * max_melds
        self.shoe_size = float(shoe_size)
        self.turn_cap = float(rules.turn_cap)
        self.phase_index = {p: i for i, p in enumerate(CONTRACT_PHASES)}
        shoe = Shoe(rules.decks, rules.jokers)
        copies = card_count_highs(shoe)
        meld_high = np.ones(MELD_FEATURES, dtype=np.float32)
        meld_high[3 : 3 + 52] = copies[:52]  # copies of a natural in one meld
        meld_high[-1] = max(1.0, shoe.jokers / 4.0)  # group jokers / 4
        # a round's penalty is at most the whole shoe's penalty (every card in one hand)
        shoe_penalty = sum(PENALTY[k] * shoe.copies(k) for k in range(NUM_KINDS))
        self.pieces = Pieces(
            CARD_PIECES
            + [
                (
                    "table",
                    (self.slots, MELD_FEATURES),
                    "melds by slot (seat offset x meld number): empty/group/run flags, natural cards (52), "
                    "run positions filled (14), run joker positions (14), group rank one-hot (13), group jokers / 4",
                ),
                (
                    "known",
                    (n - 1, NUM_KINDS),
                    "cards each opponent is publicly known to hold (taken from the discard or bought, not yet played)",
                ),  # noqa: E501
                ("hand_sizes", (n,), "cards in each seat's hand / 20"),
                ("opened", (n, 2), "per seat: has opened; opened this turn"),
                ("round", (num_rounds,), "round number one-hot"),
                ("contract", (2,), "groups and runs of this round's contract / 3"),
                ("scores", (n,), "cumulative penalties before this round / 100"),
                ("phase", (len(CONTRACT_PHASES),), "decision asked: draw, buy, act, opening, place_joker"),
                ("active", (n,), "whose turn it is (seat offset one-hot)"),
            ]
            + (
                [
                    ("offered", (NUM_KINDS,), "the card offered in a buy window, one-hot"),
                    ("last_buyer", (n,), "buyer of the previous card of this buy chain (seat offset one-hot)"),
                ]
                if getattr(rules, "buying", False)
                else []
            )
            + [
                ("opening_left", (2,), "groups and runs still to declare in an opening in progress / 3"),
                ("taken_discard", (NUM_KINDS,), "card taken from the discard pile this turn, still in hand, one-hot"),
                ("turn", (1,), "turns played this round / turn cap"),
            ]
            + (
                [("must_place", (NUM_KINDS,), "deep-pickup card that must reach the table this turn, one-hot")]
                if getattr(rules, "deep_pickup", False)
                else []
            ),
            highs={
                "hand": copies,
                "discard_counts": copies,
                "table": np.broadcast_to(meld_high, (self.slots, MELD_FEATURES)),
                "known": np.broadcast_to(copies, (n - 1, NUM_KINDS)),
                "hand_sizes": max(1.0, shoe.size / 20.0),
                "scores": num_rounds * shoe_penalty / 100.0,
            },
        )
        self.size = self.pieces.size
        o = self.pieces.offsets
        self._o = o
        self.low, self.high = self.pieces.low(), self.pieces.high()
        self._scores_slice, self._scores_high = self.pieces.slice("scores"), self.pieces.highs["scores"].ravel()

    def encode(self, st: Any, seat: int) -> np.ndarray:
        """The float32 observation of ``seat`` (zeros for pieces that do not apply)."""
        o = self._o
        n = self.n
        out = np.zeros(self.size, dtype=np.float32)
        encode_cards(out, o, st, seat, self.shoe_size)
        tb = o["table"]
        for owner in range(n):
            rel = (owner - seat) % n
            for idx, meld in enumerate(st.seat_melds[owner]):
                base = tb + (rel * self.max_melds + idx) * MELD_FEATURES
                if meld.kind == GROUP:
                    out[base + 1] = 1.0
                    out[base + 3 + 52 + 28 + meld.rank - 1] = 1.0
                    nj = 0
                    for k in meld.cards:
                        if k == JOKER:
                            nj += 1
                        else:
                            out[base + 3 + k] += 1.0
                    out[base + 3 + 52 + 28 + 13] = nj / 4.0
                else:
                    out[base + 2] = 1.0
                    low = meld.low
                    for i, k in enumerate(meld.cards):
                        pos = low + i
                        out[base + 3 + 52 + pos - 1] = 1.0
                        if k == JOKER:
                            out[base + 3 + 52 + 14 + pos - 1] = 1.0
                        else:
                            out[base + 3 + k] += 1.0
        kn = o["known"]
        for i in range(1, n):
            p = (seat + i) % n
            if any(st.known[p]):
                out[kn + (i - 1) * NUM_KINDS : kn + i * NUM_KINDS] = st.known[p]
        hs, op, sc = o["hand_sizes"], o["opened"], o["scores"]
        for i in range(n):
            p = (seat + i) % n
            out[hs + i] = st.hand_size[p] / 20.0
            if st.opened[p]:
                out[op + 2 * i] = 1.0
                if p == st.active and st.opened_this_turn:
                    out[op + 2 * i + 1] = 1.0
            out[sc + i] = st.scores[p] / 100.0
        out[o["round"] + st.round - 1] = 1.0
        g, r = st.contract
        out[o["contract"]] = g / 3.0
        out[o["contract"] + 1] = r / 3.0
        ph = self.phase_index.get(st.phase)
        if ph is not None:
            out[o["phase"] + ph] = 1.0
            out[o["active"] + (st.active - seat) % n] = 1.0
        if st.phase == "buy" and st.discard:
            out[o["offered"] + st.discard[-1]] = 1.0
        if st.phase == "buy" and st.last_buyer >= 0:
            out[o["last_buyer"] + (st.last_buyer - seat) % n] = 1.0
        if st.opening_left:
            out[o["opening_left"]] = st.opening_left[0] / 3.0
            out[o["opening_left"] + 1] = st.opening_left[1] / 3.0
        if st.taken_pending and st.taken_kind >= 0:
            out[o["taken_discard"] + st.taken_kind] = 1.0
        out[o["turn"]] = min(st.turn / self.turn_cap, 1.0)
        if st.must_place >= 0 and "must_place" in o:
            out[o["must_place"] + st.must_place] = 1.0
        _clip_piece(out, self._scores_slice, self._scores_high)
        return out


__all__ = ["ContractObserver", "Pieces", "CONTRACT_PHASES", "MELD_FEATURES", "NUM_RANKS"]


#: the "declare" slot (a phase of the first release, now part of the discard) stays 0; kept so the size is unchanged
CONTINENTAL_PHASES = ("draw", "act", "declare")


class ContinentalObserver:
    """Observation of a Continental state: own hand, discard pile, public knowledge, first-turn flags, balances."""

    def __init__(self, rules: Any, num_players: int, num_deals: int, shoe_size: int):
        n = num_players
        self.n = n
        self.shoe_size = float(shoe_size)
        self.turn_cap = float(rules.turn_cap)
        self.num_deals = num_deals
        self.phase_index = {p: i for i, p in enumerate(CONTINENTAL_PHASES)}
        shoe = Shoe(rules.decks, rules.jokers)
        copies = card_count_highs(shoe)
        self.pieces = Pieces(
            CARD_PIECES
            + [
                (
                    "known",
                    (n - 1, NUM_KINDS),
                    "cards each opponent is publicly known to hold (taken from the discard pile, not yet discarded)",
                ),  # noqa: E501
                (
                    "first_turn",
                    (n,),
                    "per seat: has not yet finished his first turn of this deal (first-turn bonus open)",
                ),  # noqa: E501
                (
                    "balances",
                    (n, 2),
                    "per seat: cumulative balance / 100 as (gain, loss), both >= 0",
                ),
                ("deal", (num_deals,), "deal number one-hot"),
                ("phase", (len(CONTINENTAL_PHASES),), "decision asked: draw, act (discard); the third slot stays 0"),
                ("active", (n,), "whose turn it is (seat offset one-hot)"),
                ("taken_discard", (NUM_KINDS,), "card taken from the discard pile this turn, one-hot"),
                ("turn", (1,), "turns played this deal / turn cap"),
            ],
            highs={
                "hand": copies,
                "discard_counts": copies,
                "known": np.broadcast_to(copies, (n - 1, NUM_KINDS)),
                "balances": num_deals * (n - 1) * max_payment(rules) / 100.0,
            },
        )
        self.size = self.pieces.size
        self._o = self.pieces.offsets
        self.low, self.high = self.pieces.low(), self.pieces.high()
        self._bal_slice, self._bal_high = self.pieces.slice("balances"), self.pieces.highs["balances"].ravel()

    def encode(self, st: Any, seat: int) -> np.ndarray:
        """The float32 observation of ``seat``."""
        o = self._o
        n = self.n
        out = np.zeros(self.size, dtype=np.float32)
        encode_cards(out, o, st, seat, self.shoe_size)
        kn, ft, bal = o["known"], o["first_turn"], o["balances"]
        for i in range(n):
            p = (seat + i) % n
            if i and any(st.known[p]):
                out[kn + (i - 1) * NUM_KINDS : kn + i * NUM_KINDS] = st.known[p]
            out[ft + i] = 1.0 if st.turns_taken[p] == 0 else 0.0
            bal_p = st.scores[p] / 100.0
            out[bal + 2 * i + (0 if bal_p >= 0 else 1)] = abs(bal_p)
        out[o["deal"] + min(st.deal_index, self.num_deals - 1)] = 1.0
        ph = self.phase_index.get(st.phase)
        if ph is not None:
            out[o["phase"] + ph] = 1.0
            out[o["active"] + (st.active - seat) % n] = 1.0
        if st.taken_kind >= 0:
            out[o["taken_discard"] + st.taken_kind] = 1.0
        out[o["turn"]] = min(st.turn / self.turn_cap, 1.0)
        _clip_piece(out, self._bal_slice, self._bal_high)
        return out


def contract_observer(rules: Any, rounds: Any = None) -> ContractObserver:
    """The observer of a Contract-family session of ``rules`` (every session length observes alike)."""
    shoe = Shoe(rules.decks, rules.jokers)
    return ContractObserver(rules, rules.num_players, rules.num_rounds, rules.max_melds_per_seat, shoe.size)


def continental_observer(rules: Any, rounds: Any = None) -> ContinentalObserver:
    """The observer of a Continental session of ``rules`` and ``rounds`` deals (None: ``rules.num_deals``)."""
    deals = rules.num_deals if rounds is None else int(rounds)
    return ContinentalObserver(rules, rules.num_players, deals, Shoe(rules.decks, rules.jokers).size)


def max_payment(rules: Any) -> int:
    """C.1-6: an upper bound of what one opponent pays a declarer (base + wilds or no-wild bonus + first-turn
    bonus + one-suit bonus; wilds counted as if every card of a 16-card hand were a joker)."""
    wilds = 2 * (rules.hand_size + 1)
    first = max(rules.first_turn_bonus, rules.no_draw_bonus)
    return rules.base_payment + max(wilds, rules.no_wild_bonus) + first + rules.one_suit_bonus
