"""RLlib PPO (new API stack) on any profile: every seat plays the shared masked policy ``main``, against itself and
against frozen past versions of itself; runs locally by default and on a Ray cluster with ``--address``.

    python training/rllib_ppo.py --profile contract --env-config "{rounds: [1]}" --iterations 50
    python training/rllib_ppo.py --profile continental --num-players 5 --env-config "{deals: 1}"
    python training/rllib_ppo.py --address auto --num-env-runners 8 --ship-package true   # on a Ray cluster

The table is RLlib's own ``PettingZooEnv`` (``rummy_env.integrations.rllib.RummyMultiAgentEnv``, which renames
the observation key to the ``observations`` that RLlib's action-masking example expects); the module is RLlib's
default PPO torch module with the mask applied to its logits (``MaskedPPOTorchRLModule``). Every
``snapshot_every`` iterations ``SelfPlayCallback`` freezes a copy of ``main`` as an opponent (``main_v1``, ...,
at most ``max_opponents``, then the oldest is overwritten); afterwards a share ``1 - self_play_share`` of the
episodes seat ``main`` once against frozen versions, the rest are pure self-play. Only ``main`` is trained.

At the end the learner's ``main`` is exported to a rummy_env checkpoint (safetensors + JSON, playable as
``checkpoint:PATH`` in tournaments without Ray) and evaluated greedily against ``eval_opponents``. RLlib's own
checkpoint (which pickles) is written only with ``rllib_checkpoint: true``, for resuming on your own machine.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rummy_env.training.extras import require

if __name__ == "__main__":  # a missing extra is one line saying what to install, not a traceback
    require("training/rllib_ppo.py", "rllib", ["yaml", "safetensors", "torch", "ray", "ray.rllib"])

from rummy_env.evaluation.policy_eval import env_kwargs, evaluate_checkpoint, format_match  # noqa: E402
from rummy_env.training.config import machine, parse_config, run_name  # noqa: E402


@dataclass
class Config:
    profile: str = "contract"
    """profile to train on: contract, contract_gamerules or continental"""
    num_players: int | None = None
    """seats at the table (null: the profile's default)"""
    env_config: dict = field(default_factory=dict)
    """more keyword arguments of rummy_env.make, e.g. {rounds: [1]}"""
    seed: int = 1
    """RLlib's seed (envs, modules, sampling)"""
    iterations: int = 50
    """RLlib training iterations (algo.train() calls)"""
    train_batch_size: int = 4000
    """env steps (decisions) sampled per iteration"""
    minibatch_size: int = 512
    """PPO minibatch size"""
    num_epochs: int = 4
    """passes over each iteration's batch"""
    learning_rate: float = 3e-4
    """Adam learning rate"""
    gamma: float = 0.995
    """discount per decision"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    entropy_coeff: float = 0.01
    """entropy bonus"""
    clip_param: float = 0.2
    """PPO clip"""
    vf_loss_coeff: float = 0.5
    """value loss weight"""
    hidden: list = field(default_factory=lambda: [256, 256])
    """RLlib fcnet_hiddens (the encoder)"""
    activation: str = "tanh"
    """RLlib fcnet_activation: tanh or relu"""
    vf_share_layers: bool = True
    """one encoder for policy and value (RLlib's default); false: two encoders"""
    num_env_runners: int = 0
    """remote EnvRunner actors (0: sample in this process)"""
    num_envs_per_env_runner: int = 1
    """envs stepped together in each EnvRunner"""
    num_learners: int = 0
    """remote Learner actors (0: learn in this process)"""
    num_cpus: int | None = None
    """CPUs of the local Ray started without --address (null: all)"""
    address: str = ""
    """Ray cluster to join (auto, ray://host:10001); empty: start a local Ray"""
    ship_package: bool = False
    """send this checkout's rummy_env to the cluster's workers (runtime_env py_modules)"""
    snapshot_every: int = 5
    """iterations between frozen snapshots of main (0: no self-play league, main at every seat)"""
    max_opponents: int = 4
    """frozen snapshots kept (the oldest is overwritten)"""
    self_play_share: float = 0.5
    """share of episodes with main at every seat once snapshots exist"""
    torch_threads: int = 1
    """torch threads in this process (2 threads are far slower on this network's small batches)"""
    eval_opponents: list = field(default_factory=lambda: ["random", "heuristic"])
    """bots the exported checkpoint is evaluated against at the end"""
    final_eval_sessions: int = 100
    """sessions per evaluation match (0: none)"""
    eval_workers: int = 2
    """processes for the evaluation"""
    runs_dir: str = "runs"
    """the run's checkpoint goes to runs_dir/<run name>/checkpoints/final"""
    save_path: str = ""
    """also write the exported checkpoint here"""
    overwrite_shipped: bool = False
    """allow save_path / runs_dir inside the folder of the shipped checkpoints (checkpoints/); refused without it"""
    rllib_checkpoint: bool = False
    """also save RLlib's own checkpoint (pickles: load it only if you made it) to runs_dir/<run name>/rllib"""
    progress: bool = True
    """print one line per iteration"""
    config_file: str | None = None
    """(filled in) the YAML file the config came from"""


def build_config(cfg: Config) -> Any:
    """The RLlib ``PPOConfig`` for ``cfg``."""
    from ray.rllib.algorithms.ppo import PPOConfig

    from rummy_env.integrations.rllib import masked_ppo_config

    env_cfg = {
        k: list(v) if isinstance(v, tuple) else v for k, v in env_kwargs(cfg.env_config, cfg.num_players).items()
    }
    model_config = {
        "fcnet_hiddens": list(cfg.hidden),
        "fcnet_activation": cfg.activation,
        "vf_share_layers": cfg.vf_share_layers,
        "head_fcnet_hiddens": [],
    }
    config = masked_ppo_config(
        PPOConfig(),
        profile=cfg.profile,
        env_config=env_cfg,
        model_config=model_config,
        snapshot_every=cfg.snapshot_every or None,
        max_opponents=cfg.max_opponents,
        self_play_share=cfg.self_play_share,
    )
    return (
        config.env_runners(num_env_runners=cfg.num_env_runners, num_envs_per_env_runner=cfg.num_envs_per_env_runner)
        .learners(num_learners=cfg.num_learners)
        .training(
            train_batch_size_per_learner=cfg.train_batch_size,
            minibatch_size=cfg.minibatch_size,
            num_epochs=cfg.num_epochs,
            lr=cfg.learning_rate,
            gamma=cfg.gamma,
            lambda_=cfg.gae_lambda,
            entropy_coeff=cfg.entropy_coeff,
            clip_param=cfg.clip_param,
            vf_loss_coeff=cfg.vf_loss_coeff,
        )
        .debugging(seed=cfg.seed)
    )


def init_ray(cfg: Config) -> bool:
    """Start (or join, with ``address``) Ray; True if this call started it."""
    import ray

    import rummy_env

    if ray.is_initialized():
        return False
    kwargs: dict[str, Any] = {"include_dashboard": False}
    if cfg.address:
        kwargs["address"] = cfg.address
    elif cfg.num_cpus is not None:
        kwargs["num_cpus"] = cfg.num_cpus
    if cfg.ship_package:
        kwargs["runtime_env"] = {"py_modules": [rummy_env]}
    ray.init(**kwargs)
    return True


def _lifetime_steps(result: dict[str, Any]) -> int:
    env = result.get("env_runners", {})
    for key in ("num_env_steps_sampled_lifetime", "num_env_steps_sampled"):
        if key in env:
            return int(env[key])
        if key in result:
            return int(result[key])
    return 0


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Train with the config from the command line, export, evaluate; returns a summary."""
    cfg: Config = parse_config(Config, argv, description=__doc__.splitlines()[0])
    import ray
    import torch

    from rummy_env.integrations.rllib import export_algorithm

    torch.set_num_threads(cfg.torch_threads)
    started = init_ray(cfg)
    algo = None
    try:
        algo = build_config(cfg).build_algo()
        name = run_name(cfg.profile, "rllib_ppo", cfg.seed)
        run_dir = Path(cfg.runs_dir) / name
        run_dir.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        history = []
        for it in range(1, cfg.iterations + 1):
            result = algo.train()
            env = result.get("env_runners", {})
            row = {
                "iteration": it,
                "env_steps": _lifetime_steps(result),
                "module_returns": {
                    k: round(float(v), 3) for k, v in env.get("module_episode_returns_mean", {}).items()
                },
                "main_minus_frozen": env.get("self_play/main_minus_frozen_return"),
                "league": list(result.get("self_play", {}).get("opponents", [])),
                "seconds": round(time.perf_counter() - start, 1),
            }
            history.append(row)
            if cfg.progress:
                print(f"iter {it}: {row['env_steps']} env steps, returns {row['module_returns']}, main - frozen "
                      f"{row['main_minus_frozen']}, league {row['league']}, {row['seconds']} s", flush=True)  # fmt: skip
        wall = time.perf_counter() - start
        steps = history[-1]["env_steps"] if history else 0
        ckpt = run_dir / "checkpoints" / "final"
        meta: dict[str, Any] = {"training_steps": steps, "config": dataclasses.asdict(cfg)}
        export_algorithm(algo, ckpt, **meta)
        if cfg.rllib_checkpoint:
            algo.save_to_path(str((run_dir / "rllib").resolve()))
        evaluation: dict[str, Any] = {}
        for opp in cfg.eval_opponents if cfg.final_eval_sessions else []:
            evaluation[opp] = evaluate_checkpoint(
                str(ckpt), opp, cfg.final_eval_sessions, seed=999, workers=cfg.eval_workers
            )
        extra = {"wall_seconds": round(wall, 1), "machine": machine(), "run_name": name, "iterations": len(history)}
        for target in [ckpt, *([cfg.save_path] if cfg.save_path else [])]:
            export_algorithm(algo, target, evaluation=evaluation, **meta, **extra)
        print(f"\n{cfg.profile}: {steps} env steps in {len(history)} iterations, {wall:.0f} s; checkpoint "
              f"{cfg.save_path or ckpt}")  # fmt: skip
        for m in evaluation.values():
            print("  " + format_match(m))
        return {
            "run": name,
            "checkpoint": str(cfg.save_path or ckpt),
            "env_steps": steps,
            "wall_seconds": wall,
            "history": history,
            "evaluation": evaluation,
        }
    finally:
        if algo is not None:
            algo.stop()
        if started:
            ray.shutdown()


if __name__ == "__main__":
    main()
