"""``SingleAgentEnv``: one learning seat of a rummy table as a Gymnasium env, the other seats played by bots.

```python
from rummy_env.envs.wrappers import SingleAgentEnv
env = SingleAgentEnv("contract", learner_seat="random", opponents=["heuristic", "random", "random"], rounds=(1,))
obs, info = env.reset(seed=0)
obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
```

| | |
|---|---|
| observation | the learning seat's observation vector, the env's bounded `Box(0, high, (obs_size,), float32)` |
| action | `Discrete(num_actions)`; the legal ones are `action_masks()` (bool, for sb3-contrib's MaskablePPO) and `info["action_mask"]` |
| reward | the learning seat's own rewards only, summed from its decision to its next one (or to the end) |
| episode | one session (or the `rounds` / `deals` subset given); `truncated` when the env's `max_steps` cut it |
| info | the same keys after every `reset` and `step` (`INFO_KEYS`): `action_mask`, `learner_seat`, `round`, `round_over`, `turn_cap`, `session_over`, `illegal_action`, `redeals`, `carried_reward`; results: `env.aec.results()` |

Each ``step(action)`` applies the learning seat's decision, then lets the bots play every other seat until it is the
learning seat's decision again (or the session is over). ``opponents`` is a list of bot ids (``"random"``,
``"heuristic"``, ``"checkpoint:PATH"``) or bot objects, one per other seat in turn order after the learner (one entry
is used for every seat). ``learner_seat="random"`` draws the seat at every reset. The bots are re-seeded from the
env's generator at every reset, so ``reset(seed=s)`` replays the same session for the same actions, and a later
``reset()`` without a seed continues that seeded stream (Gymnasium's ``np_random``).

A reset always returns one of the learner's decisions. When the bots end the whole session before the learner's
first decision (e.g. continental, one deal, a bot declares at once), the session is dealt again from the env's
generator (``info["redeals"]`` counts how often); when a deal ends that way but the session goes on, play goes on
to the learner's first decision of the next deal, and the learner's reward from the skipped deal
(``info["carried_reward"]`` at reset) is added to the reward of the first ``step`` (whose ``carried_reward`` says
so).

An action outside the mask ends the episode with ``illegal_reward`` (and ``info["illegal_action"] = True``) instead
of raising, so that Gymnasium's and SB3's ``check_env`` (which step random actions) pass; with masks it never
happens. ``illegal_action="raise"`` raises instead. A non-integer action (``True``, ``0.0``, an array with elements)
raises ``IllegalActionError`` naming its type in both modes.

Registered with Gymnasium as ``rummy_env/Contract-v0``, ``rummy_env/ContractGamerules-v0`` and
``rummy_env/Continental-v0``: ``gymnasium.make("rummy_env/Contract-v0", rounds=(1,))`` (keyword arguments are
those of ``SingleAgentEnv``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

import rummy_env

from .. import bots as bot_registry
from ..engine import ScenarioError
from .base import ConcurrentUseError, EnvArgumentError, OneThreadAtATime, as_action, busy_message

#: the keys of every info ``reset`` and ``step`` return
INFO_KEYS = (
    "action_mask",
    "learner_seat",
    "round",
    "round_over",
    "turn_cap",
    "session_over",
    "illegal_action",
    "redeals",
    "carried_reward",
)
#: how many times a reset deals again before giving up (a session that always ends before the learner decides)
MAX_REDEALS = 100


class SingleAgentEnv(OneThreadAtATime, gym.Env):
    """One seat of a ``rummy_env`` table as a single-agent Gymnasium env (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        profile: str = "contract",
        learner_seat: int | str = 0,
        opponents: Sequence[Any] | str = ("random",),
        seed: int | None = None,
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        **env_config: Any,
    ):
        super().__init__()
        if "flat_observation" in env_config:
            raise EnvArgumentError(
                "flat_observation: SingleAgentEnv's observation is already the learner's float32 vector (the mask is "
                "action_masks() and info['action_mask']); the keyword is for the AEC env and gymnasium.make_vec"
            )
        self.profile = profile
        self.env_config = dict(env_config)
        self.aec = rummy_env.make(profile, wrapped=False, render_mode=render_mode, **env_config)
        self.render_mode = render_mode
        self.n = len(self.aec.possible_agents)
        if learner_seat != "random" and (
            not isinstance(learner_seat, int | np.integer) or not 0 <= int(learner_seat) < self.n
        ):
            raise ValueError(f"learner_seat={learner_seat!r}; allowed: 0..{self.n - 1} or 'random'")
        self.learner_seat_spec = learner_seat
        if isinstance(opponents, str):
            opponents = [opponents]
        opponents = list(opponents)
        if len(opponents) == 1:
            opponents = opponents * (self.n - 1)
        if len(opponents) != self.n - 1:
            raise ValueError(
                f"{profile} seats {self.n} players: give 1 or {self.n - 1} opponents, got {len(opponents)}"
            )
        self.opponents = [bot_registry.load(o, seed=0) if isinstance(o, str) else o for o in opponents]
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(f"illegal_action={illegal_action!r}; allowed: 'terminate', 'raise'")
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.observation_space = self.aec.observation_space(self.aec.possible_agents[0])["observation"]
        self.action_space = spaces.Discrete(self.aec.num_actions)
        self.learner = self.aec.possible_agents[0]
        self.learner_seat = 0
        self._bot_of: dict[str, Any] = {}
        self._done = True
        self._carry = 0.0
        self._results_seen = 0
        #: held while ``step`` / ``reset`` runs: one entered meanwhile from another thread raises (re-entrant, as the
        #: AEC env's)
        self._new_lock()
        if seed is not None:
            self.reset(seed=seed)

    # gymnasium API ----------------------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """Deal a new session (from ``seed`` or the env's generator) and play the bots up to the learner's turn.

        Always ends at one of the learner's decisions: a session the bots finish first is dealt again
        (``info["redeals"]``); the learner's reward from a deal skipped that way is carried to the first step.
        """
        lock = self._busy
        if not lock.acquire(False):
            raise ConcurrentUseError(busy_message("reset()", "SingleAgentEnv"))
        try:
            return self._reset(seed, options)
        finally:
            lock.release()

    def _reset(self, seed: int | None, options: dict[str, Any] | None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        rng = self.np_random
        if self.learner_seat_spec == "random":
            seat = int(rng.integers(self.n))
        else:
            seat = int(self.learner_seat_spec)
        self.learner = self.aec.possible_agents[seat]
        self.learner_seat = seat
        self._bot_of = {}
        for j, bot in enumerate(self.opponents):
            agent = self.aec.possible_agents[(seat + 1 + j) % self.n]
            bot.reset(int(rng.integers(2**31)))
            self._bot_of[agent] = bot
        redeals = 0
        while True:
            self.aec.reset(seed=int(rng.integers(2**31)), options=options)
            self._done = False
            self._results_seen = len(self.aec.round_results)
            reward = self._play_bots()
            if not self._over():
                break
            if self.aec.truncations.get(self.learner) and not self.aec.terminations.get(self.learner):
                raise ValueError(
                    f"max_steps={self.aec.max_steps} truncates the episode before {self.learner}'s first decision; "
                    "allow more steps"
                )
            if options and options.get("scenario") is not None:
                raise ScenarioError(f"the scenario's session ends before {self.learner} has a decision")
            redeals += 1
            if redeals >= MAX_REDEALS:
                raise RuntimeError(f"{redeals} deals in a row ended before {self.learner}'s first decision")
        self._carry = reward
        view = self.aec.public_view(self.learner)
        info = self._info(view, rounds_before=self._results_seen, redeals=redeals, carried=reward)
        self._results_seen = len(self.aec.round_results)
        return self._obs(view), info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Apply the learner's ``action``; the bots play until the learner decides again or the session ends."""
        lock = self._busy
        if not lock.acquire(False):
            raise ConcurrentUseError(busy_message("step()", "SingleAgentEnv"))
        try:
            return self._step(action)
        finally:
            lock.release()

    def _step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self._done:
            raise RuntimeError("step() after the episode ended: call reset()")
        action = as_action(action, self.aec.num_actions)
        mask = self.aec.action_mask(self.learner)
        rounds_before = self._results_seen
        carried, self._carry = self._carry, 0.0
        if not (0 <= action < len(mask)) or not mask[action]:
            if self.illegal_action == "raise":
                raise ValueError(f"illegal action {action} for {self.learner}; legal: {np.flatnonzero(mask).tolist()}")
            self._done = True
            view = self.aec.public_view(self.learner)
            info = self._info(view, rounds_before, carried=carried, illegal=True)
            info["action_mask"] = mask * 0
            return self._obs(view), self.illegal_reward + carried, True, False, info
        self.aec.step(action)
        reward = float(self.aec.rewards.get(self.learner, 0.0))
        reward += self._play_bots() + carried
        terminated = bool(self.aec.terminations.get(self.learner, False))
        truncated = bool(self.aec.truncations.get(self.learner, False)) and not terminated
        self._done = terminated or truncated
        view = self.aec.public_view(self.learner)
        info = self._info(view, rounds_before, carried=carried)
        self._results_seen = len(self.aec.round_results)
        return self._obs(view), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Bool mask of the learner's legal actions (sb3-contrib's ``MaskablePPO`` calls this)."""
        return self.aec.action_mask(self.learner).astype(bool)

    def render(self) -> str | None:
        """The table as text (``ansi``), printed (``human``) or as a picture (``rgb_array``: uint8 H x W x 3)."""
        return self.aec.render()

    # internals -----------------------------------------------------------------------------------------------
    def _play_bots(self) -> float:
        """Let the bots play until it is the learner's decision or the session is over; the learner's rewards."""
        aec = self.aec
        reward = 0.0
        while not self._over() and aec.agent_selection != self.learner:
            agent = aec.agent_selection
            aec.step(self._bot_of[agent].act(aec, agent))
            reward += float(aec.rewards.get(self.learner, 0.0))
        return reward

    def _info(
        self, view: Any, rounds_before: int, redeals: int = 0, carried: float = 0.0, illegal: bool = False
    ) -> dict:
        """The info of a reset / step (``view``: the learner's public view now): always the keys ``INFO_KEYS``
        (arrays, ints, floats, bools)."""
        new = self.aec.round_results[rounds_before:]
        return {
            "action_mask": self.aec.action_mask(self.learner),
            "learner_seat": self.learner_seat,
            "round": int(view.round),
            "round_over": bool(new),
            "turn_cap": any(r["reason"] == "turn_cap" for r in new),
            "session_over": bool(self.aec.session_over),
            "illegal_action": illegal,
            "redeals": redeals,
            "carried_reward": float(carried),
        }

    def _over(self) -> bool:
        aec = self.aec
        return bool(aec.terminations.get(self.learner) or aec.truncations.get(self.learner))

    def _obs(self, view: Any) -> np.ndarray:
        """The learner's observation: the encoding of its public view."""
        return self.aec.observer.encode(view)


__all__ = ["SingleAgentEnv", "INFO_KEYS"]
