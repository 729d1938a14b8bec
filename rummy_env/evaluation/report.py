"""Tournament results written out: the standings table (``format_standings``), the JSON and CSV files
(``save_results``) and the PNG chart (``plot_results``, ``chart_figure``).

The results are the plain data of ``rummy_env.evaluation.tournament.tournament`` (``summarize``); that module
re-exports every public name of this one, so ``rummy_env.evaluation.tournament.save_results`` and the others keep
working (``docs/guides/tournaments.md``).
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..registry import game
from .match import Z975
from .terminal import WIDTH, abbreviate, wrap


def _fmt(x: float | None, spec: str = ".1f") -> str:
    return "-" if x is None else format(x, spec)


#: the widest entrant name the standings print (longer ones are abbreviated, with a key under the table)
NAME_WIDTH = 24


def short_names(names: Sequence[str], width: int) -> dict[str, str]:
    """Each name abbreviated to ``width`` characters (``rummy_env.evaluation.terminal.abbreviate``), distinct: a clash
    gets ``~2``, ``~3`` ... on its later names."""
    out: dict[str, str] = {}
    for name in names:
        short = abbreviate(name, width)
        k = 1
        while short in out.values():
            k += 1
            short = abbreviate(name, width - len(f"~{k}")) + f"~{k}"
        out[name] = short
    return out


def format_standings(results: dict[str, Any], width: int | None = None) -> str:
    """A readable standings table, the head-to-head table and the design facts, within ``width`` columns
    (``rummy_env.evaluation.terminal.WIDTH``, 120): long entrant names are abbreviated (the full names follow the table),
    the head-to-head columns are split into blocks and the prose lines are wrapped."""
    width = WIDTH if width is None else width
    unit = results["score"]
    better = "higher" if results["higher_is_better"] else "lower"
    lines = [
        f"{results['profile']}: {results['sessions']} sessions ({results['deal_sets']} deal sets"
        f"{', duplicate deals' if results['duplicate'] else ''}), {results['rounds']} rounds, "
        f"{results['num_players']} seats, seed {results['seed']}; {unit} per round/session ({better} is better)"
        + _floor_note(results),
    ]
    full = [r["entrant"] for r in results["standings"]]
    short = short_names(full, NAME_WIDTH)
    rows = results["standings"]

    def ci_cells(key: str) -> list[str]:
        parts = [(_fmt(r[key]["mean"]), _fmt(r[key]["low"]), _fmt(r[key]["high"])) for r in rows]
        wm, wl, wh = (max(len(p[i]) for p in parts) for i in range(3))
        return [f"{m:>{wm}} [{lo:>{wl}}, {hi:>{wh}}]" for m, lo, hi in parts]

    columns = [  # (top header, header, cells, separator before the column)
        ("", "#", [str(r["rank"]) for r in rows], ""),
        ("", "entrant", [short[r["entrant"]] for r in rows], "  "),
        ("rating mu", "± 1.96σ", [f"{r['rating']['mu']:.2f} ± {Z975 * r['rating']['sigma']:.2f}" for r in rows], "  "),
        ("", "ordinal", [f"{r['rating']['ordinal']:.2f}" for r in rows], " "),
        (f"{unit} per round", "mean [95% CI]", ci_cells("per_round"), "  "),
        (f"{unit} per session", "mean [95% CI]", ci_cells("per_session"), "  "),
        ("won", "rounds", [_fmt(r["rounds_won"], ".1%") for r in rows], "  "),
        ("won", "games", [_fmt(r["sessions_won"], ".1%") for r in rows], " "),
        ("mean", "place", [_fmt(r["mean_place"], ".2f") for r in rows], " "),
    ]
    widths = [max(len(top), len(head), *(len(c) for c in cells)) for top, head, cells, _ in columns]
    w = widths[1]

    def line(texts: list[str]) -> str:
        out = ""
        for k, (text, (_, _, _, sep)) in enumerate(zip(texts, columns)):
            out += sep + (f"{text:<{widths[k]}}" if k == 1 else f"{text:>{widths[k]}}")
        return out

    head = line([c[1] for c in columns])
    lines += [line([c[0] for c in columns]).rstrip(), head, "-" * len(head)]
    lines += [line([c[2][i] for c in columns]) for i in range(len(rows))]
    renamed = [n for n in full if short[n] != n]
    lines += [f"{'names:' if k == 0 else '':<6} {short[n]} = {n}" for k, n in enumerate(renamed)]
    lines += _head_to_head_lines(results, full, short, w, width)
    d = results["design"]
    dup = results["duplicate_check"]["identical"]
    lines.append("")
    lines.append(
        f"design: {len(d['tables'])} table(s) x {results['num_players']} rotations per block; every entrant every "
        f"seat: {d['every_seat']}; pairs meet equally often: {d['pairs_balanced']}"
        + ("" if dup is None else f"; duplicate deals identical across rotations: {dup}")
    )
    t = results.get("timing")
    if t:
        lines.append(
            f"time {t['seconds']:.1f} s with {t['workers']} worker(s): {t['sessions_per_second']:.2f} sessions/s, "
            f"{t['decisions_per_second']:,.0f} decisions/s"
        )
    return "\n".join(text.rstrip() for text in wrap(lines, width))


def _floor_note(results: dict[str, Any]) -> str:
    """The legend's words on clipped intervals (``score_floor``), or nothing when the score is not clipped."""
    floor = results.get("score_floor")
    if floor is None:
        return ""
    return f"; 95% CIs clipped at {floor:g}: a {results['score']} is never negative"


def _head_to_head_lines(results: dict[str, Any], full: list[str], short: dict[str, str], w: int, width: int) -> list:
    """The head-to-head matrix (row minus column), its columns split into blocks that fit ``width``."""
    cells = {(h["row"], h["col"]): h for h in results["head_to_head"]}
    if not cells:
        return []
    cw = 9
    per_block = max(1, (width - (w + 4)) // (cw + 1))
    lines = ["", f"head to head: mean {results['score']} per session, row minus column, when at the same table (# = rank)"]
    for first in range(0, len(full), per_block):
        cols = range(first, min(first + per_block, len(full)))
        if first:
            lines.append("")
        lines.append(f"{'':<{w + 4}}" + "".join(f" {'#' + str(k + 1):>{cw}}" for k in cols))
        for k, a in enumerate(full, 1):
            row = []
            for c in cols:
                b = full[c]
                h = cells.get((a, b))
                row.append(f" {'':>{cw}}" if a == b else f" {_fmt(h['mean_diff'] if h else None, '+.1f'):>{cw}}")
            lines.append(f"{'#' + str(k):>2}  {short[a]:<{w}}" + "".join(row))
    return lines


def save_results(results: dict[str, Any], out_dir: str | os.PathLike[str], chart: bool = True) -> dict[str, Path]:
    """Write ``tournament.json``, ``standings.csv``, ``head_to_head.csv``, ``sessions.csv`` and ``ratings.png``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {
        "json": out / "tournament.json",
        "standings": out / "standings.csv",
        "head_to_head": out / "head_to_head.csv",
        "sessions": out / "sessions.csv",
    }
    paths["json"].write_text(json.dumps(results, indent=1) + "\n")
    with paths["standings"].open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            [
                "rank", "entrant", "spec", "mu", "sigma", "ordinal", "rating_low", "rating_high",
                "per_round_mean", "per_round_low", "per_round_high", "per_session_mean", "per_session_low",
                "per_session_high", "rounds_won", "sessions_won", "mean_place", "sessions_played",
            ]
        )  # fmt: skip
        for r in results["standings"]:
            rt, pr, ps = r["rating"], r["per_round"], r["per_session"]
            w.writerow(
                [
                    r["rank"], r["entrant"], r["spec"], rt["mu"], rt["sigma"], rt["ordinal"], rt["low"], rt["high"],
                    pr["mean"], pr["low"], pr["high"], ps["mean"], ps["low"], ps["high"], r["rounds_won"],
                    r["sessions_won"], r["mean_place"], r["sessions_played"],
                ]
            )  # fmt: skip
    with paths["head_to_head"].open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["row", "col", "sessions", "mean_diff", "low", "high", "row_ahead"])
        for h in results["head_to_head"]:
            w.writerow([h["row"], h["col"], h["sessions"], h["mean_diff"], h["low"], h["high"], h["row_ahead"]])
    labels = results["entrants"]
    with paths["sessions"].open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["session", "deal_set", "table", "rotation", "seat", "entrant", "total", "won", "round_scores"])
        for rec in results["records"]:
            for s, e in enumerate(rec["seats"]):
                w.writerow(
                    [
                        rec["session"], rec["deal_set"], rec["table"], rec["rotation"], s, labels[e],
                        rec["totals"][s], int(s in rec["winners"]), " ".join(str(r[s]) for r in rec["round_scores"]),
                    ]
                )  # fmt: skip
    if chart:
        paths["chart"] = out / "ratings.png"
        plot_results(results, paths["chart"])
    return paths


#: the widest entrant name on the chart's axis (longer ones are abbreviated, their full names under the chart)
CHART_NAME_WIDTH = 30
#: resolution of the PNG chart (its axis labels are fitted at it)
CHART_DPI = 110


def plot_results(results: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """PNG: openskill ratings (mu, 95 % interval, ordinal) and mean score per round with its 95 % CI
    (``chart_figure``)."""
    chart_figure(results).savefig(path, dpi=CHART_DPI)


def chart_figure(results: dict[str, Any]) -> Any:
    """The chart of ``plot_results`` as a matplotlib ``Figure`` (Agg canvas): two panels side by side, entrant names
    on the shared y axis; each x-axis label is wrapped to the width of its own panel (``_fit_xlabels``), so the two
    never run into each other however long the names that narrow the panels."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows = results["standings"][::-1]  # best on top
    short = short_names([r["entrant"] for r in rows], CHART_NAME_WIDTH)
    names = [short[r["entrant"]] for r in rows]
    y = np.arange(len(rows))
    fig = Figure(figsize=(11, 1.9 + 0.55 * len(rows)), dpi=CHART_DPI, layout="constrained")
    FigureCanvasAgg(fig)
    ax1, ax2 = fig.subplots(1, 2, sharey=True)
    mu = np.array([r["rating"]["mu"] for r in rows])
    half = np.array([r["rating"]["high"] - r["rating"]["mu"] for r in rows])
    ax1.errorbar(mu, y, xerr=half, fmt="o", capsize=4, color="tab:blue", label="mu ± 1.96σ")
    ax1.scatter([r["rating"]["ordinal"] for r in rows], y, marker="|", s=200, color="tab:red", label="ordinal")
    ax1.set_yticks(y, names)
    ax1.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=2, fontsize="small", frameon=False)
    ax1.grid(axis="x", alpha=0.3)
    means = [r["per_round"]["mean"] for r in rows]
    lo = [r["per_round"]["low"] for r in rows]
    hi = [r["per_round"]["high"] for r in rows]
    err = np.array([[m - (low if low is not None else m) for m, low in zip(means, lo)],
                    [(high if high is not None else m) - m for m, high in zip(means, hi)]])  # fmt: skip
    ax2.errorbar(means, y, xerr=err, fmt="s", capsize=4, color="tab:green")
    better = "higher" if results["higher_is_better"] else "lower"
    per = game(results["profile"]).unit
    clipped = " clipped at 0" if results.get("score_floor") is not None else ""
    ax2.grid(axis="x", alpha=0.3)
    fig.suptitle(
        f"{results['profile']}: {results['sessions']} sessions, {results['num_players']} seats, seed {results['seed']}"
    )
    renamed = [f"{s} = {n}" for n, s in short.items() if s != n][::-1]
    if renamed:  # the full names of the abbreviated entrants, under the axes
        fig.supxlabel("\n".join(renamed), fontsize="small", ha="left", x=0.01)
    _fit_xlabels(fig, [
        (ax1, "openskill Plackett-Luce rating mu (no unit; a new entrant starts at 25)"),
        (ax2, f"mean {results['score']} per {per} and seat, points, 95 % CI{clipped} ({better} is better)"),
    ])  # fmt: skip
    return fig


def _fit_xlabels(fig: Any, labels: list[tuple[Any, str]]) -> None:
    """Set each axes' x label, wrapped at spaces to the width of its own axes (measured on the drawn figure), so
    that labels of neighbouring panels never overlap; the layout is redrawn until every label fits."""
    import textwrap

    for ax, text in labels:
        ax.set_xlabel(text)
    for _ in range(4):
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        changed = False
        for ax, text in labels:
            room = ax.get_window_extent(renderer).width
            label = ax.xaxis.label
            if label.get_window_extent(renderer).width <= room:
                continue
            chars = max(len(line) for line in label.get_text().splitlines())
            width = max(8, int(chars * room / label.get_window_extent(renderer).width) - 1)
            label.set_text("\n".join(textwrap.wrap(text, width, break_long_words=True)))
            changed = True
        if not changed:
            return


__all__ = [
    "CHART_DPI",
    "CHART_NAME_WIDTH",
    "NAME_WIDTH",
    "chart_figure",
    "format_standings",
    "plot_results",
    "save_results",
    "short_names",
]
