"""Game logs: one played session as versioned JSON (``docs/guides/watching.md`` documents every key).

``GameRecorder`` is fed by the match runner (``rummy_env.evaluation.match.MatchRunner`` with ``game_logs=True``)
while a session is played: the state dealt at the start of every round (``env.game_state()``), every action with
the seat that chose it and its ``action_info``, and at the end the round results and totals (``env.results()``).
``record_game`` (``rummy_env.evaluation.record``) plays one session of bots and returns its log (``rummy record``);
``save_log`` / ``read_log``
write and read a log file, ``read_log`` checking its structure (a ``GameLogError`` saying what is wrong and what
is expected). Whether the actions are legal and reproduce the results is checked by replaying the log through
the engine (``rummy_env.replay.replay``).

This module only records and reads: it imports no module of ``rummy_env``, so that the match runner can record
while it plays. ``rummy_env.replay.log`` re-exports it (with ``record_game``) under its old path.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

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
    """Write ``log`` as JSON to ``path`` (folders created); returns the path."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(log, separators=(",", ":")) + "\n")
    return p


def read_log(source: str | os.PathLike[str] | dict[str, Any]) -> dict[str, Any]:
    """The game log in the file ``source`` (or the dict itself), its structure checked (``check_log``);
    ``GameLogError`` for a file that cannot be read, is not JSON or not a game log of a known version."""
    if isinstance(source, dict):
        data: Any = source
    else:
        try:
            text = Path(source).read_text()
        except (OSError, UnicodeDecodeError) as exc:
            raise GameLogError(f"cannot read game log {str(source)!r}: {exc}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            body = text.strip()
            cut = exc.pos >= len(body) or (body.startswith("{") and not body.endswith("}"))
            hint = " -- the file is empty" if not body else " -- the file ends early: truncated?" if cut else ""
            raise GameLogError(
                f"{str(source)!r} is not JSON ({exc.msg}, line {exc.lineno} column {exc.colno}){hint}; expected a "
                "game log written by `rummy record` or `rummy tournament --save-games`"
            ) from None
    check_log(data)
    return data


def check_log(data: Any) -> None:
    """``GameLogError`` unless ``data`` has the structure of a game log (format, version, keys and their types)."""
    if not isinstance(data, dict):
        raise GameLogError(f"a game log is a JSON object, got {type(data).__name__}; expected keys {list(LOG_KEYS)}")
    fmt = data.get("format")
    if fmt != FORMAT:
        raise GameLogError(
            f"not a rummy_env game log: 'format' is {fmt!r}, expected {FORMAT!r} (written by `rummy record` or "
            "`rummy tournament --save-games`)"
        )
    version = data.get("version")
    if version not in VERSIONS or isinstance(version, bool):
        raise GameLogError(
            f"game log version {version!r} is not known to this rummy_env; it reads versions {list(VERSIONS)}"
        )
    for key, types in LOG_KEYS.items():
        if key not in data:
            raise GameLogError(f"game log without {key!r}; a version-{version} log has the keys {list(LOG_KEYS)}")
        value = data[key]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            want = " or ".join("null" if t is type(None) else t.__name__ for t in types)
            raise GameLogError(f"game log key {key!r} must be {want}, got {type(value).__name__}")
    _check_entries(data["actions"], ACTION_KEYS, "actions")
    _check_entries(data["rounds"], ROUND_KEYS, "rounds")
    n = data["num_players"]
    for key in ("players", "entrants", "totals"):
        if len(data[key]) != n:
            raise GameLogError(f"game log key {key!r} has {len(data[key])} entries; expected one per seat ({n})")
    if not data["rounds"] or data["rounds"][0]["index"] != 0:
        raise GameLogError("game log 'rounds' must start with round index 0 (the state dealt first)")


def _check_entries(entries: list[Any], keys: Sequence[str], where: str) -> None:
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise GameLogError(f"{where}[{i}] must be an object with the keys {list(keys)}, got {entry!r:.80}")
        missing = [k for k in keys if k not in entry]
        if missing:
            raise GameLogError(f"{where}[{i}] lacks {missing}; each entry has the keys {list(keys)}")


__all__ = [
    "ACTION_KEYS",
    "FORMAT",
    "GameLogError",
    "GameRecorder",
    "LOG_KEYS",
    "ROUND_KEYS",
    "VERSION",
    "VERSIONS",
    "check_log",
    "jsonable",
    "read_log",
    "rules_json",
    "save_log",
]
