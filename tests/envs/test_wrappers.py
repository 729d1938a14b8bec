"""``SingleAgentEnv``: Gymnasium's and SB3's env checkers, the learning seat's own rewards, seeding, bot opponents."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from rummy_env import bots
from rummy_env.envs.wrappers import SingleAgentEnv

CASES = [
    ("contract", {"rounds": (1,)}),
    ("contract_gamerules", {"num_players": 3, "rounds": (1,)}),
    ("contract_gamerules", {"num_players": 5, "rounds": (1,)}),
    ("continental", {"num_players": 4, "deals": 1}),
    ("continental", {"num_players": 5, "deals": 1}),
]
IDS = [f"{p}-{c.get('num_players', 4)}" for p, c in CASES]


@pytest.mark.parametrize("profile, config", CASES, ids=IDS)
def test_gymnasium_check_env(profile, config) -> None:
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the Box is unbounded above (counts), which the checker mentions
        check_env(
            SingleAgentEnv(profile, learner_seat="random", opponents=["random"], **config), skip_render_check=True
        )


@pytest.mark.parametrize("profile, config", CASES, ids=IDS)
def test_sb3_check_env(profile, config) -> None:
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(SingleAgentEnv(profile, learner_seat=1, opponents="random", **config))


def _episode(env: SingleAgentEnv, seed: int, pick: str = "first") -> tuple[list[int], float, dict]:
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions, total = [], 0.0
    while True:
        mask = env.action_masks()
        assert mask.dtype == bool and mask.any() and (mask == info["action_mask"].astype(bool)).all()
        assert env.aec.agent_selection == env.learner
        legal = np.flatnonzero(mask)
        a = int(legal[0] if pick == "first" else rng.choice(legal))
        actions.append(a)
        obs, r, term, trunc, info = env.step(a)
        assert env.observation_space.contains(obs)
        total += r
        if term or trunc:
            return actions, total, info


@pytest.mark.parametrize("profile, config", CASES[:3], ids=IDS[:3])
def test_reward_is_the_learning_seats_own(profile, config) -> None:
    env = SingleAgentEnv(profile, learner_seat="random", opponents=["random"], **config)
    seats = set()
    for seed in range(6):
        _, total, info = _episode(env, seed, pick="random")
        seat = env.aec.agent_name_mapping[env.learner]
        seats.add(seat)
        pens = [r["penalties"] for r in env.aec.results()["round_results"]]
        own = -sum(p[seat] for p in pens) / 100
        assert total == pytest.approx(own)
        others = [-sum(p[s] for p in pens) / 100 for s in range(env.n) if s != seat]
        assert any(o != own for o in others) or own == 0
    assert len(seats) > 1  # learner_seat="random" moves the seat


def test_same_seed_same_episode_and_bot_objects() -> None:
    env = SingleAgentEnv(
        "contract", learner_seat="random", opponents=[bots.load("heuristic"), "random", "random"], rounds=(1,)
    )
    a1, r1, _ = _episode(env, 11)
    a2, r2, _ = _episode(env, 11)
    assert a1 == a2 and r1 == r2
    a3, _, _ = _episode(env, 12)
    assert a3 != a1


def test_illegal_action_ends_the_episode_or_raises() -> None:
    env = SingleAgentEnv("contract", rounds=(1,))
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, r, term, trunc, info = env.step(illegal)
    assert (r, term, trunc, info["illegal_action"]) == (-1.0, True, False, True)
    strict = SingleAgentEnv("contract", illegal_action="raise", rounds=(1,))
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="illegal action"):
        strict.step(illegal)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="give 1 or 3 opponents"):
        SingleAgentEnv("contract", opponents=["random", "random"])
    with pytest.raises(ValueError, match="learner_seat=7"):
        SingleAgentEnv("contract", learner_seat=7)


def test_checkpoint_opponent(tmp_path) -> None:
    pytest.importorskip("torch")
    from rummy_env.bots.checkpoint_bot import CheckpointBot
    from rummy_env.models.checkpoints import save_checkpoint
    from rummy_env.models.policy import architecture, build_policy

    net = build_policy(architecture(1790, 3089, trunk=[16]), seed=0)
    save_checkpoint(tmp_path / "p", net, {"profile": "contract", "num_players": 4})
    env = SingleAgentEnv("contract", opponents=[CheckpointBot(tmp_path / "p")], rounds=(1,))
    _, _, info = _episode(env, 3)
    assert info["session_over"] and env.aec.results()["round_results"]
