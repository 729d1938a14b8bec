"""Tournaments between bots and checkpoints: rotated seats, duplicate deals, confidence intervals and ratings.

``tournament(profile, entrants, sessions, seed=0, workers=1)`` plays seeded sessions (one session = one whole game
of the profile, every round or deal) and returns the results as plain data; ``save_results`` writes them as JSON,
CSV and a PNG chart; ``format_standings`` prints them. ``rummy tournament`` wraps the three (``docs/guides/tournaments.md``).

How the sessions are planned (all of it from the seed, so the results do not depend on the number of workers):

* **Tables.** With E entrants and n seats: E = n gives one table of everybody; E < n seats everybody, each entrant
  ``n // E`` times, and the ``n % E`` spare seats go to E cyclically shifted groups of entrants (E tables, so every
  entrant holds a spare seat equally often); E > n uses every one of the C(E, n) sets of n entrants (a complete
  block design: every entrant sits at C(E-1, n-1) tables, every pair meets at C(E-2, n-2)). Each table's seating
  order is a seeded shuffle of its entrants (an entrant with several seats has them side by side), so neighbours
  vary from table to table.
* **Rotations.** Each table is played n times with the seating rotated one seat to the left each time, so every
  entrant plays every seat. With ``duplicate=True`` the n rotations replay the same shuffled shoes (the same *deal
  set*), so every entrant plays every hand dealt at that table and the luck of the deal cancels.
* **Blocks.** Tables x rotations is one block; ``sessions`` is rounded up to whole blocks so the design stays
  balanced (``results["sessions"]`` says how many were played).

Duplicate deals are made by seeding: the deal set's seed fixes the first deal, and every later round is redealt
from a seed of (deal set, round), because the engine's own generator also reshuffles the discard pile when the
stock runs out, which depends on the play. The redeal is loaded through the env's public scenario reset with the
session's scores, dealer and generator, so the players see exactly what a dealt round shows. Every deal's
fingerprint (hands, discard, stock) is recorded and ``results["duplicate_check"]`` compares the rotations.

Scores are in the profile's own unit (the registry's ``score_name``): penalties (``contract``,
``contract_gamerules``: lower is better) or payments (``continental``: zero-sum, higher is better). Confidence
intervals are Student-t 95 % intervals over independent deal sets (sessions when ``duplicate=False``), with the
cluster (ratio) estimator of the standard error, because the rotations of one deal set and the rounds of one
session are not independent. A penalty is never negative, so the intervals of the mean penalty per round and per
session are clipped at 0 (``score_floor``; ``results["score_floor"]`` is 0): a few sessions with a large spread
would otherwise report an impossible ``5.6 [-10.5, 21.8]``, printed ``5.6 [0.0, 21.8]``. Payments (continental) are
zero-sum and negative for the seats that pay, so their intervals are never clipped (``score_floor`` None). The
clip is applied to the standings themselves, so the JSON, the CSV files, the table and the chart agree; the
head-to-head differences (either sign) and the ratings are not clipped.

The plans, the session runner, the worker pool, the redeal and the interval are those of every match
(``rummy_env.evaluation.match``: ``plan_sessions``, ``MatchRunner`` -- here also ``SessionRunner`` --,
``play_sessions``, ``redeal``, ``mean_ci`` -- here also ``cluster_mean_ci``); this module plans a tournament,
summarises its records (standings, head to head, openskill ratings, design checks); the table, the JSON and CSV
files and the chart are written by ``rummy_env.evaluation.report`` (``format_standings``, ``save_results``,
``plot_results``, ``chart_figure``, re-exported here).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import rummy_env

from .. import bots
from ..registry import game
from .arguments import output_problem
from .game_log import save_log
from .match import (
    BACKENDS,
    EXTRA_FIELDS,
    Z975,
    MatchRunner,
    SessionPlan,
    backend_runner,
    deal_fingerprint,
    mean_ci,
    numbered_rounds,
    plan_sessions,
    play_sessions,
    redeal,
    t975,
    table_design,
)
from .match import torch_threads as _torch_threads
from .report import NAME_WIDTH as NAME_WIDTH  # re-exported: rummy_env.evaluation.bots_eval imports it from here
from .report import chart_figure, format_standings, plot_results, save_results
from .report import short_names as short_names  # re-exported, as NAME_WIDTH
from .terminal import progress_bar

#: the tournament's session runner (``rummy_env.evaluation.match.MatchRunner``; this name is kept for callers)
SessionRunner = MatchRunner
#: the tournament's confidence interval (``rummy_env.evaluation.match.mean_ci``; this name is kept for callers)
cluster_mean_ci = mean_ci
#: score names that are never negative (a penalty counts the cards left in a hand): their intervals stop at 0
NON_NEGATIVE_SCORES = ("penalty",)


def score_floor(profile: str) -> float | None:
    """The least value the per-round and per-session score of ``profile`` can take: 0 for penalties, None for
    payments (zero-sum: a seat that pays has a negative score)."""
    return 0.0 if game(profile).score_name in NON_NEGATIVE_SCORES else None


def clip_interval(ci: dict[str, Any], floor: float | None) -> dict[str, Any]:
    """A ``mean_ci`` interval with its bounds raised to ``floor`` (None: unchanged); the mean is never below it."""
    if floor is None:
        return ci
    return {**ci, **{k: max(ci[k], floor) for k in ("low", "high") if ci[k] is not None}}


# ----------------------------------------------------------------------------------------------------------------
# The tournament
# ----------------------------------------------------------------------------------------------------------------


def entrant_labels(specs: Sequence[str]) -> list[str]:
    """Unique display names: the spec, with ``#2``, ``#3`` ... for repeated specs."""
    seen: dict[str, int] = {}
    out = []
    for s in specs:
        seen[s] = seen.get(s, 0) + 1
        out.append(s if seen[s] == 1 else f"{s}#{seen[s]}")
    return out


class EntrantError(ValueError):
    """An entrant that cannot play: an unknown id, a missing or mismatched checkpoint, a checkpoint without torch
    (the message carries the install hint), a bot made for another profile or table size."""


def check_entrants(profile: str, specs: Sequence[str], num_players: int, env_config: dict[str, Any]) -> None:
    """Load every entrant and let it make one decision on a fresh table; ``EntrantError`` (a ``ValueError``) naming
    the entrant that cannot play (unknown id, missing or mismatched checkpoint, torch missing for a checkpoint, no
    policy for the profile)."""
    env = rummy_env.make(profile, num_players=num_players, **env_config)
    for spec in specs:
        try:
            bot = bots.load(spec, seed=0)
        except (ValueError, OSError, ImportError) as exc:
            raise EntrantError(f"entrant {spec!r} cannot be loaded: {exc}") from None
        want = getattr(bot, "profile", None)
        if want is not None and want != profile:
            raise EntrantError(f"entrant {spec!r} was made for profile {want!r}; this tournament plays {profile!r}")
        seats = getattr(bot, "num_players", None)
        if seats is not None and seats != num_players:
            raise EntrantError(f"entrant {spec!r} was made for {seats} players; this tournament seats {num_players}")
        env.reset(seed=0)
        try:
            bot.act(env, env.agent_selection)
        except (ValueError, OSError) as exc:
            raise EntrantError(f"entrant {spec!r} cannot play {profile!r} with {num_players} players: {exc}") from None


def resolve_num_players(profile: str, num_players: int | None) -> int:
    """The table size: ``num_players`` or the profile's default (the registry's player counts); ``ValueError`` if
    the profile cannot seat it."""
    g = game(profile)
    if num_players is None:
        return g.default_players
    if not isinstance(num_players, int) or not g.min_players <= num_players <= g.max_players:
        allowed = (
            f"exactly {g.min_players}" if g.min_players == g.max_players else f"{g.min_players} to {g.max_players}"
        )
        raise ValueError(f"profile {profile!r} seats {allowed} players; {num_players!r} players is impossible")
    return num_players


def tournament(
    profile: str,
    entrants: Sequence[str],
    sessions: int,
    seed: int = 0,
    workers: int = 1,
    num_players: int | None = None,
    duplicate: bool = True,
    backend: str = "local",
    progress: bool = False,
    save_games: str | os.PathLike[str] | None = None,
    address: str | None = None,
    runtime_env: dict[str, Any] | None = None,
    **env_config: Any,
) -> dict[str, Any]:
    """Play a seeded tournament of ``entrants`` (bot ids, ``checkpoint:PATH``) and return its results as data.

    ``sessions`` is rounded up to whole blocks (module docstring); ``workers`` processes play them, merged in
    session order, so the results (everything but ``results["timing"]``) depend only on the arguments.
    ``env_config`` goes to ``rummy_env.make`` (``rounds=(1, 2)``; continental ``rounds=2`` deals; rule overrides);
    ``progress`` shows a tqdm bar on stderr when stderr is a terminal. ``save_games``: a folder that receives the
    game log of every session (``session_0000.json`` ..., ``rummy_env.replay``, ``docs/guides/watching.md``; local backend only).
    ``backend="ray"`` plays every session as a Ray task: ``address`` is the cluster to join (``"auto"``,
    ``"HOST:PORT"``; None: ``RAY_ADDRESS``, else a local Ray, said on stderr) and ``runtime_env`` goes to
    ``ray.init``; ``checkpoint:PATH`` entrants are sent as absolute paths. The results do not depend on the backend.
    """
    specs = list(entrants)
    n = _check_arguments(profile, specs, workers, num_players, backend, env_config)
    options = _backend_options(backend, address, runtime_env)
    if save_games is not None and backend != "local":
        raise ValueError(f"save_games needs backend='local' (game logs are written as sessions end), got {backend!r}")
    if backend != "local":
        backend_runner(backend)  # a missing optional dependency stops the tournament before any entrant is loaded
    with _torch_threads(1):
        check_entrants(profile, specs, n, env_config)
    plans = plan_sessions(len(specs), n, sessions, seed=seed, duplicate=duplicate)
    game_log = _game_log_writer(save_games, len(plans), backend)
    start = time.perf_counter()
    records = _play_plans(profile, n, specs, env_config, plans, workers, backend, progress, game_log, options)
    seconds = time.perf_counter() - start
    results = summarize(records, profile=profile, specs=specs, num_players=n, seed=seed, duplicate=duplicate)
    results["sessions_requested"] = sessions
    results["env_config"] = {k: list(v) if isinstance(v, tuple) else v for k, v in env_config.items()}
    decisions = sum(r["decisions"] for r in records)
    results["timing"] = {
        "workers": workers,
        "seconds": seconds,
        "sessions_per_second": len(records) / seconds if seconds else None,
        "decisions_per_second": decisions / seconds if seconds else None,
    }
    return results


def _backend_options(backend: str, address: str | None, runtime_env: dict[str, Any] | None) -> dict[str, Any]:
    """The keywords of the backend's session runner; ``ValueError`` for Ray options given to the local backend."""
    if backend == "local":
        given = [name for name, value in (("address", address), ("runtime_env", runtime_env)) if value is not None]
        if given:
            raise ValueError(f"{', '.join(given)} is for backend='ray'; the local backend plays on this machine")
        return {}
    if address is not None and (not isinstance(address, str) or not address):
        raise ValueError(f"address={address!r}: a Ray address such as 'auto', 'HOST:PORT' or 'ray://HOST:10001'")
    if runtime_env is not None and not isinstance(runtime_env, dict):
        raise ValueError(f"runtime_env must be a dict (ray.init's runtime_env), got {type(runtime_env).__name__}")
    return {"address": address, "runtime_env": runtime_env}


def _game_log_writer(folder: str | os.PathLike[str] | None, sessions: int, backend: str) -> Any:
    """None, or a function writing each game log to ``folder/session_NNNN.json`` (folder checked and created)."""
    if folder is None:
        return None
    if backend != "local":
        raise ValueError(f"save_games needs backend='local' (game logs are written as sessions end), got {backend!r}")
    problem = output_problem(folder, folder=True)
    if problem:
        raise ValueError(f"save_games={str(folder)!r} {problem}; expected a folder that exists or can be created")
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    width = max(4, len(str(sessions - 1)))

    def write(log: dict[str, Any]) -> None:
        save_log(log, out / f"session_{log['session']['index']:0{width}d}.json")

    return write


def _check_arguments(
    profile: str, specs: list[str], workers: Any, num_players: int | None, backend: str, env_config: dict[str, Any]
) -> int:
    """The table size, after refusing arguments a tournament cannot play (``ValueError`` saying what is allowed)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend={backend!r}; available: {list(BACKENDS)}")
    if len(specs) < 2:
        raise ValueError(f"a tournament needs at least two entrants, got {specs!r}")
    if not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers={workers!r}: a positive integer")
    for key in ("max_steps", "render_mode", "illegal_action"):
        if key in env_config:
            raise ValueError(f"{key} cannot be set for a tournament (sessions are always played to the end)")
    return resolve_num_players(profile, num_players)


def _play_plans(
    profile: str,
    n: int,
    specs: list[str],
    env_config: dict[str, Any],
    plans: list[SessionPlan],
    workers: int,
    backend: str,
    progress: bool,
    game_log: Any = None,
    options: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The tournament records of ``plans`` (the match runner's, without ``EXTRA_FIELDS``), with a tqdm bar;
    ``game_log(log)`` receives each session's game log (``play_sessions``)."""
    bar = progress_bar(len(plans), desc=f"{profile} tournament", unit="session", enabled=progress)
    try:
        played = play_sessions(profile, n, specs, env_config, plans, workers=workers, backend=backend,
                               progress=bar.update, game_log=game_log, backend_options=options)  # fmt: skip
    finally:
        bar.close()
    return [{k: v for k, v in rec.items() if k not in EXTRA_FIELDS} for rec in played]


# ----------------------------------------------------------------------------------------------------------------
# Summary
# ----------------------------------------------------------------------------------------------------------------


def _better(a: float, b: float, higher: bool) -> bool:
    return a > b if higher else a < b


class _Clusters:
    """Sums and counts of samples per cluster (deal set or session), in the order the clusters first appear."""

    def __init__(self) -> None:
        self.cells: dict[Any, list[float]] = {}

    def add(self, key: Any, value: float, count: int = 1) -> None:
        cell = self.cells.setdefault(key, [0.0, 0])
        cell[0] += value
        cell[1] += count

    def ci(self) -> dict[str, Any]:
        """The mean and its 95 % interval over the clusters (``mean_ci``), clusters in key order."""
        return mean_ci([tuple(v) for _, v in sorted(self.cells.items())])  # type: ignore[misc]

    def share(self) -> float | None:
        """The plain mean of the samples (None without samples)."""
        tot = sum(v[1] for v in self.cells.values())
        return sum(v[0] for v in self.cells.values()) / tot if tot else None


@dataclass
class _Tally:
    """Everything ``summarize`` accumulates over the session records."""

    num_entrants: int
    num_players: int
    higher: bool

    def __post_init__(self) -> None:
        e, n = self.num_entrants, self.num_players
        self.per_round = [_Clusters() for _ in range(e)]
        self.per_session = [_Clusters() for _ in range(e)]
        self.round_wins = [_Clusters() for _ in range(e)]
        self.session_wins = [_Clusters() for _ in range(e)]
        self.places = [_Clusters() for _ in range(e)]
        self.h2h: dict[tuple[int, int], _Clusters] = {}
        self.ahead: dict[tuple[int, int], list[float]] = {}
        self.meetings = [[0] * e for _ in range(e)]
        self.seats_played = [[0] * n for _ in range(e)]

    def add_session(self, rec: dict[str, Any], cluster: int) -> None:
        """Count one session record into the cluster ``cluster``."""
        seats, totals, winners = rec["seats"], rec["totals"], rec["winners"]
        for s, e in enumerate(seats):
            self.seats_played[e][s] += 1
            for r, scores in enumerate(rec["round_scores"]):
                self.per_round[e].add(cluster, scores[s])
                rw = rec["round_winners"][r]
                self.round_wins[e].add(cluster, 1.0 / len(rw) if s in rw else 0.0)
            self.per_session[e].add(cluster, totals[s])
            self.session_wins[e].add(cluster, 1.0 / len(winners) if s in winners else 0.0)
            self.places[e].add(cluster, 1 + sum(_better(totals[q], totals[s], self.higher) for q in range(len(seats))))
        self._add_pairs(seats, totals, cluster)

    def _add_pairs(self, seats: list[int], totals: list[float], cluster: int) -> None:
        present = sorted(set(seats))
        n = len(seats)
        mean_total = {e: sum(totals[s] for s in range(n) if seats[s] == e) / seats.count(e) for e in present}
        for i in present:
            for j in present:
                if i == j:
                    continue
                self.meetings[i][j] += 1
                self.h2h.setdefault((i, j), _Clusters()).add(cluster, mean_total[i] - mean_total[j])
                ti, tj = mean_total[i], mean_total[j]
                cell = self.ahead.setdefault((i, j), [0.0, 0])
                cell[0] += 1.0 if _better(ti, tj, self.higher) else 0.5 if ti == tj else 0.0
                cell[1] += 1


def summarize(
    records: Sequence[dict[str, Any]],
    profile: str,
    specs: Sequence[str],
    num_players: int,
    seed: int,
    duplicate: bool,
) -> dict[str, Any]:
    """Standings, head-to-head table, ratings and design checks from the session records (in session order)."""
    g = game(profile)
    labels = entrant_labels(specs)
    e_count, n = len(specs), num_players
    higher = not g.lower_is_better
    tally = _Tally(e_count, n, higher)
    for rec in records:
        tally.add_session(rec, rec["deal_set"] if duplicate else rec["session"])
    ratings = rate_sessions(records, e_count, higher)
    return {
        "profile": profile,
        "num_players": n,
        "entrants": labels,
        "specs": list(specs),
        "seed": seed,
        "duplicate": duplicate,
        "score": g.score_name,
        "higher_is_better": higher,
        "score_floor": score_floor(profile),
        "sessions": len(records),
        "deal_sets": len({r["deal_set"] if duplicate else r["session"] for r in records}),
        "rounds": sum(len(r["round_scores"]) for r in records),
        "design": _design(tally, labels, n),
        "duplicate_check": _duplicate_check(records, duplicate),
        "standings": _standings(tally, labels, specs, ratings, score_floor(profile)),
        "head_to_head": _head_to_head(tally, labels),
        "records": list(records),
    }


def _standings(
    tally: _Tally, labels: list[str], specs: Sequence[str], ratings: list[dict[str, float]], floor: float | None
) -> list[dict]:
    """One row per entrant, best first: by rating ordinal, then by mean score per session, then by name; the score
    intervals clipped at ``floor`` (``score_floor``)."""
    standings = []
    for e in range(len(specs)):
        standings.append(
            {
                "entrant": labels[e],
                "spec": specs[e],
                "rating": ratings[e],
                "per_round": clip_interval(tally.per_round[e].ci(), floor),
                "per_session": clip_interval(tally.per_session[e].ci(), floor),
                "rounds_won": tally.round_wins[e].share(),
                "sessions_won": tally.session_wins[e].share(),
                "mean_place": tally.places[e].share(),
                "sessions_played": sum(tally.seats_played[e]),
                "seats_played": tally.seats_played[e],
            }
        )
    sign = -1.0 if tally.higher else 1.0

    def order_key(row: dict[str, Any]) -> tuple[float, float, str]:
        mean = row["per_session"]["mean"]
        return (-row["rating"]["ordinal"], sign * mean if mean is not None else math.inf, row["entrant"])

    standings.sort(key=order_key)
    for rank, row in enumerate(standings, 1):
        row["rank"] = rank
    return standings


def _head_to_head(tally: _Tally, labels: list[str]) -> list[dict[str, Any]]:
    """Per ordered pair that met: mean session difference row minus column (95 % CI) and the share row ahead."""
    out = []
    for (i, j), acc in sorted(tally.h2h.items()):
        stat = acc.ci()
        a = tally.ahead[(i, j)]
        out.append(
            {
                "row": labels[i],
                "col": labels[j],
                "sessions": a[1],
                "mean_diff": stat["mean"],
                "low": stat["low"],
                "high": stat["high"],
                "row_ahead": a[0] / a[1],
            }
        )
    return out


def _design(tally: _Tally, labels: list[str], n: int) -> dict[str, Any]:
    """The tables of a block and the balance checks: every entrant every seat, every pair equally often."""
    e_count = tally.num_entrants
    design = table_design(e_count, n)
    pair_counts = sorted({tally.meetings[i][j] for i in range(e_count) for j in range(e_count) if i != j})
    return {
        "tables": [[labels[e] for e in t] for t in design],
        "sessions_per_block": len(design) * n,
        "pair_meetings": tally.meetings,
        "pairs_balanced": len(pair_counts) <= 1,
        "every_seat": all(len(set(row)) == 1 for row in tally.seats_played),
    }


def _duplicate_check(records: Sequence[dict[str, Any]], duplicate: bool) -> dict[str, Any]:
    """Whether the rotations of every deal set were dealt the same deals (None without duplicate deals)."""
    by_set: dict[int, set[tuple[str, ...]]] = {}
    for rec in records:
        if rec["deals"]:
            by_set.setdefault(rec["deal_set"], set()).add(tuple(rec["deals"]))
    return {
        "deal_sets": len(by_set),
        "identical": all(len(v) == 1 for v in by_set.values()) if duplicate else None,
    }


def rate_sessions(records: Sequence[dict[str, Any]], num_entrants: int, higher: bool) -> list[dict[str, float]]:
    """openskill Plackett-Luce ratings (one player per team), updated session by session in session order.

    Each session ranks the entrants at the table by their final total (an entrant with several seats: the mean of
    its seats); equal totals share a rank. ``low``/``high`` are mu -/+ 1.96 sigma; ``ordinal`` is mu - 3 sigma.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = [model.rating(name=str(e)) for e in range(num_entrants)]
    for rec in records:
        seats, totals = rec["seats"], rec["totals"]
        present = sorted(set(seats))
        if len(present) < 2:
            continue
        mean = [sum(totals[s] for s in range(len(seats)) if seats[s] == e) / seats.count(e) for e in present]
        key = [-m if higher else m for m in mean]
        distinct = sorted(set(key))
        ranks = [distinct.index(k) + 1 for k in key]
        new = model.rate([[ratings[e]] for e in present], ranks=ranks)
        for e, team in zip(present, new):
            ratings[e] = team[0]
    return [
        {
            "mu": r.mu,
            "sigma": r.sigma,
            "ordinal": r.ordinal(),
            "low": r.mu - Z975 * r.sigma,
            "high": r.mu + Z975 * r.sigma,
        }
        for r in ratings
    ]


# ----------------------------------------------------------------------------------------------------------------
# Session length from the command line (``rummy tournament``, ``rummy play``, ``rummy record``: ``rummy_env.cli``)
# ----------------------------------------------------------------------------------------------------------------


def env_config_from_args(profile: str, rounds: Sequence[int] | None, deals: int | None) -> dict[str, Any]:
    """``--rounds`` / ``--deals`` as the env's session length ``rounds=``; ``ValueError`` saying what is allowed.

    A profile of numbered rounds (the Contract family) takes round numbers: ``--rounds 1 2`` plays those rounds.
    A profile that counts alike deals (continental) takes one number, the deals per session: ``--rounds 2``
    (``--deals 2`` is the old spelling, still accepted). Which kind a profile is comes from its engine
    (``rummy_env.evaluation.match.numbered_rounds``)."""
    g = game(profile)
    numbered = numbered_rounds(g)
    if deals is not None:
        if rounds:
            raise ValueError("--rounds and --deals both given: --deals is the old spelling of --rounds; give one")
        if numbered:
            raise ValueError(
                f"--deals counts deals; {profile!r} plays numbered {g.units}: use --rounds with round numbers (1 2 ...)"
            )
        rounds = [deals]
    if not rounds:
        return {}
    if numbered:
        return {"rounds": tuple(rounds)}
    if len(rounds) != 1:
        given = " ".join(str(r) for r in rounds)
        raise ValueError(f"--rounds {given}: {profile!r} counts {g.units}; give one number, the {g.units} per session")
    return {"rounds": rounds[0]}


__all__ = [
    "SessionPlan",
    "env_config_from_args",
    "SessionRunner",
    "EntrantError",
    "check_entrants",
    "cluster_mean_ci",
    "deal_fingerprint",
    "entrant_labels",
    "format_standings",
    "plan_sessions",
    "chart_figure",
    "clip_interval",
    "plot_results",
    "rate_sessions",
    "redeal",
    "resolve_num_players",
    "save_results",
    "score_floor",
    "summarize",
    "t975",
    "table_design",
    "tournament",
]
