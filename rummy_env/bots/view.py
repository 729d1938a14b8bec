"""What one seat may know, as plain data: the only door through which a bot reads the engine state.

``public_view(env, agent)`` copies out of ``env.unwrapped.state_`` the agent's own hand and the public facts (table,
discard pile, cards publicly known to be in each hand, hand sizes, who opened, round, phase, the offered card, the
legal actions) and nothing else: no opponent's hidden card, no stock order. A heuristic that reads only the view
cannot cheat, and the tests check that the view (and so every decision) is unchanged when the hidden cards are
resampled.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..core.melds import Meld


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
    """The decision of one seat as that seat sees it (Contract-family profiles)."""

    #: profile id (``env.unwrapped.profile``): picks the heuristic
    profile: str
    #: the deciding seat and the number of seats
    seat: int
    num_players: int
    #: the frozen rules object of the profile
    rules: Any = field(repr=False)
    #: the static action table (``rummy_env.encoding.actions.ActionLayout``)
    layout: Any = field(repr=False, compare=False)
    #: round number (1-based), this round's contract (groups, runs), whether it is gone out all at once
    round: int
    contract: tuple[int, int]
    final_round: bool
    #: decision asked (``draw``, ``buy``, ``act``, ``opening``, ``place_joker``), whose turn it is, turns this round
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
    #: table melds per owner seat, in the order laid (copies: the bot cannot touch the engine's)
    melds: tuple[tuple[Meld, ...], ...] = field(repr=False)
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

    @property
    def discard_top(self) -> int:
        """Kind of the discard top, -1 if the pile is empty."""
        return self.discard[-1] if self.discard else -1

    @property
    def opened_before(self) -> bool:
        """The deciding seat opened on an earlier turn (lay-offs and swaps allowed)."""
        return self.opened[self.seat] and not (self.seat == self.active and self.opened_this_turn)

    def table(self) -> list[Meld]:
        """All table melds (copies)."""
        return [m for ms in self.melds for m in ms]

    def unseen(self) -> list[int]:
        """Copies of each kind this seat has not seen: not in its hand, on the table, in the discard pile or known
        to be in another hand. They are somewhere in the stock or the opponents' hidden cards."""
        return list(self._unseen)

    @cached_property
    def _unseen(self) -> tuple[int, ...]:
        return _unseen_cards(self, (k for ms in self.melds for m in ms for k in m.cards))


def contract_view(state: Any, seat: int, profile: str) -> PublicView:
    """The ``PublicView`` of ``seat`` in a Contract-family engine state."""
    st = state
    legal = tuple(st.legal_actions()) if st.current_player == seat else ()
    return PublicView(
        profile=profile,
        seat=seat,
        num_players=st.n,
        rules=st.rules,
        layout=st.layout,
        round=st.round,
        contract=tuple(st.contract),
        final_round=st.final_round,
        phase=st.phase,
        active=st.active,
        turn=st.turn,
        hand=tuple(st.hands[seat]),
        hand_sizes=tuple(st.hand_size),
        opened=tuple(st.opened),
        opened_this_turn=st.opened_this_turn,
        melds=tuple(tuple(m.copy() for m in ms) for ms in st.seat_melds),
        discard=tuple(st.discard),
        stock_size=len(st.stock),
        known=tuple(tuple(row) for row in st.known),
        scores=tuple(st.scores),
        offered=st.discard[-1] if st.phase == "buy" and st.discard else -1,
        last_buyer=st.last_buyer if st.phase == "buy" else -1,
        taken_discard=st.taken_kind if st.taken_pending else -1,
        opening_left=tuple(st.opening_left) if st.opening_left else None,
        legal=legal,
        must_place=getattr(st, "must_place", -1),
    )


@dataclass(frozen=True)
class ContinentalView:
    """The decision of one seat in Continental (profile ``continental``): no table, a hidden 15-card hand."""

    profile: str
    seat: int
    num_players: int
    rules: Any = field(repr=False)
    layout: Any = field(repr=False, compare=False)
    #: deal number (1-based) and deals in the session
    round: int
    num_deals: int
    #: decision asked (``draw``, ``act``, ``declare``), whose turn it is, turns of this deal (all seats)
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
    legal: tuple[int, ...]

    @property
    def discard_top(self) -> int:
        """Kind of the discard top, -1 if the pile is empty."""
        return self.discard[-1] if self.discard else -1

    def unseen(self) -> list[int]:
        """Copies of each kind this seat has not seen (stock or opponents' hidden cards)."""
        return list(self._unseen)

    @cached_property
    def _unseen(self) -> tuple[int, ...]:
        return _unseen_cards(self, ())


def continental_view(state: Any, seat: int, profile: str) -> ContinentalView:
    """The ``ContinentalView`` of ``seat`` in a Continental engine state."""
    st = state
    legal = tuple(st.legal_actions()) if st.current_player == seat else ()
    return ContinentalView(
        profile=profile,
        seat=seat,
        num_players=st.n,
        rules=st.rules,
        layout=st.layout,
        round=st.round,
        num_deals=st.num_deals,
        phase=st.phase,
        active=st.active,
        turn=st.turn,
        hand=tuple(st.hands[seat]),
        hand_sizes=tuple(st.hand_size),
        turns_taken=tuple(st.turns_taken),
        discard=tuple(st.discard),
        stock_size=len(st.stock),
        known=tuple(tuple(row) for row in st.known),
        scores=tuple(st.scores),
        taken_discard=st.taken_kind if st.phase != "draw" else -1,
        legal=legal,
    )


#: view builders by profile id; a new engine family registers its own
VIEW_BUILDERS: dict[str, Callable[[Any, int, str], Any]] = {
    "contract": contract_view,
    "contract_gamerules": contract_view,
    "continental": continental_view,
}


def public_view(env: Any, agent: str) -> PublicView:
    """What ``agent`` may know about ``env`` now (``env`` wrapped or raw)."""
    raw = env.unwrapped
    profile = raw.profile
    builder = VIEW_BUILDERS.get(profile)
    if builder is None:
        raise ValueError(f"no public view for profile {profile!r}; available: {sorted(VIEW_BUILDERS)}")
    return builder(raw.state_, raw.agent_name_mapping[agent], profile)


__all__ = ["PublicView", "ContinentalView", "contract_view", "continental_view", "public_view", "VIEW_BUILDERS"]
