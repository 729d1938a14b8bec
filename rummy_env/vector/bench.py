"""Throughput of ``VectorEnv``: random legal play, observations and masks every step, on one core."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .env import VectorEnv


def bench_vector(profile: str, num_envs: int = 64, seconds: float = 5.0, seed: int = 0,
                 **env_config: Any) -> dict[str, Any]:
    """Random legal play through ``VectorEnv(profile, num_envs, seed=seed, **env_config)`` for ``seconds``:
    decisions/s (``decisions_per_second``: actions applied, all tables together) and sessions/s.

    The actions are drawn by ``vec.random_actions(rng)`` with ``np.random.default_rng(seed)`` (the same actions as
    ``random_legal_actions(mask, rng)``, from the tables' legal lists instead of a scan of the mask); every
    step writes every table's observation and mask, as training does. Same keys as ``bench_env`` (the AEC bench)
    where they mean the same, ``layer`` = ``"vector"``.
    """
    if not seconds > 0 or seconds == float("inf"):
        raise ValueError(f"seconds={seconds!r}: expected a finite number of seconds > 0")
    vec = VectorEnv(profile, num_envs, seed=seed, **env_config)
    rng = np.random.default_rng(seed)
    _obs, _mask, _seat = vec.reset()
    steps = sessions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        _obs, _mask, _seat, _rewards, done = vec.step(vec.random_actions(rng))
        steps += 1
        sessions += int(np.count_nonzero(done))
    secs = time.perf_counter() - start
    decisions = steps * vec.num_envs
    return {
        "profile": profile,
        "layer": "vector",
        "num_envs": vec.num_envs,
        "decisions": decisions,
        "sessions": sessions,
        "seconds": round(secs, 2),
        "decisions_per_second": round(decisions / secs),
        "sessions_per_second": round(sessions / secs, 3),
    }


__all__ = ["bench_vector"]
