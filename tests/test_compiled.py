"""The compiled twins (``rummy_env._compiled``, Cython builds of the hot rules modules) against the pure-Python
reference (issue 15: "a differential test over at least 10^6 random decision points (and the fuzzer) shows identical
legal actions, transitions and observations for both").

Each game is played twice from the same seed with the same move chooser, once per implementation (switched in this
process by ``rummy_env.core._impl.use``): at every decision point the seat to move, the legal actions, the state
JSON after the move and the acting seat's observation must be identical. The default run is a few seconds; the
``slow`` one plays more than 10^6 decision points over every profile and player count. Without a build the tests
that need it skip, except under ``CI=true``, where a missing build fails them (CI must test both implementations).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from collections.abc import Iterator
from typing import Any

import pytest

from rummy_env.core import _impl
from rummy_env.registry import GAMES, game
from rummy_env.testing.fuzz import fuzz
from rummy_env.testing.policies import biased_policy, uniform_policy

IN_CI = os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")

#: (profile, player count) of every profile
CASES = [(p, n) for p in sorted(GAMES) for n in game(p).player_counts]
#: cheap rule switches per profile (each played on its own)
SWITCHES = {
    "contract": [{"buy_needs_penalty_card": True}, {"swap_only_others_jokers": True}],
    "contract_gamerules": [
        {"extra_melds_after_opening": True},
        {"swap_only_others_jokers": True},
        {"final_round_discard": True},
    ],
    "continental": [],
}


@pytest.fixture
def compiled() -> Iterator[None]:
    """The compiled twins are built (else skip, or fail under CI); the implementation in use is restored after."""
    if not _impl.compiled_available():
        message = f"the compiled twins are not built; {_impl.BUILD_HINT}"
        if IN_CI:
            pytest.fail(f"CI must test both implementations: {message}")
        pytest.skip(message)
    before = _impl.implementation()
    yield
    _impl.use(before)


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


#: one game of the differential: (profile, players, seed, decision cap, policy, rule overrides, session rounds)
Game = tuple[str, int, int, int, str, dict[str, Any], Any]


def play(
    impl: str | None,
    profile: str,
    players: int,
    seed: int,
    decisions: int,
    policy: str,
    overrides: dict[str, Any],
    rounds: Any = None,
) -> list[tuple[Any, ...]]:
    """One seeded game (session length ``rounds``) under ``impl`` (None: the functions bound now), cut after
    ``decisions`` decisions: per decision point (seat, legal actions, digest of the state JSON after the move,
    digest of the acting seat's observation before it, and of its fast-path observation ``encode_state``)."""
    if impl is not None:
        _impl.use(impl)
    g = game(profile)
    rules = g.rules(num_players=players, **overrides)
    state = g.new_state(rules, seed=seed, rounds=rounds)
    observer = g.observer(rules, rounds)
    fast_observer = g.observer(rules, rounds)  # encode_state's own table cache, apart from encode's
    choose = biased_policy if policy == "biased" else uniform_policy
    rng = random.Random(seed)
    out = []
    while not state.is_terminal() and len(out) < decisions:
        seat = state.current
        legal = list(state.legal_actions())
        obs = observer.encode(state.public_view(seat))
        fast_obs = fast_observer.encode_state(state, seat)
        state.apply(choose(state, legal, rng))
        dump = json.dumps(state.to_json()).encode()  # the engine's own key order, the same under both
        out.append((seat, tuple(legal), _digest(dump), _digest(obs.tobytes()), _digest(fast_obs.tobytes())))
    return out


def first_difference(a: list[tuple[Any, ...]], b: list[tuple[Any, ...]]) -> str | None:
    """Where two traces of ``play`` part (decision index and what differs), or None when they are identical."""
    names = ("seat to move", "legal actions", "state JSON after the move", "observation", "fast-path observation")
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            what = [n for n, u, v in zip(names, x, y) if u != v]
            return f"decision {i}: {', '.join(what)} differ (python {x[:2]}, compiled {y[:2]})"
    if len(a) != len(b):
        return f"the games end at different decisions: python {len(a)}, compiled {len(b)}"
    return None


def differential(games: list[Game]) -> int:
    """Play every game under both implementations and assert identical traces; the decision points compared."""
    total = 0
    for profile, players, seed, decisions, policy, overrides, rounds in games:
        ref = play("python", profile, players, seed, decisions, policy, overrides, rounds)
        got = play("compiled", profile, players, seed, decisions, policy, overrides, rounds)
        where = first_difference(ref, got)
        assert where is None, f"{profile} {players}p seed {seed} {policy} {overrides} rounds {rounds}: {where}"
        # the fast path (encode_state, straight from the state) writes the reference observation encode(view)
        odd = next((i for i, point in enumerate(ref) if point[3] != point[4]), None)
        assert odd is None, f"{profile} {players}p seed {seed}: encode_state differs from encode(view) at {odd}"
        total += len(ref)
    return total


def _one_round(profile: str, seed: int) -> Any:
    """A one-round session, the round number cycling with the seed (every contract, the final round included):
    short sessions keep the state JSON, which holds the whole history, small."""
    if game(profile).family == "contract":
        return ((seed % len(game(profile).rules().contracts)) + 1,)
    return 1


def _games(seeds: range, decisions: int) -> list[Game]:
    """Every (profile, player count) and rule switch, each for ``seeds``, the policies alternating."""
    out = []
    for profile, players in CASES:
        for overrides in [{}, *SWITCHES[profile]]:
            if overrides and players != game(profile).default_players:
                continue  # the switches at the default player count only
            for seed in seeds:
                policy = ("uniform", "biased")[seed % 2]
                out.append((profile, players, seed, decisions, policy, overrides, _one_round(profile, seed)))
    return out


def test_the_selected_implementation_is_reported() -> None:
    import rummy_env
    from rummy_env.core import melds

    assert rummy_env.implementation() in ("python", "compiled")
    expected = "rummy_env._compiled.melds" if rummy_env.implementation() == "compiled" else "rummy_env.core.melds"
    assert melds.can_make_contract.__module__ == expected


def test_a_bad_selection_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_impl.ENV_VAR, "fast")
    with pytest.raises(_impl.ImplementationError, match="allowed: auto, python, compiled"):
        _impl.requested()
    with pytest.raises(ValueError, match="allowed"):
        _impl.use("fast")


def test_compiled_without_a_build_names_the_build_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_impl, "compiled_available", lambda: False)
    with pytest.raises(_impl.CompiledNotBuiltError, match="pip install"):
        _impl.use("compiled")
    assert _impl._resolve("auto") == "python"


def test_twins_built_from_older_sources_are_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_impl, "_stale", ["rummy_env._compiled.melds"])
    monkeypatch.setattr(_impl.importlib.util, "find_spec", lambda name: object())  # as if every twin were built
    with pytest.warns(RuntimeWarning, match="older sources"):
        assert _impl.compiled_available() is False
    with pytest.raises(_impl.CompiledNotBuiltError, match="older sources"), pytest.warns(RuntimeWarning):
        _impl._resolve("compiled")


def test_python_swaps_every_name_the_engines_imported(compiled: None) -> None:
    from rummy_env.engine import continental, contract
    from rummy_env.rules import contract_opening

    _impl.use("python")
    assert contract.opening_melds is contract_opening.opening_melds
    assert contract.opening_melds.__module__ == "rummy_env.rules.contract_opening"
    assert continental._can_go_out.__module__ == "rummy_env.rules.continental_hand"
    _impl.use("compiled")
    assert contract.opening_melds.__module__ == "rummy_env._compiled.contract_opening"
    assert continental._can_go_out.__module__ == "rummy_env._compiled.continental_hand"
    assert contract.can_make_contract.__module__ == "rummy_env._compiled.melds"


def test_both_implementations_play_identical_games(compiled: None) -> None:
    n = differential(_games(range(7), 60))
    assert n >= 3000


def test_the_comparison_catches_an_altered_twin(compiled: None) -> None:
    """A compiled function altered on purpose (the last opening meld dropped) must be caught."""
    twin = _impl.functions("compiled")["rummy_env.rules.contract_opening"]["opening_melds"]

    def altered(*args: Any, **kwargs: Any) -> list[int]:
        out = twin(*args, **kwargs)
        return out[:-1] if len(out) > 1 else out

    ref = play("python", "contract", 4, 1, 300, "biased", {})
    _impl.use("compiled")
    assert _impl.rebind({id(twin): altered}, include_twins=True) >= 1
    try:
        got = play(None, "contract", 4, 1, 300, "biased", {})
    finally:
        _impl.rebind({id(altered): twin}, include_twins=True)
    where = first_difference(ref, got)
    assert where is not None and "legal actions" in where, where
    assert first_difference(ref, play("compiled", "contract", 4, 1, 300, "biased", {})) is None


def _fuzz_every_profile(impl: str, decisions: int, seed: int) -> None:
    """The fuzzer over every profile under ``impl``: no invariant violated."""
    _impl.use(impl)
    for profile in sorted(GAMES):
        res = fuzz(profile=profile, decisions=decisions, seed=seed)
        assert res["violations"] == 0, res.get("examples")


@pytest.mark.parametrize("impl", ["python", "compiled"])
def test_the_fuzzer_finds_nothing_under_either(impl: str, compiled: None) -> None:
    _fuzz_every_profile(impl, decisions=1_500, seed=3)


#: the slow differential's share of each (profile, part): 6 x 170,000 > 10^6 decision points, in parts that
#: pytest-xdist can spread over its workers
SLOW_POINTS = 170_000


@pytest.mark.slow
@pytest.mark.parametrize("part", [0, 1])
@pytest.mark.parametrize("profile", sorted(GAMES))
def test_compiled_differential_a_million_decision_points(profile: str, part: int, compiled: None) -> None:
    """More than 10^6 decision points in all (every profile, player count, switch and round number; whole rounds;
    new seeds until the share is reached)."""
    n = 0
    seed = 1_000 + 1_000_000 * part
    while n < SLOW_POINTS:
        n += differential([g for g in _games(range(seed, seed + 1), 10**7) if g[0] == profile])
        seed += 1
    assert n >= SLOW_POINTS


@pytest.mark.slow
@pytest.mark.parametrize("impl", ["python", "compiled"])
def test_compiled_fuzzer_long_run_under_either(impl: str, compiled: None) -> None:
    _fuzz_every_profile(impl, decisions=20_000, seed=11)


def _setup_namespace() -> dict[str, Any]:
    """setup.py's definitions (``TWINS``, ``source_digest``, ``drop_outdated_c`` ...), without running setup()."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "setup.py").read_text(encoding="utf-8")
    ns: dict[str, Any] = {"__name__": "setup_under_test"}
    exec(compile(text.rsplit("setup(ext_modules", 1)[0], "setup.py", "exec"), ns)
    return ns


def test_source_digest_covers_the_typing_pxd(tmp_path, monkeypatch) -> None:
    """A twin typed by a ``.pxd`` is stale after an edit of the ``.pxd`` alone; setup.py records the same digest."""
    from pathlib import Path

    src, pxd = tmp_path / "mod.py", tmp_path / "mod.pxd"
    src.write_text("x = 1\n")
    plain = _impl.source_digest(str(src), str(pxd))
    pxd.write_text("cdef int x\n")
    typed = _impl.source_digest(str(src), str(pxd))
    pxd.write_text("cdef long x\n")
    assert len({plain, typed, _impl.source_digest(str(src), str(pxd))}) == 3
    root = Path(__file__).resolve().parents[1]
    ns = _setup_namespace()
    monkeypatch.chdir(root)
    assert ns["source_digest"]("rummy_env/encoding/fast.py", "rummy_env._compiled.fast_observation") == (
        _impl.source_digest("rummy_env/encoding/fast.py", "rummy_env/_compiled/fast_observation.pxd")
    )
    assert ns["source_digest"]("rummy_env/encoding/fast.py", "rummy_env._compiled.fast_observation") != (
        _impl.source_digest("rummy_env/encoding/fast.py", "rummy_env/_compiled/no_such.pxd")
    )


def test_setup_retranslates_a_twin_whose_pxd_is_newer(tmp_path, monkeypatch) -> None:
    """setup.py removes the generated C of a twin whose ``.pxd`` is newer (Cython does not track an augmenting
    ``.pxd`` of a ``.py``), and only that one; an older ``.pxd`` keeps its C file."""

    ns = _setup_namespace()
    monkeypatch.chdir(tmp_path)
    ns["TWINS"] = {"rummy_env._compiled.melds": "rummy_env/core/melds.py",
                   "rummy_env._compiled.fast_observation": "rummy_env/encoding/fast.py"}
    (tmp_path / "rummy_env" / "_compiled").mkdir(parents=True)
    for rel in ("build/cython/rummy_env/core/melds.c", "build/cython/rummy_env/encoding/fast.c"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("/* generated */")
    old, new = 1_000_000, 2_000_000
    for rel, when in (("build/cython/rummy_env/core/melds.c", old), ("build/cython/rummy_env/encoding/fast.c", new)):
        os.utime(tmp_path / rel, (when, when))
    for name in ("melds", "fast_observation"):
        (tmp_path / "rummy_env" / "_compiled" / f"{name}.pxd").write_text("cdef long x\n")
        os.utime(tmp_path / "rummy_env" / "_compiled" / f"{name}.pxd", (1_500_000, 1_500_000))
    removed = ns["drop_outdated_c"]("build/cython")
    assert removed == [os.path.join("build/cython", "rummy_env/core/melds.c")]
    assert not (tmp_path / "build/cython/rummy_env/core/melds.c").exists()
    assert (tmp_path / "build/cython/rummy_env/encoding/fast.c").exists()


def test_setup_retranslates_a_twin_whose_cimported_pxd_is_newer(tmp_path, monkeypatch) -> None:
    """A twin whose ``.pxd`` cimports another twin's (``cimport rummy_env._compiled.melds``, as contract_opening's
    does) is translated again when that other ``.pxd`` is newer than its C file: its C code calls the other's C
    functions by their declared signatures."""
    ns = _setup_namespace()
    monkeypatch.chdir(tmp_path)
    ns["TWINS"] = {"rummy_env._compiled.melds": "rummy_env/core/melds.py",
                   "rummy_env._compiled.contract_opening": "rummy_env/rules/contract_opening.py"}
    folder = tmp_path / "rummy_env" / "_compiled"
    folder.mkdir(parents=True)
    (folder / "melds.pxd").write_text("cdef long f(long* c)\n")
    (folder / "contract_opening.pxd").write_text("import cython\n\ncimport rummy_env._compiled.melds as _melds\n")
    assert ns["typing_pxds"]("rummy_env._compiled.contract_opening") == [
        os.path.join("rummy_env", "_compiled", "contract_opening.pxd"), os.path.join("rummy_env", "_compiled", "melds.pxd")
    ]
    assert ns["typing_pxds"]("rummy_env._compiled.fast_observation") == []
    for rel in ("build/cython/rummy_env/core/melds.c", "build/cython/rummy_env/rules/contract_opening.c"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("/* generated */")
        os.utime(tmp_path / rel, (2_000_000, 2_000_000))
    os.utime(folder / "contract_opening.pxd", (1_000_000, 1_000_000))
    os.utime(folder / "melds.pxd", (1_000_000, 1_000_000))
    assert ns["drop_outdated_c"]("build/cython") == []
    os.utime(folder / "melds.pxd", (3_000_000, 3_000_000))  # an edit of melds.pxd alone
    assert sorted(ns["drop_outdated_c"]("build/cython")) == [
        os.path.join("build/cython", "rummy_env/core/melds.c"),
        os.path.join("build/cython", "rummy_env/rules/contract_opening.c"),
    ]
