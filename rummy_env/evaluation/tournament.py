"""Tournaments between bots and checkpoints: rotated seats, duplicate deals, confidence intervals and ratings.

``tournament(profile, entrants, sessions, seed=0, workers=1)`` plays seeded sessions (one session = one whole game
of the profile, every round or deal) and returns the results as plain data; ``save_results`` writes them as JSON,
CSV and a PNG chart; ``format_standings`` prints them. ``rummy tournament`` wraps the three (``docs/tournament.md``).

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

Scores are in the profile's own unit: penalties (``contract``, ``contract_gamerules``: lower is better) or payments
(``continental``: zero-sum, higher is better). Confidence intervals are Student-t 95 % intervals over independent
deal sets (sessions when ``duplicate=False``), with the cluster (ratio) estimator of the standard error, because
the rotations of one deal set and the rounds of one session are not independent.
"""

from __future__ import annotations

import csv
import hashlib
import itertools
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

#: the 97.5 % quantile of the standard normal distribution
Z975 = 1.959963984540054
#: exact 97.5 % Student-t quantiles for 1..5 degrees of freedom (the series below is poor there)
_T975_SMALL = {
    1: 12.706204736174707,
    2: 4.302652729749464,
    3: 3.182446305284263,
    4: 2.7764451051977987,
    5: 2.570581835636314,
}

BACKENDS = ("local", "ray")


# ----------------------------------------------------------------------------------------------------------------
# Statistics
# ----------------------------------------------------------------------------------------------------------------


def t975(df: int) -> float:
    """The 97.5 % quantile of Student's t with ``df`` degrees of freedom (Abramowitz-Stegun 26.7.5 for df > 5)."""
    if df < 1:
        raise ValueError(f"df={df}: need at least one degree of freedom")
    if df in _T975_SMALL:
        return _T975_SMALL[df]
    z = Z975
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def cluster_mean_ci(clusters: Sequence[tuple[float, int]]) -> dict[str, Any]:
    """Mean of samples grouped in independent clusters ``(sum, count)``, with a 95 % t interval (ratio estimator).

    ``low``/``high`` are ``None`` with fewer than two clusters (no spread to measure).
    """
    clusters = [(float(s), int(m)) for s, m in clusters if m > 0]
    total = sum(m for _, m in clusters)
    if total == 0:
        return {"mean": None, "low": None, "high": None, "n": 0, "clusters": 0}
    mean = sum(s for s, _ in clusters) / total
    c = len(clusters)
    if c < 2:
        return {"mean": mean, "low": None, "high": None, "n": total, "clusters": c}
    resid = sum((s - mean * m) ** 2 for s, m in clusters)
    se = math.sqrt(c / (c - 1) * resid) / total
    half = t975(c - 1) * se
    return {"mean": mean, "low": mean - half, "high": mean + half, "n": total, "clusters": c}


# ----------------------------------------------------------------------------------------------------------------
# Plan: tables, rotations, seeds
# ----------------------------------------------------------------------------------------------------------------


def table_design(num_entrants: int, num_players: int) -> list[tuple[int, ...]]:
    """The tables of one block: each a sorted tuple of ``num_players`` entrant indices (see the module docstring)."""
    e, n = num_entrants, num_players
    if e < 1 or n < 1:
        raise ValueError(f"need at least one entrant and one seat, got {e} entrant(s) and {n} seat(s)")
    if e > n:
        return list(itertools.combinations(range(e), n))
    base, spare = divmod(n, e)
    if spare == 0:
        return [tuple(i for i in range(e) for _ in range(base))]
    tables = []
    for shift in range(e):
        extra = {(shift + j) % e for j in range(spare)}
        tables.append(tuple(sorted(i for i in range(e) for _ in range(base + (i in extra)))))
    return tables


def _seed_int(*words: int) -> int:
    """A 63-bit seed from a tuple of non-negative integers (numpy ``SeedSequence``: well mixed, platform-free)."""
    a, b = np.random.SeedSequence(list(words)).generate_state(2, np.uint32)
    return (int(a) << 31) ^ int(b)


# purposes mixed into the seeds so that the streams never collide
_DEAL, _ROUND, _BOT, _SEATING = 1, 2, 3, 4


@dataclass(frozen=True)
class SessionPlan:
    """One session of the tournament: who sits where and which shoes are dealt."""

    #: position in the tournament (results are merged in this order)
    index: int
    #: the deal set: sessions with the same deal set replay the same shoes (duplicate mode)
    deal_set: int
    #: the table of the design and the rotation (0..n-1) of its seating
    table: int
    rotation: int
    #: entrant index at each seat
    seats: tuple[int, ...]
    #: the env's reset seed (fixes the first deal) and the tournament seed (later deals and bot seeds)
    deal_seed: int
    seed: int
    duplicate: bool

    def round_seed(self, round_index: int) -> int:
        """Seed of the deal of round ``round_index`` (0-based, >= 1), shared by the rotations of the deal set."""
        key = self.deal_set if self.duplicate else self.index
        return _seed_int(self.seed, _ROUND, key, round_index)

    def bot_seed(self, seat: int) -> int:
        """Seed of the bot at ``seat`` for this session."""
        return _seed_int(self.seed, _BOT, self.index, seat)


def plan_sessions(
    num_entrants: int, num_players: int, sessions: int, seed: int = 0, duplicate: bool = True
) -> list[SessionPlan]:
    """The sessions of a tournament, ``sessions`` rounded up to whole blocks (tables x rotations)."""
    if sessions < 1:
        raise ValueError(f"sessions={sessions}: need at least one session")
    if seed < 0:
        raise ValueError(f"seed={seed}: seeds are non-negative integers")
    design = table_design(num_entrants, num_players)
    n = num_players
    block = len(design) * n
    blocks = -(-sessions // block)
    plans = []
    for b in range(blocks):
        for t, table in enumerate(design):
            rng = np.random.Generator(np.random.PCG64(_seed_int(seed, _SEATING, b, t)))
            # a seeded order of the distinct entrants, each one's seats side by side: the n rotations are then n
            # different seatings (an alternating A B A B would repeat itself after two)
            distinct = sorted(set(table))
            base = [distinct[i] for i in rng.permutation(len(distinct)) for _ in range(table.count(distinct[i]))]
            deal_set = b * len(design) + t
            for r in range(n):
                index = len(plans)
                key = (deal_set, 0) if duplicate else (index, 1)
                plans.append(
                    SessionPlan(
                        index=index,
                        deal_set=deal_set,
                        table=t,
                        rotation=r,
                        seats=tuple(base[(s - r) % n] for s in range(n)),
                        deal_seed=_seed_int(seed, _DEAL, *key),
                        seed=seed,
                        duplicate=duplicate,
                    )
                )
    return plans


# ----------------------------------------------------------------------------------------------------------------
# Playing one session
# ----------------------------------------------------------------------------------------------------------------


def deal_fingerprint(state_json: dict[str, Any]) -> str:
    """A short hash of a deal: every hand, the discard pile and the stock order."""
    text = json.dumps([state_json["hands"], state_json["discard"], state_json["stock"]], separators=(",", ":"))
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def redeal(env: Any, seed: int) -> dict[str, Any]:
    """Replace the round just dealt in ``env`` by a deal from ``seed`` (same round, dealer, scores and generator);
    returns the scenario loaded. The deal is the one a fresh engine state of this round deals from ``seed``, turned
    so that the same hands go to the same seats relative to the dealer."""
    raw = env.unwrapped
    st = raw.state_
    data = st.to_json()
    if hasattr(st, "num_deals"):  # continental: every deal is dealt alike
        fresh = type(st)(raw.rules, seed=seed, deals=1)
    else:
        fresh = type(st)(raw.rules, seed=seed, rounds=(st.round,))
    fj = fresh.to_json()
    n = st.n
    shift = fresh.dealer - st.dealer
    data["hands"] = [fj["hands"][(s + shift) % n] for s in range(n)]
    data["discard"], data["stock"] = fj["discard"], fj["stock"]
    env.reset(options={"scenario": data})
    return data


class SessionRunner:
    """Plays planned sessions of one tournament: one env, one bot per (entrant, seat), reused between sessions."""

    def __init__(self, profile: str, num_players: int, specs: Sequence[str], env_config: dict[str, Any]):
        import rummy_env

        self.profile = profile
        self.num_players = num_players
        self.specs = list(specs)
        # a bot's illegal action is a bug to report, not a lost game: raise (env() would terminate)
        self.env = rummy_env.make(profile, num_players=num_players, **{"illegal_action": "raise", **env_config})
        self._bots: dict[tuple[int, int], Any] = {}

    def bot(self, entrant: int, seat: int, seed: int) -> Any:
        """The bot of ``entrant`` at ``seat``, reset with ``seed`` (loaded once)."""
        from .. import bots

        key = (entrant, seat)
        b = self._bots.get(key)
        if b is None:
            b = self._bots[key] = bots.load(self.specs[entrant], seed=seed)
        b.reset(seed)
        return b

    def play(self, plan: SessionPlan, on_round_start: Any = None) -> dict[str, Any]:
        """Play ``plan``; ``on_round_start(env, round_index)`` is called when each round has been dealt."""
        env = self.env
        raw = env.unwrapped
        players = [self.bot(e, s, plan.bot_seed(s)) for s, e in enumerate(plan.seats)]
        env.reset(seed=plan.deal_seed)
        deals = [deal_fingerprint(raw.state_.to_json())] if plan.duplicate else []
        if on_round_start is not None:
            on_round_start(env, 0)
        seen = 0
        decisions = 0
        while not raw.state_.is_terminal():
            agent = env.agent_selection
            env.step(players[raw.agent_name_mapping[agent]].act(env, agent))
            decisions += 1
            st = raw.state_
            if len(st.round_results) != seen:
                seen = len(st.round_results)
                if st.is_terminal():
                    break
                if plan.duplicate:
                    deals.append(deal_fingerprint(redeal(env, plan.round_seed(seen))))
                if on_round_start is not None:
                    on_round_start(env, seen)
        st = raw.state_
        key = "payments" if st.round_results and "payments" in st.round_results[0] else "penalties"
        higher = key == "payments"
        round_scores = [list(r[key]) for r in st.round_results]
        round_winners = []
        for r, scores in zip(st.round_results, round_scores):
            if r.get("winner") is not None:
                round_winners.append([r["winner"]])
            else:
                best = max(scores) if higher else min(scores)
                round_winners.append([s for s, v in enumerate(scores) if v == best])
        return {
            "session": plan.index,
            "deal_set": plan.deal_set,
            "table": plan.table,
            "rotation": plan.rotation,
            "deal_seed": plan.deal_seed,
            "seats": list(plan.seats),
            "score": "payment" if higher else "penalty",
            "round_scores": round_scores,
            "round_winners": round_winners,
            "reasons": [r["reason"] for r in st.round_results],
            "totals": list(st.scores),
            "winners": list(st.winners()),
            "deals": deals,
            "decisions": decisions,
        }


_WORKER: dict[str, Any] = {}


def _init_worker(profile: str, num_players: int, specs: list[str], env_config: dict[str, Any]) -> None:
    _single_thread_torch()
    _WORKER["runner"] = SessionRunner(profile, num_players, specs, env_config)


def _run_plan(plan: SessionPlan) -> dict[str, Any]:
    return _WORKER["runner"].play(plan)


def _single_thread_torch() -> None:
    """Network bots compute with one thread, so that results do not depend on how many processes share the CPUs."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)
    else:
        os.environ.setdefault("OMP_NUM_THREADS", "1")


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


def check_entrants(profile: str, specs: Sequence[str], num_players: int, env_config: dict[str, Any]) -> None:
    """Load every entrant and let it make one decision on a fresh table; ``ValueError`` naming the entrant that
    cannot play (unknown id, missing or mismatched checkpoint, no policy for the profile)."""
    import rummy_env

    from .. import bots

    env = rummy_env.make(profile, num_players=num_players, **env_config)
    for spec in specs:
        try:
            bot = bots.load(spec, seed=0)
        except (ValueError, OSError) as exc:
            raise ValueError(f"entrant {spec!r} cannot be loaded: {exc}") from None
        want = getattr(bot, "profile", None)
        if want is not None and want != profile:
            raise ValueError(f"entrant {spec!r} was made for profile {want!r}; this tournament plays {profile!r}")
        seats = getattr(bot, "num_players", None)
        if seats is not None and seats != num_players:
            raise ValueError(f"entrant {spec!r} was made for {seats} players; this tournament seats {num_players}")
        env.reset(seed=0)
        try:
            bot.act(env, env.agent_selection)
        except (ValueError, OSError) as exc:
            raise ValueError(f"entrant {spec!r} cannot play {profile!r} with {num_players} players: {exc}") from None


def resolve_num_players(profile: str, num_players: int | None) -> int:
    """The table size: ``num_players`` or the profile's default; ``ValueError`` if the profile cannot seat it."""
    from ..rules import PROFILES

    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; available: {sorted(PROFILES)}")
    rules = PROFILES[profile]
    if num_players is None:
        return rules.num_players
    if not isinstance(num_players, int) or not rules.min_players <= num_players <= rules.max_players:
        allowed = (
            f"exactly {rules.min_players}"
            if rules.min_players == rules.max_players
            else f"{rules.min_players} to {rules.max_players}"
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
    **env_config: Any,
) -> dict[str, Any]:
    """Play a seeded tournament of ``entrants`` (bot ids, ``checkpoint:PATH``) and return its results as data.

    ``sessions`` is rounded up to whole blocks (module docstring); ``workers`` processes play them, merged in
    session order, so the results (everything but ``results["timing"]``) depend only on the arguments.
    ``env_config`` goes to ``rummy_env.make`` (``rounds=(1, 2)``, ``deals=2``, rule overrides); ``progress``
    shows a tqdm bar on stderr.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend={backend!r}; available: {list(BACKENDS)}")
    specs = list(entrants)
    if len(specs) < 2:
        raise ValueError(f"a tournament needs at least two entrants, got {specs!r}")
    if not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers={workers!r}: a positive integer")
    for key in ("max_steps", "render_mode", "illegal_action"):
        if key in env_config:
            raise ValueError(f"{key} cannot be set for a tournament (sessions are always played to the end)")
    n = resolve_num_players(profile, num_players)
    with _torch_threads(1):
        check_entrants(profile, specs, n, env_config)
    plans = plan_sessions(len(specs), n, sessions, seed=seed, duplicate=duplicate)

    from tqdm import tqdm

    pool = None
    if workers > 1 and backend == "local":
        import multiprocessing

        # fork where the platform has it (no re-import of the caller's __main__); spawn elsewhere. The workers
        # compute torch with one thread (a forked OpenMP pool is unsafe) and load their own bots.
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        ctx = multiprocessing.get_context(method)
        pool = ctx.Pool(workers, initializer=_init_worker, initargs=(profile, n, specs, dict(env_config)))
    start = time.perf_counter()
    records: list[dict[str, Any]] = []
    bar = tqdm(total=len(plans), desc=f"{profile} tournament", unit="session", file=sys.stderr, disable=not progress)
    try:
        if backend == "ray":
            try:
                from ..integrations.ray_backend import play_session_task, run_matches_ray, session_tasks
            except ImportError:
                raise ValueError("backend='ray' needs ray: pip install 'rummy_env[rllib]'") from None
            tasks = session_tasks(profile, n, specs, env_config, plans)
            records = run_matches_ray(play_session_task, tasks, progress=bar.update)
        elif pool is None:
            runner = SessionRunner(profile, n, specs, env_config)
            with _torch_threads(1):
                for plan in plans:
                    records.append(runner.play(plan))
                    bar.update()
        else:
            chunk = max(1, min(8, len(plans) // (workers * 8)))
            for rec in pool.imap(_run_plan, plans, chunksize=chunk):
                records.append(rec)
                bar.update()
    finally:
        bar.close()
        if pool is not None:
            pool.terminate()
            pool.join()
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


class _torch_threads:  # noqa: N801 - used as a context manager
    """Run with ``k`` torch threads if torch is loaded (network bots), restoring the count afterwards."""

    def __init__(self, k: int):
        self.k = k
        self.old: int | None = None

    def __enter__(self) -> None:
        torch = sys.modules.get("torch")
        if torch is not None:
            self.old = torch.get_num_threads()
            torch.set_num_threads(self.k)

    def __exit__(self, *exc: Any) -> None:
        torch = sys.modules.get("torch")
        if torch is not None and self.old is not None:
            torch.set_num_threads(self.old)


# ----------------------------------------------------------------------------------------------------------------
# Summary
# ----------------------------------------------------------------------------------------------------------------


def _better(a: float, b: float, higher: bool) -> bool:
    return a > b if higher else a < b


def summarize(
    records: Sequence[dict[str, Any]],
    profile: str,
    specs: Sequence[str],
    num_players: int,
    seed: int,
    duplicate: bool,
) -> dict[str, Any]:
    """Standings, head-to-head table, ratings and design checks from the session records (in session order)."""
    labels = entrant_labels(specs)
    e_count = len(specs)
    n = num_players
    score = records[0]["score"] if records else "penalty"
    higher = score == "payment"

    # per entrant, per cluster: sums and counts -------------------------------------------------------------
    def new() -> dict[Any, list[float]]:
        return {}

    per_round = [new() for _ in range(e_count)]
    per_session = [new() for _ in range(e_count)]
    round_wins = [new() for _ in range(e_count)]
    session_wins = [new() for _ in range(e_count)]
    places = [new() for _ in range(e_count)]
    h2h: dict[tuple[int, int], dict[Any, list[float]]] = {}
    ahead: dict[tuple[int, int], list[float]] = {}
    meetings = [[0] * e_count for _ in range(e_count)]
    seats_played = [[0] * n for _ in range(e_count)]

    def add(acc: dict[Any, list[float]], key: Any, value: float, count: int = 1) -> None:
        cell = acc.setdefault(key, [0.0, 0])
        cell[0] += value
        cell[1] += count

    for rec in records:
        cluster = rec["deal_set"] if duplicate else rec["session"]
        seats = rec["seats"]
        totals = rec["totals"]
        winners = rec["winners"]
        for s, e in enumerate(seats):
            seats_played[e][s] += 1
            for r, scores in enumerate(rec["round_scores"]):
                add(per_round[e], cluster, scores[s])
                rw = rec["round_winners"][r]
                add(round_wins[e], cluster, 1.0 / len(rw) if s in rw else 0.0)
            add(per_session[e], cluster, totals[s])
            add(session_wins[e], cluster, 1.0 / len(winners) if s in winners else 0.0)
            add(places[e], cluster, 1 + sum(_better(totals[q], totals[s], higher) for q in range(n)))
        present = sorted(set(seats))
        mean_total = {e: sum(totals[s] for s in range(n) if seats[s] == e) / seats.count(e) for e in present}
        for i in present:
            for j in present:
                if i == j:
                    continue
                meetings[i][j] += 1
                add(h2h.setdefault((i, j), {}), cluster, mean_total[i] - mean_total[j])
                ti, tj = mean_total[i], mean_total[j]
                cell = ahead.setdefault((i, j), [0.0, 0])
                cell[0] += 1.0 if _better(ti, tj, higher) else 0.5 if ti == tj else 0.0
                cell[1] += 1

    def ci(acc: dict[Any, list[float]]) -> dict[str, Any]:
        return cluster_mean_ci([tuple(v) for _, v in sorted(acc.items())])  # type: ignore[misc]

    def share(acc: dict[Any, list[float]]) -> float | None:
        tot = sum(v[1] for v in acc.values())
        return sum(v[0] for v in acc.values()) / tot if tot else None

    ratings = rate_sessions(records, e_count, higher)
    standings = []
    for e in range(e_count):
        standings.append(
            {
                "entrant": labels[e],
                "spec": specs[e],
                "rating": ratings[e],
                "per_round": ci(per_round[e]),
                "per_session": ci(per_session[e]),
                "rounds_won": share(round_wins[e]),
                "sessions_won": share(session_wins[e]),
                "mean_place": share(places[e]),
                "sessions_played": sum(seats_played[e]),
                "seats_played": seats_played[e],
            }
        )
    sign = -1.0 if higher else 1.0

    def order_key(row: dict[str, Any]) -> tuple[float, float, str]:
        mean = row["per_session"]["mean"]
        return (-row["rating"]["ordinal"], sign * mean if mean is not None else math.inf, row["entrant"])

    standings.sort(key=order_key)
    for rank, row in enumerate(standings, 1):
        row["rank"] = rank

    head_to_head = []
    for (i, j), acc in sorted(h2h.items()):
        stat = ci(acc)
        a = ahead[(i, j)]
        head_to_head.append(
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

    # design checks ----------------------------------------------------------------------------------------
    by_set: dict[int, set[tuple[str, ...]]] = {}
    for rec in records:
        if rec["deals"]:
            by_set.setdefault(rec["deal_set"], set()).add(tuple(rec["deals"]))
    pair_counts = sorted({meetings[i][j] for i in range(e_count) for j in range(e_count) if i != j})
    rounds = [len(r["round_scores"]) for r in records]
    return {
        "profile": profile,
        "num_players": n,
        "entrants": labels,
        "specs": list(specs),
        "seed": seed,
        "duplicate": duplicate,
        "score": score,
        "higher_is_better": higher,
        "sessions": len(records),
        "deal_sets": len({r["deal_set"] if duplicate else r["session"] for r in records}),
        "rounds": sum(rounds),
        "design": {
            "tables": [[labels[e] for e in t] for t in table_design(e_count, n)],
            "sessions_per_block": len(table_design(e_count, n)) * n,
            "pair_meetings": meetings,
            "pairs_balanced": len(pair_counts) <= 1,
            "every_seat": all(len(set(row)) == 1 for row in seats_played),
        },
        "duplicate_check": {
            "deal_sets": len(by_set),
            "identical": all(len(v) == 1 for v in by_set.values()) if duplicate else None,
        },
        "standings": standings,
        "head_to_head": head_to_head,
        "records": list(records),
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
# Output: table, JSON, CSV, PNG
# ----------------------------------------------------------------------------------------------------------------


def _fmt(x: float | None, spec: str = ".1f") -> str:
    return "-" if x is None else format(x, spec)


def format_standings(results: dict[str, Any]) -> str:
    """A readable standings table, the head-to-head table and the design facts."""
    unit = results["score"]
    better = "higher" if results["higher_is_better"] else "lower"
    lines = [
        f"{results['profile']}: {results['sessions']} sessions ({results['deal_sets']} deal sets"
        f"{', duplicate deals' if results['duplicate'] else ''}), {results['rounds']} rounds, "
        f"{results['num_players']} seats, seed {results['seed']}; {unit} per round/session ({better} is better)",
    ]
    width = max(8, *(len(r["entrant"]) for r in results["standings"]))
    head = (
        f"{'#':>2}  {'entrant':<{width}}  {'rating mu ± 1.96σ':>19} {'ordinal':>8}  "
        f"{unit + '/round [95% CI]':>27}  {unit + '/session [95% CI]':>31}  {'rounds won':>10} {'sessions won':>12} "
        f"{'place':>5}"
    )
    lines += [head, "-" * len(head)]
    for row in results["standings"]:
        rt, pr, ps = row["rating"], row["per_round"], row["per_session"]
        lines.append(
            f"{row['rank']:>2}  {row['entrant']:<{width}}  {rt['mu']:>9.2f} ± {Z975 * rt['sigma']:<6.2f} "
            f"{rt['ordinal']:>8.2f}  {_fmt(pr['mean']):>8} [{_fmt(pr['low']):>7}, {_fmt(pr['high']):>7}]  "
            f"{_fmt(ps['mean']):>10} [{_fmt(ps['low']):>8}, {_fmt(ps['high']):>8}]  "
            f"{_fmt(row['rounds_won'], '.1%'):>10} {_fmt(row['sessions_won'], '.1%'):>12} "
            f"{_fmt(row['mean_place'], '.2f'):>5}"
        )
    names = [r["entrant"] for r in results["standings"]]
    cells = {(h["row"], h["col"]): h for h in results["head_to_head"]}
    if cells:
        lines.append("")
        lines.append(f"head to head: mean {unit} per session, row minus column, when at the same table (# = rank)")
        w = 9
        lines.append(f"{'':<{width + 4}}  " + " ".join(f"{'#' + str(k):>{w}}" for k in range(1, len(names) + 1)))
        for k, a in enumerate(names, 1):
            row = []
            for b in names:
                h = cells.get((a, b))
                row.append(f"{'':>{w}}" if a == b else f"{_fmt(h['mean_diff'] if h else None, '+.1f'):>{w}}")
            lines.append(f"{'#' + str(k):>2}  {a:<{width}}  " + " ".join(row))
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
    return "\n".join(line.rstrip() for line in lines)


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


def plot_results(results: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """PNG: openskill ratings (mu, 95 % interval, ordinal) and mean score per round with its 95 % CI."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows = results["standings"][::-1]  # best on top
    names = [r["entrant"] for r in rows]
    y = np.arange(len(rows))
    fig = Figure(figsize=(11, 1.2 + 0.55 * len(rows)), layout="constrained")
    FigureCanvasAgg(fig)
    ax1, ax2 = fig.subplots(1, 2, sharey=True)
    mu = np.array([r["rating"]["mu"] for r in rows])
    half = np.array([r["rating"]["high"] - r["rating"]["mu"] for r in rows])
    ax1.errorbar(mu, y, xerr=half, fmt="o", capsize=4, color="tab:blue", label="mu ± 1.96σ")
    ax1.scatter([r["rating"]["ordinal"] for r in rows], y, marker="|", s=200, color="tab:red", label="ordinal")
    ax1.set_yticks(y, names)
    ax1.set_xlabel("openskill Plackett-Luce rating")
    ax1.legend(loc="best", fontsize="small")
    ax1.grid(axis="x", alpha=0.3)
    means = [r["per_round"]["mean"] for r in rows]
    lo = [r["per_round"]["low"] for r in rows]
    hi = [r["per_round"]["high"] for r in rows]
    err = np.array([[m - (low if low is not None else m) for m, low in zip(means, lo)],
                    [(high if high is not None else m) - m for m, high in zip(means, hi)]])  # fmt: skip
    ax2.errorbar(means, y, xerr=err, fmt="s", capsize=4, color="tab:green")
    better = "higher" if results["higher_is_better"] else "lower"
    ax2.set_xlabel(f"mean {results['score']} per round, 95 % CI ({better} is better)")
    ax2.grid(axis="x", alpha=0.3)
    fig.suptitle(
        f"{results['profile']}: {results['sessions']} sessions, {results['num_players']} seats, seed {results['seed']}"
    )
    fig.savefig(path, dpi=110)


# ----------------------------------------------------------------------------------------------------------------
# Command line: ``rummy tournament`` (registered by ``rummy_env.cli``)
# ----------------------------------------------------------------------------------------------------------------


def env_config_from_args(profile: str, rounds: Sequence[int] | None, deals: int | None) -> dict[str, Any]:
    """``--rounds`` (contract family: a subset of round numbers) / ``--deals`` (continental) as env arguments."""
    config: dict[str, Any] = {}
    if rounds:
        if profile == "continental":
            raise ValueError("--rounds is for the contract profiles; continental counts deals: use --deals N")
        config["rounds"] = tuple(rounds)
    if deals is not None:
        if profile != "continental":
            raise ValueError(f"--deals is for continental; {profile!r} plays rounds: use --rounds 1 2 ...")
        config["deals"] = deals
    return config


def _cmd_tournament(args: Any) -> int:
    env_config = env_config_from_args(args.profile, args.rounds, args.deals)
    if args.out is not None:  # before playing: a tournament's results must not be lost to an unwritable --out
        from ..cli.commands import output_problem

        problem = output_problem(args.out, folder=True)
        if problem:
            raise ValueError(f"--out {args.out!r} {problem}; expected a folder that exists or can be created")
    try:
        results = tournament(
            args.profile,
            args.entrants,
            args.sessions,
            seed=args.seed,
            workers=args.workers,
            num_players=args.num_players,
            duplicate=not args.no_duplicate,
            progress=not args.quiet,
            **env_config,
        )
    except OSError as exc:
        raise ValueError(str(exc)) from None
    if results["sessions"] != args.sessions:
        print(
            f"note: {args.sessions} sessions rounded up to {results['sessions']} (whole blocks of "
            f"{results['design']['sessions_per_block']}: every entrant every seat, every pair equally often)",
            file=sys.stderr,
        )
    print(format_standings(results))
    if args.out:
        paths = save_results(results, args.out, chart=not args.no_chart)
        print("saved: " + ", ".join(str(p) for p in paths.values()))
    return 0


def add_tournament_command(sub: Any) -> None:
    """Add ``rummy tournament`` to the ``rummy`` sub-command parser ``sub``."""
    p = sub.add_parser(
        "tournament",
        help="seeded tournament of bots and checkpoints: duplicate deals, rotated seats, CIs, openskill ratings",
        description="Every entrant plays every seat; duplicate deals replay the same shoes with the seating "
        "rotated; results are the same for a seed whatever the number of workers (docs/tournament.md).",
    )
    p.add_argument("--profile", default="contract", help="profile to play (default contract)")
    p.add_argument(
        "--entrants", nargs="+", required=True, help="bot ids: random, heuristic, checkpoint:PATH[@sample], ..."
    )
    p.add_argument("--sessions", type=int, default=100, help="sessions to play, rounded up to whole blocks")
    p.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1; results do not change)")
    p.add_argument("--num-players", type=int, default=None, help="seats per table (default: the profile's)")
    p.add_argument("--rounds", type=int, nargs="+", default=None, help="contract profiles: play only these rounds")
    p.add_argument("--deals", type=int, default=None, help="continental: deals per session")
    p.add_argument("--no-duplicate", action="store_true", help="fresh shoes for every session (no duplicate deals)")
    p.add_argument("--out", default=None, help="folder for tournament.json, CSV files and ratings.png")
    p.add_argument("--no-chart", action="store_true", help="do not draw ratings.png")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_tournament)


__all__ = [
    "SessionPlan",
    "add_tournament_command",
    "env_config_from_args",
    "SessionRunner",
    "check_entrants",
    "cluster_mean_ci",
    "deal_fingerprint",
    "entrant_labels",
    "format_standings",
    "plan_sessions",
    "plot_results",
    "rate_sessions",
    "redeal",
    "resolve_num_players",
    "save_results",
    "summarize",
    "t975",
    "table_design",
    "tournament",
]
