"""Tianshou integration (marker ``integration``; skipped without ``tianshou``): the learning seat through Tianshou's
``PettingZooEnv`` gets its own rewards and legal masks, the DQN never picks a masked action (greedy or exploring),
and a tiny DQN run exports a checkpoint that loads, plays the DQN's greedy actions and plays a tournament."""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.integration

pytest.importorskip("tianshou")
pytest.importorskip("safetensors")
pytest.importorskip("yaml")

import torch  # noqa: E402
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy  # noqa: E402
from tianshou.data import Batch  # noqa: E402

from rummy_env.checkpoints import load_checkpoint  # noqa: E402
from rummy_env.integrations.tianshou import (  # noqa: E402
    LEARNER,
    MaskedQNet,
    make_pettingzoo_env,
    qnet_architecture,
)

ROOT = Path(__file__).resolve().parent.parent
TRAINING = ROOT / "training"
PROFILES = [("contract", {"rounds": (1,)}), ("contract_gamerules", {"rounds": (1,)}), ("continental", {"deals": 1})]


def _load(name: str):
    if str(TRAINING) not in sys.path:
        sys.path.insert(0, str(TRAINING))
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, TRAINING / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _play(env, rng: np.random.Generator, seed: int):
    """A game of the learning seat with random legal actions; (observations, learner's reward total, steps)."""
    obs, _ = env.reset(seed=seed)
    seen, total = [], 0.0
    while True:
        assert obs["agent_id"] == LEARNER
        mask = np.asarray(obs["mask"], dtype=bool)
        aec = env.env.single.aec
        assert (mask == aec.action_mask(env.env.single.learner).astype(bool)).all()
        seen.append((obs["obs"], mask))
        obs, rew, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        total += rew[0]
        if term or trunc:
            return seen, total


@pytest.mark.parametrize("profile,cfg", PROFILES)
def test_learner_seat_gets_its_own_rewards(profile: str, cfg: dict) -> None:
    env = make_pettingzoo_env(profile, ["random"], **cfg)
    rng = np.random.default_rng(0)
    for seed in range(2):
        _, total = _play(env, rng, seed)
        seat = env.env.learner_seat
        st = env.env.single.aec.state_
        key = "payments" if profile == "continental" else "penalties"
        sign = 1 if profile == "continental" else -1
        assert total == pytest.approx(sign * sum(r[key][seat] for r in st.round_results) / 100)


def _policy(profile: str, cfg: dict, hidden=(32,)):
    env = make_pettingzoo_env(profile, ["random"], **cfg)
    obs_space = env.observation_space["observation"]
    qnet = MaskedQNet(qnet_architecture(obs_space.shape[0], int(env.action_space.n), hidden), seed=0)
    return env, qnet, DiscreteQLearningPolicy(model=qnet, action_space=env.action_space, observation_space=obs_space)


@pytest.mark.parametrize("profile,cfg", PROFILES[::2])
def test_dqn_never_picks_a_masked_action(profile: str, cfg: dict) -> None:
    env, qnet, policy = _policy(profile, cfg)
    seen, _ = _play(env, np.random.default_rng(1), 3)
    obs = np.stack([o for o, _ in seen])
    mask = np.stack([m for _, m in seen])
    with torch.no_grad():  # make every illegal action the network's favourite
        qnet.net.policy_head.bias.copy_(torch.linspace(100.0, 200.0, qnet.net.policy_head.bias.numel()))
    batch = Batch(obs=Batch(obs=obs, mask=mask, agent_id=np.array([LEARNER] * len(obs), dtype=object)), info={})
    act = policy(batch).act
    assert mask[np.arange(len(act)), act].all()
    policy.set_eps_training(1.0)
    policy.set_eps_inference(1.0)  # every action random: still legal
    np.random.seed(0)  # Tianshou draws exploration from numpy's global generator
    noisy = policy.add_exploration_noise(act.copy(), batch)
    assert mask[np.arange(len(noisy)), noisy].all() and (noisy != act).any()


def test_tiny_dqn_run_exports_the_greedy_policy(tmp_path: Path) -> None:
    tianshou_dqn = _load("tianshou_dqn")
    argv = ["--profile", "contract", "--env-config", "{rounds: [1]}", "--opponents", "[random]", "--epochs", "1",
            "--epoch-steps", "400", "--collect-steps", "100", "--batch-size", "32", "--buffer-size", "1000",
            "--hidden", "[64]", "--n-envs", "2", "--final-eval-sessions", "0", "--progress-bar", "false",
            "--runs-dir", str(tmp_path), "--save-path", str(tmp_path / "dqn_contract")]  # fmt: skip
    start = time.perf_counter()
    out, parts = tianshou_dqn.run(tianshou_dqn.parse_config(tianshou_dqn.Config, argv))
    print(f"tianshou tiny run: {time.perf_counter() - start:.1f} s, {out['learner_steps']} decisions")
    assert out["learner_steps"] >= 400 and out["update_steps"] >= 1
    ckpt = load_checkpoint(tmp_path / "dqn_contract", expect_profile="contract", expect_num_players=4)
    assert ckpt.metadata["training_steps"] == out["learner_steps"]
    assert "Tianshou DQN" in ckpt.metadata["algorithm"]
    # the checkpoint's greedy action is the trained DQN's greedy action (and the trained net is not the initial one)
    assert not torch.equal(
        parts["qnet"].net.policy_head.weight, tianshou_dqn.build(parts["cfg"])["qnet"].net.policy_head.weight
    )
    env = make_pettingzoo_env("contract", ["random"], rounds=(1,))
    seen, _ = _play(env, np.random.default_rng(2), 11)
    obs = np.stack([o for o, _ in seen])
    mask = np.stack([m for _, m in seen])
    batch = Batch(obs=Batch(obs=obs, mask=mask, agent_id=np.array([LEARNER] * len(obs), dtype=object)), info={})
    parts["policy"].set_eps_inference(0.0)
    with torch.no_grad():
        dqn_act = parts["policy"](batch).act
        q, _ = parts["qnet"](obs)
        ckpt_logits = ckpt.model.masked_logits(torch.from_numpy(obs), torch.from_numpy(mask.astype(np.int8)))
    ours, _, values = ckpt.model.act(obs, mask.astype(np.int8), greedy=True)
    assert (ours == dqn_act).all()
    assert torch.allclose(ckpt_logits[torch.from_numpy(mask)], q[torch.from_numpy(mask)])
    assert (values == 0).all()
    from rummy_env.tournament import tournament

    res = tournament("contract", [f"checkpoint:{tmp_path / 'dqn_contract'}", "random"], sessions=4, rounds=(1,))
    assert res["sessions"] == 4 and len(res["standings"]) == 2
