"""Seeded matches between bots, seats rotated: ``evaluate(profile, entrants, sessions, seed, workers)``.

Session ``i`` is dealt with seed ``seed * 100_000 + i`` and seats entrant ``j`` at seat ``(i + j) % n``, so every
entrant plays every seat equally often and the same seed gives the same figures whatever the number of workers.
Figures per bot id (over all the seats it holds):

| key | meaning |
|---|---|
| `mean_penalty_per_round` | mean penalty one seat of this bot scores per round |
| `ci95` | half-width of its 95 % confidence interval (normal, over sessions: one session = one sample) |
| `rounds_won_share` | share of the rounds one seat of this bot won (went out); rounds without a winner credit nobody |

and per match: `turn_cap_share` (rounds ended by the engine turn cap), `exhausted_share` (rounds ended with the
stock and discard pile empty), `no_winner_share`, `mean_turns_per_round`, `max_turns_per_round`.

``python -m rummy_env.evaluation.bots_eval --profile contract --entrants heuristic random random random --sessions 500
--workers 2`` prints them (``--json`` for the dict).
"""

from __future__ import annotations

import json
import math
import multiprocessing
import time
from typing import Any

SESSION_SEED_STRIDE = 100_000


def session_seed(seed: int, i: int) -> int:
    """Deal seed of session ``i`` of a match seeded ``seed``."""
    return seed * SESSION_SEED_STRIDE + i


def play_session(env: Any, bots: list[Any], seats: list[int], deal_seed: int) -> list[dict[str, Any]]:
    """One seeded session; ``bots[j]`` sits at ``seats[j]``. Per round: penalties by entrant, winner entrant (or
    None), the engine's reason and the turns played."""
    raw = env.unwrapped
    env.reset(seed=deal_seed)
    by_seat = {seat: j for j, seat in enumerate(seats)}
    rounds: list[dict[str, Any]] = []
    done = 0
    last_turn = 0
    while not raw.state_.is_terminal():
        agent = env.agent_selection
        seat = raw.agent_name_mapping[agent]
        action = bots[by_seat[seat]].act(env, agent)
        last_turn = raw.state_.turn
        env.step(action)
        results = raw.state_.round_results
        while done < len(results):
            res = results[done]
            winner = res["winner"]
            rounds.append(
                {
                    "penalties": [res.get("penalties", res.get("payments"))[seats[j]] for j in range(len(seats))],
                    "winner": None if winner is None else by_seat[winner],
                    "reason": res["reason"],
                    "turns": last_turn,
                }
            )
            done += 1
    return rounds


def _play_chunk(job: tuple[str, list[str], int, list[int], dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Worker: play the sessions ``indices`` of a match; bots are built once and re-seeded per session."""
    import rummy_env

    from .. import bots as bot_registry

    profile, entrants, seed, indices, config = job
    env = rummy_env.make(profile, wrapped=False, **config)
    n = len(env.possible_agents)
    players = [bot_registry.load(spec, seed=None) for spec in entrants]
    out = []
    for i in indices:
        deal = session_seed(seed, i)
        for j, bot in enumerate(players):
            bot.reset(deal * 10 + j)
        seats = [(i + j) % n for j in range(n)]
        out.append(play_session(env, players, seats, deal))
    return out


def _mean_ci(samples: list[float]) -> tuple[float, float]:
    n = len(samples)
    mean = sum(samples) / n
    if n < 2:
        return mean, float("nan")
    var = sum((x - mean) ** 2 for x in samples) / (n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def evaluate(
    profile: str,
    entrants: list[str],
    sessions: int,
    seed: int = 0,
    workers: int = 1,
    **config: Any,
) -> dict[str, Any]:
    """Play ``sessions`` seeded sessions of ``profile`` between ``entrants`` (one bot id per seat) and summarise."""
    import rummy_env

    from .. import bots as bot_registry

    probe = rummy_env.make(profile, wrapped=False, **config)
    n = len(probe.possible_agents)
    if len(entrants) != n:
        raise ValueError(f"profile {profile!r} seats {n} players: give {n} entrants, got {len(entrants)}")
    for spec in entrants:
        bot_registry.load(spec, seed=0)  # fail early on an unknown id
    if sessions < 1:
        raise ValueError(f"sessions={sessions!r}: need at least 1")
    start = time.perf_counter()
    n_chunks = max(1, min(sessions, workers * 8))
    chunks = [list(range(sessions))[c::n_chunks] for c in range(n_chunks)]
    jobs = [(profile, list(entrants), seed, idx, dict(config)) for idx in chunks]
    if workers > 1:
        ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
        with ctx.Pool(workers) as pool:
            parts = pool.map(_play_chunk, jobs)
    else:
        parts = [_play_chunk(job) for job in jobs]
    by_index: dict[int, list[dict[str, Any]]] = {}
    for idx, part in zip(chunks, parts):
        by_index.update(zip(idx, part))
    results = [by_index[i] for i in range(sessions)]
    wall = time.perf_counter() - start
    return summarise(profile, entrants, results, seed, wall)


def summarise(
    profile: str, entrants: list[str], results: list[list[dict[str, Any]]], seed: int, wall: float
) -> dict[str, Any]:
    """The figures of a match from its per-session round records."""
    names = sorted(set(entrants), key=entrants.index)
    seats_of = {name: [j for j, e in enumerate(entrants) if e == name] for name in names}
    rounds = [r for session in results for r in session]
    n_rounds = len(rounds)
    bots: dict[str, Any] = {}
    for name in names:
        js = seats_of[name]
        per_session = [sum(r["penalties"][j] for r in s for j in js) / (len(s) * len(js)) for s in results]
        mean, ci = _mean_ci(per_session)
        wins = sum(1 for r in rounds if r["winner"] in js)
        bots[name] = {
            "seats": len(js),
            "mean_penalty_per_round": round(mean, 2),
            "ci95": round(ci, 2),
            "rounds_won_share": round(wins / (n_rounds * len(js)), 4),
        }
    reasons = [r["reason"] for r in rounds]
    return {
        "profile": profile,
        "entrants": list(entrants),
        "sessions": len(results),
        "seed": seed,
        "rounds": n_rounds,
        "bots": bots,
        "turn_cap_share": round(reasons.count("turn_cap") / n_rounds, 4),
        "exhausted_share": round(reasons.count("exhausted") / n_rounds, 4),
        "no_winner_share": round(sum(1 for r in rounds if r["winner"] is None) / n_rounds, 4),
        "mean_turns_per_round": round(sum(r["turns"] for r in rounds) / n_rounds, 1),
        "max_turns_per_round": max(r["turns"] for r in rounds),
        "wall_seconds": round(wall, 1),
    }


def _score_label(profile: str) -> str:
    """Continental scores payments (higher is better), the Contract family penalties (lower is better)."""
    return "payment/deal/seat" if profile == "continental" else "penalty/round/seat"


def format_report(report: dict[str, Any]) -> str:
    """The match as a small text table."""
    lines = [
        f"{report['profile']}: {' / '.join(report['entrants'])}, {report['sessions']} sessions "
        f"({report['rounds']} rounds), seed {report['seed']}, {report['wall_seconds']} s",
        f"{'bot':<20} {'seats':>5} {_score_label(report['profile']):>22} {'rounds won':>11}",
    ]
    for name, b in report["bots"].items():
        pen = f"{b['mean_penalty_per_round']:.1f} ± {b['ci95']:.1f}"
        lines.append(f"{name:<20} {b['seats']:>5} {pen:>22} {b['rounds_won_share']:>10.1%}")
    lines.append(
        f"turn cap {report['turn_cap_share']:.2%}, exhausted {report['exhausted_share']:.2%}, no winner "
        f"{report['no_winner_share']:.2%}, {report['mean_turns_per_round']} turns per round "
        f"(longest {report['max_turns_per_round']})"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m rummy_env.evaluation.bots_eval --entrants heuristic random random random``; usage errors
    (unknown profile or bot id, wrong number of entrants, counts out of range) are one line, exit code 2."""
    import sys

    from ..cli.commands import ArgumentParser, count
    from ..rules import PROFILES

    p = ArgumentParser(prog="python -m rummy_env.evaluation.bots_eval", description="Seeded bot matches with rotated seats.")
    p.add_argument("--profile", default="contract", choices=list(PROFILES))
    p.add_argument(
        "--entrants", nargs="+", required=True, help="one bot id per seat, e.g. heuristic random random random"
    )
    p.add_argument("--sessions", type=count(1), default=100, help="sessions to play (>= 1, default 100)")
    p.add_argument("--seed", type=count(0), default=0, help="match seed (>= 0, default 0)")
    p.add_argument("--workers", type=count(1), default=1, help="worker processes (>= 1, default 1)")
    p.add_argument("--json", action="store_true", help="print the result dict as JSON")
    args = p.parse_args(argv)
    try:
        report = evaluate(args.profile, args.entrants, args.sessions, seed=args.seed, workers=args.workers)
    except ValueError as exc:
        print(f"{p.prog}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
