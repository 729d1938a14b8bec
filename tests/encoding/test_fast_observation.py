"""The observers' fast path (``observer.encode_state(state, seat)``, ``rummy_env.encoding.fast``, compiled twin
``rummy_env._compiled.fast_observation``) against the reference ``observer.encode(state.public_view(seat))``.

The fast path writes a seat's observation straight from the engine state, without building the view; it must give
the same float32 vector, bit for bit, at every decision point and for every seat, under both implementations,
through the observer, the AEC env's ``observe`` and ``VectorEnv``'s arrays; and, like the view, it must not change
when the cards the seat cannot see are redealt. The tests run under the implementation this process selected
(``RUMMY_ENV_IMPL``, chosen once at import), and the whole module runs again in a child pytest under the other one
(``test_the_same_under_the_other_implementation``). The differentials of ``tests/core/test_compiled.py`` compare it too.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import numpy as np
import pytest
from implementations import rerun_under_the_other_implementation

import rummy_env
from rummy_env.core import _impl
from rummy_env.encoding import fast
from rummy_env.encoding.observation import ObservationOutError
from rummy_env.engine.contract import ContractState
from rummy_env.engine.view import ENGINE_VIEWS, ViewSeatError, contract_view, register_view
from rummy_env.registry import game
from rummy_env.vector import VectorEnv

#: (profile, player count, rule overrides) of the bounded differential: every profile, contract_gamerules at each
#: player count, and the rules that add pieces (deep pickup's must_place, buying's offered card)
CASES = [
    ("contract", 4, {}),
    ("contract", 4, {"buy_needs_penalty_card": True}),
    ("contract_gamerules", 3, {}),
    ("contract_gamerules", 4, {}),
    ("contract_gamerules", 5, {}),
    ("contract_gamerules", 4, {"deep_pickup": False}),
    ("continental", 4, {}),
    ("continental", 5, {}),
]
IDS = [f"{p}-{n}p" + ("-" + "-".join(o) if o else "") for p, n, o in CASES]
#: the implementation this process runs (``RUMMY_ENV_IMPL``); the other one runs this module in a child pytest
IMPL = _impl.implementation()


def test_the_same_under_the_other_implementation() -> None:
    rerun_under_the_other_implementation(__file__)


def _rules(profile: str, n: int, overrides: dict[str, Any]) -> Any:
    g = game(profile)
    return g.rules(**overrides) if g.min_players == g.max_players else g.rules(num_players=n, **overrides)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype == np.float32 and a.shape == b.shape and np.array_equal(a, b)


def differential(profile: str, n: int, overrides: dict[str, Any], seeds: range, decisions: int) -> int:
    """Random legal play (whole sessions of one round, cut after ``decisions``); at every decision point every
    seat's ``encode_state`` is compared with ``encode(public_view)`` (one observer each: their caches are apart,
    and the fast path's is reused across the game). Returns the observations compared."""
    g = game(profile)
    rules = _rules(profile, n, overrides)
    compared = 0
    for seed in seeds:
        rounds = ((seed % len(rules.contracts)) + 1,) if g.family == "contract" else 1
        state = g.new_state(rules, seed=seed, rounds=rounds)
        ref, fast_obs = g.observer(rules, rounds), g.observer(rules, rounds)
        row = np.full(fast_obs.size, 9.0, dtype=np.float32)  # stale contents: the fast path must clear them
        rng = random.Random(seed)
        for step in range(decisions):
            for seat in range(state.n):
                want = ref.encode(state.public_view(seat))
                got = fast_obs.encode_state(state, seat) if (step + seat) % 2 else fast_obs.encode_state(
                    state, seat, out=row)
                assert _same(want, got), (
                    f"{profile} {n}p {overrides} seed {seed} decision {step} seat {seat} phase {state.phase}: "
                    f"entries {np.flatnonzero(want != got)[:10].tolist()} differ"
                )
                compared += 1
            if state.is_terminal():
                break
            state.apply(rng.choice(list(state.legal_actions())))
    return compared


@pytest.mark.parametrize(("profile", "n", "overrides"), CASES, ids=IDS)
def test_fast_path_equals_the_reference(profile: str, n: int, overrides: dict[str, Any]) -> None:
    assert fast.encode_contract_state.__module__ == (
        "rummy_env._compiled.fast_observation" if IMPL == "compiled" else "rummy_env.encoding.fast"
    )
    assert differential(profile, n, overrides, range(3), 150) > 1000


def test_the_comparison_catches_an_altered_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fast path that leaves one entry out (the discard top) must be caught."""
    real = fast.encode_contract_state

    def altered(obs: Any, st: Any, seat: int, arr: np.ndarray, out: Any) -> None:
        real(obs, st, seat, arr, out)
        if st.discard:
            arr[obs.pieces.offsets["discard_top"] + st.discard[-1]] = 0.0

    monkeypatch.setattr(fast, "encode_contract_state", altered)  # the observer looks it up on each call
    with pytest.raises(AssertionError, match="differ"):
        differential("contract", 4, {}, range(1), 50)


@pytest.mark.parametrize("profile", ["contract", "contract_gamerules", "continental"])
def test_unchanged_when_hidden_cards_are_redealt(profile: str) -> None:
    """What a seat sees may not depend on opponents' hands or the stock order: redealing every card the seat
    cannot see (``state.resample_hidden``) leaves its fast-path observation as it was."""
    g = game(profile)
    rules = g.rules()
    state = g.new_state(rules, seed=5)
    obs = g.observer(rules, None)
    rng = random.Random(5)
    np_rng = np.random.Generator(np.random.PCG64(5))
    redealt = 0
    for _ in range(120):
        for seat in range(state.n):
            mine = obs.encode_state(state, seat)
            other = state.resample_hidden(seat, np_rng)
            redealt += other.stock != state.stock
            assert _same(obs.encode_state(other, seat), mine), f"seat {seat}, phase {state.phase}"
        if state.is_terminal():
            break
        state.apply(rng.choice(list(state.legal_actions())))
    assert redealt > 100


@pytest.mark.parametrize("profile", ["contract", "contract_gamerules", "continental"])
def test_aec_and_vector_envs_write_the_reference_observation(profile: str) -> None:
    """``observe(agent)["observation"]`` of the AEC env and every row of ``VectorEnv.obs`` (the mask rows too)
    are the reference encoding of the seat to move."""
    env = rummy_env.make(profile, wrapped=False)
    env.reset(seed=2)
    raw = env.unwrapped
    ref = game(profile).observer(raw.rules, None)
    rng = random.Random(2)
    for _ in range(150):
        if raw.session_over:
            break
        agent = env.agent_selection
        got = env.observe(agent)["observation"]
        assert _same(got, ref.encode(raw.public_view(agent)))
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
    vec = VectorEnv(profile, 3, seed=4)
    obs, mask, seat = vec.reset()
    refs = [game(profile).observer(vec.rules, None) for _ in range(3)]
    vec_rng = np.random.default_rng(4)
    for _ in range(150):
        for i in range(3):
            view = vec.public_view(i, int(seat[i]))
            assert _same(obs[i], refs[i].encode(view)), f"table {i}"
            assert np.flatnonzero(mask[i]).tolist() == sorted(vec.legal_actions(i)), f"table {i}"
        actions = np.array([vec_rng.choice(np.flatnonzero(mask[i])) for i in range(3)])
        obs, mask, seat, _rewards, _done = vec.step(actions)


def test_vector_env_writes_through_views_of_the_selected_implementation() -> None:
    """``VectorEnv`` writes through row views made by the selected implementation of ``encoding.fast``
    (``float_view`` / ``byte_view``: the twin's typed memoryviews, which it takes back at no cost), again after a
    copy (the views are made afresh), and the rows are the reference encoding and the legal actions."""
    vec = VectorEnv("contract", 2, seed=6)
    obs, mask, seat = vec.reset()
    ref = game("contract").observer(vec.rules, None)
    vec_rng = np.random.default_rng(6)
    for step in range(80):
        if step == 40:
            vec = copy.deepcopy(vec)
            obs, mask, seat = vec.obs, vec.mask, vec.seat
        for i in range(2):
            assert _same(obs[i], ref.encode(vec.public_view(i, int(seat[i])))), (step, i)
            assert np.flatnonzero(mask[i]).tolist() == sorted(vec.legal_actions(i)), (step, i)
        actions = np.array([vec_rng.choice(np.flatnonzero(mask[i])) for i in range(2)])
        obs, mask, seat, _rewards, _done = vec.step(actions)
    kind = "_memoryviewslice" if IMPL == "compiled" else "memoryview"
    assert {type(v).__name__ for v in vec._obs_views} == {kind}


def test_bad_seat_and_bad_out_are_refused() -> None:
    g = game("contract")
    rules = g.rules()
    state = g.new_state(rules, seed=1)
    obs = g.observer(rules, None)
    with pytest.raises(ViewSeatError, match="0..3"):
        obs.encode_state(state, 4)
    with pytest.raises(ObservationOutError, match="float32"):
        obs.encode_state(state, 0, out=np.zeros(obs.size, dtype=np.float64))
    with pytest.raises(ObservationOutError):
        obs.encode_state(state, 0, out=np.zeros(obs.size + 1, dtype=np.float32))
    assert _same(obs.encode_state(state, np.int64(2)), obs.encode(state.public_view(2)))


def test_an_engine_with_its_own_view_builder_goes_through_its_view() -> None:
    """A state whose views another builder makes (``register_view``) is encoded from its view: the fast path
    reads only what ``contract_view`` puts in a view."""

    class Masked(ContractState):
        pass

    def masked_view(state: Any, seat: int) -> Any:
        import dataclasses

        view = contract_view(state, seat)
        return dataclasses.replace(view, hand=(0,) * len(view.hand))  # this engine hides even the own hand

    register_view(Masked, masked_view)
    try:
        g = game("contract")
        rules = g.rules()
        state = g.new_state(rules, seed=1)
        state.__class__ = Masked
        obs = g.observer(rules, None)
        got = obs.encode_state(state, 0)
        assert _same(got, obs.encode(masked_view(state, 0)))
        assert not got[obs.pieces.slice("hand")].any()
    finally:
        del ENGINE_VIEWS[Masked]
