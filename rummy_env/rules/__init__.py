"""Game profiles: one frozen rules object per rule document, looked up by id."""

from __future__ import annotations

from typing import Any

from .continental import CONTINENTAL, ContinentalRules
from .contract import CONTRACT, CONTRACT_GAMERULES, ContractRules

PROFILES: dict[str, Any] = {
    "contract": CONTRACT,
    "contract_gamerules": CONTRACT_GAMERULES,
    "continental": CONTINENTAL,
}


def get_rules(profile: str, **overrides: Any) -> Any:
    """The rules object of ``profile`` with optional field overrides; ``ValueError`` for unknown names."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; available: {sorted(PROFILES)}")
    rules = PROFILES[profile]
    if profile == "contract_gamerules" and overrides.get("num_players") == 5 and "decks" not in overrides:
        # B.2-1: five players use the 2 x 52 + 2 jokers pack for the whole session
        overrides = {"decks": 2, "jokers": 2, **overrides}
    return rules.with_overrides(**overrides) if overrides else rules


__all__ = [
    "CONTINENTAL",
    "ContinentalRules",
    "CONTRACT",
    "CONTRACT_GAMERULES",
    "ContractRules",
    "PROFILES",
    "get_rules",
]
