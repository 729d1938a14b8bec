"""``flat_observation=True``: the float32 observation alone and the action mask in ``infos[agent]["action_mask"]``
(the place AgileRL's multi-agent algorithms and TorchRL's ``PettingZooWrapper`` read it), checked against the
default env (dict observation) played with the same seed and actions, and through PettingZoo's own ``api_test``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pettingzoo
import pytest
from conformance import ENV_CASES, _DefaultSeed, case_id, make_env
from gymnasium import spaces
from pettingzoo.test import api_test, parallel_api_test, seed_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import rummy_env
from rummy_env.envs.base import INFO_KEYS, INFO_MASK_KEY

CASES = [pytest.param(c, id=case_id(c)) for c in ENV_CASES]
#: short sessions so random play reaches the end quickly
QUICK = {"contract": {"rounds": (1,)}, "contract_gamerules": {"rounds": (1,)}, "continental": {"rounds": 1}}


def _pair(case: tuple[str, dict[str, Any]], **extra: Any) -> tuple[Any, Any]:
    """The default env and the flat one of ``case`` (same config)."""
    cfg = {**QUICK[case[0]], **extra}
    return make_env(case, **cfg), make_env(case, flat_observation=True, **cfg)


def _assert_same_decision(plain: Any, flat: Any) -> None:
    """Every agent: the flat observation is the default one's vector, its info mask the default one's mask (all
    zeros for an agent whose decision it is not), every other info entry and reward the same."""
    assert plain.agents == flat.agents and plain.agent_selection == flat.agent_selection
    for agent in plain.agents:
        want = plain.observe(agent)
        got = flat.observe(agent)
        assert isinstance(got, np.ndarray) and got.dtype == np.float32
        np.testing.assert_array_equal(got, want["observation"])
        assert flat.observation_space(agent).contains(got)
        info = flat.infos[agent]
        mask = info[INFO_MASK_KEY]
        assert mask.dtype == np.int8 and mask.shape == want["action_mask"].shape
        np.testing.assert_array_equal(mask, want["action_mask"])
        np.testing.assert_array_equal(mask, flat.unwrapped.action_mask(agent))
        if agent != flat.agent_selection or flat.terminations[agent] or flat.truncations[agent]:
            assert not mask.any(), f"{agent} is not to move but its info mask has legal actions"
        assert {k: v for k, v in info.items() if k != INFO_MASK_KEY} == plain.infos[agent]
        assert set(info) == {*INFO_KEYS, INFO_MASK_KEY}
    assert flat.rewards == plain.rewards and flat.terminations == plain.terminations
    assert flat.truncations == plain.truncations


@pytest.mark.parametrize("case", CASES)
def test_flat_env_is_the_default_env_with_the_mask_moved_to_infos(case) -> None:
    """A seeded session played to its end with random legal actions taken from the flat env's info mask: at every
    decision both envs agree (``_assert_same_decision``), and the flat env's spaces are the default one's ``Box``."""
    plain, flat = _pair(case)
    agent = plain.possible_agents[0]
    assert isinstance(plain.observation_space(agent), spaces.Dict)
    assert flat.observation_space(agent) == plain.observation_space(agent)["observation"]
    assert flat.action_space(agent) == plain.action_space(agent)
    for seed in (0, 1):
        plain.reset(seed=seed)
        flat.reset(seed=seed)
        rng = np.random.default_rng(seed)
        steps = 0
        for agent in flat.agent_iter():
            _assert_same_decision(plain, flat)
            obs, reward, term, trunc, info = flat.last()
            assert info is flat.infos[agent]
            action = None if term or trunc else int(rng.choice(np.flatnonzero(info[INFO_MASK_KEY])))
            flat.step(action)
            plain.step(action)
            steps += 1
        assert steps > 10 and not plain.agents and not flat.agents
        assert flat.unwrapped.results() == plain.unwrapped.results()


def test_default_env_is_unchanged() -> None:
    """Without the option: the dict observation, no mask in the infos, ``flat_observation`` False."""
    env = rummy_env.contract_v0.env(rounds=(1,))
    env.reset(seed=0)
    obs, _, _, _, info = env.last()
    assert set(obs) == {"observation", "action_mask"} and set(info) == set(INFO_KEYS)
    assert env.unwrapped.flat_observation is False
    assert isinstance(env.observation_space(env.agent_selection), spaces.Dict)


@pytest.mark.parametrize("case", CASES)
def test_pettingzoo_api_test_with_the_option(case, caplog) -> None:
    """PettingZoo's ``api_test`` (it samples from ``info["action_mask"]`` when the observation has none, so with the
    masks in place no action of it is illegal: PettingZoo's illegal-move warning is never logged), its
    ``seed_test`` and ``parallel_api_test`` over ``turn_based_aec_to_parallel``, all with the option on."""
    caplog.clear()
    api_test(_DefaultSeed(make_env(case, flat_observation=True), 0), num_cycles=200)
    assert "Illegal move made" not in caplog.text
    seed_test(lambda **kw: make_env(case, flat_observation=True, **kw), num_cycles=100)
    parallel_api_test(turn_based_aec_to_parallel(make_env(case, flat_observation=True)), num_cycles=100)


def test_info_dicts_are_new_every_step() -> None:
    """A client that keeps a step's info (a rollout buffer) keeps that step's mask: the next step writes new
    dicts and new arrays."""
    env = rummy_env.contract_v0.env(rounds=(1,), flat_observation=True)
    env.reset(seed=3)
    kept = []
    for _ in range(30):
        _, _, _, _, info = env.last()
        kept.append((info, info[INFO_MASK_KEY].copy()))
        env.step(int(np.flatnonzero(info[INFO_MASK_KEY])[0]))
    assert all(np.array_equal(info[INFO_MASK_KEY], mask) for info, mask in kept)
    assert len({id(info) for info, _ in kept}) == len(kept)


def test_masks_after_an_illegal_action_and_a_truncation_are_zero() -> None:
    """``env()`` ends the game on an illegal action (every agent terminated): every info mask is then all zeros,
    the offender's info says ``illegal_move``; a truncation (``max_steps``) zeroes them too."""
    env = rummy_env.contract_v0.env(rounds=(1,), flat_observation=True)
    env.reset(seed=0)
    offender = env.agent_selection
    assert env.infos[offender][INFO_MASK_KEY].any()
    env.step(int(np.flatnonzero(env.infos[offender][INFO_MASK_KEY] == 0)[0]))
    assert all(env.terminations.values())
    assert env.infos[offender]["illegal_move"] is True
    assert not any(env.infos[a][INFO_MASK_KEY].any() for a in env.agents)

    env = rummy_env.continental_v0.env(rounds=1, max_steps=5, flat_observation=True)
    env.reset(seed=0)
    for _ in range(5):
        env.step(int(np.flatnonzero(env.infos[env.agent_selection][INFO_MASK_KEY])[0]))
    assert all(env.truncations.values())
    assert not any(env.infos[a][INFO_MASK_KEY].any() for a in env.agents)


def test_the_option_reaches_every_entry_point_and_bad_values_are_refused() -> None:
    for profile in sorted(rummy_env.ENVS):
        raw = rummy_env.make(profile, wrapped=False, flat_observation=True)
        assert raw.flat_observation is True and isinstance(raw.observation_space(raw.possible_agents[0]), spaces.Box)
        mod = getattr(rummy_env, rummy_env.ENVS[profile])
        assert mod.env(flat_observation=True).unwrapped.flat_observation is True
        assert mod.raw_env(flat_observation=True).flat_observation is True
    for bad in ("yes", 1, None):
        with pytest.raises(ValueError, match="flat_observation"):
            rummy_env.contract_v0.raw_env(flat_observation=bad)


@pytest.mark.skipif(not hasattr(pettingzoo, "make"), reason="pettingzoo.make is new in PettingZoo 1.27")
def test_the_option_through_pettingzoo_make() -> None:
    env = pettingzoo.make("aec", "rummy_env/contract-v0", flat_observation=True)
    env.reset(seed=0)
    assert isinstance(env.last()[0], np.ndarray) and INFO_MASK_KEY in env.last()[4]


def test_flat_observation_is_refused_where_it_means_nothing() -> None:
    import gymnasium

    from rummy_env.envs.base import EnvArgumentError
    from rummy_env.vector import VectorConfigError, VectorEnv

    with pytest.raises(EnvArgumentError, match="already the learner's float32 vector"):
        gymnasium.make("rummy_env/Contract-v0", flat_observation=True)
    with pytest.raises(VectorConfigError, match="flat_observation"):
        VectorEnv("contract", 2, flat_observation=True)
