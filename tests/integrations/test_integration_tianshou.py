"""Tianshou integration (marker ``integration``; skipped without ``tianshou``): Tianshou's stock ``PettingZooEnv``,
``Collector`` and off-policy trainer over the plain ``env()`` of every profile (its multi-agent recipe: a DQN seat
and masked random seats), the learning seat through Tianshou's ``PettingZooEnv`` gets its own rewards and legal
masks, the DQN never picks a masked action (greedy or exploring), and a tiny DQN run exports a checkpoint that
loads, plays the DQN's greedy actions and plays a tournament."""

from __future__ import annotations

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
from training_scripts import load_training_module  # noqa: E402

import rummy_env  # noqa: E402
from rummy_env.integrations.tianshou import (  # noqa: E402
    LEARNER,
    MaskedQNet,
    make_pettingzoo_env,
    qnet_architecture,
)
from rummy_env.models.checkpoints import load_checkpoint  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TRAINING = ROOT / "training"
PROFILES = [("contract", {"rounds": (1,)}), ("contract_gamerules", {"rounds": (1,)}), ("continental", {"deals": 1})]


_load = load_training_module


# ---- stock classes on the plain env ----------------------------------------------------------------------------


@pytest.mark.parametrize("profile,cfg", PROFILES)
def test_stock_pettingzoo_env_collector_and_trainer_on_the_plain_env(profile: str, cfg: dict) -> None:
    """Tianshou's own multi-agent recipe, unmodified, on ``<profile>_v0.env()``: ``PettingZooEnv``, one DQN seat
    (Tianshou's ``Net``) and masked random seats under ``MultiAgentOffPolicyAlgorithm``, a ``Collector`` with a
    ``VectorReplayBuffer`` over a ``DummyVectorEnv`` and the off-policy trainer. Every step's info has the same keys,
    so the buffer holds no padding (Tianshou pads an info key a step lacks with None, and its trainer then refuses
    the buffer with ``MalformedBufferError: Encountered NaNs in buffer``)."""
    from tianshou.algorithm.modelfree.dqn import DQN
    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv
    from tianshou.trainer import OffPolicyTrainerParams
    from tianshou.utils.net.common import Net

    env_module = getattr(rummy_env, rummy_env.ENVS[profile])

    def make() -> PettingZooEnv:
        return PettingZooEnv(env_module.env(**cfg))

    torch.manual_seed(0)
    np.random.seed(0)  # Tianshou's random seats and exploration draw from numpy's global generator
    env = make()
    obs_space = env.observation_space["observation"]
    net = Net(state_shape=obs_space.shape, action_shape=env.action_space.n, hidden_sizes=[32])
    policy = DiscreteQLearningPolicy(
        model=net, action_space=env.action_space, observation_space=obs_space, eps_training=0.2
    )
    dqn = DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), gamma=0.9, target_update_freq=20)
    seats = [dqn] + [MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space) for _ in env.agents[1:]]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=seats, env=env)
    venv = DummyVectorEnv([make, make])
    venv.seed(0)
    buffer = VectorReplayBuffer(4000, len(venv))
    collector = Collector(algorithm, venv, buffer, exploration_noise=True, raise_on_nan_in_buffer=True)
    collector.reset()
    start = time.perf_counter()
    stats = algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=collector,
            max_epochs=1,
            epoch_num_steps=1,  # one training step: collect a game per env, then update
            collection_step_num_env_steps=None,
            collection_step_num_episodes=len(venv),
            batch_size=32,
            update_step_num_gradient_steps_per_sample=0.02,
            multi_agent_return_reduction=lambda r: r[:, 0],
            verbose=False,
            show_progress=False,
        )
    )
    print(f"tianshou stock {profile}: {len(buffer)} steps in {time.perf_counter() - start:.1f} s")
    assert stats.train_episode >= 2 and stats.update_step >= 1
    assert not buffer.hasnull()
    from rummy_env.envs.base import INFO_KEYS

    data = buffer[buffer.sample_indices(0)]  # every stored transition
    assert set(data.info.get_keys()) == {*INFO_KEYS, "env_id"}  # env_id: added by the Collector
    mask = np.asarray(data.obs.mask, dtype=bool)
    assert mask[np.arange(len(data)), data.act].all()  # every action taken was legal
    assert not data.info.illegal_move.any() and not data.truncated.any()
    # an episode ends exactly where the session is over (the env's info says so on its last step)
    assert (data.terminated == data.info.session_over).all() and data.terminated.sum() >= 2
    assert data.rew.shape == (len(data), len(env.agents)) and np.isfinite(data.rew).all()
    assert set(np.unique(data.obs.agent_id)) == set(env.agents)


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
        st = env.env.single.aec._state
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
    from rummy_env.evaluation.tournament import tournament

    res = tournament("contract", [f"checkpoint:{tmp_path / 'dqn_contract'}", "random"], sessions=4, rounds=(1,))
    assert res["sessions"] == 4 and len(res["standings"]) == 2
