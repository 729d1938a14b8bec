"""The one match runner: planned sessions played by seeded bots, results that depend only on the plans.

Tournaments (``rummy_env.evaluation.tournament``), ``rummy_env.evaluation.bots_eval`` and the training evaluations
(``rummy_env.evaluation.policy_eval``) all play their sessions here:

* **Plans.** A ``SessionPlan`` says who sits at each seat (an entrant index per seat), the env's reset seed, each
  seat's bot seed and, with duplicate deals, the seed of every later round. ``plan_sessions`` makes a tournament's
  blocks (tables x seat rotations, duplicate deal sets; see the tournament module); ``rotation_plans`` makes the
  simple rotation of ``bots_eval`` and training: session ``i`` dealt with seed ``seed * 100_000 + i``, entrant ``j``
  at seat ``(i + j) % n``, its bot seeded ``deal_seed * 10 + j``.
* **Duplicate deals.** With ``plan.duplicate`` every round after the first is redealt (``redeal``) from
  ``plan.round_seed(k)``, so the rotations of a deal set are dealt the same shoes although the engine's own
  generator also reshuffles the discard pile when the stock runs out (which depends on the play). Each deal's
  fingerprint (``deal_fingerprint``) goes into the record.
* **Runner.** ``MatchRunner`` keeps one env and one bot per (entrant, copy) -- an entrant that holds several seats
  of a session has one bot per seat -- and re-seeds every bot from the plan at the start of each session, so a
  session's record depends only on its plan.
* **Game logs.** ``MatchRunner(..., game_logs=True)`` records each session's game log (``rummy_env.replay``: the
  dealt states, every action with its seat and ``action_info``, the results) into its record's ``game_log``;
  ``play_sessions(..., game_log=callback)`` hands each log to ``callback`` as its session ends and returns the
  records without it (``rummy tournament --save-games``).
* **Pool.** ``play_sessions`` plays a list of plans in this process, in a pool of worker processes, or as Ray tasks
  (``rummy_env.integrations.ray_backend``) and returns the records in plan order: the same whatever the number of
  workers. Network bots compute with one torch thread.
* **Statistics.** ``mean_ci`` is the one confidence interval of every figure: a Student-t 95 % interval over
  independent clusters (deal sets, or sessions) with the ratio estimator of the standard error.

A session record (``MatchRunner.play``) is plain data: ``session``, ``deal_set``, ``table``, ``rotation``,
``deal_seed``, ``seats`` (entrant per seat), ``score`` (the profile's ``score_name``), ``round_scores`` (per round, per
seat), ``round_winners`` (per round: the seat that went out, else the seats with the best score), ``reasons``,
``totals``, ``winners`` (the session's), ``deals`` (fingerprints, duplicate deals only), ``decisions``, and
``EXTRA_FIELDS``: ``went_out`` (per round: the seat that went out, or None) and ``round_turns`` (turns played per
round).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import itertools
import json
import math
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import bots
from ..registry import Game, game
from .game_log import GameRecorder

#: the 97.5 % quantile of the standard normal distribution
Z975 = 1.959963984540054
#: exact 97.5 % Student-t quantiles for 1..5 degrees of freedom (the series below is poor there)
_T975_SMALL = {
    1: 12.706204736174707,
    2: 4.302652729749464,
    3: 3.182446305284263,
    4: 2.7764451051977987,
    5: 2.570581835636314,
}

#: where ``play_sessions`` plays: "local" here (this process or a pool of processes); every other backend is a
#: contrib layer above this module (``BACKEND_MODULES``) that registers its session runner (``register_backend``)
#: when it is imported, so this module never imports it
BACKENDS = ("local", "ray")
#: the module that registers each contrib backend, imported by name the first time the backend is asked for
BACKEND_MODULES = {"ray": "rummy_env.integrations.ray_backend"}
#: the optional package each contrib backend needs (checked before anything is played)
BACKEND_NEEDS = {"ray": "ray"}
#: backend name -> ``run(profile, num_players, entrants, env_config, plans, progress) -> records in plan order``
_BACKEND_RUNNERS: dict[str, Callable[..., list[dict[str, Any]]]] = {}
#: session ``i`` of a rotation match is dealt with seed ``seed * SESSION_SEED_STRIDE + i``
SESSION_SEED_STRIDE = 100_000
#: record fields beyond the tournament's JSON records (``tournament`` leaves them out of its results)
EXTRA_FIELDS = ("went_out", "round_turns")

#: an entrant: a bot id (``rummy_env.bots.load``) or a picklable zero-argument factory of a bot
Entrant = str | Callable[[], Any]


# ----------------------------------------------------------------------------------------------------------------
# Statistics
# ----------------------------------------------------------------------------------------------------------------


def t975(df: int) -> float:
    """The 97.5 % quantile of Student's t with ``df`` degrees of freedom (Abramowitz-Stegun 26.7.5 for df > 5)."""
    if df < 1:
        raise ValueError(f"df={df}: need at least one degree of freedom")
    if df in _T975_SMALL:
        return _T975_SMALL[df]
    z = Z975
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def mean_ci(clusters: Iterable[tuple[float, int]]) -> dict[str, Any]:
    """Mean of samples grouped in independent clusters ``(sum, count)``, with a 95 % Student-t interval (ratio
    estimator of the standard error): ``{"mean", "low", "high", "n" (samples), "clusters"}``.

    One sample per cluster (``(x, 1)``) is the plain t interval of independent samples. ``low``/``high`` are
    ``None`` with fewer than two clusters (no spread to measure); ``mean`` is ``None`` without samples.
    """
    clusters = [(float(s), int(m)) for s, m in clusters if m > 0]
    total = sum(m for _, m in clusters)
    if total == 0:
        return {"mean": None, "low": None, "high": None, "n": 0, "clusters": 0}
    mean = sum(s for s, _ in clusters) / total
    c = len(clusters)
    if c < 2:
        return {"mean": mean, "low": None, "high": None, "n": total, "clusters": c}
    resid = sum((s - mean * m) ** 2 for s, m in clusters)
    se = math.sqrt(c / (c - 1) * resid) / total
    half = t975(c - 1) * se
    return {"mean": mean, "low": mean - half, "high": mean + half, "n": total, "clusters": c}


def half_width(ci: dict[str, Any]) -> float:
    """The half-width of a ``mean_ci`` interval (NaN when it has none)."""
    return float("nan") if ci["low"] is None else (ci["high"] - ci["low"]) / 2


# ----------------------------------------------------------------------------------------------------------------
# Plans: tables, rotations, seeds
# ----------------------------------------------------------------------------------------------------------------


def table_design(num_entrants: int, num_players: int) -> list[tuple[int, ...]]:
    """The tables of one tournament block: each a sorted tuple of ``num_players`` entrant indices (see
    ``rummy_env.evaluation.tournament``)."""
    e, n = num_entrants, num_players
    if e < 1 or n < 1:
        raise ValueError(f"need at least one entrant and one seat, got {e} entrant(s) and {n} seat(s)")
    if e > n:
        return list(itertools.combinations(range(e), n))
    base, spare = divmod(n, e)
    if spare == 0:
        return [tuple(i for i in range(e) for _ in range(base))]
    tables = []
    for shift in range(e):
        extra = {(shift + j) % e for j in range(spare)}
        tables.append(tuple(sorted(i for i in range(e) for _ in range(base + (i in extra)))))
    return tables


def _seed_int(*words: int) -> int:
    """A 63-bit seed from a tuple of non-negative integers (numpy ``SeedSequence``: well mixed, platform-free)."""
    a, b = np.random.SeedSequence(list(words)).generate_state(2, np.uint32)
    return (int(a) << 31) ^ int(b)


# purposes mixed into the seeds so that the streams never collide
_DEAL, _ROUND, _BOT, _SEATING = 1, 2, 3, 4


@dataclass(frozen=True)
class SessionPlan:
    """One session of a match: who sits where and which shoes are dealt."""

    #: position in the match (results are merged in this order)
    index: int
    #: the deal set: sessions with the same deal set replay the same shoes (duplicate mode)
    deal_set: int
    #: the table of the design and the rotation (0..n-1) of its seating
    table: int
    rotation: int
    #: entrant index at each seat
    seats: tuple[int, ...]
    #: the env's reset seed (fixes the first deal) and the match seed (later deals and bot seeds)
    deal_seed: int
    seed: int
    duplicate: bool
    #: the bot seed of each seat; None: derived from the match seed (``bot_seed``)
    bot_seeds: tuple[int, ...] | None = None

    def round_seed(self, round_index: int) -> int:
        """Seed of the deal of round ``round_index`` (0-based, >= 1), shared by the rotations of the deal set."""
        key = self.deal_set if self.duplicate else self.index
        return _seed_int(self.seed, _ROUND, key, round_index)

    def bot_seed(self, seat: int) -> int:
        """Seed of the bot at ``seat`` for this session."""
        if self.bot_seeds is not None:
            return self.bot_seeds[seat]
        return _seed_int(self.seed, _BOT, self.index, seat)


def plan_sessions(
    num_entrants: int, num_players: int, sessions: int, seed: int = 0, duplicate: bool = True
) -> list[SessionPlan]:
    """The sessions of a tournament, ``sessions`` rounded up to whole blocks (tables x rotations)."""
    if sessions < 1:
        raise ValueError(f"sessions={sessions}: need at least one session")
    if seed < 0:
        raise ValueError(f"seed={seed}: seeds are non-negative integers")
    design = table_design(num_entrants, num_players)
    n = num_players
    block = len(design) * n
    blocks = -(-sessions // block)
    plans = []
    for b in range(blocks):
        for t, table in enumerate(design):
            rng = np.random.Generator(np.random.PCG64(_seed_int(seed, _SEATING, b, t)))
            # a seeded order of the distinct entrants, each one's seats side by side: the n rotations are then n
            # different seatings (an alternating A B A B would repeat itself after two)
            distinct = sorted(set(table))
            base = [distinct[i] for i in rng.permutation(len(distinct)) for _ in range(table.count(distinct[i]))]
            deal_set = b * len(design) + t
            for r in range(n):
                index = len(plans)
                key = (deal_set, 0) if duplicate else (index, 1)
                plans.append(
                    SessionPlan(
                        index=index,
                        deal_set=deal_set,
                        table=t,
                        rotation=r,
                        seats=tuple(base[(s - r) % n] for s in range(n)),
                        deal_seed=_seed_int(seed, _DEAL, *key),
                        seed=seed,
                        duplicate=duplicate,
                    )
                )
    return plans


def session_seed(seed: int, i: int) -> int:
    """Deal seed of session ``i`` of a rotation match seeded ``seed``."""
    return seed * SESSION_SEED_STRIDE + i


def rotation_plans(num_players: int, sessions: int, seed: int = 0, first_session: int = 0) -> list[SessionPlan]:
    """Sessions ``first_session ..`` of a rotation match of ``num_players`` entrants (one per seat): session ``i``
    is dealt with ``session_seed(seed, i)``, entrant ``j`` sits at seat ``(i + j) % n`` and its bot is seeded
    ``deal_seed * 10 + j``; no duplicate deals (every session its own shoes)."""
    if sessions < 0:
        raise ValueError(f"sessions={sessions!r}: need a count >= 0")
    n = num_players
    plans = []
    for i in range(first_session, first_session + sessions):
        deal = session_seed(seed, i)
        seats = tuple((s - i) % n for s in range(n))
        plans.append(
            SessionPlan(
                index=i,
                deal_set=i,
                table=0,
                rotation=i % n,
                seats=seats,
                deal_seed=deal,
                seed=seed,
                duplicate=False,
                bot_seeds=tuple(deal * 10 + e for e in seats),
            )
        )
    return plans


# ----------------------------------------------------------------------------------------------------------------
# Duplicate deals
# ----------------------------------------------------------------------------------------------------------------


def deal_fingerprint(state_json: dict[str, Any]) -> str:
    """A short hash of a deal: every hand, the discard pile and the stock order."""
    text = json.dumps([state_json["hands"], state_json["discard"], state_json["stock"]], separators=(",", ":"))
    return hashlib.sha1(text.encode()).hexdigest()[:16]


@functools.cache
def _numbered(profile: str) -> bool:
    g = game(profile)
    try:
        g.engine.check_session_length(g.base_rules, (1,))
    except ValueError:
        return False
    return True


def numbered_rounds(g: Game) -> bool:
    """Whether a session of ``g`` is a choice of numbered rounds, each dealt its own way (the Contract family: a
    contract per round; ``rounds=(1, 3)``), rather than a count of alike units (continental's deals: ``rounds=4``).
    The engine says so: it accepts a tuple of round numbers as the session length or not."""
    return _numbered(g.id)


def redeal(env: Any, seed: int) -> dict[str, Any]:
    """Replace the round just dealt in ``env`` by a deal from ``seed`` (same round, dealer, scores and generator);
    returns the scenario loaded. The deal is the one a fresh session of this round deals from ``seed`` (the
    registry's ``new_state``), turned so that the same hands go to the same seats relative to the dealer."""
    raw = env.unwrapped
    data = raw.game_state()
    g = raw.game
    rounds = (data["round"],) if numbered_rounds(g) else 1
    fresh = g.new_state(raw.rules, seed=seed, rounds=rounds).to_json()
    n = len(raw.possible_agents)
    shift = fresh["dealer"] - data["dealer"]
    data["hands"] = [fresh["hands"][(s + shift) % n] for s in range(n)]
    data["discard"], data["stock"] = fresh["discard"], fresh["stock"]
    env.reset(options={"scenario": data})
    return data


# ----------------------------------------------------------------------------------------------------------------
# Playing one session
# ----------------------------------------------------------------------------------------------------------------


def round_scores(res: dict[str, Any]) -> list[int]:
    """The per-seat scores of one round result: its ``penalties`` (Contract family) or ``payments`` (continental)."""
    return list(res["penalties"] if "penalties" in res else res["payments"])


class MatchRunner:
    """Plays planned sessions of one match: one raw env, one bot per (entrant, copy), reused between sessions.

    ``entrants`` are bot ids (``rummy_env.bots.load``) or zero-argument bot factories; ``num_players`` (None: the
    ``env_config``'s or the profile's default) and ``env_config`` make the env (``illegal_action="raise"`` unless
    given: a bot's illegal action is a bug to report, not a lost game). ``game_logs=True`` adds to every record
    the session's game log (``game_log``: ``rummy_env.replay``, ``docs/guides/watching.md``)."""

    def __init__(
        self,
        profile: str,
        num_players: int | None,
        entrants: Sequence[Entrant],
        env_config: dict[str, Any],
        game_logs: bool = False,
    ):
        self.profile = profile
        self.game_logs = game_logs
        self.game = game(profile)
        self.specs = list(entrants)
        config = {"illegal_action": "raise", **env_config}
        if num_players is not None:
            config["num_players"] = num_players
        self.env = self.game.make_env(wrapped=False, **config)
        self.num_players = len(self.env.possible_agents)
        self._bots: dict[tuple[int, int], Any] = {}

    def bot(self, entrant: int, copy: int, seed: int) -> Any:
        """The bot of ``entrant``'s ``copy``-th seat at the table, reset with ``seed`` (made once)."""
        key = (entrant, copy)
        b = self._bots.get(key)
        if b is None:
            spec = self.specs[entrant]
            if isinstance(spec, str):
                b = bots.load(spec, seed=seed)
            else:
                b = spec()
            self._bots[key] = b
        b.reset(seed)
        return b

    def _seat_bots(self, plan: SessionPlan) -> list[Any]:
        players = []
        for s, e in enumerate(plan.seats):
            players.append(self.bot(e, plan.seats[:s].count(e), plan.bot_seed(s)))
        return players

    def play(self, plan: SessionPlan, on_round_start: Callable[[Any, int], Any] | None = None) -> dict[str, Any]:
        """Play ``plan`` and return its record (module docstring); ``on_round_start(env, round_index)`` is called
        when each round has been dealt (after the redeal of duplicate deals)."""
        raw = self.env
        players = self._seat_bots(plan)
        raw.reset(seed=plan.deal_seed)
        deals = [deal_fingerprint(raw.game_state())] if plan.duplicate else []
        log = self._recorder()
        if log is not None:
            log.round_start(raw, 0)
        if on_round_start is not None:
            on_round_start(raw, 0)
        seen = decisions = 0
        turns: list[int] = []
        while not raw.session_over:
            agent = raw.agent_selection
            action = players[raw.agent_name_mapping[agent]].act(raw, agent)
            turn = raw.turn
            if log is not None:
                log.action(raw, agent, action)
            raw.step(action)
            decisions += 1
            if not raw.infos[agent]["round_over"]:
                continue
            done = len(raw.round_results)
            turns += [turn] * (done - seen)
            seen = done
            if raw.session_over:
                break
            if log is not None:
                log.round_over(raw)
            if plan.duplicate:
                deals.append(deal_fingerprint(redeal(raw, plan.round_seed(seen))))
            if log is not None:
                log.round_start(raw, seen)
            if on_round_start is not None:
                on_round_start(raw, seen)
        record = self._record(plan, deals, decisions, turns)
        if log is not None:
            record["game_log"] = log.finish(raw, plan)
        return record

    def _recorder(self) -> Any:
        """A game-log recorder for the next session (``rummy_env.evaluation.game_log.GameRecorder``), or None."""
        if not self.game_logs:
            return None
        return GameRecorder(self.profile, self.specs, self.env.rounds)

    def _record(self, plan: SessionPlan, deals: list[str], decisions: int, turns: list[int]) -> dict[str, Any]:
        results = self.env.results()
        rounds = results["round_results"]
        higher = not self.game.lower_is_better
        scores = [round_scores(r) for r in rounds]
        round_winners = []
        for r, sc in zip(rounds, scores):
            if r.get("winner") is not None:
                round_winners.append([r["winner"]])
            else:
                best = max(sc) if higher else min(sc)
                round_winners.append([s for s, v in enumerate(sc) if v == best])
        return {
            "session": plan.index,
            "deal_set": plan.deal_set,
            "table": plan.table,
            "rotation": plan.rotation,
            "deal_seed": plan.deal_seed,
            "seats": list(plan.seats),
            "score": self.game.score_name,
            "round_scores": scores,
            "round_winners": round_winners,
            "reasons": [r["reason"] for r in rounds],
            "totals": results["scores"],
            "winners": results["winners"],
            "deals": deals,
            "decisions": decisions,
            "went_out": [r.get("winner") for r in rounds],
            "round_turns": turns,
        }


# ----------------------------------------------------------------------------------------------------------------
# Playing many sessions: this process, a pool of processes, Ray
# ----------------------------------------------------------------------------------------------------------------


def single_thread_torch() -> None:
    """Network bots compute with one thread, so that results do not depend on how many processes share the CPUs
    (torch is not imported for bots that need none)."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)
    else:
        os.environ.setdefault("OMP_NUM_THREADS", "1")


class torch_threads:  # noqa: N801 - used as a context manager
    """Run with ``k`` torch threads if torch is loaded (network bots), restoring the count afterwards."""

    def __init__(self, k: int):
        self.k = k
        self.old: int | None = None

    def __enter__(self) -> None:
        torch = sys.modules.get("torch")
        if torch is not None:
            self.old = torch.get_num_threads()
            torch.set_num_threads(self.k)

    def __exit__(self, *exc: Any) -> None:
        torch = sys.modules.get("torch")
        if torch is not None and self.old is not None:
            torch.set_num_threads(self.old)


_WORKER: dict[str, Any] = {}


def _init_worker(
    profile: str, num_players: int | None, entrants: list[Entrant], env_config: dict[str, Any], game_logs: bool = False
) -> None:
    single_thread_torch()
    _WORKER["runner"] = MatchRunner(profile, num_players, entrants, env_config, game_logs=game_logs)


def _take_log(record: dict[str, Any], game_log: Callable[[dict[str, Any]], Any] | None) -> dict[str, Any]:
    """Hand a record's game log (if any) to ``game_log`` and return the record without it."""
    log = record.pop("game_log", None)
    if log is not None and game_log is not None:
        game_log(log)
    return record


def _run_plan(plan: SessionPlan) -> dict[str, Any]:
    return _WORKER["runner"].play(plan)


def play_sessions(
    profile: str,
    num_players: int | None,
    entrants: Sequence[Entrant],
    env_config: dict[str, Any],
    plans: Sequence[SessionPlan],
    workers: int = 1,
    backend: str = "local",
    progress: Callable[[int], Any] | None = None,
    start_method: str | None = None,
    game_log: Callable[[dict[str, Any]], Any] | None = None,
    backend_options: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The records of ``plans`` (``MatchRunner.play``), in plan order, whatever ``workers`` and ``backend``.

    ``workers > 1`` plays in a pool of processes (``start_method``: None is ``fork`` where the platform has it,
    else ``spawn``), each with its own runner; ``backend="ray"`` plays every plan as a Ray task (entrants must
    then be picklable). ``progress(k)`` is called as ``k`` more sessions are done. Bots compute torch with one thread.
    ``game_log(log)``, if given, is called in this process with each session's game log (``rummy_env.replay``) as
    its record arrives, in plan order (local backend only); the records returned carry no log.
    ``backend_options`` go to a contrib backend's runner as keywords (Ray: ``address``, ``runtime_env``); the local
    backend takes none.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend={backend!r}; available: {list(BACKENDS)}")
    if not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers={workers!r}: a positive integer")
    tick = progress if progress is not None else (lambda k: None)
    if backend == "ray" and game_log is not None:
        raise ValueError("game logs (game_log=, --save-games) are recorded with backend='local' only")
    options = dict(backend_options or {})
    if backend != "local":
        return backend_runner(backend)(profile, num_players, entrants, env_config, plans, tick, **options)
    if options:
        raise ValueError(f"backend options {sorted(options)} are for backend='ray'; the local backend takes none")
    if workers == 1 or len(plans) <= 1:
        runner = MatchRunner(profile, num_players, entrants, env_config, game_logs=game_log is not None)
        records = []
        with torch_threads(1):
            for plan in plans:
                records.append(_take_log(runner.play(plan), game_log))
                tick(1)
        return records
    return _play_in_pool(profile, num_players, entrants, env_config, plans, workers, tick, start_method, game_log)


def register_backend(name: str, run: Callable[..., list[dict[str, Any]]]) -> None:
    """Make ``run(profile, num_players, entrants, env_config, plans, progress, **options)`` (the records of ``plans``
    in plan order; ``options`` are ``play_sessions``' ``backend_options``) the session runner of ``play_sessions(..., backend=name)``; called by a contrib backend module when it is
    imported (``rummy_env.integrations.ray_backend``)."""
    _BACKEND_RUNNERS[name] = run


def backend_runner(name: str) -> Callable[..., list[dict[str, Any]]]:
    """The session runner registered for the contrib backend ``name``, its module (``BACKEND_MODULES``) imported by
    name if it has not registered yet; ``ValueError`` if it cannot be imported."""
    if importlib.util.find_spec(BACKEND_NEEDS.get(name, name)) is None:
        raise ValueError(f"backend={name!r} needs {BACKEND_NEEDS.get(name, name)}: pip install 'rummy_env[rllib]'")
    if name not in _BACKEND_RUNNERS:
        try:
            importlib.import_module(BACKEND_MODULES[name])  # the contrib module registers itself when imported
        except ImportError:
            raise ValueError(f"backend={name!r} needs ray: pip install 'rummy_env[rllib]'") from None
    return _BACKEND_RUNNERS[name]


def _play_in_pool(
    profile: str,
    num_players: int | None,
    entrants: Sequence[Entrant],
    env_config: dict[str, Any],
    plans: Sequence[SessionPlan],
    workers: int,
    tick: Callable[[int], Any],
    start_method: str | None,
    game_log: Callable[[dict[str, Any]], Any] | None = None,
) -> list[dict[str, Any]]:
    import multiprocessing

    # fork where the platform has it (no re-import of the caller's __main__); spawn elsewhere. The workers compute
    # torch with one thread (a forked OpenMP pool is unsafe) and load their own bots.
    if start_method is None:
        start_method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(start_method)
    initargs = (profile, num_players, list(entrants), dict(env_config), game_log is not None)
    pool = ctx.Pool(workers, initializer=_init_worker, initargs=initargs)
    records = []
    try:
        chunk = max(1, min(8, len(plans) // (workers * 8)))
        for rec in pool.imap(_run_plan, plans, chunksize=chunk):
            records.append(_take_log(rec, game_log))
            tick(1)
    finally:
        pool.terminate()
        pool.join()
    return records


__all__ = [
    "BACKENDS",
    "BACKEND_MODULES",
    "EXTRA_FIELDS",
    "MatchRunner",
    "SESSION_SEED_STRIDE",
    "SessionPlan",
    "backend_runner",
    "Z975",
    "deal_fingerprint",
    "half_width",
    "mean_ci",
    "numbered_rounds",
    "plan_sessions",
    "play_sessions",
    "redeal",
    "register_backend",
    "rotation_plans",
    "round_scores",
    "session_seed",
    "single_thread_torch",
    "t975",
    "table_design",
    "torch_threads",
]
