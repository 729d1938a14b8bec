"""What a ``training/ppo.py`` checkpoint records about its run, and ``--resume`` from it.

A run's checkpoint (``runs/<run>/checkpoints/latest``) holds the weights, the metadata written by
``checkpoint_metadata`` (its ``training_state``: update counter, wall seconds, the snapshots of the opponent pool)
and the Adam state in ``latest.train.safetensors`` (``optimizer_tensors``). ``resume_run`` reads all of it back:
weights, optimizer state, step and update counters, warm-start decisions and the frozen pool; the tables are dealt
afresh.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..models.checkpoints import load_checkpoint, load_train_state


@dataclass
class RunState:
    """The counters of a run that its checkpoints record and ``--resume`` restores."""

    global_step: int = 0
    """environment steps so far (of the resumed runs too)"""
    update: int = 0
    """PPO updates so far"""
    start_step: int = 0
    """``global_step`` when this run started (its throughput counts the steps after it)"""
    wall_before: float = 0.0
    """wall seconds of the runs this one resumes"""
    bc_done: int = 0
    """warm-start decisions imitated (by this run, or by the run it resumes)"""
    bc_seconds: float = 0.0
    """wall seconds of the warm start (of this run, or of the run it resumes)"""
    bc_agreement: dict = dataclasses.field(default_factory=dict)
    """the warm start's agreement with its teacher per decision kind (``rummy_env.training.warm_start.teacher_agreement``)"""


def checkpoint_metadata(
    cfg: Any,
    run: str,
    num_players: int,
    kwargs: dict[str, Any],
    state: RunState,
    wall_seconds: float,
    pool: list[str],
    evaluation: dict[str, Any],
) -> dict[str, Any]:
    """The metadata of a checkpoint of run ``run`` (``wall_seconds``: of this run so far; ``pool``: its snapshots)."""
    return {
        "profile": cfg.profile,
        "num_players": num_players,
        "env_config": {k: list(v) if isinstance(v, tuple) else v for k, v in kwargs.items()},
        "training_steps": state.global_step,
        "config": dataclasses.asdict(cfg),
        "evaluation": evaluation,
        "algorithm": "ppo (training/ppo.py)",
        "warm_start": {"teacher": cfg.bc_teacher, "decisions": state.bc_done, "seconds": round(state.bc_seconds, 1),
                       **({"agreement": state.bc_agreement} if state.bc_agreement else {})}  # fmt: skip
        if state.bc_done
        else {},
        "run_name": run,
        "training_state": {
            "update": state.update,
            "wall_seconds": round(state.wall_before + wall_seconds, 1),
            "pool": pool,
        },
    }


def resume_run(cfg: Any, model: Any, optimizer: Any, arch: dict[str, Any], num_players: int, pool: Any) -> RunState:
    """Load ``cfg.resume`` into ``model`` and ``optimizer``, its snapshots into ``pool`` (a ``SnapshotPool``); its
    counters. A checkpoint of another profile, table size or architecture is refused (``CheckpointError`` /
    ``ValueError``)."""
    ckpt = load_checkpoint(cfg.resume, expect_profile=cfg.profile, expect_num_players=num_players)
    if ckpt.model.arch != arch:
        raise ValueError(f"--resume {cfg.resume}: architecture {ckpt.model.arch} differs from the config's {arch}")
    model.load_state_dict(ckpt.model.state_dict())
    state = ckpt.metadata.get("training_state", {})
    steps = int(ckpt.metadata["training_steps"])
    run = RunState(
        global_step=steps,
        start_step=steps,
        update=int(state.get("update", 0)),
        wall_before=float(state.get("wall_seconds", 0.0)),
        bc_done=int(ckpt.metadata.get("warm_start", {}).get("decisions", 0)),
        bc_seconds=float(ckpt.metadata.get("warm_start", {}).get("seconds", 0.0)),
        bc_agreement=dict(ckpt.metadata.get("warm_start", {}).get("agreement", {})),
    )
    train = load_train_state(cfg.resume, ckpt.metadata)
    if train:
        load_optimizer_tensors(optimizer, train)
    for name in state.get("pool", []):
        pool.load_snapshot(name, Path(cfg.resume).parent.parent / "pool")
    return run


def optimizer_tensors(optimizer: Any) -> dict[str, Any]:
    """Adam's state as flat tensors (for X.train.safetensors)."""
    import torch  # optional dependency: torch

    out = {}
    for i, st in optimizer.state_dict()["state"].items():
        for k, v in st.items():
            out[f"state.{i}.{k}"] = v if torch.is_tensor(v) else torch.tensor(float(v))
    return out


def load_optimizer_tensors(optimizer: Any, tensors: dict[str, Any]) -> None:
    """Restore Adam's state from ``optimizer_tensors``."""
    sd = optimizer.state_dict()
    state: dict[int, dict[str, Any]] = defaultdict(dict)
    for key, v in tensors.items():
        _, i, k = key.split(".", 2)
        state[int(i)][k] = v
    sd["state"] = dict(state)
    optimizer.load_state_dict(sd)
