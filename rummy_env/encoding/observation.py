"""Observation encoders: one flat float32 vector built from named, shaped pieces, seen from the observer's seat.

Seats are rotated so the observer is seat 0 (seat 1 = the next player clockwise). An observer encodes a public view
(``observer.encode(state.public_view(seat))``, ``rummy_env.engine.view``) and reads nothing else, so it cannot see an
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
from ..engine.view import ENGINE_VIEWS, NO_CARDS, _check_seat, continental_view, contract_view, view_builder
from . import fast

CONTRACT_PHASES = ("draw", "buy", "act", "opening", "place_joker")
TOP_CARDS = 4


#: the pieces every profile starts with: own hand, discard pile, pile sizes (filled by ``encode_cards``)
CARD_PIECES: list[tuple[str, tuple[int, ...], str]] = [
    ("hand", (NUM_KINDS,), "own hand: copies of each card kind"),
    ("discard_counts", (NUM_KINDS,), "the whole discard pile: copies of each kind"),
    ("discard_top", (TOP_CARDS, NUM_KINDS), "the top 4 discards in order (row 0 = top), one-hot"),
    ("pile_sizes", (2,), "stock size and discard-pile size / shoe size"),
]


#: a discard pile at least this long is counted by ``np.bincount`` (shorter ones item by item: cheaper)
_BINCOUNT_PILE = 16


def _counts(counts: tuple[int, ...]) -> np.ndarray:
    """Card counts (small non-negative ints) as a uint8 array, without a Python loop (``bytes`` of the tuple)."""
    return np.frombuffer(bytes(counts), dtype=np.uint8)


def encode_cards(
    arr: np.ndarray, o: dict[str, int], view: Any, shoe_size: float, out: Any = None, cache: CardCache | None = None
) -> None:
    """Fill the ``CARD_PIECES`` of the float32 vector ``arr`` (``out``: a memoryview of it, for item writes) from
    ``view`` (a public view): the viewing seat's hand and the public piles. ``cache``: an observer's ``CardCache``
    (the counts of a long discard pile are then counted once while the pile is unchanged)."""
    if out is None:
        out = memoryview(arr)
    h = o["hand"]
    arr[h : h + NUM_KINDS] = np.frombuffer(bytes(view.hand), dtype=np.uint8)
    disc = view.discard
    size = len(disc)
    if size:
        dc, dt = o["discard_counts"], o["discard_top"]
        if size >= _BINCOUNT_PILE:
            if cache is None:
                counts = np.bincount(np.frombuffer(bytes(disc), dtype=np.uint8), minlength=NUM_KINDS)
            elif disc is cache.pile or disc == cache.pile:
                counts = cache.pile_counts
            else:
                counts = np.bincount(np.frombuffer(bytes(disc), dtype=np.uint8), minlength=NUM_KINDS)
                counts = cache.pile_counts = counts.astype(np.float32)
                cache.pile = disc
            arr[dc : dc + NUM_KINDS] = counts
        else:
            for k in disc:
                out[dc + k] += 1.0
        out[dt + disc[-1]] = 1.0
        if size > 1:
            out[dt + NUM_KINDS + disc[-2]] = 1.0
            if size > 2:
                out[dt + 2 * NUM_KINDS + disc[-3]] = 1.0
                if size > 3:
                    out[dt + 3 * NUM_KINDS + disc[-4]] = 1.0
    ps = o["pile_sizes"]
    out[ps] = view.stock_size / shoe_size
    out[ps + 1] = size / shoe_size


def encode_known(arr: np.ndarray, offset: int, view: Any, cache: CardCache | None = None) -> None:
    """Fill the ``known`` piece at ``offset``: per opponent in seat order after the viewer, the copies of each kind
    publicly known to be in that hand. Rows with nothing known stay zero (the engine's views share one all-zero
    row, ``engine.view.NO_CARDS``, skipped without looking at it); ``cache``: an observer's ``CardCache``, which
    keeps each seat's last row encoded (reused while equal)."""
    known, me, n = view.known, view.seat, view.num_players
    for i in range(1, n):
        p = (me + i) % n
        row = known[p]
        if row is NO_CARDS:
            continue
        at = offset + (i - 1) * NUM_KINDS
        if cache is None:
            if any(row):
                arr[at : at + NUM_KINDS] = np.frombuffer(bytes(row), dtype=np.uint8)
            continue
        last = cache.rows[p]
        if last is None or (last[0] is not row and last[0] != row):
            last = cache.rows[p] = (row, np.frombuffer(bytes(row), dtype=np.uint8).astype(np.float32))
        arr[at : at + NUM_KINDS] = last[1]


class CardCache:
    """What an observer keeps between calls to encode the card pieces faster: the counts of the last long discard
    pile, and each seat's last known-cards row encoded. Entries are checked against the view by identity or
    equality of the (immutable) tuples before use, so a stale entry is never used."""

    __slots__ = ("pile", "pile_counts", "rows")

    def __init__(self, num_players: int):
        self.pile: tuple[int, ...] | None = None
        self.pile_counts: np.ndarray | None = None
        self.rows: list[tuple[tuple[int, ...], np.ndarray] | None] = [None] * num_players


#: a piece of the table cache not built yet for a seat
_UNBUILT = object()


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


#: the features of one table meld (a row of the ``table`` piece), as named sub-pieces: ``MELD_ROW.offsets[name]``
#: is the offset inside the row, and the ``MELD_*`` constants below name the same offsets
MELD_ROW = Pieces(
    [
        ("empty", (1,), "flag of an empty slot (stays 0: an empty slot is a row of zeros)"),
        ("group", (1,), "the meld is a group"),
        ("run", (1,), "the meld is a run"),
        ("naturals", (52,), "copies of each natural card kind in the meld"),
        ("run_filled", (14,), "run: positions 1..14 filled (ace low = 1, ace high = 14)"),
        ("run_jokers", (14,), "run: positions 1..14 held by a joker"),
        ("group_rank", (NUM_RANKS,), "group: its rank 1..13, one-hot"),
        ("group_jokers", (1,), "group: its jokers / 4"),
    ]
)
MELD_FEATURES = MELD_ROW.size
MELD_GROUP = MELD_ROW.offsets["group"]
MELD_RUN = MELD_ROW.offsets["run"]
MELD_NATURALS = MELD_ROW.offsets["naturals"]
#: run position ``pos`` (1..14) is at ``MELD_RUN_FILLED + pos - 1``; rank ``r`` (1..13) at ``MELD_GROUP_RANK + r - 1``
MELD_RUN_FILLED = MELD_ROW.offsets["run_filled"]
MELD_RUN_JOKERS = MELD_ROW.offsets["run_jokers"]
MELD_GROUP_RANK = MELD_ROW.offsets["group_rank"]
MELD_GROUP_JOKERS = MELD_ROW.offsets["group_jokers"]
# the fast path (``encoding.fast``, compiled with C constants) spells these offsets out: they must agree
assert (fast.MELD_FEATURES, fast.MELD_GROUP, fast.MELD_RUN, fast.MELD_NATURALS, fast.MELD_RUN_FILLED,
        fast.MELD_RUN_JOKERS, fast.MELD_GROUP_RANK, fast.MELD_GROUP_JOKERS) == (
    MELD_FEATURES, MELD_GROUP, MELD_RUN, MELD_NATURALS, MELD_RUN_FILLED, MELD_RUN_JOKERS, MELD_GROUP_RANK,
    MELD_GROUP_JOKERS), "encoding.fast's meld offsets differ from MELD_ROW"


def card_count_highs(shoe: Shoe) -> np.ndarray:
    """Per card kind, the most copies any hand or pile can hold: the shoe's copies."""
    return np.asarray(shoe.copies_list(), dtype=np.float32)


def _fast_builder(state: Any, builder: Any) -> bool:
    """Does ``state`` get its views from ``builder`` (the fast path reads what that builder puts in a view)?"""
    found = ENGINE_VIEWS.get(state.__class__)
    if found is not None:
        return found is builder
    try:
        return view_builder(state) is builder
    except TypeError:  # an engine without views: its public_view (if any) decides
        return False


class ObservationOutError(ValueError):
    """``encode(..., out=)`` given something that is not a float32 C-contiguous array of the observation's size."""


def _checked_out(out: Any, size: int) -> np.ndarray:
    """``out`` if it is a writeable C-contiguous float32 vector of ``size`` items, else ``ObservationOutError``."""
    if (
        out.__class__ is np.ndarray
        and out.dtype == np.float32
        and out.shape == (size,)
        and out.flags.c_contiguous
        and out.flags.writeable
    ):
        return out
    return _out_array(out, size)


def _out_array(out: Any, size: int) -> np.ndarray:
    """A zeroed float32 vector of ``size`` items: ``out`` cleared when given (checked), else a new array."""
    if out is None:
        return np.zeros(size, dtype=np.float32)
    if (
        not isinstance(out, np.ndarray)
        or out.dtype != np.float32
        or out.shape != (size,)
        or not out.flags.c_contiguous
        or not out.flags.writeable
    ):
        what = f"{out.dtype} array of shape {out.shape}" if isinstance(out, np.ndarray) else type(out).__name__
        raise ObservationOutError(
            f"out must be a writeable C-contiguous float32 array of shape ({size},), got {what}"
        )
    out.fill(0.0)
    return out


def _encode_state(observer: Any, state: Any, seat: int, out: Any, builder: Any, write: Any) -> np.ndarray:
    """The ``encode_state`` of both observers: ``write(observer, state, seat, arr, memoryview(arr))`` (the fast
    path) where ``state``'s views are ``builder``'s and its seat count is the observer's, else the view's encoding;
    a bad ``seat`` is refused as ``public_view`` refuses it."""
    if not _fast_builder(state, builder) or state.n != observer.n:
        return observer.encode(state.public_view(seat), out=out)
    if seat.__class__ is not int or not 0 <= seat < observer.n:
        seat = _check_seat(state, seat)
    arr = np.empty(observer.size, dtype=np.float32) if out is None else _checked_out(out, observer.size)
    write(observer, state, seat, arr, memoryview(arr))
    return arr


def _contract_pieces(rules: Any, n: int, num_rounds: int, slots: int) -> Pieces:
    """The observation pieces of a Contract-family game of ``n`` seats and ``num_rounds`` rounds with ``slots``
    meld slots, with their bounds (the whole shoe's card copies, penalties and size)."""
    shoe = Shoe(rules.decks, rules.jokers)
    copies = card_count_highs(shoe)
    meld_high = np.ones(MELD_FEATURES, dtype=np.float32)
    meld_high[MELD_ROW.slice("naturals")] = copies[:52]  # copies of a natural in one meld
    meld_high[MELD_GROUP_JOKERS] = max(1.0, shoe.jokers / 4.0)  # group jokers / 4
    # a round's penalty is at most the whole shoe's penalty (every card in one hand)
    shoe_penalty = sum(PENALTY[k] * shoe.copies(k) for k in range(NUM_KINDS))
    return Pieces(
        CARD_PIECES
        + [
            (
                "table",
                (slots, MELD_FEATURES),
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
            "table": np.broadcast_to(meld_high, (slots, MELD_FEATURES)),
            "known": np.broadcast_to(copies, (n - 1, NUM_KINDS)),
            "hand_sizes": max(1.0, shoe.size / 20.0),
            "scores": num_rounds * shoe_penalty / 100.0,
        },
    )


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
        self.pieces = _contract_pieces(rules, n, num_rounds, self.slots)
        self.size = self.pieces.size
        o = self.pieces.offsets
        self._o = o
        self.low, self.high = self.pieces.low(), self.pieces.high()
        #: per seat offset, the bound the scores are clipped to (a scenario's scores may lie beyond what play reaches)
        self._scores_high = [float(v) for v in self.pieces.highs["scores"].ravel()]

        #: seat order from each viewing seat (offset i -> absolute seat)
        self._rot = [tuple((me + i) % n for i in range(n)) for me in range(n)]
        t0 = o["table"]
        self._table_span = (t0, t0 + self.slots * MELD_FEATURES)
        #: the encoded table piece per viewing seat (``_UNBUILT``: not yet; None: empty table) of the table snapshot
        #: ``_table_key`` (a view's ``seat_melds``: immutable, held here so its id is not reused, compared by
        #: identity): the engine hands out the same snapshot until the table changes, so it is encoded once per seat
        self._table_key: Any = None
        self._table_pieces: list[Any] = [_UNBUILT] * n
        self._cards = CardCache(n)
        #: offsets of the single-valued pieces, read on every call
        self._offsets = tuple(
            o.get(name, -1)
            for name in (
                "hand_sizes", "opened", "scores", "round", "contract", "phase", "active", "offered", "last_buyer",
                "opening_left", "taken_discard", "turn", "must_place", "known",
            )
        )  # fmt: skip
        #: what ``encoding.fast.encode_contract_state`` reads on every call, in one tuple (one look-up): the seat
        #: count, the shoe size, the items of one seat's table block, the turn cap, the score clip bounds, the phase
        #: index, then the offsets of the pieces (-1: a piece this profile lacks)
        self._fast_consts = (
            n, self.shoe_size, max_melds * MELD_FEATURES, self.turn_cap, self._scores_high, self.phase_index,
            *(
                o.get(name, -1)
                for name in (
                    "hand", "discard_counts", "discard_top", "pile_sizes", "table", "hand_sizes", "opened", "scores",
                    "round", "contract", "phase", "active", "offered", "last_buyer", "opening_left", "taken_discard",
                    "turn", "known", "must_place",
                )
            ),
        )  # fmt: skip
        #: its cache of the encoded table: [the engine's table snapshot (compared by identity), its encoding with
        #: the melds in seat 0's order (``fast.float_view`` of it; False: an empty table)]
        self._fast_table: list[Any] = [None, False]

    def __getstate__(self) -> dict[str, Any]:
        """Copied and pickled without the fast path's table cache (its view of the encoded table is a memoryview,
        which neither copies nor pickles; the copy encodes its first table again)."""
        state = self.__dict__.copy()
        state["_fast_table"] = [None, False]
        return state

    def _table_segment(self, v: Any) -> np.ndarray | None:
        """The ``table`` piece of view ``v`` (float32; None for an empty table)."""
        if not any(v.seat_melds):
            return None
        n = self.n
        me = v.seat
        seg = np.zeros(self.slots * MELD_FEATURES, dtype=np.float32)
        out = memoryview(seg)  # item writes through a memoryview cost half of numpy's (same float32 rounding)
        for owner, melds in enumerate(v.seat_melds):
            if not melds:
                continue
            row = ((owner - me) % n) * self.max_melds * MELD_FEATURES
            for meld in melds:
                if meld.kind == GROUP:
                    out[row + MELD_GROUP] = 1.0
                    out[row + MELD_GROUP_RANK + meld.rank - 1] = 1.0
                    nj = 0
                    for k in meld.cards:
                        if k == JOKER:
                            nj += 1
                        else:
                            out[row + MELD_NATURALS + k] += 1.0
                    out[row + MELD_GROUP_JOKERS] = nj / 4.0
                else:
                    out[row + MELD_RUN] = 1.0
                    filled = row + MELD_RUN_FILLED + meld.low - 1
                    jokers = row + MELD_RUN_JOKERS + meld.low - 1
                    for i, k in enumerate(meld.cards):
                        out[filled + i] = 1.0
                        if k == JOKER:
                            out[jokers + i] = 1.0
                        else:
                            out[row + MELD_NATURALS + k] += 1.0
                row += MELD_FEATURES
        return seg

    #: the ``rummy_env.encoding.fast`` function of ``encode_state`` (``VectorEnv`` looks it up by this name on each
    #: pass, so that a caller wrapping it, as ``rummy bench`` does to time it, is seen)
    FAST_FUNCTION = "encode_contract_state"

    def fast_fits(self, state: Any) -> bool:
        """Can ``encode_state`` write ``state``'s observations on the fast path (its views are ``contract_view``'s)?"""
        return _fast_builder(state, contract_view)

    def encode_state(self, state: Any, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """``encode(state.public_view(seat), out=out)``, bit for bit, written straight from the engine state (no
        view is built: the envs' hot path). It reads only what the view holds -- ``seat``'s own hand and the public
        fields, the stock by its size -- through ``rummy_env.encoding.fast`` (compiled when ``RUMMY_ENV_IMPL``
        selects the twins). A state whose views another builder makes (``register_view``) goes through its view.
        ``out``: as in ``encode``."""
        return _encode_state(self, state, seat, out, contract_view, fast.encode_contract_state)

    def encode(self, view: Any, seat: int | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """The float32 observation of a public view (``state.public_view(seat)``; zeros for pieces that do not
        apply). It reads only the view, so it cannot see hidden cards. ``encode(state, seat)`` (an engine state and
        a seat, the form of earlier releases) encodes ``state.public_view(seat)``. ``out``: a float32 C-contiguous
        array of ``size`` items to write the observation into (returned; e.g. a row of a batch), instead of a new
        array; ``ObservationOutError`` if it is not one.

        The table piece is kept per viewing seat while views carry the same (immutable) table snapshot, so an
        unchanged table is encoded once per seat."""
        v = view if seat is None else view.public_view(seat)
        n = self.n
        me = v.seat
        arr = np.zeros(self.size, dtype=np.float32) if out is None else _out_array(out, self.size)
        out = memoryview(arr)  # item writes through a memoryview cost half of numpy's (same float32 rounding)
        cache = self._cards
        encode_cards(arr, self._o, v, self.shoe_size, out, cache)
        hs, op, sc, rd, ct, ph, ac, of, lb, ol, td, tu, mp, kn = self._offsets
        encode_known(arr, kn, v, cache)
        melds = v.seat_melds
        if melds is not self._table_key:
            self._table_key = melds
            self._table_pieces = [_UNBUILT] * n
        seg = self._table_pieces[me]
        if seg is _UNBUILT:
            seg = self._table_pieces[me] = self._table_segment(v)
        if seg is not None:
            t0, t1 = self._table_span
            arr[t0:t1] = seg
        opened, sizes, scores, highs = v.opened, v.hand_sizes, v.scores, self._scores_high
        active, this_turn = v.active, v.opened_this_turn
        for i, p in enumerate(self._rot[me]):
            out[hs + i] = sizes[p] / 20.0
            if opened[p]:
                out[op + 2 * i] = 1.0
                if p == active and this_turn:
                    out[op + 2 * i + 1] = 1.0
            score = scores[p]
            if score:  # a zero score leaves the zero
                score = score / 100.0
                out[sc + i] = highs[i] if score > highs[i] else (score if score > 0.0 else 0.0)
        out[rd + v.round - 1] = 1.0
        g, r = v.contract
        out[ct] = g / 3.0
        out[ct + 1] = r / 3.0
        at = self.phase_index.get(v.phase)
        if at is not None:
            out[ph + at] = 1.0
            out[ac + (active - me) % n] = 1.0
        if v.offered >= 0:
            out[of + v.offered] = 1.0
        if v.last_buyer >= 0:
            out[lb + (v.last_buyer - me) % n] = 1.0
        left = v.opening_left
        if left:
            out[ol] = left[0] / 3.0
            out[ol + 1] = left[1] / 3.0
        if v.taken_discard >= 0:
            out[td + v.taken_discard] = 1.0
        out[tu] = min(v.turn / self.turn_cap, 1.0)
        if v.must_place >= 0 and mp >= 0:
            out[mp + v.must_place] = 1.0
        return arr


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
        self._bal_high = [float(v) for v in self.pieces.highs["balances"].ravel()]
        #: seat order from each viewing seat (offset i -> absolute seat)
        self._rot = [tuple((me + i) % n for i in range(n)) for me in range(n)]
        self._cards = CardCache(n)
        #: offsets of the single-valued pieces, read on every call
        self._offsets = tuple(
            self._o[name]
            for name in ("known", "first_turn", "balances", "deal", "phase", "active", "taken_discard", "turn")
        )
        #: what ``encoding.fast.encode_continental_state`` reads on every call, in one tuple: the seat count, the
        #: shoe size, the last deal's index, the turn cap, the balance clip bounds, the phase index, then the offsets
        self._fast_consts = (
            n, self.shoe_size, self.num_deals - 1, self.turn_cap, self._bal_high, self.phase_index,
            *(
                self._o[name]
                for name in (
                    "hand", "discard_counts", "discard_top", "pile_sizes", "known", "first_turn", "balances", "deal",
                    "phase", "active", "taken_discard", "turn",
                )
            ),
        )  # fmt: skip

    #: as ``ContractObserver.FAST_FUNCTION``
    FAST_FUNCTION = "encode_continental_state"

    def fast_fits(self, state: Any) -> bool:
        """Can ``encode_state`` write ``state``'s observations on the fast path (its views are
        ``continental_view``'s)?"""
        return _fast_builder(state, continental_view)

    def encode_state(self, state: Any, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """``encode(state.public_view(seat), out=out)``, bit for bit, written straight from the engine state (as
        ``ContractObserver.encode_state``: no view built, only what the view holds is read)."""
        return _encode_state(self, state, seat, out, continental_view, fast.encode_continental_state)

    def encode(self, view: Any, seat: int | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """The float32 observation of a public view (``state.public_view(seat)``), reading only the view.
        ``encode(state, seat)`` (an engine state and a seat, the form of earlier releases) encodes
        ``state.public_view(seat)``. ``out``: as in ``ContractObserver.encode`` (an array to write into)."""
        v = view if seat is None else view.public_view(seat)
        n = self.n
        me = v.seat
        arr = np.zeros(self.size, dtype=np.float32) if out is None else _out_array(out, self.size)
        out = memoryview(arr)  # item writes through a memoryview cost half of numpy's (same float32 rounding)
        cache = self._cards
        encode_cards(arr, self._o, v, self.shoe_size, out, cache)
        kn, ft, bal, dl, ph, ac, td, tu = self._offsets
        encode_known(arr, kn, v, cache)
        turns_taken, scores, highs = v.turns_taken, v.scores, self._bal_high
        for i, p in enumerate(self._rot[me]):
            if turns_taken[p] == 0:
                out[ft + i] = 1.0
            score = scores[p]
            if score:  # a zero balance leaves the zeros
                bal_p = score / 100.0
                at = 2 * i + (0 if bal_p >= 0 else 1)  # (gain, loss), clipped to the bound
                out[bal + at] = min(abs(bal_p), highs[at])
        out[dl + min(v.round - 1, self.num_deals - 1)] = 1.0
        at = self.phase_index.get(v.phase)
        if at is not None:
            out[ph + at] = 1.0
            out[ac + (v.active - me) % n] = 1.0
        if v.taken_discard >= 0:
            out[td + v.taken_discard] = 1.0
        out[tu] = min(v.turn / self.turn_cap, 1.0)
        return arr


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


__all__ = [
    "ContractObserver",
    "ObservationOutError",
    "ContinentalObserver",
    "Pieces",
    "CONTRACT_PHASES",
    "CONTINENTAL_PHASES",
    "MELD_FEATURES",
    "MELD_ROW",
    "NUM_RANKS",
]
