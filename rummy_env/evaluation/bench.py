"""Throughput of the PettingZoo environments, driven the way peer benchmarks drive PettingZoo's classic envs:
``env.last()``, the action mask, a uniformly random legal action, ``env.step``."""

from __future__ import annotations

import random
import time
from typing import Any


def bench_env(profile: str, seconds: float, seed: int = 0, **config: Any) -> dict[str, Any]:
    """Random legal play through the AEC API on one core: decisions/s and the time share of masks (legal-action
    listing included) and observations (the public view and its encoding)."""
    if not seconds > 0 or seconds == float("inf"):
        raise ValueError(f"seconds={seconds!r}: expected a finite number of seconds > 0")
    import numpy as np

    import rummy_env

    env = rummy_env.make(profile, **config)
    raw = env.unwrapped
    rng = random.Random(seed)
    decisions = sessions = 0
    t_mask = t_obs = 0.0
    enc = raw.observer.encode
    view_of = raw.public_view
    mask_fn = raw.action_mask
    # measure the share of masks and observations by timing them separately on the same states, in the order of
    # the env's observe: the mask (which lists the legal actions), then the encoding of the agent's public view
    orig_observe = raw.observe

    def timed_observe(agent: str) -> dict[str, Any]:
        nonlocal t_mask, t_obs
        t0 = time.perf_counter()
        mask = mask_fn(agent)
        t1 = time.perf_counter()
        obs = enc(view_of(agent))
        t2 = time.perf_counter()
        t_mask += t1 - t0
        t_obs += t2 - t1
        return {"observation": obs, "action_mask": mask}

    raw.observe = timed_observe  # type: ignore[method-assign]
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed + sessions)
        for _agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            decisions += 1
        sessions += 1
    secs = time.perf_counter() - start
    raw.observe = orig_observe  # type: ignore[method-assign]
    return {
        "profile": profile,
        "layer": "pettingzoo_aec",
        "impl": rummy_env.implementation(),
        "decisions": decisions,
        "sessions": sessions,
        "seconds": round(secs, 2),
        "decisions_per_second": round(decisions / secs),
        "sessions_per_second": round(sessions / secs, 3),
        "mask_time_share": round(t_mask / secs, 3),
        "observation_time_share": round(t_obs / secs, 3),
    }
