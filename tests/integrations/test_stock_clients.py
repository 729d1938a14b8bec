"""Stock Stable-Baselines3 clients on the plain envs, unmodified apart from the env line (README "Frameworks"):

* PettingZoo's SB3 action-mask tutorial (``tutorials/SB3/connect_four``): its ``SB3ActionMaskWrapper`` pattern
  (a ``pettingzoo.utils.BaseWrapper`` that is also a ``gymnasium.Env``, the observation without the mask, the mask
  through ``ActionMasker``), one MaskablePPO shared by every seat (self-play), then the tutorial's evaluation loop
  against a masked random seat. The wrapper below is written for this test after that pattern.
* sb3-contrib's MaskablePPO example (``gym.make`` + ``MaskablePPO("MlpPolicy", env)`` + ``evaluate_policy`` +
  ``save`` / ``load`` + ``get_action_masks`` / ``predict``) on the registered Gymnasium id.

Budgets are tiny (a few hundred decisions): these check that the clients run and what they produce, not learning.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("torch")

import gymnasium as gym  # noqa: E402
import pettingzoo.utils  # noqa: E402
import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.evaluation import evaluate_policy  # noqa: E402
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks  # noqa: E402
from sb3_contrib.common.wrappers import ActionMasker  # noqa: E402

import rummy_env  # noqa: E402

PROFILES = [("contract", {"rounds": (1,)}), ("contract_gamerules", {"rounds": (1,)}), ("continental", {"deals": 1})]
SMALL = {"n_steps": 128, "batch_size": 64, "n_epochs": 1, "policy_kwargs": {"net_arch": [32]}, "device": "cpu"}


class TutorialMaskWrapper(pettingzoo.utils.BaseWrapper, gym.Env):
    """The PettingZoo SB3 tutorial's wrapper pattern: the AEC env as a Gymnasium env whose step is the decision of
    whoever is to move; reward / termination / info are those of the agent that just acted."""

    def reset(self, seed=None, options=None):
        super().reset(seed, options)
        self.observation_space = super().observation_space(self.possible_agents[0])["observation"]
        self.action_space = super().action_space(self.possible_agents[0])
        return self.observe(self.agent_selection), {}

    def step(self, action):
        acting = self.agent_selection
        super().step(action)
        return (
            self.observe(self.agent_selection),
            self._cumulative_rewards[acting],
            self.terminations[acting],
            self.truncations[acting],
            self.infos[acting],
        )

    def observe(self, agent):
        return super().observe(agent)["observation"]

    def action_mask(self):
        return super().observe(self.agent_selection)["action_mask"]


def _tutorial_train(env_module, cfg: dict, steps: int, seed: int = 0) -> tuple[MaskablePPO, TutorialMaskWrapper]:
    """The tutorial's ``train_action_mask`` with a small network and budget. The tutorial seeds the model after
    building it (``set_random_seed``), so its initial weights are unseeded; ``seed=`` here makes them seeded too."""
    env = TutorialMaskWrapper(env_module.env(**cfg))
    env.reset(seed=seed)  # the tutorial resets once so that the spaces exist
    masked = ActionMasker(env, lambda e: e.action_mask())
    model = MaskablePPO(MaskableActorCriticPolicy, masked, verbose=0, seed=seed, **SMALL)
    model.set_random_seed(seed)
    model.learn(total_timesteps=steps)
    return model, env


def _tutorial_eval(env_module, cfg: dict, model: MaskablePPO, games: int) -> list[dict]:
    """The tutorial's ``eval_action_mask`` loop: seat 0 random (masked sample), the others the model (``cfg`` may
    cap the game with ``max_cycles``: an untrained deterministic policy can play a long game)."""
    env = env_module.env(**cfg)
    ends = []
    for i in range(games):
        env.reset(seed=i)
        env.action_space(env.possible_agents[0]).seed(i)
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            observation, action_mask = obs.values()
            if termination or truncation:
                ends.append(
                    {"info": dict(info), "truncated": truncation, "results": env.unwrapped.results()}
                )
                break
            if agent == env.possible_agents[0]:
                act = env.action_space(agent).sample(action_mask)
            else:
                act = int(model.predict(observation, action_masks=action_mask, deterministic=True)[0])
            env.step(act)
    return ends


@pytest.mark.parametrize("profile,cfg", PROFILES)
def test_pettingzoo_sb3_tutorial_trains_and_evaluates(profile: str, cfg: dict) -> None:
    env_module = getattr(rummy_env, rummy_env.ENVS[profile])
    model, _ = _tutorial_train(env_module, cfg, steps=256)
    assert model.num_timesteps >= 256
    # the tutorial's own evaluation: the game ends (naturally, or at the cap), no seat's action was refused
    ends = _tutorial_eval(env_module, {**cfg, "max_cycles": 60}, model, games=1)
    assert len(ends) == 1
    for end in ends:
        assert not end["info"]["illegal_move"]
        assert end["info"]["session_over"] == end["results"]["session_over"] == (not end["truncated"])


def test_pettingzoo_sb3_tutorial_is_reproducible_across_episodes() -> None:
    """Seeded once (``env.reset(seed)``, the model's seed), the tutorial's run is the same run twice over several
    games: SB3's automatic resets carry no seed, and they continue the seeded stream."""
    cfg = {"deals": 1}
    runs = []
    for _ in range(2):
        model, env = _tutorial_train(rummy_env.continental_v0, cfg, steps=1792)
        assert len(model.ep_info_buffer) >= 2  # finished games (SB3's Monitor): automatic resets happened
        runs.append((model.policy.state_dict(), env.unwrapped.game_state()))
    assert runs[0][1] == runs[1][1]  # the same game in progress at the end
    assert runs[0][0].keys() == runs[1][0].keys()
    assert all(torch.equal(runs[0][0][k], runs[1][0][k]) for k in runs[0][0])


def test_sb3_contrib_maskable_ppo_example_on_the_gymnasium_id(tmp_path) -> None:
    """sb3-contrib's MaskablePPO example with ``gym.make("rummy_env/Continental-v0", ...)`` as the env line."""
    env = gym.make("rummy_env/Continental-v0", deals=1, opponents=["random"])
    model = MaskablePPO("MlpPolicy", env, gamma=0.4, seed=32, verbose=0, **SMALL)
    model.learn(256)
    mean, _ = evaluate_policy(model, env, n_eval_episodes=2, warn=False)
    assert np.isfinite(mean)
    model.save(tmp_path / "ppo_mask")
    del model
    model = MaskablePPO.load(tmp_path / "ppo_mask")
    obs, info = env.reset(seed=0)
    steps = 0
    while True:
        action_masks = get_action_masks(env)
        action, _ = model.predict(obs, action_masks=action_masks)
        assert action_masks[int(action)]
        obs, reward, terminated, truncated, info = env.step(action)
        steps += 1
        if terminated or truncated:
            break
    assert terminated and info["session_over"] and not info["illegal_action"] and steps > 1


def test_tutorial_wrapper_credits_only_the_seat_that_acted() -> None:
    """The limit the README names for the tutorial's self-play wrapper: its step returns the reward of the seat that
    just acted, so at the end of a round only that seat's result reaches a transition; the other seats' penalties
    (which PettingZoo's ``rewards`` does hold on that step) are in none of their transitions."""
    env = TutorialMaskWrapper(rummy_env.contract_v0.env(rounds=(1,)))
    rng = np.random.default_rng(0)
    lost = 0
    for seed in range(3):
        env.reset(seed=seed)
        returned: dict[str, float] = {}
        while True:
            acting = env.agent_selection
            _, reward, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
            returned[acting] = returned.get(acting, 0.0) + reward
            if terminated or truncated:
                break
        penalties = env.unwrapped.results()["round_results"][-1]["penalties"]
        final = {a: -penalties[i] / 100 for i, a in enumerate(env.possible_agents)}
        assert returned[acting] == pytest.approx(final[acting])
        for agent in env.possible_agents:
            if agent != acting:
                assert returned.get(agent, 0.0) == 0.0
                lost += final[agent] != 0
    assert lost > 0
