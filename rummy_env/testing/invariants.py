"""The fuzzer's rule oracles of profile ``contract`` (A.1/A.2), written apart from the engine.

``ContractOracles`` follows one session. Before each action ``check_offer(legal)`` compares the legal actions
with what the rules allow (the buy window's order, the draw phase, discards, lay-offs, joker swaps and
placements, the opening melds against a catalog scan); ``snapshot(kind, seat)`` records what the action may
change, and after it ``check_transition(action, kind, pre)`` checks hand sizes, piles and table against the
action, one small check per action kind (``_after_<kind>``), then round ends (penalties, scores) and the next
deal. A failed check raises ``FuzzViolation``.
"""

from __future__ import annotations

from typing import Any

from ..core.cards import JOKER, NUM_KINDS, NUM_RANKS, PENALTY
from ..core.melds import (
    GROUP,
    MAX_POS,
    RUN,
    can_make_contract,
    group_spec_cards,
    layoff_fits,
    meld_problem,
    pos_kind,
    run_spec_cards,
)
from ..registry import game
from .policies import classifier
from .tally import Counts

#: rule overrides the oracles follow (any other override turns them off: the rules are no longer A.1/A.2)
ORACLE_OVERRIDES = frozenset({"turn_cap"})


def has_rule_oracles(profile: str, overrides: dict[str, Any]) -> bool:
    """Whether ``ContractOracles`` (the A.1/A.2 rules of docs/rules/contract.md) applies to sessions of
    ``profile`` with these rule overrides: the descriptor's ``fuzz_oracles`` and no override but ``turn_cap``."""
    g = game(profile)
    return g.fuzz_oracles and set(overrides) <= ORACLE_OVERRIDES


class FuzzViolation(AssertionError):
    """A broken invariant or rule found by the fuzzer."""


def fail(msg: str) -> None:
    """Report a violation (raises ``FuzzViolation``)."""
    raise FuzzViolation(msg)


def nothing_fits(s: Any) -> bool:
    """Oracle of a blocked round: every seat is down and no card outside the table fits any table meld anywhere
    (tried by brute force over every kind and end), nor can replace a joker of a run."""
    if not all(s.opened):
        return False
    outside = list(s.copies)
    for m in s.table:
        for k in m.cards:
            outside[k] -= 1
    for m in s.table:
        for k in range(NUM_KINDS):
            if not outside[k]:
                continue
            if any(layoff_fits(m, k, end, s.rules) for end in (0, 1)):
                return False
            if m.kind == RUN and k != JOKER:
                for i, c in enumerate(m.cards):
                    if c == JOKER and k == (m.suit * NUM_RANKS + (0 if m.low + i == MAX_POS else m.low + i - 1)):
                        return False
    return True


def _adjacent_pair(runs: list[Any]) -> tuple[Any, Any] | None:
    """Two same-suit runs of ``runs`` that touch end to end, or None."""
    for i, a in enumerate(runs):
        for b in runs[i + 1 :]:
            if a.suit == b.suit and (b.low == a.high + 1 or a.low == b.high + 1):
                return a, b
    return None


class ContractOracles:
    """Tracks one ``contract`` session (the turn's taken card, the buy window, who opened when) and checks it."""

    def __init__(self, state: Any, counts: Counts, meld_every: int):
        self.state = state
        self.counts = counts
        self.meld_every = max(1, meld_every)
        self.cls = classifier(state)
        self.lay = state.layout
        self.rules = state.rules
        self.meld_states = 0
        self.no_meld_states = 0
        self.new_round()

    # tracking -------------------------------------------------------------------------------------------------
    def new_round(self) -> None:
        """Forget the round: nobody has opened."""
        self.opened_turn: dict[int, int] = {}
        self.new_turn()

    def new_turn(self) -> None:
        """Forget the turn: no card taken from the discard pile, no buy window."""
        self.taken: int | None = None  # kind taken from the discard pile this turn
        self.taken_played = False  # a card of that kind went from the hand to the table by the player's choice
        self.window: list[int] = []
        self.chain_buyer = -1

    # the deal -------------------------------------------------------------------------------------------------
    def check_deal(self, pre: dict[str, Any] | None) -> None:
        """A fresh round (or the game's end) after the round of snapshot ``pre`` (None: the session's start)."""
        s = self.state
        self.new_round()
        if s.is_terminal():
            if s.current != -1 or len(s.round_results) != len(s.rounds) or s.legal_actions():
                fail("game over: current -1, one result per round, no legal action")
            if [sum(r["penalties"][q] for r in s.round_results) for q in range(s.n)] != s.scores:
                fail("final scores are not the sum of the round penalties")
            return
        size = self.rules.hand_sizes[s.round - 1]
        if pre is not None:
            if s.dealer != (pre["dealer"] + 1) % s.n:
                fail("the deal did not pass to the left")
            if s.round_index != pre["round_index"] + 1:
                fail("the next round is not the next of the session")
        if s.rounds[s.round_index] != s.round:
            fail("round number mismatch")
        if s.hand_size != [size] * s.n or len(s.discard) != 1 or s.table:
            fail("a fresh deal must give every seat its hand size, one upcard and an empty table")
        if len(s.stock) != s.shoe.size - s.n * size - 1:
            fail("a fresh deal's stock has the wrong size")
        if s.phase != "draw" or s.active != (s.dealer + 1) % s.n or s.current != s.active or s.turn != 1:
            fail("the dealer's left neighbour must start the round")

    # the legal actions before an action -----------------------------------------------------------------------
    def check_offer(self, legal: list[int]) -> None:
        """The legal actions of the state are exactly those the rules allow the player to move."""
        s = self.state
        lay = self.lay
        if s.phase == "buy":
            self.check_window_head()
            if legal != sorted([lay.BUY, lay.PASS]):
                fail("the buy phase offers exactly buy and pass")
            return
        if s.phase == "draw":
            want = [lay.DRAW_STOCK] + ([lay.DRAW_DISCARD] if s.discard else [])
            if legal != sorted(want):
                fail(f"the draw phase offers {legal}, expected {want}")
            return
        p = s.active
        if s.current != p:
            fail("only the active player acts after drawing")
        by = self.cls.group(legal)
        if s.phase == "place_joker":
            if set(by) != {"place_joker"} or by["place_joker"] != self._expected_places(p):
                fail(f"placements {by}, expected {self._expected_places(p)}")
        elif s.phase == "opening":
            if set(by) != {"meld"}:
                fail(f"mid-opening the player may only declare melds, got {sorted(by)}")
            self._maybe_scan_melds(p, by["meld"])
        else:
            self._check_act_offer(p, by)

    def _check_act_offer(self, p: int, by: dict[str, list[int]]) -> None:
        """The act phase: discards (A.2-4), lay-offs and swaps (opened on an earlier turn), melds, going out."""
        s = self.state
        lay = self.lay
        hand = s.hands[p]
        final = s.final_round
        want_discards = [lay.DISCARD + k for k in range(NUM_KINDS) if hand[k] and self._discardable(hand, k)]
        if by.get("discard", []) != want_discards:
            fail(
                f"discards {by.get('discard')}, expected {want_discards} (taken {self.taken}, "
                f"played {self.taken_played})"
            )
        opened_before = p in self.opened_turn and self.opened_turn[p] < s.turn
        layoffs = self._expected_layoffs(p) if (opened_before and not final) else []
        if by.get("lay_off", []) != layoffs:
            fail(f"lay-offs {by.get('lay_off')}, expected {layoffs}")
        swaps = self._expected_swaps(p) if (opened_before and not final) else []
        if sorted(by.get("swap_joker", [])) != swaps:
            fail(f"joker swaps {by.get('swap_joker')}, expected {swaps}")
        if "meld" in by:
            if final or p in self.opened_turn:
                fail("opening melds offered to a player who opened or in the final round")
            self._maybe_scan_melds(p, by["meld"])
        elif not final and p not in self.opened_turn:
            self._check_no_meld(p)
        if "go_out" in by and not final:
            fail("go_out offered outside the final round")
        extra = set(by) - {"discard", "lay_off", "swap_joker", "meld", "go_out"}
        if extra:
            fail(f"unexpected action kinds in the act phase: {sorted(extra)}")

    def _check_no_meld(self, p: int) -> None:
        """No meld offered to a seat that has not opened: the contract must indeed be out of reach (sampled)."""
        self.no_meld_states += 1
        if self.no_meld_states % self.meld_every:
            return
        s = self.state
        g, r = s.contract
        rules = self.rules
        spare = s.hand_size[p] - g * rules.group_min - r * rules.run_min
        if spare >= 1 and can_make_contract(s.hands[p], g, r, rules):
            fail("the contract is makeable but no opening meld is offered")

    def _discardable(self, hand: list[int], k: int) -> bool:
        """A.2-4 oracle: the card taken from the discard pile stays in hand unless a copy went to the table."""
        if k != self.taken or self.taken_played:
            return True
        return hand[k] >= 2

    def _spare_ok(self, hand: list[int], size: int, k: int) -> bool:
        """A.1-12 oracle: after playing ``k`` to the table a discardable card remains."""
        rem = size - 1
        if rem < 1:
            return False
        x = self.taken
        if x is None or self.taken_played or k == x:
            return True
        if hand[x] >= 2:
            return True
        return rem - 1 >= 1

    def _expected_layoffs(self, p: int) -> list[int]:
        """Every lay-off the rules allow seat ``p``: each table meld's ends (groups: any suit), naturals and jokers."""
        s = self.state
        lay = self.lay
        hand = s.hands[p]
        size = s.hand_size[p]
        out = []
        for owner in range(s.n):
            for idx, m in enumerate(s.seat_melds[owner]):
                slot = lay.slot(p, owner, idx)
                if m.kind == GROUP:
                    cands = [(q * NUM_RANKS + m.rank - 1, 0) for q in range(4)] + [(JOKER, 0)]
                else:
                    cands = []
                    if m.low > 1:
                        cands += [(pos_kind(m.suit, m.low - 1), 0), (JOKER, 0)]
                    if m.high < MAX_POS:
                        cands += [(pos_kind(m.suit, m.high + 1), 1), (JOKER, 1)]
                for k, end in cands:
                    if hand[k] and self._spare_ok(hand, size, k):
                        out.append(lay.lay_off(k, slot, end))
        return sorted(out)

    def _expected_swaps(self, p: int) -> list[int]:
        """Every joker swap the rules allow seat ``p``: the natural a run's joker stands for, if the joker can go on."""
        s = self.state
        lay = self.lay
        hand = s.hands[p]
        size = s.hand_size[p]
        if not any(m.kind == GROUP or m.low > 1 or m.high < MAX_POS for m in s.table):
            return []
        out = []
        for owner in range(s.n):
            for idx, m in enumerate(s.seat_melds[owner]):
                if m.kind != RUN:
                    continue
                for i, k in enumerate(m.cards):
                    if k != JOKER:
                        continue
                    nat = pos_kind(m.suit, m.low + i)
                    if hand[nat] and self._spare_ok(hand, size, nat):
                        out.append(lay.swap(m.suit, m.low + i, lay.slot(p, owner, idx)))
        return sorted(out)

    def _expected_places(self, p: int) -> list[int]:
        """Where a freed joker may go: any group, either open end of a run."""
        s = self.state
        lay = self.lay
        out = []
        for owner in range(s.n):
            for idx, m in enumerate(s.seat_melds[owner]):
                slot = lay.slot(p, owner, idx)
                if m.kind == GROUP:
                    out.append(lay.place(slot, 0))
                else:
                    if m.low > 1:
                        out.append(lay.place(slot, 0))
                    if m.high < MAX_POS:
                        out.append(lay.place(slot, 1))
        return sorted(out)

    def _maybe_scan_melds(self, p: int, offered: list[int]) -> None:
        """Opening candidates versus a scan of the whole catalog (sampled: it is the expensive oracle)."""
        self.meld_states += 1
        if (self.meld_states - 1) % self.meld_every:
            return
        self.counts.meld_scans += 1
        s = self.state
        g, r = s.contract
        declared = []
        if s.phase == "opening":  # the melds already declared in this opening are the seat's table melds
            g -= sum(m.kind == GROUP for m in s.seat_melds[p])
            r -= sum(m.kind == RUN for m in s.seat_melds[p])
            declared = [(m.suit, m.low, m.high) for m in s.seat_melds[p] if m.kind == RUN]
        want = self._catalog_openings(p, g, r, declared)
        if offered != want:
            missing = [s.action_info(a) for a in want if a not in offered][:5]
            extra = [s.action_info(a) for a in offered if a not in want][:5]
            fail(f"opening candidates differ from the catalog scan: missing {missing}, extra {extra}")

    def _catalog_openings(self, p: int, g: int, r: int, declared: list) -> list[int]:
        """The meld actions of the catalog after which ``g`` groups and ``r`` runs can still be completed."""
        s = self.state
        lay = self.lay
        rules = self.rules
        hand = s.hands[p]
        want: list[int] = []
        if s.hand_size[p] - g * rules.group_min - r * rules.run_min < 1:
            return want
        for i, spec in enumerate(lay.groups):
            if not g:
                break
            if self._rest_makeable(hand, group_spec_cards(spec), g - 1, r, declared):
                want.append(lay.MELD + i)
        for i, spec in enumerate(lay.runs):
            if not r:
                break
            high = spec.low + rules.run_min - 1
            if (
                any(su == spec.suit and (lo == high + 1 or spec.low == hi + 1) for su, lo, hi in declared)
                and rules.forbid_adjacent_same_suit_runs
            ):
                continue
            cards = run_spec_cards(spec, rules.run_min)
            if self._rest_makeable(hand, cards, g, r - 1, declared + [(spec.suit, spec.low, high)]):
                want.append(lay.MELD_RUN + i)
        return want

    def _rest_makeable(self, hand: list[int], cards: list[int], g: int, r: int, declared: list) -> bool:
        """``hand`` holds ``cards`` and what is left can still make ``g`` groups and ``r`` runs."""
        need: dict[int, int] = {}
        for k in cards:
            need[k] = need.get(k, 0) + 1
        for k, c in need.items():
            if hand[k] < c:
                return False
        h = list(hand)
        for k, c in need.items():
            h[k] -= c
        if g == 0 and r == 0:
            return True
        return can_make_contract(h, g, r, self.rules, tuple(declared))

    # what an action may change --------------------------------------------------------------------------------
    def snapshot(self, kind: str, p: int) -> dict[str, Any]:
        """The state's figures before seat ``p`` plays an action of ``kind`` (the hands' penalties where the
        action may end the round)."""
        s = self.state
        pre: dict[str, Any] = {
            "phase": s.phase,
            "current": p,
            "active": s.active,
            "round_index": s.round_index,
            "round": s.round,
            "results": len(s.round_results),
            "sizes": list(s.hand_size),
            "turn": s.turn,
            "dealer": s.dealer,
            "discard_len": len(s.discard),
            "top": s.discard[-1] if s.discard else -1,
            "top2": s.discard[-2] if len(s.discard) > 1 else -1,
            "stock_len": len(s.stock),
            "table_melds": len(s.table),
            "scores": list(s.scores),
        }
        if kind in ("lay_off", "swap_joker", "place_joker"):
            pre["table_cards"] = sum(len(m.cards) for m in s.table)
        if kind in ("draw_discard", "buy", "swap_joker", "place_joker", "go_out"):
            pre["hand"] = list(s.hands[p])
        if self._may_end_round(kind, p):
            pre["pen"] = [s.penalty(q) for q in range(s.n)]
            if kind == "discard" and all(s.opened):
                pre["blocked"] = nothing_fits(s)  # a discard moves a card between hand and pile: both outside
        return pre

    def _may_end_round(self, kind: str, p: int) -> bool:
        """Cheap test: may this action end the round (a last discard, the turn cap, a blocked table, no stock)?"""
        s = self.state
        return (
            kind == "go_out"
            or (kind == "discard" and (s.hand_size[p] == 1 or s.turn >= self.rules.turn_cap or all(s.opened)))
            or (kind in ("draw_stock", "pass", "buy") and len(s.stock) <= 1)
        )

    # after an action ------------------------------------------------------------------------------------------
    def check_transition(self, action: int, kind: str, pre: dict[str, Any]) -> None:
        """The state after ``action`` (of ``kind``) is what the rules make of the state of snapshot ``pre``."""
        s = self.state
        if len(s.round_results) != pre["results"]:
            self._check_round_end(action, kind, pre)
            return
        if s.round_index != pre["round_index"]:
            fail("the round changed without a round result")
        sizes = list(pre["sizes"])
        check = _AFTER.get(kind)
        if check is not None:
            check(self, action, pre, sizes)
        if s.hand_size != sizes:
            fail(f"{kind}: hand sizes {s.hand_size}, expected {sizes} (before {pre['sizes']})")

    def _after_draw_discard(self, action: int, pre: dict[str, Any], sizes: list[int]) -> None:
        s = self.state
        p = pre["current"]
        if pre["phase"] != "draw" or pre["top"] < 0:
            fail("draw_discard outside the draw phase or from an empty discard pile")
        sizes[p] += 1
        if s.hands[p][pre["top"]] != pre["hand"][pre["top"]] + 1 or len(s.discard) != pre["discard_len"] - 1:
            fail("draw_discard did not move the discard top into the hand")
        if s.phase != "act":
            fail(f"draw_discard led to phase {s.phase!r}")
        self.taken = pre["top"]
        self.taken_played = False

    def _after_draw_stock(self, action: int, pre: dict[str, Any], sizes: list[int]) -> None:
        s = self.state
        p = pre["current"]
        if pre["phase"] != "draw":
            fail("draw_stock outside the draw phase")
        if s.phase == "buy":
            if pre["discard_len"] == 0:
                fail("a buy window opened on an empty discard pile")
            self.window = [(p + i) % s.n for i in range(1, s.n)]
            self.chain_buyer = -1
            self.check_window_head()
            return
        if pre["discard_len"] and self.rules.buying:
            fail("declining a discard did not open the buy window")
        sizes[p] += 1
        self._expect_active_drew()

    def _check_asked(self, kind: str, pre: dict[str, Any]) -> None:
        """A buy or pass comes from the head of the buy window, never the active player or the previous buyer."""
        p = pre["current"]
        if pre["phase"] != "buy" or not self.window or self.window[0] != p:
            fail(f"{kind} by seat {p}, but the buy window expects {self.window[:1]}")
        if p == pre["active"] or p == self.chain_buyer:
            fail(f"seat {p} may not buy now (active {pre['active']}, previous buyer {self.chain_buyer})")
        self.window.pop(0)

    def _after_buy(self, action: int, pre: dict[str, Any], sizes: list[int]) -> None:
        s = self.state
        p = pre["current"]
        self._check_asked("buy", pre)
        sizes[p] += 2
        if s.hands[p][pre["top"]] < pre["hand"][pre["top"]] + 1:
            fail("the buyer did not get the bought card")
        self.chain_buyer = p
        self.counts.reshuffles += pre["stock_len"] == 0
        if pre["stock_len"] == 0 and s.discard != [pre["top2"]]:
            # A.1-14: the penalty card came from a reshuffle of all discards but the (new) top
            fail(f"reshuffle for the penalty card left the discard pile {s.discard}, expected [{pre['top2']}]")
        if s.phase == "buy":
            a = pre["active"]
            self.window = [(a + i) % s.n for i in range(1, s.n) if (a + i) % s.n != p]
            self.check_window_head()
            return
        if s.discard:
            fail("the buy chain ended with cards on the discard pile")
        sizes[pre["active"]] += 1
        self._expect_active_drew()

    def _after_pass(self, action: int, pre: dict[str, Any], sizes: list[int]) -> None:
        s = self.state
        self._check_asked("pass", pre)
        if s.phase == "buy":
            self.check_window_head()
            return
        if self.window:
            fail(f"the buy window closed before asking {self.window}")
        self.counts.reshuffles += pre["stock_len"] == 0
        want_discard = 1 if pre["stock_len"] == 0 else pre["discard_len"]  # A.1-14 reshuffle
        if len(s.discard) != want_discard or s.discard[-1] != pre["top"]:
            fail(f"after the window the discard pile holds {len(s.discard)} cards, expected {want_discard}")
        sizes[pre["active"]] += 1
        self._expect_active_drew()

    def _after_meld(self, action: int, pre: dict[str, Any], sizes: list[int]) -> None:
        s = self.state
        lay = self.lay
        if action < lay.MELD_RUN:
            cards = group_spec_cards(lay.groups[action - lay.MELD])
        else:
            cards = run_spec_cards(lay.runs[action - lay.MELD_RUN], lay.run_size)
        sizes[pre["current"]] -= len(cards)
        self._played(cards)
        if len(s.table) != pre["table_melds"] + 1:
            fail("a meld did not add one meld to the table")
        if s.phase == "act":
            self._check_opening(pre["current"], pre["turn"])
        elif s.phase != "opening":
            fail(f"a meld led to phase {s.phase!r}")

    def _after_lay_off(self, action: int, pre: dict[str, Any], sizes: list[int]) -> None:
        k, _slot, _end = self.lay.decode_lay_off(action)
        sizes[pre["current"]] -= 1
        self._played([k])
        self._expect_table(pre, 1)

    def _after_swap_joker(self, action: int, pre: dict[str, Any], sizes: list[int]) -> None:
        s = self.state
        suit, pos, _slot = self.lay.decode_swap(action)
        self._played([pos_kind(suit, pos)])
        if s.hands[pre["current"]][JOKER] != pre["hand"][JOKER] + 1:
            fail("a joker swap did not give the joker to the hand")
        if s.phase != "place_joker":
            fail(f"a joker swap led to phase {s.phase!r}")
        self._expect_table(pre, 0)

    def _after_place_joker(self, action: int, pre: dict[str, Any], sizes: list[int]) -> None:
        s = self.state
        sizes[pre["current"]] -= 1
        if s.hands[pre["current"]][JOKER] != pre["hand"][JOKER] - 1:
            fail("placing the freed joker did not take a joker from the hand")
        if s.phase != "act":
            fail(f"placing the joker led to phase {s.phase!r}")
        self._expect_table(pre, 1)
        if self.taken == JOKER and not self.taken_played:
            self.counts.place_after_taken_joker += 1

    def _after_discard(self, action: int, pre: dict[str, Any], sizes: list[int]) -> None:
        s = self.state
        p = pre["current"]
        k = action - self.lay.DISCARD
        sizes[p] -= 1
        if len(s.discard) != pre["discard_len"] + 1 or s.discard[-1] != k:
            fail("a discard did not land on top of the discard pile")
        if s.phase != "draw" or s.active != (p + 1) % s.n or s.turn != pre["turn"] + 1:
            fail("a discard did not pass the turn to the left neighbour")
        self.new_turn()

    def _after_go_out(self, action: int, pre: dict[str, Any], sizes: list[int]) -> None:
        fail("going out did not end the round")

    def _expect_active_drew(self) -> None:
        s = self.state
        if s.phase != "act" or s.current != s.active:
            fail(f"after the draw the active player should act, phase {s.phase!r}, current {s.current}")
        self.taken = None
        self.taken_played = False

    def _expect_table(self, pre: dict[str, Any], added: int) -> None:
        s = self.state
        if len(s.table) != pre["table_melds"] or sum(len(m.cards) for m in s.table) != pre["table_cards"] + added:
            fail(f"the table should have gained {added} card(s) and no meld")

    def check_window_head(self) -> None:
        """The seat asked in the buy window is the first of those still to be asked."""
        s = self.state
        if not self.window or s.current != self.window[0]:
            fail(f"buy window: seat {s.current} asked, expected the first of {self.window}")

    def _played(self, cards: list[int]) -> None:
        if self.taken is not None and self.taken in cards:
            self.taken_played = True

    def _check_opening(self, p: int, turn: int) -> None:
        """A completed opening is exactly the contract: minimum lengths, no adjacent same-suit runs, once."""
        s = self.state
        g, r = s.contract
        melds = s.seat_melds[p]
        groups = [m for m in melds if m.kind == GROUP]
        runs = [m for m in melds if m.kind == RUN]
        if len(groups) != g or len(runs) != r:
            fail(f"an opening of {len(groups)} groups and {len(runs)} runs for contract {g}+{r}")
        if any(len(m.cards) != self.rules.group_min for m in groups) or any(
            len(m.cards) != self.rules.run_min for m in runs
        ):
            fail("an opening meld is not of the exact minimum length")
        pair = _adjacent_pair(runs)
        if pair:
            fail(f"adjacent same-suit runs in one opening: {pair[0]} {pair[1]}")
        if p in self.opened_turn:
            fail(f"seat {p} opened twice in one round")
        self.opened_turn[p] = turn
        self.counts.openings += 1

    # round ends -----------------------------------------------------------------------------------------------
    def _check_round_end(self, action: int, kind: str, pre: dict[str, Any]) -> None:
        """One result for the round, the penalties the rules give, the scores grown by them, then the deal."""
        s = self.state
        res = s.round_results[-1]
        if len(s.round_results) != pre["results"] + 1 or res["round"] != pre["round"]:
            fail("a round end must add exactly one result for the current round")
        if "pen" not in pre:
            fail(f"{kind} ended the round ({res}) where it could not (stock {len(s.stock)}, turn {pre['turn']})")
        want = self._expected_penalties(action, kind, pre, res)
        if res["penalties"] != want:
            fail(f"round end penalties {res['penalties']}, expected {want}")
        if [a + b for a, b in zip(pre["scores"], res["penalties"])] != s.scores:
            fail("scores did not grow by the round's penalties")
        self.counts.count_round(res["reason"], pre["round"], self.rules)
        self.check_deal(pre)

    def _expected_penalties(self, action: int, kind: str, pre: dict[str, Any], res: dict[str, Any]) -> list[int]:
        """The round's penalties by how it ended (checking the ending itself is one ``kind`` may cause)."""
        p = pre["current"]
        winner, reason = res["winner"], res["reason"]
        want = list(pre["pen"])
        if kind == "discard":
            k = action - self.lay.DISCARD
            if pre["sizes"][p] == 1:
                if reason != "out" or winner != p:
                    fail(f"discarding the last card should win the round, got {res}")
                want[p] = 0
            elif reason == "blocked":
                if winner is not None or not pre.get("blocked"):
                    fail(f"a discard ended the round as blocked ({res}) while a card could still be laid off")
                want[p] -= PENALTY[k]
            else:
                if reason != "turn_cap" or winner is not None or pre["turn"] != self.rules.turn_cap:
                    fail(f"a discard ended the round with {res} at turn {pre['turn']}")
                want[p] -= PENALTY[k]
        elif kind == "go_out":
            if not self.rules.is_final_all_at_once(pre["round"]):
                fail("go_out outside the final round")
            if reason != "out" or winner != p:
                fail(f"go_out should win the round, got {res}")
            want[p] = 0
            if self.state.is_terminal():
                self._check_final_layout(p, pre["hand"])
        elif kind in ("draw_stock", "pass", "buy"):
            if reason != "exhausted" or winner is not None:
                fail(f"{kind} ended the round with {res}")
            if kind == "buy":
                extra = res["penalties"][p] - want[p] - PENALTY[pre["top"]]
                if extra != 0 and extra not in PENALTY:
                    fail(f"the buyer's penalty {res['penalties'][p]} does not match his hand plus the bought card")
                want[p] = res["penalties"][p]
        else:
            fail(f"{kind} ended the round ({res})")
        return want

    def _check_final_layout(self, p: int, hand: list[int]) -> None:
        """Going out in the final round lays exactly the hand as valid runs, none adjacent to another of its suit."""
        s = self.state
        melds = s.seat_melds[p]
        g, r = s.contract
        if len(melds) != r or any(m.kind != RUN for m in melds):
            fail(f"going out laid {melds}, expected {r} runs")
        laid = [0] * NUM_KINDS
        for m in melds:
            if len(m.cards) < self.rules.run_min or meld_problem(m, self.rules):
                fail(f"going out laid an invalid run {m}")
            for k in m.cards:
                laid[k] += 1
        if laid != hand:
            fail("going out did not lay exactly the hand")
        pair = _adjacent_pair(melds)
        if pair:
            fail(f"going out laid adjacent same-suit runs {pair[0]} {pair[1]}")


_AFTER = {
    "draw_discard": ContractOracles._after_draw_discard,
    "draw_stock": ContractOracles._after_draw_stock,
    "buy": ContractOracles._after_buy,
    "pass": ContractOracles._after_pass,
    "meld": ContractOracles._after_meld,
    "lay_off": ContractOracles._after_lay_off,
    "swap_joker": ContractOracles._after_swap_joker,
    "place_joker": ContractOracles._after_place_joker,
    "discard": ContractOracles._after_discard,
    "go_out": ContractOracles._after_go_out,
}

__all__ = ["ContractOracles", "FuzzViolation", "fail", "has_rule_oracles", "nothing_fits"]
