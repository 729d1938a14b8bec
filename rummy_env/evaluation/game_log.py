"""Game logs: one played session as versioned JSON (``docs/guides/watching.md`` documents every key).

``GameRecorder`` is fed by the match runner (``rummy_env.evaluation.match.MatchRunner`` with ``game_logs=True``)
while a session is played: the state dealt at the start of every round (``env.game_state()``), every action with
the seat that chose it and its ``action_info``, and at the end the round results and totals (``env.results()``).
``record_game`` (``rummy_env.evaluation.record``) plays one session of bots and returns its log (``rummy record``);
``save_log`` / ``read_log``
write and read a log file, ``read_log`` checking its structure (a ``GameLogError`` saying what is wrong and what
is expected). Whether the actions are legal and reproduce the results is checked by replaying the log through
the engine (``rummy_env.replay.replay``).

``read_log`` reads through the bounded reader (``rummy_env.core.files``): a regular file of at most
``MAX_LOG_BYTES``, JSON nested at most 64 levels with integers of at most 64 digits; ``check_log`` then checks the
type of every field of the format (the tables of ``docs/guides/watching.md``), so that a hostile log is one
``GameLogError`` and never a ``TypeError``, ``RecursionError`` or ``MemoryError``.

This module only records and reads: it imports no module of ``rummy_env`` but that reader, so that the match runner
can record while it plays. ``rummy_env.replay.log`` re-exports it (with ``record_game``) under its old path.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..core.files import InputFileError, check_depth, parse_json, read_text, shorten, write_text_atomic

#: the ``format`` of every game log, and the versions this code reads (``version`` of the logs it writes: the last)
FORMAT = "rummy_env.game_log"
VERSIONS = (1,)
VERSION = VERSIONS[-1]

#: the top-level keys of a log, each with the JSON type it must have (``read_log`` checks them)
LOG_KEYS: dict[str, tuple[type, ...]] = {
    "format": (str,),
    "version": (int,),
    "profile": (str,),
    "rules": (dict,),
    "num_players": (int,),
    "players": (list,),
    "entrants": (list,),
    "seed": (int,),
    "session": (dict,),
    "session_length": (int, list, type(None)),
    "initial_state": (dict,),
    "rounds": (list,),
    "actions": (list,),
    "round_results": (list,),
    "totals": (list,),
    "winners": (list,),
}
#: the keys of each entry of ``actions`` and of ``rounds``
ACTION_KEYS = ("round", "seat", "action", "info")
ROUND_KEYS = ("index", "round", "dealt", "redealt")
#: the largest game log ``read_log`` reads (a full session of random play with the largest ``turn_cap`` is far below)
MAX_LOG_BYTES = 64 << 20
#: the most seats a log may name (the rules allow at most 8; the replay checks the profile's own range)
MAX_SEATS = 64
_HINT = "expected a game log written by `rummy record` or `rummy tournament --save-games`"


class GameLogError(ValueError):
    """A file that is not a game log this version of rummy_env can replay: not JSON, another format, an unknown
    version, a missing or mistyped key, or actions the engine refuses (the message says what and what is
    expected)."""


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON data (tuples become lists)."""
    return json.loads(json.dumps(value))


def rules_json(rules: Any) -> dict[str, Any]:
    """A frozen rules object (``ContractRules``, ``ContinentalRules``) as a JSON dict of its fields."""
    return jsonable(dataclasses.asdict(rules))


class GameRecorder:
    """Collects the log of one session while the match runner plays it (``MatchRunner(..., game_logs=True)``).

    ``round_start(env, k)`` after round ``k`` (0-based) has been dealt, ``action(env, agent, action)`` before each
    step, ``finish(env, plan)`` once the session is over; ``env`` is the raw env and only its documented accessors
    are read (``game_state()``, ``action_info``, ``current_seat``, ``results()``, ``rules``)."""

    def __init__(self, profile: str, entrants: Sequence[str], session_length: Any) -> None:
        self.profile = profile
        self.entrants = [e if isinstance(e, str) else getattr(e, "__name__", repr(e)) for e in entrants]
        self.session_length = jsonable(session_length)
        self.rounds: list[dict[str, Any]] = []
        self.actions: list[dict[str, Any]] = []
        self._round = 0
        self._expected: dict[str, Any] | None = None

    def round_start(self, env: Any, index: int) -> None:
        """Record the state dealt for round ``index``; ``redealt`` says whether it differs from the deal the
        engine made itself (duplicate deals load a scenario in its place)."""
        dealt = env.game_state()
        redealt = self._expected is not None and self._expected != dealt
        self.rounds.append({"index": index, "round": dealt["round"], "dealt": dealt, "redealt": bool(redealt)})
        self._round = index
        self._expected = None

    def action(self, env: Any, agent: str, action: int) -> None:
        """Record ``agent``'s ``action`` (before it is applied)."""
        seat = env.current_seat
        self.actions.append(
            {"round": self._round, "seat": seat, "action": int(action), "info": jsonable(env.action_info(action))}
        )

    def round_over(self, env: Any) -> None:
        """Remember the state the engine dealt itself after a round ended (before any redeal), to tell a redeal
        from it."""
        self._expected = env.game_state()

    def finish(self, env: Any, plan: Any) -> dict[str, Any]:
        """The log of the finished session ``plan`` (a ``SessionPlan``: its seats name the entrant at each seat)."""
        results = env.results()
        first = self.rounds[0]["dealt"] if self.rounds else env.game_state()
        n = len(env.possible_agents)
        return {
            "format": FORMAT,
            "version": VERSION,
            "profile": self.profile,
            "rules": rules_json(env.rules),
            "num_players": n,
            "players": list(env.possible_agents),
            "entrants": [self.entrants[e] for e in plan.seats],
            "seed": int(plan.deal_seed),
            "session": {
                "index": plan.index,
                "deal_set": plan.deal_set,
                "table": plan.table,
                "rotation": plan.rotation,
                "match_seed": plan.seed,
                "duplicate": plan.duplicate,
                "bot_seeds": [int(plan.bot_seed(s)) for s in range(n)],
            },
            "session_length": self.session_length,
            "initial_state": first,
            "rounds": self.rounds,
            "actions": self.actions,
            "round_results": jsonable(results["round_results"]),
            "totals": list(results["scores"]),
            "winners": list(results["winners"] or []),
        }


def save_log(log: dict[str, Any], path: str | os.PathLike[str]) -> Path:
    """Write ``log`` as JSON to ``path`` (folders created), atomically: a temporary file in the same folder renamed
    over ``path``, so an interrupted write never leaves half a log; returns the path."""
    return write_text_atomic(path, json.dumps(log, separators=(",", ":")) + "\n")


def read_log(source: str | os.PathLike[str] | dict[str, Any]) -> dict[str, Any]:
    """The game log in the file ``source`` (or the dict itself), its structure checked (``check_log``);
    ``GameLogError`` for a file that cannot be read (missing, not a regular file, over ``MAX_LOG_BYTES``), is not
    JSON (or nested deeper than 64 levels, or holds an integer of more than 64 digits) or not a game log of a known
    version."""
    if isinstance(source, dict):
        data: Any = source
        try:
            check_depth(data, what="game log")
        except InputFileError as exc:
            raise GameLogError(f"{exc}; {_HINT}") from None
    elif not isinstance(source, (str, os.PathLike)):
        raise GameLogError(f"a game log is a file path or a dict, got {type(source).__name__}")
    else:
        shown = shorten(os.fspath(source), 200)
        try:
            text = read_text(source, limit=MAX_LOG_BYTES, what="game log")
        except InputFileError as exc:
            raise GameLogError(f"cannot read game log {shown}: {exc.reason}") from None
        try:
            data = parse_json(text, what=f"game log {shown}")
        except InputFileError as exc:
            raise GameLogError(_json_problem(shown, text, exc)) from None
    check_log(data)
    return data


def _json_problem(shown: str, text: str, exc: InputFileError) -> str:
    """The message for a log file that is not (bounded) JSON, with a hint for an empty or truncated file."""
    bad = exc.decode_error
    if bad is None:  # nested too deep, a huge integer, NaN
        return f"{shown} is not a game log: {exc.reason}; {_HINT}"
    body = text.strip()
    cut = bad.pos >= len(body) or (body.startswith("{") and not body.endswith("}"))
    hint = " -- the file is empty" if not body else " -- the file ends early: truncated?" if cut else ""
    return f"{shown} is not JSON ({bad.msg}, line {bad.lineno} column {bad.colno}){hint}; {_HINT}"


def _is_int(x: Any, low: int = 0, high: int | None = None) -> bool:
    return type(x) is int and x >= low and (high is None or x <= high)


def _is_int_list(x: Any, low: int = 0, high: int | None = None) -> bool:
    return all(type(v) is int and v >= low and (high is None or v <= high) for v in x)


def _want(where: str, value: Any, want: str) -> GameLogError:
    return GameLogError(f"game log {where} must be {want}, got {shorten(value)}")


def check_log(data: Any) -> None:
    """``GameLogError`` unless ``data`` has the structure of a game log: format, version, every key with the type the
    format gives it (``docs/guides/watching.md``), the entries of ``rounds`` and ``actions``, seats within the table.
    What the engine must agree with (the states, the actions, the results) is checked by the replay."""
    if not isinstance(data, dict):
        raise GameLogError(f"a game log is a JSON object, got {type(data).__name__}; expected keys {list(LOG_KEYS)}")
    fmt = data.get("format")
    if fmt != FORMAT:
        raise GameLogError(
            f"not a rummy_env game log: 'format' is {shorten(fmt)}, expected {FORMAT!r} (written by `rummy record` "
            "or `rummy tournament --save-games`)"
        )
    version = data.get("version")
    if type(version) is not int or version not in VERSIONS:
        raise GameLogError(
            f"game log version {shorten(version)} is not known to this rummy_env; it reads versions {list(VERSIONS)}"
        )
    for key, types in LOG_KEYS.items():
        if key not in data:
            raise GameLogError(f"game log without {key!r}; a version-{version} log has the keys {list(LOG_KEYS)}")
        value = data[key]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            want = " or ".join("null" if t is type(None) else t.__name__ for t in types)
            raise GameLogError(f"game log key {key!r} must be {want}, got {type(value).__name__}")
    n = data["num_players"]
    if not _is_int(n, 1, MAX_SEATS):
        raise _want("'num_players'", n, f"a table size 1..{MAX_SEATS}")
    for key in ("players", "entrants", "totals"):
        if len(data[key]) != n:
            raise GameLogError(f"game log key {key!r} has {len(data[key])} entries; expected one per seat ({n})")
    for key in ("players", "entrants"):
        if not all(isinstance(v, str) and len(v) <= 4096 for v in data[key]):
            raise _want(repr(key), data[key], "a list of strings (one per seat)")
    if not isinstance(data["profile"], str) or len(data["profile"]) > 64:
        raise _want("'profile'", data["profile"], "a profile id")
    if not _is_int(data["seed"]):
        raise _want("'seed'", data["seed"], "a non-negative integer")
    if not _is_int_list(data["totals"], -(10**18)):
        raise _want("'totals'", data["totals"], "a list of integers (one per seat)")
    if not _is_int_list(data["winners"], 0, n - 1):
        raise _want("'winners'", data["winners"], f"a list of seats 0..{n - 1}")
    _check_session(data["session"], data["session_length"], n)
    if not all(isinstance(r, dict) for r in data["round_results"]):
        raise _want("'round_results'", data["round_results"], "a list of objects (one per round played)")
    _check_entries(data["rounds"], ROUND_KEYS, "rounds", _ROUND_TYPES)
    _check_entries(data["actions"], ACTION_KEYS, "actions", _action_types(n))
    if not data["rounds"] or data["rounds"][0]["index"] != 0:
        raise GameLogError("game log 'rounds' must start with round index 0 (the state dealt first)")
    indices = [r["index"] for r in data["rounds"]]
    if any(b <= a for a, b in zip(indices, indices[1:])):
        raise GameLogError("game log 'rounds' must be in order of their 'index' (0, 1, 2, ...), each index once")


#: ``session``'s keys and their types (``docs/guides/watching.md``); every key is optional
_SESSION_TYPES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "index": (_is_int, "a non-negative integer"),
    "deal_set": (_is_int, "a non-negative integer"),
    "table": (_is_int, "a non-negative integer"),
    "rotation": (_is_int, "a non-negative integer"),
    "match_seed": (_is_int, "a non-negative integer"),
    "duplicate": (lambda v: isinstance(v, bool), "true or false"),
    "bot_seeds": (lambda v: isinstance(v, list) and _is_int_list(v), "a list of non-negative integers"),
}
_ROUND_TYPES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "index": (_is_int, "a non-negative integer (the round's position in the session)"),
    "round": (lambda v: _is_int(v, 1), "a round number >= 1"),
    "dealt": (lambda v: isinstance(v, dict), "an object (the engine's JSON state)"),
    "redealt": (lambda v: isinstance(v, bool), "true or false"),
}


def _action_types(n: int) -> dict[str, tuple[Callable[[Any], bool], str]]:
    return {
        "round": (_is_int, "a non-negative integer (the index of its round)"),
        "seat": (lambda v: _is_int(v, 0, n - 1), f"a seat number 0..{n - 1}"),
        "action": (_is_int, "a non-negative integer (an action id)"),
        "info": (lambda v: isinstance(v, dict), "an object (the engine's action_info)"),
    }


def _check_session(session: dict[str, Any], length: Any, n: int) -> None:
    for key, (ok, want) in _SESSION_TYPES.items():
        if key in session and not ok(session[key]):
            raise _want(f"'session'.{key}", session[key], want)
    if "bot_seeds" in session and len(session["bot_seeds"]) != n:
        raise GameLogError(f"game log 'session'.bot_seeds has {len(session['bot_seeds'])} entries; expected {n}")
    ok = length is None or _is_int(length, 1) or (isinstance(length, list) and len(length) <= 64 and _is_int_list(length, 1))
    if not ok:
        raise _want("'session_length'", length, "null, a number >= 1 or a list of at most 64 round numbers")


def _check_entries(
    entries: list[Any], keys: Sequence[str], where: str, types: dict[str, tuple[Callable[[Any], bool], str]]
) -> None:
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise GameLogError(f"{where}[{i}] must be an object with the keys {list(keys)}, got {shorten(entry, 80)}")
        missing = [k for k in keys if k not in entry]
        if missing:
            raise GameLogError(f"{where}[{i}] lacks {missing}; each entry has the keys {list(keys)}")
        for key, (ok, want) in types.items():
            if not ok(entry[key]):
                raise GameLogError(f"{where}[{i}].{key} must be {want}, got {shorten(entry[key])}")


__all__ = [
    "ACTION_KEYS",
    "FORMAT",
    "GameLogError",
    "GameRecorder",
    "LOG_KEYS",
    "MAX_LOG_BYTES",
    "ROUND_KEYS",
    "VERSION",
    "VERSIONS",
    "check_log",
    "jsonable",
    "read_log",
    "rules_json",
    "save_log",
]
