"""``search-labels``: offline labels of the ``search`` bot (or of any teacher bot) on the heuristic's own games, in
resumable shards.

The ``heuristic`` plays every seat of ``--num-players``-player sessions of ``--profile``; at a decision with more
than one legal action, with probability ``--label-prob``, the ``search`` bot of that seat (``--budget`` rollouts,
one ``SearchBot`` per seat, seeded per session) is asked what it would play there, from that seat's knowledge only
(``SearchBot.search`` from the canonical position, with the seat's heuristic move as its prior). The heuristic's
move is played either way, so the labelled states are the heuristic's distribution -- the states a residual
policy over the heuristic (``card_prior``) visits.

Each session ``i`` (seed ``session_seed(--seed, i)``) is written as ``OUT/session_{i:05d}.npz`` when it ends:

- ``obs`` (N, obs_size) float32 and ``mask`` (N, num_actions) bool: the seat's
  ``env.observe``;
- ``prior`` (N,) int64: the heuristic's move (played); ``label`` (N,) int64: the search's choice;
- ``gain`` (N,) float32: the search's mean value of its choice minus that of the heuristic's move (0 where equal);
- ``seat``, ``round`` (N,) int16: who decided, in which round;
- with ``--measures``: ``measures`` (N, L, F) float32, the heuristic's measures of every legal action
  (``HeuristicBot.action_measures``: rows in increasing action id, zero padding to the longest legal list L of the
  session), and ``measure_names`` (F,) str, for a ``card_prior_measures`` network (``search-distill
  --measures``).

``--teacher BOT_ID`` labels with another bot instead of the search (one per seat, seeded ``seed * 37 + seat``, asked
at every decision of its seat so that a bot with memory sees the whole game): the label is its move and ``gain``
is 0. With ``--play teacher`` the teacher's moves are played, so the labelled states are the teacher's own
distribution (the states its imitator visits), and ``prior`` is still the heuristic's move there. For example
``--teacher heuristic:penalty_weight=0.4 --play teacher --label-prob 1`` records a styled heuristic
(``rummy_env.bots.heuristic``) for ``search-distill`` to teach to a ``card_prior`` network over the
plain heuristic.

A session already on disk is skipped, so an interrupted run resumes where it stopped (``--max-minutes`` stops
between sessions). ``--workers`` processes share the sessions (``i = worker, worker + workers, ...``); the output
depends on ``--seed``, ``--sessions``, ``--budget``, ``--label-prob``, ``--rounds``, ``--teacher``, ``--play`` and
``--measures`` only, not on the number of workers.

Usage::

    python -m rummy_env.distill search-labels --profile contract_gamerules --out runs/labels/cg --sessions 200 \
        --workers 2
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

from .. import bots
from .. import make as make_env
from ..bots.heuristic import HeuristicBot
from ..bots.search import SearchBot
from ..bots.view import public_view
from ..evaluation.match import session_seed
from ..evaluation.tournament import env_config_from_args
from ..training.config import ConfigError, check_table, cli_args
from .shards import add_output_flags, label_folder_problem, measure_arrays, run_shard_workers, write_sessions


def label_session(
    profile: str,
    num_players: int,
    seed: int,
    budget: int | None,
    label_prob: float,
    rounds: list[int] | None = None,
    teacher: str | None = None,
    play: str = "heuristic",
    measures: bool = False,
) -> dict[str, Any]:
    """Play one session of ``seed`` (``rounds``: only those rounds in the contract profiles, that many deals in
    continental) with the heuristic's moves (``play="teacher"``: the teacher's) and return its labels (module
    docstring's arrays): the search's choices, or ``teacher``'s moves when a teacher bot id is given."""
    env = make_env(profile, num_players=num_players, **env_config_from_args(profile, rounds, None))
    env.reset(seed=seed)
    heur = [HeuristicBot(seed * 31 + s) for s in range(num_players)]
    search = [SearchBot(seed * 37 + s, budget=budget) for s in range(num_players)] if teacher is None else None
    teachers = [bots.load(teacher, seed=seed * 37 + s) for s in range(num_players)] if teacher is not None else None
    rng = np.random.Generator(np.random.PCG64(seed))
    rows: dict[str, list[Any]] = {k: [] for k in ("obs", "mask", "prior", "label", "gain", "seat", "round", "measures")}
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        view = public_view(env, agent)
        seat = view.seat
        move = heur[seat].act(env, agent)
        taught = teachers[seat].act(env, agent) if teachers is not None else None
        if int(mask.sum()) > 1 and rng.random() < label_prob:
            if teachers is None:
                bot = search[seat]
                root = bot.root_state(env, seat)
                best, means = bot.search(root, seat, list(view.legal), move, profile)
            else:
                best, means = taught, {}
            rows["obs"].append(np.asarray(obs["observation"], dtype=np.float32))
            rows["mask"].append(np.asarray(mask, dtype=bool))
            rows["prior"].append(move)
            rows["label"].append(int(best))
            rows["gain"].append(float(means.get(best, 0.0) - means.get(move, means.get(best, 0.0))))
            rows["seat"].append(seat)
            rows["round"].append(int(view.round) if hasattr(view, "round") else 0)
            if measures:
                rows["measures"].append(heur[seat].action_measures(view))
        env.step(taught if play == "teacher" else move)
    dtypes = {"obs": np.float32, "mask": bool, "prior": np.int64, "label": np.int64, "gain": np.float32,
              "seat": np.int16, "round": np.int16}  # fmt: skip
    table = rows.pop("measures")
    out = {}
    for k, v in rows.items():
        out[k] = np.array(v, dtype=dtypes[k]) if v else np.zeros((0,), dtype=dtypes[k])
    if measures:
        out.update(measure_arrays(table, heur[0].measure_names(profile)))
    return out


def _worker(args: argparse.Namespace, worker: int, deadline: float) -> None:
    import torch  # optional dependency: torch (a checkpoint teacher's network)

    torch.set_num_threads(1)

    def make(i: int) -> dict[str, Any]:
        return label_session(
            args.profile,
            args.num_players,
            session_seed(args.seed, i),
            args.budget,
            args.label_prob,
            args.rounds,
            args.teacher,
            args.play,
            args.measures,
        )

    def report(i: int, data: dict[str, Any], seconds: float) -> str:
        departs = int((data["label"] != data["prior"]).sum())
        return f"session {i}: {len(data['label'])} labels, {departs} departures, {seconds:.0f} s"

    write_sessions(Path(args.out), range(worker, args.sessions, args.workers), deadline, make, report)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (module docstring); bad values raise ``ConfigError``."""
    p = argparse.ArgumentParser(prog="python -m rummy_env.distill search-labels", description=__doc__.split("\n\n")[0])
    p.add_argument("--profile", default="contract_gamerules")
    p.add_argument("--num-players", type=int, default=4)
    p.add_argument("--out", required=True)
    p.add_argument("--sessions", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--budget", type=int, default=None, help="rollouts a decision (default: the profile's)")
    p.add_argument("--label-prob", type=float, default=0.25)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument(
        "--rounds", type=int, nargs="+", default=None, help="contract profiles: these rounds only; continental: deals"
    )
    p.add_argument("--max-minutes", type=float, default=0.0, help="stop starting sessions after this (0: never)")
    p.add_argument("--teacher", default=None, help="a bot id whose moves are the labels (default: the search bot)")
    p.add_argument("--play", choices=("heuristic", "teacher"), default="heuristic", help="whose moves are played")
    p.add_argument("--measures", action="store_true", help="also store the heuristic's measures of each legal action")
    add_output_flags(p)
    args = p.parse_args(argv)
    problem = label_folder_problem(args.out, args.overwrite_shipped)
    if problem:
        raise ConfigError(f"--out {args.out!r} {problem}")
    if args.sessions < 1 or args.workers < 1:
        raise ConfigError(f"--sessions and --workers must be >= 1, got {args.sessions} and {args.workers}")
    if not 0.0 < args.label_prob <= 1.0:
        raise ConfigError(f"--label-prob must be in (0, 1], got {args.label_prob}")
    if args.budget is not None and args.budget < 1:
        raise ConfigError(f"--budget must be >= 1, got {args.budget}")
    check_table(args.profile, args.num_players, args.rounds)
    if args.play == "teacher" and args.teacher is None:
        raise ConfigError("--play teacher needs --teacher BOT_ID")
    if args.teacher is not None:
        try:
            bots.load(args.teacher, seed=0)
        except ValueError as exc:
            raise ConfigError(f"--teacher: {exc}") from None
    return args


def main(argv: list[str] | None = None) -> int:
    """Label sessions until all are on disk or ``--max-minutes`` has passed."""
    args = cli_args(parse_args, argv)
    if args is None:
        return 2
    return run_shard_workers(_worker, args)
