"""What one seat may know, as typed frozen data: ``state.public_view(seat)``.

Every engine state answers ``public_view(seat)`` with a ``PublicView`` (Contract-family profiles) or a
``ContinentalView`` (``continental``): the seat's own hand and the public facts -- the table, the discard pile, the
cards publicly known to be in each hand, hand sizes, who opened, round and phase, the offered card, the scores, the
legal actions when it is that seat's decision -- and nothing else: no opponent's hidden card, no stock order.

This is the one place that says what a seat may know. The observation encoders (``rummy_env.encoding.observation``)
encode a view, the heuristic bots decide from a view, terminal play shows one; so whatever reads a view cannot use
hidden information, and one test (``tests/engine/test_public_view.py``) checks that a view is unchanged when the hidden
cards are resampled (``state.resample_hidden``).

A view holds no reference into the engine's mutable state: every field is an int, a str, a tuple or a frozen
object (table melds are ``TableMeld`` named tuples; ``PublicView.melds`` rebuilds ``Meld`` copies on demand), so it
stays true to the moment it was taken while the game moves on. Building one is cheap (tuples copied from the
engine's lists; the legal actions come from the engine's cache, and only for the seat to move).

Engine layer: this module imports ``rummy_env.core`` and the engines only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

from ..core.cards import NUM_KINDS
from ..core.melds import Meld
from .common import ENGINE_VIEWS, GAME_OVER, public_view_of, register_view, view_builder

if TYPE_CHECKING:
    from .continental import ContinentalState
    from .contract import ContractState


class ViewSeatError(ValueError):
    """``public_view(seat)`` for a seat the table does not have."""


class TableMeld(NamedTuple):
    """A table meld, frozen (the fields of ``rummy_env.core.melds.Meld``; ``to_meld()`` gives a ``Meld`` copy)."""

    #: the seat that laid it
    owner: int
    #: ``"group"`` or ``"run"``
    kind: str
    #: group: kinds as laid; run: the kind at each position ``low..high`` (``JOKER`` where a joker stands)
    cards: tuple[int, ...]
    #: group: its rank 1..13 (0 for a run)
    rank: int
    #: run: its suit 0..3 (-1 for a group)
    suit: int
    #: run: its lowest position 1..14 (0 for a group)
    low: int
    #: group: the declared suit of each joker in card order (-1: by rank only)
    jsuits: tuple[int, ...]
    #: run: (position, seat that placed the joker there) pairs
    placers: tuple[tuple[int, int], ...]

    @property
    def high(self) -> int:
        """Highest position of a run."""
        return self.low + len(self.cards) - 1

    def to_meld(self) -> Meld:
        """An independent ``Meld`` equal to the one on the table (for the meld functions of ``core.melds``)."""
        return Meld(
            self.owner, self.kind, list(self.cards), self.rank, self.suit, self.low, list(self.jsuits),
            dict(self.placers),
        )  # fmt: skip

    @classmethod
    def of(cls, meld: Meld) -> TableMeld:
        """The frozen copy of ``meld``."""
        return _table_meld(meld)


_tuple_new = tuple.__new__

#: the row of ``known`` of a seat with no publicly known card (the builders share this one tuple, so a reader may
#: skip such rows by identity; any other all-zero tuple means the same)
NO_CARDS: tuple[int, ...] = (0,) * NUM_KINDS


def _known_rows(known: list[list[int]]) -> tuple[tuple[int, ...], ...]:
    """Frozen copies of the known cards per seat; rows with nothing known are ``NO_CARDS``."""
    return tuple(tuple(row) if any(row) else NO_CARDS for row in known)


def _table_meld(m: Meld) -> TableMeld:
    # tuple.__new__ directly: the NamedTuple constructor's keyword handling costs more than the copy itself
    return _tuple_new(
        TableMeld,
        (
            m.owner,
            m.kind,
            tuple(m.cards),
            m.rank,
            m.suit,
            m.low,
            tuple(m.jsuits) if m.jsuits else (),
            tuple(m.placers.items()) if m.placers else (),
        ),
    )


def _seat_melds(seat_melds: list[list[Meld]]) -> tuple[tuple[TableMeld, ...], ...]:
    """Frozen copies of the table melds per owner seat (``_table_meld`` inlined: a call per meld would cost as much
    as the copy, and a view is made per observation)."""
    out = []
    for ms in seat_melds:
        if not ms:
            out.append(())
            continue
        row = []
        for m in ms:
            jsuits, placers = m.jsuits, m.placers
            row.append(
                _tuple_new(
                    TableMeld,
                    (
                        m.owner,
                        m.kind,
                        tuple(m.cards),
                        m.rank,
                        m.suit,
                        m.low,
                        tuple(jsuits) if jsuits else (),
                        tuple(placers.items()) if placers else (),
                    ),
                )
            )
        out.append(tuple(row))
    return tuple(out)


def _unseen_cards(view: Any, table_cards: Any) -> tuple[int, ...]:
    """Copies of each kind ``view``'s seat has not seen: the shoe less its hand, ``table_cards``, the discard pile
    and the cards known to be in other hands."""
    decks, jokers = view.rules.decks, view.rules.jokers
    out = [decks - c for c in view.hand]
    out[-1] = jokers - view.hand[-1]
    for k in table_cards:
        out[k] -= 1
    for k in view.discard:
        out[k] -= 1
    for p, row in enumerate(view.known):
        if p != view.seat and any(row):
            out = [a - b for a, b in zip(out, row)]
    return tuple(out)


@dataclass(frozen=True)
class PublicView:
    """Everything one seat of a Contract-family session may know (profiles ``contract``, ``contract_gamerules``)."""

    #: profile id (the rules' ``name``): picks the heuristic
    profile: str
    #: the viewing seat and the number of seats
    seat: int
    num_players: int
    #: the frozen rules object of the profile
    rules: Any = field(repr=False)
    #: the static action table (``rummy_env.engine.actions.ActionLayout``)
    layout: Any = field(repr=False, compare=False)
    #: round number (1-based), this round's contract (groups, runs), whether it is gone out all at once
    round: int
    contract: tuple[int, int]
    final_round: bool
    #: decision asked (``draw``, ``buy``, ``act``, ``opening``, ``place_joker``; ``game_over`` at the end), whose
    #: turn it is, turns this round
    phase: str
    active: int
    turn: int
    #: own hand: copies of each card kind
    hand: tuple[int, ...]
    #: cards in each seat's hand
    hand_sizes: tuple[int, ...]
    #: per seat: opened on an earlier turn or this one; whether the active seat opened during this turn
    opened: tuple[bool, ...]
    opened_this_turn: bool
    #: table melds per owner seat, in the order laid (frozen; ``melds`` gives them as ``Meld`` copies)
    seat_melds: tuple[tuple[TableMeld, ...], ...] = field(repr=False)
    #: discard pile, bottom first (every card of it has been seen face up), and the stock size
    discard: tuple[int, ...]
    stock_size: int
    #: per seat, copies of each kind publicly known to be in that hand (taken from the discard pile or bought)
    known: tuple[tuple[int, ...], ...] = field(repr=False)
    #: cumulative penalties before this round
    scores: tuple[int, ...]
    #: buy phase: the offered card and the buyer of the previous card of this chain (-1: none)
    offered: int
    last_buyer: int
    #: card taken from the discard pile this turn and still in hand (-1: none)
    taken_discard: int
    #: an opening in progress: (groups, runs) still to declare, or None
    opening_left: tuple[int, int] | None
    #: legal action ids (sorted; empty when it is not this seat's decision)
    legal: tuple[int, ...]
    #: deep pickup (B.1-6): the chosen card that must still reach the table this turn (-1: none; public)
    must_place: int = -1
    #: the seat whose decision it is (-1 once the session is over; differs from ``active`` in a buy window)
    current: int = -1
    #: the dealer of this round and the round numbers the session plays
    dealer: int = 0
    rounds: tuple[int, ...] = ()

    @property
    def discard_top(self) -> int:
        """Kind of the discard top, -1 if the pile is empty."""
        return self.discard[-1] if self.discard else -1

    @property
    def opened_before(self) -> bool:
        """The viewing seat opened on an earlier turn (lay-offs and swaps allowed)."""
        return self.opened[self.seat] and not (self.seat == self.active and self.opened_this_turn)

    @property
    def session_over(self) -> bool:
        """The session has ended (no decision is asked)."""
        return self.phase == GAME_OVER

    @cached_property
    def melds(self) -> tuple[tuple[Meld, ...], ...]:
        """Table melds per owner seat as ``Meld`` objects (copies made once per view: the engine's are untouched)."""
        return tuple(tuple(m.to_meld() for m in ms) for ms in self.seat_melds)

    def table(self) -> list[Meld]:
        """All table melds (the view's ``Meld`` copies)."""
        return [m for ms in self.melds for m in ms]

    def unseen(self) -> list[int]:
        """Copies of each kind this seat has not seen: not in its hand, on the table, in the discard pile or known
        to be in another hand. They are somewhere in the stock or the opponents' hidden cards."""
        return list(self._unseen)

    @cached_property
    def _unseen(self) -> tuple[int, ...]:
        return _unseen_cards(self, (k for ms in self.seat_melds for m in ms for k in m.cards))


@dataclass(frozen=True)
class ContinentalView:
    """Everything one seat of a Continental session may know (profile ``continental``): no table, 15-card hands."""

    profile: str
    seat: int
    num_players: int
    rules: Any = field(repr=False)
    layout: Any = field(repr=False, compare=False)
    #: deal number (1-based) and deals in the session
    round: int
    num_deals: int
    #: decision asked (``draw``, ``act``; ``game_over`` at the end), whose turn it is, turns of this deal (all seats)
    phase: str
    active: int
    turn: int
    #: own hand: copies of each card kind
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    #: own turns completed this deal per seat (0: the first turn is still to come, C.2-3)
    turns_taken: tuple[int, ...]
    #: discard pile, bottom first, and the stock size
    discard: tuple[int, ...]
    stock_size: int
    #: per seat, copies of each kind publicly known to be in that hand (taken from the discard pile)
    known: tuple[tuple[int, ...], ...] = field(repr=False)
    #: balances before this deal
    scores: tuple[int, ...]
    #: card taken from the discard pile this turn (-1: none)
    taken_discard: int
    #: legal action ids (sorted; empty when it is not this seat's decision)
    legal: tuple[int, ...]
    #: the seat whose decision it is (-1 once the session is over) and the dealer of this deal
    current: int = -1
    dealer: int = 0

    @property
    def discard_top(self) -> int:
        """Kind of the discard top, -1 if the pile is empty."""
        return self.discard[-1] if self.discard else -1

    @property
    def session_over(self) -> bool:
        """The session has ended (no decision is asked)."""
        return self.phase == GAME_OVER

    def unseen(self) -> list[int]:
        """Copies of each kind this seat has not seen (stock or opponents' hidden cards)."""
        return list(self._unseen)

    @cached_property
    def _unseen(self) -> tuple[int, ...]:
        return _unseen_cards(self, ())


_new_object = object.__new__


def _made(cls: type, fields: dict[str, Any]) -> Any:
    """An instance of the frozen dataclass ``cls`` holding ``fields`` (every field, by name).

    The builders below make a view per observation (the env's hot path): filling the instance dict directly skips
    the frozen ``__init__``'s ``object.__setattr__`` per field, which costs more than copying the engine's lists.
    The result is the same as ``cls(**fields)`` (the tests compare the two)."""
    obj = _new_object(cls)
    obj.__dict__.update(fields)
    return obj


def _check_seat(state: Any, seat: Any) -> int:
    """``seat`` if it is a seat of ``state``'s table; else ``ViewSeatError`` naming the seats."""
    if seat.__class__ is not int:
        if isinstance(seat, bool) or not hasattr(seat, "__index__"):
            raise ViewSeatError(f"seat must be an integer 0..{state.n - 1}, got {seat!r}")
        seat = seat.__index__()
    if not 0 <= seat < state.n:
        raise ViewSeatError(f"seat {seat} does not exist: the seats are 0..{state.n - 1}")
    return seat


def _contract_round(st: ContractState) -> tuple[Any, ...]:
    """The fields of a Contract view fixed for a round (keyed by round index and dealer), kept on the state."""
    rules = st.rules
    snap = (
        st.round_index, st.dealer, rules.name, st.n, rules, st.layout, st.round, tuple(st.contract), st.final_round,
        st.rounds,
    )  # fmt: skip
    st._round_snap = snap
    return snap


def contract_view(state: ContractState, seat: int, profile: str | None = None) -> PublicView:
    """The ``PublicView`` of ``seat`` in a Contract-family engine state (``profile`` defaults to the rules').

    The table melds, the known cards and the round's fixed fields come from frozen snapshots the engine keeps until
    a move changes them (``ContractState._table_snap`` ...), so views of an unchanged table share those tuples."""
    st = state
    if seat.__class__ is not int or not 0 <= seat < st.n:
        seat = _check_seat(st, seat)
    rs = st._round_snap
    if rs is None or rs[0] != st.round_index or rs[1] != st.dealer:
        rs = _contract_round(st)
    _, dealer, name, n, rules, layout, rnd, contract, final, rounds = rs
    seat_melds = st._table_snap
    if seat_melds is None:
        seat_melds = st._table_snap = _seat_melds(st.seat_melds)
    known = st._known_snap
    if known is None:
        known = st._known_snap = _known_rows(st.known)
    current = st.current_player
    phase = st.phase
    buy = phase == "buy"
    discard = st.discard
    obj = _new_object(PublicView)
    obj.__dict__.update(
        {
            "profile": name if profile is None else profile,
            "seat": seat,
            "num_players": n,
            "rules": rules,
            "layout": layout,
            "round": rnd,
            "contract": contract,
            "final_round": final,
            "phase": phase,
            "active": st.active,
            "turn": st.turn,
            "hand": tuple(st.hands[seat]),
            "hand_sizes": tuple(st.hand_size),
            "opened": tuple(st.opened),
            "opened_this_turn": st.opened_this_turn,
            "seat_melds": seat_melds,
            "discard": tuple(discard),
            "stock_size": len(st.stock),
            "known": known,
            "scores": tuple(st.scores),
            "offered": discard[-1] if buy and discard else -1,
            "last_buyer": st.last_buyer if buy else -1,
            "taken_discard": st.taken_discard if st.taken_pending else -1,
            "opening_left": tuple(st.opening_left) if st.opening_left else None,
            "legal": tuple(st.legal_actions()) if current == seat else (),
            "must_place": st.must_place,
            "current": current,
            "dealer": dealer,
            "rounds": rounds,
        }
    )
    return obj


def _continental_round(st: ContinentalState) -> tuple[Any, ...]:
    """The fields of a Continental view fixed for a deal (keyed by deal index and dealer), kept on the state."""
    rules = st.rules
    snap = (st.deal_index, st.dealer, rules.name, st.n, rules, st.layout, st.round, st.num_deals)
    st._round_snap = snap
    return snap


def continental_view(state: ContinentalState, seat: int, profile: str | None = None) -> ContinentalView:
    """The ``ContinentalView`` of ``seat`` in a Continental engine state (``profile`` defaults to the rules'); the
    known cards and the deal's fixed fields come from snapshots the engine keeps until a move changes them."""
    st = state
    if seat.__class__ is not int or not 0 <= seat < st.n:
        seat = _check_seat(st, seat)
    rs = st._round_snap
    if rs is None or rs[0] != st.deal_index or rs[1] != st.dealer:
        rs = _continental_round(st)
    _, dealer, name, n, rules, layout, rnd, num_deals = rs
    known = st._known_snap
    if known is None:
        known = st._known_snap = _known_rows(st.known)
    current = st.current_player
    obj = _new_object(ContinentalView)
    obj.__dict__.update(
        {
            "profile": name if profile is None else profile,
            "seat": seat,
            "num_players": n,
            "rules": rules,
            "layout": layout,
            "round": rnd,
            "num_deals": num_deals,
            "phase": st.phase,
            "active": st.active,
            "turn": st.turn,
            "hand": tuple(st.hands[seat]),
            "hand_sizes": tuple(st.hand_size),
            "turns_taken": tuple(st.turns_taken),
            "discard": tuple(st.discard),
            "stock_size": len(st.stock),
            "known": known,
            "scores": tuple(st.scores),
            "taken_discard": st.taken_discard,
            "legal": tuple(st.legal_actions()) if current == seat else (),
            "current": current,
            "dealer": dealer,
        }
    )
    return obj


# ``ENGINE_VIEWS``, ``register_view``, ``view_builder`` and ``public_view_of`` live in ``engine.common`` (the base
# class asks them) and are re-exported here; ``engine.contract`` and ``engine.continental`` register their builders.


__all__ = [
    "ContinentalView",
    "ENGINE_VIEWS",
    "NO_CARDS",
    "PublicView",
    "TableMeld",
    "ViewSeatError",
    "contract_view",
    "continental_view",
    "public_view_of",
    "register_view",
    "view_builder",
]
