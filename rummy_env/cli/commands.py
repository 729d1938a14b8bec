"""The ``rummy`` command line: ``rummy run`` (random-play sessions), ``rummy bench`` (throughput), ``rummy fuzz``,
``rummy record`` / ``rummy replay`` (game logs and the web replay, ``rummy_env.replay``).

A usage error (an unknown profile, a count or duration out of range, an output path that cannot be written) is one
line on stderr naming the flag and the allowed values, exit code 2, before any work is done. The argument types
(``count``, ``positive_seconds``) and ``output_problem`` live in ``rummy_env.evaluation.arguments`` (re-exported here),
shared with ``rummy_env.evaluation.bots_eval``, the tournament and the training scripts.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from typing import Any

from ..bots.rollout_bench import bench_rollouts
from ..core._impl import implementation
from ..core.files import refuse_overwrite
from ..engine import new_state
from ..evaluation import peer_bench
from ..evaluation.arguments import ArgumentParser, count, output_problem, positive_seconds  # noqa: F401 - re-exported
from ..evaluation.bench import (  # noqa: F401 - bench_engine re-exported
    bench_engine,
    bench_env,
    bench_header,
    bench_legend,
    bench_row,
    bench_vector_env,
)
from ..evaluation.tournament import env_config_from_args
from ..models.checkpoints import checkpoint_paths, resolve_checkpoint
from ..registry import game
from ..replay import record_game, replay, save_log, write_html
from ..rules import PROFILES
from ..testing.fuzz import fuzz
from ..vector import learner_bench
from .play import add_play_command
from .terminal import progress_bar, wrap
from .tournament import add_session_length_arguments, add_tournament_command

ENGINE_PROFILES = ("contract",)


def _finished_profiles() -> list[str]:
    out = []
    for name in PROFILES:
        try:
            new_state(name, seed=0)
        except ValueError:
            continue
        out.append(name)
    return out


def play_random_sessions(profile: str, sessions: int, seed: int, num_players: int | None = None) -> dict[str, Any]:
    """Play ``sessions`` seeded sessions with uniformly random legal moves; standings and throughput."""
    overrides: dict[str, Any] = {}
    if num_players is not None:
        overrides["num_players"] = num_players
    decisions = 0
    wins: list[float] = []
    totals: list[float] = []
    rounds = 0
    capped = 0
    start = time.perf_counter()
    for i in range(sessions):
        state = new_state(profile, seed=seed + i, **overrides)
        rng = random.Random(seed + i)
        n = state.n
        if not wins:
            wins = [0.0] * n
            totals = [0.0] * n
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
            decisions += 1
        w = state.winners()
        for p in w:
            wins[p] += 1 / len(w)
        for p in range(n):
            totals[p] += state.scores[p]
        rounds += len(state.round_results)
        capped += sum(r["reason"] == "turn_cap" for r in state.round_results)
    secs = time.perf_counter() - start
    return {
        "profile": profile,
        "sessions": sessions,
        "seed": seed,
        "wins_per_seat": wins,
        "score_kind": game(profile).score_name,
        "mean_total_per_seat": [t / sessions for t in totals],
        "mean_per_round_per_seat": [t / max(rounds, 1) for t in totals],
        "rounds": rounds,
        "turn_cap_rounds": capped,
        "decisions": decisions,
        "seconds": secs,
        "decisions_per_second": decisions / secs if secs else 0.0,
        "sessions_per_second": sessions / secs if secs else 0.0,
    }


def _cmd_run(args: argparse.Namespace) -> int:
    profiles = args.profile or _finished_profiles()
    for profile in profiles:
        res = play_random_sessions(profile, args.sessions, args.seed)
        if args.json:  # JSON only: one object per profile and line
            print(json.dumps(res))
            continue
        print("\n".join(_run_report(res)))
    return 0


def _run_report(res: dict[str, Any]) -> list[str]:
    """The lines ``rummy run`` prints for one profile's ``play_random_sessions`` results: the table, its legend and
    a note on the rounds (deals) that ended at the engine's turn cap."""
    profile, n = res["profile"], len(res["wins_per_seat"])
    g = game(profile)
    what = "penalty" if g.lower_is_better else "balance"
    lines = [
        f"== {profile}: {res['sessions']} sessions of random legal play (seed {res['seed']}) ==",
        f"{'seat':>6} {'wins':>8} {'mean total ' + what:>20} {'mean per ' + g.unit:>16}",
    ]
    per_round = res["mean_per_round_per_seat"]
    for p in range(n):
        lines.append(
            f"{p:>6} {res['wins_per_seat'][p]:>8.2f} {res['mean_total_per_seat'][p]:>20.1f} {per_round[p]:>16.1f}"
        )
    better = "lower" if g.lower_is_better else "higher"
    lines.append(
        f"wins: sessions won, a tie split between the tied seats (two seats tied first get 0.50 each); mean total "
        f"{what}: the seat's {g.score_name} points over a whole session, {better} is better; mean per {g.unit}: the "
        f"same per {g.unit}"
    )
    lines.append(
        f"{g.units} {res['rounds']}, turn-cap {g.units} {res['turn_cap_rounds']}, decisions {res['decisions']}, "
        f"{res['decisions_per_second']:,.0f} decisions/s, {res['sessions_per_second']:.2f} sessions/s"
    )
    capped, rounds = res["turn_cap_rounds"], res["rounds"]
    if capped:
        rules = g.rules()
        field = f"{type(rules).__module__}.{type(rules).__name__}.turn_cap"
        cap = f"{rules.turn_cap} turns, the rules field {field}; rummy_env.make(..., turn_cap=N) changes it"
        note = (
            f"turn-cap {g.units}: {capped} of {rounds} {g.units} reached the engine's turn limit ({cap}) and ended "
            f"without a winner"
        )
        if 2 * capped > rounds:
            note += (
                f". Random play rarely goes out in {profile}, so most {g.units} end at the turn cap: this is "
                "expected of random moves, not a fault"
            )
            if "heuristic" in g.bots:
                note += f" (the heuristic goes out: rummy tournament --profile {profile} --entrants heuristic random)"
        lines.append(note)
    return wrap(lines)


def _cmd_bench(args: argparse.Namespace) -> int:
    """One measurement per profile and layer: the engine (``bench_engine``), the AEC env (``bench_env``: decisions/s,
    sessions/s, mask and observation time shares, memory per table) and, with ``--vector N``, ``VectorEnv`` of N
    tables (``bench_vector_env``: the same figures, the step / observation / sampling time shares, memory per
    table, and ``ratio_to_aec``). Printed as a table row each as it is measured (``bench_row``, the legend under
    the table), or with ``--json`` as one JSON line each. ``--compare``: ours beside the peers' gin rummy instead
    (``_cmd_compare``). ``docs/guides/performance.md`` says what each key means."""
    if args.compare:
        return _cmd_compare(args)
    if args.learner:
        return _cmd_learner(args)
    if args.rollouts:
        return _cmd_rollouts(args)
    if args.opponents is not None:
        raise ValueError("--opponents: only with --learner (the bots on the other seats of each table)")
    if isinstance(args.json, str):
        raise ValueError(f"--json {args.json!r}: a file name only with --compare (plain --json prints JSON lines)")
    compare_only = [f for f in COMPARE_FLAGS if getattr(args, f.strip("-").replace("-", "_")) not in (None, False)]
    if compare_only:
        raise ValueError(f"{', '.join(compare_only)}: only with --compare (the comparison with the peers' gin rummy)")

    def show(res: dict[str, Any]) -> None:
        print(json.dumps(res) if args.json else bench_row(res), flush=True)

    seconds = 10.0 if args.seconds is None else args.seconds
    if not args.json:
        print(bench_header(), flush=True)
    profiles = args.profile or _finished_profiles()
    for profile in profiles:
        show(bench_engine(profile, seconds, args.seed))
        if not args.engine_only:
            env_res = bench_env(profile, seconds, args.seed)
            show(env_res)
            if args.vector:
                vec = bench_vector_env(profile, num_envs=args.vector, seconds=seconds, seed=args.seed)
                # the ratio of two layers measured in the same run holds across machines; the absolute figures do not
                vec["ratio_to_aec"] = round(vec["decisions_per_second"] / max(env_res["decisions_per_second"], 1), 2)
                show(vec)
    if not args.json:
        print("\n".join(wrap(bench_legend(seconds, implementation()))))
    return 0


def _cmd_learner(args: argparse.Namespace) -> int:
    """``rummy bench --learner N ...``: learner decisions/s of ``GymVectorEnv`` against SB3's ``SubprocVecEnv`` over
    ``SingleAgentEnv`` with N tables each, random legal learner actions, pinned to one core
    (``rummy_env.vector.learner_bench``)."""
    profiles = args.profile or ["contract"]
    if len(profiles) != 1 or args.engine_only or args.vector:
        raise ValueError("--learner takes one --profile and neither --engine-only nor --vector")
    seconds = 10.0 if args.seconds is None else args.seconds
    core = learner_bench.pin_to_one_core()
    rows = learner_bench.run(profiles[0], args.learner, args.opponents or ["random", "heuristic"], seconds,
                             show=(lambda line: print(line, flush=True)) if args.json else (lambda line: None))  # fmt: skip
    if not args.json:
        print(learner_bench.table(rows))
        print(f"pinned to core {core}; {seconds:g} s per measurement; ratio = adapter / SubprocVecEnv in this run")
    return 0


def _cmd_rollouts(args: argparse.Namespace) -> int:
    """``rummy bench --rollouts``: full-round rollouts/s of the heuristic and of the search bot's fast rollout policy,
    interleaved on the same deals in one run (``rummy_env.bots.rollout_bench.bench_rollouts``), per profile."""
    seconds = 10.0 if args.seconds is None else args.seconds
    for profile in args.profile or _finished_profiles():
        res = bench_rollouts(profile, seconds)
        if args.json:
            print(json.dumps(res), flush=True)
            continue
        fast = res["fast"]
        line = f"{profile:<20} heuristic {res['heuristic']['rollouts_per_s']:8.1f} rollouts/s"
        if fast is not None:
            line += f"   fast policy {fast['rollouts_per_s']:8.1f} rollouts/s   speedup {res['speedup']:.1f}x"
        print(line, flush=True)
    return 0


def non_negative_seconds(text: str) -> float:
    """An argparse type: a finite number of seconds >= 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"expected a number of seconds >= 0, got {text!r}")
    return value


#: the flags of ``rummy bench --compare`` alone
COMPARE_FLAGS = ("--repeats", "--warmup", "--peers-python", "--no-peers", "--only", "--cpu", "--no-pin",
                 "--machine-note", "--markdown")  # fmt: skip


def _cmd_compare(args: argparse.Namespace) -> int:
    """``rummy bench --compare``: ``peer_bench.run`` (ours and the peers' gin rummy, alternating, one core), the
    JSON and markdown files written (``--json PATH``, ``--markdown PATH``; default under benchmarks/results/), the
    table printed."""
    if args.engine_only:
        raise ValueError("--engine-only: not with --compare (select rows with --only, e.g. contract_engine,pz_gin)")
    for flag, path in (("--json", args.json), ("--markdown", args.markdown)):
        problem = output_problem(path, folder=False) if isinstance(path, str) else None
        if problem:
            raise ValueError(f"{flag} {path!r} {problem}")
    settings = argparse.Namespace(
        seconds=5.0 if args.seconds is None else args.seconds, repeats=args.repeats or 3,
        warmup=0.5 if args.warmup is None else args.warmup, seed=args.seed, num_envs=args.vector or 16,
        peers_python=args.peers_python or str(peer_bench.DEFAULT_PEERS_PYTHON), no_peers=args.no_peers,
        only=[x for x in args.only.split(",") if x] if args.only else None, profiles=args.profile, cpu=args.cpu,
        no_pin=args.no_pin, machine_note=args.machine_note,
    )  # fmt: skip
    try:
        result = peer_bench.run(settings)
    except peer_bench.BenchmarkArgumentError as exc:
        raise ValueError(str(exc)) from None
    json_path, md_path = peer_bench.write_result(result, args.json if isinstance(args.json, str) else None,
                                                 args.markdown)  # fmt: skip
    print(result["markdown"])
    print(f"wrote {json_path} and {md_path}", file=sys.stderr)
    return 0


def _cmd_fuzz(args: argparse.Namespace) -> int:
    bar = progress_bar(args.decisions, desc=f"fuzz {args.profile}", unit="decision", enabled=not args.quiet)
    try:
        res = fuzz(profile=args.profile, decisions=args.decisions, seed=args.seed, progress=bar.update)
    finally:
        bar.close()
    print(json.dumps(res, indent=2))
    return 1 if res.get("violations") else 0


def _count(k: int, profile: str) -> str:
    """``k`` rounds / deals of ``profile``, singular for one."""
    g = game(profile)
    return f"{k} {g.unit if k == 1 else g.units}"


def _checkpoint_files(entrants: list[str]) -> list[Any]:
    """The files the ``checkpoint:PATH`` entrants read (``X.safetensors``, ``X.json``): inputs no output may replace."""
    files: list[Any] = []
    for spec in entrants:
        name, sep, arg = spec.partition(":")
        if name == "checkpoint" and sep and arg:
            try:
                head, _, tail = arg.rpartition("@")
                files += checkpoint_paths(resolve_checkpoint(head if tail in ("sample", "greedy") else arg))
            except ValueError:  # a bad path: the bot loader says what is wrong, later
                continue
    return files


def _cmd_record(args: argparse.Namespace) -> int:
    problem = output_problem(args.out, folder=False)
    if problem:
        raise ValueError(f"--out {args.out!r} {problem}; the game log is one file (game.json)")
    refuse_overwrite(args.out, _checkpoint_files(args.entrants), flag="--out")
    config = env_config_from_args(args.profile, args.rounds, args.deals)
    log = record_game(args.profile, args.entrants, seed=args.seed, **config)
    path = save_log(log, args.out)
    n = len(log["actions"])
    totals = " ".join(str(t) for t in log["totals"])
    print(f"recorded {args.profile} seed {args.seed}: {_count(len(log['round_results']), args.profile)}, "
          f"{n} actions, totals {totals} -> {path}")  # fmt: skip
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    if args.html:
        problem = output_problem(args.html, folder=False)
        if problem:
            raise ValueError(f"--html {args.html!r} {problem}; the page is one file (game.html)")
        refuse_overwrite(args.html, [args.log], flag="--html")  # before any work: never write over the log
    rep = replay(args.log)
    log = rep.log
    totals = " ".join(str(t) for t in rep.totals)
    print(f"{args.log}: valid {log['format']} v{log['version']}, {log['profile']}, {log['num_players']} seats, "
          f"{_count(len(rep.round_results), log['profile'])}, {len(log['actions'])} actions, totals {totals}")  # fmt: skip
    if args.html:
        print(f"wrote {write_html(rep, args.html)} ({len(rep.frames)} positions)")
    return 0


def _add_replay_commands(sub: Any) -> None:
    """``rummy record`` and ``rummy replay`` (game logs and the web replay, ``docs/guides/watching.md``)."""
    p = sub.add_parser(
        "record",
        help="play one session of bots and write its game log (JSON; docs/guides/watching.md)",
        description="Play one seeded session, one bot per seat, and write the game log: the dealt states, every "
        "action with its seat and action_info, the round results and totals (docs/guides/watching.md).",
    )
    p.add_argument("--profile", default="contract", choices=list(PROFILES), help="profile to play (default contract)")
    p.add_argument(
        "--entrants", nargs="+", required=True, help="one bot id per seat: random, heuristic, checkpoint:PATH, ..."
    )
    p.add_argument("--seed", type=count(0), default=0, help="deal seed of the session (default 0)")
    add_session_length_arguments(p)
    p.add_argument("--out", required=True, help="the game log file to write (game.json)")
    p.set_defaults(func=_cmd_record)
    p = sub.add_parser(
        "replay",
        help="check a game log by re-playing it through the engine; --html writes a web page that steps through it",
        description="Re-play a game log through the engine (every action checked, the results compared) and, with "
        "--html, write one self-contained page that steps through the game (docs/guides/watching.md).",
    )
    p.add_argument("log", help="a game log (rummy record, rummy tournament --save-games)")
    p.add_argument("--html", default=None, help="write the replay page to this file (game.html)")
    p.set_defaults(func=_cmd_replay)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``rummy`` console script."""
    parser = ArgumentParser(prog="rummy", description="rummy_env command line")
    sub = parser.add_subparsers(dest="cmd", required=True)
    profiles = list(PROFILES)
    p = sub.add_parser("run", help="play seeded sessions with random legal moves and print the standings")
    p.add_argument("--profile", nargs="*", choices=profiles, help="profiles to play (default: every finished profile)")
    p.add_argument("--sessions", type=count(1), default=20, help="sessions per profile (default 20)")
    p.add_argument("--seed", type=count(0), default=0, help="seed of the first session (default 0)")
    p.add_argument("--json", action="store_true", help="print only the results as JSON, one object per profile")
    p.set_defaults(func=_cmd_run)
    p = sub.add_parser("bench", help="measure throughput of the engines and environments (--compare: beside the "
                       "peers' gin rummy)")  # fmt: skip
    p.add_argument("--profile", nargs="*", choices=profiles, help="profiles (default: every finished profile)")
    p.add_argument("--seconds", type=positive_seconds, default=None,
                   help="wall-clock budget per measurement, > 0 (default 10; with --compare 5)")  # fmt: skip
    p.add_argument("--seed", type=count(0), default=0)
    p.add_argument("--engine-only", action="store_true", help="skip the PettingZoo environment measurement")
    p.add_argument("--json", nargs="?", const=True, default=False, metavar="PATH",
                   help="print the measurements as JSON, one object per profile and layer and line; with --compare: "
                        "the JSON file to write (default benchmarks/results/compare_gin-<UTC date-time>.json)")  # fmt: skip
    p.add_argument(
        "--vector",
        type=count(1),
        default=0,
        metavar="N",
        help="also measure rummy_env.vector.VectorEnv with N tables: decisions/s, sessions/s, time shares, memory "
        "per table, ratio to the AEC env of the same run (with --compare: the tables of the VectorEnv rows, default 16)",
    )
    p.add_argument("--learner", type=count(1), nargs="+", default=None, metavar="N",
                   help="learner decisions/s of the batched Gymnasium adapter against SB3's SubprocVecEnv over "
                        "SingleAgentEnv, N tables each, one core (needs the train extra)")  # fmt: skip
    p.add_argument("--rollouts", action="store_true",
                   help="full-round rollouts/s of the heuristic and of the search bot's fast rollout policy")  # fmt: skip
    p.add_argument("--opponents", nargs="+", default=None, metavar="BOT",
                   help="with --learner: the bots on the other seats (default: random, then heuristic)")  # fmt: skip
    g = p.add_argument_group("--compare: ours beside the peers' gin rummy (PettingZoo, RLCard, OpenSpiel), one core")
    g.add_argument("--compare", action="store_true",
                   help="measure our engine, AEC env and VectorEnv rows and the peers' gin rummy, alternating, and "
                        "write a JSON file and a markdown table (docs/guides/performance.md)")  # fmt: skip
    g.add_argument("--repeats", type=count(1), default=None, help="repeats of every row; medians reported (default 3)")
    g.add_argument("--warmup", type=non_negative_seconds, default=None,
                   help="untimed seconds of play before each measurement (default 0.5)")  # fmt: skip
    g.add_argument("--peers-python", default=None, help="the peers' Python (default .venv-peers/bin/python)")
    g.add_argument("--no-peers", action="store_true", help="measure ours only")
    g.add_argument("--only", default=None, metavar="IDS",
                   help="comma-separated row ids (default all), e.g. pz_gin,contract_aec")  # fmt: skip
    g.add_argument("--cpu", type=count(0), default=None, help="the CPU to pin to (default: the first allowed)")
    g.add_argument("--no-pin", action="store_true", help="do not pin to one CPU")
    g.add_argument("--machine-note", default=None, help="free text about the machine, e.g. 'shared, 2 cores'")
    g.add_argument("--markdown", default=None, metavar="PATH", help="markdown output (default: the JSON's name, .md)")
    p.set_defaults(func=_cmd_bench)
    p = sub.add_parser("fuzz", help="random self-play with invariant checks after every action")
    p.add_argument("--profile", default="contract", choices=profiles)
    p.add_argument("--decisions", type=count(0), default=500_000)
    p.add_argument("--seed", type=count(0), default=0)
    p.add_argument("--quiet", action="store_true", help="no progress bar (it is drawn only on a terminal anyway)")
    p.set_defaults(func=_cmd_fuzz)
    add_tournament_command(sub)
    add_play_command(sub)
    _add_replay_commands(sub)
    args = parser.parse_args(argv)
    # counts of the sub-commands defined in other modules (tournament, play), checked here the same way
    for flag, low in (("sessions", 1), ("seed", 0), ("workers", 1)):
        value = getattr(args, flag, None)
        if isinstance(value, int) and value < low:
            parser.error(f"argument --{flag}: expected an integer >= {low}, got {value}")
    try:
        return int(args.func(args))
    except ValueError as exc:
        print(f"rummy: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
