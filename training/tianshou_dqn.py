"""Tianshou masked DQN on one profile, through Tianshou's ``PettingZooEnv``, exported to a rummy_env checkpoint.

    python training/tianshou_dqn.py --profile contract --env-config "{rounds: [1]}" --opponents "[heuristic]"
    python training/tianshou_dqn.py --profile continental --env-config "{deals: 1}" --epochs 20

One learning seat (drawn at every reset) plays against ``opponents`` (bot ids, ``checkpoint:PATH`` included): the
table is shown to Tianshou as a one-agent AEC env (``rummy_env.integrations.tianshou.LearnerSeatAEC``) wrapped in
``tianshou.env.PettingZooEnv``, whose observations carry the action mask that Tianshou's DQN applies to its
Q-values (greedy and epsilon-greedy actions are always legal). The algorithm is ``MultiAgentOffPolicyAlgorithm``
with one DQN (double Q-learning, target network). Why not every seat at once: see the integration module's
docstring (Tianshou's multi-agent buffer gives each step's reward to the seat that acted and bootstraps from the
next seat's observation).

At the end the Q-network is exported (safetensors + JSON, ``rummy_env.checkpoints``; the Q-values are the policy
logits, the value head is zero) and evaluated greedily against ``eval_opponents``.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rummy_env.training.extras import require

if __name__ == "__main__":  # a missing extra is one line saying what to install, not a traceback
    require("training/tianshou_dqn.py", "tianshou", ["yaml", "safetensors", "torch", "tianshou"])

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
    opponents: list = field(default_factory=lambda: ["random"])
    """bot ids of the other seats (one for all, or one per seat after the learner); checkpoint:PATH included"""
    learner_seat: str = "random"
    """the learning seat: random (drawn at every reset) or a seat number"""
    seed: int = 1
    """seed of torch, numpy and the envs"""
    epochs: int = 10
    """Tianshou epochs (each: epoch_steps environment steps, then the updates)"""
    epoch_steps: int = 5000
    """learner decisions collected per epoch"""
    collect_steps: int = 100
    """learner decisions collected per training step (before its gradient steps)"""
    updates_per_step: float = 0.25
    """gradient steps per collected decision"""
    batch_size: int = 64
    """minibatch size"""
    buffer_size: int = 20000
    """replay buffer size (transitions; each holds two observations and two masks)"""
    n_envs: int = 2
    """training environments (DummyVectorEnv, in this process)"""
    learning_rate: float = 1e-4
    """Adam learning rate"""
    gamma: float = 0.99
    """discount per decision of the learning seat"""
    n_step: int = 3
    """n-step returns"""
    target_update_freq: int = 500
    """gradient steps between target-network copies"""
    eps_start: float = 1.0
    """epsilon of epsilon-greedy exploration at the start (random legal action)"""
    eps_end: float = 0.05
    """epsilon at the end of the decay"""
    eps_decay_steps: int = 20000
    """learner decisions over which epsilon decays linearly"""
    hidden: list = field(default_factory=lambda: [256, 256])
    """hidden layers of the Q-network"""
    activation: str = "relu"
    """relu or tanh"""
    torch_threads: int = 1
    """torch threads"""
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
    tensorboard: bool = False
    """log Tianshou's statistics to runs_dir/<run name> with TensorBoard"""
    progress_bar: bool = True
    """show Tianshou's progress bars"""
    config_file: str | None = None
    """(filled in) the YAML file the config came from"""


def build(cfg: Config) -> dict[str, Any]:
    """The Tianshou pieces for ``cfg``: envs, Q-network, DQN, multi-agent algorithm, collector."""
    import numpy as np
    import torch
    from tianshou.algorithm.modelfree.dqn import DQN, DiscreteQLearningPolicy
    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv

    from rummy_env.integrations.tianshou import MaskedQNet, make_pettingzoo_env, qnet_architecture

    torch.manual_seed(cfg.seed)
    np.random.seed(cfg.seed)
    kwargs = env_kwargs(cfg.env_config, cfg.num_players)
    seat: int | str = cfg.learner_seat if cfg.learner_seat == "random" else int(cfg.learner_seat)

    def make() -> Any:
        return make_pettingzoo_env(cfg.profile, cfg.opponents, learner_seat=seat, **kwargs)

    env = make()
    venv = DummyVectorEnv([make for _ in range(cfg.n_envs)])
    venv.seed(cfg.seed)
    obs_space = env.observation_space["observation"]
    arch = qnet_architecture(obs_space.shape[0], int(env.action_space.n), cfg.hidden, cfg.activation)
    qnet = MaskedQNet(arch, seed=cfg.seed)
    policy = DiscreteQLearningPolicy(
        model=qnet, action_space=env.action_space, observation_space=obs_space, eps_training=cfg.eps_start
    )
    dqn = DQN(
        policy=policy,
        optim=AdamOptimizerFactory(lr=cfg.learning_rate),
        gamma=cfg.gamma,
        n_step_return_horizon=cfg.n_step,
        target_update_freq=cfg.target_update_freq,
        is_double=True,  # the double-Q target takes the argmax of the *masked* online Q-values
    )
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[dqn], env=env)
    buffer = VectorReplayBuffer(cfg.buffer_size, cfg.n_envs)
    collector = Collector(algorithm, venv, buffer, exploration_noise=True)
    return {
        "env": env,
        "venv": venv,
        "qnet": qnet,
        "policy": policy,
        "dqn": dqn,
        "algorithm": algorithm,
        "collector": collector,
        "num_players": env.env.num_players,
        "env_kwargs": kwargs,
        "cfg": cfg,
    }


def train(cfg: Config, parts: dict[str, Any], logger: Any = None) -> Any:
    """Run Tianshou's off-policy trainer on ``parts`` (from ``build``); returns its ``InfoStats``."""
    from tianshou.trainer import OffPolicyTrainerParams

    policy, collector = parts["policy"], parts["collector"]

    def training_fn(epoch: int, env_step: int) -> None:
        frac = min(1.0, env_step / max(1, cfg.eps_decay_steps))
        policy.set_eps_training(cfg.eps_start + frac * (cfg.eps_end - cfg.eps_start))

    collector.reset()
    return parts["algorithm"].run_training(
        OffPolicyTrainerParams(
            training_collector=collector,
            test_collector=None,
            max_epochs=cfg.epochs,
            epoch_num_steps=cfg.epoch_steps,
            collection_step_num_env_steps=cfg.collect_steps,
            batch_size=cfg.batch_size,
            update_step_num_gradient_steps_per_sample=cfg.updates_per_step,
            training_fn=training_fn,
            multi_agent_return_reduction=lambda r: r[:, 0],
            logger=logger,
            verbose=False,
            show_progress=cfg.progress_bar,
        )
    )


def run(cfg: Config) -> tuple[dict[str, Any], dict[str, Any]]:
    """Train, export, evaluate; returns (summary, the Tianshou pieces of ``build``)."""
    import torch

    from rummy_env.integrations.tianshou import export_qnet

    torch.set_num_threads(cfg.torch_threads)
    parts = build(cfg)
    name = run_name(cfg.profile, "tianshou_dqn", cfg.seed)
    run_dir = Path(cfg.runs_dir) / name
    run_dir.mkdir(parents=True, exist_ok=True)
    logger = None
    if cfg.tensorboard:
        from tianshou.utils import TensorboardLogger
        from torch.utils.tensorboard import SummaryWriter

        logger = TensorboardLogger(SummaryWriter(str(run_dir)))
    start = time.perf_counter()
    stats = train(cfg, parts, logger)
    wall = time.perf_counter() - start
    steps = int(stats.train_step)
    ckpt = run_dir / "checkpoints" / "final"
    meta = {
        "profile": cfg.profile,
        "num_players": parts["num_players"],
        "env_config": {k: v for k, v in parts["env_kwargs"].items() if k != "num_players"},
        "training_steps": steps,
        "config": dataclasses.asdict(cfg),
    }
    export_qnet(parts["qnet"], ckpt, **meta)
    evaluation: dict[str, Any] = {}
    for opp in cfg.eval_opponents if cfg.final_eval_sessions else []:
        evaluation[opp] = evaluate_checkpoint(
            str(ckpt), opp, cfg.final_eval_sessions, seed=999, workers=cfg.eval_workers
        )
    extra = {
        "wall_seconds": round(wall, 1),
        "machine": machine(),
        "run_name": name,
        "update_steps": int(stats.update_step),
    }
    for target in [ckpt, *([cfg.save_path] if cfg.save_path else [])]:
        export_qnet(parts["qnet"], target, evaluation=evaluation, **meta, **extra)
    print(f"\n{cfg.profile} ({parts['num_players']} players): {steps} learner decisions, {stats.train_episode} "
          f"episodes, {stats.update_step} update steps in {wall:.0f} s; checkpoint {cfg.save_path or ckpt}")  # fmt: skip
    for m in evaluation.values():
        print("  " + format_match(m))
    parts["venv"].close()
    summary = {
        "run": name,
        "checkpoint": str(cfg.save_path or ckpt),
        "learner_steps": steps,
        "episodes": int(stats.train_episode),
        "update_steps": int(stats.update_step),
        "wall_seconds": wall,
        "evaluation": evaluation,
    }
    return summary, parts


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Train with the config from the command line, export, evaluate; returns a summary."""
    cfg: Config = parse_config(Config, argv, description=__doc__.splitlines()[0])
    return run(cfg)[0]


if __name__ == "__main__":
    main()
