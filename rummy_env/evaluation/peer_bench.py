"""``rummy bench --compare``: random legal play, one core, ours next to the peers' gin rummy, measured in ONE run
(docs/guides/performance.md).

    rummy bench --compare                                  # peers from .venv-peers (benchmarks/setup_peers.sh)
    rummy bench --compare --seconds 2 --repeats 3 --only contract_aec,pz_gin

Rows: PettingZoo 1.26.1 ``gin_rummy_v4`` (AEC), RLCard gin rummy (native), OpenSpiel gin rummy with an observation
tensor each decision and without (the peers, run by ``rummy_env/evaluation/peers.py`` in the peers' Python as
subprocesses); every profile's AEC env (``rummy_env.make``), its bare engine (``rummy_env.engine.new_state``) and
``rummy_env.vector.VectorEnv`` with observations and masks written every step (ours, in this process). The
measurements alternate between ours and the peers' within every repeat (and the order is reversed every other
repeat), so each ratio compares figures taken under the same load; the table gives the median over the repeats
of decisions/s and of the per-repeat ratio to PettingZoo's gin. Writes a JSON file and a markdown table
(atomically). A peer that is not installed is reported as such; the others are still measured.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__, make
from ..core.files import write_text_atomic
from ..engine import new_state
from ..vector import VectorEnv
from .peers import Loop, aec_random_play, rates, session_play

#: the peers' script: standard library only, run by the peers' Python by its path
PEERS_SCRIPT = Path(__file__).resolve().with_name("peers.py")
#: the source checkout this module lives in (its git commit is recorded), when it is one
ROOT = Path(__file__).resolve().parents[2]
#: where the peers' venv and the results go by default, relative to the working directory (the repository root)
DEFAULT_PEERS_PYTHON = Path(".venv-peers") / "bin" / "python"
RESULTS = Path("benchmarks") / "results"

#: the reference of every ratio
REFERENCE = "pz_gin"

#: peer rows, in table order: id -> label (the measurement itself is in peers.py)
PEER_ROWS: dict[str, str] = {
    "pz_gin": "PettingZoo `gin_rummy_v4` (AEC)",
    "rlcard_gin": "RLCard gin rummy (native)",
    "openspiel_gin_obs": "OpenSpiel gin rummy, C++, with an observation tensor each decision",
    "openspiel_gin": "OpenSpiel gin rummy, C++, no observations",
}

#: our profiles as measured: profile -> (what the label adds, config passed to make / VectorEnv / new_state)
PROFILES: dict[str, tuple[str, dict[str, Any]]] = {
    "contract": ("", {}),
    "contract_gamerules": (", 4 players", {"num_players": 4}),
    "continental": (", 4 players", {"num_players": 4}),
}


class BenchmarkArgumentError(ValueError):
    """A bad argument of ``rummy bench --compare`` (a row id, a CPU, a path)."""


# --- our measurement loops ----------------------------------------------------------------------------------------
def _aec(profile: str, config: dict[str, Any], seconds: float, seed: int, num_envs: int) -> Loop:
    """The AEC env as a PettingZoo user drives it: ``peers.aec_random_play``, the loop of the PettingZoo gin row."""
    return aec_random_play(make(profile, **config), seconds, seed)


def _engine(profile: str, config: dict[str, Any], seconds: float, seed: int, num_envs: int) -> Loop:
    """The bare engine, no observations: ``new_state(profile, seed=seed + i)`` per session, ``legal_actions()``,
    a uniformly random one, ``apply`` (``peers.session_play``, the driver of the RLCard and OpenSpiel rows)."""
    rng = random.Random(seed)
    started = iter(range(seed, seed + 10**9))

    def move(state: Any) -> int:
        if state.is_terminal():
            return -1
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
        return 1

    return session_play(seconds, lambda: new_state(profile, seed=next(started), **config), move)


def _vector(profile: str, config: dict[str, Any], seconds: float, seed: int, num_envs: int) -> Loop:
    """``VectorEnv(profile, num_envs, seed=seed)``: every step applies one decision at each table and writes every
    table's observation and mask; actions from ``vec.random_actions(np.random.default_rng(seed))`` (the same actions as
    ``random_legal_actions(mask, rng)``, read from the tables' legal lists instead of a scan of the whole mask)."""
    vec = VectorEnv(profile, num_envs, seed=seed, **config)
    rng = np.random.default_rng(seed)
    _obs, _mask, _seat = vec.reset()
    steps = sessions = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        _obs, _mask, _seat, _rewards, done = vec.step(vec.random_actions(rng))
        steps += 1
        sessions += int(np.count_nonzero(done))
    return steps * vec.num_envs, sessions, time.perf_counter() - start, time.process_time() - cpu_start


#: layer -> (label template, measurement loop)
LAYERS: dict[str, tuple[str, Callable[..., Loop]]] = {
    "aec": ("`{p}_v0` AEC{players}", _aec),
    "engine": ("{p} engine only{players} (no observations)", _engine),
    "vector": ("`VectorEnv` {p}{players}, {n} tables, observations + masks every step", _vector),
}


def our_rows(num_envs: int) -> dict[str, str]:
    """Our row ids (``<profile>_<layer>``) -> labels, in table order (AEC, engine, vector)."""
    rows = {}
    for layer, (what, _fn) in LAYERS.items():
        for profile, (players, _config) in PROFILES.items():
            rows[f"{profile}_{layer}"] = what.format(p=profile, players=players, n=num_envs)
    return rows


def measure_ours(row: str, seconds: float, seed: int, warmup: float, num_envs: int) -> dict[str, Any]:
    """One measurement of our row ``row`` (after ``warmup`` seconds of untimed play on a fresh env)."""
    profile, layer = row.rsplit("_", 1)
    _label, config = PROFILES[profile]
    fn = LAYERS[layer][1]
    if warmup > 0:
        fn(profile, config, warmup, seed + 1_000_003, num_envs)
    return rates(fn(profile, config, seconds, seed, num_envs))


# --- peers (subprocesses in the peers' Python) --------------------------------------------------------------------
def probe_peers(peers_python: Path) -> tuple[dict[str, dict[str, Any]], str | None]:
    """Which peers the peers' Python has: ``({peer: {"available": ..., "version" | "reason": ...}}, None)``, or
    every peer unavailable and the reason (no such Python, or the probe failed)."""
    if not peers_python.exists():
        reason = (
            f"no peers Python at {peers_python}: create it with `bash benchmarks/setup_peers.sh` or pass "
            "--peers-python PATH"
        )
        return {p: {"available": False, "reason": reason} for p in PEER_ROWS}, reason
    try:
        out = subprocess.run(
            [str(peers_python), str(PEERS_SCRIPT), "probe"],
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
            env=_one_thread_env(),
        )
        found = json.loads(out.stdout.strip().splitlines()[-1])["peers"]
    except (OSError, subprocess.SubprocessError, ValueError, KeyError, IndexError) as exc:
        reason = f"probing the peers with {peers_python} failed: {exc}"
        return {p: {"available": False, "reason": reason} for p in PEER_ROWS}, reason
    return found, None


def _one_thread_env() -> dict[str, str]:
    """The environment of a peer subprocess: no BLAS / OpenMP thread pools (one core)."""
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(var, "1")
    return env


def measure_peer(peers_python: Path, peer: str, seconds: float, seed: int, warmup: float) -> dict[str, Any]:
    """One measurement of ``peer`` in a subprocess (timed inside it: its start-up and imports are not counted);
    ``{"error": ...}`` if it failed."""
    cmd = [
        str(peers_python),
        str(PEERS_SCRIPT),
        "measure",
        peer,
        "--seconds",
        repr(seconds),
        "--seed",
        str(seed),
        "--warmup",
        repr(warmup),
    ]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + warmup + 300, env=_one_thread_env())
        rec = json.loads(out.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError) as exc:
        return {"error": f"{peer}: {exc}"}
    if out.returncode != 0 or "decisions_per_second" not in rec:
        return {"error": rec.get("reason") or f"{peer}: exit {out.returncode}: {out.stderr.strip()[-500:]}"}
    return rec


# --- the run -----------------------------------------------------------------------------------------------------
def schedule(ours: list[str], peers: list[str], repeat: int) -> list[str]:
    """The order of one repeat: the peers spread evenly among ours (ours, peer, ours, ...), reversed on odd
    repeats so that no row always runs first or last."""
    keyed = [((i + 0.5) / len(ours), 0, r) for i, r in enumerate(ours)]
    keyed += [((i + 0.5) / len(peers), 1, r) for i, r in enumerate(peers)]
    order = [r for _k, _side, r in sorted(keyed)]
    return order[::-1] if repeat % 2 else order


def _pin(cpu: int | None) -> int | None:
    """Pin this process (and so its subprocesses) to one CPU: ``cpu``, or the first one allowed; None where the
    platform cannot pin."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    allowed = sorted(os.sched_getaffinity(0))
    if cpu is None:
        cpu = allowed[0]
    if cpu not in allowed:
        raise BenchmarkArgumentError(f"--cpu {cpu}: this process may run on CPUs {allowed}")
    os.sched_setaffinity(0, {cpu})
    return cpu


def _uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def machine_description(note: str | None) -> dict[str, Any]:
    """What the figures were measured on: CPU model, cores, memory, OS, Python, and ``note`` (e.g. "shared")."""
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gib = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_gib = round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": mem_gib,
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "note": note,
    }


def _git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return (out.stdout.strip() + ("+dirty" if dirty else "")) if out.returncode == 0 else None


def _fmt_int(x: float | None) -> str:
    return "" if x is None else f"{x:,.0f}"


def _fmt_ratio(x: float | None) -> str:
    if x is None:
        return ""
    return f"{x:.1f}" if x >= 10 else f"{x:.2f}"


def markdown_table(result: dict[str, Any]) -> str:
    """The markdown table of a result: decisions/s and ÷ PettingZoo gin, by wall clock and by the process's CPU
    time (medians over the repeats), sessions/s."""
    s = result["settings"]
    lines = [
        "| | decisions/s | ÷ PettingZoo gin | decisions/CPU-s | ÷ PettingZoo gin, CPU time | sessions/s |",
        "|---|---|---|---|---|---|",
    ]
    for row in result["rows"]:
        if not row["available"]:
            lines.append(f"| {row['label']} | not measured: {row['reason']} | | | | |")
            continue
        sps = row["sessions_per_second"]
        lines.append(
            f"| {row['label']} | {_fmt_int(row['decisions_per_second'])} | "
            f"{_fmt_ratio(row['ratio_to_pz_gin'])} | {_fmt_int(row['decisions_per_cpu_second'])} | "
            f"{_fmt_ratio(row['cpu_ratio_to_pz_gin'])} | {sps:,.2f} |"
        )
    load = result["load"]
    lines += [
        "",
        f"Random legal play (seed {s['seed']}), one core (CPU {s['cpu']}), median of {s['repeats']} repeats of "
        f"{s['seconds']} s per row (after {s['warmup']} s of warm-up), ours and the peers alternating. "
        f"Machine: {result['machine']['cpu']}, {result['machine']['cores']} cores"
        + (f" ({result['machine']['note']})" if result["machine"].get("note") else "")
        + f"; load average before {load['before']}, after {load['after']}. {result['date_utc']}.",
    ]
    if result["rows"] and all(r["ratio_to_pz_gin"] is None for r in result["rows"]):
        lines.append("")
        lines.append("PettingZoo's gin_rummy_v4 was not measured, so there are no ratios.")
    return "\n".join(lines) + "\n"


#: what a row keeps of each of its runs
RUN_KEYS = (
    "repeat",
    "decisions",
    "sessions",
    "seconds",
    "decisions_per_second",
    "sessions_per_second",
    "cpu_seconds",
    "decisions_per_cpu_second",
)


def _ratios(runs: list[dict[str, Any]], ref: list[dict[str, Any]], key: str) -> list[float]:
    """Per repeat: ``runs[i][key]`` over the reference's ``key`` of the same repeat (where both were measured)."""
    ref_of = {g["repeat"]: g.get(key) for g in ref}
    return [r[key] / ref_of[r["repeat"]] for r in runs if r.get(key) and ref_of.get(r["repeat"])]


def _select(args: argparse.Namespace) -> tuple[list[str], list[str], dict[str, dict[str, Any]]]:
    """The selected peer rows and our rows (``--only``, ``--profile``) and what the probe found of the peers."""
    ours_all = our_rows(args.num_envs)
    selected = set(args.only) if args.only else set(PEER_ROWS) | set(ours_all)
    unknown = selected - set(PEER_ROWS) - set(ours_all)
    if unknown:
        raise BenchmarkArgumentError(
            f"--only {sorted(unknown)}: unknown rows; allowed: {list(PEER_ROWS) + list(ours_all)}"
        )
    profiles = getattr(args, "profiles", None)
    peers_sel = [p for p in PEER_ROWS if p in selected]
    ours = [r for r in ours_all if r in selected and (not profiles or r.rsplit("_", 1)[0] in profiles)]
    found: dict[str, dict[str, Any]] = {}
    if peers_sel and args.no_peers:
        found = {p: {"available": False, "reason": "--no-peers"} for p in peers_sel}
    elif peers_sel:
        found, why = probe_peers(Path(args.peers_python))
        if why:
            _say(f"peers: {why}; measuring ours only")
    for p in peers_sel:
        if not found.get(p, {}).get("available"):
            _say(f"{p}: not installed ({found.get(p, {}).get('reason', 'unknown')}); continuing with the others")
    return peers_sel, ours, found


def _measure_all(args: argparse.Namespace, ours: list[str], peers: list[str]) -> tuple[dict, dict, list]:
    """Every row ``args.repeats`` times in the alternating order (``schedule``): the runs per row, the errors per
    row, the order of each repeat."""
    runs: dict[str, list[dict[str, Any]]] = {r: [] for r in peers + ours}
    errors: dict[str, str] = {}
    orders = []
    for rep in range(args.repeats):
        order = schedule(ours, peers, rep)
        orders.append(order)
        for row in order:
            if row in PEER_ROWS:
                rec = measure_peer(Path(args.peers_python), row, args.seconds, args.seed, args.warmup)
            else:
                try:
                    rec = measure_ours(row, args.seconds, args.seed, args.warmup, args.num_envs)
                except Exception as exc:  # noqa: BLE001 - one broken row must not lose the others' figures
                    rec = {"error": f"{row}: {type(exc).__name__}: {exc}"}
            rec["repeat"] = rep
            if "error" in rec:
                errors[row] = rec["error"]
                _say(f"[{rep + 1}/{args.repeats}] {row}: FAILED {rec['error']}")
                continue
            runs[row].append(rec)
            _say(f"[{rep + 1}/{args.repeats}] {row}: {rec['decisions_per_second']:,.0f} decisions/s")
    return runs, errors, orders


def _row_entry(row: str, label: str, rs: list[dict[str, Any]], ref: list[dict[str, Any]], found: dict[str, Any],
               errors: dict[str, str]) -> dict[str, Any]:  # fmt: skip
    """A row of the result: its runs and medians, its ratios to the reference in the same repeat."""
    entry: dict[str, Any] = {"id": row, "label": label, "kind": "peer" if row in PEER_ROWS else "ours"}
    if row in PEER_ROWS:
        entry["package_version"] = found.get(row, {}).get("version")
    if not rs:
        entry.update(available=False, reason=errors.get(row) or found.get(row, {}).get("reason", "not measured"),
                     runs=[], decisions_per_second=None, sessions_per_second=None, ratios_to_pz_gin=[],
                     ratio_to_pz_gin=None, decisions_per_cpu_second=None, cpu_ratios_to_pz_gin=[],
                     cpu_ratio_to_pz_gin=None)  # fmt: skip
        return entry
    # a row's ratio in a repeat: to the reference measured in the same round of the alternation
    ratios = _ratios(rs, ref, "decisions_per_second")
    cpu_ratios = _ratios(rs, ref, "decisions_per_cpu_second")
    cpu_rates = [r["decisions_per_cpu_second"] for r in rs if r.get("decisions_per_cpu_second")]
    entry.update(
        available=True,
        runs=[{k: v for k, v in r.items() if k in RUN_KEYS} for r in rs],
        decisions_per_second=statistics.median(r["decisions_per_second"] for r in rs),
        sessions_per_second=statistics.median(r["sessions_per_second"] for r in rs),
        ratios_to_pz_gin=ratios,
        ratio_to_pz_gin=statistics.median(ratios) if ratios else None,
        decisions_per_cpu_second=statistics.median(cpu_rates) if cpu_rates else None,
        cpu_ratios_to_pz_gin=cpu_ratios,
        cpu_ratio_to_pz_gin=statistics.median(cpu_ratios) if cpu_ratios else None,
    )
    return entry


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Measure every selected row ``args.repeats`` times, alternating ours and the peers; the result dict.
    ``args``: ``seconds``, ``repeats``, ``warmup``, ``seed``, ``num_envs``, ``peers_python``, ``no_peers``,
    ``only`` (row ids or None), ``profiles`` (ours of these profiles only, or None), ``cpu``, ``no_pin``,
    ``machine_note``."""
    peers_sel, ours, found = _select(args)
    peers = [p for p in peers_sel if found.get(p, {}).get("available")]
    cpu = _pin(args.cpu) if not args.no_pin else None
    labels = {**PEER_ROWS, **our_rows(args.num_envs)}
    load_before, uptime_before = _loadavg(), _uptime()
    runs, errors, orders = _measure_all(args, ours, peers)
    load_after, uptime_after = _loadavg(), _uptime()
    ref = runs.get(REFERENCE, [])
    rows = [_row_entry(row, labels[row], runs.get(row, []), ref, found, errors) for row in peers_sel + ours]
    result = {
        "benchmark": "compare_gin",
        "schema": 1,
        "date_utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": machine_description(args.machine_note),
        "load": {"before": load_before, "after": load_after, "uptime_before": uptime_before,
                 "uptime_after": uptime_after},  # fmt: skip
        "settings": {"seconds": args.seconds, "repeats": args.repeats, "warmup": args.warmup, "seed": args.seed,
                     "num_envs": args.num_envs, "cpu": cpu, "peers_python": str(args.peers_python)},  # fmt: skip
        "rummy_env": {
            "version": __version__,
            "git_commit": _git_commit(),
            # the implementation selected by the environment (issue 15: python / compiled), if any
            "RUMMY_ENV_IMPL": os.environ.get("RUMMY_ENV_IMPL"),
        },
        "peers": found,
        "schedule": orders,
        "rows": rows,
    }
    result["markdown"] = markdown_table(result)
    return result


def write_result(result: dict[str, Any], json_path: str | None, md_path: str | None) -> tuple[Path, Path]:
    """Write the result's JSON (default ``benchmarks/results/compare_gin-<UTC date-time>.json``) and its markdown
    table (default: the JSON's name, ``.md``), each atomically; the two paths."""
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H%MZ")
    jp = Path(json_path) if json_path else RESULTS / f"compare_gin-{stamp}.json"
    mp = Path(md_path) if md_path else jp.with_suffix(".md")
    write_text_atomic(jp, json.dumps(result, indent=1) + "\n")
    write_text_atomic(mp, result["markdown"])
    return jp, mp


def _loadavg() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def _say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


__all__ = [
    "PEER_ROWS",
    "PROFILES",
    "REFERENCE",
    "BenchmarkArgumentError",
    "markdown_table",
    "measure_ours",
    "measure_peer",
    "our_rows",
    "probe_peers",
    "run",
    "schedule",
    "write_result",
]
