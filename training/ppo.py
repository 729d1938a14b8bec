"""Self-play PPO with action masks for rummy_env, in the manner of CleanRL's ``ppo.py``: one file, top to bottom.

    python training/ppo.py --config configs/quickstart.yaml                 # minutes on 2 cores, then plays it
    python training/ppo.py --config configs/ppo_contract.yaml --set seed=2 --total-steps 2e6
    python training/ppo.py --config configs/ppo_contract.yaml --resume runs/<run>/checkpoints/latest

Top to bottom: the config; the rollout (``Collector`` steps ``num_envs`` whole tables together, each seat played by
a role of the opponent pool, the decisions of all ``current`` seats answered by one batched forward pass, and fills a
``RolloutBuffer``: observation, action mask, action, log-probability, value, and exactly the rewards that seat
receives up to its next decision); GAE along each seat's own chain of decisions; the PPO-clip update, evaluated on the
stored masks' legal actions only; evaluation and logging (TensorBoard, ``progress.jsonl``, ``eval.jsonl`` under
``runs/<run name>``); ``main``. The helpers beside it: ``opponent_pool.py`` (roles of the seats, frozen snapshots),
``ppo_workers.py`` (``num_workers >= 1``: tables in worker processes collecting the next rollout while the learner
updates), ``warm_start.py`` (``bc_decisions``: imitate ``bc_teacher`` first), ``resume.py`` (checkpoint metadata,
optimizer state, ``--resume``). The full guide: docs/training.md.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (  # noqa: E402
    bot_available,
    env_kwargs,
    evaluate_checkpoint,
    format_match,
    machine,
    parse_config,
    play_match,
    round_score,
    run_name,
    summarise_match,
)
from opponent_pool import SeatRoles, SnapshotPool  # noqa: E402
from ppo_workers import Rollouts  # noqa: E402
from resume import RunState, checkpoint_metadata, optimizer_tensors, resume_run  # noqa: E402
from warm_start import warm_start  # noqa: E402

import rummy_env  # noqa: E402

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
# Rollout: the buffer, the tables and their seats, batched inference, per-seat transitions
# ====================================================================================================================


@dataclass
class RolloutBuffer:
    """One rollout: a row per recorded decision (of a ``current`` seat, or of the warm start's teacher), in the
    order they were taken, and what the rollout saw."""

    obs: np.ndarray  # float32 [n, obs_size]: the seat's observation
    mask: np.ndarray  # int8 [n, num_actions]: its legal actions
    action: np.ndarray  # int64: the action taken
    logp: np.ndarray  # float32: its log-probability under the behaviour policy (0 for the teacher)
    value: np.ndarray  # float32: the network's value of the observation
    reward: np.ndarray  # float32: the seat's own rewards from this decision up to its next one
    done: np.ndarray  # bool: the episode ended before the seat's next decision
    next: np.ndarray  # int64: the row of the seat's next decision (-1: none in this rollout)
    bootstrap: np.ndarray  # float32: the value standing for the rest of a chain cut here (truncated or rollout end)
    chain: np.ndarray  # int64: id of the seat's chain of decisions (one per seat and deal)
    env_steps: int  # environment steps of every seat
    episodes: list[dict[str, Any]]  # per recorded seat of each finished deal: chain, seat, return, round scores
    reward_after_cut: float  # |rewards| that reached a seat after its chain was cut (left to the bootstrap value)
    collect_seconds: float = 0.0
    collect_cpu_seconds: float = 0.0
    ROWS: ClassVar[tuple[str, ...]] = tuple("obs mask action logp value reward done next bootstrap chain".split())

    def __len__(self) -> int:
        return len(self.action)

    @classmethod
    def from_rows(cls, rows: dict[str, list], arch: dict[str, Any], **rest: Any) -> RolloutBuffer:
        """The buffer of the lists ``rows`` (one per field of ``ROWS``) collected for a network of ``arch``."""
        return cls(
            obs=np.asarray(rows["obs"], dtype=np.float32).reshape(-1, arch["obs_size"]),
            mask=np.asarray(rows["mask"], dtype=np.int8).reshape(-1, arch["num_actions"]),
            action=np.asarray(rows["action"], dtype=np.int64),
            logp=np.asarray(rows["logp"], dtype=np.float32),
            value=np.asarray(rows["value"], dtype=np.float32),
            reward=np.asarray(rows["reward"], dtype=np.float32),
            done=np.asarray(rows["done"], dtype=bool),
            next=np.asarray(rows["next"], dtype=np.int64),
            bootstrap=np.asarray(rows["bootstrap"], dtype=np.float32),
            chain=np.asarray(rows["chain"], dtype=np.int64),
            **rest,
        )


def _session_over(env: Any) -> bool:
    """``env.session_over``; before that accessor exists, the engine state's ``is_terminal()``."""
    over = getattr(env, "session_over", None)
    return env.state_.is_terminal() if over is None else bool(over)


class Collector:
    """``num_envs`` tables and who plays their seats; ``collect(n)`` steps them ``n`` times in all.
    ``teacher``: a bot id that plays every seat, its decisions recorded (the warm start)."""

    def __init__(self, cfg: Config, num_envs: int, worker: int, teacher: str | None = None):
        import torch

        from rummy_env.models.policy import architecture, build_policy

        torch.set_num_threads(cfg.torch_threads)
        self.rng = np.random.default_rng([cfg.seed, worker])
        kwargs = env_kwargs(cfg.env_config, cfg.num_players)
        self.envs = [rummy_env.make(cfg.profile, wrapped=False, **kwargs) for _ in range(num_envs)]
        probe = self.envs[0]
        self.arch = architecture(probe.observer.size, probe.num_actions, trunk=cfg.trunk, activation=cfg.activation)
        self.model = build_policy(self.arch)
        self.seats = SeatRoles(cfg, kwargs, self.arch, num_envs, len(probe.possible_agents), self.rng, teacher)
        self.chain: list[dict[int, int]] = [{} for _ in self.envs]  # seat -> id of its chain of decisions this deal
        self.next_chain = worker * 1_000_000_000
        self.open: list[dict[int, int]] = [{} for _ in self.envs]  # seat -> row of its last transition
        self.episode_return: list[dict[int, float]] = [{} for _ in self.envs]
        # rewards of a learner seat that arrive after its chain was cut at the end of a rollout and before its first
        # decision of the next one: the cut transition's bootstrap value stands for them, so they are not trained on
        self.reward_after_cut = 0.0
        self.episodes: list[dict[str, Any]] = []
        for e in range(num_envs):
            self._new_deal(e)

    def set_weights(self, state: dict[str, np.ndarray]) -> None:
        """Load the current network's weights."""
        self.model.load_numpy_state(state)

    def set_snapshots(self, snapshots: dict[str, dict[str, np.ndarray] | None]) -> None:
        """Add the frozen networks given with weights, keep those given as None, drop the others."""
        self.seats.set_snapshots(snapshots)

    def _new_deal(self, e: int) -> None:
        """Deal table ``e`` afresh with new roles; each recorded seat starts a chain of decisions."""
        roles = self.seats.deal(e)
        self.open[e] = {}
        self.chain[e] = {}
        for s, role in enumerate(roles):
            if role in RECORDED:
                self.chain[e][s] = self.next_chain
                self.next_chain += 1
        self.episode_return[e] = {s: 0.0 for s, r in enumerate(roles) if r in RECORDED}
        self.envs[e].reset(seed=int(self.rng.integers(2**31)))

    def collect(self, num_steps: int) -> RolloutBuffer:
        """Step the tables ``num_steps`` times in all; the recorded seats' transitions."""
        rows: dict[str, list] = {key: [] for key in RolloutBuffer.ROWS}
        self.episodes, self.reward_after_cut, steps = [], 0.0, 0
        while steps < num_steps:
            chosen = self._decide(rows)
            for e, env in enumerate(self.envs):  # step every table; each seat's reward goes to its own transition
                env.step(chosen[e])
                steps += 1
                self._credit_rewards(e, rows["reward"])
                over = _session_over(env)
                if over or any(env.truncations.values()):
                    self._end_deal(e, rows, truncated=not over)
        # chains cut by the end of the rollout: bootstrap with V(the seat's current observation)
        cut = [(e, seat, i) for e in range(len(self.envs)) for seat, i in self.open[e].items()]
        if cut:
            o = np.stack([self.envs[e].observe(self.envs[e].possible_agents[s])["observation"] for e, s, _ in cut])
            for v, (_, _, i) in zip(self._values(o), cut):
                rows["bootstrap"][i] = float(v)
        self.open = [{} for _ in self.envs]  # the next rollout starts new chains
        return RolloutBuffer.from_rows(
            rows, self.arch, env_steps=steps, episodes=self.episodes, reward_after_cut=self.reward_after_cut
        )

    def _decide(self, rows: dict[str, list]) -> dict[int, int]:
        """The action at every table: bots one by one; the current network, and each frozen snapshot, in one batched
        forward pass (in a warm start the teacher's actions, with the current network's values). The decisions of
        recorded seats become rows."""
        chosen: dict[int, int] = {}
        groups: dict[str, list[int]] = defaultdict(list)
        for e, env in enumerate(self.envs):
            seat = env.agent_name_mapping[env.agent_selection]
            role = self.seats.roles[e][seat]
            if role in ("heuristic", "random"):
                chosen[e] = self.seats.bot_act(e, seat, env)
            else:
                groups[role].append(e)
        for role, es in groups.items():
            views = [self.envs[e].observe(self.envs[e].agent_selection) for e in es]
            o = np.stack([v["observation"] for v in views])
            m = np.stack([v["action_mask"] for v in views])
            if role == "teacher":
                a = np.array([self.seats.bot_act(e, self._seat(e), self.envs[e]) for e in es], dtype=np.int64)
                lp, v = np.zeros(len(es), dtype=np.float32), self._values(o)
            else:
                a, lp, v = self.seats.network(role, self.model).act(o, m, rng=self.rng)
            for k, e in enumerate(es):
                chosen[e] = int(a[k])
                if role in RECORDED:
                    self._record(e, rows, obs=o[k], mask=m[k], action=a[k], logp=lp[k], value=v[k])
        return chosen

    def _seat(self, e: int) -> int:
        env = self.envs[e]
        return env.agent_name_mapping[env.agent_selection]

    def _record(self, e: int, rows: dict[str, list], **decision: Any) -> None:
        """A new row for the decision of table ``e``'s seat, linked from the seat's previous row."""
        seat = self._seat(e)
        i = len(rows["action"])
        prev = self.open[e].get(seat)
        if prev is not None:
            rows["next"][prev] = i
        self.open[e][seat] = i
        row = {**decision, "reward": 0.0, "done": False, "next": -1, "bootstrap": 0.0, "chain": self.chain[e][seat]}
        for key in RolloutBuffer.ROWS:
            rows[key].append(row[key])

    def _credit_rewards(self, e: int, rewards: list[float]) -> None:
        """Each recorded seat's reward of the last step of table ``e`` goes to that seat's own last transition."""
        env = self.envs[e]
        for seat in self.episode_return[e]:
            r = env.rewards[env.possible_agents[seat]]
            if r:
                self.episode_return[e][seat] += r
                i = self.open[e].get(seat)
                if i is None:
                    self.reward_after_cut += abs(r)
                else:
                    rewards[i] += r

    def _end_deal(self, e: int, rows: dict[str, list], truncated: bool) -> None:
        """Table ``e``'s episode ended: close its chains (cut by max_steps: bootstrap with the value of the seat's last
        observation), note its episodes, deal again."""
        env = self.envs[e]
        for seat, i in self.open[e].items():
            if truncated:
                o = env.observe(env.possible_agents[seat])["observation"]
                rows["bootstrap"][i] = float(self._values(o[None])[0])
            else:
                rows["done"][i] = True
        results = env.round_results or [{}]
        for seat, ret in self.episode_return[e].items():
            self.episodes.append(
                {
                    "chain": self.chain[e][seat],
                    "seat": seat,
                    "return": ret,
                    "round_scores": [round_score(r, seat) for r in results if r],
                    "opponents": ",".join(r for s, r in enumerate(self.seats.roles[e]) if s != seat),
                }
            )
        self._new_deal(e)

    def _values(self, obs: np.ndarray) -> np.ndarray:
        import torch

        with torch.no_grad():
            return self.model.value(torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32))).numpy()


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
    model: Any, optimizer: Any, batch: RolloutBuffer, cfg: Config, rng: np.random.Generator, imitate: bool = False
) -> dict:
    """PPO-clip epochs over ``batch``; the stored masks give each row's legal actions. ``imitate``: the warm start's
    behaviour cloning instead (cross-entropy to the recorded teacher actions, plus the same value regression)."""
    import torch
    from torch import nn

    from rummy_env.models.policy import legal_index

    n = len(batch)
    adv_np, ret_np = gae(batch.reward, batch.value, batch.done, batch.next, batch.bootstrap, cfg.gamma, cfg.gae_lambda)
    index_np, valid_np = legal_index(batch.mask)
    position_np = np.argmax(index_np == batch.action[:, None], axis=1)
    counts = valid_np.sum(axis=1)
    obs = torch.from_numpy(batch.obs)
    index, valid = torch.from_numpy(index_np), torch.from_numpy(valid_np)
    position = torch.from_numpy(position_np)
    old_logp = torch.from_numpy(batch.logp)
    old_value = torch.from_numpy(batch.value)
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
    out["explained_variance"] = float("nan") if var_y == 0 else 1 - float(np.var(ret_np - batch.value)) / var_y
    out["samples"] = n
    out["mean_legal_actions"] = float(counts.mean())
    return out


# ====================================================================================================================
# Evaluation during training
# ====================================================================================================================


def evaluate_model(model: Any, cfg: Config, opponents: list[str], sessions: int, seed: int) -> dict[str, Any]:
    """The greedy policy at a rotating seat against each opponent bot; summaries keyed by opponent."""
    from rummy_env.bots.checkpoint_bot import PolicyBot

    kwargs = env_kwargs(cfg.env_config, cfg.num_players)
    out = {}
    for opp in opponents:
        reason = bot_available(cfg.profile, opp, kwargs)
        if reason:
            out[opp] = {"opponent": opp, "skipped": reason}
            continue
        records = play_match(lambda: PolicyBot(model, greedy=True), cfg.profile, opp, sessions, seed, kwargs)
        out[opp] = summarise_match(cfg.profile, opp, records)
    return out


# ====================================================================================================================
# Logging: TensorBoard, progress.jsonl, eval.jsonl
# ====================================================================================================================


class RunLog:
    """The run's folder ``runs/<profile>__ppo__<seed>__<unix time>/``: TensorBoard events, ``progress.jsonl`` (one
    line per update), ``eval.jsonl`` (one line per evaluation), ``checkpoints/`` and ``pool/``."""

    def __init__(self, cfg: Config):
        from torch.utils.tensorboard import SummaryWriter

        self.name = run_name(cfg.profile, "ppo", cfg.seed)
        self.dir = Path(cfg.runs_dir) / self.name
        (self.dir / "checkpoints").mkdir(parents=True, exist_ok=True)
        self.writer = SummaryWriter(str(self.dir))
        self.writer.add_text("config", "\n".join(f"    {k}: {v!r}" for k, v in dataclasses.asdict(cfg).items()))

    def progress(self, run: RunState, batch: RolloutBuffer, stats: dict[str, float], **t: float) -> dict[str, Any]:
        """One update's figures (``t``: lr, sps, elapsed, wait, update_seconds, update_cpu) to TensorBoard and
        progress.jsonl; returns the line written."""
        w, step = self.writer, run.global_step
        w.add_scalar("charts/learning_rate", t["lr"], step)
        w.add_scalar("charts/SPS", t["sps"], step)
        w.add_scalar("charts/learner_samples", len(batch), step)
        w.add_scalar("time/collect_seconds", batch.collect_seconds, step)
        w.add_scalar("time/update_seconds", t["update_seconds"], step)
        w.add_scalar("time/wait_for_rollout_seconds", t["wait"], step)
        for k, v in stats.items():
            w.add_scalar(f"losses/{k}", v, step)
        if batch.episodes:
            w.add_scalar("charts/episode_return", float(np.mean([ep["return"] for ep in batch.episodes])), step)
        row = {
            "update": run.update,
            "global_step": step,
            "wall_seconds": round(t["elapsed"], 2),
            "sps": round(t["sps"]),
            "samples": len(batch),
            "collect_seconds": round(batch.collect_seconds, 3),
            "update_seconds": round(t["update_seconds"], 3),
            "collect_cpu_seconds": round(batch.collect_cpu_seconds, 3),
            "update_cpu_seconds": round(t["update_cpu"], 3),
            "wait_seconds": round(t["wait"], 3),
            "load_average": round(os.getloadavg()[0], 2),
            "reward_after_cut": batch.reward_after_cut,
            **{k: round(v, 5) for k, v in stats.items()},
        }
        if batch.episodes:
            row["episode_return"] = round(float(np.mean([ep["return"] for ep in batch.episodes])), 4)
        with open(self.dir / "progress.jsonl", "a") as f:
            f.write(json.dumps(row) + "\n")
        return row

    def evaluation(self, ev: dict[str, Any], run: RunState, wall: float) -> None:
        """Evaluation figures to TensorBoard (``eval/<opponent>/*``) and eval.jsonl."""
        for opp, m in ev.items():
            if "skipped" in m:
                continue
            self.writer.add_scalar(f"eval/{opp}/{m['metric']}_policy", m["policy"], run.global_step)
            self.writer.add_scalar(f"eval/{opp}/{m['metric']}_opponents", m["opponents"], run.global_step)
            self.writer.add_scalar(f"eval/{opp}/difference", m["difference"], run.global_step)
            self.writer.add_scalar(f"eval/{opp}/rounds_won_share", m["policy_rounds_won_share"], run.global_step)
        row = {"update": run.update, "global_step": run.global_step, "wall_seconds": round(wall, 1), "eval": ev}
        with open(self.dir / "eval.jsonl", "a") as f:
            f.write(json.dumps(row) + "\n")

    def summary(self, cfg: Config, run: RunState, meta: dict[str, Any], wall: float, ppo_wall: float) -> dict:
        """The run's summary (returned by ``main``), printed with the final evaluation; closes the TensorBoard log."""
        self.writer.close()
        ppo_steps = run.global_step - run.start_step
        summary = {
            "run": self.name,
            "run_dir": str(self.dir),
            "checkpoint": str(cfg.save_path or self.dir / "checkpoints" / "latest"),
            "env_steps": run.global_step,
            "updates": run.update,
            "wall_seconds": round(wall, 1),
            "env_steps_per_second": round(ppo_steps / ppo_wall),
            "evaluation": meta["evaluation"],
        }
        print(
            f"\n{cfg.profile} ({meta['num_players']} players): {ppo_steps} env steps of PPO in {ppo_wall:.0f} s "
            f"({summary['env_steps_per_second']} steps/s incl. updates and evaluations), {run.update} updates"
            + (f", after a {run.bc_seconds:.0f} s warm start" if run.bc_done else "")
            + f"; checkpoint {summary['checkpoint']}"
        )
        for m in meta["evaluation"].values():
            print("  " + format_match(m))
        return summary


def short(m: dict[str, Any]) -> str:
    """A short form of a match summary for the progress bar."""
    if "skipped" in m:
        return f"{m['opponent']}: skipped"
    return f"vs {m['opponent']} {m['policy']:.1f} (them {m['opponents']:.1f})"


# ====================================================================================================================
# Main: setup, warm start, loop (rollout, update, logging, snapshots, evaluation, checkpoints), final evaluation
# ====================================================================================================================


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Train with the config from the command line; returns a summary (also printed)."""
    cfg: Config = parse_config(Config, argv, description=__doc__.splitlines()[0])
    import torch
    from tqdm import tqdm

    from rummy_env.models.checkpoints import save_checkpoint
    from rummy_env.models.policy import architecture, build_policy

    # --- setup: the network, the run's folder, the frozen pool, resume, warm start ---------------------------------
    torch.set_num_threads(cfg.torch_threads)
    torch.manual_seed(cfg.seed)
    kwargs = env_kwargs(cfg.env_config, cfg.num_players)
    probe = rummy_env.make(cfg.profile, wrapped=False, **kwargs)
    num_players = len(probe.possible_agents)
    arch = architecture(probe.observer.size, probe.num_actions, trunk=cfg.trunk, activation=cfg.activation)
    model = build_policy(arch, seed=cfg.seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.learning_rate, eps=1e-5)
    log = RunLog(cfg)
    pool = SnapshotPool(cfg, arch, num_players, log.dir / "pool")
    run = resume_run(cfg, model, optimizer, arch, num_players, pool) if cfg.resume else RunState()
    rng = np.random.default_rng([cfg.seed, 10_000 + run.update])
    num_updates = max(1, math.ceil(cfg.total_steps / cfg.steps_per_update))
    start = time.perf_counter()
    if cfg.bc_decisions and not cfg.resume:
        teacher = Rollouts(cfg, Collector, teacher=cfg.bc_teacher)
        run.bc_done = warm_start(model, optimizer, cfg, rng, log.writer, teacher, ppo_update)
    run.bc_seconds = time.perf_counter() - start

    def metadata(evaluation: dict[str, Any], wall: float | None = None) -> dict[str, Any]:
        wall = time.perf_counter() - start if wall is None else wall
        return checkpoint_metadata(cfg, log.name, num_players, kwargs, run, wall, pool.own(), evaluation)

    def save_latest(meta: dict[str, Any]) -> None:
        save_checkpoint(log.dir / "checkpoints" / "latest", model, meta, optimizer_tensors(optimizer))

    def out_of_time() -> bool:
        return bool(cfg.max_minutes) and time.perf_counter() - start > cfg.max_minutes * 60

    # --- training loop --------------------------------------------------------------------------------------------
    # a warm-start-only run (total_steps 0, or a resumed run already done) starts no rollout workers
    rollouts = Rollouts(cfg, Collector) if run.global_step < cfg.total_steps else None
    ppo_start = time.perf_counter()  # throughput is PPO's: rollouts, updates and periodic evaluations
    last_eval: dict[str, Any] = {}
    initial = min(run.global_step, cfg.total_steps)
    bar = tqdm(total=cfg.total_steps, initial=initial, disable=not cfg.progress_bar, unit="step", dynamic_ncols=True)
    if cfg.num_workers and rollouts is not None:
        rollouts.request(model.numpy_state(), pool.states)
    try:
        while run.global_step < cfg.total_steps and not out_of_time():
            # rollout (workers: the one collected during the previous update; then ask for the next one at once)
            t0 = time.perf_counter()
            batch = rollouts.receive() if cfg.num_workers else rollouts.collect_now(model.numpy_state(), pool.states)
            wait = time.perf_counter() - t0
            run.global_step += batch.env_steps
            run.update += 1
            last = run.global_step >= cfg.total_steps or out_of_time()
            if cfg.num_workers and not last:
                rollouts.request(model.numpy_state(), pool.states)
            # update
            if cfg.anneal_lr:
                frac = max(0.0, 1.0 - (run.update - 1) / num_updates)
                optimizer.param_groups[0]["lr"] = frac * cfg.learning_rate
            t1, c1 = time.perf_counter(), time.process_time()
            stats = ppo_update(model, optimizer, batch, cfg, rng) if len(batch) else {}
            update_seconds, update_cpu = time.perf_counter() - t1, time.process_time() - c1
            # logging
            elapsed = time.perf_counter() - start
            sps = (run.global_step - run.start_step) / max(time.perf_counter() - ppo_start, 1e-9)
            lr = optimizer.param_groups[0]["lr"]
            times = {"wait": wait, "update_seconds": update_seconds, "update_cpu": update_cpu}
            row = log.progress(run, batch, stats, lr=lr, sps=sps, elapsed=elapsed, **times)
            bar.update(batch.env_steps)
            bar.set_postfix(sps=int(sps), upd=run.update, ret=row.get("episode_return", "-"))
            # opponent pool, evaluation, checkpoint
            pool.after_update(run.update, model, lambda: metadata({}))
            if cfg.eval_every and run.update % cfg.eval_every == 0 and not last:
                last_eval = evaluate_model(model, cfg, cfg.eval_opponents, cfg.eval_sessions, seed=run.update)
                log.evaluation(last_eval, run, elapsed)
                bar.write(f"update {run.update}, step {run.global_step}: " + "; ".join(map(short, last_eval.values())))
            if cfg.save_every and run.update % cfg.save_every == 0:
                save_latest(metadata(last_eval))
    finally:
        bar.close()
        if rollouts is not None:
            rollouts.close()

    # --- end: a last small evaluation, then the final one of the checkpoint (in eval_workers processes) -------------
    wall, ppo_wall = time.perf_counter() - start, time.perf_counter() - ppo_start
    evaluation: dict[str, Any] = {}  # the last small evaluation, replaced by the final one
    if cfg.eval_every:
        evaluation = evaluate_model(model, cfg, cfg.eval_opponents, cfg.eval_sessions, seed=run.update)
        log.evaluation(evaluation, run, wall)
    save_latest(metadata(last_eval))
    latest = str(log.dir / "checkpoints" / "latest")
    for opp in cfg.eval_opponents if cfg.final_eval_sessions else []:
        evaluation[opp] = evaluate_checkpoint(latest, opp, cfg.final_eval_sessions, seed=999, workers=cfg.eval_workers)
    throughput = round((run.global_step - run.start_step) / ppo_wall)
    meta = {**metadata(evaluation, wall), "throughput_env_steps_per_second": throughput, "machine": machine()}
    save_latest(meta)
    if cfg.save_path:
        save_checkpoint(cfg.save_path, model, meta)
    return log.summary(cfg, run, meta, wall, ppo_wall)


if __name__ == "__main__":
    main()
