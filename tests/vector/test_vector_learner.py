"""``LearnerVectorEnv`` and its adapters: every table plays exactly ``SingleAgentEnv``'s game for the same seed
(observations, masks, rewards, ends, infos, the final observation), Gymnasium's ``make_vec`` gives the batched
env with the mask in the observation and in ``infos`` and a valid mask after each autoreset, and SB3's
``MaskablePPO`` trains on the ``VecEnv`` adapter without an illegal action."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import rummy_env  # noqa: F401 - registers the Gymnasium ids
from rummy_env.engine import IllegalActionError
from rummy_env.envs.wrappers import SingleAgentEnv
from rummy_env.vector.env import VectorConfigError
from rummy_env.vector.gym_vector import AUTORESET_MODE, GymVectorEnv
from rummy_env.vector.learner import LearnerVectorEnv

SHORT = {"contract": {"rounds": (1,)}, "contract_gamerules": {"rounds": (1,)}, "continental": {"rounds": 1}}


def _same_info(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize(
    "profile, opponents, seat",
    [("contract", ["random"], "random"), ("contract_gamerules", ["heuristic", "random", "heuristic"], 2),
     ("continental", ["heuristic"], "random")],
)  # fmt: skip
def test_every_table_plays_the_single_agent_game(profile: str, opponents: list, seat) -> None:
    tables, steps = 3, 400
    vec = LearnerVectorEnv(profile, tables, learner_seat=seat, opponents=opponents, **SHORT[profile])
    singles = [SingleAgentEnv(profile, learner_seat=seat, opponents=opponents, **SHORT[profile]) for _ in range(tables)]
    obs, mask = vec.reset(seed=7)
    for i, env in enumerate(singles):
        o, info = env.reset(seed=7 + i)
        assert np.array_equal(obs[i], o) and np.array_equal(mask[i], env.action_masks())
        assert _same_info(vec.info(i), info)
    rngs = [np.random.default_rng(i) for i in range(tables)]
    ended = 0
    for _ in range(steps):
        actions = np.array([rng.choice(np.flatnonzero(mask[i])) for i, rng in enumerate(rngs)])
        obs, mask, reward, done = vec.step(actions)
        for i, env in enumerate(singles):
            o, r, terminated, truncated, info = env.step(int(actions[i]))
            assert reward[i] == pytest.approx(r, abs=1e-6) and done[i] == terminated and not truncated
            if terminated:
                ended += 1
                assert np.array_equal(vec.final_obs[i], o) and _same_info(vec.final_info[i], info)
                o, info = env.reset()
            assert np.array_equal(obs[i], o) and np.array_equal(mask[i], env.action_masks())
            assert int(vec.learner_seats[i]) == env.learner_seat and _same_info(vec.info(i), info)
    assert ended >= 1


def test_bad_arguments_and_illegal_actions_are_refused_before_any_table_moves() -> None:
    with pytest.raises(VectorConfigError, match="learner_seat=4"):
        LearnerVectorEnv("contract", 2, learner_seat=4)
    with pytest.raises(VectorConfigError, match="give 1 or 3 opponents, got 2"):
        LearnerVectorEnv("contract", 2, opponents=["random", "random"])
    vec = LearnerVectorEnv("contract", 2, rounds=(1,))
    with pytest.raises(rummy_env.envs.base.NotResetError):
        vec.step(np.zeros(2, dtype=np.int64))
    obs, mask = vec.reset(seed=0)
    before = [vec.game_state(i) for i in range(2)]
    legal = int(np.flatnonzero(mask[0])[0])
    illegal = int(np.flatnonzero(~mask[1])[0])
    with pytest.raises(IllegalActionError, match="table 1 .*no table was stepped"):
        vec.step(np.array([legal, illegal]))
    assert [vec.game_state(i) for i in range(2)] == before
    with pytest.raises(IllegalActionError, match="shape"):
        vec.step(np.array([legal]))


def test_make_vec_gives_the_batched_env_with_masks_everywhere() -> None:
    envs = gymnasium.make_vec("rummy_env/Contract-v0", num_envs=4, opponents=["random"], rounds=(1,))
    assert isinstance(envs, GymVectorEnv) and envs.metadata["autoreset_mode"] == AUTORESET_MODE
    obs, infos = envs.reset(seed=3)
    assert envs.observation_space.contains(obs)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(600):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in infos["action_mask"]])
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        assert (obs["action_mask"] == infos["action_mask"]).all()
        assert infos["action_mask"].sum(axis=1).min() > 0  # same-step autoreset: never an all-zero mask
        assert not truncated.any() and rewards.dtype == np.float32
        if terminated.any():
            ends += int(terminated.sum())
            assert (infos["_final_obs"] == terminated).all()
            for i in np.flatnonzero(terminated):
                assert infos["final_obs"][i]["observation"].shape == (envs.learner.obs_size,)
                assert infos["final_info"]["session_over"][i]
    assert ends >= 1
    # the same tables as one SingleAgentEnv per seed; a list of seeds gives each table its own
    flat = GymVectorEnv("contract", num_envs=2, flat_observation=True, rounds=(1,))
    obs, infos = flat.reset(seed=[5, 9])
    for i, s in enumerate((5, 9)):
        assert np.array_equal(obs[i], SingleAgentEnv("contract", rounds=(1,)).reset(seed=s)[0])
    sync = gymnasium.make_vec("rummy_env/Contract-v0", num_envs=2, vectorization_mode="sync", rounds=(1,))
    assert isinstance(sync, gymnasium.vector.SyncVectorEnv)


def test_maskable_ppo_trains_on_the_sb3_adapter_without_an_illegal_action() -> None:
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import VecMonitor

    from rummy_env.integrations.sb3 import SB3VecEnv

    torch.set_num_threads(1)
    raw = SB3VecEnv("contract", num_envs=4, opponents=["random"], learner_seat="random", rounds=(1,))
    venv = VecMonitor(raw)
    assert is_masking_supported(venv)
    venv.seed(11)
    obs = venv.reset()
    assert np.array_equal(obs[2], SingleAgentEnv("contract", learner_seat="random", rounds=(1,)).reset(seed=13)[0])
    assert np.array_equal(get_action_masks(venv), raw.learner.mask)
    # an illegal action would raise IllegalActionError inside step: training to the end means none was sent
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=128, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [32]})  # fmt: skip
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512
    obs, rewards, dones, infos = raw.step(np.array([np.flatnonzero(m)[0] for m in raw.action_masks()]))
    assert obs.shape == (4, raw.learner.obs_size) and len(infos) == 4
    for i in np.flatnonzero(dones):
        assert infos[i]["terminal_observation"].shape == obs[i].shape and infos[i]["session_over"]


def test_learner_bench_measures_both_sides_in_one_run() -> None:
    pytest.importorskip("stable_baselines3")
    from rummy_env.vector import learner_bench

    lines: list[str] = []
    rows = learner_bench.run("contract", [2], ["random"], 0.2, show=lines.append)
    (row,) = rows
    assert row["adapter_per_s"] > 0 and row["subproc_per_s"] > 0
    assert row["ratio"] == pytest.approx(row["adapter_per_s"] / row["subproc_per_s"], rel=0.01)
    assert len(lines) == 1 and '"tables": 2' in lines[0]
    assert "SubprocVecEnv/s" in learner_bench.table(rows)
