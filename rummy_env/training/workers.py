"""Rollout collection for ``training/ppo.py``: in the learner's process, or in worker processes collecting ahead.

``Rollouts(cfg, collector)`` splits ``cfg.num_envs`` tables and ``cfg.steps_per_update`` steps over
``max(1, cfg.num_workers)`` collectors (``collector(cfg, num_envs, worker, teacher)``: ``rummy_env.training.rollout.
Collector``). A worker process gets the config as plain data (``worker_config``), so the script's ``Config`` class
need not be importable there; ``planned_steps`` is what a run of whole rollouts adds up to.

* ``num_workers: 0``: ``collect_now(weights, snapshots)`` collects one rollout in this process, now.
* ``num_workers >= 1``: each worker process (``spawn``) holds a collector. ``request(weights, snapshots)`` sends
  every worker ``("collect", weights, snapshots, steps)`` and returns at once; ``receive()`` waits for the rollouts
  and concatenates them (``concat``). The learner requests the next rollout before it updates on the last one, so the workers
  collect while it updates; messages go in a fixed order, so a run is reproducible for a seed and ``num_workers``.

Frozen snapshots are sent once per worker (later messages give ``None`` for a snapshot the worker already has).
"""

from __future__ import annotations

import dataclasses
import math
import multiprocessing
import time
from types import SimpleNamespace
from typing import Any

import numpy as np


def worker_config(cfg: Any) -> SimpleNamespace:
    """The fields of the run's config (a dataclass) as plain data for a worker process (picklable whatever module
    the dataclass lives in, e.g. a script run as ``__main__``)."""
    return SimpleNamespace(**dataclasses.asdict(cfg)) if dataclasses.is_dataclass(cfg) else cfg


def split(total: int, parts: int) -> list[int]:
    """``total`` split over ``parts`` as evenly as can be, the first ones taking the remainder."""
    return [total // parts + (w < total % parts) for w in range(parts)]


def planned_steps(cfg: Any, start: int) -> int:
    """The env steps a run from ``start`` will have taken when it ends at ``total_steps``: whole rollouts, each of
    ``steps_per_update`` split over the collectors as ``Rollouts`` splits it, every collector's share rounded up to
    whole steps of its tables (``Collector.collect``). 300,000 steps of 4,096 a rollout are 74 rollouts: 303,104
    steps."""
    k = max(1, cfg.num_workers)
    envs = [max(1, e) for e in split(cfg.num_envs, k)]
    per_rollout = sum(math.ceil(s / e) * e for s, e in zip(split(cfg.steps_per_update, k), envs))
    if start >= cfg.total_steps or per_rollout <= 0:
        return start
    return start + math.ceil((cfg.total_steps - start) / per_rollout) * per_rollout


def concat(parts: list[Any]) -> Any:
    """The rollouts (``RolloutBuffer``) of several workers as one; ``next`` links are shifted by the rows before
    each part."""
    if len(parts) == 1:
        return parts[0]
    offsets = [sum(len(p) for p in parts[:k]) for k in range(len(parts))]
    arrays = {key: np.concatenate([getattr(p, key) for p in parts]) for key in parts[0].ROWS}
    arrays["next"] = np.concatenate([np.where(p.next >= 0, p.next + off, -1) for p, off in zip(parts, offsets)])
    return dataclasses.replace(
        parts[0],
        **arrays,
        env_steps=sum(p.env_steps for p in parts),
        episodes=[ep for p in parts for ep in p.episodes],
        reward_after_cut=sum(p.reward_after_cut for p in parts),
        collect_seconds=max(p.collect_seconds for p in parts),
        collect_cpu_seconds=max(p.collect_cpu_seconds for p in parts),
    )


def timed_collect(collector: Any, steps: int) -> Any:
    """``collector.collect(steps)``, with its wall and CPU seconds in ``collect_seconds`` / ``collect_cpu_seconds``."""
    t, c = time.perf_counter(), time.process_time()
    batch = collector.collect(steps)
    batch.collect_seconds = time.perf_counter() - t
    batch.collect_cpu_seconds = time.process_time() - c
    return batch


def worker_main(conn: Any, collector: Any, cfg: Any, num_envs: int, worker: int, teacher: str | None = None) -> None:
    """Worker loop: ``("collect", weights, snapshots, steps)`` -> rollout; ``("close",)`` -> exit."""
    col = collector(cfg, num_envs, worker, teacher)
    try:
        while True:
            msg = conn.recv()
            if msg[0] == "close":
                break
            _, weights, snapshots, steps = msg
            col.set_weights(weights)
            col.set_snapshots(snapshots)
            conn.send(timed_collect(col, steps))
    except (BrokenPipeError, EOFError, ConnectionResetError):
        pass  # the learner has gone (it ended the run): nothing is waiting for this rollout
    finally:
        conn.close()


class Rollouts:
    """The collectors: in this process (``num_workers = 0``) or in worker processes collecting ahead."""

    def __init__(self, cfg: Any, collector: Any, teacher: str | None = None):
        self.cfg = cfg
        k = max(1, cfg.num_workers)
        envs = split(cfg.num_envs, k)
        self.steps = split(cfg.steps_per_update, k)
        self.known: list[set[str]] = [set() for _ in range(k)]
        self.pending = False  # a rollout was requested and not received
        self.conns: list[Any] = []
        self.procs: list[Any] = []
        self.local = collector(cfg, envs[0], 0, teacher) if cfg.num_workers == 0 else None
        if cfg.num_workers:
            ctx = multiprocessing.get_context("spawn")
            plain = worker_config(cfg)
            for w in range(k):
                parent, child = ctx.Pipe()
                p = ctx.Process(target=worker_main, args=(child, collector, plain, envs[w], w, teacher), daemon=True)
                p.start()
                self.conns.append(parent)
                self.procs.append(p)

    def _snapshot_message(self, w: int, snapshots: dict[str, dict[str, np.ndarray]]) -> dict[str, Any]:
        msg = {name: (None if name in self.known[w] else state) for name, state in snapshots.items()}
        self.known[w] = set(snapshots)
        return msg

    def request(self, weights: dict[str, np.ndarray], snapshots: dict[str, dict[str, np.ndarray]]) -> None:
        """Workers start collecting the next rollout with these weights (no-op in single-process mode)."""
        for w, conn in enumerate(self.conns):
            conn.send(("collect", weights, self._snapshot_message(w, snapshots), self.steps[w]))
        self.pending = bool(self.conns)

    def collect_now(self, weights: dict[str, np.ndarray], snapshots: dict[str, dict[str, np.ndarray]]) -> Any:
        """Single-process mode: collect one rollout with these weights now."""
        self.local.set_weights(weights)
        self.local.set_snapshots(self._snapshot_message(0, snapshots))
        return timed_collect(self.local, self.steps[0])

    def receive(self) -> Any:
        """The rollouts the workers were asked for, concatenated (transition links shifted accordingly)."""
        parts = [conn.recv() for conn in self.conns]
        self.pending = False
        return concat(parts)

    def close(self) -> None:
        """Stop the workers; a rollout still being collected (the run ended before it was needed) is dropped."""
        for conn in self.conns:
            try:
                conn.send(("close",))
            except (BrokenPipeError, OSError):
                pass
        for p in self.procs:
            if self.pending:  # it would only finish a rollout nobody reads: stop it now
                p.terminate()
            p.join(timeout=10)
        for conn in self.conns:
            conn.close()
        self.conns = []
