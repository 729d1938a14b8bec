"""Learner decisions per second: the batched Gymnasium adapter (``GymVectorEnv``) against SB3's ``SubprocVecEnv`` over
``SingleAgentEnv`` with the same number of tables, random legal learner actions, on one core.

```bash
python -m rummy_env.vector.learner_bench --tables 1 8 32 --opponents random heuristic --seconds 10
```

Both sides draw every learner action uniformly from the current mask (the adapter's ``infos["action_mask"]``;
``SubprocVecEnv``'s ``env_method("action_masks")``, the call ``MaskablePPO`` makes each step), so both pay for the
masks a masked learner needs. The process (and the ``SubprocVecEnv`` workers it forks) is pinned to one core with
``os.sched_setaffinity`` where the platform has it. Prints one JSON line per measurement and a table; ratios are
taken within one run.
"""

from __future__ import annotations

import argparse
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


def run(profile: str, tables: Sequence[int], opponents: Sequence[str], seconds: float) -> list[dict[str, Any]]:
    """One record per (opponent, tables): both rates and their ratio."""
    rows = []
    for opponent in opponents:
        for n in tables:
            adapter = bench_adapter(profile, n, opponent, seconds)
            subproc = bench_subproc(profile, n, opponent, seconds)
            row = {"profile": profile, "opponents": opponent, "tables": n, "adapter_per_s": round(adapter),
                   "subproc_per_s": round(subproc), "ratio": round(adapter / subproc, 2)}  # fmt: skip
            print(json.dumps(row), flush=True)
            rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    """The command line (module docstring)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--profile", default="contract", choices=sorted(SHORT))
    p.add_argument("--tables", type=int, nargs="+", default=[1, 8, 32])
    p.add_argument("--opponents", nargs="+", default=["random", "heuristic"])
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--all-cores", action="store_true", help="do not pin the process to one core")
    args = p.parse_args(argv)
    if any(n < 1 for n in args.tables) or not 0 < args.seconds <= 3600:
        p.error("--tables: positive integers; --seconds: more than 0, at most 3600")
    if not args.all_cores and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    import torch  # optional dependency: torch (SB3's); one thread, as in training

    torch.set_num_threads(1)
    rows = run(args.profile, args.tables, args.opponents, args.seconds)
    print(f"\n{'opponents':<10} {'tables':>6} {'adapter/s':>10} {'SubprocVecEnv/s':>16} {'ratio':>6}")
    for r in rows:
        print(f"{r['opponents']:<10} {r['tables']:>6} {r['adapter_per_s']:>10} {r['subproc_per_s']:>16} {r['ratio']:>6}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
