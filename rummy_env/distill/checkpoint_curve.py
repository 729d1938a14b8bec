"""``checkpoint-curve``: the learning curve of a training run drawn from its saved checkpoints. Each checkpoint of
``CHECKPOINTS`` (in training order: a warm start, ``pool/`` snapshots, the final file) is evaluated with the
matches of ``evaluate`` against each of ``--opponents`` (the greedy network at one seat, seats rotated,
the other seats played by the opponent bot, ``--sessions`` sessions with ``--seed``), and the per-round difference
network minus opponents is drawn with its 95 % band against the checkpoint's ``training_steps`` (PPO environment
steps; a warm start has 0), with ``--x epoch`` against the distillation epoch of each checkpoint
(``search-distill --save-epochs`` saves one per epoch; the base of a distillation is epoch 0), or with ``--x minutes``
against the minutes of training wall time at which each was saved (``training_state.wall_seconds`` of a
``training/ppo.py`` checkpoint or snapshot, warm start and resumed runs included; a checkpoint without it is refused).

Use it when a run's own ``eval.jsonl`` is missing or too small to draw a curve from. Each evaluation is kept in
``--work`` as ``eval_<weights hash>_<sessions>_<seed>.json`` and reused when it is there, so a stopped run resumes
and the final checkpoint's figures can be the manifest's (the same matches as ``evaluate --manifest``);
``--work/curve.json`` holds the points. ``--work`` and ``--out`` may not lie in the shipped checkpoints' folder
unless ``--overwrite-shipped``; every file is written atomically.

Usage::

    python -m rummy_env.distill checkpoint-curve runs/candidates/contract_prior \\
        runs/candidates/contract_prior_run/pool/snap_000690 checkpoints/contract \\
        --work runs/curve_contract --out runs/curve_contract/curve.png
    python -m rummy_env.distill checkpoint-curve runs/<run>/pool/snap_*.json runs/<run>/checkpoints/latest \\
        --x minutes --opponents heuristic --work runs/curve_scratch --out runs/curve_scratch/curve.png
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..models.checkpoints import CheckpointError, read_metadata
from ..training.config import ConfigError, cli_args
from ..training.outputs import shipped_problem, write_json_atomic
from .manifest import evaluate_against
from .plots import differences, plot_curve
from .shards import add_output_flags

# --x: (the curve point's key, the unit printed after it, the figure's x label)
X_AXES = {
    "steps": ("training_steps", "steps", "PPO environment steps (0: warm start)"),
    "epoch": ("epoch", "epoch", "distillation epoch (0: its base)"),
    "minutes": ("minutes", "min", "minutes of training wall time (warm start included)"),
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (module docstring); bad values raise ``ConfigError``."""
    p = argparse.ArgumentParser(prog="python -m rummy_env.distill checkpoint-curve",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("checkpoints", nargs="+", help="checkpoints in training order (X, X.json or X.safetensors)")
    p.add_argument("--work", required=True, help="folder for the evaluations (reused when present)")
    p.add_argument("--opponents", nargs="+", default=["heuristic", "random"])
    p.add_argument("--sessions", type=int, default=200)
    p.add_argument("--seed", type=int, default=2024)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--x", choices=tuple(X_AXES), default="steps",
                   help="the x axis: PPO environment steps, the distillation epoch (search-distill "
                        "--save-epochs; a checkpoint without a distillation is epoch 0), or the minutes of training "
                        "wall time at which each checkpoint was saved (training_state.wall_seconds)")  # fmt: skip
    p.add_argument("--title", default=None, help="the figure's title (default: the profile and the last file)")
    p.add_argument("--out", required=True, help="the PNG to draw")
    add_output_flags(p)
    args = p.parse_args(argv)
    if args.sessions < 1 or args.workers < 1 or args.seed < 0:
        raise ConfigError("--sessions and --workers must be >= 1, --seed >= 0")
    for flag, path in (("--work", args.work), ("--out", args.out)):
        problem = shipped_problem(path, args.overwrite_shipped)
        if problem:
            raise ConfigError(f"{flag} {path!r} {problem}")

    try:
        metas = [read_metadata(c) for c in args.checkpoints]
    except CheckpointError as exc:
        raise ConfigError(f"checkpoint: {exc}") from None
    if args.x == "minutes":
        for ckpt, meta in zip(args.checkpoints, metas):
            if training_minutes(meta) is None:
                raise ConfigError(
                    f"--x minutes: checkpoint {ckpt!r} records no training wall time (training_state.wall_seconds, "
                    "written by training/ppo.py); use --x steps"
                )
    profiles = sorted({(m["profile"], m["num_players"]) for m in metas})
    if len(profiles) != 1:
        raise ConfigError(f"the checkpoints must share one profile and table size; got {profiles}")
    args.metas = metas
    return args


def training_minutes(meta: dict[str, Any]) -> float | None:
    """The minutes of training wall time at which a checkpoint was saved (its ``training_state.wall_seconds`` / 60,
    rounded to 0.01), or None when its metadata records none (or not a number)."""
    state = meta.get("training_state")
    wall = state.get("wall_seconds") if isinstance(state, dict) else None
    if isinstance(wall, bool) or not isinstance(wall, (int, float)) or not wall >= 0:
        return None
    return round(float(wall) / 60, 2)


def points(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Evaluate every checkpoint against every opponent not yet in ``--work``; the curve's figures."""
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    out = []
    for ckpt, meta in zip(args.checkpoints, args.metas):
        path = work / f"eval_{meta['weights_sha256'][:16]}_{args.sessions}_{args.seed}.json"
        figures = json.loads(path.read_text()) if path.exists() else {}
        missing = [o for o in args.opponents if o not in figures]
        if missing:
            figures.update(evaluate_against(ckpt, missing, args.sessions, args.seed, args.workers, quiet=True))
            write_json_atomic(path, figures)
        out.append(
            {
                "checkpoint": str(ckpt),
                "training_steps": int(meta["training_steps"]),
                "epoch": int((meta.get("distillation") or {}).get("kept_epoch", 0)),
                "minutes": training_minutes(meta),
                "weights_sha256": meta["weights_sha256"],
                "evaluation": {o: figures[o] for o in args.opponents},
            }
        )
    write_json_atomic(work / "curve.json", out)
    return out


def main(argv: list[str] | None = None) -> int:
    """Evaluate, print, draw."""
    args = cli_args(parse_args, argv)
    if args is None:
        return 2
    curve = points(args)
    x_key, unit, xlabel = X_AXES[args.x]
    for p in curve:
        x = f"{p[x_key]:9d}" if isinstance(p[x_key], int) else f"{p[x_key]:9.2f}"
        print(f"{x} {unit} ({p['checkpoint']}): {differences(p['evaluation'], args.opponents)}", flush=True)
    profile = args.metas[0]["profile"]
    title = args.title or f"{profile}: {Path(args.checkpoints[-1]).name} and the checkpoints before it"
    plot_curve(curve, args.opponents, args.out, title, x_key=x_key, xlabel=xlabel)
    print(f"saved {args.out}", flush=True)
    return 0
