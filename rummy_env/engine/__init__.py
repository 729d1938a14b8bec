"""Rules engines: game states as plain data, phases, legal actions and transitions, scoring.

``new_state(profile, seed=..., rounds=..., **rule_overrides)`` starts a seeded session;
``load_state(data, seed=...)`` starts from a JSON scenario / dumped state (``state.to_json()``).
"""

from __future__ import annotations

from typing import Any

from ..rules import PROFILES, get_rules
from .common import IllegalActionError, ScenarioError


def new_state(profile: str = "contract", seed: int | None = None, rounds: Any = None, **rule_overrides: Any):
    """A new seeded session of ``profile`` (all rounds, or the given subset ``rounds``; for ``continental`` the
    number of deals)."""
    rules = get_rules(profile, **rule_overrides)
    if profile in ("contract", "contract_gamerules"):
        from .contract import ContractState

        return ContractState(rules, seed=seed, rounds=rounds)
    if profile == "continental":
        from .continental import ContinentalState

        return ContinentalState(rules, seed=seed, deals=rounds)
    raise ValueError(f"profile {profile!r} has no engine yet")


def load_state(data: dict[str, Any], seed: int | None = None, **rule_overrides: Any):
    """A state from the JSON scenario format (``data["profile"]`` picks the engine, default ``contract``).

    Without a ``num_players`` override the player count is the scenario's: its ``num_players``, else the length
    of its ``hands`` (so a 5-player dump loads as such, with that count's shoe).
    """
    if not isinstance(data, dict):
        raise ScenarioError(f"a scenario must be a dict, got {type(data).__name__}")
    profile = data.get("profile", "contract")
    if not isinstance(profile, str) or profile not in PROFILES:
        raise ScenarioError(f"'profile' must be one of {sorted(PROFILES)}, got {profile!r}")
    overrides = dict(rule_overrides)
    if "num_players" not in overrides:
        n = _scenario_players(data)
        base = PROFILES[profile]
        if n is not None and not base.min_players <= n <= base.max_players:
            key = "'num_players'" if "num_players" in data else "'hands' (one list per seat)"
            raise ScenarioError(
                f"{key} gives {n} players; profile {profile!r} seats {base.min_players}..{base.max_players}"
            )
        if n is not None and n != base.num_players:
            overrides["num_players"] = n
    try:
        rules = get_rules(profile, **overrides)
    except ValueError as exc:
        raise ScenarioError(f"rules for this scenario: {exc}") from None
    if profile in ("contract", "contract_gamerules"):
        from .contract import load_state as _load

        return _load(data, rules, seed=seed)
    if profile == "continental":
        from .continental import load_state as _load_continental

        return _load_continental(data, rules, seed=seed)
    raise ScenarioError(f"profile {profile!r} has no engine yet")


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
