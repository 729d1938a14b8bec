"""Golden playthroughs: record (or check) one seeded session per profile and player count.

    python tests/playthroughs/record.py                 # re-record every configuration
    python tests/playthroughs/record.py --check         # re-play and compare with the files; exit 1 on a difference
    python tests/playthroughs/record.py --only contract_gamerules-5p

Every seat is played by the ``heuristic`` bot (seat ``i`` seeded ``seed + i``) through the public env API
(``rummy_env.make(profile, num_players=..., illegal_action="raise")``); the recorder reads only the env's public
accessors (``last()``, ``observation_pieces``, ``describe_action``, ``action_info``, ``game_state``). Each file
``<profile>-<n>p.jsonl.gz`` is gzip-compressed JSON lines: a ``header`` line, one ``decision`` line per ``step``
and an ``end`` line. See README.md in this folder for the fields.

Sizes, agents and observation pieces are read from the env, never written here, so the recorder keeps working
when an action table or observation changes; the recording then differs and must be re-recorded on purpose.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import rummy_env
from rummy_env import bots

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent

#: bump when the line layout below changes (not when the game's behaviour changes: that is a re-record)
FORMAT = 1
BOT = "heuristic"


@dataclass(frozen=True)
class Config:
    """One recorded configuration: profile, player count, seed, extra env arguments."""

    profile: str
    num_players: int
    seed: int = 0
    kwargs: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """``<profile>-<n>p``, the file stem."""
        return f"{self.profile}-{self.num_players}p"

    @property
    def path(self) -> Path:
        """The recording's file."""
        return HERE / f"{self.name}.jsonl.gz"

    def make_env(self) -> Any:
        """The wrapped env of this configuration, illegal actions raising."""
        kwargs = dict(self.kwargs)
        if self.profile != "contract":  # contract is 4 players only and takes no num_players
            kwargs["num_players"] = self.num_players
        env = rummy_env.make(self.profile, illegal_action="raise", **kwargs)
        if len(env.possible_agents) != self.num_players:
            raise ValueError(f"{self.name}: the env has {len(env.possible_agents)} agents")
        return env


#: every configuration, full sessions with seed 0 (the largest, contract 4p, is about 1,050 decisions)
CONFIGS: tuple[Config, ...] = (
    Config("contract", 4),
    Config("contract_gamerules", 3),
    Config("contract_gamerules", 4),
    Config("contract_gamerules", 5),
    Config("continental", 4),
    Config("continental", 5),
)


def config(name: str) -> Config:
    """The configuration called ``name`` (``contract-4p``, ...); ``ValueError`` listing the names otherwise."""
    for c in CONFIGS:
        if c.name == name:
            return c
    raise ValueError(f"unknown playthrough {name!r}; available: {[c.name for c in CONFIGS]}")


def _num(v: Any) -> float:
    """A float32 observation value as the shortest decimal that reads back to the same float32 (exact)."""
    return float(str(np.float32(v)))


def _sparse(piece: np.ndarray) -> list[list[Any]]:
    """``[nonzero flat indices, their values]`` of one observation piece."""
    flat = np.asarray(piece).reshape(-1)
    idx = np.flatnonzero(flat)
    return [idx.tolist(), [_num(x) for x in flat[idx]]]


def _jsonable(obj: Any) -> Any:
    """``obj`` as it reads back from JSON (tuples become lists, numpy scalars Python numbers)."""
    return json.loads(json.dumps(obj, sort_keys=True, default=_default))


def _default(obj: Any) -> Any:
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def play(cfg: Config) -> Iterator[dict[str, Any]]:
    """The records of ``cfg``'s session, in order: header, one per decision, end (JSON-ready dicts)."""
    env = cfg.make_env()
    raw = env.unwrapped
    env.reset(seed=cfg.seed)
    agents = list(env.possible_agents)
    players = {a: bots.load(BOT, seed=cfg.seed + i) for i, a in enumerate(agents)}
    first = raw.observation_pieces(agents[0])
    initial = raw.game_state()
    yield _jsonable(
        {
            "type": "header",
            "format": FORMAT,
            "profile": cfg.profile,
            "num_players": cfg.num_players,
            "seed": cfg.seed,
            "env_kwargs": cfg.kwargs,
            "bot": BOT,
            "bot_seeds": [cfg.seed + i for i in range(len(agents))],
            "agents": agents,
            "rounds": initial.get("rounds", initial.get("deals")),
            "num_actions": int(env.action_space(agents[0]).n),
            "observation_shape": list(env.observation_space(agents[0])["observation"].shape),
            "pieces": {k: list(np.shape(v)) for k, v in first.items()},
            "initial_state": initial,
        }
    )
    step = 0
    returns = {a: 0.0 for a in agents}
    final_info: dict[str, Any] = {}
    for agent in env.agent_iter():
        obs, _, termination, truncation, info = env.last()
        if termination or truncation:
            final_info = final_info or info
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        pieces = raw.observation_pieces(agent)
        flat = np.concatenate([np.asarray(v).reshape(-1) for v in pieces.values()])
        if not np.array_equal(flat, obs["observation"]):
            raise ValueError(f"step {step}: observation_pieces({agent!r}) do not make up last()'s observation")
        action = int(players[agent].act(env, agent))
        chosen = raw.action_info(action)
        legal_desc = [[a, raw.describe_action(a)] for a in legal]
        env.step(action)
        rewards = {a: float(r) for a, r in raw.rewards.items() if r != 0}
        for a, r in rewards.items():
            returns[a] += r
        yield _jsonable(
            {
                "type": "decision",
                "step": step,
                "agent": agent,
                "obs": {k: _sparse(v) for k, v in pieces.items()},
                "legal": legal_desc,
                "action": action,
                "action_info": chosen,
                "rewards": rewards,
                "terminations": sorted(a for a, t in raw.terminations.items() if t),
                "truncations": sorted(a for a, t in raw.truncations.items() if t),
                "infos": _infos(raw.infos),
            }
        )
        step += 1
    yield _jsonable(
        {
            "type": "end",
            "decisions": step,
            "scores": final_info.get("scores"),
            "round_results": final_info.get("round_results"),
            "returns": returns,
        }
    )


def _infos(infos: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The non-empty ``info`` dicts after a step, without ``action_mask`` (the next decision's ``legal``)."""
    out = {}
    for agent, info in infos.items():
        rest = {k: v for k, v in info.items() if k != "action_mask"}
        if rest:
            out[agent] = rest
    return out


def dumps(records: list[dict[str, Any]]) -> bytes:
    """The file's bytes: JSON lines, gzip with ``mtime=0`` and no file name (deterministic)."""
    text = "".join(json.dumps(r, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n" for r in records)
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as gz:
        gz.write(text.encode("utf-8"))
    return buf.getvalue()


def load(path: Path) -> list[dict[str, Any]]:
    """The records of a recorded file."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def _short(value: Any, limit: int = 300) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


def _first_difference(old: Any, new: Any, where: str) -> tuple[str, Any, Any] | None:
    """``(field path, recorded, now)`` of the first difference between two JSON values, or ``None``."""
    if isinstance(old, dict) and isinstance(new, dict):
        for k in sorted(set(old) | set(new)):
            if k not in old or k not in new:
                return f"{where}.{k}", old.get(k, "<missing>"), new.get(k, "<missing>")
            diff = _first_difference(old[k], new[k], f"{where}.{k}")
            if diff:
                return diff
        return None
    if isinstance(old, list) and isinstance(new, list) and where.count(".obs.") == 0:
        for i, (a, b) in enumerate(zip(old, new)):
            diff = _first_difference(a, b, f"{where}[{i}]")
            if diff:
                return diff
        if len(old) != len(new):
            return f"{where} (length {len(old)} vs {len(new)})", old[len(new) :], new[len(old) :]
        return None
    return None if old == new else (where, old, new)


RERECORD = "python tests/playthroughs/record.py --only {name}"


def compare(cfg: Config, recorded: list[dict[str, Any]] | None = None) -> str | None:
    """Re-play ``cfg`` and compare with its file: ``None`` when identical, else a readable report of the first
    difference (which decision, which field, recorded vs now) and how to re-record."""
    if recorded is None:
        if not cfg.path.exists():
            return f"{cfg.name}: no recording {cfg.path.name}; record it with: {RERECORD.format(name=cfg.name)}"
        recorded = load(cfg.path)
    n = 0
    replay = play(cfg)
    while True:
        try:
            now = next(replay)
        except StopIteration:
            break
        except Exception as e:  # an action the bot chose is now illegal, a bot or the env fails, ...
            rec = recorded[n] if n < len(recorded) else recorded[-1]
            return _report(cfg, rec, "the replay raised", "(no error)", f"{type(e).__name__}: {e}")
        i, n = n, n + 1
        if i >= len(recorded):
            return _report(cfg, recorded[-1] if recorded else {}, "the session is longer than recorded", None, now)
        diff = _first_difference(recorded[i], now, recorded[i].get("type", "?"))
        if diff:
            return _report(cfg, recorded[i], diff[0], diff[1], diff[2])
    if n != len(recorded):
        return _report(cfg, recorded[n], "the session ended earlier than recorded", recorded[n], None)
    return None


def _report(cfg: Config, rec: dict[str, Any], where: str, old: Any, new: Any) -> str:
    at = f"decision step {rec['step']} ({rec.get('agent')})" if rec.get("type") == "decision" else rec.get("type")
    if rec.get("type") == "decision" and "action_info" in rec:
        at += f", recorded action {rec['action']} {_short(rec['action_info'], 120)}"
    return (
        f"{cfg.name} differs from {cfg.path.name} at {at}\n"
        f"  field:    {where}\n"
        f"  recorded: {_short(old)}\n"
        f"  now:      {_short(new)}\n"
        f"If the change is intended, re-record with: {RERECORD.format(name=cfg.name)} (then review the diff)"
    )


def record(cfg: Config) -> tuple[bool, int]:
    """Write ``cfg``'s file; ``(changed, size in bytes)``."""
    data = dumps(list(play(cfg)))
    changed = not cfg.path.exists() or cfg.path.read_bytes() != data
    if changed:
        cfg.path.write_bytes(data)
    return changed, len(data)


def main(argv: list[str] | None = None) -> int:
    """Command line: record every (or ``--only``) configuration, or ``--check`` them."""
    ap = argparse.ArgumentParser(description="Record or check the golden playthroughs under tests/playthroughs/.")
    ap.add_argument("--check", action="store_true", help="re-play and compare with the files instead of writing")
    ap.add_argument("--only", action="append", metavar="NAME", help=f"one of {[c.name for c in CONFIGS]}")
    args = ap.parse_args(argv)
    try:
        chosen = [config(n) for n in args.only] if args.only else list(CONFIGS)
    except ValueError as e:
        ap.error(str(e))
    failed = 0
    for cfg in chosen:
        if args.check:
            problem = compare(cfg)
            print(problem if problem else f"{cfg.name}: identical")
            failed += problem is not None
        else:
            changed, size = record(cfg)
            print(f"{cfg.name}: {'written' if changed else 'unchanged'} ({size:,} bytes)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
