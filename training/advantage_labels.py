"""Rollout advantages of every legal action on the heuristic's own games, in resumable shards (issue 16).

The ``heuristic`` plays every seat of ``--num-players``-player sessions of ``--profile``. At a decision with more
than one legal action, with probability ``--label-prob``, each *candidate* action (every legal action, or the
heuristic's move and ``--max-candidates`` - 1 others drawn at random when there are more) is played on a copy of
the true position, and the round is played on to its end by copies of the four heuristics as they stand (their
generators and memories included, ``HeuristicBot.fork``). Every candidate is rolled out from the same position with the same stock and
the same heuristic copies (common random numbers), so the rollout of the heuristic's own move is exactly the game
that was played, and the difference between two candidates is the effect of the decision alone in that deal.

The labels use the hidden cards -- they are training targets, not a bot. A network fitted to them by regression
(``training/advantage_fit.py``) sees only the deciding seat's observation; the expectation of a label given the
observation is the action's value to that seat under the real distribution of hidden cards and heuristic play, so
the network learns the *information-set* advantage of each action over the heuristic's, and the greedy policy on
it is one step of policy improvement over the heuristic.

Each session ``i`` (seed ``session_seed(--seed, i)``) is written as ``OUT/session_{i:05d}.npz`` when it ends:

- ``obs`` (N, obs_size) float32 and ``mask`` (N, num_actions) bool: the deciding seat's ``env.observe``;
- ``prior`` (N,) int64: the heuristic's move (the one played);
- ``cand`` (N, K) int64: the candidate actions, ``-1`` padding, the heuristic's move among them;
- ``scores`` (N, K, P) float32: every seat's score of the round (penalty or payment, as the engine counts it)
  after each candidate;
- ``seat``, ``round`` (N,) int16: who decided, in which round (0-based index of the session's rounds);
- ``choices`` () int64: the decisions with more than one legal action in the session (labelled or not), and
  ``rounds_played`` () int64: its rounds (deals), so that a mean per labelled decision can be scaled to a round.

A session already on disk is skipped, so an interrupted run resumes where it stopped (``--max-minutes`` stops
between sessions). ``--workers`` processes share the sessions (``i = worker, worker + workers, ...``); the output
depends on ``--seed``, ``--sessions``, ``--label-prob``, ``--max-candidates`` and ``--rounds``, not on the number
of workers.

Usage::

    python training/advantage_labels.py --profile contract --out /tmp/adv --sessions 200 --workers 2
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import ConfigError, check_table, cli_args  # noqa: E402

ARRAYS = ("obs", "mask", "prior", "cand", "scores", "seat", "round")


def round_scores(state: Any, round_index: int) -> list[float]:
    """Every seat's score of round ``round_index`` of a finished round (penalties or payments)."""
    res = state.round_results[round_index]
    return [float(x) for x in res.get("penalties", res.get("payments"))]


def play_out(state: Any, bots: list[Any], round_index: int) -> list[float]:
    """Play ``state`` on with ``bots`` (``HeuristicBot`` per seat, acting on views) to the end of round
    ``round_index``; every seat's score of that round."""
    while not state.is_terminal() and len(state.round_results) <= round_index:
        legal = state.legal_actions()
        mover = state.current_player
        action = legal[0] if len(legal) == 1 else bots[mover].act_view(state.public_view(mover))
        state.apply(action)
    return round_scores(state, round_index)


def candidates(legal: list[int], prior: int, max_candidates: int, rng: np.random.Generator) -> list[int]:
    """Every legal action when there are at most ``max_candidates``; else ``prior`` and a random sample of the
    others, in increasing id order."""
    if len(legal) <= max_candidates:
        return list(legal)
    others = [a for a in legal if a != prior]
    pick = rng.choice(len(others), size=max_candidates - 1, replace=False)
    return sorted([prior, *(others[int(i)] for i in pick)])


def label_session(
    profile: str,
    num_players: int,
    seed: int,
    label_prob: float,
    max_candidates: int,
    rounds: list[int] | None = None,
) -> dict[str, np.ndarray]:
    """Play one heuristic session of ``seed`` (``rounds``: those rounds in the contract profiles, that many deals
    in continental) and return its labels (the module docstring's arrays)."""
    import rummy_env
    from rummy_env.bots.heuristic import HeuristicBot
    from rummy_env.evaluation.tournament import env_config_from_args
    from rummy_env.registry import game

    env = rummy_env.make(profile, num_players=num_players, **env_config_from_args(profile, rounds, None))
    env.reset(seed=seed)
    raw = env.unwrapped
    g = game(profile)
    heur = [HeuristicBot(seed * 31 + s) for s in range(num_players)]
    rng = np.random.Generator(np.random.PCG64(seed))
    rows: dict[str, list[Any]] = {k: [] for k in ARRAYS}
    choices = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        seat = raw.agent_name_mapping[agent]
        move = heur[seat].act(env, agent)
        choice = int(mask.sum()) > 1
        choices += choice
        if choice and rng.random() < label_prob:
            legal = [int(a) for a in np.flatnonzero(mask)]
            cand = candidates(legal, move, max_candidates, rng)
            root = g.load_state(raw.game_state(), raw.rules)
            round_index = len(root.round_results)
            scores = []
            for a in cand:
                st = root.clone()
                st.apply(a)
                scores.append(play_out(st, [bot.fork() for bot in heur], round_index))
            rows["obs"].append(np.asarray(obs["observation"], dtype=np.float32))
            rows["mask"].append(np.asarray(mask, dtype=bool))
            rows["prior"].append(move)
            rows["cand"].append(cand)
            rows["scores"].append(scores)
            rows["seat"].append(seat)
            rows["round"].append(round_index)
        env.step(move)
    out = pack(rows, num_players, max_candidates)
    out["choices"] = np.array(choices, dtype=np.int64)
    out["rounds_played"] = np.array(len(raw.round_results), dtype=np.int64)
    return out


def pack(rows: dict[str, list[Any]], num_players: int, max_candidates: int) -> dict[str, np.ndarray]:
    """The collected rows as the module docstring's arrays (``cand`` / ``scores`` padded to ``max_candidates``)."""
    n = len(rows["prior"])
    cand = np.full((n, max_candidates), -1, dtype=np.int64)
    scores = np.zeros((n, max_candidates, num_players), dtype=np.float32)
    for i, (c, s) in enumerate(zip(rows["cand"], rows["scores"])):
        cand[i, : len(c)] = c
        scores[i, : len(c)] = s
    out = {"cand": cand, "scores": scores}
    for k, dtype in (("obs", np.float32), ("mask", bool), ("prior", np.int64), ("seat", np.int16), ("round", np.int16)):
        out[k] = np.array(rows[k], dtype=dtype) if rows[k] else np.zeros((0,), dtype=dtype)
    return out


def _worker(args: argparse.Namespace, worker: int, deadline: float) -> None:
    from rummy_env.evaluation.match import session_seed

    out = Path(args.out)
    for i in range(worker, args.sessions, args.workers):
        path = out / f"session_{i:05d}.npz"
        if path.exists():
            continue
        if time.time() > deadline:
            return
        t0 = time.time()
        data = label_session(
            args.profile, args.num_players, session_seed(args.seed, i), args.label_prob, args.max_candidates,
            args.rounds,
        )  # fmt: skip
        tmp = out / f".session_{i:05d}.tmp.npz"
        np.savez_compressed(tmp, **data)
        os.replace(tmp, path)
        if not args.quiet:
            n = len(data["prior"])
            print(f"session {i}: {n} labels, {int((data['cand'] >= 0).sum())} rollouts, {time.time() - t0:.1f} s",
                  flush=True)  # fmt: skip


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (module docstring); bad values raise ``ConfigError``."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--profile", default="contract")
    p.add_argument("--num-players", type=int, default=4)
    p.add_argument("--out", required=True)
    p.add_argument("--sessions", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--label-prob", type=float, default=0.05, help="chance that a decision with a choice is labelled")
    p.add_argument("--max-candidates", type=int, default=24, help="candidate actions rolled out per decision")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument(
        "--rounds", type=int, nargs="+", default=None, help="contract profiles: these rounds only; continental: deals"
    )
    p.add_argument("--max-minutes", type=float, default=0.0, help="stop starting sessions after this (0: never)")
    p.add_argument("--quiet", action="store_true", help="no line per session")
    args = p.parse_args(argv)
    if args.sessions < 1 or args.workers < 1:
        raise ConfigError(f"--sessions and --workers must be >= 1, got {args.sessions} and {args.workers}")
    if args.seed < 0:
        raise ConfigError(f"--seed must be >= 0, got {args.seed}")
    if not 0.0 < args.label_prob <= 1.0:
        raise ConfigError(f"--label-prob must be in (0, 1], got {args.label_prob}")
    if not 2 <= args.max_candidates <= 4096:
        raise ConfigError(f"--max-candidates must be in 2..4096, got {args.max_candidates}")
    if args.max_minutes < 0:
        raise ConfigError(f"--max-minutes must be >= 0, got {args.max_minutes}")
    check_table(args.profile, args.num_players, args.rounds)
    return args


def main(argv: list[str] | None = None) -> int:
    """Label sessions until all are on disk or ``--max-minutes`` has passed."""
    args = cli_args(parse_args, argv)
    if args is None:
        return 2
    Path(args.out).mkdir(parents=True, exist_ok=True)
    deadline = time.time() + args.max_minutes * 60 if args.max_minutes > 0 else float("inf")
    if args.workers == 1:
        _worker(args, 0, deadline)
    else:
        procs = [mp.get_context("spawn").Process(target=_worker, args=(args, w, deadline)) for w in range(args.workers)]
        for proc in procs:
            proc.start()
        for proc in procs:
            proc.join()
        if any(proc.exitcode for proc in procs):
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
