"""``GymVectorEnv``: ``LearnerVectorEnv`` as a ``gymnasium.vector.VectorEnv`` (what ``gymnasium.make_vec`` returns for
the package's ids).

```python
import gymnasium, rummy_env
envs = gymnasium.make_vec("rummy_env/Contract-v0", num_envs=8, opponents=["heuristic"], rounds=(1,))
obs, infos = envs.reset(seed=0)        # obs = {"observation": (8, obs_size) float32, "action_mask": (8, A) int8}
obs, rewards, terminations, truncations, infos = envs.step(actions)
```

| | |
|---|---|
| observation | ``{"observation": float32 (num_envs, obs_size), "action_mask": int8 (num_envs, num_actions)}``; with ``flat_observation=True`` the float32 array alone |
| action | ``MultiDiscrete([num_actions] * num_envs)``: one learner action per table |
| reward | float32 ``(num_envs,)``, ``SingleAgentEnv``'s reward of each table |
| ``infos["action_mask"]`` | bool ``(num_envs, num_actions)``: the mask of the decision in ``obs`` (always, in both observation modes) |
| ``infos["learner_seat"]`` | int64 ``(num_envs,)``: each table's learner seat now |
| autoreset | **same step** (``gymnasium.vector.AutoresetMode.SAME_STEP``): a table whose session ends is dealt again within the ``step``; ``obs`` and ``infos["action_mask"]`` are already the next session's first decision (never an all-zero mask), and ``infos["final_obs"]`` / ``infos["final_info"]`` (with the boolean ``infos["_final_obs"]``) hold the ended session's last observation and ``SingleAgentEnv`` info |
| truncation | never (``truncations`` is all False) |

Table ``i`` after ``reset(seed=s)`` is ``SingleAgentEnv(...).reset(seed=s + i)`` (a list of seeds gives each table
its own). ``make_vec`` passes its keyword arguments here: ``learner_seat``, ``opponents``, ``flat_observation``,
``copy`` and ``VectorEnv``'s ``reward`` / ``rounds`` / ``num_players`` / rule overrides. ``vectorization_mode="sync"``
or ``"async"`` still gives Gymnasium's own vectorisation of ``SingleAgentEnv`` (next-step autoreset).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space

from .env import VectorConfigError
from .learner import LearnerVectorEnv

#: Gymnasium's autoreset mode of this env (``AutoresetMode.SAME_STEP`` where the installed Gymnasium has the enum)
AUTORESET_MODE: Any = getattr(getattr(gym.vector, "AutoresetMode", None), "SAME_STEP", "same-step")


class GymVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` tables with one learner seat each as a Gymnasium vector env (module docstring)."""

    metadata = {"autoreset_mode": AUTORESET_MODE, "render_modes": []}

    def __init__(
        self,
        profile: str = "contract",
        num_envs: int = 8,
        learner_seat: int | str = 0,
        opponents: Sequence[Any] | str = ("random",),
        seed: int | None = None,
        flat_observation: bool = False,
        copy: bool = True,
        **env_config: Any,
    ):
        if not isinstance(flat_observation, bool) or not isinstance(copy, bool):
            raise VectorConfigError(f"flat_observation={flat_observation!r}, copy={copy!r}: each True or False")
        self.learner = LearnerVectorEnv(profile, num_envs, learner_seat, opponents, seed=seed, **env_config)
        lv = self.learner
        self.num_envs = lv.num_envs
        self.flat_observation = flat_observation
        self.copy = copy
        box = spaces.Box(low=lv.observer.low, high=lv.observer.high, shape=(lv.obs_size,), dtype=np.float32)
        mask_box = spaces.Box(low=0, high=1, shape=(lv.num_actions,), dtype=np.int8)
        self.single_observation_space = box if flat_observation else spaces.Dict(
            {"observation": box, "action_mask": mask_box}
        )
        self.single_action_space = spaces.Discrete(lv.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.spec = None
        self.render_mode = None
        self._mask_int8 = np.zeros((self.num_envs, lv.num_actions), dtype=np.int8)
        self._all = np.ones(self.num_envs, dtype=bool)

    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Deal every table (``seed``: an int s gives table i the seed s + i; a list, one seed per table; None: each
        table's next session) and play its bots to its learner's first decision: ``(obs, infos)``."""
        if options:
            raise VectorConfigError(f"options={options!r}: this env takes no reset options")
        if seed is None or isinstance(seed, (int, np.integer)):
            self.learner.reset(seed=None if seed is None else int(seed))
        else:
            self.learner.reset_tables(list(seed))
        return self._observation(), self._infos()

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One learner action per table: ``(obs, rewards, terminations, truncations, infos)``, same-step autoreset."""
        lv = self.learner
        _, _, rewards, done = lv.step(np.asarray(actions).astype(np.int64, copy=False))
        infos = self._infos()
        if done.any():
            for i in np.flatnonzero(done).tolist():
                final = lv.final_obs[i]
                if not self.flat_observation:
                    final = {"observation": final, "action_mask": np.zeros(lv.num_actions, dtype=np.int8)}
                infos = self._add_info(infos, {"final_obs": final, "final_info": lv.final_info[i]}, i)
        terminated = done.copy()
        return self._observation(), rewards.copy(), terminated, np.zeros(self.num_envs, dtype=bool), infos

    def action_masks(self) -> np.ndarray:
        """bool ``(num_envs, num_actions)``: each table's learner mask (a copy)."""
        return self.learner.mask.copy()

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release."""

    def _observation(self) -> Any:
        lv = self.learner
        obs = lv.obs.copy() if self.copy else lv.obs
        if self.flat_observation:
            return obs
        np.copyto(self._mask_int8, lv.mask)
        return {"observation": obs, "action_mask": self._mask_int8.copy() if self.copy else self._mask_int8}

    def _infos(self) -> dict[str, Any]:
        lv = self.learner
        return {
            "action_mask": lv.mask.copy(),
            "_action_mask": self._all.copy(),
            "learner_seat": lv.learner_seats.copy(),
            "_learner_seat": self._all.copy(),
        }


def make_vec_env(num_envs: int = 8, **kwargs: Any) -> GymVectorEnv:
    """The ``vector_entry_point`` of the package's Gymnasium ids: ``GymVectorEnv(num_envs=num_envs, **kwargs)``."""
    return GymVectorEnv(num_envs=num_envs, **kwargs)


__all__ = ["AUTORESET_MODE", "GymVectorEnv", "make_vec_env"]
