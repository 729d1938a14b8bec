"""The legal actions of a Contract Rummy state (``rummy_env.engine.contract.ContractState``): one method per phase
and the helpers they share (can a card still reach the table, which melds, lay-offs and joker swaps are open).

``ContractLegalActions`` is a mixin of ``ContractState``: its methods read the state's fields (``hands``,
``table``, ``seat_melds``, ``layout``, ``rules`` ...) and call the state's own ``_buy_possible``, ``_probe`` and
``_dispatch``; it imports nothing of ``engine.contract``. The pure rules it asks live in the rules layer
(``rules.contract_opening``, ``rules.contract_layoff``).
"""

from __future__ import annotations

from itertools import compress

from ..core.cards import JOKER
from ..core.melds import RUN, Meld, can_make_contract, joker_place_fits, pos_kind
from ..rules.contract_layoff import (
    fits_after_layoff,
    joker_placeable,
    layoff_chains,
    layoff_ids,
    layoff_reaches,
    may_swap,
    meld_ends,
    swap_takes,
)
from ..rules.contract_opening import (
    FinalLayout,
    extra_meld_with,
    final_layout,
    in_some_contract_meld,
    opening_melds,
    pickup_marks,
    rest_ok,
)
from .contract_phases import ACT, BUY, DRAW, GAME_OVER, OPENING, PLACE_JOKER


class ContractLegalActions:
    """The legal-action methods of ``ContractState`` (a mixin: every field it reads is the state's)."""

    def legal_actions(self) -> list[int]:
        """Sorted ids of the actions the player to move may take (empty when the game is over)."""
        if self._legal is None:
            phase = self.phase
            if phase == DRAW:
                acts = self._legal_draw()
                if not self.hand_size[self.active]:
                    acts = self._draws_leaving_a_move(acts)
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
        disc = self.discard
        if not disc:
            return [lay.DRAW_STOCK]
        acts = [lay.DRAW_STOCK, lay.DRAW_DISCARD]
        top = len(disc)
        if top < 2 or not self.rules.deep_pickup:
            return acts
        p = self.active
        marks = None
        if not self._final and not self.opened[p]:
            # before an opening the card is placeable only if the hand then makes the contract, which holds from the
            # least such depth on (more cards never unmake a contract); ``pickup_marks`` also says where the card is
            # in a meld of that contract (1), else (2) its other ways to the table are asked
            g, r = self.opening_left if self.opening_left else self._contract
            marks = pickup_marks(self.hands[p], disc, g, r, tuple(self.opening_runs), self.rules)
        # B.1-6 / B.2-10: a deep pickup is offered only if the chosen card can reach the table this turn, asked with
        # ``_placeable`` of the hand as it would be after taking the pile down to that depth: the pile's cards are
        # added to the hand from the top as far as the deepest depth asked so far, and all taken back after
        makeable = True if marks is not None else None
        hand, sizes = self.hands[p], self.hand_size
        size = sizes[p]
        added = 0
        try:
            for depth in range(2, top + 1):
                if marks is not None:
                    m = marks[depth]
                    if m != 2:
                        if m == 1:
                            acts.append(lay.PICKUP + depth - 2)
                        continue
                while added < depth:
                    added += 1
                    hand[disc[-added]] += 1
                sizes[p] = size + added
                if self._placeable(disc[-depth], makeable):
                    acts.append(lay.PICKUP + depth - 2)
        finally:
            for k in disc[top - added :]:
                hand[k] -= 1
            sizes[p] = size
        return acts

    def _draws_leaving_a_move(self, acts: list[int]) -> list[int]:
        """The draws after which the player has a legal action (or the round is over). Only a hand-made ("rigged")
        position has an empty hand at its draw: taking the discard top into it leaves only that card, which may
        not go straight back (A.2-4) and may fit nowhere; the stock draw always stays."""
        out = []
        for a in acts:
            t = self._probe()
            t._dispatch(a)
            if t.phase == GAME_OVER or t.round_index != self.round_index or t.legal_actions():
                out.append(a)
        return out

    def _placeable(self, c: int, makeable: bool | None = None) -> bool:
        """Can the active player still put a card of kind ``c`` (in hand) on the table during this turn?
        ``makeable``: whether a hand not yet down can make the contract owed, when the caller knows it."""
        p = self.active
        hand = self.hands[p]
        rules = self.rules
        if self._final:
            return self._final_layout(keep=c) is not None
        if not self.opened[p]:
            g, r = self.opening_left if self.opening_left else self._contract
            declared = tuple(self.opening_runs)
            if makeable is None:
                makeable = can_make_contract(hand, g, r, rules, declared)
            if not makeable:
                return False  # the card can only reach the table after an opening
            if in_some_contract_meld(hand, c, g, r, declared, rules):
                return True
            if (
                rules.extra_melds_after_opening
                and rules.layoff_on_opening_turn
                and extra_meld_with(hand, c, rules, self.layout, g, r, declared)
            ):
                return True  # in a new meld right after the opening
            if not rules.layoff_on_opening_turn:
                return False  # lay-offs only from the next own turn (A.1-9): the card cannot reach the table now
            # or laid off (through a chain of hand cards) on a table meld right after the opening
            for meld in self.table:
                for chain in layoff_chains(hand, meld, c, rules):
                    if rest_ok(hand, chain + [c], 0, g, r, declared, rules):
                        return True
            return False
        if self.opened_this_turn and not rules.layoff_on_opening_turn:
            return False
        if layoff_reaches(hand, self.table, c, rules):
            return True
        if rules.extra_melds_after_opening and extra_meld_with(hand, c, rules, self.layout):
            return True
        return not self.opened_this_turn and swap_takes(self.table, c, p, rules)

    def _discardable(self, kind: int) -> bool:
        """A.2-4: the card taken from the discard pile this turn may not be discarded (another copy may)."""
        c = self.hands[self.active][kind]
        if c == 0 or self.must_place >= 0:
            return False  # B.2-10: no discard while the deep-pickup card is not on the table
        return not (self.rules.forbid_rediscard and kind == self.taken_discard and self.taken_pending and c == 1)

    def _can_spare(self, kind: int) -> bool:
        """A.1-12: after playing ``kind`` to the table the hand still holds a card that may be discarded."""
        size = self.hand_size[self.active] - 1
        banned = 1 if (self.rules.forbid_rediscard and self.taken_pending and kind != self.taken_discard) else 0
        if not self.rules.keep_card_for_discard:
            # B.1-10: an emptied hand goes out; otherwise a discardable card (or a further lay-off) must remain
            return size == 0 or size - banned >= 1 or self.must_place >= 0
        return size - banned >= 1

    def _legal_act(self) -> list[int]:
        lay = self.layout
        p = self.active
        hand = self.hands[p]
        acts: list[int] = []
        if self._final:
            if self.rules.final_round_all_at_once and self._final_layout() is not None:
                acts.append(lay.GO_OUT)
        elif not self.opened[p]:
            g, r = self._contract
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
        if self.must_place < 0:  # B.2-10: no discard while the deep-pickup card is not on the table
            # every held kind; ``_discardable`` can only refuse a held card (then) for the kind taken from the discard
            # pile (A.2-4)
            base = lay.DISCARD
            acts.extend(compress(lay.discard_ids, hand))
            t = self.taken_discard
            if t >= 0 and hand[t] and not self._discardable(t):
                acts.remove(base + t)
            return acts
        return self._keeping_placeable(acts)

    def _keeping_placeable(self, acts: list[int]) -> list[int]:
        """B.2-10: after a deep pickup, only actions after which the chosen card can still reach the table."""
        c = self.must_place
        lay = self.layout
        meld, kinds = lay.MELD, lay.meld_kinds
        lay_off, lay_off_end, per_kind = lay.LAY_OFF, lay.ranges["lay_off"].stop, lay.slots * 2
        out = []
        for a in acts:
            # a meld holding c, or a lay-off of c, plays c itself (``_play_card`` clears ``must_place``): kept, as
            # its probe would find
            if meld <= a < meld + len(kinds):
                if c in kinds[a - meld]:
                    out.append(a)
                    continue
            elif lay_off <= a < lay_off_end and (a - lay_off) // per_kind == c:
                out.append(a)
                continue
            t = self._probe()
            t._dispatch(a)
            if t.must_place < 0 or t.phase != ACT and t.phase != OPENING and t.phase != PLACE_JOKER:
                out.append(a)
            elif t.phase == PLACE_JOKER:
                if t._keeping_placeable(t._legal_place()):  # a swap: some placement of the joker must keep c
                    out.append(a)
            elif t._placeable(c):
                out.append(a)
        return out

    def _final_layout(self, keep: int = -1) -> FinalLayout | None:
        """How the active player goes out in the final round (``rules.contract_opening.final_layout``): neither
        ``keep`` nor the deep-pickup card may be the discard (they must reach the table), nor the card taken from
        the discard pile (A.2-4 / B.1-6)."""
        return final_layout(
            self.hands[self.active], self._contract, self.rules, keep=(keep, self.must_place), banned=self._banned()
        )

    def _banned(self) -> int:
        """A.2-4: the card taken from the discard pile this turn, while it may not be discarded (-1: none)."""
        return self.taken_discard if self.rules.forbid_rediscard and self.taken_pending else -1

    def _can_spare_cards(self, cards: list[int]) -> bool:
        """``_can_spare`` for several cards played together (a new meld after the opening)."""
        size = self.hand_size[self.active] - len(cards)
        t = self.taken_discard
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

    def _meld_candidates(self, g: int, r: int) -> list[int]:
        """Catalog melds legal now: in hand, of a kind still owed, and the rest of the contract stays makeable."""
        lay = self.layout
        taken = self.taken_discard if self.taken_pending else -1
        found = opening_melds(
            self.hands[self.active], self.hand_size[self.active], g, r, tuple(self.opening_runs), self.rules, lay, taken
        )
        return [lay.MELD + i for i in found]

    def _layoff_actions(self, own_only: bool = False) -> list[int]:
        """Every lay-off of a hand card on a table meld (``own_only``: on the actor's own melds) that leaves a card
        to discard (A.1-12) or, B.1-10, only the taken card, which then follows (``rules.contract_layoff.layoff_ids``;
        ``_can_spare`` depends on the kind only through whether it is the card taken from the discard pile)."""
        p = self.active
        t = self.taken_discard
        spare = self._can_spare(-2)  # any kind but the taken one (-2 is never ``taken_discard``)
        spare_taken = self._can_spare(t) if t >= 0 else spare
        # ``_taken_follows`` can only hold with the taken card pending and two cards in hand
        follows_possible = not self.rules.keep_card_for_discard and self.taken_pending and self.hand_size[p] == 2
        return layoff_ids(
            self.hands[p], self.seat_melds, p, own_only, self.layout, self.rules, t, spare, spare_taken,
            self._taken_follows if follows_possible else None,
        )

    def _taken_follows(self, meld: Meld, kind: int, end: int) -> bool:
        """B.1-10: a lay-off may leave only the (undiscardable) card taken from the discard pile when that card can
        then be laid off too, emptying the hand (e.g. 3S then the taken 2S onto 4S-5S-6S)."""
        t = self.taken_discard
        if self.rules.keep_card_for_discard or not self.taken_pending or self.hand_size[self.active] != 2:
            return False
        if kind == t or self.hands[self.active][t] != 1:
            return False
        return fits_after_layoff(self.table, meld, kind, end, t, self.rules)

    def _swap_actions(self) -> list[int]:
        """A.1-11: swap a natural for a joker in a run, only if the freed joker can then be placed (A.2-8)."""
        lay = self.layout
        p = self.active
        hand = self.hands[p]
        out: list[int] = []
        placeable: bool | None = None
        for owner in range(self.n):
            for idx, meld in enumerate(self.seat_melds[owner]):
                if meld.kind != RUN or JOKER not in meld.cards:
                    continue
                for i, k in enumerate(meld.cards):
                    if k != JOKER:
                        continue
                    pos = meld.low + i
                    nat = pos_kind(meld.suit, pos)
                    if not hand[nat] or not self._can_spare(nat) or not may_swap(meld, pos, p, self.rules):
                        continue
                    if placeable is None:
                        placeable = joker_placeable(self.table, self.rules)
                    if placeable:
                        out.append(lay.swap(meld.suit, pos, lay.slot(p, owner, idx)))
        return out

    def _legal_place(self) -> list[int]:
        """Every place for the freed joker (A.2-8)."""
        lay = self.layout
        p = self.active
        out = []
        for owner in range(self.n):
            for idx, meld in enumerate(self.seat_melds[owner]):
                slot = lay.slot(p, owner, idx)
                for end in meld_ends(meld):
                    if joker_place_fits(meld, end, self.rules):
                        out.append(lay.place(slot, end))
        return out


__all__ = ["ContractLegalActions"]
