"""``search-consistency``: how often two independently seeded ``search`` bots agree on the same decision -- the noise in
search labels.

The ``heuristic`` plays every seat of one ``--num-players`` session of ``--profile`` (seed ``--seed``); at a decision
with more than one legal action, with probability ``--label-prob``, two ``SearchBot`` instances of that seat with
different seeds (``--budget`` rollouts each) search it from the seat's canonical position with the heuristic's move
as their prior, until ``--decisions`` decisions are compared or the session ends. Printed (and returned by
``consistency``): the decisions compared, each search's departure rate from the heuristic, the share where both
depart, the share of the first one's departures the second one repeats exactly, and the overall agreement of the two.
A distilled network cannot reproduce more of a search's departures than the search repeats itself.

Usage::

    python -m rummy_env.distill search-consistency --budget 32 --decisions 80
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from .. import make as make_env
from ..bots.heuristic import HeuristicBot
from ..bots.search import SearchBot
from ..bots.view import public_view
from ..training.config import ConfigError, check_table, cli_args


def consistency(
    profile: str, num_players: int, seed: int, budget: int | None, decisions: int, label_prob: float
) -> dict[str, Any]:
    """The figures of the module docstring for one session."""
    env = make_env(profile, num_players=num_players)
    env.reset(seed=seed)
    heur = [HeuristicBot(s) for s in range(num_players)]
    first = [SearchBot(100 + s, budget=budget) for s in range(num_players)]
    second = [SearchBot(200 + s, budget=budget) for s in range(num_players)]
    rng = np.random.default_rng(seed)
    rows: list[tuple[int, int, int]] = []
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        view = public_view(env, agent)
        seat = view.seat
        move = heur[seat].act(env, agent)
        if len(view.legal) > 1 and rng.random() < label_prob:
            picks = [
                bot[seat].search(bot[seat].root_state(env, seat), seat, list(view.legal), move, profile)[0]
                for bot in (first, second)
            ]
            rows.append((move, int(picks[0]), int(picks[1])))
            if len(rows) >= decisions:
                break
        env.step(move)
    r = np.array(rows, dtype=np.int64).reshape(-1, 3)
    da, db = r[:, 1] != r[:, 0], r[:, 2] != r[:, 0]
    return {
        "decisions": len(r),
        "departure_rate": [round(float(da.mean()), 4), round(float(db.mean()), 4)] if len(r) else [None, None],
        "both_depart": round(float((da & db).mean()), 4) if len(r) else None,
        "departures_repeated": round(float(((r[:, 1] == r[:, 2]) & da).sum() / da.sum()), 4) if da.any() else None,
        "agreement": round(float((r[:, 1] == r[:, 2]).mean()), 4) if len(r) else None,
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (module docstring); bad values raise ``ConfigError``."""
    p = argparse.ArgumentParser(prog="python -m rummy_env.distill search-consistency",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--profile", default="contract_gamerules")
    p.add_argument("--num-players", type=int, default=4)
    p.add_argument("--seed", type=int, default=777)
    p.add_argument("--budget", type=int, default=None, help="rollouts a decision (default: the profile's)")
    p.add_argument("--decisions", type=int, default=80)
    p.add_argument("--label-prob", type=float, default=0.1)
    args = p.parse_args(argv)
    if args.decisions < 1 or (args.budget is not None and args.budget < 1):
        raise ConfigError(f"--decisions and --budget must be >= 1, got {args.decisions} and {args.budget}")
    if not 0.0 < args.label_prob <= 1.0:
        raise ConfigError(f"--label-prob must be in (0, 1], got {args.label_prob}")
    check_table(args.profile, args.num_players)
    return args


def main(argv: list[str] | None = None) -> int:
    """Compare the two searches and print the figures."""
    args = cli_args(parse_args, argv)
    if args is None:
        return 2
    fig = consistency(args.profile, args.num_players, args.seed, args.budget, args.decisions, args.label_prob)
    print(f"budget {args.budget or 'default'}: {fig}")
    return 0
