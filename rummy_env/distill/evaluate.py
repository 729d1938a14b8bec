"""``evaluate``: checkpoints against bots, seats rotated, Student-t 95 % confidence intervals over sessions (the one
evaluation path, ``rummy_env.evaluation.policy_eval``); re-measure the shipped checkpoints; plot learning curves.

    python -m rummy_env.distill evaluate checkpoints/contract --opponents random heuristic --sessions 200 --workers 2
    python -m rummy_env.distill evaluate --manifest checkpoints --sessions 200 --workers 2           # print only
    python -m rummy_env.distill evaluate --manifest checkpoints --sessions 200 --workers 2 --write   # ... and store
    python -m rummy_env.distill evaluate --plot runs/<run> --out runs/<run>/learning_curve.png

``--manifest DIR`` evaluates every checkpoint of DIR (``*.json``) and prints the figures; it writes nothing unless
``--write`` is given: then the figures go into each checkpoint's JSON (``evaluation``; the weights and their hash
are untouched) and ``DIR/manifest.json`` is rewritten, each file replaced atomically: per checkpoint the config,
seed, steps, wall time, machine and the evaluation figures with their confidence intervals (the keys of
``MANIFEST_ENTRY_KEYS``). Every match shows a progress bar on stderr when it is a terminal (``--quiet``: none) and a
line when it starts.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..evaluation.arguments import ArgumentParser, count, output_problem
from ..models.checkpoints import read_metadata
from ..training.outputs import shipped_problem
from .manifest import MANIFEST_ENTRY_KEYS, evaluate_against, manifest_entry, measure_manifest, write_manifest
from .plots import learning_curve_figure, plot
from .shards import add_output_flags

#: what a caller may take from here (the manifest's keys and entries, the learning-curve figure)
__all__ = ["MANIFEST_ENTRY_KEYS", "evaluate_against", "learning_curve_figure", "main", "manifest_entry"]


def main(argv: list[str] | None = None) -> int:
    """Command line (see the module docstring); a usage error or a bad checkpoint is one line on stderr, exit 2."""
    p = ArgumentParser(
        prog="python -m rummy_env.distill evaluate",
        description=" ".join(__doc__.split("\n\n")[0].replace("``", "").split()),
        epilog=" ".join(__doc__.split("\n\n")[2].replace("``", "").split()),
    )
    p.add_argument("checkpoints", nargs="*", help="checkpoint paths (X, X.json or X.safetensors)")
    p.add_argument("--opponents", nargs="+", default=["random", "heuristic"])
    p.add_argument("--sessions", type=count(1), default=100, help="sessions per match (>= 1)")
    p.add_argument("--seed", type=count(0), default=2024, help="evaluation seed (>= 0)")
    p.add_argument("--workers", type=count(1), default=2, help="worker processes (>= 1)")
    p.add_argument("--sample", action="store_true", help="sampled instead of greedy play")
    p.add_argument(
        "--manifest", metavar="DIR", help="evaluate every checkpoint in DIR and print the figures (see --write)"
    )
    p.add_argument(
        "--write",
        action="store_true",
        help="with --manifest: store the figures in DIR/manifest.json and each checkpoint's JSON (overwrites them)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bars (they are drawn only on a terminal anyway)")
    p.add_argument("--plot", nargs="+", metavar="RUN_DIR", help="plot the learning curves of these runs")
    p.add_argument("--out", default="runs/learning_curve.png", help="PNG file for --plot (default runs/learning_curve.png)")
    p.add_argument("--labels", nargs="+", help="legend names of the --plot runs")
    add_output_flags(p)
    args = p.parse_args(argv)
    if not (args.checkpoints or args.manifest or args.plot):
        p.error("nothing to do: give checkpoint paths, --manifest DIR or --plot RUN_DIR ...")
    if args.plot:
        missing = [r for r in args.plot for f in ("eval.jsonl", "progress.jsonl") if not (Path(r) / f).is_file()]
        if missing:
            p.error(f"argument --plot: {missing[0]!r} is not a run folder (it needs eval.jsonl and progress.jsonl)")
        if args.labels and len(args.labels) != len(args.plot):
            p.error(f"argument --labels: expected {len(args.plot)} names (one per --plot run), got {len(args.labels)}")
        problem = output_problem(args.out, folder=False) or shipped_problem(args.out, args.overwrite_shipped)
        if problem:
            p.error(f"argument --out: {args.out!r} {problem}")
    if args.write and not args.manifest:
        p.error("argument --write: only with --manifest DIR (it stores that folder's figures)")
    if args.manifest and not Path(args.manifest).is_dir():
        p.error(f"argument --manifest: {args.manifest!r} is not a folder of checkpoints")
    if args.manifest and output_problem(args.manifest):
        p.error(f"argument --manifest: {args.manifest!r} {output_problem(args.manifest)}")
    try:
        for path in args.checkpoints:  # every checkpoint is checked before the first match is played
            read_metadata(path)
        if args.plot:
            plot(args.plot, args.out, args.labels)
        if args.manifest:
            folder = Path(args.manifest)
            manifest = measure_manifest(folder, args.opponents, args.sessions, args.seed, args.workers,
                                        quiet=args.quiet)  # fmt: skip
            if args.write:
                print("wrote " + ", ".join(str(f) for f in write_manifest(folder, manifest)))
            else:
                print(f"nothing written: add --write to store these figures in {folder / 'manifest.json'} and the "
                      "checkpoints' JSON files", file=sys.stderr)  # fmt: skip
        for path in args.checkpoints:
            evaluate_against(path, args.opponents, args.sessions, args.seed, args.workers, greedy=not args.sample,
                             quiet=args.quiet)  # fmt: skip
    except ValueError as exc:  # CheckpointError included
        print(f"{p.prog}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    return 0
