"""Training scripts: smoke runs by subprocess, reward attribution, GAE, reproducibility, resume, a learning check,
the SB3 export, and where a run may write (never into the shipped checkpoints unasked, never over its inputs).
Skipped when the training extras (torch, stable-baselines3, ...) are not installed. The scripts' shared parts are
imported from ``rummy_env.training``; a script's own functions from the script file (``training_scripts``)."""

from __future__ import annotations

import hashlib
import json
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from training_scripts import load_training_module

pytest.importorskip("torch")
pytest.importorskip("safetensors")
pytest.importorskip("yaml")
pytest.importorskip("tqdm")
pytest.importorskip("tensorboard")

ROOT = Path(__file__).resolve().parents[2]
TRAINING = ROOT / "training"


_load = load_training_module


@pytest.fixture(scope="module")
def ppo():
    return _load("ppo")


TINY = (
    "--total-steps 512 --steps-per-update 256 --num-envs 2 --trunk [16] --eval-every 1 --eval-sessions 1 "
    "--final-eval-sessions 2 --eval-workers 1 --progress-bar false"
).split()


# ---- smoke runs of each script, by subprocess -------------------------------------------------------------------
@pytest.mark.parametrize(
    "args",
    [
        "--num-workers 1 --bc-decisions 300 --set 'env_config={rounds: [1]}'",
        "--profile contract_gamerules --num-players 3 --num-workers 0 --set 'env_config={rounds: [1]}'",
        "--profile continental --num-players 5 --num-workers 0 --set 'env_config={deals: 1}'",
    ],
    ids=["contract-worker-warm-start", "contract_gamerules-3", "continental-5"],
)
def test_ppo_script_smoke(tmp_path: Path, args: str) -> None:
    save = tmp_path / "ckpt"
    cmd = [sys.executable, str(TRAINING / "ppo.py"), *TINY, *shlex.split(args)]
    cmd += ["--runs-dir", str(tmp_path / "runs"), "--save-path", str(save)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "env steps" in out.stdout and "vs random" in out.stdout
    meta = json.loads(save.with_suffix(".json").read_text())
    assert meta["training_steps"] >= 512 and meta["evaluation"]["random"]["sessions"] == 2
    warm = {k: meta["warm_start"].get(k) for k in ("teacher", "decisions")}
    assert warm == ({"teacher": "heuristic", "decisions": 512} if "bc-decisions" in args else dict.fromkeys(warm))
    run = next((tmp_path / "runs").iterdir())
    assert run.name.split("__")[:3] == [meta["profile"], "ppo", "1"]
    assert any(p.name.startswith("events.out.tfevents") for p in run.iterdir())
    assert (run / "progress.jsonl").read_text().count("\n") == 2 and (run / "eval.jsonl").exists()


def test_quick_start_end_explains_itself_and_a_log_file_gets_no_bar(tmp_path: Path) -> None:
    """Issue 38: run as a quick start is (progress bar on, the default) with stderr going to a file: the file gets no
    bar redraws; the progress lines carry their units; the run ends saying what its figures mean, what to expect,
    and the next commands with this run's checkpoint filled in. The run takes exactly the planned steps (whole
    rollouts), the bar's total."""
    args = ("--total-steps 600 --steps-per-update 256 --num-envs 2 --trunk [16] --eval-every 1 --eval-sessions 1 "
            "--final-eval-sessions 2 --eval-workers 1 --num-workers 0")  # fmt: skip
    cmd = [sys.executable, str(TRAINING / "ppo.py"), *args.split(), "--set", "env_config={rounds: [1]}"]
    cmd += ["--runs-dir", str(tmp_path / "runs")]
    with open(tmp_path / "stderr.log", "w") as err:
        out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=err, text=True, timeout=300, cwd=tmp_path)
    log = (tmp_path / "stderr.log").read_text()
    assert out.returncode == 0, log[-3000:]
    assert "\r" not in log and "step/s" not in log and "%|" not in log and "it/s" not in log, log[-2000:]
    text = out.stdout
    assert "update 1, step 256: vs random " in text
    assert "[penalty points per round (lower is better) at the policy's seat; them: the opponents' mean]" in text
    run = next((tmp_path / "runs").iterdir())
    ckpt = f"checkpoint:{run / 'checkpoints' / 'latest'}"
    tail = text[text.index("What the figures mean"):]
    assert "penalty points per round (lower is better)" in tail and "the mean of the other 3 seats" in tail
    assert "What to expect: " in tail and "well behind" in tail and "checkpoint:contract" in tail
    assert f"rummy play --profile contract --rounds 1 --opponents {ckpt} heuristic heuristic\n" in tail
    runs = tmp_path / "runs"
    assert (f"rummy tournament --profile contract --rounds 1 --entrants heuristic {ckpt} --sessions 200 --workers 2 "
            f"--out {runs / 'eval'}\n") in tail  # fmt: skip
    assert f"--entrants checkpoint:contract {ckpt} --sessions 200" in tail
    resume = run / "checkpoints" / "latest"
    assert f"python training/ppo.py <this run's flags> --total-steps 3072 --resume {resume}" in tail
    meta = json.loads((run / "checkpoints" / "latest.json").read_text())
    assert meta["training_steps"] == 768  # 600 steps of 256 a rollout: 3 rollouts, as planned


def test_planned_steps_are_whole_rollouts_of_whole_table_steps(ppo) -> None:
    """The bar's total: 300,000 steps of 4,096 a rollout are 74 rollouts (the quick start's 303,104); a share of
    a rollout is rounded up to whole steps of its collector's tables; a run already past its total plans nothing."""
    from rummy_env.training.workers import planned_steps

    cfg = ppo.Config(total_steps=300_000, steps_per_update=4096, num_envs=64, num_workers=1)
    assert planned_steps(cfg, 0) == 303_104 and planned_steps(cfg, 4096) == 303_104
    assert planned_steps(ppo.Config(total_steps=150, steps_per_update=100, num_envs=64, num_workers=2), 0) == 256
    assert planned_steps(ppo.Config(total_steps=100, steps_per_update=256, num_envs=4), 512) == 512


def test_next_steps_for_a_payment_profile(ppo) -> None:
    """Continental: payments per deal, higher is better; its session length as ``--rounds N``."""
    from rummy_env.training import run_log

    cfg = ppo.Config(profile="continental", env_config={"deals": 2}, config_file="configs/x.yaml", max_minutes=5)
    ev = {"random": {"opponent": "random", "sessions": 10, "policy": 3.0, "opponents": -1.0,
                     "policy_rounds_won_share": 0.5, "opponent_rounds_won_share": 0.1}}  # fmt: skip
    text = "\n".join(run_log.next_steps(cfg, 4, ev, "runs/x/latest", "runs/x/latest", 1000))
    assert "payment points per deal (higher is better)" in text
    assert "4.0 payment points per deal ahead of the random bot" in text
    play = "rummy play --profile continental --rounds 2 --opponents checkpoint:runs/x/latest heuristic heuristic"
    assert play in text
    assert "--config configs/x.yaml --total-steps 4000 --max-minutes 20 --resume runs/x/latest" in text


@pytest.mark.parametrize("workers", [1, 2])
def test_warm_start_only_run_with_a_worker_ends_cleanly(tmp_path: Path, workers: int) -> None:
    """Issue 16: ``total_steps: 0`` with ``num_workers >= 1`` (behaviour cloning only) ended with a BrokenPipeError
    traceback from the rollout worker; it must end cleanly, with the warm-started checkpoint written."""
    save = tmp_path / "bc"
    args = (
        f"--total-steps 0 --bc-decisions 300 --num-workers {workers} --num-envs 4 --steps-per-update 256 "
        "--trunk [16] --eval-every 0 --final-eval-sessions 0 --progress-bar false --set 'env_config={rounds: [1]}'"
    )
    cmd = [sys.executable, str(TRAINING / "ppo.py"), *shlex.split(args)]
    cmd += ["--runs-dir", str(tmp_path / "runs"), "--save-path", str(save)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "Traceback" not in out.stderr and "Error" not in out.stderr, out.stderr[-3000:]
    meta = json.loads(save.with_suffix(".json").read_text())
    assert meta["training_steps"] == 0 and meta["warm_start"]["decisions"] >= 300


def test_card_action_run_reports_agreement_per_decision_kind_and_resumes(tmp_path: Path) -> None:
    """Issue 16: the warm start reports its agreement with the teacher per decision kind (a policy that never takes
    the discard or buys must not hide behind the many passes); the ``card_action`` network trains, is saved as its
    own kind, and ``--resume`` picks it up."""
    save = tmp_path / "card"
    args = (
        "--network card_action --action-embed 8 --total-steps 256 --bc-decisions 600 --num-workers 0 --num-envs 4 "
        "--steps-per-update 256 --trunk [16] --eval-every 0 --final-eval-sessions 0 --progress-bar false "
        "--set 'env_config={rounds: [1]}'"
    )
    cmd = [sys.executable, str(TRAINING / "ppo.py"), *shlex.split(args)]
    out = subprocess.run(cmd + ["--runs-dir", str(tmp_path / "runs"), "--save-path", str(save)],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    assert "agreement with heuristic per decision kind: " in out.stdout
    meta = json.loads(save.with_suffix(".json").read_text())
    assert meta["architecture"]["kind"] == "card_action" and meta["architecture"]["action_embed"] == 8
    agreement = meta["warm_start"]["agreement"]
    assert {"pass", "draw_stock", "discard", "overall"} <= set(agreement)
    assert sum(v["decisions"] for k, v in agreement.items() if k != "overall") == agreement["overall"]["decisions"]
    assert all(0 <= v["agreement"] <= 1 for v in agreement.values())
    latest = next((tmp_path / "runs").iterdir()) / "checkpoints" / "latest"
    resumed = subprocess.run(
        cmd[:2] + shlex.split(args.replace("--total-steps 256", "--total-steps 512"))
        + ["--runs-dir", str(tmp_path / "runs2"), "--resume", str(latest)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    meta2 = json.loads((next((tmp_path / "runs2").iterdir()) / "checkpoints" / "latest.json").read_text())
    assert meta2["training_steps"] >= 512 and meta2["warm_start"]["agreement"] == agreement


def test_sb3_script_smoke(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    save = tmp_path / "sb3"
    args = (
        "--total-timesteps 256 --n-envs 2 --n-steps 64 --batch-size 64 --net-arch [16] --final-eval-sessions 2 "
        "--eval-workers 1 --progress-bar false --set 'env_config={rounds: [1]}'"
    )
    cmd = [sys.executable, str(TRAINING / "sb3_maskable_ppo.py"), *shlex.split(args)]
    cmd += ["--runs-dir", str(tmp_path / "runs"), "--save-path", str(save)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    from rummy_env.models.checkpoints import load_checkpoint

    ckpt = load_checkpoint(save, expect_profile="contract")
    assert ckpt.metadata["architecture"]["policy_hidden"] == [16] and "random" in ckpt.metadata["evaluation"]


# ---- the learning seat's own rewards only --------------------------------------------------------------------
def test_gae_follows_each_seats_own_chain(ppo) -> None:
    # two seats interleaved: seat A = rows 0, 2, 4 (episode ends at 4), seat B = rows 1, 3 (cut: bootstrap 0.5)
    rewards = np.array([0.0, 0.0, 0.0, 0.0, -1.0], dtype=np.float32)
    values = np.array([0.1, 0.2, 0.3, 0.4, 0.5], dtype=np.float32)
    dones = np.array([False, False, False, False, True])
    nxt = np.array([2, 3, 4, -1, -1])
    boot = np.array([0, 0, 0, 0.5, 0], dtype=np.float32)
    g, lam = 0.9, 0.8
    adv, ret = ppo.gae(rewards, values, dones, nxt, boot, g, lam)
    d4 = -1.0 - 0.5
    d2 = 0 + g * 0.5 - 0.3
    d0 = 0 + g * 0.3 - 0.1
    d3 = 0 + g * 0.5 - 0.4
    d1 = 0 + g * 0.4 - 0.2
    want = [d0 + g * lam * (d2 + g * lam * d4), d1 + g * lam * d3, d2 + g * lam * d4, d3, d4]
    np.testing.assert_allclose(adv, want, rtol=1e-5)
    np.testing.assert_allclose(ret, adv + values, rtol=1e-6)


@pytest.mark.parametrize("weights", [{"current": 1.0}, {"current": 0.3, "random": 0.7}])
def test_rewards_are_the_learning_seats_own(ppo, weights) -> None:
    """Every finished chain's rewards sum to that seat's own score, never an opponent's (the PettingZoo SB3
    tutorial once trained on the opponent's reward)."""
    from rummy_env.training.rollout import Collector

    cfg = ppo.Config(env_config={"rounds": [1]}, trunk=[16], pool_weights=weights, seed=3)
    col = Collector(cfg, num_envs=3, worker=0)
    batch = col.collect(1500)
    finished = [ep for ep in batch.episodes]
    assert len(finished) >= 3
    leaks_visible = 0
    for ep in finished:
        rows = np.flatnonzero(batch.chain == ep["chain"])
        assert batch.done[rows[-1]] and not batch.done[rows[:-1]].any()
        own = -sum(ep["round_scores"]) / 100.0
        assert batch.reward[rows].sum() == pytest.approx(own, abs=1e-5)
        assert ep["return"] == pytest.approx(own, abs=1e-6)  # summed from VectorEnv's float32 rewards
        leaks_visible += own != 0
    assert leaks_visible  # the check has power: penalties differ between seats
    # chains are linked in order and each row's successor belongs to the same chain
    linked = batch.next >= 0
    assert (batch.chain[batch.next[linked]] == batch.chain[linked]).all()
    assert (batch.next[linked] > np.flatnonzero(linked)).all()
    assert batch.reward_after_cut == 0.0  # the first rollout starts with fresh deals
    # masks are stored and hold the action taken
    assert batch.mask[np.arange(len(batch.action)), batch.action].all()


def test_shape_rewards_adds_the_potential_differences() -> None:
    from rummy_env.training.rollout import shape_rewards

    # seat A = rows 0, 2 (episode ends at 2), seat B = rows 1, 3 (cut at 3: the cut state's potential is -1)
    rows = {"reward": [0.0, 0.5, 0.0, -1.0], "next": [2, 3, -1, -1], "done": [False, False, True, False]}
    phi = [-4.0, -6.0, -2.0, -3.0]
    shape_rewards(rows, phi, {3: -1.0}, gamma=0.9, coef=0.1)
    want = [0.1 * (0.9 * -2.0 + 4.0), 0.5 + 0.1 * (0.9 * -3.0 + 6.0), 0.1 * (0.0 + 2.0), -1.0 + 0.1 * (0.9 * -1.0 + 3.0)]
    np.testing.assert_allclose(rows["reward"], want)


def test_shaping_changes_only_the_learning_rewards_and_telescopes(ppo) -> None:
    """Same seed with and without shaping: the same games and logged returns; the shaped rewards of a finished
    chain add up (gamma 1) to its unshaped rewards minus coef * phi(first decision) (docs/guides/training.md)."""
    from rummy_env.training.rollout import Collector

    kw = dict(profile="continental", env_config={"deals": 1}, trunk=[16], pool_weights={"current": 1.0}, seed=5,
              gamma=1.0)  # fmt: skip
    plain = Collector(ppo.Config(**kw), num_envs=2, worker=0)
    shaped = Collector(ppo.Config(**kw, shaping=0.25), num_envs=2, worker=0)
    shaped.set_weights(plain.model.numpy_state())
    a, b = plain.collect(1200), shaped.collect(1200)
    np.testing.assert_array_equal(a.action, b.action)
    assert [ep["return"] for ep in a.episodes] == [ep["return"] for ep in b.episodes]
    assert len(shaped.potentials) == len(b) and not plain.potentials
    assert len(set(shaped.potentials)) > 1 and max(shaped.potentials) <= 0
    diff = b.reward - a.reward
    assert np.abs(diff).max() > 0
    finished = {ep["chain"] for ep in b.episodes}
    for chain in np.unique(b.chain).tolist():
        rows = np.flatnonzero(b.chain == chain)
        if chain in finished:
            assert diff[rows].sum() == pytest.approx(-0.25 * shaped.potentials[rows[0]], abs=1e-4)


# ---- reproducibility and resume ---------------------------------------------------------------------------------
def test_same_seed_same_weights_and_resume(ppo, tmp_path: Path) -> None:
    from rummy_env.models.checkpoints import read_metadata

    args = [*TINY, "--set", "env_config={rounds: [1]}", "--num-workers", "0", "--final-eval-sessions", "0"]
    shas = []
    for i in range(2):
        ppo.main([*args, "--runs-dir", str(tmp_path / f"r{i}"), "--save-path", str(tmp_path / f"c{i}")])
        shas.append(read_metadata(tmp_path / f"c{i}")["weights_sha256"])
    assert shas[0] == shas[1]
    latest = next((tmp_path / "r0").iterdir()) / "checkpoints" / "latest"
    ppo.main(
        [
            *args,
            "--total-steps",
            "1024",
            "--resume",
            str(latest),
            "--runs-dir",
            str(tmp_path / "r2"),
            "--save-path",
            str(tmp_path / "c2"),
        ]
    )
    meta = read_metadata(tmp_path / "c2")
    assert meta["training_steps"] == 1024 and meta["training_state"]["update"] == 4


def test_same_seed_same_weights_with_a_rollout_worker(ppo, tmp_path: Path) -> None:
    """The worker mode is reproducible too: the learner and the worker exchange messages in a fixed order."""
    from rummy_env.models.checkpoints import read_metadata

    args = [*TINY, "--set", "env_config={rounds: [1]}", "--num-workers", "1", "--num-envs", "4"]
    args += ["--eval-every", "0", "--final-eval-sessions", "0", "--set", "pool_weights={current: 0.5, random: 0.5}"]
    shas = []
    for i in range(2):
        ppo.main([*args, "--runs-dir", str(tmp_path / f"r{i}"), "--save-path", str(tmp_path / f"c{i}")])
        shas.append(read_metadata(tmp_path / f"c{i}")["weights_sha256"])
    assert shas[0] == shas[1]
    other = [*args, "--seed", "2", "--runs-dir", str(tmp_path / "r2"), "--save-path", str(tmp_path / "c2")]
    ppo.main(other)
    assert read_metadata(tmp_path / "c2")["weights_sha256"] != shas[0]  # the check has power: the seed matters


def test_update_pass_matches_the_models_evaluate(ppo) -> None:
    """``evaluate_legal`` (the head cut to the minibatch's action ids) gives ``model.evaluate``'s log-probabilities,
    entropies, values and gradients."""
    import torch

    from rummy_env.models.policy import build_policy, legal_index
    from rummy_env.training.rollout import Collector

    cfg = ppo.Config(env_config={"rounds": [1]}, trunk=[16], pool_weights={"current": 1.0}, seed=5)
    col = Collector(cfg, num_envs=4, worker=0)
    batch = col.collect(400)
    model = build_policy(col.arch, seed=3)
    index, valid = legal_index(batch.mask)
    assert index.shape[1] > 1 and len(np.unique(index)) < col.arch["num_actions"]
    position = torch.from_numpy(np.argmax(index == batch.action[:, None], axis=1))
    obs, index_t, valid_t = torch.from_numpy(batch.obs), torch.from_numpy(index), torch.from_numpy(valid)
    outs, grads = [], []
    for f in (lambda: model.evaluate(obs, index_t, valid_t, position),
              lambda: ppo.evaluate_legal(model, obs, index, valid_t, position)):
        model.zero_grad()
        out = f()
        (out[0].sum() + out[1].sum() + out[2].sum()).backward()
        outs.append([t.detach().numpy() for t in out])
        grads.append([p.grad.clone().numpy() for p in model.parameters()])
    for a, b in zip(outs[0] + grads[0], outs[1] + grads[1]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_env_config_of_the_aec_env_only_is_refused(tmp_path: Path) -> None:
    """VectorEnv cannot truncate or render: such env_config keys are a one-line usage error, exit code 2."""
    cmd = [sys.executable, str(TRAINING / "ppo.py"), *TINY, "--set", "env_config={max_steps: 50}"]
    out = subprocess.run(cmd + ["--runs-dir", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr[-2000:]
    assert "max_steps" in out.stderr and "VectorEnv" in out.stderr


# ---- learning: a tiny budget on round 1 must clearly beat random and the untrained network ---------------------
def test_ppo_learns_round_one(ppo, tmp_path: Path) -> None:
    from rummy_env.bots.checkpoint_bot import CheckpointBot, PolicyBot
    from rummy_env.evaluation.policy_eval import play_policy, summarise_match
    from rummy_env.models.policy import architecture, build_policy

    summary = ppo.main(
        [
            "--set",
            "env_config={rounds: [1]}",
            "--total-steps",
            "16384",
            "--steps-per-update",
            "2048",
            "--num-envs",
            "8",
            "--num-workers",
            "0",
            "--trunk",
            "[64]",
            "--learning-rate",
            "1e-3",
            "--eval-every",
            "0",
            "--final-eval-sessions",
            "0",
            "--set",
            "pool_weights={current: 0.5, random: 0.5}",
            "--progress-bar",
            "false",
            "--runs-dir",
            str(tmp_path / "runs"),
            "--save-path",
            str(tmp_path / "learned"),
            "--seed",
            "1",
        ]
    )
    cfg = {"rounds": (1,)}
    trained = summarise_match(
        "contract", "random", play_policy(lambda: CheckpointBot(summary["checkpoint"]), "contract", "random", 40, 7, cfg)
    )
    untrained_net = build_policy(architecture(1790, 3089, trunk=[64]), seed=1)
    untrained = summarise_match(
        "contract", "random", play_policy(lambda: PolicyBot(untrained_net), "contract", "random", 40, 7, cfg)
    )
    # random players score about 150 per round on round 1; a few updates bring the policy far below
    assert trained["difference"] + trained["difference_ci95"] < -40, trained
    assert trained["policy"] < untrained["policy"] - 30, (trained, untrained)


# ---- SB3 export gives the same distribution -------------------------------------------------------------------
def test_export_sb3_matches_the_sb3_policy(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO

    from rummy_env.envs.wrappers import SingleAgentEnv
    from rummy_env.models.checkpoints import load_checkpoint

    sb3 = _load("sb3_maskable_ppo")
    env = SingleAgentEnv("contract", learner_seat="random", opponents=["random"], rounds=(1,))
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, policy_kwargs={"net_arch": [32, 16]}, seed=0)
    sb3.export_sb3(model, tmp_path / "x", "contract", 4, {"rounds": [1]})
    net = load_checkpoint(tmp_path / "x").model
    obs, _ = env.reset(seed=0)
    rows, masks = [], []
    for _ in range(20):
        mask = env.action_masks()
        rows.append(obs)
        masks.append(mask)
        obs, _, term, trunc, _ = env.step(int(np.flatnonzero(mask)[0]))
        if term or trunc:
            obs, _ = env.reset()
    o = torch.as_tensor(np.stack(rows))
    m = np.stack(masks)
    with torch.no_grad():
        theirs = model.policy.get_distribution(o, action_masks=m).distribution.probs
        ours = torch.softmax(net.masked_logits(o, torch.as_tensor(m)), dim=-1)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-6)
        np.testing.assert_allclose(net.value(o).numpy(), model.policy.predict_values(o).squeeze(-1).numpy(), atol=1e-5)


# ---- where a run writes: runs/, never the shipped checkpoints unasked, never over its inputs (issue 40, point 1) ----
SHIPPED = ROOT / "checkpoints"


def _digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.mark.parametrize("config", ["ppo_contract.yaml", "ppo_contract_gamerules.yaml", "ppo_continental.yaml"])
def test_a_documented_config_never_touches_the_shipped_checkpoints(tmp_path: Path, config: str) -> None:
    """The issue's command: a shipped ppo_* config with a tiny budget, run from the repository root as documented,
    leaves checkpoints/ byte for byte as it was and writes its result under runs/ (its save_path)."""
    import yaml

    before = _digests(SHIPPED)
    save = yaml.safe_load((ROOT / "configs" / config).read_text())["save_path"]
    assert save.startswith("runs/")
    args = ["--config", f"configs/{config}", "--total-steps", "64", "--bc-decisions", "0", "--eval-every", "0",
            "--num-workers", "0", "--final-eval-sessions", "0", "--num-envs", "2", "--steps-per-update", "64",
            "--trunk", "[8]", "--runs-dir", str(tmp_path / "runs"), "--save-path", str(tmp_path / save),
            "--progress-bar", "false"]  # fmt: skip
    out = subprocess.run([sys.executable, str(TRAINING / "ppo.py"), *args], capture_output=True, text=True,
                         timeout=300, cwd=ROOT)  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    assert _digests(SHIPPED) == before
    assert (tmp_path / save).with_suffix(".json").is_file()


def test_the_issue_command_as_typed_writes_under_runs_only(tmp_path: Path) -> None:
    """``python training/ppo.py --config configs/ppo_contract.yaml --total-steps 64 --bc-decisions 0 --eval-every 0
    --num-workers 0 --final-eval-sessions 0`` (the config copied to a scratch folder with its relative paths) writes
    runs/contract_ppo and the run folder under runs/, nothing else."""
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "ppo_contract.yaml").write_text((ROOT / "configs" / "ppo_contract.yaml").read_text())
    before = _digests(SHIPPED)
    args = ["--config", "configs/ppo_contract.yaml", "--total-steps", "64", "--bc-decisions", "0", "--eval-every",
            "0", "--num-workers", "0", "--final-eval-sessions", "0", "--num-envs", "2", "--progress-bar", "false"]
    out = subprocess.run([sys.executable, str(TRAINING / "ppo.py"), *args], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    assert _digests(SHIPPED) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["configs", "runs"]
    assert (tmp_path / "runs" / "contract_ppo.json").is_file() and (tmp_path / "runs" / "contract_ppo.safetensors").is_file()


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--save-path", str(SHIPPED / "contract")], "the folder of the shipped checkpoints"),
        (["--runs-dir", str(SHIPPED / "runs")], "add --overwrite-shipped"),
        (["--save-path", str(SHIPPED / "new_name")], "write under runs/ instead"),
    ],
)
def test_a_path_into_the_shipped_checkpoints_is_refused_up_front(tmp_path: Path, flags: list[str], message: str) -> None:
    before = _digests(SHIPPED)
    out = subprocess.run([sys.executable, str(TRAINING / "ppo.py"), *TINY, *flags], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)  # fmt: skip
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and message in out.stderr, out.stderr
    assert _digests(SHIPPED) == before and not (SHIPPED / "runs").exists() and not list(tmp_path.iterdir())


def test_overwrite_shipped_is_the_one_way_in_and_inputs_are_never_outputs(ppo) -> None:
    """Validation only (nothing is trained, nothing written): ``--overwrite-shipped`` lets a save_path inside the
    shipped folder pass; a save_path that is the run's own --resume or pool checkpoint is refused either way."""
    from rummy_env.training.config import ConfigError, load_config

    cfg = load_config(ppo.Config, ["--save-path", str(SHIPPED / "contract"), "--overwrite-shipped", "true"])
    assert cfg.overwrite_shipped and cfg.save_path.endswith("contract")
    for flag in ("--resume", "--set"):
        value = str(SHIPPED / "contract") if flag == "--resume" else f"pool_checkpoints=[{SHIPPED / 'contract'}]"
        with pytest.raises(ConfigError, match="is also this command's"):
            load_config(ppo.Config, [flag, value, "--save-path", str(SHIPPED / "contract.json"),
                                     "--overwrite-shipped", "true"])  # fmt: skip


def test_checkpoints_are_written_atomically(tmp_path: Path) -> None:
    """A run's outputs appear whole: no temporary file is left beside them."""
    out = subprocess.run([sys.executable, str(TRAINING / "ppo.py"), *TINY, "--final-eval-sessions", "0",
                          "--eval-every", "0", "--num-workers", "0", "--set", "env_config={rounds: [1]}",
                          "--runs-dir", str(tmp_path / "runs"), "--save-path", str(tmp_path / "c")],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    leftovers = [p for p in tmp_path.rglob("*") if ".tmp" in p.name]
    assert not leftovers
