"""``advantage-labels``: rollout advantages of every legal action on the heuristic's own games, in resumable shards.

The ``heuristic`` plays every seat of ``--num-players``-player sessions of ``--profile``. At a decision with more
than one legal action, with probability ``--label-prob``, each *candidate* action (every legal action, or the
heuristic's move and ``--max-candidates`` - 1 others drawn at random when there are more) is played on a copy of
the true position, and the round is played on to its end by copies of the four heuristics as they stand (their
generators and memories included, ``HeuristicBot.fork``). Every candidate is rolled out from the same position with the same stock and
the same heuristic copies (common random numbers), so the rollout of the heuristic's own move is exactly the game
that was played, and the difference between two candidates is the effect of the decision alone in that deal.

The labels use the hidden cards -- they are training targets, not a bot. A network fitted to them by regression
(``advantage-fit``) sees only the deciding seat's observation; the expectation of a label given the
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
- ``step`` (N,) int32: the decision's index in the session (replaying the session's seed to it gives the
  position back);
- ``measures`` (N, L, F) float32: the heuristic's measures of every legal action (``HeuristicBot.
  action_measures``, rows in increasing action id, zero padding to the longest legal list L) and
  ``measure_names`` (F,) str: their names;
- ``choices`` () int64: the decisions with more than one legal action in the session (labelled or not), and
  ``rounds_played`` () int64: its rounds (deals), so that a mean per labelled decision can be scaled to a round.

A session already on disk is skipped, so an interrupted run resumes where it stopped (``--max-minutes`` stops
between sessions). ``--workers`` processes share the sessions (``i = worker, worker + workers, ...``); the output
depends on ``--seed``, ``--sessions``, ``--label-prob``, ``--max-candidates`` and ``--rounds``, not on the number
of workers.

Files written before labels carried measures get them with ``--add-measures`` and the settings they were made
with (the session is replayed, its decisions and candidates checked against the file).

Usage::

    python -m rummy_env.distill advantage-labels --profile contract --out runs/labels/adv --sessions 200 --workers 2
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

from .. import make as make_env
from ..bots.heuristic import HeuristicBot
from ..evaluation.match import session_seed
from ..evaluation.tournament import env_config_from_args
from ..registry import game
from ..training.config import ConfigError, check_table, cli_args
from ..training.outputs import savez_atomic
from .shards import (
    add_output_flags,
    label_folder_problem,
    measure_arrays,
    run_shard_workers,
    session_index,
    write_sessions,
)

ARRAYS = ("obs", "mask", "prior", "cand", "scores", "seat", "round", "step", "measures")


def round_scores(state: Any, round_index: int) -> list[float]:
    """Every seat's score of round ``round_index`` of a finished round (penalties or payments)."""
    res = state.round_results[round_index]
    return [float(x) for x in res.get("penalties", res.get("payments"))]


class SeatStocks:
    """The ``seat`` coupling of the stock: every seat draws from its own sequence of the stock's cards.

    The stock is shuffled afresh (its order is hidden and uniformly random given everything else, so this changes
    no branch's distribution) and dealt round-robin into one queue per seat; before each action the card the
    drawer of that action would get -- the next of his queue, or when his queue is empty the last card of the
    longest other queue -- is put on top of the stock. Reading a uniformly shuffled deck in an order chosen from
    what has been read so far still draws uniformly, so each branch is a correct sample; but two branches that
    differ by one draw (a card taken from the discard pile instead of the stock, a buy) no longer shift every
    later draw of every seat by one card: each seat draws the same cards in both, as far as its own draws go.
    That removes most of the noise a single decision's difference otherwise carries. When the stock is reshuffled
    from the discard pile (or its size no longer matches) the coupling stops and the engine's order rules.
    """

    def __init__(self, stock: list[int], num_players: int, rng: np.random.Generator):
        order = list(stock)
        rng.shuffle(order)
        self.queues = [order[p::num_players][::-1] for p in range(num_players)]  # next card at the end
        self.live = True
        self._pending: list[int] | None = None

    def copy(self) -> SeatStocks:
        """The same queues, for another branch (common random numbers)."""
        new = SeatStocks.__new__(SeatStocks)
        new.queues = [list(q) for q in self.queues]
        new.live, new._pending = self.live, None
        return new

    def apply(self, state: Any, action: int, drawer: int) -> None:
        """``state.apply(action)`` with ``drawer``'s next card on top of the stock."""
        stock = state.stock
        if self.live and len(stock) != sum(len(q) for q in self.queues):
            self.live = False
        if not self.live or not stock:
            state.apply(action)
            return
        queue = self.queues[drawer]
        if not queue:
            queue = max(self.queues, key=len)
            card = queue[0]
            taken = (queue, 0)
        else:
            card = queue[-1]
            taken = (queue, len(queue) - 1)
        stock.remove(card)
        stock.append(card)
        before = len(stock)
        state.apply(action)
        after = len(state.stock)
        if after == before - 1:
            del taken[0][taken[1]]
        elif after != before:
            self.live = False


def drawer_of(state: Any, action: int, buy: int) -> int:
    """The seat that would take the stock top if ``action`` draws one: the buyer of a buy (its penalty card),
    otherwise the player whose turn it is (his draw, also at the end of a buy window)."""
    return state.current_player if action == buy else state.active


def play_out(
    state: Any,
    bots: list[Any],
    round_index: int,
    stocks: SeatStocks | None = None,
    buy: int = -1,
    horizon: int = 0,
) -> list[float]:
    """Play ``state`` on with ``bots`` (``HeuristicBot`` per seat, acting on views) to the end of round
    ``round_index``; every seat's score of that round. With ``stocks`` every draw goes through its coupling
    (``buy``: the buy action's id, -1 if none). With ``horizon`` > 0 play at most that many decisions: if the round
    has not ended by then, every seat's score is the penalty of the cards in its hand (the contract family's
    engines count it; ``SearchBot``'s static evaluation)."""
    played = 0
    while not state.is_terminal() and len(state.round_results) <= round_index:
        if horizon and played >= horizon:
            return [float(state.penalty(p)) for p in range(len(state.hands))]
        played += 1
        legal = state.legal_actions()
        mover = state.current_player
        action = legal[0] if len(legal) == 1 else bots[mover].act_view(state.public_view(mover))
        if stocks is None:
            state.apply(action)
        else:
            stocks.apply(state, action, drawer_of(state, action, buy))
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
    coupling: str = "order",
    horizon: int = 0,
    rollouts: bool = True,
) -> dict[str, np.ndarray]:
    """Play one heuristic session of ``seed`` (``rounds``: those rounds in the contract profiles, that many deals
    in continental) and return its labels (the module docstring's arrays). ``coupling``: ``order`` rolls every
    candidate out on the true stock order, ``seat`` through ``SeatStocks`` (a fresh shuffle per labelled decision,
    the same for every candidate). ``horizon``: see ``play_out``. ``rollouts=False`` replays the session and
    picks the same decisions and candidates without rolling anything out (``scores`` all zero): what
    ``add_measures`` needs."""
    env = make_env(profile, num_players=num_players, **env_config_from_args(profile, rounds, None))
    env.reset(seed=seed)
    raw = env.unwrapped
    g = game(profile)
    buy = getattr(raw.layout, "BUY", None)
    buy = -1 if buy is None else int(buy)
    heur = [HeuristicBot(seed * 31 + s) for s in range(num_players)]
    rng = np.random.Generator(np.random.PCG64(seed))
    rows: dict[str, list[Any]] = {k: [] for k in ARRAYS}
    choices = 0
    step = -1
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        step += 1
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
            stocks = None
            if coupling == "seat":
                stocks = SeatStocks(root.stock, num_players, np.random.Generator(np.random.PCG64([seed, choices])))
            scores = [] if rollouts else [[0.0] * num_players for _ in cand]
            for a in cand if rollouts else ():
                st = root.clone()
                bots = [bot.fork() for bot in heur]
                if stocks is None:
                    st.apply(a)
                    scores.append(play_out(st, bots, round_index, horizon=horizon))
                else:
                    branch = stocks.copy()
                    branch.apply(st, a, drawer_of(st, a, buy))
                    scores.append(play_out(st, bots, round_index, branch, buy, horizon))
            rows["obs"].append(np.asarray(obs["observation"], dtype=np.float32))
            rows["mask"].append(np.asarray(mask, dtype=bool))
            rows["prior"].append(move)
            rows["cand"].append(cand)
            rows["scores"].append(scores)
            rows["seat"].append(seat)
            rows["round"].append(round_index)
            rows["step"].append(step)
            rows["measures"].append(heur[seat].action_measures(raw.public_view(agent)))
        env.step(move)
    out = pack(rows, num_players, max_candidates)
    out.update(measure_arrays(rows["measures"], heur[0].measure_names(profile)))
    out["choices"] = np.array(choices, dtype=np.int64)
    out["rounds_played"] = np.array(len(raw.round_results), dtype=np.int64)
    return out


def add_measures(path: Path, profile: str, num_players: int, seed: int, label_prob: float, max_candidates: int,
                 rounds: list[int] | None = None) -> bool:  # fmt: skip
    """Give a label file written before labels carried measures its ``measures``, ``measure_names`` and ``step``, by
    replaying its session (``label_session(..., rollouts=False)``: the same decisions, the same candidates). The
    replay must reproduce the file's observations, moves and candidates, else ``ConfigError`` (other settings than
    the file was made with). False if the file has them already."""
    with np.load(path, allow_pickle=False) as data:
        old = {k: data[k] for k in data.files}
    if "measures" in old:
        return False
    new = label_session(profile, num_players, seed, label_prob, max_candidates, rounds, rollouts=False)
    for k in ("prior", "cand", "obs"):
        if new[k].shape != old[k].shape or not np.array_equal(new[k], old[k]):
            raise ConfigError(f"{path}: replaying seed {seed} does not give the file's {k!r}: other settings?")
    old.update(measures=new["measures"], measure_names=new["measure_names"], step=new["step"])
    savez_atomic(path, **old)  # the file's own contents and what the replay added: rewriting it is the point
    return True


def pack(rows: dict[str, list[Any]], num_players: int, max_candidates: int) -> dict[str, np.ndarray]:
    """The collected rows as the module docstring's arrays (``cand`` / ``scores`` padded to ``max_candidates``), but
    the measures (``shards.measure_arrays``)."""
    n = len(rows["prior"])
    cand = np.full((n, max_candidates), -1, dtype=np.int64)
    scores = np.zeros((n, max_candidates, num_players), dtype=np.float32)
    for i, (c, s) in enumerate(zip(rows["cand"], rows["scores"])):
        cand[i, : len(c)] = c
        scores[i, : len(c)] = s
    out = {"cand": cand, "scores": scores}
    for k, dtype in (("obs", np.float32), ("mask", bool), ("prior", np.int64), ("seat", np.int16), ("round", np.int16),
                     ("step", np.int32)):
        out[k] = np.array(rows[k], dtype=dtype) if rows[k] else np.zeros((0,), dtype=dtype)
    return out


def _worker(args: argparse.Namespace, worker: int, deadline: float) -> None:
    def make(i: int) -> dict[str, np.ndarray]:
        return label_session(args.profile, args.num_players, session_seed(args.seed, i), args.label_prob,
                             args.max_candidates, args.rounds, args.coupling, args.horizon)  # fmt: skip

    def report(i: int, data: dict[str, np.ndarray], seconds: float) -> str:
        return f"session {i}: {len(data['prior'])} labels, {int((data['cand'] >= 0).sum())} rollouts, {seconds:.1f} s"

    write_sessions(Path(args.out), range(worker, args.sessions, args.workers), deadline, make,
                   None if args.quiet else report)  # fmt: skip


def _add_measures_all(args: argparse.Namespace) -> int:
    """``--add-measures``: every ``session_*.npz`` of ``--out`` without measures gets them (``add_measures``)."""
    files = sorted(Path(args.out).glob("session_*.npz"))
    if not files:
        print(f"error: no session_*.npz files in {args.out!r}", file=sys.stderr)
        return 2
    done = 0
    for f in files:
        i = session_index(f)
        try:
            done += add_measures(f, args.profile, args.num_players, session_seed(args.seed, i), args.label_prob,
                                 args.max_candidates, args.rounds)  # fmt: skip
        except ConfigError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    if not args.quiet:
        print(f"{done} of {len(files)} files given measures", flush=True)
    return 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (module docstring); bad values raise ``ConfigError``."""
    p = argparse.ArgumentParser(prog="python -m rummy_env.distill advantage-labels",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--profile", default="contract")
    p.add_argument("--num-players", type=int, default=4)
    p.add_argument("--out", required=True)
    p.add_argument("--sessions", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--label-prob", type=float, default=0.05, help="chance that a decision with a choice is labelled")
    p.add_argument("--max-candidates", type=int, default=24, help="candidate actions rolled out per decision")
    p.add_argument("--coupling", choices=("order", "seat"), default="order",
                   help="roll out on the true stock order, or on a fresh shuffle dealt into one queue per seat")
    p.add_argument("--horizon", type=int, default=0,
                   help="decisions a rollout plays before the hands' penalties score it (0: to the end of the round)")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument(
        "--rounds", type=int, nargs="+", default=None, help="contract profiles: these rounds only; continental: deals"
    )
    p.add_argument("--max-minutes", type=float, default=0.0, help="stop starting sessions after this (0: never)")
    p.add_argument("--quiet", action="store_true", help="no line per session")
    p.add_argument("--add-measures", action="store_true",
                   help="no labelling: give the files in --out that lack measures their measures (replays each session)")
    add_output_flags(p)
    args = p.parse_args(argv)
    problem = label_folder_problem(args.out, args.overwrite_shipped)
    if problem:
        raise ConfigError(f"--out {args.out!r} {problem}")
    if args.sessions < 1 or args.workers < 1:
        raise ConfigError(f"--sessions and --workers must be >= 1, got {args.sessions} and {args.workers}")
    if args.seed < 0:
        raise ConfigError(f"--seed must be >= 0, got {args.seed}")
    if not 0.0 < args.label_prob <= 1.0:
        raise ConfigError(f"--label-prob must be in (0, 1], got {args.label_prob}")
    if not 2 <= args.max_candidates <= 4096:
        raise ConfigError(f"--max-candidates must be in 2..4096, got {args.max_candidates}")
    if args.horizon < 0:
        raise ConfigError(f"--horizon must be >= 0 (0: to the end of the round), got {args.horizon}")
    if args.max_minutes < 0:
        raise ConfigError(f"--max-minutes must be >= 0, got {args.max_minutes}")
    check_table(args.profile, args.num_players, args.rounds)
    if args.horizon and not game(args.profile).lower_is_better:
        raise ConfigError(
            f"--horizon: {args.profile!r} scores payments, not penalties in hand; its rollouts play to the end of the "
            "deal (--horizon 0)"
        )
    return args


def main(argv: list[str] | None = None) -> int:
    """Label sessions until all are on disk or ``--max-minutes`` has passed."""
    args = cli_args(parse_args, argv)
    if args is None:
        return 2
    if args.add_measures:
        return _add_measures_all(args)
    return run_shard_workers(_worker, args)
