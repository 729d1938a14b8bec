"""``record_game``: play one session of bots and return its game log (``rummy record``; the log format is
``rummy_env.evaluation.game_log``, re-exported with this function by ``rummy_env.replay``).

The session is played by the match runner (``rummy_env.evaluation.match.MatchRunner`` with ``game_logs=True``),
after the entrants have been checked as a tournament checks them (``check_entrants``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .match import MatchRunner, SessionPlan
from .tournament import check_entrants, resolve_num_players


def record_game(
    profile: str,
    entrants: Sequence[str],
    seed: int = 0,
    rounds: Any = None,
    **env_config: Any,
) -> dict[str, Any]:
    """Play one session of ``entrants`` (bot ids, one per seat: their number is the table size) dealt with
    ``seed`` and return its game log. ``rounds`` is the session length (``rummy_env.make``'s ``rounds=``);
    ``env_config`` goes to the env. Bad entrants or a table size the profile cannot seat: ``ValueError``."""
    specs = list(entrants)
    if not specs:
        raise ValueError("entrants: give one bot id per seat (e.g. heuristic random random random)")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed={seed!r}: seeds are non-negative integers")
    try:
        n = resolve_num_players(profile, len(specs))
    except ValueError as exc:
        raise ValueError(f"entrants: one bot id per seat; {exc}") from None
    config = dict(env_config)
    if rounds is not None:
        config["rounds"] = rounds
    check_entrants(profile, specs, n, config)
    runner = MatchRunner(profile, n, specs, config, game_logs=True)
    plan = SessionPlan(
        index=0, deal_set=0, table=0, rotation=0, seats=tuple(range(n)), deal_seed=seed, seed=seed, duplicate=False
    )
    return runner.play(plan)["game_log"]


__all__ = ["record_game"]
