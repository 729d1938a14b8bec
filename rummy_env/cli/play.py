"""A person plays a profile in the terminal against bots: ``rummy play --profile contract --opponents heuristic
random random``.

At each of the person's decisions the table is shown as the person's public view shows it (the env's
``view_text``: seats, melds, scores, discard top, the person's hand) with the legal moves numbered by their readable
descriptions. A move is chosen by its number, by a card (``7C``, ``10♥``, ``JK``: the discard of that card, or the
one move that plays it), or by a word (``stock``, ``pile``, ``buy``, ``pass``, ``out``, ``declare``); ``moves``
lists them again, ``quit`` (or the end of the input) leaves. Bad input is answered with a hint and asked again. The
bots' moves are printed as they are made, and every round ends with a summary of its penalties (or payments) and
the running totals.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, TextIO

import numpy as np

from ..core.cards import card_str, parse_card

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
QUIT_WORDS = ("quit", "q", "exit")
LIST_WORDS = ("moves", "m", "list", "help", "h", "?")


class Quit(Exception):
    """The person left the game."""


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
        import rummy_env

        from .. import bots
        from ..evaluation.tournament import resolve_num_players

        n = len(opponents) + 1
        resolve_num_players(profile, n)
        if not 0 <= seat < n:
            raise ValueError(f"seat {seat} does not exist: with {len(opponents)} opponent(s) the seats are 0..{n - 1}")
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
            except (ValueError, OSError) as exc:
                raise ValueError(f"opponent {self.specs[s]!r} cannot be loaded: {exc}") from None
        self.env.reset(seed=seed, options={"scenario": scenario} if scenario is not None else None)
        self.raw = self.env.unwrapped

    # ------------------------------------------------------------------------------------------------------------
    def say(self, text: str = "") -> None:
        """Write a line to the player."""
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def name(self, p: int) -> str:
        """How seat ``p`` is called in messages."""
        return "You" if p == self.seat else f"P{p} ({self.specs[p]})"

    def legal(self) -> list[int]:
        """The person's legal actions, in id order."""
        agent = self.env.agent_selection
        return [int(a) for a in np.flatnonzero(self.raw.action_mask(agent))]

    def show_moves(self, legal: list[int]) -> None:
        """The numbered list of legal moves."""
        self.say("Your moves:")
        for i, a in enumerate(legal, 1):
            self.say(f"  {i:>3}. {self.raw.describe_action(a)}")

    def hint(self, legal: list[int], why: str) -> None:
        """Answer bad input."""
        self.say(
            f"{why} Type a move number 1-{len(legal)}, a card (e.g. 7C or 10♥) to discard it or play it, a word "
            "(stock, pile, buy, pass, out), 'moves' to list the moves again, or 'quit'."
        )

    def parse(self, text: str, legal: list[int]) -> int | None | str:
        """An action id, ``None`` to quit, or a hint (str) for bad input."""
        t = text.strip()
        low = t.lower()
        if not t:
            return "Nothing typed."
        if low in QUIT_WORDS:
            return None
        if t.isdigit():
            k = int(t)
            if 1 <= k <= len(legal):
                return legal[k - 1]
            return f"There is no move {k}."
        if low in KIND_WORDS:
            hits = [a for a in legal if self.raw.action_info(a)["kind"] == KIND_WORDS[low]]
            if len(hits) == 1:
                return hits[0]
            return f"'{t}' is not a move now." if not hits else f"'{t}' fits several moves; type its number."
        try:
            card = card_str(parse_card(t))
        except ValueError:
            return f"I do not understand {t!r}."
        hits = [a for a in legal if self.raw.action_info(a).get("card") == card]
        discards = [a for a in hits if self.raw.action_info(a)["kind"] == "discard"]
        if discards:
            return discards[0]
        if len(hits) == 1:
            return hits[0]
        if hits:
            nums = ", ".join(str(legal.index(a) + 1) for a in hits)
            return f"{t} can be played several ways (moves {nums}); type the number."
        return f"No move plays {t} now."

    def ask(self) -> int:
        """Show the table and the moves; read until a legal move (``Quit`` on 'quit' or end of input)."""
        legal = self.legal()
        self.say("")
        self.say(f"--- your decision (you are P{self.seat}) ---")
        self.say(self.raw.view_text(self.env.agent_selection))  # the table as the person's public view shows it
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
                else:
                    self.hint(legal, choice)
                continue
            return choice

    def round_summary(self, res: dict[str, Any]) -> None:
        """Penalties (or payments) of the round just finished and the running totals."""
        scores = self.raw.scores
        key = "payments" if "payments" in res else "penalties"
        label = "Deal" if key == "payments" else "Round"
        if res.get("winner") is not None:
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

    def run(self) -> dict[str, Any]:
        """Play to the end (or until the person quits); the final totals and winners."""
        env, raw = self.env, self.raw
        seats = ", ".join(f"P{p} {self.specs[p]}" for p in sorted(self.specs))
        self.say(
            f"{self.profile}: you are P{self.seat}; opponents {seats}. Type 'moves' for the list, 'quit' to leave."
        )
        seen = len(raw.round_results)
        try:
            while not raw.session_over:
                agent = env.agent_selection
                p = raw.agent_name_mapping[agent]
                action = self.ask() if p == self.seat else int(self.bots[p].act(env, agent))
                self.say(f"{self.name(p)}: {raw.describe_action(action)}")
                env.step(action)
                results = raw.round_results
                for res in results[seen:]:
                    self.round_summary(res)
                seen = len(results)
        except Quit:
            self.say("You left the game.")
            return {"quit": True, "scores": list(raw.scores), "winners": None}
        final = raw.results()
        scores, winners = final["scores"], final["winners"]
        self.say("")
        self.say("Session over. Totals: " + ", ".join(f"{self.name(p)} {scores[p]}" for p in range(self.n)))
        self.say("Winner(s): " + ", ".join(self.name(p) for p in winners))
        return {"quit": False, "scores": list(scores), "winners": list(winners)}


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


def _cmd_play(args: Any) -> int:
    import json

    from ..evaluation.tournament import env_config_from_args

    env_config = env_config_from_args(args.profile, args.rounds, args.deals)
    scenario = None
    if args.scenario:
        try:
            with open(args.scenario) as f:
                scenario = json.load(f)
        except (OSError, json.JSONDecodeError) as exc:
            raise ValueError(f"cannot read the scenario {args.scenario!r}: {exc}") from None
    play(args.profile, args.opponents, seat=args.seat, seed=args.seed, scenario=scenario, **env_config)
    return 0


def add_play_command(sub: Any) -> None:
    """Add ``rummy play`` to the ``rummy`` sub-command parser ``sub``."""
    from ..evaluation.tournament import add_session_length_arguments

    p = sub.add_parser("play", help="play a session in the terminal against bots")
    p.add_argument("--profile", default="contract", help="profile to play (default contract)")
    p.add_argument(
        "--opponents",
        nargs="+",
        required=True,
        help="bot ids for the other seats, in seat order (e.g. heuristic random)",
    )
    p.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    p.add_argument("--seed", type=int, default=0, help="deal seed (default 0)")
    add_session_length_arguments(p)
    p.add_argument("--scenario", default=None, help="JSON file: start from this position (README 'JSON state')")
    p.set_defaults(func=_cmd_play)


__all__ = ["TerminalGame", "add_play_command", "play"]
