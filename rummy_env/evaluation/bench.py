"""Throughput and memory of the environments (``rummy bench``; ``docs/guides/performance.md`` says what each figure means).

``bench_engine``: random legal play on the bare engine, no observations.

``bench_env``: the PettingZoo AEC env driven the way peer benchmarks drive PettingZoo's classic envs (``env.last()``,
the action mask, a uniformly random legal action, ``env.step``). ``bench_vector_env``: ``rummy_env.vector.VectorEnv``
stepped with ``vec.random_actions`` (observations and masks of every table written every step). Both report
decisions/s, sessions/s, the time shares of their parts and the memory one table takes (``table_memory``).

``rummy bench`` prints each measurement as a row of a readable table (``BENCH_COLUMNS``, ``bench_row``, with
``bench_legend`` under it), or with ``--json`` the records themselves, one JSON line each. ``rummy bench --compare``
measures ours beside the peers' gin rummy instead (``rummy_env.evaluation.peer_bench``): the one benchmark entry
point is ``rummy bench``.
"""

from __future__ import annotations

import gc
import math
import os
import random
import time
import tracemalloc
from typing import Any

import numpy as np

import rummy_env

from ..core._impl import implementation
from ..encoding import fast
from ..engine import new_state
from ..vector import VectorEnv, random_legal_actions

#: random legal decisions played per table before its memory is read (a table in play, not just dealt)
MEMORY_STEPS = 100


def _check_seconds(seconds: float) -> None:
    if not seconds > 0 or seconds == float("inf"):
        raise ValueError(f"seconds={seconds!r}: expected a finite number of seconds > 0")


def bench_engine(profile: str, seconds: float, seed: int = 0) -> dict[str, Any]:
    """Random legal play on the bare engine: decisions/s, sessions/s, time share of legal-action generation."""
    if not 0 < seconds < math.inf:
        raise ValueError(f"seconds={seconds!r}: expected a finite number of seconds > 0")
    decisions = sessions = 0
    t_legal = 0.0
    start = time.perf_counter()
    i = 0
    while time.perf_counter() - start < seconds:
        state = new_state(profile, seed=seed + i)
        rng = random.Random(seed + i)
        i += 1
        while not state.is_terminal():
            t0 = time.perf_counter()
            legal = state.legal_actions()
            t_legal += time.perf_counter() - t0
            state.apply(legal[rng.randrange(len(legal))])
            decisions += 1
        sessions += 1
    secs = time.perf_counter() - start
    return {
        "profile": profile,
        "layer": "engine",
        "impl": implementation(),
        "decisions": decisions,
        "sessions": sessions,
        "seconds": round(secs, 2),
        "decisions_per_second": round(decisions / secs),
        "sessions_per_second": round(sessions / secs, 3),
        "legal_actions_time_share": round(t_legal / secs, 3),
    }


def bench_env(profile: str, seconds: float, seed: int = 0, memory: bool = True, **config: Any) -> dict[str, Any]:
    """Random legal play through the AEC API on one core: decisions/s, sessions/s and the time share of masks
    (legal-action listing included) and observations (as the env's ``observe`` writes them); ``memory``: also the
    bytes one AEC env takes (``table_memory``: ``memory_per_table_bytes``, ``memory_peak_bytes``)."""
    _check_seconds(seconds)
    env = rummy_env.make(profile, **config)
    raw = env.unwrapped
    rng = random.Random(seed)
    decisions = sessions = 0
    t_mask = t_obs = 0.0
    mask_fn = raw.action_mask
    # measure the shares of masks and observations in the env's own observe (the mask first, which lists the legal
    # actions, then the observation: ``observer.encode_state``, straight from the state): observe timed whole, the
    # mask inside it timed apart
    orig_observe = raw.observe

    def timed_mask(agent: str) -> Any:
        nonlocal t_mask
        t0 = time.perf_counter()
        mask = mask_fn(agent)
        t_mask += time.perf_counter() - t0
        return mask

    def timed_observe(agent: str) -> dict[str, Any]:
        nonlocal t_obs
        t0, mask_before = time.perf_counter(), t_mask
        out = orig_observe(agent)
        t_obs += time.perf_counter() - t0 - (t_mask - mask_before)
        return out

    raw.action_mask = timed_mask  # type: ignore[method-assign]
    raw.observe = timed_observe  # type: ignore[method-assign]
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed + sessions)
        for _agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            decisions += 1
        sessions += 1
    secs = time.perf_counter() - start
    raw.observe = orig_observe  # type: ignore[method-assign]
    del raw.action_mask  # the instance attribute: the method again
    res = {
        "profile": profile,
        "layer": "pettingzoo_aec",
        "impl": rummy_env.implementation(),
        "decisions": decisions,
        "sessions": sessions,
        "seconds": round(secs, 2),
        "decisions_per_second": round(decisions / secs),
        "sessions_per_second": round(sessions / secs, 3),
        "mask_time_share": round(t_mask / secs, 3),
        "observation_time_share": round(t_obs / secs, 3),
    }
    if memory:
        res.update(table_memory(profile, None, seed, **config))
    return res


def _random_vector_play(
    vec: VectorEnv, rng: np.random.Generator, seconds: float
) -> tuple[int, int, float, float, float]:
    """Random legal steps of ``vec`` (``vec.random_actions(rng)``) for ``seconds``: (steps, sessions finished, time
    inside ``vec.step``, time sampling the actions, seconds elapsed)."""
    steps = sessions = 0
    t_step = t_sample = 0.0
    perf = time.perf_counter
    start = perf()
    while perf() - start < seconds:
        t0 = perf()
        actions = vec.random_actions(rng)
        t1 = perf()
        _obs, _mask, _seat, _rewards, done = vec.step(actions)
        t2 = perf()
        t_sample += t1 - t0
        t_step += t2 - t1
        steps += 1
        sessions += int(np.count_nonzero(done))
    return steps, sessions, t_step, t_sample, perf() - start


def bench_vector_env(profile: str, num_envs: int, seconds: float, seed: int = 0, memory: bool = True,
                     **config: Any) -> dict[str, Any]:
    """Random legal play through ``VectorEnv(profile, num_envs, seed=seed, **config)`` for ``seconds``, one core.

    The keys of ``rummy_env.vector.bench_vector`` (``decisions_per_second``: actions applied, all tables together;
    ``sessions_per_second``: sessions finished, all tables together; ``layer`` = ``"vector"``) and the time shares
    of the loop's parts: ``step_time_share`` (inside ``vec.step``: engine, legal actions, masks, observations,
    rewards, auto-reset), of it ``observation_time_share`` (the observer's fast path ``rummy_env.encoding.fast``,
    or its ``encode``, every table every step; None if this VectorEnv goes through neither), and
    ``sampling_time_share`` (``vec.random_actions``, the same actions as ``random_legal_actions(mask, rng)``).
    ``memory``: also the bytes per table (``table_memory``).
    """
    _check_seconds(seconds)
    vec = VectorEnv(profile, num_envs, seed=seed, **config)
    rng = np.random.default_rng(seed)
    t_obs = 0.0
    n_obs = 0
    observer = vec.observer
    encode = observer.encode

    def timed_encode(*args: Any, **kwargs: Any) -> Any:
        nonlocal t_obs, n_obs
        t0 = time.perf_counter()
        out = encode(*args, **kwargs)
        t_obs += time.perf_counter() - t0
        n_obs += 1
        return out

    observer.encode = timed_encode  # an instance attribute: the class and every other observer stay as they are
    # the observers' fast path (``rummy_env.encoding.fast``, which ``VectorEnv._write_all`` looks up by name on each
    # call): timed for every table, and restored after
    fast_name = getattr(vec, "_fast_name", None)
    fast_fn = getattr(fast, fast_name) if fast_name else None

    def timed_fast(*args: Any) -> None:
        nonlocal t_obs, n_obs
        t0 = time.perf_counter()
        fast_fn(*args)  # type: ignore[misc]
        t_obs += time.perf_counter() - t0
        n_obs += 1

    if fast_fn is not None:
        setattr(fast, fast_name, timed_fast)  # type: ignore[arg-type]
    try:
        _obs, _mask, _seat = vec.reset()
        t_obs, n_obs = 0.0, 0  # the deal is not part of the timed loop
        steps, sessions, t_step, t_sample, secs = _random_vector_play(vec, rng, seconds)
    finally:
        del observer.encode
        if fast_fn is not None:
            setattr(fast, fast_name, fast_fn)  # type: ignore[arg-type]
    decisions = steps * vec.num_envs
    res: dict[str, Any] = {
        "profile": profile,
        "layer": "vector",
        "num_envs": vec.num_envs,
        "decisions": decisions,
        "sessions": sessions,
        "seconds": round(secs, 2),
        "decisions_per_second": round(decisions / secs),
        "sessions_per_second": round(sessions / secs, 3),
        "step_time_share": round(t_step / secs, 3),
        "observation_time_share": round(t_obs / secs, 3) if n_obs else None,
        "sampling_time_share": round(t_sample / secs, 3),
    }
    if memory:
        res.update(table_memory(profile, vec.num_envs, seed, **config))
    return res


def _rss_bytes() -> int | None:
    """This process's resident set size (Linux ``/proc/self/statm``), None elsewhere."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def _play_aec(env: Any, seed: int, steps: int) -> None:
    rng = random.Random(seed)
    env.reset(seed=seed)
    for _ in range(steps):
        if env.unwrapped.session_over:
            env.reset()
        obs, _r, term, trunc, _i = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))


def _play_vector(vec: Any, seed: int, steps: int) -> None:
    rng = np.random.default_rng(seed)
    _obs, mask, _seat = vec.reset()
    for _ in range(steps):
        _obs, mask, _seat, _r, _d = vec.step(random_legal_actions(mask, rng))


def table_memory(profile: str, num_envs: int | None = None, seed: int = 0, steps: int = MEMORY_STEPS,
                 **config: Any) -> dict[str, Any]:
    """The memory one table takes, after ``steps`` random legal decisions per table (a table in play).

    ``num_envs=None``: one AEC env (``rummy_env.make``); else a ``VectorEnv`` of ``num_envs`` tables, divided by
    ``num_envs`` (its arrays and per-table states; what the tables share, such as the action layout, spread over
    them). Measured with ``tracemalloc`` (every Python and NumPy allocation the env keeps; caches filled by a
    first, discarded env are not counted): ``memory_per_table_bytes`` and ``memory_peak_bytes`` (the most traced
    at once while building and playing, whole env). For a VectorEnv also ``rss_delta_per_table_bytes``: the
    growth of the process's resident memory per table (coarse: pages, allocator reuse; None off Linux).
    """
    def build() -> Any:
        if num_envs is None:
            env = rummy_env.make(profile, **config)
            _play_aec(env, seed, steps)
        else:
            env = VectorEnv(profile, num_envs, seed=seed, **config)
            _play_vector(env, seed, steps)
        return env

    # a first env fills the module-level caches (catalogs, layouts) that every later env shares; it stays alive
    # while the RSS is read, so that the measured env cannot reuse its pages
    warm = build()
    rss_per_table = None
    if num_envs is not None:
        gc.collect()
        rss0 = _rss_bytes()
        env = build()
        gc.collect()
        rss1 = _rss_bytes()
        del env
        if rss0 is not None and rss1 is not None:
            rss_per_table = max(rss1 - rss0, 0) // num_envs
    del warm
    gc.collect()
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    try:
        env = build()
        gc.collect()
        current, peak = tracemalloc.get_traced_memory()
    finally:
        if not was_tracing:
            tracemalloc.stop()
    del env
    tables = num_envs or 1
    out: dict[str, Any] = {
        "memory_per_table_bytes": max(current - base, 0) // tables,
        "memory_peak_bytes": max(peak - base, 0),
        "memory_method": "tracemalloc",
        "memory_after_decisions": steps,
    }
    if num_envs is not None:
        out["rss_delta_per_table_bytes"] = rss_per_table
    return out


#: the columns of ``rummy bench``'s table: (header, width); the first two are left-aligned
BENCH_COLUMNS = (("profile", 18), ("layer", 14), ("decisions/s", 11), ("sessions/s", 10), ("memory/table", 12),
                 ("vs AEC", 6), ("time shares", 0))  # fmt: skip
#: the time shares each layer reports, in the table's words (the legend spells them out)
_SHARES = (
    ("legal_actions_time_share", "legal"),
    ("mask_time_share", "mask"),
    ("step_time_share", "step"),
    ("observation_time_share", "obs"),
    ("sampling_time_share", "sampling"),
)


def _cells(texts: list[str]) -> str:
    out = []
    for k, (text, (_, width)) in enumerate(zip(texts, BENCH_COLUMNS)):
        out.append(f"{text:<{width}}" if k < 2 or not width else f"{text:>{width}}")
    return "  ".join(out).rstrip()


def bench_header() -> str:
    """The header line of ``rummy bench``'s table."""
    return _cells([h for h, _ in BENCH_COLUMNS])


def _bytes(n: int | None) -> str:
    if n is None:
        return "-"
    return f"{n / 1024:,.1f} KB" if n < 1024**2 else f"{n / 1024**2:,.2f} MB"


def bench_row(res: dict[str, Any]) -> str:
    """One measurement (a record of ``bench_engine``, ``bench_env`` or ``bench_vector_env``) as a table row."""
    layer = res["layer"] + (f" ({res['num_envs']})" if "num_envs" in res else "")
    ratio = res.get("ratio_to_aec")
    shares = ", ".join(f"{word} {res[key]:.0%}" for key, word in _SHARES if res.get(key) is not None)
    return _cells([
        res["profile"], layer, f"{res['decisions_per_second']:,}",
        f"{res['sessions_per_second']:,.2f}", _bytes(res.get("memory_per_table_bytes")),
        "-" if ratio is None else f"{ratio:.2f}x", shares or "-",
    ])  # fmt: skip


def bench_legend(seconds: float, impl: str) -> list[str]:
    """The lines under ``rummy bench``'s table: what the columns mean; ``impl``: the implementation measured."""
    return [
        f"each row: random legal play for {seconds:g} s on one core, by wall clock, {impl} implementation "
        "(rummy_env.implementation()). decisions/s: actions applied, all tables together; sessions/s: sessions "
        f"finished; memory/table: what one table keeps (tracemalloc, after {MEMORY_STEPS} decisions per table); "
        "vs AEC: the VectorEnv's decisions/s over the AEC env's of this run (the ratio holds across machines, the "
        "absolute figures do not); time shares: legal = legal-action listing, mask = action masks, step = "
        "vec.step, obs = observations, sampling = drawing the random actions.",
        "layers: engine = the bare rules engine; pettingzoo_aec = the PettingZoo AEC env (last(), mask, step); "
        "vector (N) = rummy_env.vector.VectorEnv of N tables. docs/guides/performance.md explains every figure; --json "
        "prints the records.",
    ]


__all__ = [
    "BENCH_COLUMNS",
    "MEMORY_STEPS",
    "bench_env",
    "bench_header",
    "bench_legend",
    "bench_row",
    "bench_vector_env",
    "table_memory",
]
