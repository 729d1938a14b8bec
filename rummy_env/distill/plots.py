"""The figures of the pipeline: learning curves of training runs (``learning_curve_figure``, ``plot``: the greedy
evaluations of ``eval.jsonl`` and the returns of ``progress.jsonl``, with 95 % bands) and curves over checkpoints or
label folders (``plot_curve``: the difference network minus opponents with its 95 % band). Every band is
``rummy_env.evaluation.match.mean_ci``; every PNG is written atomically. Needs matplotlib.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..evaluation.match import half_width, mean_ci
from ..training.outputs import save_figure_atomic


def _score_words(metric: str) -> tuple[str, str]:
    """``penalty_per_round`` -> (``penalty``, ``round``): the score and the unit of a session it is counted per."""
    score, _, unit = metric.partition("_per_")
    return score, unit or "round"


def learning_curve_figure(run_dirs: list[str], labels: list[str] | None = None) -> Any:
    """The learning-curve figure of runs (a matplotlib ``Figure``, not drawn to a file).

    Left: the greedy evaluations during training (``eval.jsonl``): the policy's mean score per round (deal) and
    seat against each opponent and the opponents' on the same tables, in points, with their 95 % confidence bands
    (the Student-t half-widths ``policy_ci95`` / ``opponents_ci95`` each evaluation stored). Right: the learning
    seats' mean episode return per update (``progress.jsonl``), as a moving mean over the last updates with the
    95 % band of that mean (the log keeps one mean per update, not its episodes, so the band is over the update
    means in the window). Legends sit under the axes, never on the data."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # optional dependency: matplotlib
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
        band = [half_width(mean_ci((v, 1) for v in w)) if len(w) == k else float("nan") for w in windows]  # full ones
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
    """Draw ``learning_curve_figure`` of the runs to the PNG file ``out`` (written atomically)."""
    save_figure_atomic(learning_curve_figure(run_dirs, labels), out)
    print(f"wrote {out}")


def plot_curve(
    curve: list[dict[str, Any]],
    opponents: list[str],
    path: str,
    title: str,
    x_key: str = "labelled_sessions",
    xlabel: str = "labelled heuristic sessions the fit saw (0: the base network)",
) -> None:
    """One panel per opponent: the per-round difference with its 95 % band against each point's ``x_key``, drawn
    to the PNG ``path`` (atomically)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # optional dependency: matplotlib
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.2 * len(opponents), 3.8))
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, len(opponents), squeeze=False)
    x = [p[x_key] for p in curve]
    for ax, opp in zip(axes[0], opponents):
        ev = [p["evaluation"][opp] for p in curve]
        y = [e["difference"] for e in ev]
        half = [e["difference_ci95"] for e in ev]
        ax.fill_between(x, [a - b for a, b in zip(y, half)], [a + b for a, b in zip(y, half)], alpha=0.25)
        ax.plot(x, y, marker="o")
        ax.axhline(0.0, color="grey", lw=0.8)
        metric = ev[0].get("metric", "score_per_round").replace("_", " ")
        ax.set_title(f"against {opp}")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(f"network minus {opp}, {metric}\n(95 % band; seats rotated)")
    fig.suptitle(title)
    fig.tight_layout()
    save_figure_atomic(fig, path)


def differences(evaluation: dict[str, Any], opponents: list[str]) -> str:
    """One point's figures for a progress line: the difference and its 95 % half-width against each opponent."""
    return ", ".join(
        f"{o}: {evaluation[o]['difference']:+.2f} ± {evaluation[o]['difference_ci95']:.2f}" for o in opponents
    )
