"""The caches of the lean AEC path give what the uncached path gives.

The engine keeps frozen snapshots of the table, the known cards and the round's fields for the public views; the
observers keep encoded pieces per snapshot and seat; the env keeps the reward / info dicts of a step that ended
nothing. Each test below plays random legal games and compares against the uncached reference (a fresh observer,
views rebuilt from fresh tuples, the engine's own lists), so a stale cache or one shared across seats fails.
"""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

import rummy_env
from rummy_env.engine.view import _seat_melds
from rummy_env.envs.base import INFO_KEYS
from rummy_env.registry import game

CONFIGS = [("contract", {}), ("contract_gamerules", {"num_players": 5}), ("continental", {})]


def _fresh(view):
    """The same view with every cached tuple replaced by an equal new one (no identity shared with the engine)."""
    fields = {
        "hand": tuple(list(view.hand)),
        "discard": tuple(list(view.discard)),
        "known": tuple(tuple(list(row)) for row in view.known),
    }
    if hasattr(view, "seat_melds"):
        fields["seat_melds"] = tuple(tuple(type(m)(*m) for m in ms) for ms in view.seat_melds)
    return dataclasses.replace(view, **fields)


def _play(profile, config, seed, decisions):
    """Yield (env, raw, agent) at each live decision of random legal play (the caller observes, we step)."""
    env = rummy_env.make(profile, illegal_action="raise", **config)
    raw = env.unwrapped
    rng = random.Random(seed)
    env.reset(seed=seed)
    for _ in range(decisions):
        if not env.agents:
            env.reset(seed=rng.randrange(10**6))
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        yield env, raw, agent
        legal = np.flatnonzero(raw.action_mask(agent))
        env.step(int(legal[rng.randrange(len(legal))]))


@pytest.mark.parametrize("profile,config", CONFIGS)
def test_cached_observations_equal_uncached(profile, config):
    """Every seat's observation (on and off turn) equals a fresh observer's encoding of a view of fresh tuples."""
    g = game(profile)
    checked = 0
    for env, raw, _agent in _play(profile, config, seed=3, decisions=900):
        reference = g.observer(raw.rules, raw.rounds)  # no cached piece
        for other in env.agents:
            view = raw.public_view(other)
            obs = raw.observe(other)["observation"]
            want = reference.encode(_fresh(view))
            assert np.array_equal(obs, want), (profile, other, raw.turn)
            assert np.array_equal(raw.observer.encode(view), want)
            checked += 1
    assert checked > 1000


@pytest.mark.parametrize("profile,config", CONFIGS)
def test_view_snapshots_follow_the_engine(profile, config):
    """The shared snapshots equal what the engine's lists hold now, after every move; views taken earlier keep
    the values of their moment."""
    kept = []
    for _env, raw, agent in _play(profile, config, seed=5, decisions=700):
        st = raw._state
        view = raw.public_view(agent)
        assert view.known == tuple(map(tuple, st.known))
        assert view.scores == tuple(st.scores) and view.dealer == st.dealer and view.round == st.round
        if hasattr(view, "seat_melds"):
            assert view.seat_melds == _seat_melds(st.seat_melds)
            assert view.contract == tuple(st.contract) and view.final_round == st.final_round
        if len(kept) < 200:
            kept.append((view, repr(_fresh(view)), view.known, getattr(view, "seat_melds", None)))
    for view, text, known, melds in kept:
        assert repr(_fresh(view)) == text and view.known is known and getattr(view, "seat_melds", None) is melds


@pytest.mark.parametrize("profile,config", CONFIGS)
def test_masks_are_fresh_and_per_seat(profile, config):
    """The mask is the current seat's legal actions, zeros for every other seat, a new array on every call."""
    for env, raw, agent in _play(profile, config, seed=7, decisions=400):
        legal = raw._state.legal_actions()
        mask = raw.action_mask(agent)
        assert np.flatnonzero(mask).tolist() == legal
        mask[:] = 1  # the caller may keep and change it: the next call is not affected
        assert np.flatnonzero(raw.action_mask(agent)).tolist() == legal
        for other in env.agents:
            if other != agent:
                assert not raw.action_mask(other).any() and not raw.observe(other)["action_mask"].any()


@pytest.mark.parametrize("profile,config", CONFIGS)
def test_quiet_steps_keep_rewards_and_infos(profile, config):
    """After each step every reward and info holds what that step gave (rewards only at round ends), info dicts
    handed out earlier keep their values, and each agent has its own info dict."""
    handed = []
    rounds_seen = 0
    for env, raw, _agent in _play(profile, config, seed=11, decisions=1500):
        st = raw._state
        results = raw.round_results
        assert all(set(i) == set(INFO_KEYS) for i in env.infos.values())
        infos = list(env.infos.values())
        assert len({id(i) for i in infos}) == len(infos)
        for info in infos:
            assert info["round"] == st.round and info["session_over"] is False and info["illegal_move"] is False
        if not any(i["round_over"] for i in infos):
            assert all(r == 0.0 for r in env.rewards.values())
        else:
            rounds_seen += 1
        handed.append((infos[0], dict(infos[0]), dict(env.rewards), env.rewards, len(results)))
    for info, copy, rewards_copy, rewards, _ in handed:
        assert info == copy and rewards == rewards_copy
    assert rounds_seen >= 1
