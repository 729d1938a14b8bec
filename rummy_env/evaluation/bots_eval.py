"""Seeded matches between bots, seats rotated: ``evaluate(profile, entrants, sessions, seed, workers)``.

Session ``i`` is dealt with seed ``seed * 100_000 + i`` and seats entrant ``j`` at seat ``(i + j) % n``, so every
entrant plays every seat equally often and the same seed gives the same figures whatever the number of workers
(the match runner of ``rummy_env.evaluation.match``: ``rotation_plans``, ``play_sessions``). Figures per bot id
(over all the seats it holds):

| key | meaning |
|---|---|
| `mean_penalty_per_round` | mean score one seat of this bot scores per round (the profile's ``score_name``: a penalty, or continental's payment per deal) |
| `ci95` | half-width of its 95 % confidence interval (Student-t over sessions: one session = one cluster; ``match.mean_ci``) |
| `rounds_won_share` | share of the rounds one seat of this bot won (went out); rounds without a winner credit nobody |

and per match: `turn_cap_share` (rounds ended by the engine turn cap), `exhausted_share` (rounds ended with the
stock and discard pile empty), `no_winner_share`, `mean_turns_per_round`, `max_turns_per_round`.

``python -m rummy_env.evaluation.bots_eval --profile contract --entrants heuristic random random random --sessions 500
--workers 2`` prints them (``--json`` for the dict).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import Any

from .. import bots as bot_registry
from ..registry import GAMES, game
from .arguments import ArgumentParser, count
from .match import SESSION_SEED_STRIDE, half_width, mean_ci, play_sessions, rotation_plans, session_seed
from .terminal import progress_bar, wrap
from .tournament import NAME_WIDTH, short_names


def session_rounds(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The rounds of one session record (``MatchRunner.play``) by entrant: per round the scores of the entrants
    (``penalties``: the profile's score, penalties or payments), the entrant that went out (or None), the engine's
    reason and the turns played."""
    seat_of = {e: s for s, e in enumerate(record["seats"])}
    order = [seat_of[j] for j in range(len(seat_of))]
    return [
        {
            "penalties": [scores[s] for s in order],
            "winner": None if out is None else record["seats"][out],
            "reason": reason,
            "turns": turns,
        }
        for scores, out, reason, turns in zip(
            record["round_scores"], record["went_out"], record["reasons"], record["round_turns"]
        )
    ]


def evaluate(
    profile: str,
    entrants: list[str],
    sessions: int,
    seed: int = 0,
    workers: int = 1,
    progress: Callable[[int], Any] | None = None,
    **config: Any,
) -> dict[str, Any]:
    """Play ``sessions`` seeded sessions of ``profile`` between ``entrants`` (one bot id per seat) and summarise.

    ``config`` goes to the env (``rounds=(1, 2)``, rule overrides); ``progress(k)``, if given, is called as ``k``
    more sessions are done (the command line's progress bar)."""
    probe = game(profile).make_env(wrapped=False, **config)
    n = len(probe.possible_agents)
    if len(entrants) != n:
        raise ValueError(f"profile {profile!r} seats {n} players: give {n} entrants, got {len(entrants)}")
    for spec in entrants:
        bot_registry.load(spec, seed=0)  # fail early on an unknown id
    if sessions < 1:
        raise ValueError(f"sessions={sessions!r}: need at least 1")
    start = time.perf_counter()
    plans = rotation_plans(n, sessions, seed)
    records = play_sessions(profile, None, list(entrants), dict(config), plans, workers=workers, progress=progress)
    results = [session_rounds(rec) for rec in records]
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
        ci = mean_ci((sum(r["penalties"][j] for r in s for j in js), len(s) * len(js)) for s in results)
        wins = sum(1 for r in rounds if r["winner"] in js)
        bots[name] = {
            "seats": len(js),
            "mean_penalty_per_round": round(ci["mean"], 2),
            "ci95": round(half_width(ci), 2),
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
    """The score column's title from the registry: ``penalty/round/seat``, continental's ``payment/deal/seat``."""
    g = game(profile)
    return f"{g.score_name}/{g.unit}/seat"


def format_report(report: dict[str, Any]) -> str:
    """The match as a small text table within 120 columns (long bot ids abbreviated, their full ids below)."""
    short = short_names(list(report["bots"]), NAME_WIDTH)
    w = max(3, *(len(v) for v in short.values()))
    lines = [
        f"{report['profile']}: {' / '.join(short[e] for e in report['entrants'])}, {report['sessions']} sessions "
        f"({report['rounds']} rounds), seed {report['seed']}, {report['wall_seconds']} s",
        f"{'bot':<{w}} {'seats':>5} {_score_label(report['profile']):>22} {'rounds won':>11}",
    ]
    for name, b in report["bots"].items():
        pen = f"{b['mean_penalty_per_round']:.1f} ± {b['ci95']:.1f}"
        lines.append(f"{short[name]:<{w}} {b['seats']:>5} {pen:>22} {b['rounds_won_share']:>10.1%}")
    renamed = [f"{v} = {k}" for k, v in short.items() if v != k]
    lines += [f"{'names:' if i == 0 else '':<6} {text}" for i, text in enumerate(renamed)]
    lines.append(
        f"turn cap {report['turn_cap_share']:.2%}, exhausted {report['exhausted_share']:.2%}, no winner "
        f"{report['no_winner_share']:.2%}, {report['mean_turns_per_round']} turns per round "
        f"(longest {report['max_turns_per_round']})"
    )
    return "\n".join(wrap(lines))


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m rummy_env.evaluation.bots_eval --entrants heuristic random random random``; usage errors
    (unknown profile or bot id, wrong number of entrants, counts out of range) are one line, exit code 2."""
    p = ArgumentParser(
        prog="python -m rummy_env.evaluation.bots_eval", description="Seeded bot matches with rotated seats."
    )
    p.add_argument("--profile", default="contract", choices=list(GAMES))
    p.add_argument(
        "--entrants", nargs="+", required=True, help="one bot id per seat, e.g. heuristic random random random"
    )
    p.add_argument("--sessions", type=count(1), default=100, help="sessions to play (>= 1, default 100)")
    p.add_argument("--seed", type=count(0), default=0, help="match seed (>= 0, default 0)")
    p.add_argument("--workers", type=count(1), default=1, help="worker processes (>= 1, default 1)")
    p.add_argument("--json", action="store_true", help="print the result dict as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar (it is drawn only on a terminal anyway)")
    args = p.parse_args(argv)
    bar = progress_bar(args.sessions, desc=f"{args.profile} match", unit="session", enabled=not args.quiet)
    try:
        report = evaluate(
            args.profile, args.entrants, args.sessions, seed=args.seed, workers=args.workers, progress=bar.update
        )
    except ValueError as exc:
        print(f"{p.prog}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    finally:
        bar.close()
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return 0


__all__ = ["SESSION_SEED_STRIDE", "evaluate", "format_report", "main", "session_rounds", "session_seed", "summarise"]


if __name__ == "__main__":
    raise SystemExit(main())
