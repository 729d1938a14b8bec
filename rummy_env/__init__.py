"""rummy_env: exact rules engines and PettingZoo environments for rummy-family card games.

``from rummy_env import contract_v0``; ``rummy_env.make("contract", **config)``. Importing the package imports
no environment module (they load on first use) and never torch; it registers the environments with PettingZoo's
registry (``pettingzoo.make("aec", "rummy_env/contract-v0")``, where the installed PettingZoo has one) and with
Gymnasium (``gymnasium.make("rummy_env/Contract-v0")``: ``rummy_env.wrappers.SingleAgentEnv``).
``rummy_env.implementation()`` says whether the engines' hot rules functions run as pure Python or compiled
(``RUMMY_ENV_IMPL``, docs/guides/performance.md).
"""

from __future__ import annotations

import importlib
from typing import Any

from . import _aliases
from .core._impl import implementation
from .registry import GAMES, game

_aliases.install()

__version__ = "0.1.0"

#: profile id -> env module (``rummy_env.contract_v0``), from the registry's descriptors
ENVS = {g.id: g.env_module for g in GAMES.values()}
#: PettingZoo AEC ids (``pettingzoo.make("aec", id, **config)``) -> env module
PETTINGZOO_IDS = {g.pettingzoo_id: g.env_module for g in GAMES.values()}
#: Gymnasium ids of the single-seat ``SingleAgentEnv`` -> profile
GYMNASIUM_IDS = {g.gymnasium_id: g.id for g in GAMES.values()}


def make(profile: str, wrapped: bool = True, **config: Any) -> Any:
    """The PettingZoo AEC env of ``profile`` (``wrapped=False``: the raw env); ``ValueError`` for an unknown id."""
    return game(profile).make_env(wrapped=wrapped, **config)


def _register() -> list[str]:
    """Register the ids with PettingZoo (if its version has a registry) and Gymnasium; the ids registered."""
    done = []
    try:
        import pettingzoo
    except ImportError:  # pragma: no cover - pettingzoo is a dependency
        pettingzoo = None
    register = getattr(pettingzoo, "register", None)
    if register is not None:  # PettingZoo >= 1.27
        from pettingzoo.env_registry.registration import aec_registry

        for env_id, module in PETTINGZOO_IDS.items():
            if env_id not in aec_registry:
                register("aec", env_id, entry_point=f"rummy_env.{module}:env")
            done.append(env_id)
    import gymnasium

    for env_id, profile in GYMNASIUM_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(
                env_id,
                entry_point="rummy_env.envs.wrappers:SingleAgentEnv",
                vector_entry_point="rummy_env.vector.gym_vector:make_vec_env",
                kwargs={"profile": profile},
            )
        done.append(env_id)
    return done


REGISTERED = _register()
implementation()  # RUMMY_ENV_IMPL is read now: a bad value, or compiled without a build, fails the import itself


def __getattr__(name: str) -> Any:
    if name in ENVS.values():
        return importlib.import_module(f"rummy_env.{name}")
    if f"rummy_env.{name}" in _aliases.STABLE:
        return importlib.import_module(f"rummy_env.{name}")
    raise AttributeError(f"module 'rummy_env' has no attribute {name!r}")


__all__ = ["make", "game", "implementation", "GAMES", "ENVS", "PETTINGZOO_IDS", "GYMNASIUM_IDS", "REGISTERED", "__version__"]
