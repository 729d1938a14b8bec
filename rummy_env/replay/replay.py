"""Re-play a game log through the engine: the check that a log is exact, and the frames of the web replay.

``replay(log)`` loads the log's first dealt state with the engine's scenario loader (``load_state`` of the
profile, under the log's rules), applies every logged action in order and checks at each step that the seat to
move is the logged seat, that the action is legal and that the engine describes it as the log does
(``action_info``). When a round ends, the next round's logged deal must be the one the engine dealt itself, or --
marked ``redealt`` (duplicate deals) -- differ from it only in the hands, the discard pile and the stock; it is
then loaded in its place. At the end the round results and totals must be the logged ones. Anything else is a
``GameLogError`` that says which step is wrong and what was expected.

The result (``Replay``) holds one frame per position: the deal of each round, the position after each action,
and a last frame with the final totals. The round's last action shows the table as that action left it, before the
next deal (``round_end_position``): a hand gone out is empty, its last melds are on the table -- continental's
declared hand laid out as its runs --, with the round's result and the scores after it. A frame shows every seat's
hand (the replay is omniscient; the page can hide them), the publicly known cards, the table melds by owner, the
discard pile's top card and size, the stock size, the scores, the seat to move, the move just made and per-seat
counts of the round's buys, pickups and joker swaps.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any

from ..core.files import shorten
from ..registry import GAMES, game
from .log import GameLogError, jsonable, read_log, rules_json

#: state keys a redeal replaces (``rummy_env.evaluation.match.redeal``); everything else must match the engine's
REDEAL_KEYS = ("hands", "discard", "stock")
#: action kinds counted per seat and round in the frames
TALLY_KINDS = {"buys": ("buy",), "pickups": ("draw_discard", "pickup"), "swaps": ("swap_joker",)}
#: the longest message of the engine quoted in a ``GameLogError`` (a hostile state could make it long)
MAX_QUOTED = 600


@dataclass
class Replay:
    """A validated game log and its frames (``replay``)."""

    log: dict[str, Any]
    frames: list[dict[str, Any]] = field(default_factory=list)
    round_results: list[dict[str, Any]] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)
    #: the file the log was read from (None: a dict); ``write_html`` never writes over it
    source: str | None = None

    def page_data(self) -> dict[str, Any]:
        """Everything the web page shows, as JSON data: the game's facts, the round results and the frames."""
        log = self.log
        g = game(log["profile"])
        return {
            "format": log["format"],
            "version": log["version"],
            "profile": log["profile"],
            "title": g.title,
            "score_name": g.score_name,
            "lower_is_better": g.lower_is_better,
            "unit": g.unit,
            "players": log["players"],
            "entrants": log["entrants"],
            "seed": log["seed"],
            "round_results": self.round_results,
            "totals": self.totals,
            "winners": self.winners,
            "frames": self.frames,
        }


def _rules_for(log: dict[str, Any]) -> Any:
    """The rules object the log was played under: the profile's rules with the fields that differ overridden."""
    profile = log["profile"]
    if profile not in GAMES:
        raise GameLogError(f"game log of unknown profile {shorten(profile)}; profiles: {sorted(GAMES)}")
    g = game(profile)
    logged = log["rules"]
    n = log["num_players"]
    if not g.min_players <= n <= g.max_players:
        raise GameLogError(f"game log seats {n} players; profile {profile!r} seats {g.min_players}..{g.max_players}")
    base = rules_json(g.rules(num_players=n))
    unknown = sorted(set(logged) - set(base))
    if unknown:
        raise GameLogError(
            f"game log rules have unknown fields {shorten(unknown, 200)}; {profile!r} rules have {sorted(base)}"
        )
    fields = {f.name for f in dataclasses.fields(g.base_rules)}
    overrides = {k: _tuples(v) for k, v in logged.items() if k in fields and k != "name" and v != base.get(k)}
    try:  # the rules' bounds (``rummy_env.rules.bounds``) are checked here, before anything is built from them
        rules = g.rules(num_players=n, **overrides)
    except (ValueError, TypeError) as exc:
        raise GameLogError(
            f"game log 'rules' cannot be built (fields {sorted(overrides)} differ from the defaults: "
            f"{_cut(exc)}); expected the fields of the {profile!r} rules object with the values `rummy record` writes"
        ) from None
    if rules_json(rules) != {**base, **logged}:
        raise GameLogError("game log rules do not match any rules object of this rummy_env version")
    return rules


def _tuples(v: Any) -> Any:
    return tuple(_tuples(x) for x in v) if isinstance(v, list) else v


def _cut(exc: Any) -> str:
    """The message of ``exc`` cut to ``MAX_QUOTED`` characters."""
    text = str(exc)
    return text if len(text) <= MAX_QUOTED else text[: MAX_QUOTED - 3] + "..."


def _load(g: Any, data: Any, rules: Any, where: str) -> Any:
    if not isinstance(data, dict):
        raise GameLogError(
            f"{where} must be a JSON state object (the engine's game_state()), got {type(data).__name__}"
        )
    try:
        return g.load_state(data, rules)
    except ValueError as exc:
        raise GameLogError(f"{where} is not a state the engine loads: {_cut(exc)}") from None


class _Framer:
    """Builds the frames of one replay from engine states (their JSON) and the moves between them."""

    def __init__(self, g: Any, rules: Any, n: int):
        self.g, self.rules, self.n = g, rules, n
        self.frames: list[dict[str, Any]] = []
        self.tally = {k: [0] * n for k in TALLY_KINDS}

    def goal(self, js: dict[str, Any]) -> str:
        """What the round asks for: a contract (Contract family) or the deal number (continental)."""
        contracts = getattr(self.rules, "contracts", None)
        if contracts is not None and 1 <= js["round"] <= len(contracts):
            groups, runs = contracts[js["round"] - 1]
            parts = []
            if groups:
                parts.append(f"{groups} group{'s' * (groups > 1)} of {self.rules.group_min}+")
            if runs:
                parts.append(f"{runs} run{'s' * (runs > 1)} of {self.rules.run_min}+")
            return "contract: " + " and ".join(parts)
        deals = js.get("deals")
        return f"of {deals}" if deals else "deal"

    def frame(self, kind: str, js: dict[str, Any], round_index: int, move: dict[str, Any] | None,
              done: int) -> dict[str, Any]:  # fmt: skip
        """One frame: ``kind`` (deal / move / round_end / final), the position ``js`` and the move that led to it."""
        discard = js.get("discard") or []
        f = {
            "kind": kind,
            "round": js["round"],
            "round_index": round_index,
            "goal": self.goal(js),
            "phase": js["phase"],
            "to_move": js.get("current_player", -1) if kind in ("deal", "move") else -1,
            "dealer": js.get("dealer", 0),
            "hands": js["hands"],
            "known": js.get("known") or [[] for _ in range(self.n)],
            "table": [{"owner": m["owner"], "kind": m["kind"], "cards": m["cards"]} for m in js.get("table", [])],
            "opened": js.get("opened", []),
            "top": discard[0] if discard else None,
            "discard_size": len(discard),
            "stock_size": len(js.get("stock") or []),
            "scores": list(js["scores"]),
            "move": move,
            "tally": {k: list(v) for k, v in self.tally.items()},
            "results_done": done,
        }
        self.frames.append(f)
        return f

    def count(self, seat: int, kind: str) -> None:
        for name, kinds in TALLY_KINDS.items():
            if kind in kinds:
                self.tally[name][seat] += 1

    def new_round(self) -> None:
        self.tally = {k: [0] * self.n for k in TALLY_KINDS}


def replay(source: Any) -> Replay:
    """Re-play the game log ``source`` (a path or a log dict) through the engine, checking it (module docstring),
    and return its frames; ``GameLogError`` saying what is wrong and what is expected."""
    log = read_log(source)
    rules = _rules_for(log)
    g = game(log["profile"])
    n = log["num_players"]
    rounds = {r["index"]: r for r in log["rounds"]}
    if log["initial_state"] != rounds[0]["dealt"]:
        raise GameLogError("game log 'initial_state' differs from the state dealt for round index 0 ('rounds'[0])")
    state = _load(g, log["initial_state"], rules, "'initial_state'")
    framer = _Framer(g, rules, n)
    round_index = 0
    framer.frame("deal", state.to_json(), 0, None, 0)
    actions = log["actions"]
    for i, entry in enumerate(actions):
        where = f"actions[{i}] (round index {entry['round']})"
        if entry["round"] != round_index:
            raise GameLogError(f"{where}: the engine is in round index {round_index}; the log says {entry['round']}")
        seat, action = entry["seat"], entry["action"]
        if seat != state.current_player:
            raise GameLogError(f"{where}: logged for seat {seat!r}, but seat {state.current_player} is to move")
        legal = state.legal_actions()
        if isinstance(action, bool) or not isinstance(action, int) or action not in legal:
            raise GameLogError(
                f"{where}: action {action!r} is illegal for seat {seat} in phase {state.phase!r}; legal actions: "
                f"{_short(legal)}"
            )
        info = state.action_info(action)
        if info != entry["info"]:
            raise GameLogError(
                f"{where}: action {action} is {shorten(info, 200)} here, but the log says {shorten(entry['info'], 200)}"
            )
        before = state.to_json()
        move = {"seat": seat, "text": state.describe_action(action), "kind": info.get("kind"), "action": action}
        framer.count(seat, info.get("kind", ""))
        done_before = len(state.round_results)
        state.apply(action)
        done = len(state.round_results)
        if done == done_before:
            framer.frame("move", state.to_json(), round_index, move, done)
            continue
        # the round is over: show the table as its last move left it (not the next deal), with the result
        after = round_end_position(g, rules, before, action, state.round_results[-1])
        framer.frame("round_end", after, round_index, move, done)["scores"] = list(state.scores)
        if state.is_terminal():
            break
        round_index = done
        framer.new_round()
        state = _next_deal(g, rules, state, rounds.get(round_index), round_index)
        framer.frame("deal", state.to_json(), round_index, None, done)
    consumed = i + 1 if actions else 0
    if not state.is_terminal():
        raise GameLogError(
            f"the game log ends after {len(actions)} actions with the session not over (round index {round_index}, "
            f"phase {state.phase!r}): truncated? A complete log plays the session to its end"
        )
    if consumed != len(actions):
        raise GameLogError(
            f"the session ends after {consumed} actions, but the log has {len(actions)}; a log ends with the session"
        )
    results, totals, winners = _check_results(state, log)
    last = dict(framer.frames[-1])
    last.update(kind="final", move=None, to_move=-1, scores=totals, results_done=len(results))
    framer.frames.append(last)
    path = None if isinstance(source, dict) else os.fspath(source)
    return Replay(log=log, frames=framer.frames, round_results=results, totals=totals, winners=winners, source=path)


def _check_results(state: Any, log: dict[str, Any]) -> tuple[list[dict[str, Any]], list[int], list[int]]:
    """The replayed round results, totals and winners, each checked against the log's."""
    results = jsonable([dict(r) for r in state.round_results])
    logged = log["round_results"]
    if results != logged:
        k = next((k for k, (a, b) in enumerate(zip(results, logged)) if a != b), min(len(results), len(logged)))
        raise GameLogError(
            f"replayed round results differ from the logged ones ({len(results)} replayed, {len(logged)} logged; first "
            f"difference at round_results[{k}]: replayed {shorten(results[k] if k < len(results) else None, 200)}, "
            f"logged {shorten(logged[k] if k < len(logged) else None, 200)})"
        )
    totals = list(state.scores)
    if totals != log["totals"]:
        raise GameLogError(f"replayed totals {totals} differ from the logged totals {shorten(log['totals'], 200)}")
    winners = list(state.winners())
    if winners != log["winners"]:
        raise GameLogError(f"replayed winners {winners} differ from the logged winners {shorten(log['winners'], 200)}")
    return results, totals, winners


def round_end_position(g: Any, rules: Any, before: dict[str, Any], action: int, result: dict[str, Any]) -> dict:
    """The position (JSON state) that ``action``, the last action of a round, leaves on the table before the engine
    deals the next round: ``before`` (the state it was taken in) loaded as the last round of its session, so the
    engine plays the action and stops instead of dealing. A winner's declared hand that the engine keeps in hand
    (continental's go-out: ``result["melds"]``) is laid out on the table as its runs, the hand empty."""
    js = {**before, "round_results": [], "scores": [0] * len(before["scores"])}
    if "deals" in js:  # continental: this deal is the last one
        js["deals"] = js["round"]
    else:  # the Contract family: this round is the only one
        js["rounds"], js["round_index"] = [js["round"]], 0
    try:
        state = g.load_state(js, rules)
        state.apply(action)
    except ValueError:  # a state the loader cannot take as a last round: show the table before the move instead
        return before
    after = state.to_json()
    winner = result.get("winner")
    if winner is not None and result.get("melds") and after["hands"][winner]:
        after["hands"] = [[] if p == winner else h for p, h in enumerate(after["hands"])]
        after["known"] = [[] if p == winner else k for p, k in enumerate(after.get("known") or [])]
        after["table"] = list(after.get("table", [])) + [
            {"owner": winner, "kind": "run", "cards": list(run)} for run in result["melds"]
        ]
    return after


def _next_deal(g: Any, rules: Any, state: Any, logged: dict[str, Any] | None, index: int) -> Any:
    """The state of the next round: the engine's own deal, or the logged redeal in its place (checked)."""
    own = state.to_json()
    if logged is None:
        raise GameLogError(f"game log 'rounds' has no dealt state for round index {index}; one per round is expected")
    dealt = logged["dealt"]
    if dealt == own:
        return state
    if not logged.get("redealt"):
        raise GameLogError(
            f"rounds[{index}]: the logged deal differs from the engine's and is not marked 'redealt'; expected the "
            "state the engine deals (or a duplicate-deal redeal marked redealt: true)"
        )
    if not isinstance(dealt, dict):
        raise GameLogError(f"rounds[{index}]['dealt'] must be a JSON state object")
    changed = sorted(k for k in set(own) | set(dealt) if k not in REDEAL_KEYS and own.get(k) != dealt.get(k))
    if changed:
        raise GameLogError(
            f"rounds[{index}]: a redeal may replace only {list(REDEAL_KEYS)}; the logged deal also changes "
            f"{shorten(changed, 200)}"
        )
    return _load(g, dealt, rules, f"rounds[{index}]['dealt']")


def _short(legal: list[int], k: int = 12) -> str:
    head = ", ".join(str(a) for a in legal[:k])
    return f"[{head}{', ...' if len(legal) > k else ''}] ({len(legal)} in all)"


__all__ = ["REDEAL_KEYS", "Replay", "TALLY_KINDS", "replay", "round_end_position"]
