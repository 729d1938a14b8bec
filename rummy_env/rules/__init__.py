"""Rules layer: one frozen rules object per rule document (``ContractRules``, ``ContinentalRules``) and the pure
rules functions of each profile family (``continental_hand``: the Continental hand solver), and the bounds of every
rules field (``bounds``: checked when a rules object is made, ``RulesError``). ``get_rules(id)`` asks the registry
(``rummy_env.registry``), which also applies the player-count adjustments of a document."""

from __future__ import annotations

from typing import Any

from ..registry import game
from .bounds import RulesError
from .continental import CONTINENTAL, ContinentalRules
from .contract import CONTRACT, CONTRACT_GAMERULES, ContractRules

PROFILES: dict[str, Any] = {
    "contract": CONTRACT,
    "contract_gamerules": CONTRACT_GAMERULES,
    "continental": CONTINENTAL,
}


def get_rules(profile: str, **overrides: Any) -> Any:
    """The rules object of ``profile`` with optional field overrides; ``RulesError`` (a ``ValueError``) for unknown
    names or values outside their bounds (``rummy_env.rules.bounds``)."""
    return game(profile).rules(**overrides)


__all__ = [
    "CONTINENTAL",
    "ContinentalRules",
    "CONTRACT",
    "CONTRACT_GAMERULES",
    "ContractRules",
    "PROFILES",
    "RulesError",
    "get_rules",
]
