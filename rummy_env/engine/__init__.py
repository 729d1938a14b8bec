"""Rules engines: game states as plain data, phases, legal actions and transitions, scoring.

``new_state(profile, seed=..., rounds=..., **rule_overrides)`` starts a seeded session;
``load_state(data, seed=...)`` starts from a JSON scenario / dumped state (``state.to_json()``).
"""

from __future__ import annotations

from typing import Any

from ..profiles import get_rules
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
    """A state from the JSON scenario format (``data["profile"]`` picks the engine, default ``contract``)."""
    if not isinstance(data, dict):
        raise ScenarioError(f"a scenario must be a dict, got {type(data).__name__}")
    profile = data.get("profile", "contract")
    try:
        rules = get_rules(profile, **rule_overrides)
    except ValueError as exc:
        raise ScenarioError(str(exc)) from None
    if profile in ("contract", "contract_gamerules"):
        from .contract import load_state as _load

        return _load(data, rules, seed=seed)
    if profile == "continental":
        from .continental import load_state as _load_continental

        return _load_continental(data, rules, seed=seed)
    raise ScenarioError(f"profile {profile!r} has no engine yet")


__all__ = ["IllegalActionError", "ScenarioError", "new_state", "load_state"]
