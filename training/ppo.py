"""Self-play PPO with action masks for rummy_env, in the manner of CleanRL's ``ppo.py``: one file, top to bottom.

    python training/ppo.py --config configs/quickstart.yaml                 # minutes on 2 cores, then plays it
    python training/ppo.py --config configs/ppo_contract.yaml --set seed=2 --total-steps 2e6
    python training/ppo.py --config configs/ppo_contract.yaml --resume runs/<run>/checkpoints/latest

How it works
------------
* **Seats and the opponent pool.** Every environment is a whole table. At each deal every seat draws a role from
  ``pool_weights``: ``current`` (the network being trained), ``past`` (a frozen snapshot of it, taken every
  ``snapshot_every`` updates, or a checkpoint of ``pool_checkpoints``), ``heuristic`` or ``random``. At least one
  seat is ``current``. All ``current`` seats share the one network (parameter sharing) and all of their decisions
  are training data; the other seats are part of the environment.
* **Rollout.** ``num_envs`` tables are stepped together; the decisions of all ``current`` seats of all tables are
  answered by one batched forward pass (and those of each snapshot by another). Each transition stores the
  observation, the action mask, the action, its log-probability and the value.
* **Rewards.** A seat's transition gets exactly the rewards *that seat* receives from its decision up to its next
  decision (``env.rewards[agent]`` after every step of any seat); nothing of another seat's reward is ever added
  (``tests/test_training.py`` checks it). GAE runs along each seat's own chain of decisions. A chain cut by the end
  of the rollout is bootstrapped with the value of that seat's current observation.
* **Update.** PPO-clip with the masks from the buffer: the policy head is evaluated on the legal actions of each
  stored mask only (``rummy_env.models.policy``), so illegal actions have probability zero in the update too.
* **Warm start (optional).** ``bc_decisions: N`` first imitates ``bc_teacher`` (the heuristic) playing every seat
  for N decisions (cross-entropy to its actions, value regression on the GAE returns of its play), with the same
  rollout machinery; the shipped checkpoints use it.
* **Both cores.** With ``num_workers >= 1`` the tables live in worker processes that collect the next rollout
  while the learner updates on the previous one, so the policy that collected a batch is one update older than the
  one being updated (the PPO ratio is taken against the stored behaviour log-probabilities, so the update stays
  correct; the clip bounds the step from the behaviour policy). The order of messages is fixed, so a run is still
  reproducible for a given seed and ``num_workers``. ``num_workers: 0`` runs everything in one process, in strict
  collect-then-update order.
* **Evaluation and logs.** Every ``eval_every`` updates the greedy policy plays ``eval_sessions`` sessions at a
  rotating seat against ``random`` and ``heuristic`` tables; TensorBoard logs go to ``runs/<run name>``
  (``tensorboard --logdir runs``), with ``progress.jsonl`` / ``eval.jsonl`` beside them.
* **Checkpoints** are written through ``rummy_env.checkpoints`` (safetensors + JSON, never pickle):
  ``runs/<run>/checkpoints/latest`` every ``save_every`` updates and at the end (with the optimizer state, for
  ``--resume``), and ``save_path`` at the end.
"""

from __future__ import annotations

import dataclasses
import json
import math
import multiprocessing
import os
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (  # noqa: E402
    bot_unavailable_reason,
    env_kwargs,
    format_match,
    machine,
    parse_config,
    play_match,
    round_score,
    run_name,
    summarise_match,
)

import rummy_env  # noqa: E402
from rummy_env import bots as bot_registry  # noqa: E402

ROLES = ("current", "past", "heuristic", "random")
RECORDED = ("current", "teacher")  # roles whose decisions are training data


@dataclass
class Config:
    # --- the game ---
    profile: str = "contract"
    """profile to train on: contract, contract_gamerules or continental"""
    num_players: int | None = None
    """seats at the table (null: the profile's default; contract 4, contract_gamerules 3-5, continental 4-5)"""
    env_config: dict = field(default_factory=dict)
    """more keyword arguments of rummy_env.make, e.g. {rounds: [1]} (a curriculum), {deals: 1}, {reward: relative}"""
    # --- the run ---
    seed: int = 1
    """seed of everything: network initialisation, deals, roles, sampling (same seed, same curve)"""
    total_steps: int = 1_000_000
    """environment steps to train for (decisions of every seat, learners and opponents)"""
    max_minutes: float = 0.0
    """stop after this many minutes of wall time (0: no limit); the end-of-run checkpoint is still written"""
    num_envs: int = 16
    """tables stepped together (split between the workers)"""
    steps_per_update: int = 4096
    """environment steps per rollout, over all tables"""
    num_workers: int = 1
    """rollout worker processes (0: collect and update in this process, strictly in turn)"""
    torch_threads: int = 1
    """torch threads of the learner (and of each worker)"""
    # --- the network ---
    trunk: list = field(default_factory=lambda: [128, 128])
    """sizes of the shared hidden layers (rummy_env.models.policy)"""
    activation: str = "tanh"
    """tanh or relu"""
    # --- PPO ---
    learning_rate: float = 3e-4
    """Adam learning rate"""
    anneal_lr: bool = True
    """decay the learning rate linearly to zero over total_steps"""
    gamma: float = 0.995
    """discount per decision of a seat"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    num_minibatches: int = 4
    """minibatches per epoch"""
    update_epochs: int = 4
    """passes over each rollout"""
    norm_adv: bool = True
    """normalise advantages per minibatch"""
    clip_coef: float = 0.2
    """PPO clip on the probability ratio"""
    clip_vloss: bool = True
    """clip the value loss as in PPO2"""
    ent_coef: float = 0.01
    """entropy bonus"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient clipping norm"""
    target_kl: float = 0.0
    """stop an update's epochs early when the approximate KL exceeds this (0: never)"""
    # --- opponent pool ---
    pool_weights: dict = field(default_factory=lambda: {"current": 0.5, "past": 0.2, "heuristic": 0.1, "random": 0.2})
    """chance of each role per seat at each deal: current, past (frozen snapshots), heuristic, random"""
    snapshot_every: int = 10
    """updates between frozen snapshots added to the pool"""
    pool_size: int = 5
    """frozen snapshots kept (the oldest leaves first)"""
    pool_checkpoints: list = field(default_factory=list)
    """checkpoint paths added to the frozen part of the pool (e.g. a shipped checkpoint)"""
    # --- warm start ---
    bc_decisions: int = 0
    """decisions of a teacher bot to imitate before PPO (behaviour cloning of policy and value; 0: none)"""
    bc_teacher: str = "heuristic"
    """the bot imitated by the warm start (it plays every seat of the warm-start tables)"""
    bc_epochs: int = 2
    """passes over each warm-start rollout"""
    # --- evaluation, logging, checkpoints ---
    eval_every: int = 10
    """updates between evaluations (0: only at the end)"""
    eval_sessions: int = 20
    """sessions per evaluation match during training"""
    eval_opponents: list = field(default_factory=lambda: ["random", "heuristic"])
    """bot ids the greedy policy is evaluated against (a bot not available for the profile is skipped)"""
    final_eval_sessions: int = 100
    """sessions per match of the final evaluation (printed and stored in the checkpoint; 0: none)"""
    eval_workers: int = 2
    """processes for the final evaluation"""
    save_every: int = 25
    """updates between checkpoints of the run (runs/<run>/checkpoints/latest)"""
    runs_dir: str = "runs"
    """where TensorBoard logs and run checkpoints go"""
    save_path: str = ""
    """also write the final checkpoint here (e.g. checkpoints/contract); empty: only in the run folder"""
    resume: str = ""
    """checkpoint to resume from (weights, optimizer state, step counters, frozen pool)"""
    progress_bar: bool = True
    """show a tqdm progress bar"""
    config_file: str | None = None
    """(filled in) the YAML file the config came from"""


# ====================================================================================================================
# Rollout: tables, roles, batched inference, per-seat transitions
# ====================================================================================================================


class Collector:
    """``num_envs`` tables and the pool of players; ``collect(n)`` steps them ``n`` times in all."""

    def __init__(self, cfg: Config, num_envs: int, worker: int, teacher: str | None = None):
        import torch

        from rummy_env.models.policy import architecture, build_policy

        torch.set_num_threads(cfg.torch_threads)
        self.cfg = cfg
        self.rng = np.random.default_rng([cfg.seed, worker])
        kwargs = env_kwargs(cfg.env_config, cfg.num_players)
        self.envs = [rummy_env.make(cfg.profile, wrapped=False, **kwargs) for _ in range(num_envs)]
        probe = self.envs[0]
        self.n = len(probe.possible_agents)
        self.arch = architecture(probe.observer.size, probe.num_actions, trunk=cfg.trunk, activation=cfg.activation)
        self.model = build_policy(self.arch)
        self.snapshots: dict[str, Any] = {}
        self.weights = pool_weights(cfg, kwargs)
        # warm start: the teacher bot plays every seat and its decisions are recorded (behaviour cloning)
        self.teacher = teacher
        # one bot object per (table, seat) for the bot roles, re-seeded at every deal
        kinds = {"teacher": teacher} if teacher else {r: r for r in ("heuristic", "random") if self.weights[r] > 0}
        self.bots = [
            {r: [bot_registry.load(b, seed=0) for _ in range(self.n)] for r, b in kinds.items()} for _ in self.envs
        ]
        self.roles: list[list[str]] = [[] for _ in self.envs]
        self.chain: list[dict[int, int]] = [{} for _ in self.envs]  # seat -> id of its chain of decisions this deal
        self.next_chain = worker * 1_000_000_000
        self.open: list[dict[int, int]] = [{} for _ in self.envs]  # seat -> index of its last transition
        self.episode_return: list[dict[int, float]] = [{} for _ in self.envs]
        # rewards of a learner seat that arrive after its chain was cut at the end of a rollout and before its first
        # decision of the next one: the cut transition's bootstrap value stands for them, so they are not trained on
        self.reward_after_cut = 0.0
        self.episodes: list[dict[str, float]] = []
        for e in range(len(self.envs)):
            self._new_deal(e)

    # pool --------------------------------------------------------------------------------------------------------
    def set_weights(self, state: dict[str, np.ndarray]) -> None:
        """Load the current network's weights."""
        self.model.load_numpy_state(state)

    def set_snapshots(self, snapshots: dict[str, dict[str, np.ndarray] | None]) -> None:
        """Add the frozen networks given with weights, keep those given as None, drop the others."""
        from rummy_env.models.policy import build_policy

        for name, state in snapshots.items():
            if state is not None:
                net = build_policy(self.arch)
                net.load_numpy_state(state)
                self.snapshots[name] = net
        for name in list(self.snapshots):
            if name not in snapshots:
                del self.snapshots[name]
        newest = max(self.snapshots) if self.snapshots else None
        for roles in self.roles:  # a seat playing a dropped snapshot plays the newest one for the rest of the deal
            for s, role in enumerate(roles):
                if role.startswith("past:") and role[5:] not in self.snapshots:
                    roles[s] = f"past:{newest}"

    def _new_deal(self, e: int) -> None:
        """Deal table ``e`` afresh and draw a role for every seat (at least one ``current``)."""
        env = self.envs[e]
        w = dict(self.weights)
        if not self.snapshots:
            w["current"] += w.pop("past")
            w["past"] = 0.0
        p = np.array([w[r] for r in ROLES], dtype=float)
        roles = list(self.rng.choice(ROLES, size=self.n, p=p / p.sum()))
        if "current" not in roles:
            roles[int(self.rng.integers(self.n))] = "current"
        if self.teacher:
            roles = ["teacher"] * self.n
        names = sorted(self.snapshots)
        for s, role in enumerate(roles):
            if role == "past":
                roles[s] = "past:" + names[int(self.rng.integers(len(names)))]
            elif role in self.bots[e]:
                self.bots[e][role][s].reset(int(self.rng.integers(2**31)))
        self.roles[e] = roles
        self.open[e] = {}
        self.chain[e] = {}
        for s, role in enumerate(roles):
            if role in RECORDED:
                self.chain[e][s] = self.next_chain
                self.next_chain += 1
        self.episode_return[e] = {s: 0.0 for s, r in enumerate(roles) if r in RECORDED}
        env.reset(seed=int(self.rng.integers(2**31)))

    # collection --------------------------------------------------------------------------------------------------
    def collect(self, num_steps: int) -> dict[str, Any]:
        """Step the tables ``num_steps`` times in all; the learners' transitions as numpy arrays."""
        obs, masks, actions, logps, values = [], [], [], [], []
        rewards: list[float] = []
        dones: list[bool] = []
        next_index: list[int] = []
        bootstrap: list[float] = []
        chains: list[int] = []
        self.episodes = []
        self.reward_after_cut = 0.0
        steps = 0
        while steps < num_steps:
            # 1. who decides at each table, grouped by who answers
            chosen: dict[int, int] = {}
            groups: dict[str, list[int]] = defaultdict(list)
            for e, env in enumerate(self.envs):
                seat = env.agent_name_mapping[env.agent_selection]
                role = self.roles[e][seat]
                if role in ("heuristic", "random"):
                    chosen[e] = self.bots[e][role][seat].act(env, env.agent_selection)
                else:
                    groups[role].append(e)
            # 2. batched forward passes: the current network (recorded) and each frozen snapshot (not recorded);
            #    in a warm start the teacher's decisions are recorded, with the current network's values
            for role, es in groups.items():
                views = [self.envs[e].observe(self.envs[e].agent_selection) for e in es]
                o = np.stack([v["observation"] for v in views])
                m = np.stack([v["action_mask"] for v in views])
                if role == "teacher":
                    a = np.array([self._teacher_act(e) for e in es], dtype=np.int64)
                    lp, v = np.zeros(len(es), dtype=np.float32), self._values(o)
                else:
                    net = self.model if role == "current" else self.snapshots[role[5:]]
                    a, lp, v = net.act(o, m, rng=self.rng)
                for k, e in enumerate(es):
                    chosen[e] = int(a[k])
                    if role not in RECORDED:
                        continue
                    seat = self.envs[e].agent_name_mapping[self.envs[e].agent_selection]
                    i = len(actions)
                    prev = self.open[e].get(seat)
                    if prev is not None:
                        next_index[prev] = i
                    self.open[e][seat] = i
                    obs.append(o[k])
                    masks.append(m[k])
                    actions.append(a[k])
                    logps.append(lp[k])
                    values.append(v[k])
                    rewards.append(0.0)
                    dones.append(False)
                    next_index.append(-1)
                    bootstrap.append(0.0)
                    chains.append(self.chain[e][seat])
            # 3. step every table; each learner seat's reward goes to its own last transition
            for e, env in enumerate(self.envs):
                env.step(chosen[e])
                steps += 1
                for seat in self.episode_return[e]:
                    r = env.rewards[env.possible_agents[seat]]
                    if r:
                        self.episode_return[e][seat] += r
                        i = self.open[e].get(seat)
                        if i is None:
                            self.reward_after_cut += abs(r)
                        else:
                            rewards[i] += r
                if env.state_.is_terminal() or any(env.truncations.values()):
                    truncated = not env.state_.is_terminal()
                    for seat, i in self.open[e].items():
                        if truncated:  # cut by max_steps: bootstrap with the value of the seat's last observation
                            o = env.observe(env.possible_agents[seat])["observation"]
                            bootstrap[i] = float(self._values(o[None])[0])
                        else:
                            dones[i] = True
                    self._log_episode(e)
                    self._new_deal(e)
        # 4. chains cut by the end of the rollout: bootstrap with V(the seat's current observation)
        cut = [(e, seat, i) for e in range(len(self.envs)) for seat, i in self.open[e].items()]
        if cut:
            o = np.stack([self.envs[e].observe(self.envs[e].possible_agents[s])["observation"] for e, s, _ in cut])
            v = self._values(o)
            for k, (_, _, i) in enumerate(cut):
                bootstrap[i] = float(v[k])
        for e in range(len(self.envs)):  # the next rollout starts new chains
            self.open[e] = {}
        return {
            "obs": np.asarray(obs, dtype=np.float32).reshape(-1, self.arch["obs_size"]),
            "mask": np.asarray(masks, dtype=np.int8).reshape(-1, self.arch["num_actions"]),
            "action": np.asarray(actions, dtype=np.int64),
            "logp": np.asarray(logps, dtype=np.float32),
            "value": np.asarray(values, dtype=np.float32),
            "reward": np.asarray(rewards, dtype=np.float32),
            "done": np.asarray(dones, dtype=bool),
            "next": np.asarray(next_index, dtype=np.int64),
            "bootstrap": np.asarray(bootstrap, dtype=np.float32),
            "chain": np.asarray(chains, dtype=np.int64),
            "env_steps": steps,
            "episodes": self.episodes,
            "reward_after_cut": self.reward_after_cut,
        }

    def _teacher_act(self, e: int) -> int:
        env = self.envs[e]
        return self.bots[e]["teacher"][env.agent_name_mapping[env.agent_selection]].act(env, env.agent_selection)

    def _values(self, obs: np.ndarray) -> np.ndarray:
        import torch

        with torch.no_grad():
            return self.model.value(torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32))).numpy()

    def _log_episode(self, e: int) -> None:
        env = self.envs[e]
        results = env.state_.round_results or [{}]
        for seat, ret in self.episode_return[e].items():
            self.episodes.append(
                {
                    "chain": self.chain[e][seat],
                    "seat": seat,
                    "return": ret,
                    "round_scores": [round_score(r, seat) for r in results if r],
                    "opponents": ",".join(r for s, r in enumerate(self.roles[e]) if s != seat),
                }
            )


def pool_weights(cfg: Config, kwargs: dict[str, Any]) -> dict[str, float]:
    """The role weights, with ``heuristic`` dropped if there is no heuristic for this profile yet."""
    w = {r: float(cfg.pool_weights.get(r, 0.0)) for r in ROLES}
    unknown = set(cfg.pool_weights) - set(ROLES)
    if unknown:
        raise ValueError(f"pool_weights has unknown roles {sorted(unknown)}; allowed: {list(ROLES)}")
    if w["heuristic"] > 0 and bot_unavailable_reason(cfg.profile, "heuristic", kwargs):
        w["heuristic"] = 0.0
    if sum(w.values()) <= 0:
        raise ValueError(f"pool_weights {cfg.pool_weights} give no role a positive weight")
    return w


# ====================================================================================================================
# Advantages: GAE along each seat's own chain of decisions
# ====================================================================================================================


def gae(
    rewards: np.ndarray,
    values: np.ndarray,
    dones: np.ndarray,
    next_index: np.ndarray,
    bootstrap: np.ndarray,
    gamma: float,
    lam: float,
) -> tuple[np.ndarray, np.ndarray]:
    """(advantages, returns). Transition ``i`` is followed by ``next_index[i]`` of the same seat (-1: the chain ends
    here: with the episode if ``dones[i]``, else cut and valued ``bootstrap[i]``). Next indices are always larger,
    so one backward pass suffices."""
    n = len(rewards)
    adv = np.zeros(n, dtype=np.float32)
    for i in range(n - 1, -1, -1):
        j = next_index[i]
        if dones[i]:
            next_value, next_adv = 0.0, 0.0
        elif j >= 0:
            next_value, next_adv = values[j], adv[j]
        else:
            next_value, next_adv = bootstrap[i], 0.0
        delta = rewards[i] + gamma * next_value - values[i]
        adv[i] = delta + gamma * lam * next_adv
    return adv, adv + values


# ====================================================================================================================
# PPO update
# ====================================================================================================================


def ppo_update(
    model: Any, optimizer: Any, batch: dict[str, Any], cfg: Config, rng: np.random.Generator, imitate: bool = False
) -> dict:
    """PPO-clip epochs over ``batch``; the stored masks give each row's legal actions. ``imitate``: the warm start's
    behaviour cloning instead (cross-entropy to the recorded teacher actions, plus the same value regression)."""
    import torch
    from torch import nn

    from rummy_env.models.policy import legal_index

    n = len(batch["action"])
    adv_np, ret_np = gae(
        batch["reward"], batch["value"], batch["done"], batch["next"], batch["bootstrap"], cfg.gamma, cfg.gae_lambda
    )
    index_np, valid_np = legal_index(batch["mask"])
    position_np = np.argmax(index_np == batch["action"][:, None], axis=1)
    counts = valid_np.sum(axis=1)
    obs = torch.from_numpy(batch["obs"])
    index, valid = torch.from_numpy(index_np), torch.from_numpy(valid_np)
    position = torch.from_numpy(position_np)
    old_logp = torch.from_numpy(batch["logp"])
    old_value = torch.from_numpy(batch["value"])
    advantages, returns = torch.from_numpy(adv_np), torch.from_numpy(ret_np)
    mb_size = max(1, math.ceil(n / cfg.num_minibatches))
    stats: dict[str, list[float]] = defaultdict(list)
    for _epoch in range(cfg.bc_epochs if imitate else cfg.update_epochs):
        perm = rng.permutation(n)
        for start in range(0, n, mb_size):
            mb = perm[start : start + mb_size]
            k = int(counts[mb].max())  # rows are packed to the left: trim the padding this minibatch does not need
            logp, entropy, value = model.evaluate(obs[mb], index[mb, :k], valid[mb, :k], position[mb])
            if imitate:
                v_loss = 0.5 * ((value - returns[mb]) ** 2).mean()
                loss = -logp.mean() + cfg.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
                optimizer.step()
                stats["imitation_loss"].append(-logp.mean().item())
                stats["value_loss"].append(v_loss.item())
                stats["teacher_action_prob"].append(logp.exp().mean().item())
                continue
            log_ratio = logp - old_logp[mb]
            ratio = log_ratio.exp()
            with torch.no_grad():
                stats["approx_kl"].append(float(((ratio - 1) - log_ratio).mean()))
                stats["clipfrac"].append(float(((ratio - 1.0).abs() > cfg.clip_coef).float().mean()))
            mb_adv = advantages[mb]
            if cfg.norm_adv and len(mb) > 1:
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
            pg_loss = torch.max(-mb_adv * ratio, -mb_adv * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
            if cfg.clip_vloss:
                v_clipped = old_value[mb] + (value - old_value[mb]).clamp(-cfg.clip_coef, cfg.clip_coef)
                v_loss = 0.5 * torch.max((value - returns[mb]) ** 2, (v_clipped - returns[mb]) ** 2).mean()
            else:
                v_loss = 0.5 * ((value - returns[mb]) ** 2).mean()
            ent = entropy.mean()
            loss = pg_loss - cfg.ent_coef * ent + cfg.vf_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
            optimizer.step()
            stats["policy_loss"].append(pg_loss.item())
            stats["value_loss"].append(v_loss.item())
            stats["entropy"].append(ent.item())
        if cfg.target_kl and np.mean(stats["approx_kl"][-math.ceil(n / mb_size) :]) > cfg.target_kl:
            break
    var_y = float(np.var(ret_np))
    out = {k: float(np.mean(v)) for k, v in stats.items()}
    out["explained_variance"] = float("nan") if var_y == 0 else 1 - float(np.var(ret_np - batch["value"])) / var_y
    out["samples"] = n
    out["mean_legal_actions"] = float(counts.mean())
    return out


# ====================================================================================================================
# Worker processes: each holds a Collector; the learner sends weights, the worker answers with a rollout
# ====================================================================================================================


def worker_main(conn: Any, cfg: Config, num_envs: int, worker: int, teacher: str | None = None) -> None:
    """Worker loop: ``("collect", weights, snapshots, steps)`` -> rollout; ``("close",)`` -> exit."""
    collector = Collector(cfg, num_envs, worker, teacher)
    try:
        while True:
            msg = conn.recv()
            if msg[0] == "close":
                break
            _, weights, snapshots, steps = msg
            collector.set_weights(weights)
            collector.set_snapshots(snapshots)
            t, c = time.perf_counter(), time.process_time()
            batch = collector.collect(steps)
            batch["collect_seconds"] = time.perf_counter() - t
            batch["collect_cpu_seconds"] = time.process_time() - c
            conn.send(batch)
    except (BrokenPipeError, EOFError, ConnectionResetError):
        pass  # the learner has gone (it ended the run): nothing is waiting for this rollout
    finally:
        conn.close()


class Rollouts:
    """The collectors: in this process (``num_workers = 0``) or in worker processes collecting ahead."""

    def __init__(self, cfg: Config, teacher: str | None = None):
        self.cfg = cfg
        k = max(1, cfg.num_workers)
        envs = [cfg.num_envs // k + (w < cfg.num_envs % k) for w in range(k)]
        steps = [cfg.steps_per_update // k + (w < cfg.steps_per_update % k) for w in range(k)]
        self.steps = steps
        self.known: list[set[str]] = [set() for _ in range(k)]
        self.pending = False  # a rollout was requested and not received
        if cfg.num_workers == 0:
            self.local = Collector(cfg, envs[0], 0, teacher)
            self.conns: list[Any] = []
        else:
            self.local = None
            ctx = multiprocessing.get_context("spawn")
            self.conns, self.procs = [], []
            for w in range(k):
                parent, child = ctx.Pipe()
                p = ctx.Process(target=worker_main, args=(child, cfg, envs[w], w, teacher), daemon=True)
                p.start()
                self.conns.append(parent)
                self.procs.append(p)

    def _snapshot_message(self, w: int, snapshots: dict[str, dict[str, np.ndarray]]) -> dict[str, Any]:
        msg = {name: (None if name in self.known[w] else state) for name, state in snapshots.items()}
        self.known[w] = set(snapshots)
        return msg

    def request(self, weights: dict[str, np.ndarray], snapshots: dict[str, dict[str, np.ndarray]]) -> None:
        """Workers start collecting the next rollout with these weights (no-op in single-process mode)."""
        for w, conn in enumerate(self.conns):
            conn.send(("collect", weights, self._snapshot_message(w, snapshots), self.steps[w]))
        self.pending = bool(self.conns)

    def collect_now(self, weights: dict[str, np.ndarray], snapshots: dict[str, dict[str, np.ndarray]]) -> dict:
        """Single-process mode: collect one rollout with these weights now."""
        self.local.set_weights(weights)
        self.local.set_snapshots(self._snapshot_message(0, snapshots))
        t, c = time.perf_counter(), time.process_time()
        batch = self.local.collect(self.steps[0])
        batch["collect_seconds"] = time.perf_counter() - t
        batch["collect_cpu_seconds"] = time.process_time() - c
        return batch

    def receive(self) -> dict[str, Any]:
        """The rollouts the workers were asked for, concatenated (transition links shifted accordingly)."""
        parts = [conn.recv() for conn in self.conns]
        self.pending = False
        return merge_batches(parts)

    def close(self) -> None:
        """Stop the workers; a rollout still being collected (the run ended before it was needed) is dropped."""
        for conn in self.conns:
            try:
                conn.send(("close",))
            except (BrokenPipeError, OSError):
                pass
        for p in getattr(self, "procs", []):
            if self.pending:  # it would only finish a rollout nobody reads: stop it now
                p.terminate()
            p.join(timeout=10)
        for conn in self.conns:
            conn.close()
        self.conns = []


def merge_batches(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """Concatenate rollouts; ``next`` indices are shifted by the rows before each part."""
    if len(parts) == 1:
        return parts[0]
    out: dict[str, Any] = {}
    offset = 0
    nexts = []
    for p in parts:
        nexts.append(np.where(p["next"] >= 0, p["next"] + offset, -1))
        offset += len(p["action"])
    for key in ("obs", "mask", "action", "logp", "value", "reward", "done", "bootstrap", "chain"):
        out[key] = np.concatenate([p[key] for p in parts])
    out["next"] = np.concatenate(nexts)
    out["env_steps"] = sum(p["env_steps"] for p in parts)
    out["episodes"] = [ep for p in parts for ep in p["episodes"]]
    out["reward_after_cut"] = sum(p["reward_after_cut"] for p in parts)
    out["collect_seconds"] = max(p["collect_seconds"] for p in parts)
    out["collect_cpu_seconds"] = max(p["collect_cpu_seconds"] for p in parts)
    return out


# ====================================================================================================================
# Warm start: behaviour cloning of a teacher bot before PPO
# ====================================================================================================================


def warm_start(model: Any, optimizer: Any, cfg: Config, rng: np.random.Generator, writer: Any) -> int:
    """Imitate ``cfg.bc_teacher`` playing every seat for ``cfg.bc_decisions`` decisions (policy: cross-entropy to
    its actions; value: GAE returns of its play); the same rollout machinery, with the teacher's actions recorded."""
    teacher = Rollouts(cfg, teacher=cfg.bc_teacher)
    done = 0
    try:
        if cfg.num_workers:
            teacher.request(model.numpy_state(), {})
        while done < cfg.bc_decisions:
            batch = teacher.receive() if cfg.num_workers else teacher.collect_now(model.numpy_state(), {})
            done += batch["env_steps"]
            if cfg.num_workers and done < cfg.bc_decisions:
                teacher.request(model.numpy_state(), {})
            stats = ppo_update(model, optimizer, batch, cfg, rng, imitate=True)
            for k, v in stats.items():
                writer.add_scalar(f"warm_start/{k}", v, done)
            if cfg.progress_bar or done >= cfg.bc_decisions:
                print(
                    f"warm start: {done} {cfg.bc_teacher} decisions imitated, its action's probability "
                    f"{stats['teacher_action_prob']:.3f}",
                    flush=True,
                )
    finally:
        teacher.close()
    return done


# ====================================================================================================================
# Evaluation during training
# ====================================================================================================================


def evaluate_model(model: Any, cfg: Config, opponents: list[str], sessions: int, seed: int) -> dict[str, Any]:
    """The greedy policy at a rotating seat against each opponent bot; summaries keyed by opponent."""
    from rummy_env.bots.checkpoint_bot import PolicyBot

    kwargs = env_kwargs(cfg.env_config, cfg.num_players)
    out = {}
    for opp in opponents:
        reason = bot_unavailable_reason(cfg.profile, opp, kwargs)
        if reason:
            out[opp] = {"opponent": opp, "skipped": reason}
            continue
        records = play_match(lambda: PolicyBot(model, greedy=True), cfg.profile, opp, sessions, seed, kwargs)
        out[opp] = summarise_match(cfg.profile, opp, records)
    return out


# ====================================================================================================================
# Main: setup, loop (rollout, update, logging, snapshots, evaluation, checkpoints), final evaluation
# ====================================================================================================================


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Train with the config from the command line; returns a summary (also printed)."""
    cfg: Config = parse_config(Config, argv, description=__doc__.splitlines()[0])
    import torch
    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

    from rummy_env.models.checkpoints import load_checkpoint, load_train_state, save_checkpoint
    from rummy_env.models.policy import architecture, build_policy

    # --- setup ------------------------------------------------------------------------------------------------------
    torch.set_num_threads(cfg.torch_threads)
    torch.manual_seed(cfg.seed)
    kwargs = env_kwargs(cfg.env_config, cfg.num_players)
    probe = rummy_env.make(cfg.profile, wrapped=False, **kwargs)
    num_players = len(probe.possible_agents)
    arch = architecture(probe.observer.size, probe.num_actions, trunk=cfg.trunk, activation=cfg.activation)
    model = build_policy(arch, seed=cfg.seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.learning_rate, eps=1e-5)
    name = run_name(cfg.profile, "ppo", cfg.seed)
    run_dir = Path(cfg.runs_dir) / name
    (run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
    writer = SummaryWriter(str(run_dir))
    writer.add_text("config", "\n".join(f"    {k}: {v!r}" for k, v in dataclasses.asdict(cfg).items()))
    global_step, update, wall_before = 0, 0, 0.0
    snapshots: dict[str, dict[str, np.ndarray]] = {}
    for path in cfg.pool_checkpoints:
        snap = load_checkpoint(path, expect_profile=cfg.profile, expect_num_players=num_players)
        if snap.model.arch != arch:
            raise ValueError(f"pool checkpoint {path}: architecture {snap.model.arch} differs from this run's {arch}")
        snapshots[f"file:{Path(path).name}"] = snap.model.numpy_state()
    if cfg.resume:
        ckpt = load_checkpoint(cfg.resume, expect_profile=cfg.profile, expect_num_players=num_players)
        if ckpt.model.arch != arch:
            raise ValueError(f"--resume {cfg.resume}: architecture {ckpt.model.arch} differs from the config's {arch}")
        model.load_state_dict(ckpt.model.state_dict())
        state = ckpt.metadata.get("training_state", {})
        global_step, update = int(ckpt.metadata["training_steps"]), int(state.get("update", 0))
        wall_before = float(state.get("wall_seconds", 0.0))
        train = load_train_state(cfg.resume, ckpt.metadata)
        if train:
            load_optimizer_tensors(optimizer, train)
        for snap_name in state.get("pool", []):
            p = Path(cfg.resume).parent.parent / "pool" / snap_name
            snapshots[snap_name] = load_checkpoint(p, expect_profile=cfg.profile).model.numpy_state()
    rng = np.random.default_rng([cfg.seed, 10_000 + update])
    start_step = global_step
    num_updates = max(1, math.ceil(cfg.total_steps / cfg.steps_per_update))
    start = time.perf_counter()
    bc_done = 0
    if cfg.resume:
        bc_done = int(ckpt.metadata.get("warm_start", {}).get("decisions", 0))
    elif cfg.bc_decisions:
        bc_done = warm_start(model, optimizer, cfg, rng, writer)
    bc_seconds = time.perf_counter() - start
    # a warm-start-only run (total_steps 0, or a resumed run already done) starts no rollout workers
    rollouts = Rollouts(cfg) if global_step < cfg.total_steps else None
    ppo_start = time.perf_counter()  # throughput is PPO's: rollouts, updates and periodic evaluations
    last_eval: dict[str, Any] = {}
    history: list[dict[str, Any]] = []

    def metadata(evaluation: dict[str, Any]) -> dict[str, Any]:
        return {
            "profile": cfg.profile,
            "num_players": num_players,
            "env_config": {k: list(v) if isinstance(v, tuple) else v for k, v in kwargs.items()},
            "training_steps": global_step,
            "config": dataclasses.asdict(cfg),
            "evaluation": evaluation,
            "algorithm": "ppo (training/ppo.py)",
            "warm_start": {"teacher": cfg.bc_teacher, "decisions": bc_done, "seconds": round(bc_seconds, 1)}
            if bc_done
            else {},
            "run_name": name,
            "training_state": {
                "update": update,
                "wall_seconds": round(wall_before + time.perf_counter() - start, 1),
                "pool": [s for s in snapshots if not s.startswith("file:")],
            },
        }

    def save_run_checkpoint(evaluation: dict[str, Any]) -> None:
        save_checkpoint(run_dir / "checkpoints" / "latest", model, metadata(evaluation), optimizer_tensors(optimizer))

    # --- training loop --------------------------------------------------------------------------------------------
    bar = tqdm(
        total=cfg.total_steps,
        initial=min(global_step, cfg.total_steps),
        disable=not cfg.progress_bar,
        unit="step",
        dynamic_ncols=True,
    )
    if cfg.num_workers and rollouts is not None:
        rollouts.request(model.numpy_state(), snapshots)
    try:
        while global_step < cfg.total_steps:
            if cfg.max_minutes and time.perf_counter() - start > cfg.max_minutes * 60:
                break
            t0 = time.perf_counter()
            # rollout (workers: the one collected during the previous update; then ask for the next one at once)
            if cfg.num_workers:
                batch = rollouts.receive()
            else:
                batch = rollouts.collect_now(model.numpy_state(), snapshots)
            wait = time.perf_counter() - t0
            global_step += batch["env_steps"]
            update += 1
            last = global_step >= cfg.total_steps or (
                cfg.max_minutes and time.perf_counter() - start > cfg.max_minutes * 60
            )
            if cfg.num_workers and not last:
                rollouts.request(model.numpy_state(), snapshots)
            # update
            if cfg.anneal_lr:
                frac = max(0.0, 1.0 - (update - 1) / num_updates)
                optimizer.param_groups[0]["lr"] = frac * cfg.learning_rate
            t1, c1 = time.perf_counter(), time.process_time()
            stats = ppo_update(model, optimizer, batch, cfg, rng) if len(batch["action"]) else {}
            update_seconds, update_cpu = time.perf_counter() - t1, time.process_time() - c1
            # logging
            elapsed = time.perf_counter() - start
            sps = (global_step - start_step) / max(time.perf_counter() - ppo_start, 1e-9)
            writer.add_scalar("charts/learning_rate", optimizer.param_groups[0]["lr"], global_step)
            writer.add_scalar("charts/SPS", sps, global_step)
            writer.add_scalar("charts/learner_samples", len(batch["action"]), global_step)
            writer.add_scalar("time/collect_seconds", batch["collect_seconds"], global_step)
            writer.add_scalar("time/update_seconds", update_seconds, global_step)
            writer.add_scalar("time/wait_for_rollout_seconds", wait, global_step)
            for k, v in stats.items():
                writer.add_scalar(f"losses/{k}", v, global_step)
            if batch["episodes"]:
                rets = [ep["return"] for ep in batch["episodes"]]
                writer.add_scalar("charts/episode_return", float(np.mean(rets)), global_step)
            row = {
                "update": update,
                "global_step": global_step,
                "wall_seconds": round(elapsed, 2),
                "sps": round(sps),
                "samples": len(batch["action"]),
                "collect_seconds": round(batch["collect_seconds"], 3),
                "update_seconds": round(update_seconds, 3),
                "collect_cpu_seconds": round(batch["collect_cpu_seconds"], 3),
                "update_cpu_seconds": round(update_cpu, 3),
                "wait_seconds": round(wait, 3),
                "load_average": round(os.getloadavg()[0], 2),
                "reward_after_cut": batch["reward_after_cut"],
                **{k: round(v, 5) for k, v in stats.items()},
            }
            if batch["episodes"]:
                row["episode_return"] = round(float(np.mean([ep["return"] for ep in batch["episodes"]])), 4)
            with open(run_dir / "progress.jsonl", "a") as f:
                f.write(json.dumps(row) + "\n")
            bar.update(batch["env_steps"])
            bar.set_postfix(sps=int(sps), upd=update, ret=row.get("episode_return", "-"))
            # opponent pool
            if cfg.snapshot_every and update % cfg.snapshot_every == 0 and cfg.pool_weights.get("past", 0) > 0:
                snap_name = f"snap_{update:06d}"
                snapshots[snap_name] = model.numpy_state()
                save_checkpoint(run_dir / "pool" / snap_name, model, metadata({}))
                own = [s for s in snapshots if not s.startswith("file:")]
                for old in own[: max(0, len(own) - max(1, cfg.pool_size))]:
                    del snapshots[old]
                    for suffix in (".safetensors", ".json"):
                        (run_dir / "pool" / (old + suffix)).unlink(missing_ok=True)
            # evaluation
            if cfg.eval_every and update % cfg.eval_every == 0 and not last:
                last_eval = evaluate_model(model, cfg, cfg.eval_opponents, cfg.eval_sessions, seed=update)
                log_eval(writer, run_dir, last_eval, global_step, update, elapsed, history)
                bar.write(f"update {update}, step {global_step}: " + "; ".join(short(m) for m in last_eval.values()))
            if cfg.save_every and update % cfg.save_every == 0:
                save_run_checkpoint(last_eval)
    finally:
        bar.close()
        if rollouts is not None:
            rollouts.close()

    # --- end: final evaluation, checkpoints, summary ---------------------------------------------------------------
    wall = time.perf_counter() - start
    ppo_wall = time.perf_counter() - ppo_start
    final_small: dict[str, Any] = {}
    if cfg.eval_every:
        final_small = evaluate_model(model, cfg, cfg.eval_opponents, cfg.eval_sessions, seed=update)
        log_eval(writer, run_dir, final_small, global_step, update, wall, history)
    save_run_checkpoint(last_eval)
    evaluation: dict[str, Any] = dict(final_small) if cfg.eval_every else {}  # replaced by the final evaluation
    latest = str(run_dir / "checkpoints" / "latest")
    if cfg.final_eval_sessions:
        from common import evaluate_checkpoint

        for opp in cfg.eval_opponents:
            evaluation[opp] = evaluate_checkpoint(
                latest, opp, cfg.final_eval_sessions, seed=999, workers=cfg.eval_workers
            )
    meta = metadata(evaluation)
    meta["training_state"]["wall_seconds"] = round(wall_before + wall, 1)
    meta["throughput_env_steps_per_second"] = round((global_step - start_step) / ppo_wall)
    meta["machine"] = machine()
    save_checkpoint(run_dir / "checkpoints" / "latest", model, meta, optimizer_tensors(optimizer))
    if cfg.save_path:
        save_checkpoint(cfg.save_path, model, meta)
    writer.close()
    summary = {
        "run": name,
        "run_dir": str(run_dir),
        "checkpoint": str(cfg.save_path or latest),
        "env_steps": global_step,
        "updates": update,
        "wall_seconds": round(wall, 1),
        "env_steps_per_second": round((global_step - start_step) / ppo_wall),
        "evaluation": evaluation,
    }
    print(
        f"\n{cfg.profile} ({num_players} players): {global_step - start_step} env steps of PPO in {ppo_wall:.0f} s "
        f"({summary['env_steps_per_second']} steps/s incl. updates and evaluations), {update} updates"
        + (f", after a {bc_seconds:.0f} s warm start" if bc_done else "")
        + f"; checkpoint {summary['checkpoint']}"
    )
    for m in evaluation.values():
        print("  " + format_match(m))
    return summary


def short(m: dict[str, Any]) -> str:
    """A short form of a match summary for the progress bar."""
    if "skipped" in m:
        return f"{m['opponent']}: skipped"
    return f"vs {m['opponent']} {m['policy']:.1f} (them {m['opponents']:.1f})"


def log_eval(
    writer: Any, run_dir: Path, ev: dict[str, Any], step: int, update: int, wall: float, history: list
) -> None:
    """Evaluation figures to TensorBoard and eval.jsonl."""
    for opp, m in ev.items():
        if "skipped" in m:
            continue
        writer.add_scalar(f"eval/{opp}/{m['metric']}_policy", m["policy"], step)
        writer.add_scalar(f"eval/{opp}/{m['metric']}_opponents", m["opponents"], step)
        writer.add_scalar(f"eval/{opp}/difference", m["difference"], step)
        writer.add_scalar(f"eval/{opp}/rounds_won_share", m["policy_rounds_won_share"], step)
    row = {"update": update, "global_step": step, "wall_seconds": round(wall, 1), "eval": ev}
    history.append(row)
    with open(run_dir / "eval.jsonl", "a") as f:
        f.write(json.dumps(row) + "\n")


def optimizer_tensors(optimizer: Any) -> dict[str, Any]:
    """Adam's state as flat tensors (for X.train.safetensors)."""
    import torch

    out = {}
    for i, st in optimizer.state_dict()["state"].items():
        for k, v in st.items():
            out[f"state.{i}.{k}"] = v if torch.is_tensor(v) else torch.tensor(float(v))
    return out


def load_optimizer_tensors(optimizer: Any, tensors: dict[str, Any]) -> None:
    """Restore Adam's state from ``optimizer_tensors``."""
    sd = optimizer.state_dict()
    state: dict[int, dict[str, Any]] = defaultdict(dict)
    for key, v in tensors.items():
        _, i, k = key.split(".", 2)
        state[int(i)][k] = v
    sd["state"] = dict(state)
    optimizer.load_state_dict(sd)


if __name__ == "__main__":
    main()
