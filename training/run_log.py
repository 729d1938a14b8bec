"""Evaluation and logging of ``training/ppo.py``: the run's folder, TensorBoard, ``progress.jsonl``, ``eval.jsonl``.

``RunLog(cfg)`` makes ``runs/<profile>__ppo__<seed>__<unix time>/`` (with ``checkpoints/``); ``progress`` writes one
update's figures (TensorBoard ``charts/*``, ``time/*``, ``losses/*``; a line of ``progress.jsonl``; the tqdm bar),
``evaluate`` plays an evaluation (``evaluate_model``) and writes its figures (``eval/<opponent>/*``; a line of
``eval.jsonl``), ``summary`` the run's end; ``final_evaluation`` evaluates the final checkpoint.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
from common import (
    bot_unavailable_reason,
    env_kwargs,
    evaluate_checkpoint,
    format_match,
    play_match,
    run_name,
    summarise_match,
)


def evaluate_model(model: Any, cfg: Any, opponents: list[str], sessions: int, seed: int) -> dict[str, Any]:
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
    """A short form of a match summary for the progress bar."""
    if "skipped" in m:
        return f"{m['opponent']}: skipped"
    return f"vs {m['opponent']} {m['policy']:.1f} (them {m['opponents']:.1f})"


class RunLog:
    """The run's folder ``runs/<profile>__ppo__<seed>__<unix time>/``: TensorBoard events, ``progress.jsonl`` (one
    line per update), ``eval.jsonl`` (one line per evaluation), ``checkpoints/`` and ``pool/``; the progress bar."""

    def __init__(self, cfg: Any):
        from torch.utils.tensorboard import SummaryWriter

        self.cfg = cfg
        self.name = run_name(cfg.profile, "ppo", cfg.seed)
        self.dir = Path(cfg.runs_dir) / self.name
        (self.dir / "checkpoints").mkdir(parents=True, exist_ok=True)
        self.writer = SummaryWriter(str(self.dir))
        self.writer.add_text("config", "\n".join(f"    {k}: {v!r}" for k, v in dataclasses.asdict(cfg).items()))
        self.bar: Any = None

    def open_bar(self, global_step: int) -> None:
        """Show the tqdm progress bar (``progress_bar``) of the steps from ``global_step`` to ``total_steps``."""
        from tqdm import tqdm

        cfg = self.cfg
        initial = min(global_step, cfg.total_steps)
        self.bar = tqdm(
            total=cfg.total_steps, initial=initial, disable=not cfg.progress_bar, unit="step", dynamic_ncols=True
        )

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
            self.bar.update(batch.env_steps)
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
            self.bar.write(f"update {run.update}, step {run.global_step}: " + "; ".join(map(short, ev.values())))

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
        return summary
