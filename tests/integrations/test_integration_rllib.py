"""RLlib integration (marker ``integration``; skipped without ``ray[rllib]``): Ray's stock PettingZoo
parameter-sharing recipe with Ray's own ``ActionMaskingTorchRLModule`` trains every profile with one changed line
(``env_creator``) and exports, the limits the README names hold (the plain env's keys, RLlib's default module on a
``Dict`` observation), the PettingZooEnv adapter delivers every seat's rewards, the masked module never gives an illegal action probability, the export reproduces the
module's distribution and values exactly, a tiny self-play PPO run exports a checkpoint that loads and plays a
tournament, ``--address`` trains on a running Ray cluster, and the Ray match backend returns the local records.

Ray is kept on the loopback interface (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``) with usage stats off.
"""

from __future__ import annotations

import os

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # bind Ray to 127.0.0.1; read when ray is imported
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

pytestmark = pytest.mark.integration

ray = pytest.importorskip("ray")
pytest.importorskip("ray.rllib")
pytest.importorskip("safetensors")
pytest.importorskip("yaml")

import torch  # noqa: E402
from training_scripts import load_training_module  # noqa: E402

import rummy_env  # noqa: E402
from rummy_env.integrations import rllib as R  # noqa: E402
from rummy_env.integrations.ray_backend import play_session_task, run_matches_ray, session_tasks  # noqa: E402
from rummy_env.models.checkpoints import load_checkpoint, save_checkpoint  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TRAINING = ROOT / "training"
PROFILES = [("contract", {"rounds": [1]}), ("contract_gamerules", {"rounds": [1]}), ("continental", {"deals": 1})]


_load = load_training_module


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray for the module (2 CPUs, a small object store, loopback only)."""
    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, object_store_memory=300 * 1024**2, log_to_driver=False)
    yield ray
    ray.shutdown()


def _random_walk(env: R.RummyMultiAgentEnv, seed: int, rng: np.random.Generator):
    """Play one game with uniformly random legal actions; yields (obs dict, per-agent reward totals)."""
    obs, _ = env.reset(seed=seed)
    totals = {a: 0.0 for a in env.possible_agents}
    seen = []
    while True:
        assert len(obs) == 1
        ((agent, o),) = obs.items()
        seen.append(o)
        assert set(o) == {R.OBS_KEY, R.MASK_KEY} and o[R.MASK_KEY].dtype == np.float32
        assert env.observation_space[agent].contains(o)
        action = int(rng.choice(np.flatnonzero(o[R.MASK_KEY])))
        obs, rew, term, trunc, _ = env.step({agent: action})
        for a, r in rew.items():
            totals[a] += r
        if term["__all__"] or trunc["__all__"]:
            return seen, totals, obs


# ---- env adapter ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("profile,cfg", PROFILES)
def test_adapter_delivers_every_seats_rewards(profile: str, cfg: dict) -> None:
    env = R.RummyMultiAgentEnv({"profile": profile, **cfg})
    assert env.possible_agents == [f"player_{i}" for i in range(len(env.possible_agents))]
    rng = np.random.default_rng(0)
    for seed in range(2):
        _, totals, last = _random_walk(env, seed, rng)
        st = env.env.unwrapped._state
        assert set(last) == set(env.possible_agents)  # every seat sees the end
        if profile == "continental":
            want = [sum(r["payments"][i] for r in st.round_results) / 100 for i in range(st.n)]
        else:
            want = [-sum(r["penalties"][i] for r in st.round_results) / 100 for i in range(st.n)]
        assert [totals[a] for a in env.possible_agents] == pytest.approx(want)


# ---- Ray's stock recipe: the one changed line ------------------------------------------------------------------


def _stock_recipe(env_name: str):
    """Ray's ``examples/multi_agent/pettingzoo_parameter_sharing.py`` config with the RLModule of
    ``examples/rl_modules/action_masking_rl_module.py``, as written there (env pre-check on, default model), plus
    a tiny budget on one local EnvRunner."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    return (
        PPOConfig()
        .environment(env_name)
        .multi_agent(policies={"p0"}, policy_mapping_fn=(lambda aid, *args, **kwargs: "p0"))
        .training(model={"vf_share_layers": True}, vf_loss_coeff=0.005)
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(rl_module_specs={"p0": RLModuleSpec(module_class=ActionMaskingTorchRLModule)})
        )
        # the budget (not part of the recipe): a few hundred decisions per iteration on the local EnvRunner
        .env_runners(num_env_runners=0)
        .training(train_batch_size_per_learner=256, minibatch_size=128, num_epochs=1)
        .debugging(seed=0)
    )


@pytest.mark.parametrize("profile,cfg", PROFILES)
def test_rays_stock_masking_recipe_trains_every_profile(local_ray, tmp_path: Path, profile: str, cfg: dict) -> None:
    from ray.tune.registry import register_env

    name = f"rummy_stock_{profile}"
    register_env(name, R.env_creator(profile, **cfg))  # the one changed line of Ray's recipe
    start = time.perf_counter()
    algo = _stock_recipe(name).build_algo()
    try:
        for _ in range(2):
            result = algo.train()
        print(f"rllib stock recipe {profile}: {time.perf_counter() - start:.1f} s")
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 512
        losses = result["learners"]["p0"]
        assert np.isfinite(losses["policy_loss"]) and np.isfinite(losses["vf_loss"])
        # the trained module samples only legal actions (the env would end the game on an illegal one)
        episodes = algo.env_runner.sample(num_timesteps=200, random_actions=False)
        checked = 0
        for episode in episodes:
            for agent_episode in episode.agent_episodes.values():
                masks = agent_episode.get_observations()[R.MASK_KEY]
                actions = agent_episode.get_actions()
                assert (masks[np.arange(len(actions)), actions] == 1).all()
                checked += len(actions)
        assert checked >= 200
        # the stock module exports to a rummy_env checkpoint (profile and table read from the registered env)
        net = R.export_algorithm(algo, tmp_path / "stock", module_id="p0")
        ckpt = load_checkpoint(tmp_path / "stock", expect_profile=profile)
        env = R.RummyMultiAgentEnv({"profile": profile, **cfg})
        assert ckpt.metadata["num_players"] == len(env.possible_agents)
        assert ckpt.metadata["env_config"] == {k: list(v) if isinstance(v, tuple) else v for k, v in cfg.items()}
        obs, mask = _observations(env)
        probs = R.module_action_probs(R.learner_module(algo, "p0"), obs, mask)
        with torch.no_grad():
            ours = torch.softmax(net.masked_logits(torch.from_numpy(obs), torch.from_numpy(mask)), -1).numpy()
        assert np.allclose(ours, probs, atol=1e-6) and (probs[mask == 0] == 0).all()
    finally:
        algo.stop()


def test_env_creator_defaults_and_overrides() -> None:
    make = R.env_creator("continental", deals=1)
    env = make({})
    assert env.profile == "continental" and env.env_kwargs == {"deals": 1}
    assert len(make({"num_players": 5}).possible_agents) == 5  # RLlib's env_config overrides the defaults
    space = env.observation_spaces["player_0"]
    assert set(space.spaces) == {R.OBS_KEY, R.MASK_KEY} and space[R.MASK_KEY].dtype == np.float32
    with pytest.raises(ValueError, match="unknown profile"):
        R.env_creator("gin")


def test_readme_limits_plain_env_and_default_module() -> None:
    """What the Frameworks table says does not work: Ray's masking module on the plain env (its keys are
    ``observation`` / ``action_mask``; the module indexes ``observations`` when it is built), and RLlib's default
    PPO module on any ``Dict`` observation."""
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    plain = PettingZooEnv(rummy_env.continental_v0.env(deals=1))
    space, act = plain.observation_space["player_0"], plain.action_space["player_0"]
    assert set(space.spaces) == {"observation", "action_mask"}
    with pytest.raises(KeyError, match="observations"):
        RLModuleSpec(module_class=ActionMaskingTorchRLModule, observation_space=space, action_space=act).build()
    adapted = R.env_creator("continental", deals=1)({})
    with pytest.raises(ValueError, match="No default encoder config"):
        RLModuleSpec(
            module_class=DefaultPPOTorchRLModule,
            observation_space=adapted.observation_spaces["player_0"],
            action_space=act,
        ).build()


# ---- masked module and export --------------------------------------------------------------------------------


def _module(profile: str, cfg: dict, model_config: dict):
    env = R.RummyMultiAgentEnv({"profile": profile, **cfg})
    agent = env.possible_agents[0]
    spec = R.module_spec(model_config)
    spec.observation_space = env.observation_spaces[agent]
    spec.action_space = env.action_spaces[agent]
    torch.manual_seed(0)
    module = spec.build()
    # give the heads non-trivial weights so that equal distributions are not equal by accident
    with torch.no_grad():
        for p in module.parameters():
            p.add_(0.05 * torch.randn_like(p))
    module.eval()
    return env, module


def _observations(env: R.RummyMultiAgentEnv, n: int = 64):
    seen, _, _ = _random_walk(env, 7, np.random.default_rng(1))
    seen = seen[:n]
    return np.stack([o[R.OBS_KEY] for o in seen]), np.stack([o[R.MASK_KEY] for o in seen])


@pytest.mark.parametrize(
    "model_config",
    [
        {"fcnet_hiddens": [32, 16], "fcnet_activation": "tanh", "vf_share_layers": True},
        {"fcnet_hiddens": [24], "fcnet_activation": "relu", "vf_share_layers": False},
        {"fcnet_hiddens": [16], "fcnet_activation": "relu", "head_fcnet_hiddens": [8], "head_fcnet_activation": "relu"},
    ],
)
@pytest.mark.parametrize("profile,cfg", PROFILES[::2])
def test_export_reproduces_the_rllib_module(profile: str, cfg: dict, model_config: dict) -> None:
    env, module = _module(profile, cfg, model_config)
    obs, mask = _observations(env)
    probs = R.module_action_probs(module, obs, mask)
    assert (probs[mask == 0] == 0).all()  # illegal actions: probability exactly zero
    assert np.allclose(probs.sum(1), 1, atol=1e-5)
    net = R.rllib_to_policy(module)
    with torch.no_grad():
        ours = torch.softmax(net.masked_logits(torch.from_numpy(obs), torch.from_numpy(mask)), -1).numpy()
        values = net.value(torch.from_numpy(obs)).numpy()
        batch = {"obs": {R.OBS_KEY: torch.from_numpy(obs), R.MASK_KEY: torch.from_numpy(mask)}}
        theirs = module.compute_values(batch).numpy()
    assert np.allclose(ours, probs, atol=1e-6)
    assert np.allclose(values, theirs, atol=1e-5)


def test_export_refuses_mixed_activations() -> None:
    _, module = _module(
        "continental", {"deals": 1}, {"fcnet_hiddens": [16], "fcnet_activation": "tanh", "head_fcnet_hiddens": [8]}
    )
    with pytest.raises(ValueError, match="same activation"):
        R.rllib_to_policy(module)


# ---- tiny training runs -----------------------------------------------------------------------------------------


TINY = [
    "--iterations", "2", "--train-batch-size", "256", "--minibatch-size", "128", "--num-epochs", "1",
    "--hidden", "[64]", "--snapshot-every", "1", "--max-opponents", "1", "--final-eval-sessions", "0",
    "--progress", "false",
]  # fmt: skip


def test_tiny_self_play_run_exports_a_checkpoint_that_plays_a_tournament(local_ray, tmp_path: Path) -> None:
    rllib_ppo = _load("rllib_ppo")
    start = time.perf_counter()
    argv = ["--profile", "contract", "--env-config", "{rounds: [1]}", "--runs-dir", str(tmp_path), *TINY,
            "--save-path", str(tmp_path / "rllib_contract")]  # fmt: skip
    out = rllib_ppo.main(argv)
    print(f"rllib tiny run: {time.perf_counter() - start:.1f} s")
    assert out["env_steps"] >= 512
    # snapshot every iteration, one slot: main_v1 was added at iteration 1 and overwritten at iteration 2
    assert [h["league"] for h in out["history"]] == [["main_v1"], ["main_v1"]]
    ckpt = load_checkpoint(tmp_path / "rllib_contract", expect_profile="contract", expect_num_players=4)
    meta = ckpt.metadata
    assert meta["training_steps"] == out["env_steps"] and meta["env_config"] == {"rounds": [1]}
    assert "RLlib PPO" in meta["algorithm"]
    from rummy_env.evaluation.tournament import tournament

    res = tournament("contract", [f"checkpoint:{tmp_path / 'rllib_contract'}", "random"], sessions=4, rounds=(1,))
    assert res["sessions"] == 4 and len(res["standings"]) == 2


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def _frozen_on_runners(algo, module_id: str) -> list[dict]:
    """The inference weights of ``module_id`` on every EnvRunner that samples (the remote ones, or the local one)."""
    remote = algo.env_runner_group.num_remote_workers()
    states = algo.env_runner_group.foreach_env_runner(
        lambda er: er.module[module_id].get_state(inference_only=True),  # a lambda travels by value to the actors
        local_env_runner=not remote,
    )
    assert len(states) == max(1, remote)
    return states


@pytest.mark.parametrize("runners", [0, 1])
def test_self_play_callback_freezes_copies_of_main(local_ray, runners: int) -> None:
    """The snapshot equals main on the learner *and on the EnvRunners that sample with it* (RLlib's weight sync
    skips it: see SelfPlayCallback.snapshot), and stays frozen while main learns."""
    rllib_ppo = _load("rllib_ppo")
    cfg = rllib_ppo.Config(
        profile="continental", env_config={"deals": 1}, train_batch_size=128, minibatch_size=64, num_epochs=1,
        hidden=[16], snapshot_every=2, max_opponents=1, self_play_share=0.0, num_env_runners=runners,
    )  # fmt: skip
    algo = rllib_ppo.build_config(cfg).build_algo()
    try:
        state = R._learner_module_state
        algo.train()
        assert "main_v1" not in algo.config.policies
        algo.train()  # iteration 2: snapshot
        main2, frozen2 = state(algo, R.MAIN), state(algo, "main_v1")
        assert _same(main2, frozen2)
        for runner_frozen in _frozen_on_runners(algo, "main_v1"):
            assert _same(runner_frozen, {k: v for k, v in frozen2.items() if k in runner_frozen})
        algo.train()  # iteration 3: main learns, main_v1 stays frozen
        main3, frozen3 = state(algo, R.MAIN), state(algo, "main_v1")
        assert _same(frozen3, frozen2) and not _same(main3, main2)
        assert algo.config.policies_to_train == [R.MAIN] or algo.config.policies_to_train == {R.MAIN}
    finally:
        algo.stop()


def test_self_play_mapping_is_consistent_per_episode() -> None:
    class Ep:
        def __init__(self, i: int):
            self.id_ = f"episode{i}"

    m = R.SelfPlayMapping(4, ["main_v1", "main_v2"], self_play_share=0.25)
    mixes = []
    for i in range(200):
        ep = Ep(i)
        seats = [m(f"player_{s}", ep) for s in range(4)]
        assert seats == [m(f"player_{s}", ep) for s in range(4)]  # same answer every call
        assert R.MAIN in seats
        mixes.append(seats.count(R.MAIN))
    assert set(mixes) == {1, 4}
    assert 0.1 < mixes.count(4) / len(mixes) < 0.4
    assert R.SelfPlayMapping(4)("player_2", Ep(0)) == R.MAIN


HEAD = """
import sys, ray
ray.init(num_cpus=2, include_dashboard=False, object_store_memory=300 * 1024**2, log_to_driver=False)
print(ray.get_runtime_context().gcs_address, flush=True)
sys.stdin.read()  # until the test closes our stdin
ray.shutdown()
"""


def test_address_trains_on_a_running_cluster(tmp_path: Path) -> None:
    """A Ray head in another process (loopback, token auth); the script joins it with --address, runs a remote
    EnvRunner there and ships this checkout's rummy_env to it. The head is stopped by closing its stdin (its own
    ray.shutdown), never by `ray stop`, which would end every Ray process of the machine."""
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
           "RAY_USAGE_STATS_ENABLED": "0"}  # fmt: skip
    head = subprocess.Popen(
        [sys.executable, "-c", HEAD], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=tmp_path
    )
    try:
        address = head.stdout.readline().strip()
        assert address.startswith("127.0.0.1:"), address
        start = time.perf_counter()
        run = subprocess.run(
            [sys.executable, str(TRAINING / "rllib_ppo.py"), "--profile", "continental", "--env-config", "{deals: 1}",
             *TINY, "--address", address, "--num-env-runners", "1", "--ship-package", "true",
             "--runs-dir", str(tmp_path), "--save-path", str(tmp_path / "cluster")],
            env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path,
        )  # fmt: skip
        print(f"rllib --address run: {time.perf_counter() - start:.1f} s")
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        assert "Connected to Ray cluster" in run.stderr + run.stdout
        meta = json.loads((tmp_path / "cluster.json").read_text())
        assert meta["profile"] == "continental" and meta["config"]["address"] == address
        load_checkpoint(tmp_path / "cluster", expect_profile="continental")
    finally:
        head.stdin.close()
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            head.kill()
            head.wait()


# ---- Ray match backend ------------------------------------------------------------------------------------------


def test_ray_backend_returns_the_local_records_in_order(local_ray, tmp_path: Path) -> None:
    from rummy_env.evaluation.tournament import SessionRunner, plan_sessions
    from rummy_env.models.policy import architecture, build_policy

    raw = rummy_env.make("contract", wrapped=False, rounds=(1,))
    net = build_policy(architecture(raw.observer.size, raw.num_actions, trunk=[16]), seed=3)
    save_checkpoint(tmp_path / "net", net, {"profile": "contract", "num_players": 4, "env_config": {"rounds": [1]}})
    specs = ["heuristic", "random", f"checkpoint:{tmp_path / 'net'}@sample"]
    env_config = {"rounds": (1,)}
    plans = plan_sessions(len(specs), 4, sessions=8, seed=5, duplicate=True)
    runner = SessionRunner("contract", 4, specs, env_config)
    with torch.no_grad():
        torch.set_num_threads(1)
        local = [runner.play(p) for p in plans]
    remote = run_matches_ray(play_session_task, session_tasks("contract", 4, specs, env_config, plans))
    assert remote == local
    bounded = run_matches_ray(
        play_session_task, session_tasks("contract", 4, specs, env_config, plans[:5]), max_in_flight=2
    )
    assert bounded == local[:5]


def test_ray_backend_reraises_task_errors(local_ray) -> None:
    import math

    assert run_matches_ray(math.sqrt, [16, 1, 4, 9], max_in_flight=3) == [4.0, 1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="math domain error"):
        run_matches_ray(math.sqrt, [1, -1, 4])
