"""Rules engine of Continental rummy (profile ``continental``, document 004, spec C.1/C.2).

No table melds: a hidden 15-card hand goes out all at once as runs only (2s and jokers wild). Same shape as the
Contract engine: ``current_player``, ``phase``, ``legal_actions()``, ``apply(action)``, ``clone()``, ``to_json()``.

| phase       | who acts           | legal actions                                                         |
|-------------|--------------------|-----------------------------------------------------------------------|
| `draw`      | the active player  | draw_stock, draw_discard; on his first turn with a valid dealt hand also declare (no draw: F = 10) |
| `act`       | the active player  | discard (16 cards in hand); discard_declare of a card whose discard leaves a valid 15 (go out) |
| `game_over` | nobody             | none                                                                  |

Declaring after the discard is part of the discard decision ("discard X" / "discard X and declare"), so no decision
point, turn order or observation depends on the hidden cards: the turn passes after every plain discard, whether
the 15 left are valid or not. With ``declare_mandatory`` a discard that leaves a valid 15 must declare (only its
``discard_declare`` is legal). Balances are zero-sum payments (C.1-6); higher is better.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from itertools import compress
from typing import Any

from ..core.cards import JOKER, NUM_KINDS, SUITS, Shoe, card_str
from ..core.melds import pos_kind, pos_text
from ..rules.continental import ContinentalRules
from ..rules.continental_hand import can_go_out as _can_go_out
from ..rules.continental_hand import count_wilds, find_partition, fitting_discards, one_suit_possible
from .actions import ContinentalLayout
from .common import (
    EngineState,
    ScenarioError,
    _card,
    _int_field,
    _sym_s,
    check_scenario,
    copy_rng,
    copy_round_results,
    is_int,
    list_field,
    load_cards,
    load_carried_scores,
    load_known,
    load_round_results,
    load_scores,
    make_rng,
    redeal_hidden,
    register_view,
    rng_from_json,
    rng_to_json,
    shuffled,
)
from .view import continental_view

DRAW = "draw"
ACT = "act"
GAME_OVER = "game_over"
PHASES = (DRAW, ACT, GAME_OVER)
#: the phase of the first release, in which the player was asked to declare after his discard (scenarios refuse it)
OLD_DECLARE_PHASE = "declare"


#: the one action table of every continental rules object (``rummy_env.engine.actions.ContinentalLayout``)
LAYOUT = ContinentalLayout()
#: every card kind, for selecting the held ones with ``itertools.compress``
_KINDS = tuple(range(NUM_KINDS))


class ContinentalState(EngineState):
    """A Continental session in progress: one seeded game, all its deals."""

    #: frozen snapshots the public views share while their part of the state is unchanged (``engine.view``): the
    #: publicly known cards per seat and the deal's fixed fields (None: rebuild; a move changing a known card
    #: drops it)
    _known_snap: Any = None
    _round_snap: Any = None
    #: the balances the session started with before its recorded deals (a scenario's ``scores``; None: all 0), so
    #: that ``scores`` is always these plus the ``round_results`` payments (JSON ``carried_scores``)
    carried_scores: list[int] | None = None

    @staticmethod
    def check_session_length(rules: ContinentalRules, rounds: Any) -> int:
        """The number of deals a session of ``rounds`` plays; ``ValueError`` saying what is allowed."""
        return _check_deals(rules, rounds)

    def __init__(
        self, rules: ContinentalRules, seed: int | None = None, rounds: int | None = None, *, deals: int | None = None
    ):
        """A new session of ``rounds`` deals (None: ``rules.num_deals``); ``deals=`` is the deprecated spelling."""
        rounds = deprecated_deals(rounds, deals)
        self.rules = rules
        self.layout = LAYOUT
        self.n = rules.num_players
        self.shoe = Shoe(rules.decks, rules.jokers)
        self.copies = self.shoe.copies_list()
        self.rng = make_rng(seed)
        self.seed = seed
        self.num_deals = _check_deals(rules, rounds)
        self.deal_index = 0
        self.scores = [0] * self.n
        self.round_results: list[dict[str, Any]] = []
        self.history: list[int] = []
        self._legal: list[int] | None = None
        self.dealer = int(self.rng.integers(self.n))
        self._deal()

    # setup ----------------------------------------------------------------------------------------------------
    @property
    def round(self) -> int:
        """The current deal number (1-based)."""
        return self.deal_index + 1

    def _clear_deal(self) -> None:
        n = self.n
        self.hands = [[0] * NUM_KINDS for _ in range(n)]
        self.hand_size = [0] * n
        self.known = [[0] * NUM_KINDS for _ in range(n)]
        self.turns_taken = [0] * n  # completed own turns this deal (C.2-3 "first turn")
        self.turn = 0
        self.taken_discard = -1
        self.drew = False
        self.stock: list[int] = []
        self.discard: list[int] = []
        self._known_snap = None

    def _deal(self) -> None:
        """C.1-2: shuffle, deal 15 each in packets of 3 from the dealer's left, one upcard, the rest is the stock."""
        self._clear_deal()
        r = self.rules
        cards = shuffled(self.rng, self.shoe.kinds())
        n = self.n
        i = 0
        for _packet in range(r.hand_size // r.deal_packet):
            for j in range(n):
                seat = (self.dealer + 1 + j) % n
                for _ in range(r.deal_packet):
                    self.hands[seat][cards[i]] += 1
                    i += 1
        self.hand_size = [r.hand_size] * n
        self.discard = [cards[i]]
        self.stock = cards[i + 1 :][::-1]
        self.active = (self.dealer + 1) % n
        self.current_player = self.active
        self.phase = DRAW
        self.turn = 1

    # queries --------------------------------------------------------------------------------------------------
    def is_terminal(self) -> bool:
        """True once the last deal of the session is settled."""
        return self.phase == GAME_OVER

    def returns(self) -> list[float]:
        """Each seat's balance (zero-sum payments)."""
        return [float(s) for s in self.scores]

    def winners(self) -> list[int]:
        """Seats with the highest balance (tied leaders share, C.1-8)."""
        best = max(self.scores)
        return [p for p in range(self.n) if self.scores[p] == best]

    def hand_cards(self, seat: int) -> list[int]:
        """Kinds in ``seat``'s hand, sorted."""
        return [k for k, c in enumerate(self.hands[seat]) for _ in range(c)]

    def can_go_out(self, seat: int) -> bool:
        """Do ``seat``'s cards split into valid runs (C.1-3, C.1-4)?"""
        r = self.rules
        return _can_go_out(self.hands[seat], patterns=r.patterns, min_run=r.min_run)

    def payment(self, seat: int, no_draw: bool) -> int:
        """C.1-6: what each opponent pays ``seat`` going out with the current hand."""
        r = self.rules
        h = self.hands[seat]
        deuces, jokers = count_wilds(h)
        w = deuces + 2 * jokers
        pay = r.base_payment + (w if w > 0 else r.no_wild_bonus)
        if self.turns_taken[seat] == 0:
            pay += r.no_draw_bonus if no_draw else r.first_turn_bonus
        if one_suit_possible(h, patterns=r.patterns, min_run=r.min_run):
            pay += r.one_suit_bonus
        return pay

    # legal actions --------------------------------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        """Sorted ids of the legal actions of the player to move."""
        if self._legal is None:
            lay = self.layout
            p = self.active
            if self.phase == DRAW:
                acts = [lay.DRAW_STOCK]
                if self.discard:
                    acts.append(lay.DRAW_DISCARD)
                # C.1-5: at the start of his own first turn a valid dealt hand may be declared without drawing
                if self.turns_taken[p] == 0 and self.can_go_out(p):
                    acts.append(lay.DECLARE)
            elif self.phase == ACT:
                acts = self._discards(p)
            else:
                acts = []
            acts.sort()
            self._legal = acts
        return self._legal

    def _discards(self, p: int) -> list[int]:
        """C.1-5 / C.2-7: each card but the one just taken from the pile may go; with it the player goes out when
        the 15 left are valid (``discard_declare``); with ``declare_mandatory`` such a discard must declare."""
        lay = self.layout
        r = self.rules
        hand = self.hands[p]
        kinds = list(compress(_KINDS, hand))  # the kinds held, ascending
        t = self.taken_discard
        if t >= 0 and r.forbid_rediscard and hand[t] == 1:
            kinds.remove(t)
        fits = fitting_discards(hand, kinds, patterns=r.patterns, min_run=r.min_run)
        if not fits:  # most hands: only the plain discards
            ids = lay.discard_ids
            return [ids[k] for k in kinds]
        fit = set(fits)
        acts = [lay.DISCARD + k for k in kinds if not (r.declare_mandatory and k in fit)]
        acts.extend(lay.DISCARD_DECLARE + k for k in fit)
        return acts

    # transitions ----------------------------------------------------------------------------------------------
    def _dispatch(self, action: int) -> None:
        """Apply a legal action (no checks), routed by its range to that range's handler (``_APPLY``, as
        ``layout.handlers``)."""
        self._legal = None
        lay = self.layout  # ``lay.kind_of(action)``'s range, inlined: its handler by the range's index
        lay.handlers[lay.range_index[action]](self, action)

    def _draw_stock(self, action: int = -1) -> None:
        """Draw the stock top (C.1-7: a reshuffle when it is empty, a drawn deal when nothing is left)."""
        p = self.active
        k = self._stock_card()
        if k < 0:
            return
        self.hands[p][k] += 1
        self.hand_size[p] += 1
        self.taken_discard = -1
        self.phase = ACT

    def _draw_discard(self, action: int = -1) -> None:
        """Take the discard top (public: it stays known in the hand)."""
        p = self.active
        k = self.discard.pop()
        self.hands[p][k] += 1
        self.hand_size[p] += 1
        self.known[p][k] += 1
        self._known_snap = None
        self.taken_discard = k
        self.phase = ACT

    def _discard(self, kind: int, declare: bool) -> None:
        """Discard ``kind``; with ``declare`` go out with the 15 left (C.1-5), else the turn passes."""
        p = self.active
        self.hands[p][kind] -= 1
        self.hand_size[p] -= 1
        if self.known[p][kind]:
            self.known[p][kind] -= 1
            self._known_snap = None
        self.discard.append(kind)
        if declare:
            self._go_out(no_draw=False)  # C.1-5: the 15 left are revealed, the deal ends
        else:
            self._next_turn()

    def _stock_card(self) -> int:
        """C.1-7: reshuffle all discards but the top when the stock is empty; nothing to recycle: drawn deal."""
        if not self.stock:
            if len(self.discard) <= 1:
                self._end_deal(winner=-1, reason="exhausted", payment=0)
                return -1
            top = self.discard[-1]
            self.stock = shuffled(self.rng, self.discard[:-1])
            self.discard = [top]
        return self.stock.pop()

    def _next_turn(self) -> None:
        self.turns_taken[self.active] += 1
        self.active = (self.active + 1) % self.n
        self.current_player = self.active
        self.taken_discard = -1
        self.phase = DRAW
        self.turn += 1
        if self.turn > self.rules.turn_cap:
            self._end_deal(winner=-1, reason="turn_cap", payment=0)  # C.2-5: a drawn deal, no payment

    def _go_out(self, no_draw: bool) -> None:
        p = self.active
        self._end_deal(winner=p, reason="out", payment=self.payment(p, no_draw))

    def _end_deal(self, winner: int, reason: str, payment: int) -> None:
        """C.1-6: every opponent pays the winner; a drawn deal pays nothing. C.2-4: the deal passes left."""
        deltas = [0] * self.n
        if winner >= 0:
            for q in range(self.n):
                if q != winner:
                    deltas[q] = -payment
            deltas[winner] = payment * (self.n - 1)
        result: dict[str, Any] = {
            "round": self.round,
            "winner": winner if winner >= 0 else None,
            "reason": reason,
            "payments": deltas,
        }
        if winner >= 0:
            r = self.rules
            runs = find_partition(
                self.hands[winner],
                one_suit=one_suit_possible(self.hands[winner], patterns=r.patterns, min_run=r.min_run),
                patterns=r.patterns,
                min_run=r.min_run,
            )
            result["melds"] = [_run_strings(run) for run in runs or []]
        for q in range(self.n):
            self.scores[q] += deltas[q]
        self.round_results.append(result)
        self._legal = None
        if self.deal_index + 1 < self.num_deals:
            self.deal_index += 1
            self.dealer = (self.dealer + 1) % self.n
            self._deal()
        else:
            self.phase = GAME_OVER
            self.current_player = -1

    # copies, descriptions, JSON -------------------------------------------------------------------------------
    def clone(self) -> ContinentalState:
        """An independent deep copy (generator included)."""
        new = copy.copy(self)
        new.hands = [list(h) for h in self.hands]
        new.known = [list(h) for h in self.known]
        new.hand_size = list(self.hand_size)
        new.turns_taken = list(self.turns_taken)
        new.stock = list(self.stock)
        new.discard = list(self.discard)
        new.scores = list(self.scores)
        new.round_results = copy_round_results(self.round_results)
        new.history = list(self.history)
        new.rng = copy_rng(self.rng)
        new._legal = list(self._legal) if self._legal is not None else None
        return new

    def resample_hidden(self, seat: int, rng: Any) -> ContinentalState:
        """A clone with every card ``seat`` cannot see redealt at random (stock order, opponents' unknown cards).

        No phase reveals anything about a hidden hand (the declaration is part of the discard), so every
        opponent's unknown cards are redealt, the mover's included.
        """
        return redeal_hidden(self.clone(), seat, rng)

    def action_info(self, action: int) -> dict[str, Any]:
        """Structured description of ``action`` (schema: docs/environments/continental.md)."""
        name = self.layout.kind_of(int(action))
        if name == "draw_stock":
            return {"kind": "draw_stock"}
        if name == "draw_discard":
            return {"kind": "draw_discard", "card": card_str(self.discard[-1]) if self.discard else None}
        if name == "discard":
            return {"kind": "discard", "card": card_str(action - self.layout.DISCARD)}
        if name == "discard_declare":
            return {"kind": "discard_declare", "card": card_str(action - self.layout.DISCARD_DECLARE)}
        return {"kind": "declare", "draw": False}

    def describe_action(self, action: int) -> str:
        """Readable description of ``action``."""
        info = self.action_info(action)
        kind = info["kind"]
        if kind == "draw_stock":
            return "draw from the stock"
        if kind == "draw_discard":
            return f"take {_sym_s(info['card'])} from the discard pile"
        if kind == "discard":
            return f"discard {_sym_s(info['card'])}"
        if kind == "discard_declare":
            return f"discard {_sym_s(info['card'])} and declare: reveal the 15 cards left and go out"
        return "declare: reveal all 15 cards and go out without drawing"

    def to_json(self) -> dict[str, Any]:
        """The state in the scenario format; ``load_state`` gives back an identical state."""
        n = self.n
        return {
            "profile": self.rules.name,
            "round": self.round,
            "dealer": self.dealer,
            "current_player": self.current_player,
            "phase": self.phase,
            "hands": [[card_str(k) for k in self.hand_cards(p)] for p in range(n)],
            "discard": [card_str(k) for k in reversed(self.discard)],
            "stock": [card_str(k) for k in reversed(self.stock)],
            "scores": list(self.scores),
            "active": self.active,
            "turn": self.turn,
            "turns_taken": list(self.turns_taken),
            "taken_discard": card_str(self.taken_discard) if self.taken_discard >= 0 else None,
            "known": [[card_str(k) for k in range(NUM_KINDS) for _ in range(self.known[p][k])] for p in range(n)],
            "deals": self.num_deals,
            "round_results": copy.deepcopy(self.round_results),
            **({"carried_scores": list(self.carried_scores)} if self.carried_scores else {}),
            "num_players": n,
            "rng": rng_to_json(self.rng),
        }

    def check_invariants(self) -> None:
        """Raise ``AssertionError`` if an accounting invariant breaks (tests and fuzzers)."""
        total = [0] * NUM_KINDS
        for p in range(self.n):
            assert sum(self.hands[p]) == self.hand_size[p]
            for k in range(NUM_KINDS):
                assert 0 <= self.known[p][k] <= self.hands[p][k]
                total[k] += self.hands[p][k]
        for k in self.stock + self.discard:
            total[k] += 1
        assert total == self.copies, "every physical card is accounted for exactly once"
        assert sum(self.scores) == 0, "payments are zero-sum"
        if self.phase != GAME_OVER:
            assert self.legal_actions()
            expected = self.rules.hand_size + (1 if self.phase == ACT else 0)
            assert self.hand_size[self.active] == expected


def _apply_declare(st: ContinentalState, action: int) -> None:
    st._go_out(no_draw=True)  # C.1-5: a valid dealt hand, without drawing


def _apply_discard(st: ContinentalState, action: int) -> None:
    st._discard(action - st.layout.DISCARD, declare=False)


def _apply_discard_declare(st: ContinentalState, action: int) -> None:
    st._discard(action - st.layout.DISCARD_DECLARE, declare=True)


#: how each range of the action table is applied (``ContinentalState._dispatch``); every range has its handler
#: (module-level functions, never lambdas: the layout holding them pickles)
_APPLY: dict[str, Callable[[ContinentalState, int], None]] = {
    "draw_stock": ContinentalState._draw_stock,  # the methods themselves where no translation is needed
    "draw_discard": ContinentalState._draw_discard,
    "declare": _apply_declare,
    "discard": _apply_discard,
    "discard_declare": _apply_discard_declare,
}
#: ``ContinentalState._dispatch``'s table: the handler per range index of the layout
LAYOUT.handlers = tuple(_APPLY[name] for name in LAYOUT.range_names)


def _the_layout() -> ContinentalLayout:
    """``LAYOUT`` (what a copy or pickle of a state names: the one table, not a new one)."""
    return LAYOUT


LAYOUT.rebuild = (_the_layout, ())


def _run_strings(run: Any) -> list[str]:
    """A run of the going-out split as card strings, wilds with their declared position (``2C(6H)``)."""
    out = []
    for i, k in enumerate(run.cards):
        pos = run.low + i
        if k == pos_kind(run.suit, pos):
            out.append(card_str(k))
        else:
            decl = f"{pos_text(pos)}{SUITS[run.suit]}"
            out.append(f"{'JK' if k == JOKER else card_str(k)}({decl})")
    return out


def _check_deals(rules: ContinentalRules, deals: Any) -> int:
    if deals is None:
        return rules.num_deals
    if not isinstance(deals, int) or isinstance(deals, bool) or deals < 1:
        raise ValueError(f"rounds={deals!r}: expected a positive number of deals")
    return deals


def deprecated_deals(rounds: Any, deals: Any) -> Any:
    """The session length from ``rounds`` or the old spelling ``deals`` (``DeprecationWarning``; not both)."""
    if deals is None:
        return rounds
    if rounds is not None:
        raise ValueError(f"rounds={rounds!r} and deals={deals!r}: give the session length once, as rounds=")
    warnings.warn("deals= is the old spelling of rounds= (the session length of every profile); use rounds=",
                  DeprecationWarning, stacklevel=3)
    return deals


def layout_for(rules: ContinentalRules) -> ContinentalLayout:
    """The action table of ``rules`` (one for every continental rules object)."""
    return LAYOUT


def load_state(data: dict[str, Any], rules: ContinentalRules, seed: int | None = None) -> ContinentalState:
    """Build a state from the JSON scenario format (omitted piles are shuffled from the unplaced cards)."""
    allowed = {
        "profile", "round", "dealer", "current_player", "phase", "hands", "discard", "stock", "scores", "active",
        "turn", "turns_taken", "taken_discard", "known", "deals", "round_results", "num_players", "rng",
        "carried_scores",
    }  # fmt: skip
    n = check_scenario(data, allowed, rules)
    st = ContinentalState.__new__(ContinentalState)
    st.rules, st.layout, st.n, st.seed = rules, LAYOUT, n, seed
    st.shoe = Shoe(rules.decks, rules.jokers)
    st.copies = st.shoe.copies_list()
    st.history = []
    st._legal = None
    st.num_deals = _int_field(data, "deals", rules.num_deals, 1, 10**6)
    st.deal_index = _int_field(data, "round", 1, 1, st.num_deals) - 1
    st.rng = rng_from_json(data["rng"]) if "rng" in data else make_rng(seed)
    st.dealer = _int_field(data, "dealer", 0, 0, n - 1)
    st._clear_deal()
    scores = load_scores(data, n)
    if sum(scores) != 0:
        raise ScenarioError(f"'scores' are zero-sum balances, got {scores!r} (sum {sum(scores)})")
    st.scores = scores
    phase = data.get("phase", DRAW)
    if phase == OLD_DECLARE_PHASE:
        raise ScenarioError(
            "phase 'declare' no longer exists: the declaration after the discard is part of the discard "
            f"(action discard_declare in phase 'act'); allowed phases: {list(PHASES)}"
        )
    if not isinstance(phase, str) or phase not in PHASES:
        raise ScenarioError(f"unknown phase {phase!r}; allowed: {list(PHASES)}")
    st.round_results = _load_results(st, data, phase)
    st.carried_scores = load_carried_scores(data, n, scores, st.round_results, "payments")
    load_cards(st, data, rules.name, [0] * NUM_KINDS)
    st.phase = phase
    st.active = _int_field(data, "active", data.get("current_player", (st.dealer + 1) % n), 0, n - 1)
    st.current_player = -1 if phase == GAME_OVER else st.active
    if "current_player" in data and (not is_int(data["current_player"]) or data["current_player"] != st.current_player):
        raise ScenarioError(f"'current_player' {data['current_player']!r} does not match (expected {st.current_player})")
    # a deal ended by the turn cap has counted the turn past it (C.2-5): at game over the dump holds turn_cap + 1
    st.turn = _int_field(data, "turn", 1, 1, rules.turn_cap + (1 if phase == GAME_OVER else 0))
    tt = data.get("turns_taken", [0] * n)
    if not isinstance(tt, list) or len(tt) != n or not all(is_int(x) and 0 <= x <= rules.turn_cap for x in tt):
        raise ScenarioError(
            f"'turns_taken' must be a list of {n} integers in 0..{rules.turn_cap} (the turn cap), got {tt!r}"
        )
    st.turns_taken = list(tt)
    taken = data.get("taken_discard")
    st.taken_discard = _card(taken, "taken_discard") if taken is not None else -1
    load_known(st, data)
    if phase != GAME_OVER:
        need = rules.hand_size + (1 if phase == ACT else 0)
        for p in range(n):
            want = need if p == st.active else rules.hand_size
            if st.hand_size[p] != want:
                raise ScenarioError(f"hands[{p}] holds {st.hand_size[p]} cards; phase '{phase}' needs {want}")
    return st


#: why a deal ended, as ``round_results`` records it (C.1-6, C.1-7, C.2-5)
END_REASONS = ("out", "exhausted", "turn_cap")


def _load_results(st: ContinentalState, data: dict[str, Any], phase: str) -> list[dict[str, Any]]:
    """``round_results``: one well-formed entry per deal finished before the current one (at game over, the
    current one too), for the last of those deals (all of them in a dump; a scenario may leave out earlier ones, whose
    balances its ``scores`` carry); each with ``round``, ``winner``, ``reason``, zero-sum ``payments`` (and, with a
    winner, optionally the ``melds`` of the going-out split)."""
    n = st.n
    finished = st.deal_index + (phase == GAME_OVER)
    results = list_field(data, "round_results", [])
    if len(results) > finished:
        raise ScenarioError(
            f"'round_results' has {len(results)} entries; {finished} deal(s) of the {st.num_deals} of 'deals' are "
            f"finished before deal 'round' {st.round}{' (and it, at game over)' if phase == GAME_OVER else ''}"
        )
    base = [{k: v for k, v in res.items() if k != "melds"} if isinstance(res, dict) else res for res in results]
    first = finished - len(results) + 1
    checked = load_round_results({"round_results": base}, n, range(first, finished + 1), "payments", END_REASONS)
    for i, (res, plain) in enumerate(zip(results, checked)):
        where = f"round_results[{i}]"
        pay = plain["payments"]
        if sum(pay) != 0 or (plain["winner"] is None and any(pay)):
            raise ScenarioError(
                f"'{where}.payments' must be zero-sum and all 0 for a deal without a winner, got {pay!r}"
            )
        if "melds" in res:
            melds = res["melds"]
            ok = plain["winner"] is not None and isinstance(melds, list) and len(melds) <= st.rules.hand_size
            if not ok or not all(isinstance(m, list) and all(isinstance(c, str) and len(c) <= 12 for c in m)
                                 for m in melds) or sum(len(m) for m in melds) > st.rules.hand_size + 1:
                raise ScenarioError(
                    f"'{where}.melds' (only with a winner) must be the going-out runs: lists of card strings "
                    f"({st.rules.hand_size} cards in all), got {melds!r}"
                )
            plain["melds"] = [list(m) for m in melds]
    return checked


register_view(ContinentalState, continental_view)  # ``state.public_view(seat)``, ``engine.view.view_builder``


__all__ = ["ContinentalState", "ContinentalLayout", "LAYOUT", "layout_for", "load_state", "PHASES"]
