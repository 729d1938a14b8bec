"""Learner decisions per second: the batched Gymnasium adapter (``GymVectorEnv``) against SB3's ``SubprocVecEnv`` over
``SingleAgentEnv`` with the same number of tables, random legal learner actions, on one core.

```bash
rummy bench --learner 1 8 32 --opponents random heuristic --seconds 10
```

Both sides draw every learner action uniformly from the current mask (the adapter's ``infos["action_mask"]``;
``SubprocVecEnv``'s ``env_method("action_masks")``, the call ``MaskablePPO`` makes each step), so both pay for the
masks a masked learner needs. The process (and the ``SubprocVecEnv`` workers it forks) is pinned to one core with
``os.sched_setaffinity`` where the platform has it (``pin_to_one_core``). ``rummy bench --learner`` prints one JSON
line per measurement and a table; ratios are taken within one run.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..envs.wrappers import SingleAgentEnv
from .gym_vector import GymVectorEnv

SHORT = {"contract": {"rounds": (1,)}, "contract_gamerules": {"rounds": (1,)}, "continental": {"rounds": 1}}


def _pick(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks], dtype=np.int64)


def _timed(step: Callable[[], int], seconds: float) -> float:
    """Decisions per second of ``step`` (which returns the decisions it made) over about ``seconds``."""
    step()  # warm-up
    done, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        done += step()
    return done / elapsed


def bench_adapter(profile: str, tables: int, opponent: str, seconds: float, seed: int = 0) -> float:
    """Learner decisions/s of ``GymVectorEnv`` (random legal learner actions)."""
    envs = GymVectorEnv(profile, num_envs=tables, learner_seat="random", opponents=[opponent], **SHORT[profile])
    _, infos = envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    state = {"infos": infos}

    def step() -> int:
        _, _, _, _, state["infos"] = envs.step(_pick(state["infos"]["action_mask"], rng))
        return tables

    return _timed(step, seconds)


def bench_subproc(profile: str, tables: int, opponent: str, seconds: float, seed: int = 0) -> float:
    """Learner decisions/s of SB3's ``SubprocVecEnv`` over ``SingleAgentEnv`` (masks by ``env_method``)."""
    from stable_baselines3.common.vec_env import SubprocVecEnv  # optional dependency: stable-baselines3

    def maker(i: int) -> Callable[[], SingleAgentEnv]:
        return lambda: SingleAgentEnv(profile, learner_seat="random", opponents=[opponent], **SHORT[profile])

    venv = SubprocVecEnv([maker(i) for i in range(tables)], start_method="fork")
    try:
        venv.seed(seed)
        venv.reset()
        rng = np.random.default_rng(seed)

        def step() -> int:
            masks = np.stack(venv.env_method("action_masks"))
            venv.step(_pick(masks, rng))
            return tables

        return _timed(step, seconds)
    finally:
        venv.close()


def run(
    profile: str, tables: Sequence[int], opponents: Sequence[str], seconds: float, show: Callable[[str], Any] = print
) -> list[dict[str, Any]]:
    """One record per (opponent, tables): both rates and their ratio, each shown as a JSON line as it is measured."""
    rows = []
    for opponent in opponents:
        for n in tables:
            adapter = bench_adapter(profile, n, opponent, seconds)
            subproc = bench_subproc(profile, n, opponent, seconds)
            row = {"profile": profile, "opponents": opponent, "tables": n, "adapter_per_s": round(adapter),
                   "subproc_per_s": round(subproc), "ratio": round(adapter / subproc, 2)}  # fmt: skip
            show(json.dumps(row))
            rows.append(row)
    return rows


def pin_to_one_core() -> int | None:
    """Pin this process (and the workers it forks later) to its first allowed core; the core, or None where the
    platform cannot."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    core = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})
    return core


def table(rows: Sequence[dict[str, Any]]) -> str:
    """The rows of ``run`` as a text table."""
    lines = [f"{'opponents':<10} {'tables':>6} {'adapter/s':>10} {'SubprocVecEnv/s':>16} {'ratio':>6}"]
    for r in rows:
        lines.append(f"{r['opponents']:<10} {r['tables']:>6} {r['adapter_per_s']:>10} {r['subproc_per_s']:>16} "
                     f"{r['ratio']:>6}")  # fmt: skip
    return "\n".join(lines)


__all__ = ["bench_adapter", "bench_subproc", "pin_to_one_core", "run", "table"]
