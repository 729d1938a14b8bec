"""Matches as Ray tasks: ``run_matches_ray(fn, tasks)`` runs ``fn(task)`` for every task on a Ray cluster (or a local
Ray instance) and returns the results in task order, so a seeded tournament gives the same records as the local
backend.

```python
from rummy_env.integrations.ray_backend import play_session_task, run_matches_ray
from rummy_env.evaluation.match import plan_sessions

plans = plan_sessions(2, 4, 8, seed=0, duplicate=True)
tasks = [("contract", 4, ["heuristic", "random"], {"rounds": (1,)}, plan) for plan in plans]
records = run_matches_ray(play_session_task, tasks)   # == [MatchRunner(...).play(p) for p in plans]
```

``rummy_env.evaluation.match.play_sessions(..., backend="ray")`` (and ``tournament(..., backend="ray")``) do this:
importing this module registers ``play_sessions_ray`` as the match runner's "ray" backend
(``rummy_env.evaluation.match.register_backend``; the match runner imports this module by name when the backend is
first asked for, and never at module level: this contrib layer sits above it).

Why the results equal the local ones: every task carries its own seeds (a ``SessionPlan`` holds the deal seed and
the bots' seeds), each task is played by a fresh-or-reset runner whose bots are re-seeded from the plan, network
bots compute with one torch thread as in the local backend, and ``ray.get`` on the list of object refs returns
results in submission order whatever order the tasks finish in.

On a cluster every node must be able to import ``rummy_env`` (install it in the cluster's image or pass
``runtime_env={"py_modules": [rummy_env]}``) and read the ``checkpoint:PATH`` files named by the entrants (a shared
file system, or the same path on every node).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from rummy_env.evaluation.match import MatchRunner, register_backend, single_thread_torch
from rummy_env.models.checkpoints import resolve_checkpoint, shipped_names

CHECKPOINT_PREFIX = "checkpoint:"
#: printed on stderr when a Ray backend call starts its own local Ray
LOCAL_RAY_NOTE = (
    "ray: no address given and RAY_ADDRESS is not set: starting a local Ray on this machine only "
    "(pass address='auto' or 'HOST:PORT', or --address, to join a running cluster)"
)

#: runners cached per worker process, keyed by (profile, players, entrants, env config)
_RUNNERS: dict[Any, Any] = {}


def _ensure_ray(address: str | None, runtime_env: dict[str, Any] | None, num_cpus: int | None) -> bool:
    """Initialise Ray if it is not yet; True if this call started it. Without ``address`` and without
    ``RAY_ADDRESS`` in the environment, Ray starts a private local instance: say so on stderr, since a user who meant
    to use a cluster would otherwise never know."""
    import ray  # optional dependency: ray (the [rllib] extra); this module imports without it

    if ray.is_initialized():
        return False
    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "ignore_reinit_error": True}
    if address:
        kwargs["address"] = address
    else:
        if not os.environ.get("RAY_ADDRESS"):
            print(LOCAL_RAY_NOTE, file=sys.stderr)
        if num_cpus is not None:
            kwargs["num_cpus"] = num_cpus
    if runtime_env:
        kwargs["runtime_env"] = runtime_env
    ray.init(**kwargs)
    return True


def portable_entrant(spec: Any) -> Any:
    """The entrant id a worker on another node can load: ``checkpoint:PATH`` with a relative ``PATH`` becomes
    ``checkpoint:/absolute/PATH`` (``@sample``/``@greedy`` kept); a shipped checkpoint's bare name
    (``checkpoint:contract``) stays a name, resolved by each worker in its own installed package; every other id,
    and a bot factory, is returned unchanged. The checkpoint files themselves are not sent: every node must see
    them at that absolute path (a shared file system, or the same copy on every node)."""
    if not isinstance(spec, str) or not spec.startswith(CHECKPOINT_PREFIX):
        return spec
    arg = spec[len(CHECKPOINT_PREFIX) :]
    path, suffix = arg, ""
    head, _, tail = arg.rpartition("@")
    if head and tail in ("sample", "greedy"):
        path, suffix = head, "@" + tail
    if not path or os.path.isabs(path):
        return spec
    if path in shipped_names() and resolve_checkpoint(path) != path:
        return spec  # a shipped name, and no local file of that name shadows it
    return CHECKPOINT_PREFIX + os.path.abspath(path) + suffix


def run_matches_ray(
    fn: Callable[[Any], Any],
    tasks: Sequence[Any],
    *,
    address: str | None = None,
    num_cpus: int | None = None,
    num_cpus_per_task: float = 1,
    max_in_flight: int | None = None,
    runtime_env: dict[str, Any] | None = None,
    shutdown: bool | None = None,
    progress: Callable[[int], Any] | None = None,
) -> list[Any]:
    """``[fn(t) for t in tasks]``, each call a Ray task, results in task order.

    ``fn`` (any picklable callable: a module-level function such as ``play_session_task``, a ``functools.partial``,
    a builtin; sent to the cluster once) and the tasks (plain data) must be picklable. ``address``: the cluster
    to join (``"auto"``, ``"ray://host:10001"``); without it and without a running Ray, a local Ray is started with ``num_cpus`` CPUs (all by default) and shut down afterwards (``shutdown``
    overrides). ``max_in_flight`` bounds the tasks submitted at once (default: unbounded); ``progress(k)`` is
    called as each of the ``k`` finished tasks completes. A task that raises re-raises here (as Ray's
    ``RayTaskError``, which also derives from the original exception class).
    """
    import ray  # optional dependency: ray (the [rllib] extra); this module imports without it

    started = _ensure_ray(address, runtime_env, num_cpus)
    try:
        apply = ray.remote(_apply).options(num_cpus=num_cpus_per_task)
        fn_ref = ray.put(fn)  # shipped once, not with every task
        tasks = list(tasks)
        if max_in_flight is None or max_in_flight >= len(tasks):
            refs = [apply.remote(fn_ref, t) for t in tasks]
            if progress is None:
                return list(ray.get(refs))
            pending = list(refs)
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                progress(len(done))
            return list(ray.get(refs))
        if max_in_flight < 1:
            raise ValueError(f"max_in_flight={max_in_flight!r}: at least 1")
        results: list[Any] = [None] * len(tasks)
        index: dict[Any, int] = {}
        nxt = 0
        while nxt < len(tasks) or index:
            while nxt < len(tasks) and len(index) < max_in_flight:
                index[apply.remote(fn_ref, tasks[nxt])] = nxt
                nxt += 1
            done, _ = ray.wait(list(index), num_returns=1)
            for ref in done:
                results[index.pop(ref)] = ray.get(ref)
            if progress is not None:
                progress(len(done))
        return results
    finally:
        if shutdown or (shutdown is None and started):
            ray.shutdown()


def _apply(fn: Callable[[Any], Any], task: Any) -> Any:
    return fn(task)


def play_session_task(task: tuple[str, int | None, Sequence[Any], dict[str, Any], Any]) -> dict[str, Any]:
    """Play one planned session: ``task = (profile, num_players, entrants, env_config, SessionPlan)``.

    The ``MatchRunner`` (env and loaded bots) of ``rummy_env.evaluation.match`` is cached per worker process, as
    the local backend's pool workers keep theirs; torch computes with one thread."""
    profile, num_players, specs, env_config, plan = task
    key = (profile, num_players, repr(list(specs)), repr(sorted(env_config.items())))
    single_thread_torch()
    runner = _RUNNERS.get(key)
    if runner is None:
        runner = _RUNNERS[key] = MatchRunner(profile, num_players, list(specs), dict(env_config))
    return runner.play(plan)


def session_tasks(
    profile: str, num_players: int | None, specs: Sequence[Any], env_config: dict[str, Any], plans: Sequence[Any]
) -> list[tuple[str, int | None, list[Any], dict[str, Any], Any]]:
    """The ``play_session_task`` tasks of a match's plans (entrants: bot ids or picklable bot factories)."""
    n = None if num_players is None else int(num_players)
    return [(profile, n, list(specs), dict(env_config), plan) for plan in plans]


def play_sessions_ray(
    profile: str,
    num_players: int | None,
    entrants: Sequence[Any],
    env_config: dict[str, Any],
    plans: Sequence[Any],
    progress: Callable[[int], Any] | None = None,
    *,
    address: str | None = None,
    runtime_env: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The records of ``plans`` played as Ray tasks, in plan order: ``play_sessions(..., backend="ray")``.

    ``address`` is the cluster to join (``"auto"``, ``"HOST:PORT"``, ``"ray://HOST:10001"``; None: ``RAY_ADDRESS``
    or a local Ray, said on stderr); ``runtime_env`` goes to ``ray.init`` (e.g. ``{"py_modules": [rummy_env]}``).
    ``checkpoint:`` entrants are made absolute first (``portable_entrant``), so workers on other nodes find the same
    files; the records do not depend on it."""
    specs = [portable_entrant(e) for e in entrants]
    tasks = session_tasks(profile, num_players, specs, env_config, plans)
    return run_matches_ray(play_session_task, tasks, address=address, runtime_env=runtime_env, progress=progress)


register_backend("ray", play_sessions_ray)

__all__ = [
    "CHECKPOINT_PREFIX",
    "LOCAL_RAY_NOTE",
    "play_session_task",
    "play_sessions_ray",
    "portable_entrant",
    "run_matches_ray",
    "session_tasks",
]
