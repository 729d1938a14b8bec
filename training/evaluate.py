"""Evaluate checkpoints against bots: seats rotated, Student-t 95 % confidence intervals over sessions (the match
runner of ``rummy_env.evaluation.match``); re-measure the shipped checkpoints; plot learning curves.

    python training/evaluate.py checkpoints/contract --opponents random heuristic --sessions 200 --workers 2
    python training/evaluate.py --manifest checkpoints --sessions 200 --workers 2           # measure, print only
    python training/evaluate.py --manifest checkpoints --sessions 200 --workers 2 --write   # ... and store them
    python training/evaluate.py --plot runs/<run> --out runs/<run>/learning_curve.png

``--manifest DIR`` evaluates every checkpoint of DIR (``*.json``) and prints the figures; it writes nothing unless
``--write`` is given: then the figures go into each checkpoint's JSON (``evaluation``; the weights and their hash
are untouched) and ``DIR/manifest.json`` is rewritten: per checkpoint the config, seed, steps, wall time, machine
and the evaluation figures with their confidence intervals (the keys of ``MANIFEST_ENTRY_KEYS``). Every match
shows a progress bar on stderr when it is a terminal (``--quiet``: none) and a line when it starts.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
if __name__ == "__main__":  # a missing extra is one line saying what to install, not a traceback
    from extras import require

    require("training/evaluate.py", "train", ["yaml", "safetensors", "torch", "matplotlib"])
from common import evaluate_checkpoint, format_match  # noqa: E402

from rummy_env.models.checkpoints import read_metadata, sha256_file  # noqa: E402


def evaluate(
    path: str,
    opponents: list[str],
    sessions: int,
    seed: int,
    workers: int,
    greedy: bool = True,
    quiet: bool = False,
) -> dict:
    """The checkpoint against each opponent; each match announced on stderr, with a progress bar, and its result
    printed on stdout as it finishes."""
    from rummy_env.evaluation.terminal import progress_bar

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
    rows = [json.loads(line) for line in (run_dir / "progress.jsonl").read_text().splitlines()]
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
#: the keys of a checkpoint's ``advantage_fit`` record (``training/advantage_fit.py``) the manifest repeats
ADVANTAGE_FIT_KEYS = ("base", "base_training_steps", "base_updates", "base_wall_seconds", "labels", "labels_made_by",
                      "sessions", "training_rows", "held_out_rows", "settings", "kept_epoch", "held_out",
                      "wall_seconds", "command")  # fmt: skip
#: the keys of a checkpoint's ``distillation`` record (``training/search_distill.py``) the manifest repeats: the same
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
        evaluation = evaluate(str(base), opponents, sessions, seed, workers, quiet=quiet)
        entries[base.name] = manifest_entry(base, meta, evaluation, runs_dir)
    return {
        "about": MANIFEST_ABOUT,
        "evaluation_seed": seed,
        "evaluated": time.strftime("%Y-%m-%d"),
        "checkpoints": entries,
    }


def write_manifest(folder: Path, manifest: dict[str, Any]) -> list[Path]:
    """Store ``manifest`` (``measure_manifest``'s) as ``folder/manifest.json`` and each checkpoint's figures in its
    JSON (``evaluation``: not part of the weights' header); the files written."""
    written = []
    for name, entry in manifest["checkpoints"].items():
        meta_path = folder / f"{name}.json"
        meta = json.loads(meta_path.read_text())
        meta["evaluation"] = entry["evaluation"]
        meta_path.write_text(json.dumps(meta, indent=2) + "\n")
        written.append(meta_path)
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return [*written, folder / "manifest.json"]


def _score_words(metric: str) -> tuple[str, str]:
    """``penalty_per_round`` -> (``penalty``, ``round``): the score and the unit of a session it is counted per."""
    score, _, unit = metric.partition("_per_")
    return score, unit or "round"


def _t_band(values: list[float]) -> float:
    """Half-width of the Student-t 95 % interval of the mean of ``values`` (nan below two values)."""
    from rummy_env.evaluation.match import t975

    n = len(values)
    if n < 2:
        return float("nan")
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return t975(n - 1) * (var / n) ** 0.5


def learning_curve_figure(run_dirs: list[str], labels: list[str] | None = None) -> Any:
    """The learning-curve figure of runs (a matplotlib ``Figure``, not drawn to a file).

    Left: the greedy evaluations during training (``eval.jsonl``): the policy's mean score per round (deal) and
    seat against each opponent and the opponents' on the same tables, in points, with their 95 % confidence bands
    (the Student-t half-widths ``policy_ci95`` / ``opponents_ci95`` each evaluation stored). Right: the learning
    seats' mean episode return per update (``progress.jsonl``), as a moving mean over the last updates with the
    95 % band of that mean (the log keeps one mean per update, not its episodes, so the band is over the update
    means in the window). Legends sit under the axes, never on the data."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 5.2), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, 2)
    metric = "penalty_per_round"
    for r, run in enumerate(run_dirs):
        rd = Path(run)
        name = labels[r] if labels else rd.name
        tag = f"{name}: " if len(run_dirs) > 1 else ""
        evals = [json.loads(line) for line in (rd / "eval.jsonl").read_text().splitlines()]
        prog = [json.loads(line) for line in (rd / "progress.jsonl").read_text().splitlines()]
        opps = sorted({o for e in evals for o, m in e["eval"].items() if "skipped" not in m})
        for opp in opps:
            points = [(e["global_step"], e["eval"][opp]) for e in evals if "skipped" not in e["eval"].get(opp, {"skipped": 1})]
            metric = points[-1][1]["metric"]
            xs = [x for x, _ in points]
            color = None
            for key, style in (("policy", "-"), ("opponents", "--")):
                ys = [m[key] for _, m in points]
                half = [m.get(f"{key}_ci95", float("nan")) for _, m in points]
                label = f"{tag}policy vs {opp}" if key == "policy" else f"{tag}{opp} (same tables)"
                (drawn,) = axes[0].plot(xs, ys, ls=style, marker="o" if key == "policy" else None, ms=3,
                                        color=color, label=label)  # fmt: skip
                color = drawn.get_color()  # the opponents' line takes the policy's colour
                axes[0].fill_between(xs, [y - h for y, h in zip(ys, half)], [y + h for y, h in zip(ys, half)],
                                     color=color, alpha=0.15, lw=0)  # fmt: skip
        xs = [p["global_step"] for p in prog if "episode_return" in p]
        ys = [p["episode_return"] for p in prog if "episode_return" in p]
        k = max(2, len(ys) // 50)
        windows = [ys[max(0, i - k + 1) : i + 1] for i in range(len(ys))]
        smooth = [sum(w) / len(w) for w in windows]
        band = [_t_band(w) if len(w) == k else float("nan") for w in windows]  # full windows only
        (line_,) = axes[1].plot(xs, smooth, label=f"{name} (moving mean of {k} updates)")
        axes[1].fill_between(xs, [m - b for m, b in zip(smooth, band)], [m + b for m, b in zip(smooth, band)],
                             color=line_.get_color(), alpha=0.2, lw=0, label=f"{name}: 95 % band")  # fmt: skip
    score, unit = _score_words(metric)
    lower = score == "penalty"
    axes[0].set_xlabel("environment steps")
    axes[0].set_ylabel(f"mean {score} per {unit} and seat\n({score} points, {'lower' if lower else 'higher'} is better)")
    axes[0].set_title(f"greedy evaluation during training ({Path(run_dirs[0]).name.split('__')[0]}), 95 % bands",
                      fontsize="medium")  # fmt: skip
    axes[0].legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, frameon=False)
    reward = "−penalty points / 100" if lower else f"{score} points / 100"
    axes[1].set_xlabel("environment steps")
    axes[1].set_ylabel(f"learning seats' mean return per episode\n(reward = {reward})")
    axes[1].set_title("training episodes (mixed opponent pool), 95 % band", fontsize="medium")
    axes[1].legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=1, frameon=False)
    for ax in axes:
        ax.grid(alpha=0.3)
    return fig


def plot(run_dirs: list[str], out: str, labels: list[str] | None = None) -> None:
    """Draw ``learning_curve_figure`` of the runs to the PNG file ``out``."""
    fig = learning_curve_figure(run_dirs, labels)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


def main(argv: list[str] | None = None) -> int:
    """Command line (see the module docstring); a usage error or a bad checkpoint is one line on stderr, exit 2."""
    from rummy_env.evaluation.arguments import ArgumentParser, count, output_problem

    p = ArgumentParser(
        prog="evaluate.py",
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
    args = p.parse_args(argv)
    if not (args.checkpoints or args.manifest or args.plot):
        p.error("nothing to do: give checkpoint paths, --manifest DIR or --plot RUN_DIR ...")
    if args.plot:
        missing = [r for r in args.plot for f in ("eval.jsonl", "progress.jsonl") if not (Path(r) / f).is_file()]
        if missing:
            p.error(f"argument --plot: {missing[0]!r} is not a run folder (it needs eval.jsonl and progress.jsonl)")
        if args.labels and len(args.labels) != len(args.plot):
            p.error(f"argument --labels: expected {len(args.plot)} names (one per --plot run), got {len(args.labels)}")
        problem = output_problem(args.out, folder=False)
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
            evaluate(path, args.opponents, args.sessions, args.seed, args.workers, greedy=not args.sample,
                     quiet=args.quiet)  # fmt: skip
    except ValueError as exc:  # CheckpointError included
        print(f"{p.prog}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
