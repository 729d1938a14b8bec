"""Seeded self-play fuzzer of the rules engines (profile ``contract``): invariants and rule oracles after every action.

``fuzz(decisions=500_000)`` plays complete seeded sessions until at least ``decisions`` decisions were taken,
alternating (``policy="mixed"``) a uniform random policy and a *biased* random policy that strongly prefers the
rare actions (buy, opening melds, lay-offs, joker swaps and placements, going out) and keeps useful cards, so
that every action kind and every way a round ends is exercised. It returns a JSON-able dict of counts; the key
``violations`` must be 0.

Checked after every action (cheap):

* ``state.check_invariants()`` (all 107 cards accounted for, hand sizes, valid melds, a legal action exists),
  every ``check_every`` actions;
* hand sizes, piles and table consistent with the action (a discard takes one card from the hand and puts it on
  the discard pile, a buy gives the buyer two cards, a run of the opening takes four, ...);
* the buy window asks the non-active players clockwise, the buyer of the previous card of the chain excluded;
* independent oracles for the legal discards (A.2-4: the card taken from the discard pile stays in hand), the
  legal lay-offs, joker swaps and placements (A.1-11/12: opened on an earlier turn, a discardable card left);
* a completed opening is exactly the contract (groups of 3, runs of 4, no adjacent same-suit runs);
* a reshuffle (A.1-14) keeps only the discard top; a round end scores the hands (winner 0; the buyer keeps a
  bought card when no penalty card is left, A.2-9); the next round is dealt by the next dealer, 10/12 cards
  each, one upcard, stock 66/58, the dealer's left neighbour first.

Other profiles (or rule overrides other than ``turn_cap``) get the generic checks only: invariants, JSON round
trips, clones and legality, replay.

Checked on a sample (expensive): JSON round trip (dump -> ``json.dumps``/``loads`` -> ``load_state`` -> dump
identical, then the next actions played on both give identical dumps) every ``json_every`` actions and in every
joker-placement state; every legal action accepted by ``apply`` on a clone and random non-legal ids rejected
with the state unchanged every ``clone_every`` actions; the opening-meld candidates against a catalog scan every
``meld_every`` meld states; at the end of every session, replaying ``history`` from ``new_state(seed)`` gives the
identical dump (determinism).
"""

from __future__ import annotations

import bisect
import json
import random
import time
from collections.abc import Callable
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
from ..engine import IllegalActionError, load_state, new_state

ACTION_KINDS = (
    "draw_stock",
    "draw_discard",
    "pickup",
    "buy",
    "pass",
    "meld",
    "lay_off",
    "swap_joker",
    "place_joker",
    "discard",
    "go_out",
    "declare",
)

Policy = Callable[[Any, list[int], random.Random], int]


def _nothing_fits(s: Any) -> bool:
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


class _Classifier:
    """Action id -> kind name, by the layout's named ranges (fast, no ``action_info``)."""

    def __init__(self, layout: Any):
        ranges = sorted(layout.ranges.values(), key=lambda r: r.start)
        self.starts = [r.start for r in ranges]
        self.names = [r.name for r in ranges]

    def __call__(self, action: int) -> str:
        return self.names[bisect.bisect_right(self.starts, action) - 1]


_CLASSIFIERS: dict[int, _Classifier] = {}


def _classifier(state: Any) -> _Classifier:
    lay = state.layout
    c = _CLASSIFIERS.get(id(lay))
    if c is None:
        c = _CLASSIFIERS[id(lay)] = _Classifier(lay)
    return c


# --------------------------------------------------------------------------------------------------------------
# Policies
# --------------------------------------------------------------------------------------------------------------


def uniform_policy(state: Any, legal: list[int], rng: random.Random) -> int:
    """A uniformly random legal action."""
    return legal[rng.randrange(len(legal))]


def _usefulness(hand: list[int], kind: int, groups: int, runs: int) -> float:
    """How much ``kind`` helps the current contract given ``hand`` (which may or may not hold it)."""
    if kind == JOKER:
        return 100.0
    suit, r0 = divmod(kind, NUM_RANKS)
    score = 0.0
    if groups:
        same = hand[r0] + hand[r0 + 13] + hand[r0 + 26] + hand[r0 + 39] - (1 if hand[kind] else 0)
        score += (1.6 if runs else 2.2) * min(same, 2)
    if runs:
        base = suit * NUM_RANKS
        # positions of this card (the ace stands at both ends)
        positions = (1, MAX_POS) if r0 == 0 else (r0 + 1,)
        near = 0.0
        for p in positions:
            for d, w in ((1, 1.0), (2, 0.6), (3, 0.3)):
                for q in (p - d, p + d):
                    if 1 <= q <= MAX_POS:
                        k = base + (0 if q == MAX_POS else q - 1)
                        if k != kind and hand[k]:
                            near += w
        score += near * (1.0 if groups else 1.4)
        if hand[kind] >= 2 and not groups:
            score -= 0.8  # a duplicate is dead weight for runs
    return score


def _run_plan(hand: list[int], runs: int) -> list[int]:
    """Greedy plan of ``runs`` runs for the all-runs final round: counts per kind of the naturals it covers."""
    h = list(hand)
    jokers = h[JOKER]
    covered = [0] * NUM_KINDS
    for _ in range(runs):
        best = None
        best_score = 0.0
        for suit in range(4):
            base = suit * NUM_RANKS
            pre = [0]
            for q in range(1, MAX_POS + 1):
                pre.append(pre[-1] + (1 if h[base + (0 if q == MAX_POS else q - 1)] else 0))
            for lo in range(1, MAX_POS - 2):
                for hi in range(lo + 3, MAX_POS + 1):
                    nat = pre[hi] - pre[lo - 1]
                    gaps = hi - lo + 1 - nat
                    score = nat - (0.7 * gaps if gaps <= jokers else 1.5 * gaps)
                    if score > best_score:
                        best, best_score = (base, lo, hi, gaps), score
        if best is None:
            break
        base, lo, hi, gaps = best
        jokers = max(0, jokers - gaps)
        for q in range(lo, hi + 1):
            k = base + (0 if q == MAX_POS else q - 1)
            if h[k]:
                h[k] -= 1
                covered[k] += 1
    return covered


def biased_policy(state: Any, legal: list[int], rng: random.Random) -> int:
    """A random policy that strongly prefers buys, openings, lay-offs, joker swaps/placements and going out.

    Draw, buy and discard choices keep the cards that help the contract (jokers, pairs of a rank, near cards of a
    suit; in the all-runs final round a greedy plan of runs), so that openings, lay-offs and going out (rounds
    1-6 and the final round) happen often; buys are frequent while they help and the hand is still small.
    """
    if len(legal) == 1:
        return legal[0]
    if not hasattr(state, "contract"):  # not a Contract-family engine: nothing to prefer
        return uniform_policy(state, legal, rng)
    cls = _classifier(state)
    by: dict[str, list[int]] = {}
    for a in legal:
        by.setdefault(cls(a), []).append(a)
    p = state.current
    groups, runs = state.contract
    hand = state.hands[p]
    final = state.final_round
    opened = state.opened[p] and not final
    if "go_out" in by:
        return by["go_out"][0]
    if "buy" in by or "draw_discard" in by:
        top = state.discard[-1]
        if opened:
            useful = _fits_table(state, top)
        elif top == JOKER:
            useful = True
        elif final:
            useful = _usefulness(hand, top, groups, runs) >= 1.9 and hand[top] == 0
        else:
            useful = _usefulness(hand, top, groups, runs) >= (2.0 if groups else 1.5)
        if "buy" in by:
            dealt = state.rules.hand_sizes[state.round - 1]
            small = state.hand_size[p] <= dealt + (2 if final else 4)
            if top == JOKER:
                chance = 0.95
            elif useful and small and not opened:
                chance = 0.6 if final else 0.8
            else:
                chance = 0.04
            return by["buy"][0] if rng.random() < chance else by["pass"][0]
        if "pickup" in by and rng.random() < 0.5:
            return rng.choice(by["pickup"])  # deep pickups are offered only when the card can reach the table
        if useful and rng.random() < 0.92:
            return by["draw_discard"][0]
        return by["draw_stock"][0] if rng.random() < 0.95 else rng.choice(legal)
    if "meld" in by and rng.random() < 0.97:
        return rng.choice(by["meld"])
    if "place_joker" in by:
        return rng.choice(by["place_joker"])
    if "swap_joker" in by and rng.random() < 0.9:
        return rng.choice(by["swap_joker"])
    if "lay_off" in by and rng.random() < 0.95:
        return rng.choice(by["lay_off"])
    if "discard" in by:
        ds = by["discard"]
        if rng.random() < 0.04:
            return rng.choice(ds)
        if not opened and ds[-1] == state.layout.DISCARD + JOKER and rng.random() < 0.03:
            return ds[-1]  # now and then a joker for the next player to take
        lay = state.layout
        plan = _run_plan(hand, runs) if final else None
        best: list[int] = []
        best_score = None
        for a in ds:
            k = a - lay.DISCARD
            if k == JOKER:
                sc = 1000.0
            elif opened:
                sc = -PENALTY[k] + rng.random()
            elif plan is not None:
                sc = (20.0 if plan[k] >= hand[k] else 0.0) + _usefulness(hand, k, groups, runs) + rng.random() * 0.3
            else:
                sc = _usefulness(hand, k, groups, runs) + rng.random() * 0.5
            if best_score is None or sc < best_score:
                best, best_score = [a], sc
        return best[0]
    return rng.choice(legal)


def _fits_table(state: Any, kind: int) -> bool:
    """Could ``kind`` be laid off on some table meld now?"""
    if kind == JOKER:
        return bool(state.table)
    suit, r0 = divmod(kind, NUM_RANKS)
    for m in state.table:
        if m.kind == GROUP:
            if m.rank == r0 + 1:
                return True
        elif m.suit == suit:
            if (m.low > 1 and pos_kind(suit, m.low - 1) == kind) or (
                m.high < MAX_POS and pos_kind(suit, m.high + 1) == kind
            ):
                return True
    return False


POLICIES: dict[str, Policy] = {"uniform": uniform_policy, "biased": biased_policy}


# --------------------------------------------------------------------------------------------------------------
# The per-session checker
# --------------------------------------------------------------------------------------------------------------


class FuzzViolation(AssertionError):
    """A broken invariant or rule found by the fuzzer."""


def _fail(msg: str) -> None:
    raise FuzzViolation(msg)


class _Counts:
    def __init__(self) -> None:
        self.kinds = dict.fromkeys(ACTION_KINDS, 0)
        self.openings = 0
        self.go_outs = 0
        self.go_outs_r1_6 = 0
        self.go_outs_r7 = 0
        self.exhausted = 0
        self.turn_cap = 0
        self.blocked = 0
        self.rounds = 0
        self.json_round_trips = 0
        self.clone_checks = 0
        self.legal_apply_checks = 0
        self.illegal_reject_checks = 0
        self.meld_scans = 0
        self.replays = 0
        self.place_after_taken_joker = 0
        self.reshuffles = 0


class _Session:
    """Plays one seeded session with one policy and checks every step."""

    def __init__(
        self,
        profile: str,
        seed: int,
        policy: Policy,
        prng: random.Random,
        counts: _Counts,
        check_every: int,
        json_every: int,
        clone_every: int,
        meld_every: int,
        json_window: int,
        rounds: Any = None,
        overrides: dict[str, Any] | None = None,
    ):
        self.profile = profile
        self.seed = seed
        self.policy = policy
        self.prng = prng
        self.counts = counts
        self.check_every = max(1, check_every)
        self.json_every = max(1, json_every)
        self.clone_every = max(1, clone_every)
        self.meld_every = max(1, meld_every)
        self.json_window = json_window
        self.rounds = rounds
        self.overrides = dict(overrides or {})
        self.state = new_state(profile, seed=seed, rounds=rounds, **self.overrides)
        self.cls = _classifier(self.state)
        self.lay = self.state.layout
        self.rules = self.state.rules
        # the rule oracles encode profile ``contract`` (A.1/A.2); other profiles get the generic checks only
        self.strict = profile == "contract" and set(self.overrides) <= {"turn_cap"}
        self.step = 0
        self.meld_states = 0
        self.no_meld_states = 0
        self.shadow: Any = None
        self.shadow_left = 0
        self._new_round()

    # tracking ---------------------------------------------------------------------------------------------
    def _new_round(self) -> None:
        self.opened_turn: dict[int, int] = {}
        self._new_turn()

    def _new_turn(self) -> None:
        self.taken: int | None = None  # kind taken from the discard pile this turn
        self.taken_played = False  # a card of that kind went from the hand to the table by the player's choice
        self.window: list[int] = []
        self.chain_buyer = -1

    # main loop --------------------------------------------------------------------------------------------
    def run(self) -> int:
        s = self.state
        if self.strict:
            self._check_deal(None)
        while not s.is_terminal():
            self.do_step()
        self._check_replay()
        return self.step

    def do_step(self) -> None:
        s = self.state
        legal = s.legal_actions()
        if not legal:
            _fail("no legal action in a non-terminal state")
        phase = s.phase
        p = s.current
        if self.strict:
            self._oracles(legal)
        if self.shadow is None and (self.step % self.json_every == 0 or phase == "place_joker"):
            self._json_round_trip()
        if self.step % self.clone_every == 0 or phase == "place_joker":
            self._clone_checks(legal, full=self.step % (self.clone_every * 4) == 0)
        action = self.policy(s, legal, self.prng)
        kind = self.cls(action)
        if self.strict:
            pre = self._snapshot(kind, p)
        else:
            pre = {"results": len(s.round_results), "round": getattr(s, "round", 0)}
        s.apply(action)
        self.step += 1
        self.counts.kinds[kind] = self.counts.kinds.get(kind, 0) + 1
        if self.step % self.check_every == 0:
            s.check_invariants()
        if self.strict:
            self._check_transition(action, kind, pre)
        elif len(s.round_results) != pre["results"]:
            self._count_round(s.round_results[-1]["reason"], pre["round"])
        if self.shadow is not None:
            self._shadow_step(action)

    # snapshots and transitions ------------------------------------------------------------------------------
    def _snapshot(self, kind: str, p: int) -> dict[str, Any]:
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
        # the hands' penalties, where the action may end the round (cheap check first)
        if (
            kind == "go_out"
            or (kind == "discard" and (s.hand_size[p] == 1 or s.turn >= self.rules.turn_cap or all(s.opened)))
            or (kind in ("draw_stock", "pass", "buy") and len(s.stock) <= 1)
        ):
            pre["pen"] = [s.penalty(q) for q in range(s.n)]
            if kind == "discard" and all(s.opened):
                pre["blocked"] = _nothing_fits(s)  # a discard moves a card between hand and pile: both outside
        return pre

    def _check_transition(self, action: int, kind: str, pre: dict[str, Any]) -> None:
        s = self.state
        p = pre["current"]
        n = s.n
        lay = self.lay
        if len(s.round_results) != pre["results"]:
            self._check_round_end(action, kind, pre)
            return
        if s.round_index != pre["round_index"]:
            _fail("the round changed without a round result")
        sizes = list(pre["sizes"])
        hand = s.hands[p]
        phase = s.phase
        if kind == "draw_discard":
            if pre["phase"] != "draw" or pre["top"] < 0:
                _fail("draw_discard outside the draw phase or from an empty discard pile")
            sizes[p] += 1
            if hand[pre["top"]] != pre["hand"][pre["top"]] + 1 or len(s.discard) != pre["discard_len"] - 1:
                _fail("draw_discard did not move the discard top into the hand")
            if phase != "act":
                _fail(f"draw_discard led to phase {phase!r}")
            self.taken = pre["top"]
            self.taken_played = False
        elif kind == "draw_stock":
            if pre["phase"] != "draw":
                _fail("draw_stock outside the draw phase")
            if phase == "buy":
                if pre["discard_len"] == 0:
                    _fail("a buy window opened on an empty discard pile")
                self.window = [(p + i) % n for i in range(1, n)]
                self.chain_buyer = -1
                self._check_window_head()
            else:
                if pre["discard_len"] and self.rules.buying:
                    _fail("declining a discard did not open the buy window")
                sizes[p] += 1
                self._expect_active_drew(phase)
        elif kind in ("buy", "pass"):
            if pre["phase"] != "buy" or not self.window or self.window[0] != p:
                _fail(f"{kind} by seat {p}, but the buy window expects {self.window[:1]}")
            if p == pre["active"] or p == self.chain_buyer:
                _fail(f"seat {p} may not buy now (active {pre['active']}, previous buyer {self.chain_buyer})")
            self.window.pop(0)
            if kind == "buy":
                sizes[p] += 2
                if hand[pre["top"]] < pre["hand"][pre["top"]] + 1:
                    _fail("the buyer did not get the bought card")
                self.chain_buyer = p
                self.counts.reshuffles += pre["stock_len"] == 0
                if pre["stock_len"] == 0 and s.discard != [pre["top2"]]:
                    # A.1-14: the penalty card came from a reshuffle of all discards but the (new) top
                    _fail(f"reshuffle for the penalty card left the discard pile {s.discard}, expected [{pre['top2']}]")
                if phase == "buy":
                    a = pre["active"]
                    self.window = [(a + i) % n for i in range(1, n) if (a + i) % n != p]
                    self._check_window_head()
                else:
                    if s.discard:
                        _fail("the buy chain ended with cards on the discard pile")
                    sizes[pre["active"]] += 1
                    self._expect_active_drew(phase)
            else:
                if phase == "buy":
                    self._check_window_head()
                else:
                    if self.window:
                        _fail(f"the buy window closed before asking {self.window}")
                    self.counts.reshuffles += pre["stock_len"] == 0
                    want_discard = 1 if pre["stock_len"] == 0 else pre["discard_len"]  # A.1-14 reshuffle
                    if len(s.discard) != want_discard or s.discard[-1] != pre["top"]:
                        _fail(
                            f"after the window the discard pile holds {len(s.discard)} cards, expected {want_discard}"
                        )
                    sizes[pre["active"]] += 1
                    self._expect_active_drew(phase)
        elif kind == "meld":
            if action < lay.MELD_RUN:
                cards = group_spec_cards(lay.groups[action - lay.MELD])
            else:
                cards = run_spec_cards(lay.runs[action - lay.MELD_RUN], lay.run_size)
            sizes[p] -= len(cards)
            self._played(cards)
            if len(s.table) != pre["table_melds"] + 1:
                _fail("a meld did not add one meld to the table")
            if phase == "act":
                self._check_opening(p, pre["turn"])
            elif phase != "opening":
                _fail(f"a meld led to phase {phase!r}")
        elif kind == "lay_off":
            k, _slot, _end = lay.decode_lay_off(action)
            sizes[p] -= 1
            self._played([k])
            self._expect_table(pre, 1)
        elif kind == "swap_joker":
            suit, pos, _slot = lay.decode_swap(action)
            self._played([pos_kind(suit, pos)])
            if hand[JOKER] != pre["hand"][JOKER] + 1:
                _fail("a joker swap did not give the joker to the hand")
            if phase != "place_joker":
                _fail(f"a joker swap led to phase {phase!r}")
            self._expect_table(pre, 0)
        elif kind == "place_joker":
            sizes[p] -= 1
            if hand[JOKER] != pre["hand"][JOKER] - 1:
                _fail("placing the freed joker did not take a joker from the hand")
            if phase != "act":
                _fail(f"placing the joker led to phase {phase!r}")
            self._expect_table(pre, 1)
            if self.taken == JOKER and not self.taken_played:
                self.counts.place_after_taken_joker += 1
        elif kind == "discard":
            k = action - lay.DISCARD
            sizes[p] -= 1
            if len(s.discard) != pre["discard_len"] + 1 or s.discard[-1] != k:
                _fail("a discard did not land on top of the discard pile")
            if phase != "draw" or s.active != (p + 1) % n or s.turn != pre["turn"] + 1:
                _fail("a discard did not pass the turn to the left neighbour")
            self._new_turn()
        elif kind == "go_out":
            _fail("going out did not end the round")
        if s.hand_size != sizes:
            _fail(f"{kind}: hand sizes {s.hand_size}, expected {sizes} (before {pre['sizes']})")

    def _expect_active_drew(self, phase: str) -> None:
        s = self.state
        if phase != "act" or s.current != s.active:
            _fail(f"after the draw the active player should act, phase {phase!r}, current {s.current}")
        self.taken = None
        self.taken_played = False

    def _expect_table(self, pre: dict[str, Any], added: int) -> None:
        s = self.state
        if len(s.table) != pre["table_melds"] or sum(len(m.cards) for m in s.table) != pre["table_cards"] + added:
            _fail(f"the table should have gained {added} card(s) and no meld")

    def _check_window_head(self) -> None:
        s = self.state
        if not self.window or s.current != self.window[0]:
            _fail(f"buy window: seat {s.current} asked, expected the first of {self.window}")

    def _played(self, cards: list[int]) -> None:
        if self.taken is not None and self.taken in cards:
            self.taken_played = True

    def _check_opening(self, p: int, turn: int) -> None:
        s = self.state
        g, r = s.contract
        melds = s.seat_melds[p]
        groups = [m for m in melds if m.kind == GROUP]
        runs = [m for m in melds if m.kind == RUN]
        if len(groups) != g or len(runs) != r:
            _fail(f"an opening of {len(groups)} groups and {len(runs)} runs for contract {g}+{r}")
        if any(len(m.cards) != self.rules.group_min for m in groups) or any(
            len(m.cards) != self.rules.run_min for m in runs
        ):
            _fail("an opening meld is not of the exact minimum length")
        for i, a in enumerate(runs):
            for b in runs[i + 1 :]:
                if a.suit == b.suit and (b.low == a.high + 1 or a.low == b.high + 1):
                    _fail(f"adjacent same-suit runs in one opening: {a} {b}")
        if p in self.opened_turn:
            _fail(f"seat {p} opened twice in one round")
        self.opened_turn[p] = turn
        self.counts.openings += 1

    def _check_round_end(self, action: int, kind: str, pre: dict[str, Any]) -> None:
        s = self.state
        p = pre["current"]
        res = s.round_results[-1]
        if len(s.round_results) != pre["results"] + 1 or res["round"] != pre["round"]:
            _fail("a round end must add exactly one result for the current round")
        pen = res["penalties"]
        winner = res["winner"]
        reason = res["reason"]
        if "pen" not in pre:
            _fail(f"{kind} ended the round ({res}) where it could not (stock {len(s.stock)}, turn {pre['turn']})")
        want = list(pre["pen"])
        if kind == "discard":
            k = action - self.lay.DISCARD
            if pre["sizes"][p] == 1:
                if reason != "out" or winner != p:
                    _fail(f"discarding the last card should win the round, got {res}")
                want[p] = 0
            elif reason == "blocked":
                if winner is not None or not pre.get("blocked"):
                    _fail(f"a discard ended the round as blocked ({res}) while a card could still be laid off")
                want[p] -= PENALTY[k]
            else:
                if reason != "turn_cap" or winner is not None or pre["turn"] != self.rules.turn_cap:
                    _fail(f"a discard ended the round with {res} at turn {pre['turn']}")
                want[p] -= PENALTY[k]
        elif kind == "go_out":
            if not self.rules.is_final_all_at_once(pre["round"]):
                _fail("go_out outside the final round")
            if reason != "out" or winner != p:
                _fail(f"go_out should win the round, got {res}")
            want[p] = 0
            if s.is_terminal():
                self._check_final_layout(p, pre["hand"])
        elif kind in ("draw_stock", "pass", "buy"):
            if reason != "exhausted" or winner is not None:
                _fail(f"{kind} ended the round with {res}")
            if kind == "buy":
                extra = pen[p] - want[p] - PENALTY[pre["top"]]
                if extra != 0 and extra not in PENALTY:
                    _fail(f"the buyer's penalty {pen[p]} does not match his hand plus the bought card")
                want[p] = pen[p]
        else:
            _fail(f"{kind} ended the round ({res})")
        if pen != want:
            _fail(f"round end penalties {pen}, expected {want}")
        if [a + b for a, b in zip(pre["scores"], pen)] != s.scores:
            _fail("scores did not grow by the round's penalties")
        self._count_round(reason, pre["round"])
        self._check_deal(pre)

    def _count_round(self, reason: str, round_no: int) -> None:  # noqa: C901
        c = self.counts
        c.rounds += 1
        if reason == "out":
            c.go_outs += 1
            final = getattr(self.rules, "is_final_all_at_once", None)
            if final is not None and final(round_no):
                c.go_outs_r7 += 1
            else:
                c.go_outs_r1_6 += 1
        elif reason == "exhausted":
            c.exhausted += 1
        elif reason == "turn_cap":
            c.turn_cap += 1
        elif reason == "blocked":
            c.blocked += 1

    def _check_final_layout(self, p: int, hand: list[int]) -> None:
        s = self.state
        melds = s.seat_melds[p]
        g, r = s.contract
        if len(melds) != r or any(m.kind != RUN for m in melds):
            _fail(f"going out laid {melds}, expected {r} runs")
        laid = [0] * NUM_KINDS
        for m in melds:
            if len(m.cards) < self.rules.run_min or meld_problem(m, self.rules):
                _fail(f"going out laid an invalid run {m}")
            for k in m.cards:
                laid[k] += 1
        if laid != hand:
            _fail("going out did not lay exactly the hand")
        for i, a in enumerate(melds):
            for b in melds[i + 1 :]:
                if a.suit == b.suit and (b.low == a.high + 1 or a.low == b.high + 1):
                    _fail(f"going out laid adjacent same-suit runs {a} {b}")

    def _check_deal(self, pre: dict[str, Any] | None) -> None:
        s = self.state
        self._new_round()
        if s.is_terminal():
            if s.current != -1 or len(s.round_results) != len(s.rounds) or s.legal_actions():
                _fail("game over: current -1, one result per round, no legal action")
            if [sum(r["penalties"][q] for r in s.round_results) for q in range(s.n)] != s.scores:
                _fail("final scores are not the sum of the round penalties")
            return
        size = self.rules.hand_sizes[s.round - 1]
        if pre is not None:
            if s.dealer != (pre["dealer"] + 1) % s.n:
                _fail("the deal did not pass to the left")
            if s.round_index != pre["round_index"] + 1:
                _fail("the next round is not the next of the session")
        if s.rounds[s.round_index] != s.round:
            _fail("round number mismatch")
        if s.hand_size != [size] * s.n or len(s.discard) != 1 or s.table:
            _fail("a fresh deal must give every seat its hand size, one upcard and an empty table")
        if len(s.stock) != s.shoe.size - s.n * size - 1:
            _fail("a fresh deal's stock has the wrong size")
        if s.phase != "draw" or s.active != (s.dealer + 1) % s.n or s.current != s.active or s.turn != 1:
            _fail("the dealer's left neighbour must start the round")

    # oracles on the state before an action ------------------------------------------------------------------
    def _oracles(self, legal: list[int]) -> None:
        s = self.state
        phase = s.phase
        lay = self.lay
        if phase == "buy":
            self._check_window_head()
            if legal != sorted([lay.BUY, lay.PASS]):
                _fail("the buy phase offers exactly buy and pass")
            return
        if phase == "draw":
            want = [lay.DRAW_STOCK] + ([lay.DRAW_DISCARD] if s.discard else [])
            if legal != sorted(want):
                _fail(f"the draw phase offers {legal}, expected {want}")
            return
        cls = self.cls
        p = s.active
        if s.current != p:
            _fail("only the active player acts after drawing")
        hand = s.hands[p]
        by: dict[str, list[int]] = {}
        for a in legal:
            by.setdefault(cls(a), []).append(a)
        if phase == "place_joker":
            if set(by) != {"place_joker"} or by["place_joker"] != self._expected_places(p):
                _fail(f"placements {by}, expected {self._expected_places(p)}")
            return
        final = s.final_round
        if phase == "opening":
            if set(by) != {"meld"}:
                _fail(f"mid-opening the player may only declare melds, got {sorted(by)}")
            self._maybe_scan_melds(p, by["meld"])
            return
        # act phase
        want_discards = [lay.DISCARD + k for k in range(NUM_KINDS) if hand[k] and self._discardable(hand, k)]
        if by.get("discard", []) != want_discards:
            _fail(
                f"discards {by.get('discard')}, expected {want_discards} (taken {self.taken}, played {self.taken_played})"
            )
        opened_before = p in self.opened_turn and self.opened_turn[p] < s.turn
        layoffs = self._expected_layoffs(p) if (opened_before and not final) else []
        if by.get("lay_off", []) != layoffs:
            _fail(f"lay-offs {by.get('lay_off')}, expected {layoffs}")
        swaps = self._expected_swaps(p) if (opened_before and not final) else []
        if sorted(by.get("swap_joker", [])) != swaps:
            _fail(f"joker swaps {by.get('swap_joker')}, expected {swaps}")
        if "meld" in by:
            if final or p in self.opened_turn:
                _fail("opening melds offered to a player who opened or in the final round")
            self._maybe_scan_melds(p, by["meld"])
        elif not final and p not in self.opened_turn:
            self.no_meld_states += 1
            if self.no_meld_states % self.meld_every == 0:
                # no meld offered: the contract must indeed be out of reach
                g, r = s.contract
                rules = self.rules
                spare = s.hand_size[p] - g * rules.group_min - r * rules.run_min
                if spare >= 1 and can_make_contract(hand, g, r, rules):
                    _fail("the contract is makeable but no opening meld is offered")
        if "go_out" in by and not final:
            _fail("go_out offered outside the final round")
        extra = set(by) - {"discard", "lay_off", "swap_joker", "meld", "go_out"}
        if extra:
            _fail(f"unexpected action kinds in the act phase: {sorted(extra)}")

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
        s = self.state
        lay = self.lay
        hand = s.hands[p]
        size = s.hand_size[p]
        placeable = any(m.kind == GROUP or m.low > 1 or m.high < MAX_POS for m in s.table)
        if not placeable:
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
        lay = self.lay
        rules = self.rules
        hand = s.hands[p]
        g, r = s.contract
        declared = []
        if s.phase == "opening":  # the melds already declared in this opening are the seat's table melds
            g -= sum(m.kind == GROUP for m in s.seat_melds[p])
            r -= sum(m.kind == RUN for m in s.seat_melds[p])
            declared = [(m.suit, m.low, m.high) for m in s.seat_melds[p] if m.kind == RUN]
        remaining = s.hand_size[p] - g * rules.group_min - r * rules.run_min
        want = []
        if remaining >= 1:
            for i, spec in enumerate(lay.groups):
                if not g:
                    break
                cards = group_spec_cards(spec)
                if self._rest_makeable(hand, cards, g - 1, r, declared):
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
        if offered != want:
            missing = [s.action_info(a) for a in want if a not in offered][:5]
            extra = [s.action_info(a) for a in offered if a not in want][:5]
            _fail(f"opening candidates differ from the catalog scan: missing {missing}, extra {extra}")

    def _rest_makeable(self, hand: list[int], cards: list[int], g: int, r: int, declared: list) -> bool:
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

    # expensive sampled checks ---------------------------------------------------------------------------------
    def _json_round_trip(self) -> None:
        s = self.state
        dump = s.to_json()
        text = json.dumps(dump)
        back = json.loads(text)
        if back != dump:
            _fail("to_json() is not plain JSON data (json round trip changed it)")
        loaded = load_state(back, **self.overrides)
        if loaded.to_json() != dump:
            _fail("load_state(to_json()) does not rebuild an identical state")
        if loaded.legal_actions() != s.legal_actions():
            _fail("the loaded state offers different legal actions")
        self.counts.json_round_trips += 1
        self.shadow = loaded
        self.shadow_left = self.json_window

    def _shadow_step(self, action: int) -> None:
        sh = self.shadow
        s = self.state
        sh.apply(action)
        self.shadow_left -= 1
        if self.shadow_left <= 0 or s.is_terminal() or s.phase == "place_joker":
            if sh.to_json() != s.to_json():
                _fail("continuing play from the loaded state diverges from the original")
            if not s.is_terminal() and sh.legal_actions() != s.legal_actions():
                _fail("the loaded state offers different legal actions after the same play")
            self.shadow = None

    def _clone_checks(self, legal: list[int], full: bool) -> None:
        s = self.state
        rng = self.prng
        before = s.to_json()
        hist = list(s.history)
        acts = legal if (full or len(legal) <= 6) else rng.sample(legal, 6)
        for a in acts:
            c = s.clone()
            try:
                c.apply(a)
            except IllegalActionError as exc:
                _fail(f"legal action {a} rejected by apply on a clone: {exc}")
            c.check_invariants()
            self.counts.legal_apply_checks += 1
        # clone independence: mutating clones (above) left the original unchanged
        if s.to_json() != before or s.history != hist:
            _fail("applying actions to clones changed the original state")
        legal_set = set(legal)
        bad: list[int] = []
        num = self.lay.num_actions
        while len(bad) < 4:
            a = rng.randrange(-2, num + 3)
            if a not in legal_set:
                bad.append(a)
        for a in bad[:2]:
            c = s.clone()
            try:
                c.apply(a)
            except IllegalActionError:
                pass
            else:
                _fail(f"non-legal action {a} accepted by apply")
            if c.to_json() != before or c.legal_actions() != legal or c.history != hist:
                _fail(f"a rejected action {a} changed the state")
            self.counts.illegal_reject_checks += 1
        a = bad[3]
        try:
            s.apply(a)
        except IllegalActionError:
            pass
        else:
            _fail(f"non-legal action {a} accepted by apply")
        if s.to_json() != before or s.legal_actions() != legal or s.history != hist:
            _fail(f"a rejected action {a} changed the state")
        self.counts.illegal_reject_checks += 1
        self.counts.clone_checks += 1

    def _check_replay(self) -> None:
        s = self.state
        r = new_state(self.profile, seed=self.seed, rounds=self.rounds, **self.overrides)
        for a in s.history:
            r.apply(a)
        if r.history != s.history or r.to_json() != s.to_json():
            _fail("replaying the history from new_state(seed) does not give the identical state")
        self.counts.replays += 1


# --------------------------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------------------------


def fuzz(
    profile: str = "contract",
    decisions: int = 500_000,
    seed: int = 0,
    policy: str = "mixed",
    check_every: int = 1,
    json_every: int = 97,
    clone_every: int = 101,
    meld_every: int = 16,
    json_window: int = 6,
    rounds: Any = None,
    max_examples: int = 5,
    max_violations: int = 50,
    **rule_overrides: Any,
) -> dict[str, Any]:
    """Play complete seeded sessions until at least ``decisions`` decisions; return counts (``violations`` == 0).

    ``policy``: ``"uniform"``, ``"biased"`` or ``"mixed"`` (the two alternate per session). Every session draws
    one seed from ``random.Random(seed)`` for the engine and its policy, so a run is reproducible. A session stops
    at its first violation (counted once); ``examples`` lists the first ``max_examples`` with the session seed,
    policy, step, error and history (rerun one with ``fuzz_session``). ``check_every``: call
    ``check_invariants()`` after every that many actions; ``json_every`` / ``clone_every``: spacing of the JSON
    round trips (followed by ``json_window`` actions on the loaded copy) and of the clone / legality checks;
    ``meld_every``: spacing of the opening-catalog scans; the run stops early after ``max_violations`` failed
    sessions. ``rounds`` and ``rule_overrides`` go to ``new_state``
    (the rule oracles of profile ``contract`` stay on for a ``turn_cap`` override only).
    """
    if policy not in ("mixed", *POLICIES):
        raise ValueError(f"policy={policy!r}: expected 'mixed', 'uniform' or 'biased'")
    from ..rules import PROFILES

    if profile not in PROFILES:
        raise ValueError(f"profile={profile!r}: expected one of {list(PROFILES)}")
    if decisions < 0:
        raise ValueError(f"decisions={decisions!r}: expected a non-negative number")
    cfg = {
        "check_every": check_every,
        "json_every": json_every,
        "clone_every": clone_every,
        "meld_every": meld_every,
        "json_window": json_window,
        "rounds": rounds,
        "overrides": rule_overrides,
    }
    master = random.Random(seed)
    counts = _Counts()
    per_policy = {name: {"sessions": 0, "decisions": 0} for name in POLICIES}
    sessions = 0
    total = 0
    violations = 0
    examples: list[dict[str, Any]] = []
    start = time.perf_counter()
    while total < decisions or sessions == 0:
        name = policy if policy != "mixed" else ("uniform", "biased")[sessions % 2]
        session_seed = master.getrandbits(63)
        sess = None
        try:
            sess = _Session(profile, session_seed, POLICIES[name], random.Random(session_seed), counts, **cfg)
            steps = sess.run()
        except Exception as exc:  # noqa: BLE001 - every failure of the engine is a finding
            steps = sess.step if sess is not None else 0
            violations += 1
            if len(examples) < max_examples:
                examples.append(
                    {
                        "session_seed": session_seed,
                        "policy": name,
                        "step": steps,
                        "error": f"{type(exc).__name__}: {exc}"[:2000],
                        "history": list(sess.state.history) if sess is not None else [],
                    }
                )
        sessions += 1
        total += steps
        per_policy[name]["sessions"] += 1
        per_policy[name]["decisions"] += steps
        if violations >= max_violations:
            break  # a broken engine: stop instead of fuzzing on (failed sessions may make no progress)
    secs = time.perf_counter() - start
    c = counts
    kinds = dict(c.kinds)
    return {
        "profile": profile,
        "seed": seed,
        "policy": policy,
        "sessions": sessions,
        "rounds": c.rounds,
        "decisions": total,
        "per_policy": per_policy,
        "kinds": kinds,
        "buys": kinds["buy"],
        "openings": c.openings,
        "lay_offs": kinds["lay_off"],
        "joker_swaps": kinds["swap_joker"],
        "joker_placements": kinds["place_joker"],
        "go_outs": c.go_outs,
        "go_outs_r1_6": c.go_outs_r1_6,
        "go_outs_r7": c.go_outs_r7,
        "exhausted_rounds": c.exhausted,
        "turn_cap_rounds": c.turn_cap,
        "blocked_rounds": c.blocked,
        "checks": {
            "json_round_trips": c.json_round_trips,
            "clone_checks": c.clone_checks,
            "legal_apply_checks": c.legal_apply_checks,
            "illegal_reject_checks": c.illegal_reject_checks,
            "meld_scans": c.meld_scans,
            "replays": c.replays,
            "place_after_taken_joker": c.place_after_taken_joker,
            "reshuffles": c.reshuffles,
        },
        "violations": violations,
        "examples": examples,
        "seconds": round(secs, 3),
        "decisions_per_second": round(total / secs, 1) if secs else 0.0,
    }


def fuzz_session(
    session_seed: int,
    policy: str = "biased",
    profile: str = "contract",
    check_every: int = 1,
    json_every: int = 97,
    clone_every: int = 101,
    meld_every: int = 16,
    json_window: int = 6,
    rounds: Any = None,
    **rule_overrides: Any,
) -> Any:
    """Rerun one fuzzed session (engine and policy seeded by ``session_seed``, as in ``fuzz``'s ``examples``),
    raising at the first violation; returns the final state."""
    sess = _Session(profile, session_seed, POLICIES[policy], random.Random(session_seed), _Counts(), check_every,
                    json_every, clone_every, meld_every, json_window, rounds, rule_overrides)  # fmt: skip
    sess.run()
    return sess.state


__all__ = ["ACTION_KINDS", "POLICIES", "FuzzViolation", "biased_policy", "fuzz", "fuzz_session", "uniform_policy"]
