"""rummy_env: exact rules engines and PettingZoo environments for rummy-family card games.

``from rummy_env import contract_v0``; ``rummy_env.make("contract", **config)``. Importing the package is light:
environments are imported on first use, and torch is never imported here.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

ENVS = {"contract": "contract_v0", "contract_gamerules": "contract_gamerules_v0", "continental": "continental_v0"}


def make(profile: str, wrapped: bool = True, **config: Any) -> Any:
    """The PettingZoo AEC env of ``profile`` (``wrapped=False``: the raw env)."""
    if profile not in ENVS:
        raise ValueError(f"unknown profile {profile!r}; available: {sorted(ENVS)}")
    mod = importlib.import_module(f"rummy_env.{ENVS[profile]}")
    return mod.env(**config) if wrapped else mod.raw_env(**config)


def __getattr__(name: str) -> Any:
    if name in ENVS.values():
        return importlib.import_module(f"rummy_env.{name}")
    raise AttributeError(f"module 'rummy_env' has no attribute {name!r}")


__all__ = ["make", "ENVS", "__version__"]
