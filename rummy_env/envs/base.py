"""The PettingZoo AEC environment shared by every profile: one engine state, one action table, one observer.

A profile's env module (``contract_v0``, ...) only supplies how to build its engine state and observer.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

REWARD_MODES = ("penalty", "relative", "win")
ILLEGAL_MODES = ("raise", "terminate")


class RummyAECEnv(AECEnv):
    """AEC environment over a rummy engine state: one atomic decision per ``step``."""

    metadata = {"render_modes": ["human", "ansi"], "name": "rummy_v0", "is_parallelizable": True, "render_fps": 1}

    #: the reward scale: penalties (or payments) are divided by this
    reward_scale = 100.0
    #: reward modes this profile offers (the first is the default)
    reward_modes: tuple[str, ...] = REWARD_MODES

    def __init__(
        self,
        render_mode: str | None = None,
        reward: str | None = None,
        illegal_action: str = "raise",
        max_steps: int | None = None,
        illegal_reward: float = -1.0,
    ):
        super().__init__()
        reward = self.reward_modes[0] if reward is None else reward
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r}; allowed: None, 'human', 'ansi'")
        if reward not in self.reward_modes:
            raise ValueError(f"reward={reward!r}; allowed: {list(self.reward_modes)}")
        if illegal_action not in ILLEGAL_MODES:
            raise ValueError(f"illegal_action={illegal_action!r}; allowed: {list(ILLEGAL_MODES)}")
        if max_steps is not None and (not isinstance(max_steps, int) or max_steps < 1):
            raise ValueError(f"max_steps={max_steps!r}; allowed: None or a positive integer")
        self.render_mode = render_mode
        self.reward_mode = reward
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.max_steps = max_steps
        self.state_ = self._new_state(seed=None)
        n = self.state_.n
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self.observer = self._make_observer(self.state_)
        self.num_actions = self.state_.layout.num_actions
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(low=0.0, high=np.inf, shape=(self.observer.size,), dtype=np.float32),
                "action_mask": spaces.Box(low=0, high=1, shape=(self.num_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        # (state object, history length) of the cached mask: the object itself, not id(), because a replaced state
        # can be freed and its id reused by another state with the same history length (stale mask)
        self._mask_key: tuple[Any, int] | None = None
        self._mask: np.ndarray | None = None
        self._zero_mask = np.zeros(self.num_actions, dtype=np.int8)
        self._zero_mask.flags.writeable = False
        self.agents: list[str] = []

    # profile hooks ------------------------------------------------------------------------------------------
    def _new_state(self, seed: int | None, scenario: dict[str, Any] | None = None) -> Any:  # pragma: no cover
        raise NotImplementedError

    def _make_observer(self, state: Any) -> Any:  # pragma: no cover
        raise NotImplementedError

    # spaces -------------------------------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        """The observation space of ``agent``: ``{"observation": Box, "action_mask": Box(int8)}``."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        """The fixed ``Discrete(N)`` action space of the profile."""
        return self.action_spaces[agent]

    # core API -----------------------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new session (or the ``options["scenario"]`` position) seeded by ``seed``."""
        scenario = (options or {}).get("scenario")
        self.state_ = self._new_state(seed, scenario)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.num_steps = 0
        self._mask_key = None
        for i, space in enumerate(self.action_spaces.values()):
            if seed is not None:
                space.seed(seed + i)
        self._after_move(rounds_before=len(self.state_.round_results))

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": float32 vector from agent's seat, "action_mask": int8}`` (mask zero off turn)."""
        seat = self.agent_name_mapping[agent]
        obs = self.observer.encode(self.state_, seat)
        return {"observation": obs, "action_mask": self.action_mask(agent)}

    def action_mask(self, agent: str) -> np.ndarray:
        """int8 mask of ``agent``'s legal actions (all zeros when it is not ``agent``'s decision)."""
        st = self.state_
        seat = self.agent_name_mapping[agent]
        if st.current_player != seat or not self.agents or self.terminations.get(agent) or self.truncations.get(agent):
            return np.zeros(self.num_actions, dtype=np.int8)
        key = (st, len(st.history))
        if self._mask_key is None or self._mask_key[0] is not st or self._mask_key[1] != key[1]:
            mask = np.zeros(self.num_actions, dtype=np.int8)
            mask[st.legal_actions()] = 1
            self._mask = mask
            self._mask_key = key
        return self._mask.copy()  # type: ignore[union-attr]

    def step(self, action: int | None) -> None:
        """Apply the current agent's atomic decision."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        st = self.state_
        rounds_before = len(st.round_results)
        if action is None or action not in st.legal_actions():
            if self.illegal_action == "terminate":
                self._terminate_illegal(agent)
                return
            if action is None:
                raise ValueError(f"{agent} must act (got None) in phase '{st.phase}'")
        st.apply(action)  # raises IllegalActionError (a ValueError) naming the legal actions
        self.num_steps += 1
        self._cumulative_rewards[agent] = 0.0
        self._after_move(rounds_before)

    def _terminate_illegal(self, agent: str) -> None:
        """As PettingZoo's TerminateIllegalWrapper: the offender gets ``illegal_reward``, the game ends."""
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        self.rewards[agent] = self.illegal_reward
        self.terminations = {a: True for a in self.agents}
        for a in self.agents:
            self.infos[a] = {"illegal_move": a == agent}
        self._accumulate_rewards()

    def _after_move(self, rounds_before: int) -> None:
        st = self.state_
        self.rewards = {a: 0.0 for a in self.agents}
        results = st.round_results
        capped = False
        for res in results[rounds_before:]:
            capped = capped or res["reason"] == "turn_cap"
            self._round_rewards(res)
        done = st.is_terminal()
        if done and self.reward_mode == "win":
            self._win_rewards()
        for a in self.agents:
            self.infos[a] = {}
        if capped:
            for a in self.agents:
                self.infos[a]["turn_cap"] = True
        if done:
            self.terminations = {a: True for a in self.agents}
            for a in self.agents:
                self.infos[a]["round_results"] = results
                self.infos[a]["scores"] = list(st.scores)
        elif self.max_steps is not None and self.num_steps >= self.max_steps:
            self.truncations = {a: True for a in self.agents}
        if not done:
            cur = self.possible_agents[st.current_player]
            self.agent_selection = cur
            if not self.truncations[cur]:
                self.infos[cur]["action_mask"] = self.action_mask(cur)
        elif not hasattr(self, "agent_selection") or self.agent_selection not in self.agents:
            self.agent_selection = self.agents[0]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _round_rewards(self, res: dict[str, Any]) -> None:
        if "payments" in res:  # zero-sum payments (continental): the deal's balance change
            if self.reward_mode == "payment":
                for i, a in enumerate(self.possible_agents):
                    if a in self.rewards:
                        self.rewards[a] += res["payments"][i] / self.reward_scale
            return
        pens = res["penalties"]
        n = len(pens)
        if self.reward_mode == "penalty":
            for i, a in enumerate(self.possible_agents):
                if a in self.rewards:
                    self.rewards[a] -= pens[i] / self.reward_scale
        elif self.reward_mode == "relative":
            mean = sum(pens) / n
            for i, a in enumerate(self.possible_agents):
                if a in self.rewards:
                    self.rewards[a] += (mean - pens[i]) / self.reward_scale

    def _win_rewards(self) -> None:
        win = set(self.state_.winners())
        n = self.state_.n
        k = len(win)
        for i, a in enumerate(self.possible_agents):
            if k == n:
                continue
            self.rewards[a] += 1.0 / k if i in win else -1.0 / (n - k)

    # extras -------------------------------------------------------------------------------------------------
    def describe_action(self, action: int) -> str:
        """The engine's readable description of ``action`` for the player to move."""
        return self.state_.describe_action(int(action))

    def action_info(self, action: int) -> dict[str, Any]:
        """Structured description of ``action`` (schema in the README)."""
        return self.state_.action_info(int(action))

    def game_state(self) -> dict[str, Any]:
        """The engine's JSON state (the scenario format): hands, piles, table, scores, phase."""
        return self.state_.to_json()

    def observation_pieces(self, agent: str) -> dict[str, np.ndarray]:
        """The observation of ``agent`` as a dict of named, shaped views."""
        return self.observer.pieces.views(self.observer.encode(self.state_, self.agent_name_mapping[agent]))

    def render(self) -> str | None:
        """``ansi``: return the table as text; ``human``: print it."""
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("You are calling render without specifying a render_mode.")
            return None
        text = self.state_text()
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def state_text(self) -> str:  # pragma: no cover - profile specific
        raise NotImplementedError

    def close(self) -> None:
        """Nothing to release."""


def wrap(env: AECEnv) -> AECEnv:
    """PettingZoo's standard wrappers for a classic env (illegal actions raise or terminate natively)."""
    env = wrappers.AssertOutOfBoundsWrapper(env)
    env = wrappers.OrderEnforcingWrapper(env)
    return env
