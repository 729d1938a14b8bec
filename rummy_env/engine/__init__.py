"""Rules engines: game states as plain data, phases, legal actions and transitions, scoring.

``new_state(profile, seed=..., rounds=..., **rule_overrides)`` starts a seeded session;
``load_state(data, seed=...)`` starts from a JSON scenario / dumped state (``state.to_json()``).
"""

from __future__ import annotations

from typing import Any

from ..registry import GAMES, game
from ..rules import get_rules
from .common import IllegalActionError, ScenarioError


def new_state(profile: str = "contract", seed: int | None = None, rounds: Any = None, **rule_overrides: Any):
    """A new seeded session of ``profile``. ``rounds`` is the session length every profile accepts: None (all),
    a number N (the first N rounds; continental: N deals) or, in the contract profiles, a sequence of round
    numbers."""
    rules = get_rules(profile, **rule_overrides)
    return game(profile).new_state(rules, seed=seed, rounds=rounds)


def load_state(data: dict[str, Any], seed: int | None = None, **rule_overrides: Any):
    """A state from the JSON scenario format (``data["profile"]`` picks the engine, default ``contract``).

    Without a ``num_players`` override the player count is the scenario's: its ``num_players``, else the length
    of its ``hands`` (so a 5-player dump loads as such, with that count's shoe).
    """
    if not isinstance(data, dict):
        raise ScenarioError(f"a scenario must be a dict, got {type(data).__name__}")
    profile = data.get("profile", "contract")
    if not isinstance(profile, str) or profile not in GAMES:
        raise ScenarioError(f"'profile' must be one of {sorted(GAMES)}, got {profile!r}")
    g = game(profile)
    overrides = dict(rule_overrides)
    if "num_players" not in overrides:
        n = _scenario_players(data)
        if n is not None and not g.min_players <= n <= g.max_players:
            key = "'num_players'" if "num_players" in data else "'hands' (one list per seat)"
            raise ScenarioError(f"{key} gives {n} players; profile {profile!r} seats {g.min_players}..{g.max_players}")
        if n is not None and n != g.default_players:
            overrides["num_players"] = n
    try:
        rules = get_rules(profile, **overrides)
    except ValueError as exc:
        raise ScenarioError(f"rules for this scenario: {exc}") from None
    return g.load_state(data, rules, seed=seed)


def _scenario_players(data: dict[str, Any]) -> int | None:
    """The player count a scenario states (``num_players``) or implies (one hand per seat); None if neither."""
    if "num_players" in data:
        v = data["num_players"]
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ScenarioError(f"'num_players' must be a positive integer, got {v!r}")
        return v
    hands = data.get("hands")
    if isinstance(hands, list) and hands:
        return len(hands)
    return None


__all__ = ["IllegalActionError", "ScenarioError", "new_state", "load_state"]
