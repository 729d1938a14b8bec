"""Evaluation and logging of ``training/ppo.py``: the run's folder, TensorBoard, ``progress.jsonl``, ``eval.jsonl``.

``RunLog(cfg)`` makes ``runs/<profile>__ppo__<seed>__<unix time>/`` (with ``checkpoints/``); ``progress`` writes one
update's figures (TensorBoard ``charts/*``, ``time/*``, ``losses/*``; a line of ``progress.jsonl``; the tqdm bar),
``evaluate`` plays an evaluation (``evaluate_model``) and writes its figures (``eval/<opponent>/*``; a line of
``eval.jsonl``; a progress line with its units), ``summary`` the run's end: the final evaluation, what its figures
mean, what to expect and the next commands with this run's checkpoint (``next_steps``); ``final_evaluation``
evaluates the final checkpoint.

The progress bar follows the rule of every command (``rummy_env.evaluation.terminal.show_progress``): drawn only when
stderr is a terminal, so a log file gets no redraws; its total is the steps the run will really take
(``workers.planned_steps``: whole rollouts), and it never counts past it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
from pathlib import Path
from typing import Any

import numpy as np

from ..evaluation.policy_eval import env_kwargs, evaluate_checkpoint, evaluate_policy, format_match
from ..evaluation.terminal import show_progress, wrap
from ..models.checkpoints import read_metadata
from ..registry import game
from .config import run_name


def evaluate_model(model: Any, cfg: Any, opponents: list[str], sessions: int, seed: int) -> dict[str, Any]:
    """The greedy policy at a rotating seat against each opponent bot (``evaluate_policy``, in this process);
    summaries keyed by opponent."""
    from ..bots.checkpoint_bot import PolicyBot  # optional dependency: torch

    kwargs = env_kwargs(cfg.env_config, cfg.num_players)
    return {opp: evaluate_policy(lambda: PolicyBot(model, greedy=True), cfg.profile, opp, sessions, seed, kwargs)
            for opp in opponents}  # fmt: skip


def final_evaluation(cfg: Any, checkpoint: Path) -> dict[str, Any]:
    """``final_eval_sessions`` sessions of ``checkpoint`` against each of ``eval_opponents``, in ``eval_workers``
    processes (none if ``final_eval_sessions`` is 0); summaries keyed by opponent."""
    out = {}
    for opp in cfg.eval_opponents if cfg.final_eval_sessions else []:
        out[opp] = evaluate_checkpoint(
            str(checkpoint), opp, cfg.final_eval_sessions, seed=999, workers=cfg.eval_workers
        )
    return out


def short(m: dict[str, Any]) -> str:
    """A short form of a match summary for a progress line: the policy's mean score, then the opponents' (them)."""
    if "skipped" in m:
        return f"{m['opponent']}: skipped"
    return f"vs {m['opponent']} {m['policy']:.1f} (them {m['opponents']:.1f})"


def score_units(profile: str) -> str:
    """What an evaluation's figures are, in words: ``penalty points per round (lower is better)``."""
    g = game(profile)
    return f"{g.score_name} points per {g.unit} ({'lower' if g.lower_is_better else 'higher'} is better)"


def progress_line(update: int, step: int, ev: dict[str, Any], profile: str) -> str:
    """The line an evaluation during training prints: each opponent's figures, then their units."""
    return (
        f"update {update}, step {step}: " + "; ".join(map(short, ev.values()))
        + f" [{score_units(profile)} at the policy's seat; them: the opponents' mean]"
    )


def _length_flags(env_config: dict[str, Any]) -> str:
    """The session length of a run's ``env_config`` as ``rummy tournament`` / ``rummy play`` flags: ``--rounds 1``
    (contract profiles: round numbers; continental: the number of deals, also spelt ``deals``), or nothing."""
    rounds = env_config.get("rounds", env_config.get("deals"))
    if rounds is None:
        return ""
    return " ".join(["--rounds", *map(str, rounds if isinstance(rounds, (list, tuple)) else [rounds])])


def _shipped_players(profile: str) -> int | None:
    """The player count of the shipped checkpoint named ``profile`` (None if it cannot be read)."""
    try:
        return int(read_metadata(profile)["num_players"])
    except (ImportError, OSError, ValueError, KeyError, TypeError):
        return None


def next_steps(cfg: Any, num_players: int, evaluation: dict[str, Any], checkpoint: str, resume: str,
               steps: int) -> list[str]:  # fmt: skip
    """The lines that end a run: what the evaluation's figures mean, this run against what a short run from scratch
    is expected to reach, and the next commands with this run's checkpoint filled in (play against it, evaluate
    it, compare it with the shipped checkpoint of the profile, train longer)."""
    g = game(cfg.profile)
    units = f"{g.score_name} points per {g.unit}"
    shown = [m for m in evaluation.values() if "skipped" not in m]
    lines = []
    if shown:
        m = shown[0]
        lines.append(
            f"What the figures mean: {score_units(cfg.profile)}, mean ± 95 % CI over {m['sessions']} sessions; "
            f"policy = this checkpoint's seat (greedy moves); '{m['opponent']} {m['opponents']:.2f}' (them, in the "
            f"progress lines) = the mean of the other {num_players - 1} seats, all played by that bot; difference = "
            f"policy minus them; rounds won = the share of {g.units} a seat went out in, per seat."
        )
        verdicts = []
        for m in shown:
            gap = m["policy"] - m["opponents"]
            ahead = gap < 0 if g.lower_is_better else gap > 0
            verdicts.append(
                f"{abs(gap):.1f} {units} {'ahead of' if ahead else 'behind'} the {m['opponent']} bot (rounds won "
                f"{m['policy_rounds_won_share']:.0%} vs {m['opponent_rounds_won_share']:.0%})"
            )
        lines.append("This run: " + "; ".join(verdicts) + ".")
    lines.append(
        f"What to expect: a few minutes of PPO from scratch (the quick start) beat random by far and stay well behind "
        f"the heuristic; the shipped checkpoint (checkpoint:{cfg.profile}; how it was made: docs/guides/training.md) is "
        "the strong one."
    )
    lines = wrap(lines)
    ckpt = shlex.quote(f"checkpoint:{checkpoint}")
    length = _length_flags(cfg.env_config or {})
    table = " ".join(w for w in (f"--profile {cfg.profile}", length) if w)
    seats = f" --num-players {cfg.num_players}" if cfg.num_players is not None else ""
    bot = "heuristic" if "heuristic" in g.bots else "random"
    opponents = " ".join([ckpt] + [bot] * (num_players - 2))
    tour = f"rummy tournament {table}{seats}"
    out_dir = shlex.quote(str(Path(cfg.runs_dir) / "eval"))
    lines += [
        "Next:",
        f"  play against it:  rummy play {table} --opponents {opponents}",
        f"  evaluate it:      {tour} --entrants {bot} {ckpt} --sessions 200 --workers 2 --out {out_dir}",
    ]
    shipped = _shipped_players(cfg.profile)
    if shipped in (None, num_players):
        out_shipped = shlex.quote(str(Path(cfg.runs_dir) / "eval_shipped"))
        lines.append(
            f"  compare with the shipped checkpoint: {tour} --entrants checkpoint:{cfg.profile} {ckpt} --sessions 200 "
            f"--workers 2 --out {out_shipped}"
        )
    more = [f"--config {shlex.quote(cfg.config_file)}"] if cfg.config_file else ["<this run's flags>"]
    more.append(f"--total-steps {4 * steps}")
    if cfg.max_minutes:
        more.append(f"--max-minutes {4 * cfg.max_minutes:g}")
    lines.append(f"  train longer:     python training/ppo.py {' '.join(more)} --resume {shlex.quote(resume)}")
    lines.append("  (--resume continues this run's weights, optimizer and counters; leave it out to start afresh)")
    return lines


class RunLog:
    """The run's folder ``runs/<profile>__ppo__<seed>__<unix time>/``: TensorBoard events, ``progress.jsonl`` (one
    line per update), ``eval.jsonl`` (one line per evaluation), ``checkpoints/`` and ``pool/``; the progress bar."""

    def __init__(self, cfg: Any):
        from torch.utils.tensorboard import SummaryWriter  # optional dependency: torch, tensorboard

        self.cfg = cfg
        self.name = run_name(cfg.profile, "ppo", cfg.seed)
        self.dir = Path(cfg.runs_dir) / self.name
        (self.dir / "checkpoints").mkdir(parents=True, exist_ok=True)
        self.writer = SummaryWriter(str(self.dir))
        self.writer.add_text("config", "\n".join(f"    {k}: {v!r}" for k, v in dataclasses.asdict(cfg).items()))
        self.bar: Any = None

    def open_bar(self, global_step: int, total: int) -> None:
        """The tqdm progress bar of the steps from ``global_step`` to ``total`` (the steps the run will take: whole
        rollouts), drawn on stderr when ``progress_bar`` is set and stderr is a terminal
        (``rummy_env.evaluation.terminal.show_progress``: a log file or a pipe gets no redraws)."""
        from tqdm import tqdm  # optional dependency: tqdm (the train extra)

        total = max(total, global_step)
        on = show_progress(quiet=not self.cfg.progress_bar)
        self.bar = tqdm(total=total, initial=global_step, disable=not on, unit="step", dynamic_ncols=True)

    def close_bar(self) -> None:
        """Close the progress bar (later evaluations are not shown on it)."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def progress(self, run: Any, batch: Any, stats: dict[str, float], **t: float) -> dict[str, Any]:
        """One update's figures (``t``: lr, sps, elapsed, wait, update_seconds, update_cpu) to TensorBoard,
        progress.jsonl and the bar; returns the line written."""
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
        if self.bar is not None:
            self.bar.update(max(0, min(batch.env_steps, self.bar.total - self.bar.n)))  # never past its total
            self.bar.set_postfix(sps=int(t["sps"]), upd=run.update, ret=row.get("episode_return", "-"))
        return row

    def evaluate(self, model: Any, run: Any, wall: float) -> dict[str, Any]:
        """Evaluate ``model`` (``evaluate_model``: ``eval_sessions`` against each of ``eval_opponents``, seeded by the
        update) and log it (``evaluation``); the summaries keyed by opponent."""
        cfg = self.cfg
        ev = evaluate_model(model, cfg, cfg.eval_opponents, cfg.eval_sessions, seed=run.update)
        self.evaluation(ev, run, wall)
        return ev

    def evaluation(self, ev: dict[str, Any], run: Any, wall: float) -> None:
        """Evaluation figures to TensorBoard (``eval/<opponent>/*``), eval.jsonl and, while it is open, the bar."""
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
        if self.bar is not None:
            self.bar.write(progress_line(run.update, run.global_step, ev, self.cfg.profile))

    def summary(self, run: Any, meta: dict[str, Any], wall: float, ppo_wall: float) -> dict[str, Any]:
        """The run's summary (returned by ``main``), printed with the final evaluation; closes the TensorBoard log."""
        cfg = self.cfg
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
        if run.global_step < cfg.total_steps and cfg.max_minutes:
            print(f"stopped by max_minutes ({cfg.max_minutes:g}) after {run.global_step} of {cfg.total_steps} steps")
        resume = str(self.dir / "checkpoints" / "latest")
        lines = next_steps(cfg, meta["num_players"], meta["evaluation"], summary["checkpoint"], resume, run.global_step)
        print("\n" + "\n".join(lines), flush=True)
        return summary
