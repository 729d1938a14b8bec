"""The one way a policy is measured against bots: ``evaluate_policy`` (and ``evaluate_checkpoint`` around it).

The policy -- a checkpoint, a network in memory (``PolicyBot``) or any bot factory -- plays one seat, rotated over
the sessions, and every other seat is played by one opponent bot: the match runner of
``rummy_env.evaluation.match`` (``rotation_plans``, ``play_sessions``), session ``i`` dealt with seed
``seed * 100_000 + i``, every bot re-seeded per session. The summary gives the policy's and the opponents' mean
score per round (or deal) with the half-widths of their 95 % intervals, the paired per-session difference and the
rounds won; every interval is ``match.mean_ci`` (one session, one sample).

Every caller goes through here: the evaluations during and after a run of ``training/ppo.py`` (a network in
memory, a checkpoint), the final evaluations of the SB3, RLlib and Tianshou scripts, ``python -m rummy_env.distill
evaluate`` (checkpoints against bots, the shipped manifest) and the learning curves. ``rummy tournament`` is the
other kind of measurement: several entrants at one table, ratings.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from typing import Any

from .. import bots as bot_registry
from ..registry import GAMES, game
from . import match


def bot_unavailable_reason(profile: str, bot_id: str, env_config: dict[str, Any]) -> str | None:
    """Why ``bot_id`` cannot play ``profile`` (e.g. no heuristic for this profile yet), or None when it can."""
    try:
        env = game(profile).make_env(wrapped=False, **env_config)
        env.reset(seed=0)
        bot_registry.load(bot_id, seed=0).act(env, env.agent_selection)
    except ValueError as e:
        return str(e)
    return None


def score_name(profile: str) -> str:
    """What the figures of ``profile`` measure: the registry's ``score_per_unit`` (``penalty_per_round``,
    ``payment_per_deal``)."""
    return game(profile).score_per_unit


def env_kwargs(env_config: dict[str, Any] | None, num_players: int | None) -> dict[str, Any]:
    """``rummy_env.make`` keyword arguments: YAML lists become tuples (``rounds``), ``num_players`` if given."""
    out = {k: (tuple(v) if isinstance(v, list) else v) for k, v in (env_config or {}).items()}
    if num_players is not None:
        out["num_players"] = num_players
    return out


def match_record(rec: dict[str, Any]) -> dict[str, Any]:
    """A session record of the match runner as the policy's figures: the policy is entrant 0, the opponents the
    others. The policy's and the opponents' mean score per round, the rounds the policy won (went out), the
    rounds an opponent won per opponent seat, and the rounds played."""
    seats = rec["seats"]
    n = len(seats)
    me = seats.index(0)
    scores = rec["round_scores"]
    k = len(scores)
    out = rec["went_out"]
    return {
        "policy": sum(float(r[me]) for r in scores) / k,
        "opponents": sum(float(r[s]) for r in scores for s in range(n) if s != me) / (k * (n - 1)),
        "won": sum(1 for w in out if w == me),
        "opponents_won": sum(1 for w in out if w is not None and w != me) / (n - 1),
        "rounds": k,
    }


def play_policy(
    policy: Any,
    profile: str,
    opponent: str,
    sessions: int,
    seed: int,
    env_config: dict[str, Any],
    first_session: int = 0,
    workers: int = 1,
    progress: Callable[[int], Any] | None = None,
) -> list[dict[str, Any]]:
    """Sessions ``first_session ..`` of a match: ``policy`` (a bot factory; picklable for ``workers`` > 1) at seat
    ``i % n``, ``opponent`` at the others; per session the figures of ``match_record``."""
    n = int(env_config.get("num_players") or game(profile).default_players)
    plans = match.rotation_plans(n, sessions, seed, first_session=first_session)
    entrants = [policy] + [opponent] * (n - 1)
    # spawn: a forked process would inherit the trainer's torch (OpenMP) state
    records = match.play_sessions(
        profile, None, entrants, env_config, plans, workers=workers, start_method="spawn", progress=progress
    )
    return [match_record(rec) for rec in records]


def summarise_match(profile: str, opponent: str, records: list[dict[str, Any]]) -> dict[str, Any]:
    """Means and 95 % CIs of a match: the policy's score, the opponents', and the paired difference per session,
    each ``match.mean_ci`` with one sample per session (NaN without samples, or without spread for the interval)."""
    samples = {
        "policy": [r["policy"] for r in records],
        "opponents": [r["opponents"] for r in records],
        "difference": [r["policy"] - r["opponents"] for r in records],
    }
    ci = {key: match.mean_ci((x, 1) for x in values) for key, values in samples.items()}
    (pol, opp, diff) = (math.nan if ci[k]["mean"] is None else ci[k]["mean"] for k in samples)
    (pci, oci, dci) = (match.half_width(ci[k]) for k in samples)
    rounds = sum(r["rounds"] for r in records)
    return {
        "opponent": opponent,
        "metric": score_name(profile),
        "sessions": len(records),
        "rounds": rounds,
        "policy": round(pol, 3),
        "policy_ci95": round(pci, 3),
        "opponents": round(opp, 3),
        "opponents_ci95": round(oci, 3),
        "difference": round(diff, 3),
        "difference_ci95": round(dci, 3),
        "policy_rounds_won_share": round(sum(r["won"] for r in records) / rounds, 4),
        "opponent_rounds_won_share": round(sum(r["opponents_won"] for r in records) / rounds, 4),
    }


def evaluate_policy(
    policy: Any,
    profile: str,
    opponent: str,
    sessions: int,
    seed: int,
    env_config: dict[str, Any],
    workers: int = 1,
    progress: Callable[[int], Any] | None = None,
) -> dict[str, Any]:
    """``policy`` (a bot factory) against ``opponent`` over ``sessions`` sessions: ``summarise_match`` of
    ``play_policy``, or ``{"opponent", "skipped": why}`` when ``opponent`` cannot play the profile."""
    reason = bot_unavailable_reason(profile, opponent, env_config)
    if reason:
        return {"opponent": opponent, "skipped": reason}
    records = play_policy(policy, profile, opponent, sessions, seed, env_config, workers=workers, progress=progress)
    return summarise_match(profile, opponent, records)


def evaluate_checkpoint(
    path: str,
    opponent: str,
    sessions: int,
    seed: int = 0,
    workers: int = 1,
    greedy: bool = True,
    env_config: dict[str, Any] | None = None,
    progress: Callable[[int], Any] | None = None,
) -> dict[str, Any]:
    """The checkpoint at ``path`` against ``opponent`` (``evaluate_policy``), in ``workers`` processes, on the
    env it was trained for (or ``env_config``); the summary also names the env, the play mode, the seed and the
    wall seconds. ``progress(k)`` is called as ``k`` more sessions are done (a progress bar's ``update``)."""
    from ..bots.checkpoint_bot import CheckpointBot  # optional dependency: torch
    from ..models.checkpoints import read_metadata  # optional dependency: torch (at load time)

    meta = read_metadata(path)
    profile = meta["profile"]
    cfg = env_kwargs(dict(env_config if env_config is not None else meta.get("env_config") or {}), meta["num_players"])
    start = time.perf_counter()
    policy = functools.partial(CheckpointBot, path, greedy=greedy)  # picklable: built in each worker
    out = evaluate_policy(policy, profile, opponent, sessions, seed, cfg, workers=workers, progress=progress)
    if "skipped" in out:
        return out
    out["env_config"] = {k: list(v) if isinstance(v, tuple) else v for k, v in cfg.items()}
    out["greedy"] = greedy
    out["seed"] = seed
    out["wall_seconds"] = round(time.perf_counter() - start, 1)
    return out


def lower_is_better(metric: str) -> bool:
    """Whether a ``score_name`` metric is better lower, from the registry (the profile whose metric it is)."""
    for g in GAMES.values():
        if g.score_per_unit == metric:
            return g.lower_is_better
    known = sorted(g.score_per_unit for g in GAMES.values())
    raise ValueError(f"metric {metric!r}: not the score of any profile; known: {known}")


def format_match(m: dict[str, Any]) -> str:
    """One line of a match summary."""
    if "skipped" in m:
        return f"vs {m['opponent']:<10} skipped: {m['skipped']}"
    better = "lower" if lower_is_better(m["metric"]) else "higher"
    return (
        f"vs {m['opponent']:<10} {m['metric']} ({better} is better): policy {m['policy']:.2f} ± {m['policy_ci95']:.2f}"
        f", {m['opponent']} {m['opponents']:.2f} ± {m['opponents_ci95']:.2f}, difference {m['difference']:+.2f} ± "
        f"{m['difference_ci95']:.2f}; rounds won {m['policy_rounds_won_share']:.1%} vs "
        f"{m['opponent_rounds_won_share']:.1%} per {m['opponent']} seat ({m['sessions']} sessions)"
    )


__all__ = [
    "bot_unavailable_reason",
    "env_kwargs",
    "evaluate_checkpoint",
    "evaluate_policy",
    "format_match",
    "lower_is_better",
    "match_record",
    "play_policy",
    "score_name",
    "summarise_match",
]
