"""``advantage-curve``: the learning curve of a fit to rollout advantages, how the network plays as the fit sees more
labelled sessions.

For ``k = 0 .. n`` over the ``n`` label folders of ``--labels``: the network fitted on the first ``k`` folders
(``advantage-fit`` with ``--fit-args``; ``k = 0`` is ``--base`` itself, and ``--final`` may name the
checkpoint to use for ``k = n`` instead of fitting it again), then the matches of ``evaluate`` against each of
``--opponents``: the greedy network at one seat, seats rotated, the other seats played by the opponent bot,
``--sessions`` sessions with ``--seed``. Each step's output is kept in ``--work`` (``fit_K`` checkpoints and
``eval_K.json``) and reused when it is there, so a stopped run resumes where it was. The figure (``--out``) has one
panel per opponent: the per-round difference network minus opponents with its 95 % band against the labelled
sessions the fit saw; ``--work/curve.json`` holds the figures. ``--work`` and ``--out`` may not lie in the shipped
checkpoints' folder unless ``--overwrite-shipped``; every file is written atomically.

Usage::

    python -m rummy_env.distill advantage-curve --base runs/candidates/contract_gamerules_anchored \\
        --labels L/seed11 L/seed21 L/seed12 --final checkpoints/contract_gamerules --work runs/curve \\
        --fit-args "--epochs 6 --val-every 5 --objective own --margin 6 --threads 2" \\
        --out runs/curve/learning_curve.png
"""

from __future__ import annotations

import argparse
import json
import shlex
from pathlib import Path
from typing import Any

from ..models.checkpoints import read_metadata
from ..training.config import ConfigError, cli_args
from ..training.outputs import shipped_problem, write_json_atomic
from . import advantage_fit
from .manifest import evaluate_against
from .plots import differences, plot_curve
from .shards import add_output_flags


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (module docstring); bad values raise ``ConfigError``."""
    p = argparse.ArgumentParser(prog="python -m rummy_env.distill advantage-curve",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--base", required=True, help="the card_prior checkpoint the fits start from (the curve's k = 0)")
    p.add_argument("--labels", required=True, nargs="+", help="label folders, added one at a time")
    p.add_argument("--final", default=None, help="the checkpoint of k = n (default: fitted like the others)")
    p.add_argument("--work", required=True, help="folder for the fits and the evaluations (reused when present)")
    p.add_argument("--fit-args", default="", help="further arguments of advantage-fit, one string")
    p.add_argument("--opponents", nargs="+", default=["heuristic", "random"])
    p.add_argument("--sessions", type=int, default=200)
    p.add_argument("--seed", type=int, default=2024)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", required=True, help="the PNG to draw")
    add_output_flags(p)
    args = p.parse_args(argv)
    for flag, path in (("--work", args.work), ("--out", args.out)):
        problem = shipped_problem(path, args.overwrite_shipped)
        if problem:
            raise ConfigError(f"{flag} {path!r} {problem}")
    if args.sessions < 1 or args.workers < 1 or args.seed < 0:
        raise ConfigError("--sessions and --workers must be >= 1, --seed >= 0")
    for folder in args.labels:
        if not any(Path(folder).glob("session_*.npz")):
            raise ConfigError(f"--labels {folder!r} holds no session_*.npz label files")
    try:
        args.fit_args = shlex.split(args.fit_args)
    except ValueError as exc:
        raise ConfigError(f"--fit-args: {exc}") from None
    if any(a in ("--base", "--labels", "--out", "--set-margin") for a in args.fit_args):
        raise ConfigError("--fit-args may not set --base, --labels, --out or --set-margin (this script does)")
    return args


def points(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Fit and evaluate every point that is not in ``--work`` yet; the curve's figures."""
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    out = []
    sessions = 0
    for k in range(len(args.labels) + 1):
        if k:
            sessions += len(list(Path(args.labels[k - 1]).glob("session_*.npz")))
        if k == 0:
            ckpt = args.base
        elif k == len(args.labels) and args.final:
            ckpt = args.final
        else:
            ckpt = str(work / f"fit_{k}")
            if not Path(ckpt + ".json").exists():
                argv = ["--base", args.base, "--labels", *args.labels[:k], "--out", ckpt, *args.fit_args]
                if advantage_fit.main(argv) != 0:
                    raise SystemExit(f"advantage-fit failed for the first {k} folder(s)")
        path = work / f"eval_{k}.json"
        if path.exists():
            figures = json.loads(path.read_text())
        else:
            figures = evaluate_against(ckpt, args.opponents, args.sessions, args.seed, args.workers, quiet=True)
            write_json_atomic(path, figures)
        out.append({"k": k, "labelled_sessions": sessions, "checkpoint": ckpt, "evaluation": figures})
    write_json_atomic(work / "curve.json", out)
    return out


def main(argv: list[str] | None = None) -> int:
    """Fit, evaluate, draw."""
    args = cli_args(parse_args, argv)
    if args is None:
        return 2
    curve = points(args)
    for p in curve:
        figs = differences(p["evaluation"], args.opponents)
        print(f"{p['labelled_sessions']:5d} labelled sessions ({p['checkpoint']}): {figs}", flush=True)
    profile = read_metadata(args.base)["profile"]
    plot_curve(curve, args.opponents, args.out, f"{profile}: a card_prior network fitted to rollout advantages")
    print(f"saved {args.out}", flush=True)
    return 0
