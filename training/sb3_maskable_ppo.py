"""sb3-contrib MaskablePPO on one seat of a rummy table (``rummy_env.wrappers.SingleAgentEnv``), exported to a
rummy_env checkpoint so the result plays as an opponent without ever unpickling anything.

    python training/sb3_maskable_ppo.py --config configs/sb3_contract.yaml
    python training/sb3_maskable_ppo.py --profile continental --num-players 5 --set env_config="{deals: 1}"

The learning seat is drawn at every reset (``learner_seat: random``); the other seats are played by ``opponents``
(bot ids, ``checkpoint:PATH`` included). The reward is the learning seat's own. At the end the SB3 policy is
exported with ``export_sb3`` (safetensors + JSON, ``rummy_env.checkpoints``) and evaluated greedily against
``random`` and ``heuristic`` like the PPO script's checkpoints. SB3's own ``.zip`` (which is a pickle) is written
only if ``save_sb3_zip`` is set, for resuming SB3 training on your own machine.

This is the single-agent baseline: the other seats are fixed bots, not the learner, so it learns to exploit them
rather than self-play; ``training/ppo.py`` is the self-play trainer.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rummy_env.training.extras import require

if __name__ == "__main__":  # a missing extra is one line saying what to install, not a traceback
    require("training/sb3_maskable_ppo.py", "train", ["yaml", "safetensors", "torch", "stable_baselines3", "sb3_contrib", "tensorboard"])

from rummy_env.evaluation.policy_eval import env_kwargs, evaluate_checkpoint, format_match  # noqa: E402
from rummy_env.models.checkpoints import save_checkpoint  # noqa: E402
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
    """bot ids of the other seats (one for all, or one per seat after the learner)"""
    learner_seat: str = "random"
    """the learning seat: random (drawn at every reset) or a seat number"""
    seed: int = 1
    """seed of the envs, the bots and SB3"""
    total_timesteps: int = 100_000
    """decisions of the learning seat to train for (SB3 counts only those)"""
    n_envs: int = 4
    """environments stepped together (DummyVecEnv, in this process)"""
    n_steps: int = 512
    """steps per environment per rollout"""
    batch_size: int = 256
    """minibatch size"""
    n_epochs: int = 4
    """passes over each rollout"""
    learning_rate: float = 3e-4
    """Adam learning rate"""
    gamma: float = 0.995
    """discount per decision of the learning seat"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    ent_coef: float = 0.01
    """entropy bonus"""
    clip_range: float = 0.2
    """PPO clip"""
    net_arch: list = field(default_factory=lambda: [64, 64])
    """hidden layers of SB3's separate policy and value MLPs"""
    activation: str = "tanh"
    """tanh or relu"""
    torch_threads: int = 1
    """torch threads"""
    eval_opponents: list = field(default_factory=lambda: ["random", "heuristic"])
    """bots the exported checkpoint is evaluated against at the end"""
    final_eval_sessions: int = 100
    """sessions per evaluation match (0: none)"""
    eval_workers: int = 2
    """processes for the evaluation"""
    runs_dir: str = "runs"
    """TensorBoard logs and the run's checkpoint go to runs_dir/<run name>"""
    save_path: str = ""
    """also write the exported checkpoint here"""
    overwrite_shipped: bool = False
    """allow save_path / runs_dir inside the folder of the shipped checkpoints (checkpoints/); refused without it"""
    save_sb3_zip: bool = False
    """also save SB3's own .zip (a pickle: load it only if you made it)"""
    progress_bar: bool = True
    """show a tqdm progress bar"""
    config_file: str | None = None
    """(filled in) the YAML file the config came from"""


def sb3_architecture(policy: Any) -> dict[str, Any]:
    """Our architecture dict for an SB3 (Maskable)ActorCriticPolicy with an MLP extractor; refuses other shapes."""
    from stable_baselines3.common.torch_layers import FlattenExtractor
    from torch import nn

    from rummy_env.models.policy import architecture

    if not isinstance(policy.features_extractor, FlattenExtractor):
        raise ValueError(f"only FlattenExtractor policies can be exported, got {type(policy.features_extractor)}")
    acts = {nn.Tanh: "tanh", nn.ReLU: "relu"}
    if policy.activation_fn not in acts:
        raise ValueError(f"activation {policy.activation_fn} cannot be exported; allowed: Tanh, ReLU")
    ex = policy.mlp_extractor

    def sizes(seq: Any) -> list[int]:
        return [m.out_features for m in seq if isinstance(m, nn.Linear)]

    shared = sizes(getattr(ex, "shared_net", [])) if hasattr(ex, "shared_net") else []
    return architecture(
        policy.observation_space.shape[0],
        policy.action_space.n,
        trunk=shared,
        policy_hidden=sizes(ex.policy_net),
        value_hidden=sizes(ex.value_net),
        activation=acts[policy.activation_fn],
    )


def export_sb3(
    model: Any,
    path: str | Path,
    profile: str,
    num_players: int,
    env_config: dict[str, Any] | None = None,
    training_steps: int | None = None,
    config: dict[str, Any] | None = None,
    evaluation: dict[str, Any] | None = None,
    **extra: Any,
) -> Any:
    """Write SB3 ``model``'s policy (a MaskablePPO / PPO with an MLP policy) as rummy_env checkpoint ``path``.

    The network is copied layer by layer into a ``rummy_env.models.policy.MaskedActorCritic`` (same outputs, tested), so
    the result loads with ``load_checkpoint`` / ``CheckpointBot`` and never needs SB3 or pickle. Returns the network.
    """
    import torch

    from rummy_env.models.policy import build_policy

    policy = model.policy
    arch = sb3_architecture(policy)
    net = build_policy(arch)
    sd = policy.state_dict()
    mapping = {"policy_head": "action_net", "value_head": "value_net"}
    ours = {}
    for name in net.state_dict():
        head, _, rest = name.partition(".")
        if head in mapping:
            src = f"{mapping[head]}.{rest}"
        elif head == "trunk":
            src = f"mlp_extractor.shared_net.{rest}"
        else:
            src = f"mlp_extractor.{'policy_net' if head == 'policy_mlp' else 'value_net'}.{rest}"
        ours[name] = sd[src].detach().cpu().to(torch.float32).clone()
    net.load_state_dict(ours, strict=True)
    net.eval()
    meta = {
        "profile": profile,
        "num_players": num_players,
        "env_config": {k: list(v) if isinstance(v, tuple) else v for k, v in (env_config or {}).items()},
        "training_steps": int(training_steps if training_steps is not None else model.num_timesteps),
        "config": config or {},
        "evaluation": evaluation or {},
        "algorithm": "sb3-contrib MaskablePPO (training/sb3_maskable_ppo.py), exported by export_sb3",
        **extra,
    }
    save_checkpoint(path, net, meta)
    return net


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Train MaskablePPO with the config from the command line, export, evaluate; returns a summary."""
    cfg: Config = parse_config(Config, argv, description=__doc__.splitlines()[0])
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import DummyVecEnv
    from torch import nn
    from tqdm import tqdm

    from rummy_env.envs.wrappers import SingleAgentEnv

    torch.set_num_threads(cfg.torch_threads)
    kwargs = env_kwargs(cfg.env_config, cfg.num_players)
    seat: int | str = cfg.learner_seat if cfg.learner_seat == "random" else int(cfg.learner_seat)

    def make(i: int) -> Any:
        return lambda: SingleAgentEnv(cfg.profile, learner_seat=seat, opponents=cfg.opponents, **kwargs)

    venv = DummyVecEnv([make(i) for i in range(cfg.n_envs)])
    venv.seed(cfg.seed)
    num_players = venv.envs[0].n
    name = run_name(cfg.profile, "sb3_maskable_ppo", cfg.seed)
    run_dir = Path(cfg.runs_dir) / name
    run_dir.mkdir(parents=True, exist_ok=True)
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        learning_rate=cfg.learning_rate,
        n_steps=cfg.n_steps,
        batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs,
        gamma=cfg.gamma,
        gae_lambda=cfg.gae_lambda,
        ent_coef=cfg.ent_coef,
        clip_range=cfg.clip_range,
        policy_kwargs={
            "net_arch": list(cfg.net_arch),
            "activation_fn": {"tanh": nn.Tanh, "relu": nn.ReLU}[cfg.activation],
        },
        tensorboard_log=str(cfg.runs_dir),
        seed=cfg.seed,
        device="cpu",
        verbose=0,
    )

    class Bar(BaseCallback):
        def _on_training_start(self) -> None:
            self.bar = tqdm(total=cfg.total_timesteps, unit="step", disable=not cfg.progress_bar, dynamic_ncols=True)

        def _on_step(self) -> bool:
            self.bar.n = self.num_timesteps
            self.bar.refresh() if self.num_timesteps % 256 == 0 else None
            return True

        def _on_training_end(self) -> None:
            self.bar.n = self.num_timesteps
            self.bar.close()

    start = time.perf_counter()
    model.learn(total_timesteps=cfg.total_timesteps, callback=Bar(), tb_log_name=name)
    wall = time.perf_counter() - start
    ckpt = run_dir / "checkpoints" / "final"
    export_sb3(model, ckpt, cfg.profile, num_players, kwargs, config=dataclasses.asdict(cfg))
    if cfg.save_sb3_zip:
        model.save(run_dir / "sb3_model.zip")
    evaluation: dict[str, Any] = {}
    for opp in cfg.eval_opponents if cfg.final_eval_sessions else []:
        evaluation[opp] = evaluate_checkpoint(
            str(ckpt), opp, cfg.final_eval_sessions, seed=999, workers=cfg.eval_workers
        )
    extra = {"wall_seconds": round(wall, 1), "machine": machine(), "run_name": name}
    for target in [ckpt, *([cfg.save_path] if cfg.save_path else [])]:
        export_sb3(
            model,
            target,
            cfg.profile,
            num_players,
            kwargs,
            config=dataclasses.asdict(cfg),
            evaluation=evaluation,
            **extra,
        )
    steps = int(model.num_timesteps)
    print(
        f"\n{cfg.profile} ({num_players} players): {steps} learner steps in {wall:.0f} s ({steps / wall:.0f}/s); "
        f"checkpoint {cfg.save_path or ckpt}"
    )
    for m in evaluation.values():
        print("  " + format_match(m))
    return {"run": name, "checkpoint": str(cfg.save_path or ckpt), "learner_steps": steps, "evaluation": evaluation}


if __name__ == "__main__":
    main()
