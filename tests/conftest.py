"""Fixtures every test module may use, and a guard that no test leaks global state into the tests after it.

* ``bot_registry``: the bot ids (``rummy_env.bots.register``) and the heuristics by profile
  (``rummy_env.bots.heuristic.register_heuristic``) as they are; whatever a test registers is gone afterwards.
* ``_no_leaks`` (every test): afterwards the registered bot ids, the heuristics' profiles and the environment
  variables must be what they were (a test that changes them uses ``bot_registry`` / ``monkeypatch``), and the
  global generators of ``random`` and numpy are put back as they were (some frameworks seed numpy's). pytest itself
  restores the warnings filters after every test.

The suite runs torch (and any OpenMP code) on one thread unless ``OMP_NUM_THREADS`` is set: its networks are tiny,
and on a small shared machine OpenMP threads spinning against other processes made the torch tests 5-15 times
slower. It is set here, before any test module imports torch (subprocesses of the tests inherit it).
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from rummy_env import bots  # noqa: E402
from rummy_env.bots import heuristic  # noqa: E402

#: variables libraries set for themselves on first use (torch's compiler cache), not a test's doing
_LIBRARY_VARIABLES = frozenset({"PYTEST_CURRENT_TEST", "TORCHINDUCTOR_CACHE_DIR"})


@pytest.fixture
def bot_registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Registrations made by the test (bots, heuristics) are undone after it."""
    monkeypatch.setattr(bots, "_REGISTRY", dict(bots._REGISTRY))
    monkeypatch.setattr(heuristic, "POLICIES", dict(heuristic.POLICIES))
    yield


def _registries() -> tuple[list[str], list[str]]:
    return sorted(bots._REGISTRY), sorted(heuristic.POLICIES)


def _environ() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in _LIBRARY_VARIABLES}  # and pytest's own, set per phase


@pytest.fixture(autouse=True)
def _no_leaks() -> Iterator[None]:
    """Fail a test that leaves a bot, a heuristic or an environment variable behind; restore the global RNGs."""
    registries = _registries()
    environ = _environ()
    np_state = np.random.get_state()
    py_state = random.getstate()
    yield
    np.random.set_state(np_state)
    random.setstate(py_state)
    leaks = []
    if _registries() != registries:
        leaks.append(f"bot / heuristic registrations {registries} -> {_registries()} (use the bot_registry fixture)")
    now = _environ()
    if now != environ:
        changed = sorted(k for k in set(now) | set(environ) if now.get(k) != environ.get(k))
        leaks.append(f"environment variables {changed} (use monkeypatch.setenv / delenv)")
    if leaks:
        pytest.fail("the test leaks global state: " + "; ".join(leaks))
