"""Rules engine of the Contract Rummy family (profile ``contract``, document 000, spec A.1/A.2).

The state is plain data (counts per card kind, lists for the piles, ``Meld`` objects on the table) in the shape
of OpenSpiel's game/state split: ``current_player``, ``phase``, ``legal_actions()``, ``apply(action)``,
``is_terminal()``, ``returns()``, ``clone()``. Actions are ids of the profile's fixed table
(``rummy_env.engine.actions.ActionLayout``). Each phase has one function that lists its legal actions and one
that applies them:

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
"""

from __future__ import annotations

import copy
from typing import Any

from ..core.cards import (
    JOKER,
    NUM_KINDS,
    NUM_RANKS,
    PENALTY,
    RANKS,
    SUIT_SYMBOLS,
    SUITS,
    Shoe,
    card_str,
)
from ..core.melds import (
    GROUP,
    MAX_POS,
    RUN,
    Meld,
    _run_conflicts,
    can_make_contract,
    final_partition,
    group_spec_meld,
    joker_place_fits,
    lay_off,
    layoff_fits,
    parse_meld,
    pos_kind,
    pos_text,
    run_spec_cards,
)
from ..rules.contract import ContractRules
from .actions import ActionLayout
from .common import (
    EngineState,
    ScenarioError,
    _sym_s,
    bool_field,
    card_or_none,
    check_scenario,
    int_field,
    is_int,
    list_field,
    load_cards,
    load_known,
    load_round_results,
    load_scores,
    make_rng,
    redeal_hidden,
    rng_from_json,
    rng_to_json,
    seat_value,
    shuffled,
)

DRAW = "draw"
BUY = "buy"
ACT = "act"
OPENING = "opening"
PLACE_JOKER = "place_joker"
GAME_OVER = "game_over"
PHASES = (DRAW, BUY, ACT, OPENING, PLACE_JOKER, GAME_OVER)

_LAYOUTS: dict[tuple[ContractRules, int], ActionLayout] = {}


def layout_for(rules: ContractRules) -> ActionLayout:
    """The (cached) action table of a rules object."""
    key = (rules, rules.num_players)
    lay = _LAYOUTS.get(key)
    if lay is None:
        # B.1-6: one pickup action per depth 2..(largest pile the shoe allows)
        depths = rules.decks * 52 + rules.jokers - 1 if rules.deep_pickup else 0
        lay = _LAYOUTS[key] = ActionLayout(rules, pickup_depths=depths)
    return lay


class ContractState(EngineState):
    """A Contract Rummy session in progress: one seeded game, all its rounds."""

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
        return self.rules.is_final_all_at_once(self.round)

    def _clear_round(self) -> None:
        n = self.n
        self.hands = [[0] * NUM_KINDS for _ in range(n)]
        self.hand_size = [0] * n
        self.known = [[0] * NUM_KINDS for _ in range(n)]
        self.table: list[Meld] = []
        self.seat_melds: list[list[Meld]] = [[] for _ in range(n)]
        self.opened = [False] * n
        self.opened_this_turn = False
        self.turn = 0
        self.taken_kind = -1
        self.taken_pending = False
        self.must_place = -1
        self.opening_left: tuple[int, int] | None = None
        self.opening_runs: list[tuple[int, int, int]] = []
        self.buy_queue: list[int] = []
        self.last_buyer = -1
        self.rigged = False  # a loaded position whose hands need not come from a deal (cleared by the next deal)
        self.stock: list[int] = []
        self.discard: list[int] = []

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
        self.current = self.active
        self.turn = 1

    # ----------------------------------------------------------------------------------------------------------
    # Queries
    # ----------------------------------------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        """Seat whose decision it is (-1 when the session is over)."""
        return self.current

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
        out: list[int] = []
        for k, c in enumerate(self.hands[seat]):
            if c:
                out.extend([k] * c)
        return out

    def penalty(self, seat: int) -> int:
        """Penalty of the cards in ``seat``'s hand (A.1-15)."""
        h = self.hands[seat]
        return sum(PENALTY[k] * c for k, c in enumerate(h) if c)

    # ----------------------------------------------------------------------------------------------------------
    # Legal actions
    # ----------------------------------------------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        """Sorted ids of the actions the player to move may take (empty when the game is over)."""
        if self._legal is None:
            phase = self.phase
            if phase == DRAW:
                acts = self._legal_draw()
            elif phase == BUY:
                acts = [self.layout.BUY, self.layout.PASS] if self._buy_possible() else [self.layout.PASS]
            elif phase == ACT:
                acts = self._legal_act()
            elif phase == OPENING:
                g, r = self.opening_left  # type: ignore[misc]
                acts = self._meld_candidates(g, r)
                if self.must_place >= 0:
                    acts = self._keeping_placeable(acts)
            elif phase == PLACE_JOKER:
                acts = self._legal_place()
                if self.must_place >= 0:  # B.2-10: the joker may not take the deep-pickup card's only place
                    acts = self._keeping_placeable(acts)
            else:
                acts = []
            acts.sort()
            self._legal = acts
        return self._legal

    def _legal_draw(self) -> list[int]:
        lay = self.layout
        if not self.discard:
            return [lay.DRAW_STOCK]
        acts = [lay.DRAW_STOCK, lay.DRAW_DISCARD]
        if self.rules.deep_pickup:
            for depth in range(2, len(self.discard) + 1):
                if self._pickup_placeable(depth):
                    acts.append(lay.PICKUP + depth - 2)
        return acts

    def _pickup_placeable(self, depth: int) -> bool:
        """B.1-6 / B.2-10: a deep pickup is offered only if the chosen card can reach the table this turn."""
        p = self.active
        hand = self.hands[p]
        picked = self.discard[-depth:]
        for k in picked:
            hand[k] += 1
        self.hand_size[p] += depth
        try:
            return self._placeable(self.discard[-depth])
        finally:
            for k in picked:
                hand[k] -= 1
            self.hand_size[p] -= depth

    def _placeable(self, c: int) -> bool:
        """Can the active player still put a card of kind ``c`` (in hand) on the table during this turn?"""
        p = self.active
        hand = self.hands[p]
        rules = self.rules
        if self.final_round:
            return self._final_layout(keep=c) is not None
        if not self.opened[p]:
            g, r = self.opening_left if self.opening_left else self.contract
            declared = tuple(self.opening_runs)
            if not can_make_contract(hand, g, r, rules, declared):
                return False  # the card can only reach the table after an opening
            if self._in_some_contract_meld(c, g, r, declared):
                return True
            if rules.extra_melds_after_opening and rules.layoff_on_opening_turn and self._extra_meld_with(c, g, r, declared):
                return True  # in a new meld right after the opening
            # or laid off (through a chain of hand cards) on a table meld right after the opening
            for meld in self.table:
                for chain in self._chains(meld, c):
                    if self._rest_ok(hand, chain + [c], 0, g, r, declared):
                        return True
            return False
        if self.opened_this_turn and not rules.layoff_on_opening_turn:
            return False
        for meld in self.table:
            if self._chains(meld, c):
                return True
        if rules.extra_melds_after_opening and self._extra_meld_with(c):
            return True
        if not self.opened_this_turn and c != JOKER:
            for meld in self.table:
                if meld.kind == RUN and meld.suit == c // NUM_RANKS:
                    for i, k in enumerate(meld.cards):
                        if (
                            k == JOKER
                            and pos_kind(meld.suit, meld.low + i) == c
                            and self._may_swap(meld, meld.low + i)
                            and self._joker_placeable()
                        ):
                            return True
        return False

    def _may_swap(self, meld: Meld, pos: int) -> bool:
        """``swap_only_others_jokers`` (003: "if another player uses a joker in a run"): the joker at ``pos`` was
        placed by another player; otherwise any joker of a run may be swapped."""
        return not self.rules.swap_only_others_jokers or meld.placers.get(pos, meld.owner) != self.active

    def _chains(self, meld: Meld, c: int) -> list[list[int]]:
        """Hand cards (other than one ``c``) that would carry a lay-off of ``c`` onto ``meld``, one list per way."""
        hand = self.hands[self.active]
        rules = self.rules
        if meld.kind == GROUP:
            return [[]] if layoff_fits(meld, c, 0, rules) else []
        out = []
        targets = []
        if c == JOKER:
            if meld.low > 1:
                targets.append(meld.low - 1)
            if meld.high < MAX_POS:
                targets.append(meld.high + 1)
        elif c // NUM_RANKS == meld.suit:
            rank = c % NUM_RANKS + 1
            targets = [1, MAX_POS] if rank == 1 else [rank]
        hand[c] -= 1
        try:
            for pos in targets:
                if meld.low <= pos <= meld.high:
                    continue
                between = range(meld.high + 1, pos) if pos > meld.high else range(pos + 1, meld.low)
                need: list[int] = []
                used: dict[int, int] = {}
                jokers = hand[JOKER]
                ok = True
                for q in between:
                    k = pos_kind(meld.suit, q)
                    if hand[k] - used.get(k, 0) > 0:
                        used[k] = used.get(k, 0) + 1
                        need.append(k)
                    elif jokers > 0:
                        jokers -= 1
                        need.append(JOKER)
                    else:
                        ok = False
                        break
                if ok:
                    out.append(need)
        finally:
            hand[c] += 1
        return out

    def _in_some_contract_meld(self, c: int, g: int, r: int, declared: tuple) -> bool:
        """Is there a way to finish the opening (``g`` groups, ``r`` runs still owed) with ``c`` in one of its melds?"""
        rules = self.rules
        hand = self.hands[self.active]
        jokers = hand[JOKER]
        if c == JOKER:
            return bool(g or r) and jokers > 0 and can_make_contract(hand, g, r, rules, declared)
        rank, suit = c % NUM_RANKS + 1, c // NUM_RANKS
        if g:
            size = rules.group_min
            avail = [hand[s * NUM_RANKS + rank - 1] for s in range(4)]
            avail[suit] -= 1
            for j in range(0, min(size - 1, jokers) + 1):
                for suits in _sub_multisets(avail, size - 1 - j, rules.group_distinct_suits):
                    if rules.group_distinct_suits and suit in suits:
                        continue
                    used = [c] + [s * NUM_RANKS + rank - 1 for s in suits]
                    if self._rest_ok(hand, used, j, g - 1, r, declared):
                        return True
        if r:
            size = rules.run_min
            positions = [1, MAX_POS] if rank == 1 else [rank]
            for pos in positions:
                for low in range(max(1, pos - size + 1), min(pos, MAX_POS - size + 1) + 1):
                    high = low + size - 1
                    if _run_conflicts(suit, low, high, list(declared), rules):
                        continue
                    used = [c]
                    nj = 0
                    for q in range(low, high + 1):
                        if q == pos:
                            continue
                        k = pos_kind(suit, q)  # never c itself: a window of 3 cannot hold both ace positions
                        if hand[k] - used.count(k) > 0:
                            used.append(k)
                        else:
                            nj += 1
                    if nj <= jokers and self._rest_ok(hand, used, nj, g, r - 1, declared + ((suit, low, high),)):
                        return True
        return False

    def _discardable(self, kind: int) -> bool:
        """A.2-4: the card taken from the discard pile this turn may not be discarded (another copy may)."""
        c = self.hands[self.active][kind]
        if c == 0 or self.must_place >= 0:
            return False  # B.2-10: no discard while the deep-pickup card is not on the table
        return not (self.rules.forbid_rediscard and kind == self.taken_kind and self.taken_pending and c == 1)

    def _can_spare(self, kind: int) -> bool:
        """A.1-12: after playing ``kind`` to the table the hand still holds a card that may be discarded."""
        size = self.hand_size[self.active] - 1
        banned = 1 if (self.rules.forbid_rediscard and self.taken_pending and kind != self.taken_kind) else 0
        if not self.rules.keep_card_for_discard:
            # B.1-10: an emptied hand goes out; otherwise a discardable card (or a further lay-off) must remain
            return size == 0 or size - banned >= 1 or self.must_place >= 0
        return size - banned >= 1

    def _legal_act(self) -> list[int]:
        lay = self.layout
        p = self.active
        hand = self.hands[p]
        acts: list[int] = []
        if self.final_round:
            if self.rules.final_round_all_at_once and self._final_layout() is not None:
                acts.append(lay.GO_OUT)
        elif not self.opened[p]:
            g, r = self.contract
            acts.extend(self._meld_candidates(g, r))
        elif not self.opened_this_turn or self.rules.layoff_on_opening_turn:
            acts.extend(self._layoff_actions())
            if not self.opened_this_turn:  # A.1-11 / B.1-9: swaps only after an opening on an earlier turn
                acts.extend(self._swap_actions())
            if self.rules.extra_melds_after_opening:  # new melds from the hand, when lay-offs are allowed
                acts.extend(self._extra_meld_actions())
        elif not self.rules.exact_minimum_opening:
            # melds longer than the minimum: the opening's own melds may be extended in the opening turn
            acts.extend(self._layoff_actions(own_only=True))
        for k in range(NUM_KINDS):
            if hand[k] and self._discardable(k):
                acts.append(lay.DISCARD + k)
        if self.must_place >= 0:
            acts = self._keeping_placeable(acts)
        return acts

    def _keeping_placeable(self, acts: list[int]) -> list[int]:
        """B.2-10: after a deep pickup, only actions after which the chosen card can still reach the table."""
        c = self.must_place
        out = []
        for a in acts:
            t = self.clone()
            t._legal = None
            t._dispatch(a)
            if t.must_place < 0 or t.phase != ACT and t.phase != OPENING and t.phase != PLACE_JOKER:
                out.append(a)
            elif t.phase == PLACE_JOKER:
                if t._keeping_placeable(t._legal_place()):  # a swap: some placement of the joker must keep c
                    out.append(a)
            elif t._placeable(c):
                out.append(a)
        return out

    def _final_partition(self) -> list[tuple[int, int, list[int]]] | None:
        g, r = self.contract
        if g:
            return None  # only all-runs final rounds exist in this family
        return final_partition(self.hands[self.active], r, self.rules)

    def _final_layout(self, keep: int = -1) -> tuple[list[tuple[int, int, list[int]]], int] | None:
        """How the active player goes out in the final round: (runs, discarded kind or -1), or None.

        The whole hand as the contract's runs; with ``final_round_discard`` also every card but one that may be
        discarded (not the card taken from the discard pile, A.2-4 / B.1-6, nor ``keep`` or the deep-pickup card,
        which must reach the table). The round ends either way, so which card is discarded changes nothing: the
        lowest kind that works is taken.
        """
        parts = self._final_partition()
        if parts is not None:
            return parts, -1
        g, r = self.contract
        if not self.rules.final_round_discard or g:
            return None
        hand = self.hands[self.active]
        for k in range(NUM_KINDS):
            if not hand[k] or (hand[k] == 1 and k in (keep, self.must_place)):
                continue
            if self.rules.forbid_rediscard and k == self.taken_kind and self.taken_pending and hand[k] == 1:
                continue
            hand[k] -= 1
            try:
                parts = final_partition(hand, r, self.rules)
            finally:
                hand[k] += 1
            if parts is not None:
                return parts, k
        return None

    def _can_spare_cards(self, cards: list[int]) -> bool:
        """``_can_spare`` for several cards played together (a new meld after the opening)."""
        size = self.hand_size[self.active] - len(cards)
        t = self.taken_kind
        banned = 1 if (self.rules.forbid_rediscard and self.taken_pending and t not in cards) else 0
        if not self.rules.keep_card_for_discard:
            return size == 0 or size - banned >= 1 or self.must_place >= 0
        return size - banned >= 1

    def _extra_meld_actions(self) -> list[int]:
        """``extra_melds_after_opening``: every catalog meld the hand holds (a set or run of any kind), if a
        discardable card remains (or, B.1-10, the hand empties and goes out)."""
        lay = self.layout
        hand = self.hands[self.active]
        out = []
        for i, need in enumerate(lay.meld_needs):
            if all(hand[k] >= c for k, c in need) and self._can_spare_cards(lay.meld_kinds[i]):
                out.append(lay.MELD + i)
        return out

    def _extra_meld_with(self, c: int, g: int = 0, r: int = 0, declared: tuple = ()) -> bool:
        """``extra_melds_after_opening``: can ``c`` go into a new meld from the hand (after the ``g`` groups and
        ``r`` runs still owed by the opening, if any)?  A longer meld holding ``c`` always contains a catalog meld
        holding it, so the catalog is enough."""
        lay = self.layout
        hand = self.hands[self.active]
        for i, need in enumerate(lay.meld_needs):
            if c not in lay.meld_kinds[i] or not all(hand[k] >= n for k, n in need):
                continue
            if not (g or r):
                return True
            for k, n in need:
                hand[k] -= n
            try:
                ok = can_make_contract(hand, g, r, self.rules, declared)
            finally:
                for k, n in need:
                    hand[k] += n
            if ok:
                return True
        return False

    def _meld_candidates(self, g: int, r: int) -> list[int]:
        """Catalog melds legal now: in hand, of a kind still owed, and the rest of the contract stays makeable."""
        rules = self.rules
        lay = self.layout
        hand = self.hands[self.active]
        declared = tuple(self.opening_runs)
        if not can_make_contract(hand, g, r, rules, declared):
            return []
        # A.1-12: after the whole opening a card must remain that may be discarded
        remaining = self.hand_size[self.active] - g * rules.group_min - r * rules.run_min
        if remaining < (1 if rules.keep_card_for_discard else 0):
            return []
        # A.1-12 + A.2-4: if only one card will remain, the opening must use the card taken from the discard pile
        # (else that last card could not be discarded and the player would be stuck)
        self._opening_needs_taken = (
            rules.keep_card_for_discard and rules.forbid_rediscard and self.taken_pending and remaining == 1
        )
        jokers = hand[JOKER]
        out: list[int] = []
        if g:
            size = rules.group_min
            for rank in range(1, NUM_RANKS + 1):
                avail = [hand[s * NUM_RANKS + rank - 1] for s in range(4)]
                if sum(avail) + jokers < size:
                    continue
                for j in range(0, min(size, jokers) + 1):
                    for suits in _sub_multisets(avail, size - j, rules.group_distinct_suits):
                        ids = lay.group_ids.get((rank, suits, j))
                        if not ids:
                            continue
                        used = [s * NUM_RANKS + rank - 1 for s in suits]
                        if self._opening_rest_ok(hand, used, j, g - 1, r, declared):
                            # B.1-3: one action per choice of the suits the jokers stand for
                            out.extend(lay.MELD + i for i in ids)
        if r:
            size = rules.run_min
            full = (1 << size) - 1
            for suit in range(4):
                for low in range(1, MAX_POS - size + 2):
                    present = 0
                    for i in range(size):
                        if hand[pos_kind(suit, low + i)]:
                            present |= 1 << i
                    must = full & ~present  # positions that need a joker
                    if bin(must).count("1") > jokers:
                        continue
                    high = low + size - 1
                    if self._run_conflicts_opening(suit, low, high):
                        continue
                    sub = present
                    while True:
                        mask = must | (present & ~sub)  # jokers where the hand lacks the card, and optionally more
                        nj = bin(mask).count("1")
                        idx = lay.run_index.get((suit, low, mask)) if nj <= jokers else None
                        if idx is not None:
                            used = [pos_kind(suit, low + i) for i in range(size) if not mask >> i & 1]
                            if self._opening_rest_ok(hand, used, nj, g, r - 1, declared + ((suit, low, high),)):
                                out.append(lay.MELD_RUN + idx)
                        if sub == 0:
                            break
                        sub = (sub - 1) & present
        return out

    def _run_conflicts_opening(self, suit: int, low: int, high: int) -> bool:
        rules = self.rules
        for s, lo, hi in self.opening_runs:
            if s != suit:
                continue
            if rules.opening_runs_distinct_suits:
                return True
            if rules.forbid_adjacent_same_suit_runs and (lo == high + 1 or low == hi + 1):
                return True
        return False

    def _opening_rest_ok(self, hand: list[int], used: list[int], jokers: int, g: int, r: int, declared) -> bool:
        """``_rest_ok`` for an opening meld, also requiring (when needed) that the taken card goes into the opening."""
        t = self.taken_kind
        if not self._opening_needs_taken or t in used or (t == JOKER and jokers):
            return self._rest_ok(hand, used, jokers, g, r, declared)
        if g == 0 and r == 0:
            return False
        for k in used:
            hand[k] -= 1
        hand[JOKER] -= jokers
        try:
            return self._in_some_contract_meld(t, g, r, declared)
        finally:
            for k in used:
                hand[k] += 1
            hand[JOKER] += jokers

    def _rest_ok(self, hand: list[int], used: list[int], jokers: int, g: int, r: int, declared) -> bool:
        if g == 0 and r == 0:
            return True
        for k in used:
            hand[k] -= 1
        hand[JOKER] -= jokers
        ok = can_make_contract(hand, g, r, self.rules, declared)
        for k in used:
            hand[k] += 1
        hand[JOKER] += jokers
        return ok

    def _layoff_actions(self, own_only: bool = False) -> list[int]:
        lay = self.layout
        p = self.active
        hand = self.hands[p]
        rules = self.rules
        out: list[int] = []
        for owner in (p,) if own_only else range(self.n):
            for idx, meld in enumerate(self.seat_melds[owner]):
                slot = lay.slot(p, owner, idx)
                if meld.kind == GROUP:
                    cands = [(s * NUM_RANKS + meld.rank - 1, 0) for s in range(4)] + [(JOKER, 0)]
                else:
                    cands = []
                    if meld.low > 1:
                        cands += [(pos_kind(meld.suit, meld.low - 1), 0), (JOKER, 0)]
                    if meld.high < MAX_POS:
                        cands += [(pos_kind(meld.suit, meld.high + 1), 1), (JOKER, 1)]
                for kind, end in cands:
                    if (
                        hand[kind]
                        and layoff_fits(meld, kind, end, rules)
                        and (self._can_spare(kind) or self._taken_follows(meld, kind, end))
                    ):
                        out.append(lay.lay_off(kind, slot, end))
        return out

    def _taken_follows(self, meld: Meld, kind: int, end: int) -> bool:
        """B.1-10: a lay-off may leave only the (undiscardable) card taken from the discard pile when that card can
        then be laid off too, emptying the hand (e.g. 3S then the taken 2S onto 4S-5S-6S)."""
        t = self.taken_kind
        hand = self.hands[self.active]
        if self.rules.keep_card_for_discard or not self.taken_pending or self.hand_size[self.active] != 2:
            return False
        if kind == t or hand[t] != 1:
            return False
        after = meld.copy()
        lay_off(after, kind, end, self.rules)
        for m in self.table:
            target = after if m is meld else m
            for e in (0, 1) if target.kind == RUN else (0,):
                if layoff_fits(target, t, e, self.rules):
                    return True
        return False

    def _joker_placeable(self) -> bool:
        for meld in self.table:
            if joker_place_fits(meld, 0, self.rules) or (meld.kind == RUN and joker_place_fits(meld, 1, self.rules)):
                return True
        return False

    def _swap_actions(self) -> list[int]:
        """A.1-11: swap a natural for a joker in a run, only if the freed joker can then be placed (A.2-8)."""
        lay = self.layout
        p = self.active
        hand = self.hands[p]
        out: list[int] = []
        placeable: bool | None = None
        for owner in range(self.n):
            for idx, meld in enumerate(self.seat_melds[owner]):
                if meld.kind != RUN:
                    continue
                for i, k in enumerate(meld.cards):
                    if k != JOKER:
                        continue
                    pos = meld.low + i
                    nat = pos_kind(meld.suit, pos)
                    if not hand[nat] or not self._can_spare(nat) or not self._may_swap(meld, pos):
                        continue
                    if placeable is None:
                        placeable = self._joker_placeable()
                    if placeable:
                        out.append(lay.swap(meld.suit, pos, lay.slot(p, owner, idx)))
        return out

    def _legal_place(self) -> list[int]:
        lay = self.layout
        p = self.active
        out = []
        for owner in range(self.n):
            for idx, meld in enumerate(self.seat_melds[owner]):
                slot = lay.slot(p, owner, idx)
                for end in (0, 1) if meld.kind == RUN else (0,):
                    if joker_place_fits(meld, end, self.rules):
                        out.append(lay.place(slot, end))
        return out

    # ----------------------------------------------------------------------------------------------------------
    # Applying actions
    # ----------------------------------------------------------------------------------------------------------
    def _dispatch(self, action: int) -> None:
        """Apply a legal action (no checks)."""
        self._legal = None
        lay = self.layout
        phase = self.phase
        if phase == DRAW:
            if action == lay.DRAW_DISCARD:
                self._take_discard()
            elif action == lay.DRAW_STOCK:
                self._decline_discard()
            else:
                self._deep_pickup(action - lay.PICKUP + 2)
        elif phase == BUY:
            self._apply_buy(action == lay.BUY)
        elif phase == PLACE_JOKER:
            slot, end = lay.decode_place(action)
            owner, idx = lay.slot_target(self.active, slot)
            # the freed joker is neither the card taken from the discard pile (A.2-4: a joker taken there stays
            # undiscardable) nor the deep-pickup card, nor a publicly known card of the hand
            keep = (self.taken_pending, self.must_place, self.known[self.active][JOKER])
            self._play_card(JOKER)
            self.taken_pending, self.must_place, self.known[self.active][JOKER] = keep
            lay_off(self.seat_melds[owner][idx], JOKER, end, self.rules, placer=self.active)
            self.phase = ACT
            self._out_if_empty()
        else:
            self._apply_act(action)

    # draw phase -------------------------------------------------------------------------------------------
    def _take_discard(self) -> None:
        """A.1-8a: take the discard top without penalty; no buying this turn."""
        p = self.active
        k = self.discard.pop()
        self.hands[p][k] += 1
        self.hand_size[p] += 1
        self.known[p][k] += 1
        self.taken_kind = k
        self.taken_pending = True
        self.phase = ACT
        self.current = p

    def _deep_pickup(self, depth: int) -> None:
        """B.1-6: take the card at ``depth`` and every card above it; the chosen card must reach the table."""
        p = self.active
        chosen = self.discard[-depth]
        picked = self.discard[-depth:]
        del self.discard[-depth:]
        for k in picked:
            self.hands[p][k] += 1
            self.known[p][k] += 1
        self.hand_size[p] += depth
        self.taken_kind = -1
        self.taken_pending = False
        self.must_place = chosen
        self.phase = ACT
        self.current = p

    def _decline_discard(self) -> None:
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
            self.current = self.buy_queue[0]
        else:
            self._active_draws_stock()

    def _window_seats(self) -> list[int]:
        """The seats a buy window asks, nearest in future turn order first (also what the loader derives)."""
        p = self.active
        seats = [
            (p + i) % self.n
            for i in range(1, self.n)
            if (p + i) % self.n != self.last_buyer or not self.rules.consecutive_buy_ban
        ]
        if not self.rules.discarder_may_buy:
            prev = (p - 1) % self.n
            seats = [s for s in seats if s != prev]
        return seats

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
                self.current = self.buy_queue[0]
            else:
                self._active_draws_stock()
            return
        # A.1-10: the buyer takes the discard top and the stock top as a penalty card
        k = self.discard.pop()
        self.hands[buyer][k] += 1
        self.hand_size[buyer] += 1
        self.known[buyer][k] += 1
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
        self.taken_kind = -1
        self.taken_pending = False
        self.phase = ACT
        self.current = p

    # act phase --------------------------------------------------------------------------------------------
    def _play_card(self, kind: int) -> None:
        """Move one card of ``kind`` from the active hand towards the table (public knowledge shrinks)."""
        p = self.active
        self.hands[p][kind] -= 1
        self.hand_size[p] -= 1
        if self.known[p][kind]:
            self.known[p][kind] -= 1
        if kind == self.taken_kind:
            self.taken_pending = False
        if kind == self.must_place:
            self.must_place = -1

    def _apply_act(self, action: int) -> None:
        lay = self.layout
        p = self.active
        if action >= lay.DISCARD and action < lay.DISCARD + NUM_KINDS:
            kind = action - lay.DISCARD
            self.hands[p][kind] -= 1
            self.hand_size[p] -= 1
            if self.known[p][kind]:
                self.known[p][kind] -= 1
            self.discard.append(kind)
            if self.hand_size[p] == 0:
                self._end_round(winner=p, reason="out")  # A.1-12: going out = discarding the last card
            else:
                self._next_turn()
        elif action == lay.GO_OUT:
            self._go_out_final()
        elif lay.MELD <= action < lay.LAY_OFF:
            self._declare_meld(action)
        elif lay.LAY_OFF <= action < lay.SWAP:
            kind, slot, end = lay.decode_lay_off(action)
            owner, idx = lay.slot_target(p, slot)
            self._play_card(kind)
            lay_off(self.seat_melds[owner][idx], kind, end, self.rules, placer=p)
            self._out_if_empty()
        else:
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
            self.opening_left = self.contract
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

    def _go_out_final(self) -> None:
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
        self.taken_kind = -1
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
        self.current = self.active

    def _blocked(self) -> bool:
        """Engine limit: nobody can ever go out (every seat is down, so no new meld can be made, and no card outside
        the table fits any meld, so no lay-off or joker swap will ever be possible; the hands only cycle)."""
        if not all(self.opened) or self.final_round:
            return False
        rules = self.rules
        outside = [0] * NUM_KINDS
        for h in self.hands:
            for k in range(NUM_KINDS):
                outside[k] += h[k]
        for k in self.stock:
            outside[k] += 1
        for k in self.discard:
            outside[k] += 1
        if rules.extra_melds_after_opening and (
            can_make_contract(outside, 1, 0, rules) or can_make_contract(outside, 0, 1, rules)
        ):
            return False  # the cards outside the table can still make a new meld
        for meld in self.table:
            for end in (0, 1) if meld.kind == RUN else (0,):
                if outside[JOKER] and layoff_fits(meld, JOKER, end, rules):
                    return False
                if meld.kind == GROUP:
                    for s in range(4):
                        k = s * NUM_RANKS + meld.rank - 1
                        if outside[k] and layoff_fits(meld, k, 0, rules):
                            return False
                else:
                    pos = meld.low - 1 if end == 0 else meld.high + 1
                    if 1 <= pos <= MAX_POS and outside[pos_kind(meld.suit, pos)]:
                        return False
            if meld.kind == RUN and JOKER in meld.cards:
                for i, k in enumerate(meld.cards):
                    if k == JOKER and outside[pos_kind(meld.suit, meld.low + i)]:
                        return False  # a swap could change the table
        return True

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
            self.current = -1
            self.buy_queue = []

    # ----------------------------------------------------------------------------------------------------------
    # Copying, descriptions, JSON
    # ----------------------------------------------------------------------------------------------------------
    def clone(self) -> ContractState:
        """An independent deep copy (generator included)."""
        new = copy.copy(self)
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
        new.round_results = copy.deepcopy(self.round_results)
        new.history = list(self.history)
        new.rng = copy.deepcopy(self.rng)
        new._legal = list(self._legal) if self._legal is not None else None
        return new

    def resample_hidden(self, seat: int, rng: Any) -> ContractState:
        """A clone in which every card ``seat`` cannot see is redealt at random (``rng``: a numpy Generator).

        Hidden = the stock order and the opponents' cards that are not publicly known to be in their hands; hand
        sizes, known cards, the table and the piles' public parts stay. ``seat``'s observation must not change.
        What is public about the mover's hand stays true (an opening in progress can be completed, a deep-pickup
        card can reach the table): his hidden cards are redrawn until he has a legal action, at most 100 times,
        else he keeps them.
        """
        mover = self.current
        for _ in range(100):
            new = self._resampled(seat, rng, keep=-1)
            if mover < 0 or mover == seat or new.legal_actions():
                return new
        return self._resampled(seat, rng, keep=mover)

    def _resampled(self, seat: int, rng: Any, keep: int) -> ContractState:
        return redeal_hidden(self.clone(), seat, rng, keep)

    def _meld_of_slot(self, slot: int) -> tuple[int, int, Meld | None]:
        owner, idx = self.layout.slot_target(self.current if self.current >= 0 else 0, slot)
        melds = self.seat_melds[owner]
        return owner, idx, (melds[idx] if idx < len(melds) else None)

    def action_info(self, action: int) -> dict[str, Any]:
        """Structured description of ``action`` for the player to move (schema in the README)."""
        lay = self.layout
        rng = lay.range_of(int(action))
        name = rng.name
        actor = self.current if self.current >= 0 else 0
        if name == "draw_stock":
            return {"kind": "draw_stock"}
        if name == "draw_discard":
            return {"kind": "draw_discard", "card": card_str(self.discard[-1]) if self.discard else None}
        if name == "pickup":
            depth = action - lay.PICKUP + 2
            card = card_str(self.discard[-depth]) if len(self.discard) >= depth else None
            return {"kind": "pickup", "depth": depth, "card": card}
        if name == "buy":
            return {"kind": "buy", "card": card_str(self.discard[-1]) if self.discard else None}
        if name == "pass":
            return {"kind": "pass"}
        if name == "meld":
            m = self._catalog_meld(action, actor)
            return {"kind": "meld", "meld": m.kind, "cards": m.card_strings()}
        if name == "lay_off":
            kind, slot, end = lay.decode_lay_off(action)
            owner, idx, meld = self._meld_of_slot(slot)
            end_s = None if (meld is not None and meld.kind == GROUP) else ("low" if end == 0 else "high")
            return {"kind": "lay_off", "card": card_str(kind), "seat": owner, "meld": idx, "end": end_s}
        if name == "swap_joker":
            suit, pos, slot = lay.decode_swap(action)
            owner, idx, _ = self._meld_of_slot(slot)
            return {
                "kind": "swap_joker",
                "card": card_str(pos_kind(suit, pos)),
                "seat": owner,
                "meld": idx,
                "position": pos,
            }
        if name == "place_joker":
            slot, end = lay.decode_place(action)
            owner, idx, meld = self._meld_of_slot(slot)
            end_s = None if (meld is not None and meld.kind == GROUP) else ("low" if end == 0 else "high")
            return {"kind": "place_joker", "seat": owner, "meld": idx, "end": end_s}
        if name == "discard":
            return {"kind": "discard", "card": card_str(action - lay.DISCARD)}
        return {"kind": "go_out"}

    def describe_action(self, action: int) -> str:
        """Readable description, e.g. ``buy Q♥ (+ penalty card)`` or ``lay off 8♥ on seat 2's run 5♥–7♥ (high end)``."""
        info = self.action_info(action)
        kind = info["kind"]
        if kind == "draw_stock":
            return "draw from the stock"
        if kind == "draw_discard":
            return f"take {_sym_s(info['card'])} from the discard pile"
        if kind == "pickup":
            return f"pick up the discard pile down to {_sym_s(info['card'])} (depth {info['depth']})"
        if kind == "buy":
            return f"buy {_sym_s(info['card'])} (+ penalty card)"
        if kind == "pass":
            return "pass (do not buy)"
        if kind == "meld":
            return f"declare {info['meld']} " + " ".join(_sym_s(c) for c in info["cards"])
        if kind in ("lay_off", "swap_joker", "place_joker"):
            _, _, meld = self._meld_of_slot(self.layout.slot(self.current, info["seat"], info["meld"]))
            where = f"seat {info['seat']}'s " + (meld.describe() if meld else f"meld {info['meld']} (not on the table)")
            if kind == "lay_off":
                end = f" ({info['end']} end)" if info["end"] else ""
                return f"lay off {_sym_s(info['card'])} on {where}{end}"
            if kind == "swap_joker":
                return f"swap {_sym_s(info['card'])} for the joker in {where}"
            end = f" ({info['end']} end)" if info["end"] else ""
            return f"place the freed joker on {where}{end}"
        if kind == "discard":
            return f"discard {_sym_s(info['card'])}"
        layout = self._final_layout() if self.phase == ACT and self.final_round else None
        if layout is not None and layout[1] >= 0:
            return f"go out: lay the hand as runs and discard {card_str(layout[1], symbols=True)}"
        return "go out: lay the whole hand as runs"

    def to_json(self) -> dict[str, Any]:
        """The state in the scenario format (README "JSON state"); ``load_state`` gives back an identical state."""
        n = self.n
        return {
            "profile": self.rules.name,
            "round": self.round,
            "dealer": self.dealer,
            "current_player": self.current,
            "phase": self.phase,
            "hands": [[card_str(k) for k in self.hand_cards(p)] for p in range(n)],
            "discard": [card_str(k) for k in reversed(self.discard)],
            "stock": [card_str(k) for k in reversed(self.stock)],
            "table": [m.to_json() for m in self.table],
            "opened": [p for p in range(n) if self.opened[p] and not (p == self.active and self.opened_this_turn)],
            "scores": list(self.scores),
            "active": self.active,
            "turn": self.turn,
            "opened_this_turn": self.opened_this_turn,
            "taken_discard": card_str(self.taken_kind) if self.taken_kind >= 0 else None,
            "taken_pending": self.taken_pending,
            "must_place": card_str(self.must_place) if self.must_place >= 0 else None,
            "opening_left": list(self.opening_left) if self.opening_left else None,
            "buy_queue": list(self.buy_queue),
            "last_buyer": self.last_buyer if self.last_buyer >= 0 else None,
            "known": [[card_str(k) for k in range(NUM_KINDS) for _ in range(self.known[p][k])] for p in range(n)],
            "rounds": list(self.rounds),
            "round_index": self.round_index,
            "round_results": copy.deepcopy(self.round_results),
            "num_players": n,
            "rng": rng_to_json(self.rng),
            **({"rigged": True} if self.rigged else {}),
        }

    def check_invariants(self) -> None:
        """Raise ``AssertionError`` if the state breaks an accounting invariant (used by tests and fuzzers)."""
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
            from ..core.melds import meld_problem

            assert meld_problem(m, self.rules) is None, f"invalid meld {m}"
        assert total == self.copies, "every physical card is accounted for exactly once"
        if self.phase != GAME_OVER:
            assert self.legal_actions(), "the player to move has a legal action"


def _sub_multisets(avail: list[int], size: int, distinct: bool) -> list[tuple[int, ...]]:
    """Sorted suit tuples of length ``size`` drawable from ``avail`` copies per suit."""
    out: list[tuple[int, ...]] = []
    cur: list[int] = []

    def rec(start: int) -> None:
        if len(cur) == size:
            out.append(tuple(cur))
            return
        for s in range(start, 4):
            used = cur.count(s)
            if used < avail[s] and (not distinct or used == 0):
                cur.append(s)
                rec(s)
                cur.pop()

    rec(0)
    return out


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


# --------------------------------------------------------------------------------------------------------------
# Loading a scenario / dumped state
# --------------------------------------------------------------------------------------------------------------


_SCENARIO_KEYS = frozenset({
    "profile", "round", "dealer", "current_player", "phase", "hands", "discard", "stock", "table", "opened",
    "scores", "active", "turn", "opened_this_turn", "taken_discard", "taken_pending", "must_place", "opening_left",
    "buy_queue", "last_buyer", "known", "rounds", "round_index", "round_results", "num_players", "rng", "rigged",
})  # fmt: skip
#: why a round ended (``round_results[i].reason``)
END_REASONS = ("out", "exhausted", "turn_cap", "blocked")
#: phases of a turn after its draw
_AFTER_DRAW = (ACT, OPENING, PLACE_JOKER)


def load_state(data: dict[str, Any], rules: ContractRules, seed: int | None = None) -> ContractState:
    """Build a state from the JSON scenario format; omitted piles are shuffled from the unplaced cards.

    Every key is type- and range-checked, and the position must be one the rules can reach (the checks the fuzzer
    makes on live states that one state allows): every card of the shoe exactly once, valid melds, an opened seat
    holds exactly its round's contract on the table, an unopened hand never below the cards dealt, no empty hand
    mid-round, the turn fields consistent with the phase, the buy window the engine would open. A bad scenario
    raises ``ScenarioError`` naming the key and what is allowed. ``"rigged": true`` marks a hand-made position whose
    hands need not come from a deal (short or empty hands); every other check still applies.
    """
    n = check_scenario(data, set(_SCENARIO_KEYS), rules)
    st = ContractState.__new__(ContractState)
    st.rules = rules
    st.layout = layout_for(rules)
    st.n = n
    st.shoe = Shoe(rules.decks, rules.jokers)
    st.copies = st.shoe.copies_list()
    st.seed = seed
    st.history = []
    st._legal = None
    phase = data.get("phase", DRAW)
    if not isinstance(phase, str) or phase not in PHASES:
        raise ScenarioError(f"'phase' must be one of {list(PHASES)}, got {phase!r}")
    if phase == BUY and not rules.buying:
        raise ScenarioError(f"'phase' 'buy' does not exist in profile {rules.name!r} (no buying)")
    _load_session(st, data, phase)
    st._clear_round()
    st.rigged = bool_field(data, "rigged", False)
    used = _load_table(st, data)
    load_cards(st, data, rules.name, used)
    st.phase = phase
    _load_turn(st, data)
    load_known(st, data)
    _check_position(st)
    if phase != GAME_OVER and not st.legal_actions():
        raise ScenarioError(f"the scenario leaves player {st.current} no legal action in phase '{phase}'")
    return st


def _load_session(st: ContractState, data: dict[str, Any], phase: str) -> None:
    """``round``, ``rounds``, ``round_index``, ``rng``, ``dealer``, ``scores``, ``round_results``."""
    rules, n = st.rules, st.n
    rnd = int_field(data, "round", 1, 1, rules.num_rounds)
    if "rounds" in data:
        rounds = data["rounds"]
        if (
            not isinstance(rounds, (list, tuple))
            or not rounds
            or not all(is_int(r) and 1 <= r <= rules.num_rounds for r in rounds)
        ):
            raise ScenarioError(
                f"'rounds' must be a non-empty list of round numbers 1..{rules.num_rounds}, got {rounds!r}"
            )
        st.rounds = tuple(rounds)
        st.round_index = int_field(data, "round_index", 0, 0, len(st.rounds) - 1)
        if st.rounds[st.round_index] != rnd:
            raise ScenarioError(f"'round' {rnd} must be rounds[round_index] = {st.rounds[st.round_index]}")
    else:
        st.rounds = tuple(range(rnd, rules.num_rounds + 1))
        if data.get("round_index", 0) != 0 or not is_int(data.get("round_index", 0)):
            raise ScenarioError(f"'round_index' must be 0 without 'rounds' (given: {data['round_index']!r})")
        st.round_index = 0
    if phase == GAME_OVER and st.round_index != len(st.rounds) - 1:
        raise ScenarioError(
            f"'phase' 'game_over' needs the last round of 'rounds' {list(st.rounds)}: 'round_index' "
            f"{len(st.rounds) - 1}, got {st.round_index}"
        )
    st.rng = rng_from_json(data["rng"]) if "rng" in data else make_rng(seed=st.seed)
    st.dealer = int_field(data, "dealer", 0, 0, n - 1)
    st.scores = load_scores(data, n, minimum=0)
    results = load_round_results(data, n, st.rounds, "penalties", END_REASONS, minimum=0)
    finished = st.round_index + (phase == GAME_OVER)
    if len(results) != finished:
        raise ScenarioError(
            f"'round_results' must hold one entry per finished round ({finished}: rounds {list(st.rounds[:finished])} "
            f"of 'rounds' {list(st.rounds)} before round_index {st.round_index}"
            f"{' and the last one at game over' if phase == GAME_OVER else ''}), got {len(results)}"
        )
    if results:
        sums = [sum(res["penalties"][p] for res in results) for p in range(n)]
        if sums != st.scores:
            raise ScenarioError(f"'scores' {st.scores} must be the sums {sums} of the 'round_results' penalties")
    st.round_results = results


def _load_table(st: ContractState, data: dict[str, Any]) -> list[int]:
    """The table melds (each valid, with a real seat as owner); the copies of each kind they hold."""
    used = [0] * NUM_KINDS
    for i, m in enumerate(list_field(data, "table", [])):
        if not isinstance(m, dict) or not {"owner", "kind", "cards"} <= set(m) <= {"owner", "kind", "cards", "placed_by"}:
            raise ScenarioError(f"'table[{i}]' must be a dict with keys owner, kind, cards (and optionally placed_by); got {m!r}")
        owner = seat_value(m["owner"], f"table[{i}].owner", st.n)
        try:
            meld = parse_meld(owner, m["kind"], m["cards"], st.rules, m.get("placed_by"), st.n)  # type: ignore[arg-type]
        except ValueError as exc:
            raise ScenarioError(f"'table[{i}]': {exc}") from None
        if len(st.seat_melds[owner]) >= st.rules.max_melds_per_seat:  # type: ignore[index]
            raise ScenarioError(f"'table[{i}]': seat {owner} has more than {st.rules.max_melds_per_seat} melds")
        st.table.append(meld)
        st.seat_melds[owner].append(meld)  # type: ignore[index]
        for k in meld.cards:
            used[k] += 1
    return used


def _load_turn(st: ContractState, data: dict[str, Any]) -> None:
    """Whose turn, the turn counter, who opened, the draw of this turn, an opening in progress, the buy window."""
    rules, n, phase = st.rules, st.n, st.phase
    if "active" in data:
        st.active = seat_value(data["active"], "active", n)  # type: ignore[assignment]
    elif phase not in (BUY, GAME_OVER) and "current_player" in data:
        st.active = seat_value(data["current_player"], "current_player", n)  # type: ignore[assignment]
    elif "turn" in data:
        st.active = (st.dealer + int_field(data, "turn", 1, 1)) % n
    else:
        st.active = (st.dealer + 1) % n
    # turn t of a round is played by the seat t places left of the dealer; at game over a turn-cap ending has
    # already counted the turn past the cap
    cap = rules.turn_cap + (1 if phase == GAME_OVER else 0)
    st.turn = int_field(data, "turn", (st.active - st.dealer - 1) % n + 1, 1, cap)
    if (st.dealer + st.turn) % n != st.active:
        raise ScenarioError(
            f"'turn' {st.turn} does not fit 'dealer' {st.dealer} and 'active' {st.active}: turn t of a round is "
            f"played by seat (dealer + t) mod {n}, here seat {(st.dealer + st.turn) % n}"
        )
    opened = list_field(data, "opened", [])
    for i, s in enumerate(opened):
        st.opened[seat_value(s, f"opened[{i}]", n)] = True  # type: ignore[index]
    if len(set(opened)) != len(opened):
        raise ScenarioError(f"'opened' must list each seat at most once, got {opened!r}")
    st.opened_this_turn = bool_field(data, "opened_this_turn", False)
    if st.opened_this_turn:
        st.opened[st.active] = True
    st.taken_kind = card_or_none(data, "taken_discard")
    st.taken_pending = bool_field(data, "taken_pending", st.taken_kind >= 0)
    st.must_place = card_or_none(data, "must_place")
    # an opening in progress: what is left follows from the contract and the active player's melds so far
    ol = data.get("opening_left")
    if phase == OPENING:
        mine = st.seat_melds[st.active]
        groups = sum(1 for m in mine if m.kind == GROUP)
        g, r = st.contract
        left = (g - groups, r - (len(mine) - groups))
        if st.opened[st.active] or not mine or min(left) < 0 or left == (0, 0):
            raise ScenarioError(
                f"phase 'opening' needs the active seat {st.active} not in 'opened' and part of its contract "
                f"({g} group(s), {r} run(s)) on the table; it has {groups} group(s), {len(mine) - groups} run(s)"
            )
        if ol is not None and (
            not isinstance(ol, (list, tuple)) or len(ol) != 2 or not all(is_int(x) for x in ol) or tuple(ol) != left
        ):
            raise ScenarioError(
                f"'opening_left' must be {list(left)} (the contract minus the active seat's melds on the table), "
                f"got {ol!r}"
            )
        st.opening_left = left
        st.opening_runs = [(m.suit, m.low, m.high) for m in mine if m.kind == RUN]
    elif ol is not None:
        raise ScenarioError(f"'opening_left' must be null outside phase 'opening', got {ol!r}")
    # the buy window
    lb = seat_value(data.get("last_buyer"), "last_buyer", n, allow_none=True)
    st.last_buyer = -1 if lb is None else lb
    queue = list_field(data, "buy_queue", [])
    for i, s in enumerate(queue):
        seat_value(s, f"buy_queue[{i}]", n)
    if phase == BUY:
        if st.last_buyer == st.active:
            raise ScenarioError(f"'last_buyer' {lb} is the active seat, who never buys (A.2-2)")
        window = st._window_seats()
        if "buy_queue" not in data:
            queue = window
        if not queue or queue != window[len(window) - len(queue) :]:
            raise ScenarioError(
                f"'buy_queue' must be a non-empty tail of the buy window {window} (the seats still to be asked, "
                f"nearest first, as the rules open it), got {queue!r}"
            )
        st.buy_queue = list(queue)
    elif queue:
        raise ScenarioError(f"'buy_queue' must be empty outside phase 'buy', got {queue!r}")
    if phase == GAME_OVER:
        st.current = -1
    elif phase == BUY:
        st.current = st.buy_queue[0]
    else:
        st.current = st.active
    if "current_player" in data and (not is_int(data["current_player"]) or data["current_player"] != st.current):
        raise ScenarioError(
            f"'current_player' must be {st.current} in phase '{phase}' (active {st.active}), "
            f"got {data['current_player']!r}"
        )


def _check_position(st: ContractState) -> None:
    """Refuse a position the rules cannot reach (checkable from this one state)."""
    rules, n, phase, a = st.rules, st.n, st.phase, st.active
    g, r = st.contract
    rnd = st.round
    deal = rules.hand_sizes[rnd - 1]
    playing = phase != GAME_OVER
    if st.final_round and playing and (st.table or any(st.opened)):
        raise ScenarioError(
            f"round {rnd} is gone out all at once (A.1-9): no seat is in 'opened' and the 'table' is empty until then"
        )
    for s in range(n):
        melds = st.seat_melds[s]
        groups = sum(1 for m in melds if m.kind == GROUP)
        if st.opened[s] and not melds:
            raise ScenarioError(f"seat {s} is in 'opened' but has no meld on the 'table'")
        runs = len(melds) - groups
        # extra_melds_after_opening: the opening's melds plus any new ones laid later
        fits = groups >= g and runs >= r if rules.extra_melds_after_opening else (groups, runs) == (g, r)
        if st.opened[s] and not st.rigged and not fits:
            raise ScenarioError(
                f"seat {s} is in 'opened' but has {groups} group(s) and {len(melds) - groups} run(s) on the 'table'; "
                f"an opening lays exactly the round {rnd} contract: {g} group(s) and {r} run(s)"
            )
        if melds and not st.opened[s] and not (s == a and phase == OPENING):
            raise ScenarioError(f"seat {s} has melds on the 'table' but is not in 'opened'")
        if st.rigged:
            continue
        if playing and st.hand_size[s] == 0:
            raise ScenarioError(
                f"'hands[{s}]' is empty in phase '{phase}': a hand that empties ends the round "
                '(for a hand-made position with short hands give "rigged": true)'
            )
        held = st.hand_size[s] + sum(len(m.cards) for m in melds)  # an opening in progress counts its melds
        if not st.opened[s] and held < deal:
            raise ScenarioError(
                f"'hands[{s}]' holds {st.hand_size[s]} card(s), but seat {s} has not opened: an unopened hand never "
                f"shrinks below the {deal} cards dealt in round {rnd} (drawing, buying and picking up only add) "
                '(for a hand-made position with short hands give "rigged": true)'
            )
    if phase in (DRAW, BUY):
        if st.taken_kind >= 0 or st.taken_pending or st.must_place >= 0 or st.opened_this_turn:
            raise ScenarioError(
                f"in phase '{phase}' the active seat has not drawn yet: 'taken_discard' and 'must_place' must be null, "
                "'taken_pending' and 'opened_this_turn' false"
            )
    if st.opened_this_turn and phase not in (ACT, GAME_OVER):
        raise ScenarioError(f"'opened_this_turn' must be false in phase '{phase}' (only 'act' follows an opening)")
    if st.taken_pending:
        if st.taken_kind < 0:
            raise ScenarioError("'taken_pending' true needs the card in 'taken_discard'")
        if not st.hands[a][st.taken_kind]:
            raise ScenarioError(
                f"'taken_discard' {card_str(st.taken_kind)} must be in the active seat's hand (hands[{a}]) while "
                "'taken_pending' is true (false once it is played)"
            )
    if st.must_place >= 0:
        if not rules.deep_pickup:
            raise ScenarioError(f"'must_place' must be null: profile {rules.name!r} has no deep pickups")
        if phase not in _AFTER_DRAW or st.taken_kind >= 0:
            raise ScenarioError(
                f"'must_place' (the deep-pickup card) exists only after a deep pickup: phase in {list(_AFTER_DRAW)} "
                f"and 'taken_discard' null; got phase '{phase}', taken_discard {card_str(st.taken_kind)}"
                if st.taken_kind >= 0
                else f"'must_place' exists only after a deep pickup: phase in {list(_AFTER_DRAW)}, got '{phase}'"
            )
        if not st.hands[a][st.must_place]:
            raise ScenarioError(
                f"'must_place' {card_str(st.must_place)} must be in the active seat's hand (hands[{a}])"
            )
    if phase == PLACE_JOKER:
        if not st.hands[a][JOKER]:
            raise ScenarioError(f"phase 'place_joker' needs the freed joker in the active seat's hand (hands[{a}])")
        if not st.opened[a] or st.opened_this_turn:
            raise ScenarioError(
                "phase 'place_joker' follows a joker swap, which needs an opening on an earlier turn: the active "
                f"seat {a} must be in 'opened' and 'opened_this_turn' false"
            )
    if phase == BUY and not st.discard:
        raise ScenarioError("phase 'buy' needs a card on the 'discard' pile")


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
    "RANKS",
    "SUITS",
    "SUIT_SYMBOLS",
    "pos_text",
]
