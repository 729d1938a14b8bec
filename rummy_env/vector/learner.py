"""``LearnerVectorEnv``: many tables, one learning seat each, the other seats played by bots inside ``step``.

This is the batched form of ``rummy_env.envs.wrappers.SingleAgentEnv`` -- the shape stock learners expect (one
agent per table, a fixed ``Discrete`` action space, a mask) -- on the engine directly, without an AEC env per table.
Table ``i`` plays exactly the game ``SingleAgentEnv(seed=s + i)`` plays for the same learner actions (same learner
seat, same bot seeds, same deals, observations, masks and rewards; ``tests/vector/test_vector_learner.py``), where ``s`` is
the seed of ``reset(seed=s)``.

```python
from rummy_env.vector import LearnerVectorEnv
vec = LearnerVectorEnv("contract", num_envs=8, opponents=["heuristic"], learner_seat="random", rounds=(1,))
obs, mask = vec.reset(seed=0)                      # every table at one of its learner's decisions
obs, mask, reward, done = vec.step(actions)        # one learner action per table; bots play the other seats
```

| | |
|---|---|
| ``obs`` | float32 ``(num_envs, obs_size)``: each table's learner observation (``SingleAgentEnv``'s) |
| ``mask`` | bool ``(num_envs, num_actions)``: each learner's legal actions |
| ``reward`` | float32 ``(num_envs,)``: the learner's rewards from its action to its next decision (or the end) |
| ``done`` | bool ``(num_envs,)``: the table's session ended with this step (``terminated``; nothing truncates) |

A table whose session ends is dealt again at once from its own generator (as ``SingleAgentEnv.reset()`` without a
seed): ``obs[i]`` and ``mask[i]`` are then the next session's first learner decision, and ``final_obs[i]`` /
``final_info[i]`` hold the last observation and info of the session that ended (Gymnasium's *same-step*
autoreset). ``info(i)`` is ``SingleAgentEnv``'s info dict of table ``i``'s current decision.

Every table moves on every ``step``: the learner of every table is always to move when ``step`` returns, because
the bots of a table are played inside ``step`` (and inside ``reset``) until its learner decides again. An illegal
learner action raises ``IllegalActionError`` naming the table before any table moves (``SingleAgentEnv``'s
``illegal_action="raise"``).

Opponents are bot ids (``random``, ``heuristic``, ``checkpoint:...``, ``py:...``) or bot objects; each table gets
its own bot objects (loaded once), re-seeded from the table's generator at each of its resets. The arrays are
allocated once and REUSED by every ``reset`` / ``step`` (copy what you keep). One thread at a time.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.utils import seeding

from .. import bots as bot_registry
from ..bots.random_bot import RandomBot
from ..engine import IllegalActionError
from ..envs.base import ConcurrentUseError, NotResetError, OneThreadAtATime, agent_seat, busy_message
from ..envs.session import add_step_rewards
from ..envs.wrappers import MAX_REDEALS
from .env import VectorConfigError, VectorEnv, _check_seed, _encode_into
from .table import TableEnv


class _BotTable(TableEnv):
    """Table ``i`` of a ``LearnerVectorEnv`` as the read-only env-like object bots read (``TableEnv``: its
    ``public_view``, ``observe``, ``results``, ``game_state`` read the shared tables), with the seat to move and
    the mask taken from the table's engine state (the batched arrays hold the learners' decisions)."""

    def __init__(self, owner: LearnerVectorEnv, i: int):
        super().__init__(owner._vec, i)
        self._states = owner._states

    @property
    def current_seat(self) -> int:
        """The seat to move at this table."""
        return int(self._states[self.index].current_player)

    def action_mask(self, agent: str) -> np.ndarray:
        """int8 mask of ``agent``'s legal actions (all zeros when it is not ``agent``'s decision)."""
        mask = np.zeros(self.num_actions, dtype=np.int8)
        st = self._states[self.index]
        if agent_seat(self, agent) == st.current_player:
            mask[st.legal_actions()] = 1
        return mask


class LearnerVectorEnv(OneThreadAtATime):
    """``num_envs`` tables of ``profile``, one learner seat each, bots on the others (see the module docstring).

    ``learner_seat``: a seat 0..n-1 or ``"random"`` (drawn at each of a table's resets); ``opponents``: one bot id
    or object per other seat in turn order after the learner (one entry is used for every seat); ``seed``: the seed
    of the first ``reset()`` that gives none; ``env_config``: ``VectorEnv``'s (``reward``, ``rounds``,
    ``num_players``, rule overrides). ``VectorConfigError`` / ``ValueError`` for a bad argument.
    """

    _LOCK = threading.Lock

    def __init__(
        self,
        profile: str,
        num_envs: int,
        learner_seat: int | str = 0,
        opponents: Sequence[Any] | str = ("random",),
        seed: int | None = None,
        **env_config: Any,
    ):
        #: the batched env that holds the rules, the action table, the observers and the arrays (internal: its tables are this env's)
        self._vec = VectorEnv(profile, num_envs, **env_config)
        vec = self._vec
        self.profile, self.num_envs, self.num_players = vec.profile, vec.num_envs, vec.num_players
        self.num_actions, self.obs_size = vec.num_actions, vec.obs_size
        self.rules, self.layout, self.observer, self.rounds = vec.rules, vec.layout, vec.observer, vec.rounds
        self.reward_mode, self.reward_scale = vec.reward_mode, vec.reward_scale
        n = self.num_players
        if learner_seat != "random" and (
            not isinstance(learner_seat, (int, np.integer)) or isinstance(learner_seat, bool)
            or not 0 <= int(learner_seat) < n
        ):  # fmt: skip
            raise VectorConfigError(f"learner_seat={learner_seat!r}; allowed: 0..{n - 1} or 'random'")
        self.learner_seat_spec = learner_seat
        specs = [opponents] if isinstance(opponents, str) else list(opponents)
        if len(specs) == 1:
            specs = specs * (n - 1)
        if len(specs) != n - 1:
            raise VectorConfigError(f"{profile} seats {n} players: give 1 or {n - 1} opponents, got {len(specs)}")
        self.opponent_specs = specs
        #: per table, its bots in turn order after the learner (bot objects are used as given at table 0 only)
        self._bots = [
            [bot_registry.load(o, seed=0) if isinstance(o, str) else (o if i == 0 else _copy_bot(o)) for o in specs]
            for i in range(self.num_envs)
        ]
        self._seed = _check_seed(seed, "seed")
        e = self.num_envs
        #: the batched env's arrays: its writer (the compiled fast path where built) fills them from the tables,
        #: which are this env's (``vec._states`` is ``self._states``, the same list)
        self.obs, self.mask = vec.obs, vec.mask
        self.rewards = np.zeros(e, dtype=np.float32)
        self.done = np.zeros(e, dtype=bool)
        #: per table: the learner's seat now, the decision count of the learner, and (after ``done``) the last
        #: observation and info of the session that ended
        self.learner_seats = np.zeros(e, dtype=np.int64)
        self.final_obs: list[np.ndarray | None] = [None] * e
        self.final_info: list[dict[str, Any] | None] = [None] * e
        self._rngs: list[np.random.Generator | None] = [None] * e
        self._states: list[Any] = [None] * e
        vec._states = self._states
        self._seen = [0] * e  # round results the learner's info has reported
        self._carry = [0.0] * e
        #: per table, what its current info is computed from: (round results before, redeals, carried reward)
        self._info_args: list[tuple[int, int, float]] = [(0, 0, 0.0)] * e
        self._tables = [_BotTable(self, i) for i in range(e)]
        self._was_reset = False
        self._new_lock()


    # ---------------------------------------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Deal every table again and play its bots up to its learner's first decision: ``(obs, mask)``.

        ``seed=s``: table ``i`` is ``SingleAgentEnv(...).reset(seed=s + i)``; ``seed=None``: the constructor's
        seed on the first reset, later each table's next session from its own generator (never seeded: fresh
        random sessions)."""
        lock = self._busy
        if not lock.acquire(False):
            raise ConcurrentUseError(busy_message("LearnerVectorEnv.reset()", "LearnerVectorEnv"))
        try:
            seed = _check_seed(seed, "seed")
            self._vec._was_reset = True  # the bots read the shared tables while they are dealt
            if seed is None and not self._was_reset:
                seed = self._seed
            for i in range(self.num_envs):
                self._reset_table(i, None if seed is None else seed + i)
            self._after_reset()
            return self.obs, self.mask
        finally:
            lock.release()

    def reset_tables(self, seeds: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        """``reset`` with one seed per table (``seeds[i]``: table i's seed, or None for its next session)."""
        if len(seeds) != self.num_envs:
            raise VectorConfigError(f"{len(seeds)} seeds for {self.num_envs} tables; give one per table")
        checked = [_check_seed(s, f"seeds[{i}]") for i, s in enumerate(seeds)]
        lock = self._busy
        if not lock.acquire(False):
            raise ConcurrentUseError(busy_message("LearnerVectorEnv.reset()", "LearnerVectorEnv"))
        try:
            self._vec._was_reset = True
            for i, s in enumerate(checked):
                self._reset_table(i, s)
            self._after_reset()
            return self.obs, self.mask
        finally:
            lock.release()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Apply each table's learner action, play its bots to the learner's next decision (a finished session is
        dealt again): ``(obs, mask, reward, done)``, the reused arrays (module docstring)."""
        lock = self._busy
        if not lock.acquire(False):
            raise ConcurrentUseError(busy_message("LearnerVectorEnv.step()", "LearnerVectorEnv"))
        try:
            acts = self._check_actions(actions)
            rewards, done = self.rewards, self.done
            for i, act in enumerate(acts):
                rewards[i], done[i] = self._step_table(i, act)
            self._vec._write_all()  # every table is at its learner's decision: its seat's observation and mask
            return self.obs, self.mask, rewards, done
        finally:
            lock.release()

    def info(self, i: int) -> dict[str, Any]:
        """``SingleAgentEnv``'s info of table ``i``'s current learner decision (its ``INFO_KEYS``)."""
        self._check_table(i)
        return self._info(int(i), *self._info_args[int(i)])

    def action_masks(self) -> np.ndarray:
        """The bool ``(num_envs, num_actions)`` masks of the learners (``mask``)."""
        return self.mask

    def table(self, i: int) -> _BotTable:
        """Table ``i`` as the env-like object bots read (``public_view``, ``action_mask``, ``observe``)."""
        self._check_table(i)
        return self._tables[int(i)]

    def game_state(self, i: int) -> dict[str, Any]:
        """Table ``i``'s engine state as JSON (the scenario format)."""
        self._check_table(i)
        return self._states[int(i)].to_json()

    def close(self) -> None:
        """Nothing to release."""

    def __repr__(self) -> str:
        return (f"LearnerVectorEnv({self.profile!r}, num_envs={self.num_envs}, learner_seat="
                f"{self.learner_seat_spec!r}, opponents={self.opponent_specs!r}, rounds={self.rounds!r})")

    # internals ----------------------------------------------------------------------------------------------
    def _after_reset(self) -> None:
        self._vec._was_reset = True
        self._vec._write_all()
        self._was_reset = True
        self.rewards.fill(0.0)
        self.done.fill(False)
        self.final_obs = [None] * self.num_envs
        self.final_info = [None] * self.num_envs

    def _check_table(self, i: Any) -> None:
        if not self._was_reset:
            raise NotResetError("LearnerVectorEnv accessor before reset(): call reset(seed=...) first")
        if not isinstance(i, (int, np.integer)) or isinstance(i, bool) or not 0 <= i < self.num_envs:
            raise VectorConfigError(f"table {i!r}; allowed: 0..{self.num_envs - 1}")

    def _check_actions(self, actions: Any) -> list[int]:
        if not self._was_reset:
            raise NotResetError("LearnerVectorEnv.step() before reset(): call reset(seed=...) first")
        a = actions if isinstance(actions, np.ndarray) else np.asarray(actions)
        e = self.num_envs
        if a.shape != (e,) or a.dtype.kind not in "iu":
            raise IllegalActionError(
                f"actions must be an integer array of shape ({e},) (one action id 0..{self.num_actions - 1} per "
                f"table); got shape {a.shape} and dtype {a.dtype}"
            )
        acts = a.tolist()
        for i, act in enumerate(acts):
            if act not in self._states[i].legal_actions():
                legal = list(self._states[i].legal_actions())
                raise IllegalActionError(
                    f"table {i} (learner seat {int(self.learner_seats[i])}): illegal action {act}; legal: "
                    f"{legal[:20]}{' ...' if len(legal) > 20 else ''}; no table was stepped"
                )
        return acts

    def _reset_table(self, i: int, seed: int | None) -> None:
        """``SingleAgentEnv.reset(seed=...)`` for table ``i``: learner seat, bot seeds and deals from its generator."""
        if seed is not None or self._rngs[i] is None:
            self._rngs[i], _ = seeding.np_random(seed)
        rng = self._rngs[i]
        n = self.num_players
        seat = int(rng.integers(n)) if self.learner_seat_spec == "random" else int(self.learner_seat_spec)
        self.learner_seats[i] = seat
        for bot in self._bots[i]:
            bot.reset(int(rng.integers(2**31)))
        redeals = 0
        while True:
            st = self._vec.game.new_state(self.rules, seed=int(rng.integers(2**31)), rounds=self.rounds)
            self._states[i] = st
            self._seen[i] = len(st.round_results)
            reward = self._play_bots(i, seat)
            if not st.is_terminal():
                break
            redeals += 1
            if redeals >= MAX_REDEALS:
                raise RuntimeError(f"table {i}: {redeals} deals in a row ended before the learner's first decision")
        self._carry[i] = reward
        self._info_args[i] = (self._seen[i], redeals, reward)
        self._seen[i] = len(st.round_results)

    def _step_table(self, i: int, act: int) -> tuple[float, bool]:
        """``SingleAgentEnv.step(act)`` for table ``i`` (then its reset, if the session ended)."""
        st = self._states[i]
        seat = int(self.learner_seats[i])
        carried, self._carry[i] = self._carry[i], 0.0
        before = len(st.round_results)
        st.apply_legal(act)
        reward = self._reward(st, before, seat) + self._play_bots(i, seat) + carried
        self._info_args[i] = (self._seen[i], 0, carried)
        self._seen[i] = len(st.round_results)
        if not st.is_terminal():
            return reward, False
        row = np.zeros(self.obs_size, dtype=np.float32)
        _encode_into(self.observer, st, seat, row)
        self.final_obs[i] = row
        self.final_info[i] = self._info(i, *self._info_args[i])
        self._reset_table(i, None)
        return reward, True

    def _reward(self, st: Any, before: int, seat: int) -> float:
        """The learner's reward from the move that left ``st`` (round results from ``before`` on), as the AEC env's
        ``rewards[learner]`` after it."""
        results = st.round_results
        over = st.is_terminal()
        if len(results) == before and not over:
            return 0.0
        row = [0.0] * self.num_players
        add_step_rewards(row, results[before:], st.winners() if over else None, self.reward_mode, self.reward_scale)
        return float(row[seat])

    def _play_bots(self, i: int, seat: int) -> float:
        """Play table ``i``'s bots until its learner (``seat``) decides or the session ends; the learner's rewards."""
        st = self._states[i]
        table, bots, n = self._tables[i], self._bots[i], self.num_players
        reward = 0.0
        while not st.is_terminal():
            p = st.current_player
            if p == seat:
                break
            bot = bots[(p - seat - 1) % n]
            before = len(st.round_results)
            if bot.__class__ is RandomBot:  # the same pick as its act(), from the engine's legal list (no mask)
                st.apply_legal(bot.act_legal(sorted(st.legal_actions())))
            else:
                st.apply(int(bot.act(table, table.possible_agents[p])))
            reward += self._reward(st, before, seat)
        return reward

    def _info(self, i: int, rounds_before: int, redeals: int, carried: float) -> dict[str, Any]:
        """``SingleAgentEnv``'s info of table ``i`` now (``rounds_before``: the round results its learner's last
        decision had seen)."""
        st = self._states[i]
        seat = int(self.learner_seats[i])
        new = st.round_results[rounds_before:]
        mask = np.zeros(self.num_actions, dtype=np.int8)
        if not st.is_terminal() and st.current_player == seat:
            mask[st.legal_actions()] = 1
        return {
            "action_mask": mask,
            "learner_seat": seat,
            "round": int(st.round),
            "round_over": bool(new),
            "turn_cap": any(r["reason"] == "turn_cap" for r in new),
            "session_over": bool(st.is_terminal()),
            "illegal_action": False,
            "redeals": redeals,
            "carried_reward": float(carried),
        }


def _copy_bot(bot: Any) -> Any:
    """An independent copy of a bot object for another table (a deep copy; a bot that cannot be copied is
    refused: give a bot id, which every table loads on its own)."""
    try:
        return copy.deepcopy(bot)
    except Exception as exc:  # noqa: BLE001 - any failure to copy means the same thing here
        raise VectorConfigError(
            f"opponent {bot!r} cannot be copied for each table ({exc}); give a bot id such as 'heuristic' instead"
        ) from None


__all__ = ["LearnerVectorEnv"]
