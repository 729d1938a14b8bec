"""Small helpers shared by the training scripts: config from YAML + command line, run names, evaluation matches.

Kept apart from the scripts only because both scripts (and ``training/evaluate.py``) use them; each is short.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import math
import multiprocessing
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as `python training/ppo.py` from a fresh clone without installing
    sys.path.insert(0, str(ROOT))

import rummy_env  # noqa: E402
from rummy_env import bots as bot_registry  # noqa: E402

# ----------------------------------------------------------------------------------------------------------------
# Config: dataclass <- YAML file <- --set key=value / --key value
# ----------------------------------------------------------------------------------------------------------------


def field_docs(cls: type) -> dict[str, str]:
    """The docstring under each field of a dataclass (CleanRL's style), read from its source."""
    try:
        tree = ast.parse(inspect.getsource(cls))
    except (OSError, TypeError):
        return {}
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs: dict[str, str] = {}
    for a, b in zip(body, body[1:]):
        if (
            isinstance(a, ast.AnnAssign)
            and isinstance(a.target, ast.Name)
            and isinstance(b, ast.Expr)
            and isinstance(b.value, ast.Constant)
            and isinstance(b.value.value, str)
        ):
            docs[a.target.id] = " ".join(b.value.value.split())
    return docs


def _coerce(name: str, value: Any, default: Any) -> Any:
    """``value`` (from YAML or the command line) as the type of the field's default."""
    if value is None or default is None:
        return value
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ValueError(f"{name}={value!r}: expected true or false")
        return value
    if isinstance(default, int) and not isinstance(default, bool):
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError(f"{name}={value!r}: expected an integer")
        return value
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{name}={value!r}: expected a number")
        return float(value)
    if isinstance(default, str) and not isinstance(value, str):
        raise ValueError(f"{name}={value!r}: expected a string")
    if isinstance(default, list | tuple) and not isinstance(value, list | tuple):
        raise ValueError(f"{name}={value!r}: expected a list")
    if isinstance(default, dict) and not isinstance(value, dict):
        raise ValueError(f"{name}={value!r}: expected a mapping")
    return value


def _parse_value(text: str) -> Any:
    """A command-line value read as YAML (``1e-4``, ``[1]``, ``null``, ``{rounds: [1]}``), else the string."""
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return text
    if isinstance(value, str):  # YAML 1.1 reads 1e6 as a string
        try:
            return float(value) if any(c in value for c in ".eE") else int(value)
        except ValueError:
            return value
    return value


def parse_config(cls: type, argv: list[str] | None = None, description: str = "") -> Any:
    """Fill dataclass ``cls`` from defaults, then ``--config FILE`` (yaml.safe_load), then ``--set k=v`` / ``--k v``."""
    defaults = cls()
    docs = field_docs(cls)
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--config", help="YAML file whose keys are fields below (configs/*.yaml)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a field")
    for f in dataclasses.fields(cls):
        parser.add_argument(
            "--" + f.name.replace("_", "-"),
            dest=f.name,
            default=None,
            metavar="V",
            help=f"{docs.get(f.name, '')} (default: {getattr(defaults, f.name)!r})".replace("%", "%%"),
        )
    args = parser.parse_args(argv)
    values: dict[str, Any] = {}
    names = {f.name for f in dataclasses.fields(cls)}
    if args.config:
        loaded = yaml.safe_load(Path(args.config).read_text()) or {}
        if not isinstance(loaded, dict):
            raise SystemExit(f"{args.config}: expected a mapping of config fields")
        unknown = sorted(set(loaded) - names)
        if unknown:
            raise SystemExit(f"{args.config}: unknown keys {unknown}; allowed: {sorted(names)}")
        values.update(loaded)
    for item in args.set:
        key, sep, text = item.partition("=")
        if not sep or key not in names:
            raise SystemExit(f"--set {item!r}: expected KEY=VALUE with KEY one of {sorted(names)}")
        values[key] = _parse_value(text)
    for name in names:
        text = getattr(args, name)
        if text is not None:
            values[name] = _parse_value(text)
    try:
        for k, v in values.items():
            values[k] = _coerce(k, v, getattr(defaults, k))
    except ValueError as e:
        raise SystemExit(f"config: {e}") from None
    cfg = dataclasses.replace(defaults, **values)
    if args.config:
        cfg.config_file = str(args.config) if hasattr(cfg, "config_file") else None
    return cfg


def run_name(profile: str, algo: str, seed: int) -> str:
    """``profile__algo__seed__time`` (CleanRL's run names)."""
    return f"{profile}__{algo}__{seed}__{int(time.time())}"


def env_kwargs(env_config: dict[str, Any], num_players: int | None) -> dict[str, Any]:
    """``rummy_env.make`` keyword arguments: YAML lists become tuples (``rounds``), ``num_players`` if given."""
    out = {k: (tuple(v) if isinstance(v, list) else v) for k, v in (env_config or {}).items()}
    if num_players is not None:
        out["num_players"] = num_players
    return out


def machine() -> dict[str, Any]:
    """Where a run happened: CPU model, cores, Python, torch and rummy_env versions."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    info = {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(), "os": platform.platform()}
    try:
        import torch

        info["torch"] = torch.__version__
    except ImportError:
        pass
    info["rummy_env"] = rummy_env.__version__
    try:
        info["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        pass
    return info


# ----------------------------------------------------------------------------------------------------------------
# Evaluation: the policy at one seat (rotated) against n-1 copies of one opponent
# ----------------------------------------------------------------------------------------------------------------


def bot_available(profile: str, bot_id: str, env_config: dict[str, Any]) -> str | None:
    """None if ``bot_id`` can play ``profile``, else the reason (e.g. no heuristic for this profile yet)."""
    try:
        env = rummy_env.make(profile, wrapped=False, **env_config)
        env.reset(seed=0)
        bot_registry.load(bot_id, seed=0).act(env, env.agent_selection)
    except ValueError as e:
        return str(e)
    return None


def mean_ci(samples: list[float]) -> tuple[float, float]:
    """Mean and half-width of its normal 95 % confidence interval."""
    n = len(samples)
    mean = float(np.mean(samples)) if n else float("nan")
    if n < 2:
        return mean, float("nan")
    return mean, 1.96 * float(np.std(samples, ddof=1)) / math.sqrt(n)


def round_score(res: dict[str, Any], seat: int) -> float:
    """A seat's score of one round: its penalty (contract family, lower is better) or its payment (continental,
    the balance change, higher is better)."""
    return float(res["penalties"][seat]) if "penalties" in res else float(res["payments"][seat])


def score_name(profile: str) -> str:
    """What ``round_score`` measures for a profile."""
    return "payment_per_deal" if profile == "continental" else "penalty_per_round"


def play_match(
    make_policy: Any,
    profile: str,
    opponent: str,
    sessions: int,
    seed: int,
    env_config: dict[str, Any],
    first_session: int = 0,
) -> list[dict[str, Any]]:
    """Sessions ``first_session ..`` of a match: the policy bot at seat ``i % n``, ``opponent`` at the others.

    Session ``i`` is dealt with seed ``seed * 100_000 + i``; every bot is re-seeded per session. Returns per session
    the policy's and the opponents' mean score per round, the rounds the policy won and the rounds played.
    """
    env = rummy_env.make(profile, wrapped=False, **env_config)
    n = len(env.possible_agents)
    policy = make_policy()
    others = [bot_registry.load(opponent, seed=0) for _ in range(n - 1)]
    out = []
    for i in range(first_session, first_session + sessions):
        deal = seed * 100_000 + i
        me = i % n
        policy.reset(deal * 10)
        seat_bot = {}
        for j, bot in enumerate(others):
            bot.reset(deal * 10 + 1 + j)
            seat_bot[(me + 1 + j) % n] = bot
        seat_bot[me] = policy
        env.reset(seed=deal)
        while not env.state_.is_terminal():
            agent = env.agent_selection
            env.step(seat_bot[env.agent_name_mapping[agent]].act(env, agent))
        results = env.state_.round_results
        k = len(results)
        out.append(
            {
                "policy": sum(round_score(r, me) for r in results) / k,
                "opponents": sum(round_score(r, s) for r in results for s in range(n) if s != me) / (k * (n - 1)),
                "won": sum(1 for r in results if r["winner"] == me),
                "opponents_won": sum(1 for r in results if r["winner"] is not None and r["winner"] != me) / (n - 1),
                "rounds": k,
            }
        )
    return out


def summarise_match(profile: str, opponent: str, records: list[dict[str, Any]]) -> dict[str, Any]:
    """Means and 95 % CIs of a match: the policy's score, the opponents', and the paired difference per session."""
    pol, pci = mean_ci([r["policy"] for r in records])
    opp, oci = mean_ci([r["opponents"] for r in records])
    diff, dci = mean_ci([r["policy"] - r["opponents"] for r in records])
    rounds = sum(r["rounds"] for r in records)
    return {
        "opponent": opponent,
        "metric": score_name(profile),
        "sessions": len(records),
        "rounds": rounds,
        "policy": round(pol, 3),
        "policy_ci95": round(pci, 3),
        "opponents": round(opp, 3),
        "opponents_ci95": round(oci, 3),
        "difference": round(diff, 3),
        "difference_ci95": round(dci, 3),
        "policy_rounds_won_share": round(sum(r["won"] for r in records) / rounds, 4),
        "opponent_rounds_won_share": round(sum(r["opponents_won"] for r in records) / rounds, 4),
    }


def _match_chunk(job: tuple[Any, ...]) -> list[dict[str, Any]]:
    path, greedy, profile, opponent, sessions, seed, env_config, first = job
    from rummy_env.bots.checkpoint_bot import CheckpointBot

    return play_match(
        lambda: CheckpointBot(path, greedy=greedy), profile, opponent, sessions, seed, env_config, first_session=first
    )


def evaluate_checkpoint(
    path: str,
    opponent: str,
    sessions: int,
    seed: int = 0,
    workers: int = 1,
    greedy: bool = True,
    env_config: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A checkpoint against ``opponent`` over ``sessions`` sessions (seats rotated), in ``workers`` processes."""
    from rummy_env.checkpoints import read_metadata

    meta = read_metadata(path)
    profile = meta["profile"]
    cfg = dict(env_config if env_config is not None else meta.get("env_config") or {})
    cfg = env_kwargs(cfg, meta["num_players"])
    reason = bot_available(profile, opponent, cfg)
    if reason:
        return {"opponent": opponent, "skipped": reason}
    start = time.perf_counter()
    chunks = max(1, min(sessions, workers * 4))
    size = [sessions // chunks + (c < sessions % chunks) for c in range(chunks)]
    firsts = np.cumsum([0, *size[:-1]])
    jobs = [(path, greedy, profile, opponent, s, seed, cfg, int(f)) for s, f in zip(size, firsts)]
    if workers > 1:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            parts = pool.map(_match_chunk, jobs)
    else:
        parts = [_match_chunk(j) for j in jobs]
    records = [r for part in parts for r in part]
    out = summarise_match(profile, opponent, records)
    out["env_config"] = {k: list(v) if isinstance(v, tuple) else v for k, v in cfg.items()}
    out["greedy"] = greedy
    out["seed"] = seed
    out["wall_seconds"] = round(time.perf_counter() - start, 1)
    return out


def format_match(m: dict[str, Any]) -> str:
    """One line of a match summary."""
    if "skipped" in m:
        return f"vs {m['opponent']:<10} skipped: {m['skipped']}"
    better = "lower" if m["metric"].startswith("penalty") else "higher"
    return (
        f"vs {m['opponent']:<10} {m['metric']} ({better} is better): policy {m['policy']:.2f} ± {m['policy_ci95']:.2f}"
        f", {m['opponent']} {m['opponents']:.2f} ± {m['opponents_ci95']:.2f}, difference {m['difference']:+.2f} ± "
        f"{m['difference_ci95']:.2f}; rounds won {m['policy_rounds_won_share']:.1%} vs "
        f"{m['opponent_rounds_won_share']:.1%} per {m['opponent']} seat ({m['sessions']} sessions)"
    )
