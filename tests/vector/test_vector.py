"""``rummy_env.vector.VectorEnv``: the same games, rewards and seeds as the AEC env; refused input; the arrays."""

from __future__ import annotations

import numpy as np
import pytest

from rummy_env.engine import IllegalActionError
from rummy_env.envs import session
from rummy_env.envs.base import NotResetError
from rummy_env.registry import UnknownProfileError, game
from rummy_env.vector import EmptyMaskError, VectorConfigError, VectorEnv, bench_vector, random_legal_actions

# (profile, env_config): every profile and player count, every reward mode, a turn-capped session
CASES = [
    ("contract", {"rounds": 1}),
    ("contract", {"rounds": 2, "reward": "relative"}),
    ("contract", {"rounds": 1, "reward": "win", "turn_cap": 12}),
    ("contract_gamerules", {"rounds": 1}),
    ("contract_gamerules", {"rounds": 1, "num_players": 5, "reward": "win"}),
    ("contract_gamerules", {"rounds": 1, "num_players": 3, "reward": "relative"}),
    ("continental", {"rounds": 1}),
    ("continental", {"rounds": 1, "num_players": 5, "reward": "win"}),
    ("continental", {"rounds": 2, "turn_cap": 8}),
]


def _aec_view(raw):
    """(obs, bool mask, seat) of the AEC env's decision."""
    agent = raw.agent_selection
    ob = raw.observe(agent)
    return ob["observation"], ob["action_mask"].astype(bool), raw.current_seat


def _lockstep(profile, config, num_envs, seed, min_sessions=2, max_steps=4000):
    """Drive a VectorEnv and num_envs AEC envs with the same seeded random legal actions; compare everything."""
    vec = VectorEnv(profile, num_envs, seed=seed, **config)
    envs = [game(profile).make_env(wrapped=False, **config) for _ in range(num_envs)]
    obs, mask, seat = vec.reset()
    for i, raw in enumerate(envs):
        raw.reset(seed=seed + i)
        o, m, s = _aec_view(raw)
        assert np.array_equal(obs[i], o) and np.array_equal(mask[i], m) and seat[i] == s
    rng = np.random.default_rng(seed)
    capped = False
    for _ in range(max_steps):
        actions = random_legal_actions(mask, rng)
        obs, mask, seat, rewards, done = vec.step(actions)
        assert obs.dtype == np.float32 and mask.dtype == bool and rewards.dtype == np.float32 and done.dtype == bool
        for i, raw in enumerate(envs):
            raw.step(int(actions[i]))
            want = np.array([raw.rewards[a] for a in raw.possible_agents], dtype=np.float32)
            assert np.array_equal(rewards[i], want), (i, rewards[i], want)
            assert done[i] == raw.session_over
            if raw.session_over:
                res = raw.results()
                assert vec.final_results[i] == res
                capped = capped or any(r["reason"] == "turn_cap" for r in res["round_results"])
                raw.reset()  # the unseeded reset: the next game of the seeded stream
            o, m, s = _aec_view(raw)
            assert np.array_equal(obs[i], o), i
            assert np.array_equal(mask[i], m), i
            assert seat[i] == s, i
        if vec.sessions_done.min() >= min_sessions:
            break
    assert vec.sessions_done.min() >= min_sessions, "sessions too long for the test"
    return vec, capped


@pytest.mark.parametrize("profile,config", CASES)
def test_same_games_as_aec_env(profile, config):
    _vec, capped = _lockstep(profile, config, num_envs=3, seed=11)
    if "turn_cap" in config:
        assert capped, "the turn cap never ended a round: pick a smaller cap"


def test_unseeded_reset_continues_each_tables_stream():
    cfg = {"rounds": 1}
    vec = VectorEnv("continental", 2, **cfg)
    vec.reset(seed=5)
    obs, mask, seat = (a.copy() for a in vec.reset())
    for i in range(2):
        raw = game("continental").make_env(wrapped=False, **cfg)
        raw.reset(seed=5 + i)
        raw.reset()
        o, m, s = _aec_view(raw)
        assert np.array_equal(obs[i], o) and np.array_equal(mask[i], m) and seat[i] == s
    # the constructor's seed is the first reset's
    a = VectorEnv("continental", 2, seed=5, **cfg)
    a.reset()
    b = VectorEnv("continental", 2, **cfg)
    b.reset(seed=5)
    assert a.game_state(1) == b.game_state(1)


def test_seed_stream_rule_is_the_aec_envs():
    raw = game("contract").make_env(wrapped=False, rounds=1)
    raw.reset(seed=3)
    raw.reset()
    stream = session.seed_stream(3)
    expected = game("contract").new_state(raw.rules, seed=session.next_seed(stream), rounds=1)
    assert raw.game_state() == expected.to_json()


def test_reward_modes_are_the_aec_envs():
    import rummy_env

    for profile in ("contract", "contract_gamerules", "continental"):
        raw = rummy_env.make(profile, wrapped=False)
        assert session.reward_modes(game(profile).score_name) == tuple(raw.reward_modes)
        assert session.REWARD_SCALE == raw.reward_scale


def test_arrays_are_reused():
    vec = VectorEnv("continental", 4, seed=0)
    obs, mask, seat = vec.reset()
    out = vec.step(random_legal_actions(mask, np.random.default_rng(0)))
    assert out[0] is obs and out[1] is mask and out[2] is seat
    assert obs.shape == (4, vec.obs_size) and mask.shape == (4, vec.num_actions) and seat.shape == (4,)
    assert out[3].shape == (4, vec.num_players) and out[4].shape == (4,)


def _snapshot(vec):
    return [vec.game_state(i) for i in range(vec.num_envs)], vec.obs.copy(), vec.mask.copy(), vec.seat.copy()


def _assert_same(a, b):
    assert a[0] == b[0]
    for x, y in zip(a[1:], b[1:]):
        assert np.array_equal(x, y)


def test_illegal_action_names_the_table_and_changes_nothing():
    vec = VectorEnv("contract", 4, seed=1)
    _obs, mask, _seat = vec.reset()
    actions = random_legal_actions(mask, np.random.default_rng(0))
    bad = int(np.flatnonzero(~mask[2])[0])
    actions[2] = bad
    before = _snapshot(vec)
    with pytest.raises(IllegalActionError, match=r"table 2 .*illegal action .*legal actions") as err:
        vec.step(actions)
    assert isinstance(err.value, ValueError)
    _assert_same(before, _snapshot(vec))
    for wrong in (actions[:3], actions.astype(np.float64), actions.astype(bool), actions.reshape(2, 2),
                  np.full(4, vec.num_actions), np.full(4, -1)):
        with pytest.raises(IllegalActionError):
            vec.step(wrong)
        _assert_same(before, _snapshot(vec))
    actions[2] = random_legal_actions(mask, np.random.default_rng(0))[2]
    vec.step(list(actions))  # a list of ints is an array of actions too


def test_bad_constructor_arguments():
    for kwargs in ({"num_envs": 0}, {"num_envs": 2.0}, {"num_envs": True}):
        with pytest.raises(VectorConfigError, match="num_envs"):
            VectorEnv("contract", **kwargs)
    with pytest.raises(UnknownProfileError, match="available"):
        VectorEnv("gin", 2)
    with pytest.raises(session.RewardModeError, match="allowed"):
        VectorEnv("continental", 2, reward="penalty")
    with pytest.raises(VectorConfigError, match="max_steps"):
        VectorEnv("contract", 2, max_steps=10)
    with pytest.raises(VectorConfigError, match="seed"):
        VectorEnv("contract", 2, seed=-1)
    with pytest.raises(ValueError):
        VectorEnv("contract", 2, no_such_rule=1)
    with pytest.raises(ValueError):
        VectorEnv("contract", 2, rounds=9)
    with pytest.raises(ValueError):
        VectorEnv("contract", 2, num_players=5)
    vec = VectorEnv("contract", 2)
    with pytest.raises(NotResetError):
        vec.step(np.zeros(2, dtype=np.int64))


def test_random_legal_actions_are_legal_and_seeded():
    vec = VectorEnv("contract_gamerules", 8, seed=0)
    _obs, mask, _seat = vec.reset()
    a = random_legal_actions(mask, np.random.default_rng(1))
    assert a.dtype == np.int64 and mask[np.arange(8), a].all()
    assert np.array_equal(a, random_legal_actions(mask, np.random.default_rng(1)))
    with pytest.raises(ValueError, match="no legal action"):
        random_legal_actions(np.zeros((2, 3), dtype=bool), np.random.default_rng(0))


def test_random_legal_actions_is_uniform_over_each_row_as_documented():
    """The draw is ``starts + floor(u * counts)`` over each row's legal ids in order (one ``rng.random(e)``): the
    same ids as picking ``legal[floor(u * len(legal))]`` row by row, for masks of every shape, an empty row refused
    with its row named."""
    gen = np.random.default_rng(7)
    for e, a in [(1, 1), (1, 5), (3, 4), (16, 3089), (5, 109)]:
        for density in (0.01, 0.3, 1.0):
            mask = gen.random((e, a)) < density
            mask[np.arange(e), gen.integers(0, a, e)] = True  # every row has a legal id
            got = random_legal_actions(mask, np.random.default_rng(3))
            u = np.random.default_rng(3).random(e)
            want = [int(np.flatnonzero(row)[int(x * np.count_nonzero(row))]) for row, x in zip(mask, u)]
            assert got.tolist() == want
    mask = np.ones((4, 6), dtype=bool)
    mask[2] = False
    with pytest.raises(ValueError, match=r"rows \[2\]"):
        random_legal_actions(mask, np.random.default_rng(0))


@pytest.mark.parametrize("profile,config", [("contract", {}), ("contract_gamerules", {"num_players": 3}),
                                            ("continental", {"num_players": 5, "turn_cap": 40})])
def test_random_actions_are_random_legal_actions_of_the_mask(profile, config):
    """``vec.random_actions(rng)`` draws what ``random_legal_actions(vec.mask, rng)`` draws from the same ``rng``
    state, at every step of seeded play (sessions ending and dealt again included), and needs a reset first."""
    vec = VectorEnv(profile, 5, seed=11, rounds=1, **config)
    with pytest.raises(NotResetError, match="reset"):
        vec.random_actions(np.random.default_rng(0))
    _obs, mask, _seat = vec.reset()
    ours, theirs = np.random.default_rng(4), np.random.default_rng(4)
    done_seen = 0
    for _ in range(400):
        got = vec.random_actions(ours)
        want = random_legal_actions(mask, theirs)
        assert got.dtype == np.int64 and got.tolist() == want.tolist()
        assert mask[np.arange(5), got].all()
        _obs, mask, _seat, _r, done = vec.step(got)
        done_seen += int(done.sum())
    assert done_seen > 0  # the comparison also ran across auto-resets
    vec._states[2]._legal = []  # a table with nothing to decide (never left so by step: sessions are dealt again)
    with pytest.raises(EmptyMaskError, match=r"tables \[2\]"):
        vec.random_actions(np.random.default_rng(0))


def test_bench_vector_reports_decisions_per_second():
    res = bench_vector("continental", num_envs=2, seconds=0.2)
    assert res["layer"] == "vector" and res["decisions_per_second"] > 0 and res["decisions"] % 2 == 0


def test_deals_is_continentals_old_spelling():
    with pytest.warns(DeprecationWarning):
        vec = VectorEnv("continental", 1, seed=0, deals=1)
    assert vec.rounds == 1
    with pytest.raises(VectorConfigError, match="rounds="):
        VectorEnv("contract", 1, deals=1)


# ---- what training reads: any seat's observation, the tables as bots see them, observations left out -----------
@pytest.mark.parametrize("profile,config", [("contract", {"rounds": 1}), ("continental", {"rounds": 1, "num_players": 5}),
                                            ("contract_gamerules", {"rounds": 1, "num_players": 3})])
def test_bots_play_a_table_as_they_play_the_aec_env(profile, config):
    """``vec.table(i)`` answers bots as the AEC env does: a heuristic and a random bot at every seat choose the same
    actions at each table as at an AEC env of the same seed, and ``observe(i, seat)`` is the AEC env's observation of
    every seat, on turn or not."""
    from rummy_env import bots

    vec = VectorEnv(profile, 2, seed=4, **config)
    vec.reset()
    envs = [game(profile).make_env(wrapped=False, **config) for _ in range(2)]
    for i, raw in enumerate(envs):
        raw.reset(seed=4 + i)
    kinds = ["heuristic", "random"]
    mine = [[bots.load(kinds[p % 2], seed=p) for p in range(vec.num_players)] for _ in range(2)]
    theirs = [[bots.load(kinds[p % 2], seed=p) for p in range(vec.num_players)] for _ in range(2)]
    tables = [vec.table(i) for i in range(2)]
    for _ in range(150):
        actions = np.zeros(2, dtype=np.int64)
        for i, (t, raw) in enumerate(zip(tables, envs)):
            agent = raw.agent_selection
            assert t.agent_selection == agent and t.unwrapped is t
            for a in raw.possible_agents:
                np.testing.assert_array_equal(vec.observe(i, raw.agent_name_mapping[a]), raw.observe(a)["observation"])
                np.testing.assert_array_equal(t.action_mask(a), raw.action_mask(a))
            seat = raw.agent_name_mapping[agent]
            actions[i] = mine[i][seat].act(t, agent)
            assert actions[i] == theirs[i][seat].act(raw, agent)
        _, _, _, _, done = vec.step(actions)
        for i, raw in enumerate(envs):
            raw.step(int(actions[i]))
            assert done[i] == raw.session_over
            if raw.session_over:
                raw.reset()
    with pytest.raises(ValueError, match="unknown agent"):
        tables[0].public_view("player_9")
    with pytest.raises(VectorConfigError, match="seat"):
        vec.observe(0, vec.num_players)


def test_observe_seats_leaves_out_the_observations_of_unmarked_seats():
    """``observe_seats[i, p] = False``: table i's observation row is zeros whenever seat p is to move, the other
    tables' rows are unchanged, and the games, masks and seats are the same as with every seat observed."""
    full = VectorEnv("contract", 3, seed=2, rounds=1)
    part = VectorEnv("contract", 3, seed=2, rounds=1)
    full.reset()
    part.reset()
    part.observe_seats[1, :] = False
    part.observe_seats[2, 0] = False
    rng = np.random.default_rng(0)
    left_out = 0
    for _ in range(300):
        actions = random_legal_actions(full.mask, rng)
        full.step(actions)
        part.step(actions)
        assert np.array_equal(full.mask, part.mask) and np.array_equal(full.seat, part.seat)
        for i in range(3):
            if part.observe_seats[i, part.seat[i]]:
                assert np.array_equal(full.obs[i], part.obs[i])
            else:
                assert not part.obs[i].any() and full.obs[i].any()
                left_out += 1
    assert left_out > 300  # table 1 always, table 2 at seat 0's decisions


def test_observe_seats_may_be_replaced_by_an_array_of_another_dtype():
    """``observe_seats`` compared by its bytes with the all-True array it starts as: an all-ones int8 array reads as
    every seat observed (the same bytes), an int64 array with zeros leaves out exactly those seats' observations."""
    ref = VectorEnv("contract", 3, seed=4, rounds=1)
    ones = VectorEnv("contract", 3, seed=4, rounds=1)
    wide = VectorEnv("contract", 3, seed=4, rounds=1)
    for v in (ref, ones, wide):
        v.reset()
    ones.observe_seats = np.ones((3, 4), dtype=np.int8)
    wide.observe_seats = np.ones((3, 4), dtype=np.int64)
    wide.observe_seats[0, 1] = 0
    rng = np.random.default_rng(1)
    left_out = 0
    for _ in range(200):
        actions = random_legal_actions(ref.mask, rng)
        for v in (ref, ones, wide):
            v.step(actions)
        assert np.array_equal(ref.obs, ones.obs)
        for i in range(3):
            if i == 0 and wide.seat[0] == 1:
                assert not wide.obs[0].any() and ref.obs[0].any()
                left_out += 1
            else:
                assert np.array_equal(ref.obs[i], wide.obs[i])
    assert left_out > 10
