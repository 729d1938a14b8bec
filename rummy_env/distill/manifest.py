"""The shipped checkpoints' manifest and the evaluation of checkpoints against bots, as the command line shows it.

``evaluate_against(path, opponents, ...)`` plays ``rummy_env.evaluation.policy_eval.evaluate_checkpoint`` against
each opponent with a progress bar and a printed line per match; ``measure_manifest(folder, ...)`` evaluates every
checkpoint of a folder and builds its ``manifest.json`` (``manifest_entry``: per checkpoint the config, seed, steps,
wall time, machine, how its labels and fit were made, and the evaluation with its confidence intervals);
``write_manifest`` stores it (``evaluate --manifest DIR --write``).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from ..core.files import read_text
from ..evaluation.policy_eval import evaluate_checkpoint, format_match
from ..evaluation.terminal import progress_bar
from ..models.checkpoints import read_metadata, sha256_file
from ..training.outputs import write_text_atomic


def evaluate_against(
    path: str,
    opponents: list[str],
    sessions: int,
    seed: int,
    workers: int,
    greedy: bool = True,
    quiet: bool = False,
) -> dict:
    """The checkpoint against each opponent (``rummy_env.evaluation.policy_eval.evaluate_checkpoint``); each match
    announced on stderr, with a progress bar, and its result printed on stdout as it finishes."""
    out = {}
    name = Path(path).name
    for opp in opponents:
        print(f"{name}: vs {opp}, {sessions} session(s), {workers} worker(s) ...", file=sys.stderr, flush=True)
        bar = progress_bar(sessions, desc=f"{name} vs {opp}", unit="session", enabled=not quiet)
        try:
            out[opp] = evaluate_checkpoint(
                path, opp, sessions, seed=seed, workers=workers, greedy=greedy, progress=bar.update
            )
        finally:
            bar.close()
        print(f"{name}: {format_match(out[opp])}", flush=True)
    return out


def run_figures(run_dir: Path) -> dict[str, Any]:
    """Throughput of a run's PPO phase from its progress.jsonl (wall time includes periodic evaluations)."""
    rows = [json.loads(line) for line in read_text(run_dir / "progress.jsonl", what="progress log").splitlines()]
    if len(rows) < 2:
        return {}
    first, last = rows[0], rows[-1]
    rates = sorted(
        (b["global_step"] - a["global_step"]) / (b["wall_seconds"] - a["wall_seconds"]) for a, b in zip(rows, rows[1:])
    )
    return {
        "ppo_env_steps": last["global_step"],
        "ppo_updates": last["update"],
        "seconds_before_first_update": first["wall_seconds"],
        "ppo_env_steps_per_second": round(
            (last["global_step"] - first["global_step"]) / (last["wall_seconds"] - first["wall_seconds"])
        ),
        "median_env_steps_per_second_per_update": round(rates[len(rates) // 2]),
        "mean_load_average": round(sum(r.get("load_average", 0.0) for r in rows) / len(rows), 2),
        "source": f"{run_dir}/progress.jsonl (wall time includes periodic evaluations; load average = the machine's, other jobs included)",
    }


#: the keys of one checkpoint's entry in ``manifest.json``, in order (the shipped manifest has exactly these)
MANIFEST_ENTRY_KEYS = (
    "files", "weights_sha256", "profile", "env_version", "num_players", "env_config", "layout_fingerprint",
    "algorithm", "architecture", "seed", "config_file", "config", "training_steps", "updates", "wall_seconds",
    "throughput_env_steps_per_second", "machine", "run_name", "warm_start", "run_figures", "migration",
    "advantage_fit", "distillation", "evaluation",
)  # fmt: skip
#: the keys of a checkpoint's ``advantage_fit`` record (``advantage-fit``) the manifest repeats
ADVANTAGE_FIT_KEYS = ("base", "base_training_steps", "base_updates", "base_wall_seconds", "labels", "labels_made_by",
                      "sessions", "training_rows", "held_out_rows", "settings", "kept_epoch", "held_out",
                      "wall_seconds", "command")  # fmt: skip
#: the keys of a checkpoint's ``distillation`` record (``search-distill``) the manifest repeats: the same
DISTILLATION_KEYS = ADVANTAGE_FIT_KEYS

MANIFEST_ABOUT = (
    "Shipped rummy_env checkpoints: how each was made and how it plays. Evaluation: the greedy policy at one seat "
    "(rotated over sessions) against the other seats all played by the opponent bot; figures are means per round "
    "over sessions with the half-width of a Student-t 95 % confidence interval over sessions; 'difference' is the "
    "paired per-session difference policy - opponents (negative = fewer penalty points for contract profiles; "
    "positive = more payment won for continental)."
)


def manifest_entry(base: Path, meta: dict[str, Any], evaluation: dict[str, Any], runs_dir: str = "runs") -> dict:
    """The manifest entry of the checkpoint ``base`` (its metadata ``meta``) with the figures ``evaluation``;
    its keys are ``MANIFEST_ENTRY_KEYS``. ``migration`` is the checkpoint's migration record, None if never
    migrated; ``advantage_fit`` the summary of its fit to rollout advantages, None if it was not fitted;
    ``distillation`` the summary of its distillation of a teacher's labels, None if it was not distilled;
    ``run_figures`` come from the run's ``progress.jsonl`` under ``runs_dir`` if it is there."""
    cfg = meta.get("config", {})
    progress = Path(runs_dir) / str(meta.get("run_name")) / "progress.jsonl"
    entry = {
        "files": [meta["weights_file"], base.with_suffix(".json").name],
        "weights_sha256": sha256_file(base.with_suffix(".safetensors")),
        "profile": meta["profile"],
        "env_version": meta["env_version"],
        "num_players": meta["num_players"],
        "env_config": meta.get("env_config", {}),
        "layout_fingerprint": meta.get("layout_fingerprint"),
        "algorithm": meta.get("algorithm"),
        "architecture": meta["architecture"],
        "seed": cfg.get("seed"),
        "config_file": cfg.get("config_file"),
        "config": cfg,
        "training_steps": meta["training_steps"],
        # a network fitted to rollout advantages or distilled has no PPO state of its own: its base's PPO updates
        "updates": meta.get("training_state", {}).get(
            "update", (meta.get("advantage_fit") or meta.get("distillation") or {}).get("base_updates")
        ),
        "wall_seconds": meta.get("training_state", {}).get("wall_seconds", meta.get("wall_seconds")),
        "throughput_env_steps_per_second": meta.get("throughput_env_steps_per_second"),
        "machine": meta.get("machine"),
        "run_name": meta.get("run_name"),
        "warm_start": meta.get("warm_start", {}),
        "run_figures": run_figures(progress.parent) if meta.get("run_name") and progress.is_file() else {},
        "migration": meta.get("migration"),
        "advantage_fit": _summary(meta.get("advantage_fit"), ADVANTAGE_FIT_KEYS),
        "distillation": _summary(meta.get("distillation"), DISTILLATION_KEYS),
        "evaluation": evaluation,
    }
    assert tuple(entry) == MANIFEST_ENTRY_KEYS
    return entry


def _summary(record: Any, keys: tuple[str, ...]) -> dict[str, Any] | None:
    """The manifest's summary of an ``advantage_fit`` or ``distillation`` record (None for a checkpoint made
    without one): how the labels and the fit were made (``keys``), not the per-epoch history."""
    if not isinstance(record, dict):
        return None
    return {k: record[k] for k in dict.fromkeys(keys) if k in record}


def measure_manifest(
    folder: Path,
    opponents: list[str],
    sessions: int,
    seed: int,
    workers: int,
    runs_dir: str = "runs",
    quiet: bool = False,
) -> dict[str, Any]:
    """Evaluate every checkpoint in ``folder`` and return the manifest it makes; nothing is written."""
    entries = {}
    for meta_path in sorted(folder.glob("*.json")):
        if meta_path.name == "manifest.json":
            continue
        base = meta_path.with_suffix("")
        meta = read_metadata(base)
        evaluation = evaluate_against(str(base), opponents, sessions, seed, workers, quiet=quiet)
        entries[base.name] = manifest_entry(base, meta, evaluation, runs_dir)
    return {
        "about": MANIFEST_ABOUT,
        "evaluation_seed": seed,
        "evaluated": time.strftime("%Y-%m-%d"),
        "checkpoints": entries,
    }


def write_manifest(folder: Path, manifest: dict[str, Any]) -> list[Path]:
    """Store ``manifest`` (``measure_manifest``'s) as ``folder/manifest.json`` and each checkpoint's figures in its
    JSON (``evaluation``: not part of the weights' header), each file replaced atomically; the files written. Only
    ``evaluate --manifest DIR --write`` calls it: the folder is named and the write asked for."""
    written = []
    for name, entry in manifest["checkpoints"].items():
        meta_path = folder / f"{name}.json"
        meta = json.loads(meta_path.read_text())
        meta["evaluation"] = entry["evaluation"]
        written.append(write_text_atomic(meta_path, json.dumps(meta, indent=2) + "\n"))
    written.append(write_text_atomic(folder / "manifest.json", json.dumps(manifest, indent=2) + "\n"))
    return written
