"""``copy.deepcopy`` and ``pickle`` of every env round-trip and the copy plays on identically (issue 40, point 16).

Users clone envs for look-ahead search and ship them to worker processes (OpenSpiel states clone and pickle;
Gymnasium envs deep-copy). For every profile, under both implementations of the hot functions (the pure-Python
reference and the compiled twins: the one this process selected, ``RUMMY_ENV_IMPL``, and the other one in a child
pytest that runs this module again, ``test_the_same_under_the_other_implementation``), the AEC env (raw and
wrapped), ``SingleAgentEnv`` and ``VectorEnv`` are copied at random mid-game positions; the original and the copy
are then driven with the same actions through session ends and unseeded resets (the seed streams), and every
observation, mask, reward, flag, info and JSON state (generator included) must agree. A copy is independent: moving
it leaves the original as it was.
"""

from __future__ import annotations

import copy
import pickle
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from implementations import rerun_under_the_other_implementation

import rummy_env
from rummy_env.engine import load_state, new_state
from rummy_env.envs.wrappers import SingleAgentEnv
from rummy_env.registry import GAMES
from rummy_env.vector import VectorEnv

PROFILES = sorted(GAMES)


def _pickled(obj: Any) -> Any:
    return pickle.loads(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))


COPIES: dict[str, Callable[[Any], Any]] = {"deepcopy": copy.deepcopy, "pickle": _pickled}


def test_the_same_under_the_other_implementation() -> None:
    rerun_under_the_other_implementation(__file__)


def _same(a: Any, b: Any, where: str) -> None:
    """Equal values: arrays by content and dtype, dicts and sequences item by item."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray), where
        assert a.dtype == b.dtype and np.array_equal(a, b), where
    elif isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), where
        for k in a:
            _same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{where}[{i}]")
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


# the AEC env ------------------------------------------------------------------------------------------------------
def _aec_frame(env: Any) -> tuple:
    raw = env.unwrapped
    return env.last() if raw.agents else None, dict(raw.rewards), dict(raw.terminations), dict(raw.truncations), raw.game_state()


def _aec_lockstep(a: Any, b: Any | None, rng: random.Random, steps: int) -> None:
    """Drive ``a`` and ``b`` with the same actions (picked from ``a``'s mask), resetting both without a seed at each
    session end; everything they show must agree (``b`` None: drive ``a`` alone)."""
    envs = [a] if b is None else [a, b]
    for i in range(steps):
        if b is not None:
            _same(_aec_frame(a), _aec_frame(b), f"decision {i}")
        if not a.unwrapped.agents:
            for env in envs:
                env.reset()
            continue
        obs, _, term, trunc, _ = a.last()
        action = None if term or trunc else rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
        for env in envs:
            env.step(action)


@pytest.mark.parametrize("how", sorted(COPIES))
@pytest.mark.parametrize("wrapped", [False, True], ids=["raw", "wrapped"])
@pytest.mark.parametrize("profile", PROFILES)
def test_aec_env_copies_play_on_identically(profile: str, wrapped: bool, how: str) -> None:
    rng = random.Random(f"{profile}-{wrapped}-{how}")
    for position in range(2):
        env = rummy_env.make(profile, wrapped=wrapped, rounds=1, turn_cap=30)
        env.reset(seed=rng.randrange(1000))
        _aec_lockstep(env, None, rng, rng.randrange(0, 120))  # a random mid-game position
        before = env.unwrapped.game_state()
        other = COPIES[how](env)
        assert other.unwrapped is not env.unwrapped and other.unwrapped._state is not env.unwrapped._state
        loose = COPIES[how](env)  # a copy is independent: moving it leaves the original as it was
        _aec_lockstep(loose, None, random.Random(position), 25)
        assert env.unwrapped.game_state() == before
        resets = env.unwrapped._seed_stream.bit_generator.state
        _aec_lockstep(env, other, rng, 150)
        assert env.unwrapped._seed_stream.bit_generator.state != resets, "no session ended: no unseeded reset"


# SingleAgentEnv ---------------------------------------------------------------------------------------------------
def _single_lockstep(a: SingleAgentEnv, b: SingleAgentEnv | None, rng: random.Random, steps: int) -> None:
    """As ``_aec_lockstep`` for the learner's steps (``reset()`` without a seed after each episode)."""
    for i in range(steps):
        if b is not None:
            _same(a.aec.game_state(), b.aec.game_state(), f"step {i}: state")
            _same(a.action_masks(), b.action_masks(), f"step {i}: mask")
        if a._done:
            out = a.reset()
            if b is not None:
                _same(out, b.reset(), f"step {i}: reset")
            continue
        action = rng.choice(np.flatnonzero(a.action_masks()).tolist())
        out = a.step(action)
        if b is not None:
            _same(out, b.step(action), f"step {i}: step")


@pytest.mark.parametrize("how", sorted(COPIES))
@pytest.mark.parametrize("profile", PROFILES)
def test_single_agent_env_copies_play_on_identically(profile: str, how: str) -> None:
    rng = random.Random(f"{profile}-{how}")
    n = game_players(profile)
    opponents = ["heuristic"] + ["random"] * (n - 2)
    for _ in range(2):
        env = SingleAgentEnv(profile, learner_seat="random", opponents=opponents, rounds=1, turn_cap=30)
        env.reset(seed=rng.randrange(1000))
        _single_lockstep(env, None, rng, rng.randrange(0, 40))
        other = COPIES[how](env)
        assert other.aec is not env.aec and other.opponents[0] is not env.opponents[0]
        _single_lockstep(env, other, rng, 80)


def game_players(profile: str) -> int:
    return rummy_env.game(profile).default_players


# VectorEnv --------------------------------------------------------------------------------------------------------
def _vector_lockstep(a: VectorEnv, b: VectorEnv | None, rng: np.random.Generator, steps: int) -> None:
    """As ``_aec_lockstep`` for the batched step (finished sessions are dealt again by the env itself)."""
    for i in range(steps):
        actions = a.random_actions(rng)
        out_a = a.step(actions)
        if b is None:
            continue
        _same(list(out_a), list(b.step(actions.copy())), f"step {i}")
        _same(a.final_results, b.final_results, f"step {i}: final results")
        for t in range(a.num_envs):
            _same(a.game_state(t), b.game_state(t), f"step {i}: table {t}")
            _same(a.observe(t, 0), b.observe(t, 0), f"step {i}: table {t} seat 0")


@pytest.mark.parametrize("how", sorted(COPIES))
@pytest.mark.parametrize("profile", PROFILES)
def test_vector_env_copies_play_on_identically(profile: str, how: str) -> None:
    rng = np.random.default_rng(len(profile) + len(how))
    vec = VectorEnv(profile, 3, seed=int(rng.integers(1000)), rounds=1, turn_cap=30)
    vec.reset()
    vec.observe_seats[1, 0] = False
    _vector_lockstep(vec, None, rng, int(rng.integers(0, 150)))
    other = COPIES[how](vec)
    # the copy writes into arrays of its own, through row views of them
    for name in ("obs", "mask", "seat", "rewards", "done", "observe_seats"):
        assert not np.shares_memory(getattr(vec, name), getattr(other, name)), name
        _same(getattr(vec, name), getattr(other, name), name)
    assert all(np.shares_memory(row, other.obs) for row in other._obs_rows)
    before = [vec.game_state(t) for t in range(3)]
    loose = COPIES[how](vec)
    _vector_lockstep(loose, None, np.random.default_rng(5), 30)
    assert [vec.game_state(t) for t in range(3)] == before
    _vector_lockstep(vec, other, rng, 250)  # through auto-resets: the tables' seed streams continue alike
    assert vec.sessions_done.sum() > 0


# the engine states ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("how", sorted(COPIES))
@pytest.mark.parametrize("profile", PROFILES)
def test_engine_state_copies_are_identical_and_share_the_action_table(profile: str, how: str) -> None:
    rng = random.Random(profile)
    st = new_state(profile, seed=7)
    for _ in range(rng.randrange(50, 200)):
        st.apply(rng.choice(st.legal_actions()))
    other = COPIES[how](st)
    assert other.layout is st.layout  # the engine's cached table, not a copy of it
    for _ in range(200):
        if st.is_terminal():
            break
        assert other.to_json() == st.to_json() and other.legal_actions() == st.legal_actions()
        action = rng.choice(st.legal_actions())
        st.apply(action)
        other.apply(action)
    assert load_state(other.to_json()).to_json() == st.to_json()
