"""Game profiles: one frozen rules object per rule document, looked up by id."""

from __future__ import annotations

from typing import Any

from .contract import CONTRACT, ContractRules

PROFILES: dict[str, Any] = {"contract": CONTRACT}


def get_rules(profile: str, **overrides: Any) -> Any:
    """The rules object of ``profile`` with optional field overrides; ``ValueError`` for unknown names."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; available: {sorted(PROFILES)}")
    rules = PROFILES[profile]
    return rules.with_overrides(**overrides) if overrides else rules


__all__ = ["CONTRACT", "ContractRules", "PROFILES", "get_rules"]
