"""What a checkpoint's ``env_config`` may hold (``rummy_env.models.checkpoints.check_env_config`` refuses the rest
with a ``CheckpointError``), decided before any env is built from it.

An ``env_config`` is the ``rummy_env.make`` arguments a policy was trained with: the arguments ``ENV_ARGS`` and the
fields of the profile's rules object, at most ``MAX_ENV_CONFIG_KEYS`` keys. Its rules fields make a rules object,
which checks their bounds (``rummy_env.rules.bounds``: e.g. 1..8 decks) in microseconds; a session length has at most
``MAX_ENV_ROUNDS`` entries and must be one the engine plays; every other argument is a plain value. The env itself is
built only after this, so a small crafted JSON file cannot make the loader build a huge env
(``{"decks": 600, "extra_melds_after_opening": true}`` used to take 38 s and 1.4 GB before its refusal).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..core.files import shorten
from ..registry import game

#: the ``rummy_env.make`` arguments an ``env_config`` may give besides the fields of the profile's rules object
ENV_ARGS = ("num_players", "render_mode", "reward", "rounds", "deals", "illegal_action", "max_steps", "max_cycles",
            "illegal_reward", "flat_observation")  # fmt: skip
#: the most keys of an ``env_config``, and the most entries of its session length (``rounds``)
MAX_ENV_CONFIG_KEYS = 64
MAX_ENV_ROUNDS = 64
#: ``env_config`` keys that change neither the env's rules nor its sizes
PLAIN_ENV_KEYS = ("num_players", "render_mode")


def tuples(v: Any) -> Any:
    """JSON lists back to tuples, at every level (rules fields and session lengths are tuples)."""
    return tuple(tuples(x) for x in v) if isinstance(v, list) else v


def env_config_problem(profile: str, num_players: Any, env_config: Any) -> str | None:
    """Why ``env_config`` cannot make a (small) env of the known ``profile`` with ``num_players`` seats, in a few
    words, or None; nothing but a rules object is made."""
    g = game(profile)
    if not isinstance(env_config, dict):
        return "expected an object of rummy_env.make arguments"
    if len(env_config) > MAX_ENV_CONFIG_KEYS:
        return f"{len(env_config)} keys; at most {MAX_ENV_CONFIG_KEYS} are allowed"
    fields = {f.name for f in dataclasses.fields(g.base_rules)}
    unknown = [k for k in env_config if not isinstance(k, str) or (k not in ENV_ARGS and k not in fields)]
    if unknown:
        return (f"unknown argument(s) {shorten(sorted(map(str, unknown)), 120)}; allowed: the arguments "
                f"{list(ENV_ARGS)} and the fields of the {profile} rules object")  # fmt: skip
    overrides = {k: tuples(v) for k, v in env_config.items() if k in fields and k not in PLAIN_ENV_KEYS}
    if num_players is not None:
        overrides["num_players"] = num_players
    try:  # the rules' bounds (``rummy_env.rules.bounds``): a dataclass, nothing built from it
        rules = g.rules(**overrides)
    except (ValueError, TypeError) as e:
        return str(e)[:600]
    for key in ("rounds", "deals"):
        length = env_config.get(key)
        if length is None:
            continue
        if isinstance(length, list) and len(length) > MAX_ENV_ROUNDS:
            return f"{key} has {len(length)} entries; at most {MAX_ENV_ROUNDS} are allowed"
        if not isinstance(length, (int, list)) or isinstance(length, bool):
            return f"{key}={shorten(length)}: expected a number or a list of round numbers"
        try:
            g.engine.check_session_length(rules, tuples(length))
        except (ValueError, TypeError) as e:
            return str(e)[:600]
    for key in ENV_ARGS:
        value = env_config.get(key)
        if key not in ("rounds", "deals") and not isinstance(value, (str, int, float, type(None))):
            return f"{key}={shorten(value)}: expected a plain value (a string, number, true/false or null)"
    return None


__all__ = ["ENV_ARGS", "MAX_ENV_CONFIG_KEYS", "MAX_ENV_ROUNDS", "PLAIN_ENV_KEYS", "env_config_problem", "tuples"]
