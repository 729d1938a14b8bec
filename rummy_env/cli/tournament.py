"""``rummy tournament``: the command line of ``rummy_env.evaluation.tournament`` (``docs/guides/tournaments.md``),
and the ``--rounds`` / ``--deals`` arguments it shares with ``rummy play`` and ``rummy record``.
"""

from __future__ import annotations

import sys
from typing import Any

from ..evaluation.arguments import output_problem
from ..evaluation.terminal import wrap
from ..evaluation.tournament import env_config_from_args, format_standings, save_results, tournament


def _cmd_tournament(args: Any) -> int:
    env_config = env_config_from_args(args.profile, args.rounds, args.deals)
    if args.address is not None and args.backend != "ray":
        raise ValueError(f"--address {args.address!r} joins a Ray cluster: it needs --backend ray")
    if args.backend == "ray" and args.save_games is not None:
        raise ValueError("--save-games needs --backend local (game logs are written on this machine as sessions end)")
    if args.out is not None:  # before playing: a tournament's results must not be lost to an unwritable --out
        problem = output_problem(args.out, folder=True)
        if problem:
            raise ValueError(f"--out {args.out!r} {problem}; expected a folder that exists or can be created")
    if args.save_games is not None:
        problem = output_problem(args.save_games, folder=True)
        if problem:
            raise ValueError(f"--save-games {args.save_games!r} {problem}; expected a folder for the game logs")
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
            save_games=args.save_games,
            backend=args.backend,
            address=args.address,
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
        print("\n".join(wrap(["saved: " + ", ".join(str(p) for p in paths.values())])))
    if args.save_games:
        print(f"saved {results['sessions']} game logs in {args.save_games} (rummy replay LOG --html PAGE)")
    return 0


def add_session_length_arguments(p: Any) -> None:
    """``--rounds`` / ``--deals`` (read by ``env_config_from_args``), shared by ``rummy tournament`` and ``rummy play``."""
    p.add_argument(
        "--rounds",
        type=int,
        nargs="+",
        default=None,
        help="session length: contract profiles, the round numbers to play (1 2 ...); continental, one number of deals",
    )
    p.add_argument("--deals", type=int, default=None, help="continental: old spelling of --rounds (deals per session)")


def add_tournament_command(sub: Any) -> None:
    """Add ``rummy tournament`` to the ``rummy`` sub-command parser ``sub``."""
    p = sub.add_parser(
        "tournament",
        help="seeded tournament of bots and checkpoints: duplicate deals, rotated seats, CIs, openskill ratings",
        description="Every entrant plays every seat; duplicate deals replay the same shoes with the seating "
        "rotated; results are the same for a seed whatever the number of workers (docs/guides/tournaments.md).",
    )
    p.add_argument("--profile", default="contract", help="profile to play (default contract)")
    p.add_argument(
        "--entrants",
        nargs="+",
        required=True,
        help="bot ids: random, heuristic, checkpoint:PATH[@sample], py:MODULE.ATTR (your own bot, docs/guides/bots.md 'Your own bot')",
    )
    p.add_argument("--sessions", type=int, default=100, help="sessions to play, rounded up to whole blocks")
    p.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1; results do not change)")
    p.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="local: this machine (--workers processes); ray: every session a Ray task (the [rllib] extra); "
        "results do not change",
    )
    p.add_argument(
        "--address",
        default=None,
        help="with --backend ray: the cluster to join (auto, HOST:PORT, ray://HOST:10001); without it, RAY_ADDRESS "
        "or a local Ray",
    )
    p.add_argument("--num-players", type=int, default=None, help="seats per table (default: the profile's)")
    add_session_length_arguments(p)
    p.add_argument("--no-duplicate", action="store_true", help="fresh shoes for every session (no duplicate deals)")
    p.add_argument("--out", default=None, help="folder for tournament.json, CSV files and ratings.png")
    p.add_argument("--no-chart", action="store_true", help="do not draw ratings.png")
    p.add_argument("--quiet", action="store_true", help="no progress bar (it is drawn only on a terminal anyway)")
    p.add_argument(
        "--save-games",
        default=None,
        metavar="DIR",
        help="write the game log of every session to DIR/session_NNNN.json (rummy replay; docs/guides/watching.md)",
    )
    p.set_defaults(func=_cmd_tournament)


__all__ = ["add_session_length_arguments", "add_tournament_command"]
