"""Tianshou 2: one learning seat of a rummy table through Tianshou's ``PettingZooEnv``, a Q-network that exports to a
rummy_env checkpoint, and the masked DQN setup (Tianshou's DQN family reads ``obs.mask``).

```python
from tianshou.env import DummyVectorEnv, PettingZooEnv
from rummy_env.integrations.tianshou import LearnerSeatAEC

env = PettingZooEnv(LearnerSeatAEC("contract", opponents=["heuristic"], rounds=(1,)))
obs, info = env.reset(seed=0)   # {"agent_id": "learner", "obs": float32 vector, "mask": [bool] * 3089}
```

**Why one learning seat.** Tianshou's multi-agent path (``MultiAgentOffPolicyAlgorithm``) stores one transition
per environment step, gives it the reward of the agent that acted at that step, and takes the next transition in
the buffer as its successor. On a rummy table the rewards come at the end of a round, to every seat at once, on
the step of whoever went out, and the next decision is usually another seat's: a seat's own penalty would be lost
(it arrives on someone else's step) and its Q-target would be computed from another seat's observation.
``LearnerSeatAEC`` therefore shows Tianshou a one-agent AEC env: the learning seat's decisions only, the other
seats played in between by bots (``rummy_env.wrappers.SingleAgentEnv`` underneath: bot ids, or
``checkpoint:PATH`` for frozen past versions), and the learning seat's own rewards summed from one of its
decisions to the next. The ``PettingZooEnv`` observation then carries the action mask that DQN applies.

Tianshou 2.0 logs the same warning at every collect step of a multi-agent run; ``make_pettingzoo_env`` (and
``quiet_repeated_warnings()``, for a stock ``PettingZooEnv``) lets it through once.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

try:
    import torch
    from torch import nn
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the installation
    raise ModuleNotFoundError(
        f"rummy_env.integrations.tianshou needs torch ({exc}): pip install torch==2.13.0 (the CPU build), "
        'then pip install -e ".[tianshou]"',
        name=exc.name,
    ) from exc

from rummy_env.envs.wrappers import SingleAgentEnv
from rummy_env.models.checkpoints import save_checkpoint
from rummy_env.models.policy import architecture, build_policy

LEARNER = "learner"
INSTALL_HINT = 'pip install -e ".[tianshou]"'


class OncePerMessage(logging.Filter):
    """A logging filter that lets each message through once: messages that differ only in their numbers (a shape,
    a count) count as the same. Tianshou 2.0 logs "Sequence has shape (n, 1), but only 1D sequences are
    supported ..." from ``tianshou.data.stats`` at every collect step of a multi-agent run (the returns have one
    column per agent): 169 identical lines in one ``training/tianshou_dqn.py`` run (issue 17)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[tuple[str, str]] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        """True the first time a message of this kind is logged, False afterwards."""
        key = (record.name, re.sub(r"\d+", "#", record.getMessage()))
        if key in self.seen:
            return False
        self.seen.add(key)
        return True


#: the Tianshou loggers whose repeated warnings ``quiet_repeated_warnings`` shows once
REPEATING_LOGGERS = ("tianshou.data.stats",)


def quiet_repeated_warnings() -> None:
    """Show each warning of Tianshou's ``REPEATING_LOGGERS`` once per process (``OncePerMessage``); idempotent.
    ``make_pettingzoo_env`` calls it."""
    for name in REPEATING_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, OncePerMessage) for f in logger.filters):
            logger.addFilter(OncePerMessage())


class LearnerSeatAEC(AECEnv):
    """One learning seat of a ``rummy_env`` table as a one-agent PettingZoo AEC env (see the module docstring).

    Arguments are those of ``rummy_env.wrappers.SingleAgentEnv`` (``profile``, ``learner_seat``: a seat or
    ``"random"`` per reset, ``opponents``: bot ids for the other seats, ``**env_config`` for ``rummy_env.make``);
    an illegal action raises. ``learner_seat`` is the seat drawn at the last reset; ``infos["learner"]`` stays
    empty (Tianshou copies infos into its replay buffer), the table is ``self.single.aec``.
    """

    metadata = {"name": "rummy_learner_seat_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}

    def __init__(
        self,
        profile: str = "contract",
        opponents: Sequence[Any] | str = ("random",),
        learner_seat: int | str = "random",
        render_mode: str | None = None,
        **env_config: Any,
    ):
        super().__init__()
        self.single = SingleAgentEnv(
            profile,
            learner_seat=learner_seat,
            opponents=opponents,
            illegal_action="raise",
            render_mode=render_mode,
            **env_config,
        )
        self.profile = profile
        self.render_mode = render_mode
        self.num_players = self.single.n
        n = int(self.single.action_space.n)
        obs_space = spaces.Dict(
            {
                "observation": self.single.observation_space,
                "action_mask": spaces.Box(0, 1, shape=(n,), dtype=np.int8),
            }
        )
        self.possible_agents = [LEARNER]
        self.observation_spaces = {LEARNER: obs_space}
        self.action_spaces = {LEARNER: self.single.action_space}
        self.agents: list[str] = []
        self._obs: np.ndarray | None = None
        self._mask = np.zeros(n, dtype=np.int8)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        obs, info = self.single.reset(seed=seed, options=options)
        self._set(obs, info)
        self.agents = [LEARNER]
        self.agent_selection = LEARNER
        self.rewards = {LEARNER: 0.0}
        self._cumulative_rewards = {LEARNER: 0.0}
        self.terminations = {LEARNER: False}
        self.truncations = {LEARNER: False}

    def _set(self, obs: np.ndarray, info: dict[str, Any]) -> None:
        self._obs = obs
        self._mask = np.asarray(info["action_mask"], dtype=np.int8)
        if "learner_seat" in info:
            self.learner_seat = int(info["learner_seat"])
        # Tianshou stores every step's info in its replay buffer, padding keys a step lacks: keep it empty (the
        # round results and scores stay readable on ``self.single.aec``)
        self.infos = {LEARNER: {}}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return {"observation": self._obs, "action_mask": self._mask.copy()}

    def step(self, action: Any) -> None:
        if self.terminations[LEARNER] or self.truncations[LEARNER]:
            self._was_dead_step(action)
            return
        obs, reward, terminated, truncated, info = self.single.step(int(action))
        self._set(obs, info)
        self.rewards = {LEARNER: float(reward)}
        self._cumulative_rewards = {LEARNER: float(reward)}
        self.terminations = {LEARNER: bool(terminated)}
        self.truncations = {LEARNER: bool(truncated)}

    def render(self) -> str | None:
        return self.single.render()

    def close(self) -> None:
        pass


class MaskedQNet(nn.Module):
    """A Q-network for Tianshou: ``forward(obs, state, info) -> (Q-values, state)``.

    It is the trunk, policy MLP and policy head of a ``rummy_env.models.policy.MaskedActorCritic`` (its value head is
    unused), so that ``export_qnet`` writes it as a checkpoint whose greedy action is the DQN's greedy action.
    """

    def __init__(self, arch: dict[str, Any], seed: int | None = None):
        super().__init__()
        self.net = build_policy(arch, seed=seed)
        self.arch = dict(arch)

    def forward(self, obs: Any, state: Any = None, info: Any = None) -> tuple[torch.Tensor, Any]:
        device = self.net.policy_head.weight.device
        x = torch.as_tensor(obs, dtype=torch.float32, device=device)
        pi, _ = self.net.features(x)
        return self.net.policy_head(pi), state


def qnet_architecture(obs_size: int, num_actions: int, hidden: Sequence[int] = (256, 256), activation: str = "relu"):
    """The architecture dict of a ``MaskedQNet`` (a shared trunk of ``hidden`` layers, linear Q head)."""
    return architecture(obs_size, num_actions, trunk=list(hidden), activation=activation)


def export_qnet(
    qnet: MaskedQNet,
    path: str | Path,
    profile: str,
    num_players: int,
    env_config: dict[str, Any] | None = None,
    training_steps: int = 0,
    config: dict[str, Any] | None = None,
    evaluation: dict[str, Any] | None = None,
    **extra: Any,
) -> Any:
    """Write ``qnet`` as rummy_env checkpoint ``path``: the Q-values are the policy logits (the greedy action is
    the DQN's), the value head is zero (a DQN learns no state value). Returns the ``MaskedActorCritic`` written."""
    net = build_policy(qnet.arch)
    state = {k: v.detach().cpu().to(torch.float32).clone() for k, v in qnet.net.state_dict().items()}
    state["value_head.weight"] = torch.zeros_like(state["value_head.weight"])
    state["value_head.bias"] = torch.zeros_like(state["value_head.bias"])
    net.load_state_dict(state, strict=True)
    net.eval()
    meta = {
        "profile": profile,
        "num_players": int(num_players),
        "env_config": {k: list(v) if isinstance(v, tuple) else v for k, v in (env_config or {}).items()},
        "training_steps": int(training_steps),
        "config": config or {},
        "evaluation": evaluation or {},
        "algorithm": "Tianshou DQN (training/tianshou_dqn.py), exported by export_qnet",
        "policy_head": "q_values: play greedy (checkpoint:PATH); sampling would be a softmax over Q-values",
        "value_head": "zero: a DQN learns no state value",
        **extra,
    }
    save_checkpoint(path, net, meta)
    return net


def make_pettingzoo_env(profile: str, opponents: Sequence[Any] | str, learner_seat: int | str = "random",
                        **env_config: Any) -> Any:  # fmt: skip
    """``tianshou.env.PettingZooEnv(LearnerSeatAEC(...))``; Tianshou's repeated warnings are shown once
    (``quiet_repeated_warnings``). Without Tianshou: ``ModuleNotFoundError`` saying ``pip install -e ".[tianshou]"``."""
    try:
        from tianshou.env import PettingZooEnv
    except ModuleNotFoundError as exc:
        raise ModuleNotFoundError(f"make_pettingzoo_env needs tianshou ({exc}): {INSTALL_HINT}", name=exc.name) from exc

    quiet_repeated_warnings()

    return PettingZooEnv(LearnerSeatAEC(profile, opponents=opponents, learner_seat=learner_seat, **env_config))


__all__ = [
    "INSTALL_HINT",
    "LEARNER",
    "LearnerSeatAEC",
    "MaskedQNet",
    "OncePerMessage",
    "REPEATING_LOGGERS",
    "export_qnet",
    "make_pettingzoo_env",
    "qnet_architecture",
    "quiet_repeated_warnings",
]
