"""Self-play PPO with action masks for rummy_env, in the manner of CleanRL's ``ppo.py``: one file, top to bottom.

    python training/ppo.py --config configs/quickstart.yaml                 # minutes on 2 cores, then plays it
    python training/ppo.py --config configs/ppo_contract.yaml --set seed=2 --total-steps 2e6
    python training/ppo.py --config configs/ppo_contract.yaml --resume runs/<run>/checkpoints/latest

``Config``; the rollout (``Collector`` steps ``num_envs`` whole tables in one ``rummy_env.vector.VectorEnv``, one
batched forward pass for all ``current`` seats to move, and fills a ``RolloutBuffer`` with their decisions, masks
and each seat's own rewards); ``gae`` along each seat's chain of decisions; ``ppo_update`` (PPO-clip on the stored
masks' legal actions); ``main``. What is not PPO itself -- the config schema, the collector, the opponent pool,
worker processes, the warm start, resume, logging and evaluation -- is imported from ``rummy_env.training`` (what
each module holds: docs/guides/training.md). Everything is written under ``runs/``; a path inside the shipped
checkpoints is refused unless ``--overwrite-shipped`` is given.
"""

from __future__ import annotations

import math
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rummy_env.training.extras import require

if __name__ == "__main__":  # a missing extra is one line saying what to install, not a traceback
    require("training/ppo.py", "train", ["yaml", "safetensors", "torch", "tensorboard"])

import rummy_env  # noqa: E402
from rummy_env.models.checkpoints import save_checkpoint  # noqa: E402
from rummy_env.training.config import ConfigError, env_kwargs, machine, parse_config  # noqa: E402
from rummy_env.training.pool import SnapshotPool  # noqa: E402
from rummy_env.training.resume import RunState, checkpoint_metadata, optimizer_tensors, resume_run  # noqa: E402
from rummy_env.training.rollout import (  # noqa: E402
    Collector,
    RolloutBuffer,
    network_architecture,
    vector_kwargs,
    with_action_table,
)
from rummy_env.training.run_log import RunLog, final_evaluation  # noqa: E402
from rummy_env.training.warm_start import action_kinds, warm_start  # noqa: E402
from rummy_env.training.workers import Rollouts, planned_steps  # noqa: E402


# ==== Config: every field is a command-line flag, its docstring the --help text =======================================
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
    num_envs: int = 64
    """tables in all, split between the collectors (max(1, num_workers)); each steps its share in one
    rummy_env.vector.VectorEnv, with one batched forward pass per step for every learner seat to move"""
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
    network: str = "card_action"
    """card_action (the default: relational card features and one shared scorer over each legal action's static
    features -- the cards it moves, its kind, its target meld -- as DouZero does:
    rummy_env.models.policy.CardActionActorCritic), masked_mlp (one learned logit row per action id, nothing shared
    across cards) or card_prior (card_action over the heuristic's move for the seat, a residual policy:
    PriorCardActorCritic)"""
    action_embed: int = 64
    """card_action: size of the action embedding that the shared scorer dots with the state"""
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
    shaping: float = 0.0
    """potential-based reward shaping (training only; 0: none, the default): each learner transition also gets
    shaping * (gamma * phi(next decision) - phi(this decision)), phi = -rummy_env.shaping.hand_distance (cards the
    seat's hand is from going out), phi = 0 after the episode; the logged returns stay the env's rewards"""
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
    prior_coef: float = 0.0
    """card_prior only: weight of an anchor to the prior bot in PPO's loss, prior_coef * mean(-log pi(the prior's
    move)) over the rollout's rows (0: none, the default), so that the policy departs from the prior only where
    the advantages keep paying for it (logged as anchor_loss, with prior_prob: the mean probability of the prior's
    move)"""
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
    """also write the final checkpoint here (e.g. runs/candidates/mine); empty: only in the run folder"""
    overwrite_shipped: bool = False
    """allow save_path / runs_dir inside the folder of the shipped checkpoints (checkpoints/); refused without it"""
    resume: str = ""
    """checkpoint to resume from (weights, optimizer state, step counters, frozen pool)"""
    progress_bar: bool = True
    """show a tqdm progress bar on stderr when stderr is a terminal (never in a log file or a pipe)"""
    config_file: str | None = None
    """(filled in) the YAML file the config came from"""




# ==== Rollout: rummy_env.training.rollout.Collector fills a RolloutBuffer =============================================
# One row per decision of a `current` seat (or of the warm start's teacher), in the order taken: obs, mask (the legal
# actions: the update reads them back), action, logp, value, the seat's own reward up to its next decision, done,
# next (the row of the same seat's next decision, -1: none in this rollout), bootstrap (the value of a chain cut by
# the rollout's end), chain (one per seat and deal) and prior (the prior bot's move, card_prior networks).
# Collector(cfg, num_envs, worker).collect(n) steps its tables n times in all; Rollouts runs one collector here
# (num_workers 0) or one per worker process, each collecting the next rollout while the learner updates.


# ==== Advantages: GAE along each seat's own chain of decisions ========================================================
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


# ==== PPO update ======================================================================================================
def evaluate_legal(
    model: Any, obs: Any, index: np.ndarray, valid: Any, position: Any, prior: Any = None
) -> tuple[Any, Any, Any]:
    """``model.evaluate`` (log-prob of the action at ``position`` among each row's legal actions ``index``, entropy,
    value) with the policy head cut to the action ids the minibatch uses: one matrix product with those rows of the
    head (a few hundred of its thousands), then each row's logits picked from it. The same values as
    ``model.evaluate`` up to float rounding, at about half the cost of its per-row gather of head rows (whose
    backward pass scatters into the whole head). ``prior``: the (B, K) prior flags of a ``card_prior`` network.
    ``position`` (B,) gives a log-prob (B,); (B, P) positions give (B, P) log-probs from the same pass."""
    import torch
    from torch.nn import functional

    if hasattr(model, "set_action_table"):  # card_action: its shared scorer needs every row's own relations
        return model.evaluate(obs, torch.from_numpy(index), valid, position, prior)
    used, inverse = np.unique(index, return_inverse=True)
    used_t = torch.from_numpy(used)
    pi, vf = model.features(obs)
    head = model.policy_head
    logits = functional.linear(pi, head.weight[used_t], head.bias[used_t])  # (B, actions used)
    logits = logits.gather(1, torch.from_numpy(inverse.reshape(index.shape))).masked_fill(~valid, float("-inf"))
    logp_all = torch.log_softmax(logits, dim=-1)
    logp = logp_all.gather(1, position.reshape(len(position), -1)).reshape(position.shape)
    entropy = -(logp_all.exp() * logp_all.masked_fill(~valid, 0.0)).sum(-1)
    return logp, entropy, model.value_head(vf).squeeze(-1)


def imitation_loss(logp: Any, value: Any, returns: Any, cfg: Config, stats: dict[str, list[float]]) -> Any:
    """The warm start's behaviour-cloning loss of a minibatch (``logp``: of the teacher's actions; ``value``
    regressed on ``returns``); its figures appended to ``stats``."""
    v_loss = 0.5 * ((value - returns) ** 2).mean()
    loss = -logp.mean() + cfg.vf_coef * v_loss
    stats["imitation_loss"].append(-logp.mean().item())
    stats["value_loss"].append(v_loss.item())
    stats["teacher_action_prob"].append(logp.exp().mean().item())
    return loss


def ppo_update(
    model: Any, optimizer: Any, batch: RolloutBuffer, cfg: Config, rng: np.random.Generator, imitate: bool = False
) -> dict:
    """PPO-clip epochs over ``batch``; the stored masks give each row's legal actions. ``imitate``: the warm start's
    behaviour cloning instead (``imitation_loss``: the recorded teacher actions, the same value regression)."""
    import torch
    from torch import nn

    from rummy_env.models.policy import legal_index, prior_flags

    n = len(batch)
    adv_np, ret_np = gae(batch.reward, batch.value, batch.done, batch.next, batch.bootstrap, cfg.gamma, cfg.gae_lambda)
    index_np, valid_np = legal_index(batch.mask)  # each row's legal actions, packed to the left
    counts = valid_np.sum(axis=1)
    obs, valid = torch.from_numpy(batch.obs), torch.from_numpy(valid_np)
    position = torch.from_numpy(np.argmax(index_np == batch.action[:, None], axis=1))  # the action taken among them
    uses_prior = "prior" in model.arch
    prior = torch.from_numpy(prior_flags(index_np, valid_np, batch.prior)) if uses_prior else None
    anchored = uses_prior and cfg.prior_coef > 0 and not imitate
    if anchored:  # the prior's move among each row's legal actions (rows without one take no anchor)
        has_prior = prior.sum(1) > 0
        position = torch.stack([position, prior.argmax(1)], dim=1)
    old_logp, old_value = torch.from_numpy(batch.logp), torch.from_numpy(batch.value)
    advantages, returns = torch.from_numpy(adv_np), torch.from_numpy(ret_np)
    mb_size = max(1, math.ceil(n / cfg.num_minibatches))
    stats: dict[str, list[float]] = defaultdict(list)
    for _epoch in range(cfg.bc_epochs if imitate else cfg.update_epochs):
        perm = rng.permutation(n)
        for start in range(0, n, mb_size):
            mb = perm[start : start + mb_size]
            k = int(counts[mb].max())  # trim the padding this minibatch does not need
            mb_prior = prior[mb, :k] if uses_prior else None
            logp, entropy, value = evaluate_legal(model, obs[mb], index_np[mb, :k], valid[mb, :k], position[mb], mb_prior)
            if anchored:
                logp, logp_prior = logp[:, 0], logp[:, 1]
            if imitate:
                loss = imitation_loss(logp, value, returns[mb], cfg, stats)
            else:
                log_ratio = logp - old_logp[mb]
                ratio = log_ratio.exp()
                with torch.no_grad():
                    stats["approx_kl"].append(float(((ratio - 1) - log_ratio).mean()))
                    stats["clipfrac"].append(float(((ratio - 1.0).abs() > cfg.clip_coef).float().mean()))
                mb_adv = advantages[mb]
                if cfg.norm_adv and len(mb) > 1:
                    mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                clipped = ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)
                pg_loss = torch.max(-mb_adv * ratio, -mb_adv * clipped).mean()
                if cfg.clip_vloss:
                    v_clipped = old_value[mb] + (value - old_value[mb]).clamp(-cfg.clip_coef, cfg.clip_coef)
                    v_loss = 0.5 * torch.max((value - returns[mb]) ** 2, (v_clipped - returns[mb]) ** 2).mean()
                else:
                    v_loss = 0.5 * ((value - returns[mb]) ** 2).mean()
                ent = entropy.mean()
                loss = pg_loss - cfg.ent_coef * ent + cfg.vf_coef * v_loss
                if anchored:
                    weight = has_prior[mb].float()
                    rows = weight.sum().clamp(min=1.0)  # the minibatch's rows with a prior move
                    anchor = -(logp_prior * weight).sum() / rows
                    loss = loss + cfg.prior_coef * anchor
                    stats["anchor_loss"].append(anchor.item())
                    stats["prior_prob"].append(float((logp_prior.detach().exp() * weight).sum() / rows))
                stats["policy_loss"].append(pg_loss.item())
                stats["value_loss"].append(v_loss.item())
                stats["entropy"].append(ent.item())
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
            optimizer.step()
        if cfg.target_kl and np.mean(stats["approx_kl"][-math.ceil(n / mb_size) :]) > cfg.target_kl:
            break
    var_y = float(np.var(ret_np))
    out = {k: float(np.mean(v)) for k, v in stats.items()}
    out["explained_variance"] = float("nan") if var_y == 0 else 1 - float(np.var(ret_np - batch.value)) / var_y
    out["samples"] = n
    out["mean_legal_actions"] = float(counts.mean())
    return out


# ==== Main: setup, warm start, the loop (rollout, update, logging, pool, evaluation, checkpoint), the end =============
def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Train with the config from the command line; returns a summary (also printed)."""
    cfg: Config = parse_config(Config, argv, description=__doc__.splitlines()[0])
    import torch

    from rummy_env.models.policy import build_policy

    try:
        vector_kwargs(cfg)
        if cfg.prior_coef and cfg.network != "card_prior":
            raise ConfigError(
                f"prior_coef={cfg.prior_coef!r} anchors a card_prior network to its prior bot; network is "
                f"{cfg.network!r} (allowed: prior_coef 0, or network card_prior)"
            )
    except ConfigError as e:  # as parse_config reports a bad field: one line, exit code 2
        print(f"{Path(sys.argv[0]).name or 'ppo.py'}: error: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    torch.set_num_threads(cfg.torch_threads)
    torch.manual_seed(cfg.seed)
    kwargs = env_kwargs(cfg.env_config, cfg.num_players)
    probe = rummy_env.make(cfg.profile, wrapped=False, **kwargs)
    num_players = len(probe.possible_agents)
    arch = network_architecture(cfg, probe.observer.size, probe.num_actions, probe.observer)
    model = with_action_table(build_policy(arch, seed=cfg.seed), probe.layout)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.learning_rate, eps=1e-5)
    log = RunLog(cfg)
    pool = SnapshotPool(cfg, arch, num_players, log.dir / "pool")
    run = resume_run(cfg, model, optimizer, arch, num_players, pool) if cfg.resume else RunState()
    rng = np.random.default_rng([cfg.seed, 10_000 + run.update])
    num_updates = max(1, math.ceil(cfg.total_steps / cfg.steps_per_update))
    start = time.perf_counter()
    if cfg.bc_decisions and not cfg.resume:
        teacher = Rollouts(cfg, Collector, teacher=cfg.bc_teacher)
        run.bc_done = warm_start(model, optimizer, cfg, rng, log.writer, teacher, ppo_update,
                                 kinds=action_kinds(probe.layout), agreement=run.bc_agreement)  # fmt: skip
        run.bc_seconds = time.perf_counter() - start

    def metadata(evaluation: dict[str, Any], wall: float | None = None) -> dict[str, Any]:
        wall = time.perf_counter() - start if wall is None else wall
        return checkpoint_metadata(cfg, log.name, num_players, kwargs, run, wall, pool.own(), evaluation)

    def save_latest(meta: dict[str, Any]) -> None:
        save_checkpoint(log.dir / "checkpoints" / "latest", model, meta, optimizer_tensors(optimizer))

    # a warm-start-only run (total_steps 0, or a resumed run already done) starts no rollout workers
    rollouts = Rollouts(cfg, Collector) if run.global_step < cfg.total_steps else None
    ppo_start, last_eval = time.perf_counter(), {}  # throughput is PPO's: rollouts, updates, periodic evaluations
    deadline = start + cfg.max_minutes * 60 if cfg.max_minutes else math.inf  # then end as if total_steps were done
    log.open_bar(run.global_step, planned_steps(cfg, run.global_step))
    if cfg.num_workers and rollouts is not None:
        rollouts.request(model.numpy_state(), pool.states)
    try:
        while run.global_step < cfg.total_steps and time.perf_counter() <= deadline:
            # rollout (workers: the one collected during the previous update; then ask for the next one at once)
            t0 = time.perf_counter()
            batch = rollouts.receive() if cfg.num_workers else rollouts.collect_now(model.numpy_state(), pool.states)
            wait = time.perf_counter() - t0
            run.global_step, run.update = run.global_step + batch.env_steps, run.update + 1
            last = run.global_step >= cfg.total_steps or time.perf_counter() > deadline
            if cfg.num_workers and not last:
                rollouts.request(model.numpy_state(), pool.states)
            # update
            if cfg.anneal_lr:
                optimizer.param_groups[0]["lr"] = max(0.0, 1.0 - (run.update - 1) / num_updates) * cfg.learning_rate
            t1, c1 = time.perf_counter(), time.process_time()
            stats = ppo_update(model, optimizer, batch, cfg, rng) if len(batch) else {}
            times = {"wait": wait, "update_seconds": time.perf_counter() - t1, "update_cpu": time.process_time() - c1}
            # logging, opponent pool, evaluation, checkpoint
            elapsed = time.perf_counter() - start
            sps = (run.global_step - run.start_step) / max(time.perf_counter() - ppo_start, 1e-9)
            log.progress(run, batch, stats, lr=optimizer.param_groups[0]["lr"], sps=sps, elapsed=elapsed, **times)
            pool.after_update(run.update, model, lambda: metadata({}))
            if cfg.eval_every and run.update % cfg.eval_every == 0 and not last:
                last_eval = log.evaluate(model, run, elapsed)
            if cfg.save_every and run.update % cfg.save_every == 0:
                save_latest(metadata(last_eval))
    finally:
        log.close_bar()
        if rollouts is not None:
            rollouts.close()

    # the end: a last small evaluation, the checkpoint, its final evaluation (in eval_workers processes)
    wall, ppo_wall = time.perf_counter() - start, time.perf_counter() - ppo_start
    evaluation = log.evaluate(model, run, wall) if cfg.eval_every else {}  # the final evaluation replaces it
    save_latest(metadata(last_eval))
    evaluation.update(final_evaluation(cfg, log.dir / "checkpoints" / "latest"))
    throughput = round((run.global_step - run.start_step) / ppo_wall)
    meta = {**metadata(evaluation, wall), "throughput_env_steps_per_second": throughput, "machine": machine()}
    save_latest(meta)
    if cfg.save_path:
        save_checkpoint(cfg.save_path, model, meta)
    return log.summary(run, meta, wall, ppo_wall)


if __name__ == "__main__":
    main()
