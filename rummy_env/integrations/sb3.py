"""``SB3VecEnv``: ``LearnerVectorEnv`` as a Stable-Baselines3 ``VecEnv``, with ``action_masks()`` for sb3-contrib's
``MaskablePPO`` (needs the ``train`` extra: stable-baselines3, sb3-contrib).

```python
from sb3_contrib import MaskablePPO
from rummy_env.integrations.sb3 import SB3VecEnv

venv = SB3VecEnv("contract", num_envs=8, opponents=["heuristic"], learner_seat="random", rounds=(1,))
model = MaskablePPO("MlpPolicy", venv, n_steps=256, batch_size=256, seed=0, device="cpu")
model.learn(total_timesteps=20_000)                # every table's learner acts; bots play inside step
```

SB3's conventions: ``reset()`` returns the observations only (seeds from ``venv.seed(s)``: table i gets ``s + i``,
as SB3's own vec envs do); ``step`` returns ``(obs, rewards, dones, infos)`` with one info dict per table; a table
whose session ends is dealt again within the step and its info carries ``terminal_observation`` and
``TimeLimit.truncated = False``. ``env_method("action_masks")`` (what ``MaskablePPO`` calls through
``get_action_masks``) returns each table's learner mask. Observations are the learner's float32 vectors
(``SingleAgentEnv``'s). Wrap it in SB3's ``VecMonitor`` for episode statistics.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from ..vector.env import VectorConfigError
from ..vector.learner import LearnerVectorEnv


class SB3VecEnv(VecEnv):
    """``num_envs`` tables, one learner seat each, as an SB3 ``VecEnv`` (module docstring). Arguments are
    ``LearnerVectorEnv``'s."""

    def __init__(
        self,
        profile: str = "contract",
        num_envs: int = 8,
        learner_seat: int | str = 0,
        opponents: Sequence[Any] | str = ("random",),
        seed: int | None = None,
        **env_config: Any,
    ):
        self.learner = LearnerVectorEnv(profile, num_envs, learner_seat, opponents, seed=seed, **env_config)
        lv = self.learner
        box = spaces.Box(low=lv.observer.low, high=lv.observer.high, shape=(lv.obs_size,), dtype=np.float32)
        self.render_mode = None  # no rendering (SB3 asks for the attribute)
        super().__init__(lv.num_envs, box, spaces.Discrete(lv.num_actions))
        self._actions: np.ndarray | None = None
        self._first_seed = seed

    # VecEnv API -------------------------------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        """Deal every table (the seeds of ``seed()`` if given since the last reset) to its learner's first decision."""
        seeds = self._seeds
        if any(s is not None for s in seeds):
            self.learner.reset_tables(seeds)
        else:
            self.learner.reset(seed=None)
        self._reset_seeds()
        self.reset_infos = [self.learner.info(i) for i in range(self.num_envs)]
        return self.learner.obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        """Remember the learners' actions (applied by ``step_wait``)."""
        self._actions = np.asarray(actions).reshape(self.num_envs).astype(np.int64, copy=False)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Apply the actions: ``(obs, rewards, dones, infos)``; ended sessions are dealt again in the same step."""
        if self._actions is None:
            raise VectorConfigError("step_wait() without step_async(actions)")
        lv = self.learner
        actions, self._actions = self._actions, None
        _, _, rewards, done = lv.step(actions)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(done).tolist():
            infos[i] = {**lv.final_info[i], "terminal_observation": lv.final_obs[i], "TimeLimit.truncated": False}
        return lv.obs.copy(), rewards.copy(), done.copy(), infos

    def action_masks(self) -> np.ndarray:
        """bool ``(num_envs, num_actions)``: each table's learner mask."""
        return self.learner.mask.copy()

    def close(self) -> None:
        """Nothing to release."""

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """``attr_name`` of this env, once per table in ``indices`` (the tables share one batched env)."""
        value = getattr(self, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        """Set ``attr_name`` on this env (one batched env serves every table)."""
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        """``action_masks``: each selected table's mask; any other method of this env: its result per table."""
        idx = self._indices(indices)
        if method_name == "action_masks":
            masks = self.learner.mask
            return [masks[i].copy() for i in idx]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        """No table is wrapped."""
        return [False for _ in self._indices(indices)]

    def _indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        return [int(i) for i in indices] if isinstance(indices, Iterable) else [int(indices)]


__all__ = ["SB3VecEnv"]
