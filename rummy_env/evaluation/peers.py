"""Peer measurements for ``rummy bench --compare`` (``peer_bench``), run in the peers' virtual environment
(``benchmarks/setup_peers.sh``) as a script, by its path.

This file imports only the standard library at the top, and each peer library inside its own measurement, so it
runs in a Python that has none, some or all of them, and never imports ``rummy_env``; the package imports only its
loops (``aec_random_play``, ``session_play``), which the rows of ours share:

    .venv-peers/bin/python .../evaluation/peers.py probe
    .venv-peers/bin/python .../evaluation/peers.py measure pz_gin --seconds 5 --seed 0

``probe`` prints one JSON object: for each peer, its version or why it is unavailable. ``measure`` prints one
JSON object: decisions, sessions (hands), seconds, decisions/s, sessions/s (wall clock) and CPU seconds,
decisions per CPU-second of uniformly random legal play, seeded.
The loops are written for this benchmark from the peers' documented APIs; every loop does what a user's training
loop does at least: read the legal actions of the seat to move, pick one, apply it.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from typing import Any

#: peer id -> (the distribution whose version is reported, what the measurement is)
PEERS: dict[str, tuple[str, str]] = {
    "pz_gin": ("pettingzoo", "PettingZoo gin_rummy_v4 (AEC): last(), action mask, step"),
    "rlcard_gin": ("rlcard", "RLCard gin-rummy env (native): reset/step with its state dict each step"),
    "openspiel_gin_obs": ("open_spiel", "OpenSpiel gin_rummy (C++): legal actions + observation_tensor each decision"),
    "openspiel_gin": ("open_spiel", "OpenSpiel gin_rummy (C++): legal actions only"),
}

#: how often (in decisions) the loops look at the clock: rarely enough to cost nothing, often enough to stop on time
CLOCK_EVERY = 64


#: what a measurement loop returns: decisions, sessions finished, wall seconds, CPU seconds of this process
Loop = tuple[int, int, float, float]


class PeerUnavailable(RuntimeError):
    """A peer library that is missing or lacks what the benchmark measures (e.g. PettingZoo >= 1.27: no gin)."""


def _version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "unknown"


def _check_available(peer: str) -> str:
    """The peer's version, or ``PeerUnavailable`` saying what is missing."""
    dist = PEERS[peer][0]
    try:
        if peer == "pz_gin":
            from pettingzoo.classic import gin_rummy_v4  # noqa: F401  (removed in PettingZoo 1.27)
        elif peer == "rlcard_gin":
            import rlcard  # noqa: F401
        else:
            import pyspiel  # noqa: F401
    except ImportError as exc:
        raise PeerUnavailable(f"{peer}: {exc} (install with benchmarks/setup_peers.sh)") from exc
    return _version(dist)


def rates(result: Loop) -> dict[str, Any]:
    """The record of one measurement loop's result, the same keys for every row, ours and the peers'."""
    decisions, sessions, secs, cpu = result
    return {
        "decisions": decisions,
        "sessions": sessions,
        "seconds": round(secs, 3),
        "decisions_per_second": decisions / secs,
        "sessions_per_second": sessions / secs,
        # CPU time of this process over the same loop: what the loop cost, whatever else the core was doing
        "cpu_seconds": round(cpu, 3),
        "decisions_per_cpu_second": decisions / cpu if cpu > 0 else None,
    }


def session_play(seconds: float, new_session: Callable[[], Any], move: Callable[[Any], int]) -> Loop:
    """Play sessions for ``seconds``: ``new_session()`` starts one (its state), ``move(state)`` makes one move in it
    and returns 1 for a player's decision, 0 for a chance move, -1 when the session is over (nothing moved). The
    clock is read every ``CLOCK_EVERY`` decisions; a session cut by the deadline is not counted as finished."""
    decisions = sessions = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    deadline = start + seconds
    running = True
    while running:
        state = new_session()
        while True:
            moved = move(state)
            if moved < 0:
                sessions += 1
                break
            if moved:
                decisions += 1
                if decisions % CLOCK_EVERY == 0 and time.perf_counter() > deadline:
                    running = False
                    break
    return decisions, sessions, time.perf_counter() - start, time.process_time() - cpu_start


def aec_random_play(env: Any, seconds: float, seed: int) -> Loop:
    """Uniformly random legal play of a PettingZoo AEC ``env`` for ``seconds``, as a user's loop drives it:
    ``reset(seed=seed)`` once, ``reset()`` per session; ``last()``, the action mask, a random legal id, ``step``.
    The one loop of every AEC row, ours (``peer_bench``) and PettingZoo's gin alike, so they measure the same."""
    import numpy as np

    rng = random.Random(seed)
    env.reset(seed=seed)
    decisions = sessions = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    deadline = start + seconds
    running = True
    while running:
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            decisions += 1
            if decisions % CLOCK_EVERY == 0 and time.perf_counter() > deadline:
                running = False
                break
        else:
            sessions += 1
            env.reset()
    return decisions, sessions, time.perf_counter() - start, time.process_time() - cpu_start


def _pz_gin(seconds: float, seed: int) -> Loop:
    """PettingZoo ``gin_rummy_v4.env()`` (its standard wrappers) through ``aec_random_play`` (reseeding only once:
    a reset with a seed rebuilds PettingZoo's RLCard env, which no training loop does every hand)."""
    from pettingzoo.classic import gin_rummy_v4

    return aec_random_play(gin_rummy_v4.env(), seconds, seed)


def _rlcard_gin(seconds: float, seed: int) -> Loop:
    """RLCard's own env: ``rlcard.make("gin-rummy", config={"seed": seed})``; ``reset()`` / ``step(action_id)``,
    the legal ids from the state dict that every step returns."""
    import rlcard

    env = rlcard.make("gin-rummy", config={"seed": seed})
    rng = random.Random(seed)
    current: list[Any] = [None]  # the state dict of the seat to move

    def new_session() -> Any:
        current[0], _player = env.reset()
        return env

    def move(game: Any) -> int:
        if game.is_over():
            return -1
        legal = list(current[0]["legal_actions"])
        current[0], _player = game.step(legal[rng.randrange(len(legal))])
        return 1

    return session_play(seconds, new_session, move)


def _openspiel_gin(seconds: float, seed: int, observe: bool) -> Loop:
    """OpenSpiel ``pyspiel.load_game("gin_rummy")``: chance nodes (the deal) sampled from ``chance_outcomes()``
    with the same seeded generator, decisions from ``legal_actions()``; ``observe``: also the seat's
    ``observation_tensor`` at every decision. Only the players' moves count as decisions."""
    import pyspiel

    game = pyspiel.load_game("gin_rummy")
    rng = random.Random(seed)

    def move(state: Any) -> int:
        if state.is_terminal():
            return -1
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(actions, probs)[0])
            return 0
        legal = state.legal_actions()
        if observe:
            state.observation_tensor(state.current_player())
        state.apply_action(legal[rng.randrange(len(legal))])
        return 1

    return session_play(seconds, game.new_initial_state, move)


LOOPS: dict[str, Callable[[float, int], Loop]] = {
    "pz_gin": _pz_gin,
    "rlcard_gin": _rlcard_gin,
    "openspiel_gin_obs": lambda s, seed: _openspiel_gin(s, seed, observe=True),
    "openspiel_gin": lambda s, seed: _openspiel_gin(s, seed, observe=False),
}


def measure(peer: str, seconds: float, seed: int = 0, warmup: float = 0.0) -> dict[str, Any]:
    """Random legal play of ``peer`` for ``seconds`` (after ``warmup`` seconds of untimed play): the record that
    ``peer_bench`` reads. ``PeerUnavailable`` when the peer is not installed."""
    if peer not in PEERS:
        raise ValueError(f"unknown peer {peer!r}; allowed: {sorted(PEERS)}")
    if not 0 < seconds < float("inf") or not 0 <= warmup < float("inf"):
        raise ValueError(f"seconds={seconds!r}, warmup={warmup!r}: expected seconds > 0 and warmup >= 0, finite")
    version = _check_available(peer)
    loop = LOOPS[peer]
    if warmup > 0:
        loop(warmup, seed + 1_000_003)
    return {"id": peer, "what": PEERS[peer][1], "package": PEERS[peer][0], "version": version} | rates(
        loop(seconds, seed)
    )


def probe() -> dict[str, dict[str, Any]]:
    """For each peer: ``{"available": True, "version": ...}`` or ``{"available": False, "reason": ...}``."""
    out: dict[str, dict[str, Any]] = {}
    for peer in PEERS:
        try:
            out[peer] = {"available": True, "version": _check_available(peer)}
        except PeerUnavailable as exc:
            out[peer] = {"available": False, "reason": str(exc)}
    return out


def main(argv: list[str] | None = None) -> int:
    """``probe`` or ``measure PEER``: one JSON object on stdout (exit 3 when the peer is unavailable)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("probe", help="which peers are installed (JSON)")
    m = sub.add_parser("measure", help="measure one peer (JSON)")
    m.add_argument("peer", choices=sorted(PEERS))
    m.add_argument("--seconds", type=float, default=5.0)
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--warmup", type=float, default=0.0)
    args = parser.parse_args(argv)
    if args.cmd == "probe":
        print(json.dumps({"python": sys.version.split()[0], "peers": probe()}))
        return 0
    try:
        print(json.dumps(measure(args.peer, args.seconds, args.seed, args.warmup)))
    except PeerUnavailable as exc:
        print(json.dumps({"id": args.peer, "available": False, "reason": str(exc)}))
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
