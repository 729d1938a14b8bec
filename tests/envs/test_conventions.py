"""Stock RL clients run the envs unmodified (PettingZoo classic conventions, Gymnasium seeding, registries, one
info schema, bounded spaces, ``state()``), and action input is checked strictly.

Every check goes through the stock utility where one exists: ``pettingzoo.test`` (``api_test``, ``seed_test``,
``parallel_api_test``, ``parallel_seed_test``, ``state_test``), ``pettingzoo.utils.average_total_reward``,
``pettingzoo.utils.conversions``, ``pettingzoo.make``, ``gymnasium.make`` + ``check_env``.
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any

import gymnasium
import numpy as np
import pettingzoo
import pytest
from conformance import ENV_CASES, case_id, make_env
from pettingzoo.test import parallel_seed_test, state_test
from pettingzoo.utils import average_total_reward
from pettingzoo.utils.conversions import aec_to_parallel, turn_based_aec_to_parallel

import rummy_env
from rummy_env.core.cards import NUM_KINDS
from rummy_env.engine import IllegalActionError, new_state
from rummy_env.envs.base import INFO_KEYS, EnvArgumentError, NotResetError
from rummy_env.envs.wrappers import INFO_KEYS as SINGLE_INFO_KEYS
from rummy_env.envs.wrappers import SingleAgentEnv

CASES = [pytest.param(c, id=case_id(c)) for c in ENV_CASES]
#: short sessions so random play reaches the end quickly
QUICK = {"contract": {"rounds": (1,)}, "contract_gamerules": {"rounds": (1,)}, "continental": {"deals": 1}}


def _quick(case: tuple[str, dict[str, Any]], **extra: Any) -> Any:
    return make_env(case, **QUICK[case[0]], **extra)


def _random_play(env: Any, seed: int, max_steps: int = 100_000):
    """Reset with ``seed`` and play uniformly random legal actions; yield after every reset / step."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    yield
    for _agent in env.agent_iter(max_steps):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        yield


# ------------------------------------------------------------------------------------------------------------
# 12.1 illegal actions: env() follows PettingZoo's classic TerminateIllegalWrapper convention
# ------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES)
def test_unmasked_clients_run_on_env(case, caplog) -> None:
    """Clients that sample without the mask (``average_total_reward`` with ``observe=False``,
    ``parallel_seed_test`` over ``turn_based_aec_to_parallel``) run: an illegal action ends the game with -1."""
    env = _quick(case)
    assert env.unwrapped.illegal_action == "terminate"
    avg = average_total_reward(env, max_episodes=4)
    assert -1.0 <= avg <= 1.0  # every episode ends at its first illegal action (or a tiny reward sum)
    parallel_seed_test(lambda: turn_based_aec_to_parallel(_quick(case)), num_cycles=50)
    env.reset(seed=3)
    offender = env.agent_selection
    caplog.clear()
    env.step(int(np.flatnonzero(env.unwrapped.action_mask(offender) == 0)[0]))
    assert "Illegal move made" in caplog.text  # PettingZoo's own warning (EnvLogger.warn_on_illegal_move)
    _, rew, term, _, info = env.last()
    assert env.agent_selection == offender and rew == -1.0 and term and info["illegal_move"] is True
    assert all(env.terminations.values())


@pytest.mark.parametrize("profile", sorted(rummy_env.ENVS))
def test_documented_illegal_defaults(profile) -> None:
    """env(): terminate (classic convention); raw_env(): raise (debugging); both switch with illegal_action."""
    mod = getattr(rummy_env, rummy_env.ENVS[profile])
    assert inspect.signature(mod.env).parameters["illegal_action"].default == "terminate"
    assert mod.raw_env().illegal_action == "raise"
    assert rummy_env.make(profile, wrapped=False).illegal_action == "raise"
    assert "terminate" in (mod.env.__doc__ or "") and "illegal_action" in (mod.__doc__ or "")
    strict = mod.env(illegal_action="raise")
    strict.reset(seed=0)
    bad = int(np.flatnonzero(strict.unwrapped.action_mask(strict.agent_selection) == 0)[0])
    with pytest.raises(IllegalActionError, match="legal actions"):
        strict.step(bad)


# ------------------------------------------------------------------------------------------------------------
# 12.2 turn-based: not parallelizable
# ------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", sorted(rummy_env.ENVS))
def test_not_parallelizable(profile) -> None:
    env = rummy_env.make(profile)
    assert env.metadata["is_parallelizable"] is False
    with pytest.raises(AssertionError, match="is_parallelizable"):
        aec_to_parallel(rummy_env.make(profile))
    par = turn_based_aec_to_parallel(rummy_env.make(profile))
    obs, infos = par.reset(seed=0)
    assert set(obs) == set(env.possible_agents)


# ------------------------------------------------------------------------------------------------------------
# 12.3 a run seeded once is reproducible
# ------------------------------------------------------------------------------------------------------------


def _games_after_one_seed(make: Any, seed: int, resets: int) -> list[dict[str, Any]]:
    env = make()
    env.reset(seed=seed)
    games = [env.unwrapped.game_state()]
    for _ in range(resets):
        env.reset()
        games.append(env.unwrapped.game_state())
    return games


@pytest.mark.parametrize("case", CASES)
def test_unseeded_resets_continue_the_seeded_stream(case) -> None:
    a = _games_after_one_seed(lambda: make_env(case), 21, 3)
    b = _games_after_one_seed(lambda: make_env(case), 21, 3)
    assert a == b
    hands = [json["hands"] for json in a]
    assert all(hands[i] != hands[j] for i in range(4) for j in range(i))  # new games, not replays
    # the seeded reset still deals exactly the engine's game of that seed (same seed, same game)
    name, cfg = case
    cfg = dict(cfg)
    n = cfg.pop("num_players", None)
    ref = new_state(name, seed=21, **({"num_players": n} if n else {}), **cfg)
    assert a[0]["hands"] == ref.to_json()["hands"]
    # through the parallel conversion too
    pa, pb = turn_based_aec_to_parallel(make_env(case)), turn_based_aec_to_parallel(make_env(case))
    pa.reset(seed=4)
    pb.reset(seed=4)
    oa, _ = pa.reset()
    ob, _ = pb.reset()
    assert all(np.array_equal(oa[k]["observation"], ob[k]["observation"]) for k in oa)


@pytest.mark.parametrize("profile,config", [("contract", {"rounds": (1,)}), ("continental", {"deals": 1})])
def test_single_agent_env_seeded_once_is_reproducible(profile, config) -> None:
    def run() -> list[np.ndarray]:
        env = SingleAgentEnv(profile, learner_seat="random", opponents="random", **config)
        out = [env.reset(seed=8)[0]]
        out += [env.reset()[0] for _ in range(3)]
        return out

    a, b = run(), run()
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[1], a[2])


# ------------------------------------------------------------------------------------------------------------
# 12.4 registries
# ------------------------------------------------------------------------------------------------------------


def test_pettingzoo_registry() -> None:
    if not hasattr(pettingzoo, "register"):  # an older PettingZoo without a registry: registration is a no-op
        assert not any(i in rummy_env.REGISTERED for i in rummy_env.PETTINGZOO_IDS)
        return
    assert set(rummy_env.PETTINGZOO_IDS) <= set(rummy_env.REGISTERED)
    for env_id, module in rummy_env.PETTINGZOO_IDS.items():
        env = pettingzoo.make("aec", env_id)
        assert type(env.unwrapped) is getattr(rummy_env, module).raw_env
        assert env.unwrapped.illegal_action == "terminate"  # env(), the classic convention
    env = pettingzoo.make("aec", "rummy_env/continental-v0", num_players=5, deals=1)
    assert len(env.possible_agents) == 5
    # max_cycles (PettingZoo's truncation argument): N cycles = N x num_players decisions
    env = pettingzoo.make("aec", "rummy_env/contract_gamerules-v0", max_cycles=3, num_players=3)
    steps = sum(1 for _ in _random_play(env, 0)) - 1
    live = steps - len(env.possible_agents)
    assert live == 9 and all(env.unwrapped.truncations.values()) and env.agents == []
    with pytest.raises(ValueError, match="max_cycles"):
        rummy_env.make("contract", max_cycles=0)
    with pytest.raises(ValueError, match="give one"):
        rummy_env.make("contract", max_cycles=2, max_steps=5)


@pytest.mark.parametrize(
    "env_id,config",
    [
        ("rummy_env/Contract-v0", {"rounds": (1,)}),
        ("rummy_env/ContractGamerules-v0", {"num_players": 3, "rounds": (1,)}),
        ("rummy_env/Continental-v0", {"num_players": 5, "deals": 1, "opponents": "heuristic"}),
    ],
)
def test_gymnasium_registry(env_id, config) -> None:
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(env_id, **config)
    assert isinstance(env.unwrapped, SingleAgentEnv) and env.unwrapped.profile == rummy_env.GYMNASIUM_IDS[env_id]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped, skip_render_check=True)
    assert not [str(w.message) for w in caught if "infinity" in str(w.message)]


# ------------------------------------------------------------------------------------------------------------
# 12.5 one info schema
# ------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES)
def test_every_step_has_the_same_info_keys(case) -> None:
    env = _quick(case)
    seen_over = 0
    for _ in _random_play(env, 5):
        for agent, info in env.unwrapped.infos.items():
            assert tuple(info) == INFO_KEYS, (agent, info)
            assert all(isinstance(v, (bool, int, np.integer, np.bool_)) for v in info.values()), info
        seen_over += any(i["round_over"] for i in env.unwrapped.infos.values())
    res = env.unwrapped.results()
    assert seen_over >= 1 and res["session_over"] and len(res["round_results"]) == 1
    assert {"round", "winner", "reason"} <= set(res["round_results"][0]) and res["winners"]
    assert res["scores"] == env.unwrapped._state.scores


@pytest.mark.parametrize("profile,config", [("contract", {"rounds": (1,)}), ("continental", {"num_players": 5})])
def test_single_agent_env_info_schema(profile, config) -> None:
    env = SingleAgentEnv(profile, learner_seat="random", opponents="heuristic", **config)
    rng = np.random.default_rng(0)
    for seed in range(3):
        _, info = env.reset(seed=seed)
        infos = [info]
        done = False
        while not done:
            a = int(rng.choice(np.flatnonzero(env.action_masks())))
            _, _, term, trunc, info = env.step(a)
            infos.append(info)
            done = term or trunc
        for i in infos:
            assert tuple(i) == SINGLE_INFO_KEYS
            assert all(np.ndim(v) == 0 for k, v in i.items() if k != "action_mask")
        assert infos[-1]["session_over"] and any(i["round_over"] for i in infos)


# ------------------------------------------------------------------------------------------------------------
# 12.6 SingleAgentEnv.reset() returns a decision of the learner
# ------------------------------------------------------------------------------------------------------------


def test_reset_deals_again_when_the_bots_end_the_session() -> None:
    """Continental, one deal, 5 players, heuristic opponents, learner seat 0: seed 124 has a bot go out before
    the learner's first decision; the reset deals again and returns a decision."""
    env = SingleAgentEnv("continental", learner_seat=0, opponents="heuristic", num_players=5, deals=1)
    redealt = 0
    for seed in range(100, 200):
        _, info = env.reset(seed=seed)
        assert info["action_mask"].any() and env.aec.agent_selection == env.learner
        redealt += info["redeals"]
        if seed == 124:
            assert info["redeals"] == 1
    assert redealt >= 1


def test_reset_carries_the_skipped_deals_reward() -> None:
    """With two deals the session goes on after the bot's declaration: the learner's payment of that deal is
    part of the episode return (reported as ``carried_reward``)."""
    env = SingleAgentEnv("continental", learner_seat=0, opponents="heuristic", num_players=5, deals=2)
    _, info = env.reset(seed=124)
    assert info["redeals"] == 0 and info["round"] == 2 and info["round_over"]
    first = env.aec.results()["round_results"][0]
    assert info["carried_reward"] == pytest.approx(first["payments"][0] / 100) and first["payments"][0] < 0
    total, carried, done = 0.0, [], False
    while not done:
        _, r, term, trunc, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        total += r
        carried.append(info["carried_reward"])
        done = term or trunc
    pays = sum(r["payments"][0] for r in env.aec.results()["round_results"]) / 100
    assert total == pytest.approx(pays)
    assert carried[0] == pytest.approx(first["payments"][0] / 100) and not any(carried[1:])


# ------------------------------------------------------------------------------------------------------------
# 12.7 bounded observation Box
# ------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES)
def test_observation_box_is_bounded_and_holds_every_observation(case) -> None:
    env = _quick(case)
    box = env.observation_space(env.possible_agents[0])["observation"]
    assert np.isfinite(box.high).all() and (box.low == 0).all() and (box.high > 0).all()
    checked = 0
    for seed in (1, 2):
        for _ in _random_play(env, seed):
            for agent in env.possible_agents:
                obs = env.unwrapped.observe(agent)["observation"]
                bad = np.flatnonzero((obs < box.low) | (obs > box.high))
                assert not bad.size, (agent, bad, obs[bad], box.high[bad])
                checked += 1
    assert checked > 200
    assert SingleAgentEnv(case[0], **case[1], **QUICK[case[0]]).observation_space == box


# ------------------------------------------------------------------------------------------------------------
# 12.8 state() / state_space
# ------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES)
def test_state_for_centralised_critics(case) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        state_test(_quick(case), turn_based_aec_to_parallel(_quick(case)), num_cycles=30)
    assert not [str(w.message) for w in caught if "State" in str(w.message)]
    env = _quick(case)
    u = env.unwrapped
    n = len(env.possible_agents)
    for i, _ in enumerate(_random_play(env, 9)):
        if i % 7:
            continue
        s = env.state()
        assert env.state_space.contains(s)
        st = u._state
        hands = s[: n * NUM_KINDS].reshape(n, NUM_KINDS)
        assert np.array_equal(hands, np.asarray(st.hands, dtype=np.float32))  # hidden: every hand
        stock = s[n * NUM_KINDS : (n + 1) * NUM_KINDS]
        assert np.array_equal(stock, np.bincount(st.stock, minlength=NUM_KINDS))  # hidden: the stock, as counts
        to_move = s[(n + 1) * NUM_KINDS : (n + 1) * NUM_KINDS + n]
        assert to_move.tolist() == [float(p == st.current_player and not st.is_terminal()) for p in range(n)]
        assert np.array_equal(s[(n + 1) * NUM_KINDS + n :], u.observer.encode(st, 0))
    assert "hidden" in u.state.__doc__.lower()


# ------------------------------------------------------------------------------------------------------------
# 13.5 actions and misuse errors
# ------------------------------------------------------------------------------------------------------------

BAD_ACTIONS = [True, np.True_, 0.0, 1.0, np.float32(0), np.array([0, 1]), np.array(0.0), "0", [0]]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("mode", ["raise", "terminate"])
def test_only_integers_are_actions(case, mode) -> None:
    env = make_env(case, illegal_action=mode)
    env.reset(seed=2)
    legal = env.unwrapped._state.legal_actions()
    before = env.unwrapped.game_state()
    for bad in BAD_ACTIONS:
        with pytest.raises(IllegalActionError, match=type(bad).__name__):
            env.step(bad)
        assert env.unwrapped.game_state() == before and not any(env.terminations.values())
    with pytest.raises(IllegalActionError, match="float"):  # the engine's own entry point
        env.unwrapped._state.clone().apply(float(legal[0]))
    for good in (np.int64(legal[0]), np.array(legal[0], dtype=np.int32), legal[0]):
        env.reset(seed=2)
        env.step(good)
        assert env.unwrapped._state.history == [legal[0]]


def test_misuse_errors_say_what_to_do() -> None:
    raw = rummy_env.make("contract", wrapped=False)
    with pytest.raises(NotResetError, match="reset"):
        raw.step(0)
    with pytest.raises(NotResetError, match="reset"):
        raw.last()
    raw.reset(seed=0)
    for call in (raw.observe, raw.action_mask, raw.observation_pieces):
        with pytest.raises(EnvArgumentError, match="player_0"):
            call("player_9")
    with pytest.raises(EnvArgumentError, match="scenario"):
        raw.reset(options="x")
    with pytest.raises(EnvArgumentError, match="JSON state"):
        raw.reset(options={"scenario": "x"})
    with pytest.warns(UserWarning, match="scenario"):
        raw.reset(seed=0, options={"no_such_key": 1})


def test_action_checks_survive_python_O() -> None:
    """Under ``python -O`` (asserts stripped) the wrapped env still refuses a float and an out-of-range id."""
    import subprocess
    import sys

    code = (
        "import numpy as np, rummy_env\n"
        "from rummy_env.engine import IllegalActionError\n"
        "assert False, 'asserts are on'\n"
    )
    check = (
        "import numpy as np, rummy_env\n"
        "from rummy_env.engine import IllegalActionError\n"
        "env = rummy_env.make('contract', illegal_action='raise'); env.reset(seed=0)\n"
        "for bad in (np.float32(0), 0.0, True, 10**6):\n"
        "    try:\n"
        "        env.step(bad)\n"
        "    except IllegalActionError as e:\n"
        "        print(type(bad).__name__, 'refused')\n"
        "print(env.unwrapped._state.history)\n"
    )
    off = subprocess.run([sys.executable, "-O", "-c", code], capture_output=True, text=True, check=False)
    assert off.returncode == 0, off.stderr  # -O really strips asserts
    out = subprocess.run([sys.executable, "-O", "-c", check], capture_output=True, text=True, check=True).stdout
    assert out.split("\n") == ["float32 refused", "float refused", "bool refused", "int refused", "[]", ""]
