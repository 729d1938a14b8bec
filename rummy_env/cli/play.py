"""A person plays a profile in the terminal against bots: ``rummy play --profile contract --opponents heuristic
random random``.

At each of the person's decisions the table is shown as the person's public view shows it (``table_lines``: the
round and its contract -- continental: the run patterns a hand may go out with and the wild cards --, every seat
with its cards, the cards publicly known to be in its hand, melds and score, the discard top, the person's hand)
with the legal moves numbered by their readable descriptions. Seats are named the same way everywhere (``You`` for
the person, ``P<n> (bot)`` for the others; ``P<n>'s run`` / ``your run`` in move lines) and a joker is ``JK``
everywhere, with what it stands for noted as ``(JK = 7♥)``.

``rummy play`` starts by naming the seed (``--seed``, default 0) and the command line that plays the same
game again. A decision with exactly one legal move (the rest of an opening, a forced discard) is not
asked: it is played for the person and shown on one line, ``You: only move: <move>``. A buy window (Contract
Rummy: a declined discard is offered to the other seats in turn) is announced when it opens -- who declined which
card and to whom, in which order, it is offered --, and again when a buy offers the card below to the next seats
(``Buy window again: ...``, saying who may not buy and why); a pass names its card and the person asked sees who
passed before.

A move is chosen by its number, by a card (``7C``, ``10♥``, ``JK``), by a word (``stock``, ``pile``, ``buy``,
``pass``, ``out``, ``declare``: the words of the profile's moves) or by a word and a card (``discard 7C``,
``declare 7C`` in continental). A card with one move is played; a card with several (a discard and a lay-off, a
discard with or without declaring) lists them and asks for the number. A card that no move plays is explained
(not drawn yet, the card taken from the discard pile this turn may not be discarded again, ...). ``moves`` lists
the moves again, ``quit`` (or the end of the input) leaves and prints the scores so far. Bad input is answered
with a hint and asked again. The card the person draws from the stock (and the penalty card of a buy) is named to
the person; the bots' stock draws stay hidden. Every round is announced with its contract and ends with a summary
of its penalties (or payments) and the running totals.
"""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Sequence
from typing import Any, TextIO

import numpy as np

import rummy_env

from .. import bots
from ..core.cards import SUIT_SYMBOLS, SUITS, card_str, parse_card
from ..core.files import InputFileError, read_json
from ..envs.picture import round_text
from ..evaluation.tournament import env_config_from_args, resolve_num_players
from ..registry import game
from .tournament import add_session_length_arguments

#: words accepted for the action kinds that need no card
KIND_WORDS = {
    "stock": "draw_stock",
    "draw": "draw_stock",
    "pile": "draw_discard",
    "take": "draw_discard",
    "buy": "buy",
    "pass": "pass",
    "out": "go_out",
    "declare": "declare",
}
#: the words a hint names, in this order, when the profile has their kind
HINT_WORDS = ("stock", "pile", "buy", "pass", "out", "declare")
#: words that take a card: ``discard 7C``; ``declare 7C`` (continental: discard 7C and declare)
CARD_WORDS = {"discard": ("discard",), "d": ("discard",), "declare": ("discard_declare",)}
QUIT_WORDS = ("quit", "q", "exit")
LIST_WORDS = ("moves", "m", "list", "help", "h", "?")

#: the largest scenario file ``--scenario`` reads (a position is a few KB)
MAX_SCENARIO_BYTES = 1 << 20
#: the longest move number read as a number (longer digit strings are answered as no such move)
MAX_MOVE_DIGITS = 9

_SEAT_OF = re.compile(r"\bseat (\d+)'s\b")
_JOKER_AS = re.compile(r"JK\(([^)]*)\)")


class Quit(Exception):
    """The person left the game."""


class PlayError(ValueError):
    """A game ``rummy play`` cannot start: a seat that does not exist, an opponent that cannot be loaded (an unknown
    id, a bad checkpoint, a checkpoint without torch: the install hint), a scenario file that cannot be read."""


def plural(n: int, word: str) -> str:
    """``1 card``, ``2 cards``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _sym(text: str) -> str:
    """A card text with suit symbols: ``7C`` -> ``7♣`` (``7`` and ``JK`` unchanged)."""
    if len(text) > 1 and text[-1] in SUITS:
        return text[:-1] + SUIT_SYMBOLS[SUITS.index(text[-1])]
    return text


def joker_text(text: str) -> str:
    """One spelling of jokers: ``JK(7H)`` becomes ``JK`` and what each joker stands for follows as ``(JK = 7♥)``."""
    stands = [_sym(m) for m in _JOKER_AS.findall(text)]
    if not stands:
        return text
    return _JOKER_AS.sub("JK", text) + f" (JK = {', '.join(stands)})"


def contract_text(groups: int, runs: int) -> str:
    """``2 groups + 1 run``."""
    return f"{plural(groups, 'group')} + {plural(runs, 'run')}"


def patterns_text(rules: Any) -> str:
    """Continental's going-out target: the run patterns and the wild cards."""
    pats = " or ".join("+".join(map(str, pt)) for pt in rules.patterns)
    return (
        f"go out with all {rules.hand_size} cards in runs of one suit ({pats}; a run has at least {rules.min_run} "
        "cards); wild: every 2 and the jokers (JK)"
    )


class TerminalGame:
    """One session of ``profile`` with a person at ``seat`` and bots at the other seats."""

    def __init__(
        self,
        profile: str,
        opponents: Sequence[str],
        seat: int = 0,
        seed: int = 0,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        scenario: dict[str, Any] | None = None,
        **env_config: Any,
    ):
        n = len(opponents) + 1
        resolve_num_players(profile, n)
        if not 0 <= seat < n:
            raise PlayError(f"seat {seat} does not exist: with {len(opponents)} opponent(s) the seats are 0..{n - 1}")
        self.profile = profile
        self.seat = seat
        self.n = n
        self.stdin = stdin if stdin is not None else sys.stdin
        self.stdout = stdout if stdout is not None else sys.stdout
        self.env = rummy_env.make(
            profile, num_players=n, render_mode="ansi", **{"illegal_action": "raise", **env_config}
        )
        others = [s for s in range(n) if s != seat]
        self.specs: dict[int, str] = dict(zip(others, opponents))
        self.bots: dict[int, Any] = {}
        for i, s in enumerate(others):
            try:
                self.bots[s] = bots.load(self.specs[s], seed=seed + 1 + i)
            except (ValueError, OSError, ImportError) as exc:  # ImportError: a checkpoint without torch (its hint)
                raise PlayError(f"opponent {self.specs[s]!r} cannot be loaded: {exc}") from None
        self.env.reset(seed=seed, options={"scenario": scenario} if scenario is not None else None)
        self.raw = self.env.unwrapped
        self.me = self.raw.possible_agents[seat]
        #: the action kinds of this profile (the hint names the words of these only)
        self.kinds = set(self.raw.layout.ranges)
        #: the person declined the discard and waits for the stock card (after the buy window)
        self._awaiting_stock = False
        #: the buy window open now (``tell_buy_window``): card, why it is offered, the seats in turn, who passed
        self._window: dict[str, Any] | None = None

    # ------------------------------------------------------------------------------------------------------------
    def say(self, text: str = "") -> None:
        """Write a line to the player."""
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def name(self, p: int) -> str:
        """How seat ``p`` is called in messages: ``You`` or ``P2 (random)``."""
        return "You" if p == self.seat else f"P{p} ({self.specs[p]})"

    def who(self, p: int) -> str:
        """Seat ``p`` inside a sentence: ``you`` or ``P2 (random)``."""
        return "you" if p == self.seat else self.name(p)

    def seats_text(self, seats: Sequence[int]) -> str:
        """``P2 (random), P3 (heuristic) and you``."""
        names = [self.who(p) for p in seats]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]

    def describe(self, action: int) -> str:
        """The engine's description of ``action`` with the seats named as everywhere else (``P2's run``, ``your
        run``), one spelling of jokers (``joker_text``) and, in a buy window, the card a pass declines."""
        text = self.raw.describe_action(action)
        text = _SEAT_OF.sub(lambda m: "your" if int(m.group(1)) == self.seat else f"P{m.group(1)}'s", text)
        if self.raw.action_info(action)["kind"] == "pass":
            offered = getattr(self.raw.public_view(self.me), "offered", -1)
            if offered >= 0:
                text = f"pass on {card_str(offered, symbols=True)} (do not buy)"
        return joker_text(text)

    def legal(self) -> list[int]:
        """The person's legal actions, in id order."""
        agent = self.env.agent_selection
        return [int(a) for a in np.flatnonzero(self.raw.action_mask(agent))]

    def show_moves(self, legal: list[int]) -> None:
        """The numbered list of legal moves."""
        self.say("Your moves:")
        for i, a in enumerate(legal, 1):
            self.say(f"  {i:>3}. {self.describe(a)}")

    def words(self) -> list[str]:
        """The move words of this profile."""
        return [w for w in HINT_WORDS if KIND_WORDS[w] in self.kinds]

    def hint(self, legal: list[int], why: str) -> None:
        """Answer bad input."""
        self.say(
            f"{why} Type a move number 1-{len(legal)}, a card (e.g. 7C or 10♥) to discard it or play it, 'discard "
            f"7C', a word ({', '.join(self.words())}), 'moves' to list the moves again, or 'quit'."
        )

    # the table --------------------------------------------------------------------------------------------------
    def round_title(self, view: Any) -> str:
        """``Round 2 of 7: contract 1 group + 1 run`` / ``Deal 2 of 4``, with the dealer."""
        if hasattr(view, "num_deals"):
            return f"Deal {view.round} of {view.num_deals}, P{view.dealer} deals"
        g, r = view.contract
        title = round_text(view.round, view.rounds)
        return f"{title[0].upper()}{title[1:]}: contract {contract_text(g, r)}, P{view.dealer} deals"

    def announce_round(self) -> None:
        """The start of a round (deal): its number, contract (continental: the target and the wild cards)."""
        view = self.raw.public_view(self.me)
        self.say("")
        self.say(f"=== {self.round_title(view)} ===")
        if hasattr(view, "num_deals"):
            self.say("Goal: " + patterns_text(view.rules) + ".")
        elif view.final_round:
            self.say("Final round: go out all at once (the whole hand as runs, 'out').")

    def table_lines(self, view: Any) -> list[str]:
        """The table as ``view`` (the person's public view) shows it."""
        v = view
        continental = hasattr(v, "num_deals")
        top = card_str(v.discard[-1], symbols=True) if v.discard else "-"
        lines = [
            f"{self.round_title(v)}; turn {v.turn}; stock {plural(v.stock_size, 'card')}; discard pile "
            f"{plural(len(v.discard), 'card')}",
        ]
        if continental:
            lines.append("Goal: " + patterns_text(v.rules))
        lines.append(f"Discard top: {top}")
        for p in range(v.num_players):
            mark = "*" if p == v.current else " "
            who = f"You (P{p})" if p == self.seat else self.name(p)
            facts = [plural(v.hand_sizes[p], "card")]
            if continental:
                facts.append(f"balance {v.scores[p]}")
                if v.turns_taken[p] == 0:
                    facts.append("first turn to come")
            else:
                facts.append("opened" if v.opened[p] else "not opened")
                facts.append(f"score {v.scores[p]}")
            line = f"{mark}{who}: " + ", ".join(facts)
            known = [k for k, c in enumerate(v.known[p]) for _ in range(c)] if p != self.seat else []
            if known:
                line += "; known in hand: " + " ".join(card_str(k, symbols=True) for k in known)
            lines.append(line)
            if not continental:
                for i, m in enumerate(v.melds[p], 1):
                    cards = " ".join(_sym(c) for c in m.card_strings())
                    lines.append(f"      meld {i}: {m.kind} {joker_text(cards)}")
        if v.taken_discard >= 0 and v.active == self.seat:
            lines.append(f"You took {card_str(v.taken_discard, symbols=True)} from the discard pile this turn.")
        if getattr(v, "must_place", -1) >= 0 and v.active == self.seat:
            lines.append(f"{card_str(v.must_place, symbols=True)} (picked up from the pile) must reach the table "
                         "this turn.")  # fmt: skip
        if getattr(v, "offered", -1) >= 0:
            lines.append(self.window_line(v))
        lines.append("Hand: " + " ".join(card_str(k, symbols=True) for k, c in enumerate(v.hand) for _ in range(c)))
        return lines

    def window_line(self, v: Any) -> str:
        """The buy window as the table shows it: the card offered, to whom now, who passed on it before."""
        card = card_str(v.offered, symbols=True)
        w = self._window
        if w is None or w["card"] != v.offered:  # a position loaded in the middle of a window
            return f"Buy window: {card} is offered (turn of {self.name(v.active)})."
        passed = f"; {self.seats_text(w['passed'])} passed on it" if w["passed"] else ""
        whom = "you: buy it (it comes with a penalty card) or pass" if v.current == self.seat else self.who(v.current)
        return f"Buy window: {card}, {w['why']}, is offered to {whom}{passed}."

    # input ------------------------------------------------------------------------------------------------------
    def parse(self, text: str, legal: list[int]) -> int | None | str:
        """An action id, ``None`` to quit, or a hint (str) for bad input."""
        t = text.strip()
        low = t.lower()
        if not t:
            return "Nothing typed."
        if low in QUIT_WORDS:
            return None
        if t.isdigit():  # a move number; a huge one is no move (int() of 4,301+ digits raises), nor a superscript
            if not t.isdecimal() or len(t) > MAX_MOVE_DIGITS:
                return f"There is no move {t[:12]}{'...' if len(t) > 12 else ''}; type a number 1..{len(legal)}."
            k = int(t)
            if 1 <= k <= len(legal):
                return legal[k - 1]
            return f"There is no move {k}."
        if low in KIND_WORDS:
            hits = [a for a in legal if self.raw.action_info(a)["kind"] == KIND_WORDS[low]]
            if len(hits) == 1:
                return hits[0]
            return f"'{t}' is not a move now." if not hits else f"'{t}' fits several moves; type its number."
        word, _, rest = low.partition(" ")
        kinds: tuple[str, ...] | None = None
        if word in CARD_WORDS and rest.strip():
            kinds, t = CARD_WORDS[word], t.split(None, 1)[1].strip()
        try:
            kind = parse_card(t)
        except ValueError:
            return f"I do not understand {text.strip()!r}."
        card = card_str(kind)
        hits = [a for a in legal if self.raw.action_info(a).get("card") == card]
        if kinds is not None:
            hits = [a for a in hits if self.raw.action_info(a)["kind"] in kinds]
        if len(hits) == 1:
            return hits[0]
        shown = card_str(kind, symbols=True)
        if hits:
            lines = [f"{shown} can be played several ways:"]
            lines += [f"  {legal.index(a) + 1:>3}. {self.describe(a)}" for a in hits]
            lines.append("Type the number of the move you mean.")
            return "\n".join(lines)
        what = {"discard": "discard", "discard_declare": "discard and declare with"}.get(kinds[0]) if kinds else None
        return self.why_not(kind, what)

    def why_not(self, kind: int, what: str | None = None) -> str:
        """Why no move plays the card ``kind`` now (``what``: the move asked for, e.g. ``discard``)."""
        v = self.raw.public_view(self.me)
        shown = card_str(kind, symbols=True)
        verb = what or "play"
        if not v.hand[kind]:
            return f"You do not hold {shown}."
        if v.phase == "draw":
            return f"You may not {verb} {shown} yet: draw first (stock or pile)."
        if v.phase == "buy":
            return f"You may not {verb} {shown} now: decide whether to buy {card_str(v.offered, symbols=True)}."
        if v.phase == "opening":
            return f"You may not {verb} {shown} now: finish your opening first (declare its remaining melds)."
        if v.phase == "place_joker":
            return f"You may not {verb} {shown} now: place the freed joker first."
        rules = v.rules
        if getattr(v, "must_place", -1) >= 0 and verb != "play":
            mp = card_str(v.must_place, symbols=True)
            return (f"You may not {verb} {shown} yet: {mp}, picked up from the discard pile, must reach the table "
                    "before you discard (B.2-10).")  # fmt: skip
        if rules.forbid_rediscard and kind == v.taken_discard and v.hand[kind] == 1:
            rule = "C.1-5" if hasattr(v, "num_deals") else "A.2-4"
            return (
                f"You may not discard {shown}: you took it from the discard pile this turn, and the card taken from "
                f"the pile may not be discarded in the same turn (rule {rule}). Discard another card"
                + ("." if hasattr(v, "num_deals") else " or play it to the table.")
            )
        if what == "discard and declare with":
            return f"Discarding {shown} does not leave a hand that goes out ({patterns_text(rules)})."
        return f"No move plays {shown} now."

    def ask(self) -> int:
        """Show the table and the moves; read until a legal move (``Quit`` on 'quit' or end of input)."""
        legal = self.legal()
        self.say("")
        self.say(f"--- your decision (you are P{self.seat}) ---")
        for line in self.table_lines(self.raw.public_view(self.env.agent_selection)):
            self.say(line)
        self.show_moves(legal)
        while True:
            self.stdout.write("Your move> ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:
                self.say("")
                raise Quit
            if not _isatty(self.stdin):  # scripted input: echo it so that the transcript reads like a session
                self.say(line.rstrip("\n"))
            choice = self.parse(line, legal)
            if choice is None:
                raise Quit
            if isinstance(choice, str):
                if line.strip().lower() in LIST_WORDS:
                    self.show_moves(legal)
                elif choice.endswith("Type the number of the move you mean."):
                    self.say(choice)
                else:
                    self.hint(legal, choice)
                continue
            return choice

    # the game ---------------------------------------------------------------------------------------------------
    def round_summary(self, res: dict[str, Any]) -> None:
        """Penalties (or payments) of the round just finished and the running totals."""
        scores = self.raw.scores
        key = "payments" if "payments" in res else "penalties"
        label = "Deal" if key == "payments" else "Round"
        if res.get("winner") is not None and res["winner"] >= 0:
            how = f"{self.name(res['winner'])} went out"
        else:
            how = {"exhausted": "the stock ran out", "turn_cap": "the turn limit was reached"}.get(
                res["reason"], res["reason"]
            )
        self.say("")
        self.say(f"=== {label} {res['round']} over: {how}. ===")
        width = max(len(self.name(p)) for p in range(self.n))
        self.say(f"  {'':<{width}}  {key:>9}  {'total':>6}")
        for p in range(self.n):
            self.say(f"  {self.name(p):<{width}}  {res[key][p]:>9}  {scores[p]:>6}")

    def tell_draws(self, p: int, action: int, info: dict[str, Any], before: tuple[int, ...]) -> None:
        """Name to the person the cards the stock gave them (a stock draw, a buy's penalty card); hidden
        information: only the person's own hand is compared, so no other seat's stock card is ever named."""
        if p == self.seat and info["kind"] == "draw_stock":
            self._awaiting_stock = True
        bought = p == self.seat and info["kind"] == "buy"
        if not (self._awaiting_stock or bought):
            return
        after = self.raw.public_view(self.me).hand
        new = [k for k in range(len(after)) for _ in range(max(0, after[k] - before[k]))]
        if not new:
            return
        if bought:
            new.remove(parse_card(info["card"]))
            cards = " ".join(card_str(k, symbols=True) for k in new)
            self.say(f"  (you bought {_sym(info['card'])}; penalty card from the stock: {cards})")
            return
        self._awaiting_stock = False
        self.say(f"  (you drew {' '.join(card_str(k, symbols=True) for k in new)} from the stock)")

    def tell_buy_window(self, p: int, info: dict[str, Any], offered: int) -> None:
        """After seat ``p``'s move (``info``; ``offered``: the card the window offered before it, -1 if none):
        announce a buy window that opens -- the declined discard, offered in turn to the seats of
        ``rules.buy_window`` -- or opens again on the card below after a buy, and say who may not buy it; count the
        passes; say when nobody bought."""
        v = self.raw.public_view(self.me)
        kind = info["kind"]
        if kind == "pass" and self._window is not None:
            self._window["passed"].append(p)
        if v.phase != "buy":
            if kind == "pass" and offered >= 0 and self._window is not None:
                self.say(f"  (nobody bought {card_str(offered, symbols=True)}: {self.who(v.active)} "
                         f"{'draw' if v.active == self.seat else 'draws'} from the stock)")  # fmt: skip
            self._window = None
            return
        if kind not in ("draw_stock", "buy"):
            return
        card = card_str(v.offered, symbols=True)
        queue = list(v.rules.buy_window(v.active, v.last_buyer))  # the engine's order of the window (A.1-10)
        whom = self.seats_text(queue)
        active = self.who(v.active)
        if kind == "draw_stock":
            why = f"declined by {active}"
            draws = "draw" if v.active == self.seat else "draws"
            note = (f"  Buy window: {_cap(active)} declined {card}; before {active} {draws} from the stock, it is "
                    f"offered in turn to {whom} (the first to buy takes it, with a penalty card).")  # fmt: skip
            discarder = (v.active - 1) % self.n  # the pile's top is the last turn's discard (turn 1: the upcard)
            if v.turn > 1 and discarder in queue:
                note += f" {_cap(self.who(discarder))} discarded it and may buy it back."
        else:
            bought = card_str(offered, symbols=True) if offered >= 0 else "the card"
            why = f"under the {bought} that {self.who(p)} bought"
            note = (f"  Buy window again: {_cap(self.who(p))} bought {bought}, so {card}, the card under it, is "
                    f"offered in turn to {whom}")  # fmt: skip
            if v.last_buyer >= 0 and v.last_buyer not in queue and v.last_buyer != v.active:
                note += f" (not {self.who(v.last_buyer)}: the buyer of a card may not buy the next one, A.2-1)"
            note += "."
        self._window = {"card": v.offered, "why": why, "queue": queue, "passed": []}
        self.say(note)

    def print_scores(self) -> None:
        """The totals of the finished rounds (deals)."""
        results = self.raw.round_results
        unit = game(self.profile).unit  # "round" or "deal"
        scores = self.raw.scores
        self.say(
            f"Scores so far ({plural(len(results), f'finished {unit}')}): "
            + ", ".join(f"{self.name(p)} {scores[p]}" for p in range(self.n))
        )

    def run(self) -> dict[str, Any]:
        """Play to the end (or until the person quits); the final totals and winners."""
        env, raw = self.env, self.raw
        seats = ", ".join(f"P{p} {self.specs[p]}" for p in sorted(self.specs))
        self.say(
            f"{self.profile}: you are P{self.seat}; opponents {seats}. Type 'moves' for the list, 'quit' to leave."
        )
        seen = len(raw.round_results)
        try:
            if not raw.session_over:
                self.announce_round()
            while not raw.session_over:
                agent = env.agent_selection
                p = raw.agent_name_mapping[agent]
                forced = p == self.seat and len(self.legal()) == 1  # nothing to choose: played, on one line
                if p != self.seat:
                    action = int(self.bots[p].act(env, agent))
                else:
                    action = self.legal()[0] if forced else self.ask()
                info = raw.action_info(action)
                view = raw.public_view(self.me)
                before, offered = view.hand, getattr(view, "offered", -1)
                self.say(f"{self.name(p)}: {'only move: ' if forced else ''}{self.describe(action)}")
                env.step(action)
                results = raw.round_results
                if len(results) > seen:
                    self._awaiting_stock = False
                    self._window = None
                    for res in results[seen:]:
                        self.round_summary(res)
                    seen = len(results)
                    if not raw.session_over:
                        self.announce_round()
                else:
                    self.tell_buy_window(p, info, offered)
                    self.tell_draws(p, action, info, before)
        except Quit:
            self.say("You left the game.")
            self.print_scores()
            return {"quit": True, "scores": list(raw.scores), "winners": None}
        final = raw.results()
        scores, winners = final["scores"], final["winners"]
        self.say("")
        self.say("Session over. Totals: " + ", ".join(f"{self.name(p)} {scores[p]}" for p in range(self.n)))
        self.say("Winner(s): " + ", ".join(self.name(p) for p in winners))
        return {"quit": False, "scores": list(scores), "winners": list(winners)}


def _cap(text: str) -> str:
    """``text`` with a capital first letter (``you`` starting a sentence)."""
    return text[:1].upper() + text[1:]


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def play(
    profile: str,
    opponents: Sequence[str],
    seat: int = 0,
    seed: int = 0,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    scenario: dict[str, Any] | None = None,
    **env_config: Any,
) -> dict[str, Any]:
    """Play one session in the terminal against ``opponents`` (bot ids); returns the totals and winners."""
    game = TerminalGame(profile, opponents, seat, seed, stdin, stdout, scenario, **env_config)
    return game.run()


def replay_command(args: Any, seed: int) -> str:
    """The ``rummy play`` command line that deals the same game as ``args`` with ``seed``."""
    words = ["rummy", "play", "--profile", args.profile, "--opponents", *args.opponents]
    if args.seat:
        words += ["--seat", str(args.seat)]
    words += ["--seed", str(seed)]
    if args.rounds:
        words += ["--rounds", *map(str, args.rounds)]
    if args.deals is not None:
        words += ["--deals", str(args.deals)]
    if args.scenario:
        words += ["--scenario", args.scenario]
    return shlex.join(words)


def _cmd_play(args: Any) -> int:
    env_config = env_config_from_args(args.profile, args.rounds, args.deals)
    scenario = None
    if args.scenario:
        try:  # the bounded reader: a regular file of at most MAX_SCENARIO_BYTES, bounded JSON (no FIFO, no /dev/zero)
            scenario = read_json(args.scenario, limit=MAX_SCENARIO_BYTES, what="scenario")
        except InputFileError as exc:
            raise PlayError(f"cannot read the scenario {args.scenario!r}: {exc.reason}") from None
    seed = args.seed
    game = TerminalGame(args.profile, args.opponents, args.seat, seed, scenario=scenario, **env_config)  # checks first
    game.say(f"Seed {seed}. The same game again: {replay_command(args, seed)}")
    game.run()
    return 0


def add_play_command(sub: Any) -> None:
    """Add ``rummy play`` to the ``rummy`` sub-command parser ``sub``."""
    p = sub.add_parser("play", help="play a session in the terminal against bots")
    p.add_argument("--profile", default="contract", help="profile to play (default contract)")
    p.add_argument(
        "--opponents",
        nargs="+",
        required=True,
        help="bot ids for the other seats, in seat order (e.g. heuristic random)",
    )
    p.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    p.add_argument(
        "--seed",
        type=int,
        default=0,
        help="deal seed (default 0; printed at the start with the command that replays the game)",
    )
    add_session_length_arguments(p)
    p.add_argument("--scenario", default=None, help="JSON file: start from this position (docs/guides/engine.md 'JSON state')")
    p.set_defaults(func=_cmd_play)


__all__ = ["PlayError", "TerminalGame", "add_play_command", "joker_text", "play", "plural"]
