"""Label shards and fitted checkpoints, shared by the steps of the pipeline.

* Label folders hold one ``session_{i:05d}.npz`` per session, written atomically when the session ends
  (``write_sessions``); a session already on disk is skipped, so an interrupted run resumes, and worker processes
  share the sessions (``run_shard_workers``: ``i = worker, worker + workers, ...``). ``measure_arrays`` packs the
  heuristic's per-move measures of a session's decisions.
* ``load_card_prior`` reads the base of an offline fit; ``fitted_metadata`` is the metadata of the network a fit
  makes from it; ``output_checkpoint_problem`` is why a fit may not write its ``--out`` (the shipped checkpoints,
  unless ``--overwrite-shipped``; one of the command's own inputs).
"""

from __future__ import annotations

import argparse
import multiprocessing
import re
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..models.checkpoints import load_checkpoint
from ..training.config import ConfigError
from ..training.outputs import input_problem, savez_atomic, shipped_problem

#: the name of a label file, its session index in the group
SESSION_FILE = re.compile(r"session_(\d+)\.npz$")


def session_index(path: Path) -> int:
    """The session index of a label file ``session_{i:05d}.npz``."""
    return int(SESSION_FILE.search(path.name).group(1))


def label_files(folders: Iterable[str | Path], keys: Iterable[str], command: str) -> Iterator[tuple[Path, int, Any]]:
    """``(path, session index, arrays)`` of every ``session_*.npz`` label file of ``folders`` in order, each opened
    without pickles and closed after its turn; ``ConfigError`` for a folder without label files (naming
    ``python -m rummy_env.distill COMMAND``, which makes them) or a file that lacks one of ``keys``."""
    keys = list(keys)
    for folder in folders:
        files = sorted(Path(folder).glob("session_*.npz"))
        if not files:
            raise ConfigError(f"no session_*.npz label files in {str(folder)!r}: run python -m rummy_env.distill {command} first")
        for f in files:
            with np.load(f, allow_pickle=False) as data:
                missing = [k for k in keys if k not in data.files]
                if missing:
                    raise ConfigError(f"{f}: not a label file of {command}, it lacks {missing} (needs {keys})")
                yield f, session_index(f), data


def write_sessions(
    out: Path, indices: Iterable[int], deadline: float, make: Callable[[int], dict[str, Any]],
    report: Callable[[int, dict[str, Any], float], str] | None = None,
) -> None:  # fmt: skip
    """For each session index of ``indices`` whose ``out/session_{i:05d}.npz`` is not on disk yet: stop if
    ``deadline`` (a ``time.time()``) has passed, else ``make(i)`` its arrays and write them atomically (an
    interrupted write leaves no file behind); ``report(i, data, seconds)``, if given, returns a line to print."""
    for i in indices:
        path = out / f"session_{i:05d}.npz"
        if path.exists():
            continue
        if time.time() > deadline:
            return
        t0 = time.time()
        data = make(i)
        savez_atomic(path, **data)
        if report is not None:
            print(report(i, data, time.time() - t0), flush=True)


def run_shard_workers(worker: Callable[[argparse.Namespace, int, float], None], args: argparse.Namespace) -> int:
    """``worker(args, w, deadline)`` for ``w`` in ``range(args.workers)``: in this process for one worker, else in
    spawned processes (``worker`` must be a module-level function); the deadline is ``args.max_minutes`` from now (0:
    none). Exit code 0, or 1 if a worker process failed."""
    Path(args.out).mkdir(parents=True, exist_ok=True)
    deadline = time.time() + args.max_minutes * 60 if args.max_minutes > 0 else float("inf")
    if args.workers == 1:
        worker(args, 0, deadline)
        return 0
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=worker, args=(args, w, deadline)) for w in range(args.workers)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join()
    return 1 if any(proc.exitcode for proc in procs) else 0


def measure_arrays(tables: list[Any], names: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """The label files' ``measures`` (N, L, F) float32 -- each decision's (legal actions, F) table of the heuristic's
    measures, zero-padded to the longest legal list L -- and ``measure_names`` (F,) str."""
    width = max([1, *(len(m) for m in tables)])
    measures = np.zeros((len(tables), width, len(names)), dtype=np.float32)
    for i, m in enumerate(tables):
        measures[i, : len(m)] = m
    return {"measures": measures, "measure_names": np.array(names, dtype=f"U{max([1, *map(len, names)])}")}


def label_folder_problem(out: str, overwrite_shipped: bool = False) -> str | None:
    """Why label files may not be written into the folder ``out`` (inside the shipped checkpoints), or None."""
    return shipped_problem(out, overwrite_shipped)


def output_checkpoint_problem(out: str, inputs: list[tuple[str, Any]], overwrite_shipped: bool = False) -> str | None:
    """Why a fit may not write the checkpoint ``out``: inside the shipped checkpoints' folder (without
    ``--overwrite-shipped``), or one of the command's own ``inputs`` (``(flag, path)``); None when it may."""
    return shipped_problem(out, overwrite_shipped) or input_problem(out, inputs)


def fitted_metadata(
    meta: dict[str, Any], step: str, fit_seconds: float, base: str, labels: list[str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The metadata of a network made from the checkpoint ``base`` (whose metadata is ``meta``) by an offline
    ``step`` on the label folders ``labels`` (e.g. ``"distillation (python -m rummy_env.distill search-distill)"``), taking
    ``fit_seconds``: the base's metadata without its PPO state, ``algorithm`` naming the base's and the step,
    ``wall_seconds`` the base's training and this fit; and the opening of the step's record (``base``,
    ``base_training_steps``, ``base_updates``, ``base_wall_seconds``, ``labels``)."""
    out = {k: v for k, v in meta.items() if k != "training_state"}
    state = meta.get("training_state", {})
    seconds = state.get("wall_seconds", meta.get("wall_seconds")) or 0.0
    out["algorithm"] = f"{meta.get('algorithm') or 'unknown'} + {step}"
    out["wall_seconds"] = round(float(seconds) + fit_seconds, 1)
    head = {"base": str(base), "base_training_steps": meta.get("training_steps", 0), "base_updates": state.get("update"),
            "base_wall_seconds": seconds, "labels": [str(x) for x in labels]}  # fmt: skip
    return out, head


def load_card_prior(path: str) -> Any:
    """The ``card_prior`` checkpoint at ``path`` (``load_checkpoint``'s ``Checkpoint``), the base of an offline fit
    (``search-distill``, ``advantage-fit``); ``ConfigError`` for another kind of network, ``CheckpointError`` for
    a file that does not load."""
    ckpt = load_checkpoint(path)
    kind = ckpt.model.arch.get("kind")
    if kind != "card_prior":
        raise ConfigError(f"--base must be a card_prior checkpoint, {path!r} is {kind!r}")
    return ckpt


def add_output_flags(p: argparse.ArgumentParser) -> None:
    """``--overwrite-shipped``: the one way to let a command write into the shipped checkpoints' folder."""
    p.add_argument("--overwrite-shipped", action="store_true",
                   help="allow --out inside the folder of the shipped checkpoints (checkpoints/); refused without it")


__all__ = [
    "SESSION_FILE",
    "add_output_flags",
    "fitted_metadata",
    "label_folder_problem",
    "load_card_prior",
    "measure_arrays",
    "output_checkpoint_problem",
    "run_shard_workers",
    "session_index",
    "write_sessions",
]
