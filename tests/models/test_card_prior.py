"""The ``card_prior`` network (``rummy_env.models.policy.PriorCardActorCritic``): a residual policy over the
heuristic. Its architecture and weights are checked like every checkpoint's; its legal-only logits give the dense
distribution; with a large prior weight it plays the heuristic's moves exactly; it refuses to act without the
prior's moves; as a checkpoint bot its decisions do not depend on cards its seat cannot see; and a training run
warm-starts, trains, saves and resumes it."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("safetensors")

import rummy_env  # noqa: E402
from rummy_env import bots  # noqa: E402
from rummy_env.models import action_features as af  # noqa: E402
from rummy_env.models.checkpoints import (  # noqa: E402
    CheckpointError,
    check_architecture,
    load_checkpoint,
    save_checkpoint,
    tensor_shapes,
)

PROFILES = [("contract", {"rounds": [1]}), ("contract_gamerules", {"num_players": 4}), ("continental", {"rounds": 1})]
TRAINING = Path(__file__).resolve().parents[2] / "training"


def _net(profile: str = "contract_gamerules", seed: int = 0, **env_config):
    from rummy_env.models.policy import build_policy, card_architecture

    env = rummy_env.make(profile, wrapped=False, **env_config)
    arch = card_architecture(env.observer.size, env.num_actions, env.observer, trunk=(32,), action_embed=8,
                             prior="heuristic")  # fmt: skip
    return env, build_policy(arch, seed=seed).set_action_table(af.action_table(env.layout))


def _decisions(profile: str, env_config: dict, seed: int, n: int):
    """``n`` decisions of heuristic self-play: (observations, masks, the heuristic's moves)."""
    env = rummy_env.make(profile, **env_config)
    env.reset(seed=seed)
    heur = bots.load("heuristic", seed=seed)
    obs, masks, moves = [], [], []
    for agent in env.agent_iter():
        ob, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        a = heur.act(env, agent)
        obs.append(ob["observation"])
        masks.append(ob["action_mask"])
        moves.append(a)
        env.step(a)
        if len(moves) == n:
            break
    return np.stack(obs).astype(np.float32), np.stack(masks).astype(np.int8), np.array(moves)


def test_architecture_names_its_prior_and_holds_one_weight_more() -> None:
    _, net = _net()
    arch = net.arch
    assert arch["kind"] == "card_prior" and arch["prior"] == "heuristic"
    shapes = tensor_shapes(arch)
    assert shapes["prior_weight"] == (1,)
    plain = {k: v for k, v in arch.items() if k != "prior"} | {"kind": "card_action"}
    assert shapes["action_mlp.weight"][1] == tensor_shapes(plain)["action_mlp.weight"][1] + 1
    assert {k: tuple(v.shape) for k, v in net.state_dict().items() if k != "context"} == shapes


@pytest.mark.parametrize(
    "change,message",
    [
        ({"prior": "search"}, r"architecture prior='search'; allowed: \['heuristic'\]"),
        ({"prior": 3}, "architecture prior=3; allowed"),
        ({"drop": "prior"}, "expected exactly"),
    ],
)
def test_a_bad_prior_is_our_value_error(tmp_path: Path, change: dict, message: str) -> None:
    _, net = _net()
    arch = dict(net.arch)
    drop = change.pop("drop", None)
    arch.update(change)
    if drop:
        arch.pop(drop)
    with pytest.raises(ValueError, match=message):
        check_architecture(arch)
    save_checkpoint(tmp_path / "p", net, {"profile": "contract_gamerules", "num_players": 4})
    meta = json.loads((tmp_path / "p.json").read_text())
    meta["architecture"] = arch
    (tmp_path / "p.json").write_text(json.dumps(meta))
    with pytest.raises(CheckpointError):
        load_checkpoint(tmp_path / "p")


@pytest.mark.parametrize("profile,cfg", PROFILES)
def test_legal_logits_give_the_dense_distribution(profile: str, cfg: dict) -> None:
    import torch

    from rummy_env.models.policy import legal_index, prior_flags

    _, net = _net(profile, seed=1, **cfg)
    obs, masks, moves = _decisions(profile, cfg, seed=2, n=40)
    o, m = torch.from_numpy(obs), torch.from_numpy(masks)
    with torch.no_grad():
        net.prior_weight.fill_(0.7)
        dense = torch.log_softmax(net.masked_logits(o, m, prior=moves), -1)
        index, valid = legal_index(masks)
        pi, _ = net.features(o)
        flags = torch.from_numpy(prior_flags(index, valid, moves))
        legal = torch.log_softmax(net.legal_logits(pi, torch.from_numpy(index), torch.from_numpy(valid), flags), -1)
    want = dense.gather(1, torch.from_numpy(index))
    v = torch.from_numpy(valid)
    assert torch.allclose(legal[v], want[v], atol=1e-5)
    # the prior's move is flagged in exactly one place per row, among the legal actions
    assert (flags.sum(1) == 1).all()
    # moving the flag to another legal action changes the distribution (the flag is an input, not a label)
    other = np.array([int(np.flatnonzero(mk)[0]) if int(np.flatnonzero(mk)[0]) != a else int(np.flatnonzero(mk)[-1])
                      for mk, a in zip(masks, moves)])  # fmt: skip
    with torch.no_grad():
        moved = torch.log_softmax(net.masked_logits(o, m, prior=other), -1)
    multi = masks.sum(1) > 1
    assert not torch.allclose(moved[torch.from_numpy(multi)], dense[torch.from_numpy(multi)])


def test_without_the_priors_moves_it_refuses_to_act() -> None:
    from rummy_env.models.policy import PriorError

    _, net = _net()
    obs, masks, moves = _decisions("contract_gamerules", {"num_players": 4}, seed=0, n=3)
    with pytest.raises(PriorError, match="needs the prior bot's move"):
        net.act(obs, masks)
    with pytest.raises(ValueError, match="2 prior actions for 3 rows"):
        net.act(obs, masks, prior=moves[:2])
    actions, _, _ = net.act(obs, masks, prior=moves, greedy=True)
    assert all(masks[i, a] for i, a in enumerate(actions))


@pytest.mark.parametrize("profile,cfg", PROFILES)
def test_with_a_large_prior_weight_the_bot_plays_the_heuristics_game(tmp_path: Path, profile: str, cfg: dict) -> None:
    """A checkpoint bot over the heuristic, its prior weight large: the whole session is move for move the one four
    heuristics play."""
    import torch

    from rummy_env.bots.checkpoint_bot import CheckpointBot

    env, net = _net(profile, seed=3, **cfg)
    with torch.no_grad():
        net.prior_weight.fill_(1000.0)
    n = len(env.possible_agents)
    save_checkpoint(tmp_path / "p", net, {"profile": profile, "num_players": n, "env_config": cfg})
    loaded = load_checkpoint(tmp_path / "p")
    assert type(loaded.model).__name__ == "PriorCardActorCritic"
    for k, v in net.state_dict().items():
        assert torch.equal(v, loaded.model.state_dict()[k]), k

    def play(specs: list) -> list[int]:
        game = rummy_env.make(profile, **cfg)
        game.reset(seed=5)
        for s, b in enumerate(specs):
            b.reset(100 + s)
        moves = []
        for agent in game.agent_iter():
            _, _, term, trunc, _ = game.last()
            if term or trunc:
                game.step(None)
                continue
            a = specs[game.unwrapped.agent_name_mapping[agent]].act(game, agent)
            moves.append(a)
            game.step(a)
        return moves

    heuristic = play([bots.load("heuristic") for _ in range(n)])
    mixed = play([CheckpointBot(tmp_path / "p")] + [bots.load("heuristic") for _ in range(n - 1)])
    assert len(heuristic) > 20 and mixed == heuristic
    # the same network, its prior weight at zero, departs from the heuristic somewhere
    with torch.no_grad():
        net.prior_weight.zero_()
    save_checkpoint(tmp_path / "z", net, {"profile": profile, "num_players": n, "env_config": cfg})
    assert play([CheckpointBot(tmp_path / "z")] + [bots.load("heuristic") for _ in range(n - 1)]) != heuristic


def test_its_decisions_are_blind_to_hidden_cards(tmp_path: Path) -> None:
    """The prior reads only the deciding seat's view: resampling every card it cannot see changes no decision."""
    from scenarios import check_blind_to_hidden

    _, net = _net("contract_gamerules", seed=6, num_players=4)
    save_checkpoint(tmp_path / "p", net, {"profile": "contract_gamerules", "num_players": 4})
    spec = f"checkpoint:{tmp_path / 'p'}"
    name = bots.load(spec).name
    seen = check_blind_to_hidden("contract_gamerules", [spec, "heuristic", spec, "random"], (1, 2), rng_seed=3,
                                 only=name)  # fmt: skip
    assert seen["checked"] > 100 and {"draw", "act"} <= seen["phases"]


def test_a_card_prior_run_warm_starts_trains_and_resumes(tmp_path: Path) -> None:
    """``network: card_prior``: the warm start records the heuristic's moves as each row's prior (so the network
    learns to follow it: agreement near 1), PPO trains it, the checkpoint is its own kind, ``--resume`` continues."""
    save = tmp_path / "prior"
    args = (
        "--profile contract_gamerules --num-players 4 --network card_prior --action-embed 8 --total-steps 512 "
        "--bc-decisions 1200 --num-workers 0 --num-envs 4 --steps-per-update 256 --trunk [16] --eval-every 0 "
        "--final-eval-sessions 0 --progress-bar false --set 'env_config={rounds: [1]}'"
    )
    cmd = [sys.executable, str(TRAINING / "ppo.py"), *shlex.split(args)]
    out = subprocess.run(cmd + ["--runs-dir", str(tmp_path / "runs"), "--save-path", str(save)],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    meta = json.loads(save.with_suffix(".json").read_text())
    assert meta["architecture"]["kind"] == "card_prior" and meta["architecture"]["prior"] == "heuristic"
    assert meta["warm_start"]["agreement"]["overall"]["agreement"] > 0.9
    latest = next((tmp_path / "runs").iterdir()) / "checkpoints" / "latest"
    resumed = subprocess.run(
        cmd[:2] + shlex.split(args.replace("--total-steps 512", "--total-steps 1024"))
        + ["--runs-dir", str(tmp_path / "runs2"), "--resume", str(latest)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    meta2 = json.loads((next((tmp_path / "runs2").iterdir()) / "checkpoints" / "latest.json").read_text())
    assert meta2["training_steps"] >= 1024


def test_the_card_prior_config_is_valid() -> None:
    from training_scripts import load_training_module

    ppo = load_training_module("ppo")
    cfg = ppo.parse_config(ppo.Config, ["--config", str(TRAINING.parent / "configs" / "prior_contract_gamerules.yaml")])
    assert cfg.network == "card_prior" and cfg.profile == "contract_gamerules" and cfg.num_players == 4


def _anchor_batch(ppo, net, n: int = 64):
    """A rollout of ``n`` heuristic decisions in which the learner took a legal move other than the prior's, with
    zero rewards and zero stored values (so PPO's advantages are 0 and only the anchor moves the policy)."""
    import torch

    obs, masks, moves = _decisions("contract_gamerules", {"num_players": 4, "rounds": [1]}, seed=5, n=n)
    taken = np.array([next(a for a in np.flatnonzero(m) if a != p) if m.sum() > 1 else p for m, p in zip(masks, moves)])
    with torch.no_grad():
        logits = net.masked_logits(torch.from_numpy(obs), torch.from_numpy(masks), prior=moves)
        logp = torch.log_softmax(logits, -1).gather(1, torch.from_numpy(taken)[:, None]).squeeze(1).numpy()
    z = np.zeros(n, dtype=np.float32)
    return ppo.RolloutBuffer(
        obs=obs, mask=masks, action=taken, logp=logp.astype(np.float32), value=z, reward=z, done=np.ones(n, bool),
        next=np.full(n, -1), bootstrap=z, chain=np.arange(n), prior=moves.astype(np.int64), env_steps=n,
        episodes=[], reward_after_cut=0.0,
    )


def _prior_prob(net, batch) -> float:
    import torch

    with torch.no_grad():
        logits = net.masked_logits(torch.from_numpy(batch.obs), torch.from_numpy(batch.mask), prior=batch.prior)
        p = torch.softmax(logits, -1).gather(1, torch.from_numpy(batch.prior)[:, None])
    return float(p.mean())


def test_the_prior_anchor_pulls_ppo_towards_the_priors_moves() -> None:
    """``prior_coef``: PPO's loss gains ``prior_coef * mean(-log pi(prior's move))``. With advantages of 0 the
    anchored update raises the probability of the prior's moves; without it (prior_coef 0) they barely move."""
    import dataclasses

    import torch
    from training_scripts import load_training_module

    ppo = load_training_module("ppo")
    moved = {}
    for coef in (0.0, 1.0):
        _, net = _net(seed=2)
        with torch.no_grad():
            net.prior_weight.fill_(0.0)  # start far from the prior
        batch = _anchor_batch(ppo, net)
        before = _prior_prob(net, batch)
        cfg = dataclasses.replace(ppo.Config(), prior_coef=coef, ent_coef=0.0, update_epochs=4, learning_rate=1e-2)
        opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate)
        stats = ppo.ppo_update(net, opt, batch, cfg, np.random.default_rng(0))
        moved[coef] = _prior_prob(net, batch) - before
        assert ("anchor_loss" in stats) == (coef > 0)
        if coef:
            assert 0 < stats["prior_prob"] < 1 and stats["anchor_loss"] > 0
    assert moved[1.0] > 0.1 and moved[1.0] > 5 * abs(moved[0.0]), moved


def test_the_prior_anchor_needs_a_card_prior_network(tmp_path: Path) -> None:
    cmd = [sys.executable, str(TRAINING / "ppo.py"), "--profile", "contract_gamerules", "--network", "card_action",
           "--prior-coef", "0.1", "--total-steps", "64", "--runs-dir", str(tmp_path)]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 2 and "prior_coef=0.1" in out.stderr and "card_prior" in out.stderr, out.stderr[-2000:]
