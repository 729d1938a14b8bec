"""Rules engine of the Contract Rummy family (profile ``contract``, document 000, spec A.1/A.2).

The state is plain data (counts per card kind, lists for the piles, ``Meld`` objects on the table) in the shape
of OpenSpiel's game/state split: ``current_player``, ``phase``, ``legal_actions()``, ``apply(action)``,
``is_terminal()``, ``returns()``, ``clone()``. Actions are ids of the profile's fixed table
(``rummy_env.engine.actions.ActionLayout``). Each phase has one method that lists its legal actions; an action
is applied by the handler of its range (``_APPLY``, keyed by ``ActionLayout.kind_of``):

| phase          | who acts                        | legal actions                                          |
|----------------|---------------------------------|--------------------------------------------------------|
| `draw`         | the active player               | draw_stock, draw_discard                               |
| `buy`          | the next eligible buyer         | buy, pass                                              |
| `act`          | the active player               | meld (opening), lay_off, swap_joker, discard, go_out   |
| `opening`      | the active player, mid-opening  | meld (the rest of the contract)                        |
| `place_joker`  | the active player after a swap  | place_joker                                            |
| `game_over`    | nobody (current_player = -1)    | none                                                   |

Piles are Python lists with the top at the end (the JSON form lists them top first). Rounds follow one another
inside the state: when a round ends the next one is dealt from the same seeded generator.

The state class keeps the phases; the pure rules it asks live in the rules layer (``rules.contract_opening``:
opening searches and the final round's way out; ``rules.contract_layoff``: lay-offs, joker swaps, the blocked-round
test; ``ContractRules.buy_window``: the order of a buy window), the JSON state both ways in
``engine.contract_scenario``, the action descriptions in ``engine.contract_describe`` and the legal actions of
each phase in ``engine.contract_legal`` (``ContractLegalActions``, a mixin of the state class).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.cards import JOKER, NUM_KINDS, PENALTY, RANKS, SUIT_SYMBOLS, SUITS, Shoe, kinds_of
from ..core.melds import (
    GROUP,
    RUN,
    Meld,
    group_spec_meld,
    lay_off,
    meld_problem,
    pos_kind,
    pos_text,
    run_spec_cards,
)
from ..rules.contract import ContractRules
from ..rules.contract_layoff import nothing_fits
from .actions import ActionLayout
from .common import EngineState, copy_rng, copy_round_results, make_rng, redeal_hidden, register_view, shuffled
from .contract_describe import action_info as _action_info
from .contract_describe import describe_action as _describe_action
from .contract_legal import ContractLegalActions
from .contract_phases import ACT, BUY, DRAW, END_REASONS, GAME_OVER, OPENING, PHASES, PLACE_JOKER
from .contract_scenario import dump_scenario, load_scenario
from .view import contract_view

_LAYOUTS: dict[tuple[ContractRules, int], ActionLayout] = {}


def layout_for(rules: ContractRules) -> ActionLayout:
    """The (cached) action table of a rules object."""
    key = (rules, rules.num_players)
    lay = _LAYOUTS.get(key)
    if lay is None:
        # B.1-6: one pickup action per depth 2..(largest pile the shoe allows)
        depths = rules.decks * 52 + rules.jokers - 1 if rules.deep_pickup else 0
        lay = _LAYOUTS[key] = ActionLayout(rules, pickup_depths=depths)
        # ``ContractState._dispatch``'s tables, per range index of the layout: its handler (``_APPLY``) and
        # whether it changes the table melds (``_TABLE_KINDS``)
        lay.handlers = tuple(_APPLY[name] for name in lay.range_names)
        lay.drops_table = tuple(name in _TABLE_KINDS for name in lay.range_names)
        lay.rebuild = (layout_for, (rules,))  # a copy or pickle of a state names this cached table, not a new one
    return lay


class ContractState(ContractLegalActions, EngineState):
    """A Contract Rummy session in progress: one seeded game, all its rounds."""

    #: frozen snapshots the public views share while their part of the state is unchanged (``engine.view``): the
    #: table melds per seat, the publicly known cards per seat, and the round's fixed fields. Immutable tuples, so
    #: a view may keep them; every move that changes the table or a known card drops the snapshot (None: rebuild).
    _table_snap: Any = None
    _known_snap: Any = None
    _round_snap: Any = None
    #: the totals the session started with before its recorded rounds (a scenario's ``scores``; None: all 0), so
    #: that ``scores`` is always these plus the ``round_results`` penalties (JSON ``carried_scores``)
    carried_scores: list[int] | None = None

    @staticmethod
    def check_session_length(rules: ContractRules, rounds: Any) -> tuple[int, ...]:
        """The round numbers a session of ``rounds`` plays; ``ValueError`` saying what is allowed."""
        return _check_rounds(rules, rounds)

    def __init__(self, rules: ContractRules, seed: int | None = None, rounds: int | tuple[int, ...] | None = None):
        self.rules = rules
        self.layout = layout_for(rules)
        self.n = rules.num_players
        self.shoe = Shoe(rules.decks, rules.jokers)
        self.copies = self.shoe.copies_list()
        self.rng = make_rng(seed)
        self.rounds: tuple[int, ...] = _check_rounds(rules, rounds)
        self.round_index = 0
        self.scores = [0] * self.n
        self.round_results: list[dict[str, Any]] = []
        self.history: list[int] = []
        self.seed = seed
        self._legal: list[int] | None = None
        self.dealer = int(self.rng.integers(self.n))
        self._deal()

    # ----------------------------------------------------------------------------------------------------------
    # Round setup
    # ----------------------------------------------------------------------------------------------------------
    @property
    def round(self) -> int:
        """The current round number (1-based, as in the rules)."""
        return self.rounds[self.round_index]

    @property
    def contract(self) -> tuple[int, int]:
        """(groups, runs) of the current round's contract."""
        return self.rules.contracts[self.round - 1]

    @property
    def final_round(self) -> bool:
        """True in a round that is gone out all at once (contract round 7)."""
        rules = self.rules  # ``ContractRules.is_final_all_at_once`` inlined (asked several times per decision)
        return rules.final_round_all_at_once and self.rounds[self.round_index] == len(rules.contracts)  # num_rounds

    def _clear_round(self) -> None:
        """Empty the table, hands and piles of a round about to start (its ``rounds[round_index]`` already set: by
        ``_deal`` and by the scenario loader); the round's fixed facts are read here once."""
        n = self.n
        #: ``final_round`` and ``contract`` of this round, read on every decision (the properties cost ten times a
        #: field read)
        self._final = self.final_round
        self._contract = self.contract
        self.hands = [[0] * NUM_KINDS for _ in range(n)]
        self.hand_size = [0] * n
        self.known = [[0] * NUM_KINDS for _ in range(n)]
        self.table: list[Meld] = []
        self.seat_melds: list[list[Meld]] = [[] for _ in range(n)]
        self.opened = [False] * n
        self.opened_this_turn = False
        self.turn = 0
        self.taken_discard = -1
        self.taken_pending = False
        self.must_place = -1
        self.opening_left: tuple[int, int] | None = None
        self.opening_runs: list[tuple[int, int, int]] = []
        self.buy_queue: list[int] = []
        self.last_buyer = -1
        self.rigged = False  # a loaded position whose hands need not come from a deal (cleared by the next deal)
        self.stock: list[int] = []
        self.discard: list[int] = []
        self._table_snap = self._known_snap = None

    def _deal(self) -> None:
        """Shuffle the whole shoe and deal one card at a time from the dealer's left (A.1-2)."""
        self._clear_round()
        size = self.rules.hand_sizes[self.round - 1]
        cards = shuffled(self.rng, self.shoe.kinds())
        n = self.n
        for i in range(n * size):
            seat = (self.dealer + 1 + i) % n
            self.hands[seat][cards[i]] += 1
        self.hand_size = [size] * n
        self.discard = [cards[n * size]]
        self.stock = cards[n * size + 1 :][::-1]  # top at the end
        self.active = (self.dealer + 1) % n
        self.phase = DRAW
        self.current_player = self.active
        self.turn = 1

    # ----------------------------------------------------------------------------------------------------------
    # Queries
    # ----------------------------------------------------------------------------------------------------------
    def is_terminal(self) -> bool:
        """True once the last round of the session has been scored."""
        return self.phase == GAME_OVER

    def returns(self) -> list[float]:
        """Minus each seat's cumulative penalty (higher is better)."""
        return [-float(s) for s in self.scores]

    def winners(self) -> list[int]:
        """Seats with the lowest total (equal lowest totals share the win)."""
        best = min(self.scores)
        return [p for p in range(self.n) if self.scores[p] == best]

    def hand_cards(self, seat: int) -> list[int]:
        """Kinds in ``seat``'s hand, sorted."""
        return kinds_of(self.hands[seat])

    def penalty(self, seat: int) -> int:
        """Penalty of the cards in ``seat``'s hand (A.1-15)."""
        h = self.hands[seat]
        return sum(PENALTY[k] * c for k, c in enumerate(h) if c)

    # ----------------------------------------------------------------------------------------------------------
    # Applying actions
    # ----------------------------------------------------------------------------------------------------------
    def _dispatch(self, action: int) -> None:
        """Apply a legal action (no checks), routed by the name of its range (``_APPLY``)."""
        self._legal = None
        lay = self.layout
        i = lay.range_index[action]  # ``lay.kind_of(action)``'s range, inlined: its handler by the range's index
        if lay.drops_table[i]:
            self._table_snap = None
        lay.handlers[i](self, action)

    # draw phase -------------------------------------------------------------------------------------------
    def _take_discard(self, action: int = -1) -> None:
        """A.1-8a: take the discard top without penalty; no buying this turn."""
        p = self.active
        k = self.discard.pop()
        self.hands[p][k] += 1
        self.hand_size[p] += 1
        self.known[p][k] += 1
        self._known_snap = None
        self.taken_discard = k
        self.taken_pending = True
        self.phase = ACT
        self.current_player = p

    def _deep_pickup(self, depth: int) -> None:
        """B.1-6: take the card at ``depth`` and every card above it; the chosen card must reach the table."""
        p = self.active
        chosen = self.discard[-depth]
        picked = self.discard[-depth:]
        del self.discard[-depth:]
        for k in picked:
            self.hands[p][k] += 1
            self.known[p][k] += 1
        self._known_snap = None
        self.hand_size[p] += depth
        self.taken_discard = -1
        self.taken_pending = False
        self.must_place = chosen
        self.phase = ACT
        self.current_player = p

    def _decline_discard(self, action: int = -1) -> None:
        """A.1-8a / A.1-10: declining the discard opens the buy window to the other players."""
        if self.rules.buying and self.discard:
            self.last_buyer = -1
            self._open_window()
        else:
            self._active_draws_stock()

    def _open_window(self) -> None:
        """Ask eligible players in future turn order (nearest first); A.2-1: not the previous buyer; A.2-2: not
        the active player."""
        self.buy_queue = self._window_seats()
        if self.buy_queue and self.discard and self._buy_possible():
            self.phase = BUY
            self.current_player = self.buy_queue[0]
        else:
            self._active_draws_stock()

    def _window_seats(self) -> list[int]:
        """The seats a buy window asks now, nearest in future turn order first (``ContractRules.buy_window``, also
        what the loader checks a ``buy_queue`` against)."""
        return self.rules.buy_window(self.active, self.last_buyer)

    def _buy_possible(self) -> bool:
        """``buy_needs_penalty_card``: a buy is offered only if its penalty cards can be supplied (the stock, then a
        reshuffle of the discards below the new top, A.1-14); otherwise always (A.2-9: the round then ends)."""
        if not self.rules.buy_needs_penalty_card:
            return True
        below = len(self.discard) - 1  # the pile once the offered card is bought
        return len(self.stock) + max(0, below - 1) >= self.rules.buy_penalty_cards

    def _apply_buy(self, buy: bool) -> None:
        buyer = self.buy_queue.pop(0)
        if not buy:
            if self.buy_queue:
                self.current_player = self.buy_queue[0]
            else:
                self._active_draws_stock()
            return
        # A.1-10: the buyer takes the discard top and the stock top as a penalty card
        k = self.discard.pop()
        self.hands[buyer][k] += 1
        self.hand_size[buyer] += 1
        self.known[buyer][k] += 1
        self._known_snap = None
        for _ in range(self.rules.buy_penalty_cards):
            card = self._stock_card()
            if card < 0:
                return  # A.2-9: no penalty card to be had: the round ended without a winner
            self.hands[buyer][card] += 1
            self.hand_size[buyer] += 1
        self.last_buyer = buyer
        if self.discard:
            self._open_window()
        else:
            self._active_draws_stock()

    def _stock_card(self) -> int:
        """The stock top; A.1-14: reshuffle all discards but the top when empty; -1 (round over) if none."""
        if not self.stock:
            if len(self.discard) <= 1:
                self._end_round(winner=-1, reason="exhausted")
                return -1
            top = self.discard[-1]
            self.stock = shuffled(self.rng, self.discard[:-1])
            self.discard = [top]
        return self.stock.pop()

    def _active_draws_stock(self) -> None:
        p = self.active
        self.buy_queue = []
        card = self._stock_card()
        if card < 0:
            return
        self.hands[p][card] += 1
        self.hand_size[p] += 1
        self.taken_discard = -1
        self.taken_pending = False
        self.phase = ACT
        self.current_player = p

    # act phase --------------------------------------------------------------------------------------------
    def _play_card(self, kind: int) -> None:
        """Move one card of ``kind`` from the active hand towards the table (public knowledge shrinks)."""
        p = self.active
        self.hands[p][kind] -= 1
        self.hand_size[p] -= 1
        if self.known[p][kind]:
            self.known[p][kind] -= 1
            self._known_snap = None
        if kind == self.taken_discard:
            self.taken_pending = False
        if kind == self.must_place:
            self.must_place = -1

    def _discard(self, action: int) -> None:
        """A.1-12: discard a card; discarding the last card goes out, otherwise the turn passes."""
        p = self.active
        kind = action - self.layout.DISCARD
        self.hands[p][kind] -= 1
        self.hand_size[p] -= 1
        if self.known[p][kind]:
            self.known[p][kind] -= 1
            self._known_snap = None
        self.discard.append(kind)
        if self.hand_size[p] == 0:
            self._end_round(winner=p, reason="out")  # A.1-12: going out = discarding the last card
        else:
            self._next_turn()

    def _lay_off(self, action: int) -> None:
        """A.1-11: lay a hand card off on a table meld."""
        lay = self.layout
        p = self.active
        kind, slot, end = lay.decode_lay_off(action)
        owner, idx = lay.slot_target(p, slot)
        self._play_card(kind)
        lay_off(self.seat_melds[owner][idx], kind, end, self.rules, placer=p)
        self._out_if_empty()

    def _swap_joker(self, action: int) -> None:
        """A.1-11: give the natural for a run's joker; the freed joker must be placed next (A.2-8)."""
        lay = self.layout
        p = self.active
        suit, pos, slot = lay.decode_swap(action)
        owner, idx = lay.slot_target(p, slot)
        meld = self.seat_melds[owner][idx]
        nat = pos_kind(suit, pos)
        self._play_card(nat)
        meld.cards[pos - meld.low] = nat
        meld.placers.pop(pos, None)
        self.hands[p][JOKER] += 1
        self.hand_size[p] += 1
        self.phase = PLACE_JOKER

    def _place_joker(self, action: int) -> None:
        """A.2-8: place the freed joker on a table meld."""
        lay = self.layout
        slot, end = lay.decode_place(action)
        owner, idx = lay.slot_target(self.active, slot)
        # the freed joker is neither the card taken from the discard pile (A.2-4: a joker taken there stays
        # undiscardable) nor the deep-pickup card, nor a publicly known card of the hand
        keep = (self.taken_pending, self.must_place, self.known[self.active][JOKER])
        self._play_card(JOKER)
        self.taken_pending, self.must_place, self.known[self.active][JOKER] = keep
        self._known_snap = None
        lay_off(self.seat_melds[owner][idx], JOKER, end, self.rules, placer=self.active)
        self.phase = ACT
        self._out_if_empty()

    def _out_if_empty(self) -> None:
        """B.1-10: a hand emptied by melding or laying off goes out without a discard."""
        if self.hand_size[self.active] == 0 and self.phase != GAME_OVER:
            self._end_round(winner=self.active, reason="out")

    def _catalog_meld(self, action: int, owner: int) -> Meld:
        """The table meld of a ``meld`` action (a set's jokers declared with their suits, B.1-3)."""
        lay = self.layout
        if action < lay.MELD_RUN:
            return group_spec_meld(lay.groups[action - lay.MELD], owner)
        spec = lay.runs[action - lay.MELD_RUN]
        return Meld(owner, RUN, run_spec_cards(spec, lay.run_size), suit=spec.suit, low=spec.low)

    def _declare_meld(self, action: int) -> None:
        """A.1-9: one meld of the opening; the opening completes when the whole contract is down.
        ``extra_melds_after_opening``: a meld of a player already down is a new meld of his own."""
        p = self.active
        meld = self._catalog_meld(action, p)
        cards = list(meld.cards)
        if self.opened[p] and self.opening_left is None:
            for k in cards:
                self._play_card(k)
            self.table.append(meld)
            self.seat_melds[p].append(meld)
            self._out_if_empty()
            return
        if self.opening_left is None:
            self.opening_left = self._contract
            self.opening_runs = []
        g, r = self.opening_left
        if meld.kind == GROUP:
            g -= 1
        else:
            self.opening_runs.append((meld.suit, meld.low, meld.high))
            r -= 1
        for k in cards:
            self._play_card(k)
        self.table.append(meld)
        self.seat_melds[p].append(meld)
        if g == 0 and r == 0:
            self.opening_left = None
            self.opening_runs = []
            self.opened[p] = True
            self.opened_this_turn = True
            self.phase = ACT
            self._out_if_empty()
        else:
            self.opening_left = (g, r)
            self.phase = OPENING

    def _go_out_final(self, action: int = -1) -> None:
        """A.1-9 (round 7): the whole hand as exactly three runs, no discard; the round ends."""
        p = self.active
        layout = self._final_layout()
        assert layout is not None
        parts, discard = layout
        for suit, low, cards in parts:
            meld = Meld(p, RUN, list(cards), suit=suit, low=low)
            for k in cards:
                self._play_card(k)
            self.table.append(meld)
            self.seat_melds[p].append(meld)
        if discard >= 0:  # final_round_discard: the last card goes onto the discard pile (B.1-10)
            self._play_card(discard)
            self.discard.append(discard)
        self.opened[p] = True
        self._end_round(winner=p, reason="out")

    def _next_turn(self) -> None:
        """Pass the turn clockwise; the engine turn cap ends a round that runs too long."""
        self.active = (self.active + 1) % self.n
        self.opened_this_turn = False
        self.taken_discard = -1
        self.taken_pending = False
        self.must_place = -1
        self.turn += 1
        if self.turn > self.rules.turn_cap:
            self._end_round(winner=-1, reason="turn_cap")
            return
        if self.rules.end_blocked_rounds and self._blocked():
            self._end_round(winner=-1, reason="blocked")
            return
        self.phase = DRAW
        self.current_player = self.active

    def _blocked(self) -> bool:
        """Engine limit: nobody can ever go out (every seat is down, so no new meld can be made, and no card outside
        the table fits any meld, so no lay-off or joker swap will ever be possible; the hands only cycle)."""
        if not all(self.opened) or self._final:
            return False
        return nothing_fits(self.hands, self.stock, self.discard, self.table, self.rules)

    # round end --------------------------------------------------------------------------------------------
    def _end_round(self, winner: int, reason: str) -> None:
        """A.1-15: everyone but the winner scores the cards in hand; A.1-14: no winner, everyone scores."""
        penalties = [0 if p == winner else self.penalty(p) for p in range(self.n)]
        for p in range(self.n):
            self.scores[p] += penalties[p]
        self.round_results.append(
            {"round": self.round, "winner": winner if winner >= 0 else None, "reason": reason, "penalties": penalties}
        )
        self._legal = None
        if self.round_index + 1 < len(self.rounds):
            self.round_index += 1
            self.dealer = (self.dealer + 1) % self.n
            self._deal()
        else:
            self.phase = GAME_OVER
            self.current_player = -1
            self.buy_queue = []

    # ----------------------------------------------------------------------------------------------------------
    # Copying, descriptions, JSON
    # ----------------------------------------------------------------------------------------------------------
    def _copy_table_state(self) -> ContractState:
        """A shallow copy whose cards, melds, scores and results list are copied (what a move can change), for
        ``clone`` and ``_probe``; the history, the generator and the result dicts (never changed once recorded) are
        still shared: each caller decides."""
        new = object.__new__(self.__class__)  # ``copy.copy(self)`` for this plain object, at less than half its cost
        new.__dict__.update(self.__dict__)
        new.hands = [list(h) for h in self.hands]
        new.known = [list(h) for h in self.known]
        new.hand_size = list(self.hand_size)
        new.stock = list(self.stock)
        new.discard = list(self.discard)
        new.table = [m.copy() for m in self.table]
        mapping = {id(old): nm for old, nm in zip(self.table, new.table)}
        new.seat_melds = [[mapping[id(m)] for m in ms] for ms in self.seat_melds]
        new.opened = list(self.opened)
        new.opening_runs = list(self.opening_runs)
        new.buy_queue = list(self.buy_queue)
        new.scores = list(self.scores)
        new.round_results = list(self.round_results)  # a move only appends a new dict: ``clone`` copies them too
        return new

    def clone(self) -> ContractState:
        """An independent deep copy (generator included)."""
        new = self._copy_table_state()
        new.round_results = copy_round_results(self.round_results)
        new.history = list(self.history)
        new.rng = copy_rng(self.rng)
        new._legal = list(self._legal) if self._legal is not None else None
        return new

    def _probe(self) -> ContractState:
        """A throw-away clone to try one action on (``_keeping_placeable``): what ``_dispatch`` can change is copied,
        the history is shared (only ``apply`` extends it) and the generator is copied only if the probe draws from
        it (a round that ends in the probe deals the next one); its legal actions are recomputed."""
        new = self._copy_table_state()
        rng = self.rng
        new.rng = _LazyRng(rng._source if type(rng) is _LazyRng and rng._copy is None else rng)
        new._legal = None
        return new

    def resample_hidden(self, seat: int, rng: Any) -> ContractState:
        """A clone in which every card ``seat`` cannot see is redealt at random (``rng``: a numpy Generator).

        Hidden = the stock order and the opponents' cards that are not publicly known to be in their hands; hand
        sizes, known cards, the table and the piles' public parts stay. ``seat``'s observation must not change.
        What is public about the mover's hand stays true (an opening in progress can be completed, a deep-pickup
        card can reach the table): his hidden cards are redrawn until he has a legal action, at most 100 times,
        else he keeps them.
        """
        mover = self.current_player
        for _ in range(100):
            new = self._resampled(seat, rng, keep=-1)
            if mover < 0 or mover == seat or new.legal_actions():
                return new
        return self._resampled(seat, rng, keep=mover)

    def _resampled(self, seat: int, rng: Any, keep: int) -> ContractState:
        return redeal_hidden(self.clone(), seat, rng, keep)

    def action_info(self, action: int) -> dict[str, Any]:
        """Structured description of ``action`` for the player to move (schema: the action tables of docs/environments/)."""
        return _action_info(self, action)

    def describe_action(self, action: int) -> str:
        """Readable description, e.g. ``buy Q♥ (+ penalty card)`` or ``lay off 8♥ on seat 2's run 5♥–7♥ (high end)``."""
        return _describe_action(self, action)

    def to_json(self) -> dict[str, Any]:
        """The state in the scenario format (docs/guides/engine.md, "JSON state"); ``load_state`` gives back an identical state."""
        return dump_scenario(self)

    def check_invariants(self) -> None:
        """Raise ``AssertionError`` if the state breaks an accounting invariant (used by tests and fuzzers)."""
        assert (self._final, self._contract) == (self.final_round, self.contract), "the round's facts (_clear_round)"
        total = [0] * NUM_KINDS
        for p in range(self.n):
            assert sum(self.hands[p]) == self.hand_size[p], f"hand size of seat {p}"
            for k in range(NUM_KINDS):
                assert self.hands[p][k] >= 0
                assert 0 <= self.known[p][k] <= self.hands[p][k], f"known cards of seat {p}"
                total[k] += self.hands[p][k]
        for k in self.stock:
            total[k] += 1
        for k in self.discard:
            total[k] += 1
        for m in self.table:
            for k in m.cards:
                total[k] += 1
            assert meld_problem(m, self.rules) is None, f"invalid meld {m}"
        assert total == self.copies, "every physical card is accounted for exactly once"
        if self.phase != GAME_OVER:
            assert self.legal_actions(), "the player to move has a legal action"


class _LazyRng:
    """The generator of a probe clone (``ContractState._probe``): a copy of ``source`` made on first use, so a probe
    that never draws costs no copy. Exact as long as ``source`` does not move before that first use: a probe is tried
    and dropped while its source state waits."""

    __slots__ = ("_source", "_copy")

    def __init__(self, source: Any):
        self._source = source
        self._copy: Any = None

    def __getattr__(self, name: str) -> Any:
        if self._copy is None:
            self._copy = copy_rng(self._source)
        return getattr(self._copy, name)


#: the ranges whose actions change the table melds (``_dispatch`` then drops the table snapshot of the views)
_TABLE_KINDS = frozenset(("meld", "lay_off", "swap_joker", "place_joker", "go_out"))

def _apply_pickup(st: ContractState, action: int) -> None:
    st._deep_pickup(action - st.layout.PICKUP + 2)


def _apply_buy(st: ContractState, action: int) -> None:
    st._apply_buy(True)


def _apply_pass(st: ContractState, action: int) -> None:
    st._apply_buy(False)


#: how each range of the action table is applied (``ContractState._dispatch``), as ``handler(state, action)``:
#: the methods themselves where they take the action (the draws and going out ignore it), a module-level function
#: where the action id is translated first (never a lambda: the layout holding these pickles)
_APPLY: dict[str, Callable[[ContractState, int], None]] = {
    "draw_stock": ContractState._decline_discard,
    "draw_discard": ContractState._take_discard,
    "pickup": _apply_pickup,
    "buy": _apply_buy,
    "pass": _apply_pass,
    "meld": ContractState._declare_meld,
    "lay_off": ContractState._lay_off,
    "swap_joker": ContractState._swap_joker,
    "place_joker": ContractState._place_joker,
    "discard": ContractState._discard,
    "go_out": ContractState._go_out_final,
}


def _check_rounds(rules: ContractRules, rounds: Any) -> tuple[int, ...]:
    """The rounds a session plays: all (None), the first N (an int, the session length every profile accepts) or
    the given round numbers (a sequence)."""
    if rounds is None:
        return tuple(range(1, rules.num_rounds + 1))
    if isinstance(rounds, int) and not isinstance(rounds, bool):
        if not 1 <= rounds <= rules.num_rounds:
            raise ValueError(f"rounds={rounds!r}: expected a number of rounds 1..{rules.num_rounds} or a sequence "
                             f"of round numbers")
        return tuple(range(1, rounds + 1))
    try:
        out = tuple(int(r) for r in rounds)
    except (TypeError, ValueError):
        raise ValueError(f"rounds={rounds!r}: expected a sequence of round numbers 1..{rules.num_rounds}") from None
    if not out or any(not 1 <= r <= rules.num_rounds for r in out):
        raise ValueError(f"rounds={rounds!r}: expected a non-empty sequence of round numbers 1..{rules.num_rounds}")
    return out


def load_state(data: dict[str, Any], rules: ContractRules, seed: int | None = None) -> ContractState:
    """Build a state from the JSON scenario format (``rummy_env.engine.contract_scenario.load_scenario``: every
    key checked, the position one the rules can reach); omitted piles are shuffled from the unplaced cards."""
    return load_scenario(data, rules, seed, blank=_blank_state)


def _blank_state(rules: ContractRules) -> ContractState:
    """An uninitialised state of ``rules`` with its action table, for ``load_scenario`` to fill."""
    st = ContractState.__new__(ContractState)
    st.rules = rules
    st.layout = layout_for(rules)
    return st


register_view(ContractState, contract_view)  # ``state.public_view(seat)``, ``engine.view.view_builder``


__all__ = [
    "ContractState",
    "load_state",
    "layout_for",
    "PHASES",
    "DRAW",
    "BUY",
    "ACT",
    "OPENING",
    "PLACE_JOKER",
    "GAME_OVER",
    "END_REASONS",
    "RANKS",
    "SUITS",
    "SUIT_SYMBOLS",
    "pos_text",
]
