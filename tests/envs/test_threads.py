"""One env used from several threads at once raises ``ConcurrentUseError`` instead of corrupting its game
(issue 40, point 11: three threads stepping one env dealt three copies of a card from a two-deck shoe).

Every env is meant for one thread at a time (as PettingZoo's and Gymnasium's). ``step`` and ``reset`` of the AEC env,
``SingleAgentEnv`` and ``VectorEnv`` hold a lock of the env while they run; a second call entered meanwhile raises
at once and changes nothing. Checked with real threads: deterministically (one thread held inside ``step``, another
calls), and by racing three threads on one env with a tiny switch interval (the game stays consistent).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import rummy_env
from rummy_env.engine import IllegalActionError, load_state
from rummy_env.envs.base import ConcurrentUseError
from rummy_env.envs.wrappers import SingleAgentEnv
from rummy_env.registry import GAMES
from rummy_env.vector import VectorEnv, random_legal_actions

PROFILES = sorted(GAMES)


@pytest.fixture
def fast_switching() -> Iterator[None]:
    """Threads switch every microsecond (CPython's default is 5 ms), so racing threads interleave inside steps."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


class _Hold:
    """Wraps a callable so that its first call (from the thread under test) waits inside until ``release``."""

    def __init__(self, fn: Callable[..., Any]):
        self.fn = fn
        self.entered = threading.Event()
        self.go = threading.Event()
        self.calls = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        if self.calls == 1:
            self.entered.set()
            assert self.go.wait(10), "the test never released the held call"
        return self.fn(*args, **kwargs)


def _held_call(target: Callable[[], Any], hold: _Hold, second: Callable[[], Any]) -> BaseException | None:
    """Run ``target`` in a thread, held inside ``hold``; meanwhile call ``second`` here and return what it raised."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            target()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    assert hold.entered.wait(10), "the worker never reached the held call"
    raised = None
    try:
        second()
    except BaseException as exc:
        raised = exc
    hold.go.set()
    worker.join(10)
    assert not worker.is_alive() and not errors, errors
    return raised


def _first_legal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


@pytest.mark.parametrize("profile", PROFILES)
def test_aec_env_refuses_a_step_while_another_thread_steps(profile: str) -> None:
    env = rummy_env.make(profile, wrapped=False)
    env.reset(seed=3)
    agent = env.agent_selection
    action = _first_legal(env.action_mask(agent))
    state = env._state
    hold = _Hold(state.apply_legal)
    state.apply_legal = hold  # the worker's step waits inside the engine transition
    raised = _held_call(lambda: env.step(action), hold, lambda: env.step(action))
    assert isinstance(raised, ConcurrentUseError), raised
    assert "thread" in str(raised) and "changed nothing" in str(raised)
    assert len(state.history) == 1, "only the worker's step was applied"
    del state.apply_legal
    again = env.game_state()
    assert load_state(again).to_json() == again
    # the same env goes on from one thread, and a reset while a step runs is refused too
    hold = _Hold(state.apply_legal)
    state.apply_legal = hold
    action = _first_legal(env.action_mask(env.agent_selection))
    raised = _held_call(lambda: env.step(action), hold, lambda: env.reset(seed=4))
    assert isinstance(raised, ConcurrentUseError), raised
    assert env._state is state, "the refused reset dealt a new game"
    del state.apply_legal
    # the reads that fill the engine's caches (the legal actions, the view snapshots) are refused during a step too
    for read in (lambda: env.last(), lambda: env.observe(agent), lambda: env.action_mask(agent),
                 lambda: env.public_view(agent)):
        hold = _Hold(state.apply_legal)
        state.apply_legal = hold
        action = _first_legal(env.action_mask(env.agent_selection))
        raised = _held_call(lambda a=action: env.step(a), hold, read)
        assert isinstance(raised, ConcurrentUseError), raised
        del state.apply_legal
    state.check_invariants()


@pytest.mark.parametrize("profile", PROFILES)
def test_vector_env_refuses_a_step_while_another_thread_steps(profile: str) -> None:
    vec = VectorEnv(profile, 3, seed=2, rounds=1)
    vec.reset()
    actions = random_legal_actions(vec.mask, np.random.default_rng(0))
    state = vec._states[2]
    hold = _Hold(state.apply_legal)
    state.apply_legal = hold
    before = [vec.game_state(i) for i in range(3)]
    raised = _held_call(lambda: vec.step(actions), hold, lambda: vec.step(actions))
    assert isinstance(raised, ConcurrentUseError), raised
    assert "VectorEnv" in str(raised)
    for i in range(3):  # each table moved once (the worker's step), not twice
        assert len(vec._states[i].history) == len(load_state(before[i]).history) + 1
    del state.apply_legal
    rng = np.random.default_rng(1)
    for second in (lambda: vec.reset(seed=9), lambda: vec.observe(0, 0), lambda: vec.public_view(1, 0),
                   lambda: vec.legal_actions(0), lambda: vec.random_actions(rng)):
        st = vec._states[0]
        hold = _Hold(st.apply_legal)
        st.apply_legal = hold
        actions = vec.random_actions(rng)
        raised = _held_call(lambda a=actions: vec.step(a), hold, second)
        assert isinstance(raised, ConcurrentUseError), raised
        del st.apply_legal


@pytest.mark.parametrize("profile", PROFILES)
def test_single_agent_env_refuses_a_step_while_another_thread_steps(profile: str) -> None:
    env = SingleAgentEnv(profile, opponents="random", rounds=1)
    env.reset(seed=0)
    action = _first_legal(env.action_masks())
    hold = _Hold(env.aec.step)
    env.aec.step = hold  # the worker's step waits inside the table's step
    raised = _held_call(lambda: env.step(action), hold, lambda: env.step(action))
    assert isinstance(raised, ConcurrentUseError), raised
    assert "SingleAgentEnv" in str(raised)
    del env.aec.step
    assert len(env.aec._state.history) >= 1
    env.step(_first_legal(env.action_masks()))  # usable again from one thread


def _race(step_once: Callable[[], bool], threads: int = 3, steps: int = 400) -> tuple[int, list[BaseException]]:
    """``threads`` threads call ``step_once`` (False: stop) up to ``steps`` times each; (refusals, other errors)."""
    refused = [0]
    other: list[BaseException] = []
    lock = threading.Lock()
    start = threading.Barrier(threads)

    def run() -> None:
        start.wait()
        for _ in range(steps):
            try:
                if not step_once():
                    return
            except ConcurrentUseError:
                with lock:
                    refused[0] += 1
            except IllegalActionError:
                pass  # another thread moved first: the action read was for the position before (state unchanged)
            except ValueError as exc:
                if "agent is dead" not in str(exc):  # else another thread ended the session first: PettingZoo
                    with lock:  # refuses an action of a terminated agent
                        other.append(exc)
                    return
            except BaseException as exc:  # noqa: BLE001 - anything else is a failure of the guard
                with lock:
                    other.append(exc)
                return

    workers = [threading.Thread(target=run) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    return refused[0], other


@pytest.mark.parametrize("profile", PROFILES)
def test_racing_threads_on_one_aec_env_never_corrupt_it(profile: str, fast_switching: None) -> None:
    refused = 0
    for seed in range(11, 16):  # until the threads have collided (hundreds of times a race, nearly always)
        env = rummy_env.make(profile, wrapped=False)
        env.reset(seed=seed)

        def step_once(env: Any = env) -> bool:
            if not env.agents or env.session_over:
                return False
            mask = env.action_mask(env.agent_selection)
            if not mask.any():
                return True
            env.step(_first_legal(mask))
            return True

        collisions, other = _race(step_once)
        assert not other, other
        env._state.check_invariants()  # every card exactly once, valid melds, a legal action if the game goes on
        assert load_state(env.game_state()).to_json() == env.game_state()
        refused += collisions
        if refused:
            break
    assert refused > 0, "the racing threads never collided (the deterministic tests above pin the refusal)"


def test_racing_threads_on_one_vector_env_never_corrupt_it(fast_switching: None) -> None:
    vec = VectorEnv("contract", 4, seed=1, rounds=1)
    vec.reset()
    local = threading.local()

    def step_once() -> bool:
        if not hasattr(local, "rng"):
            local.rng = np.random.default_rng(threading.get_ident())
        vec.step(vec.random_actions(local.rng))
        return True

    refused, other = _race(step_once, steps=150)
    assert not other, other
    for st in vec._states:
        st.check_invariants()
        assert load_state(st.to_json()).to_json() == st.to_json()
