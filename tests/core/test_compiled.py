"""The compiled twins (``rummy_env._compiled``, Cython builds of the hot modules) against the pure-Python reference
(issue 15: "a differential test over at least 10^6 random decision points (and the fuzzer) shows identical legal
actions, transitions and observations for both").

The implementation is chosen once per process, at import, by ``RUMMY_ENV_IMPL`` (``rummy_env/core/_impl.py``):
nothing switches a running process, so the two are compared in two ways.

- Function level, in this process: every function a hot module hands to its twin (``_impl.functions``) is called as
  the reference and as the twin on the same inputs -- the calls the reference made in seeded games of every
  profile, recorded with their answers by a child process running the reference -- and must give the same answer
  and leave its list arguments as they were.
- Engine level, in child processes: the same seeded games (every profile, player count and cheap rule switch, a
  uniform and a biased move chooser) are played by one child per implementation (``RUMMY_ENV_IMPL=python`` /
  ``compiled``, ``python -c``, side by side), each writing per decision point the seat to move, the legal actions
  and digests of the state JSON after the move and of the acting seat's observation (``encode`` of its view, and
  the fast path ``encode_state``), and the final returns; the two traces must be identical. The fuzzer runs under
  both the same way.

The default run is a few seconds; the ``slow`` one plays more than 10^6 decision points over every profile and player
count. ``implementations.rerun_under_the_other_implementation`` runs a test module again in a child pytest under the implementation
this process does not run (``tests/encoding/test_fast_observation.py``, ``tests/envs/test_copy_pickle.py``). Without a build the
tests that need it skip, except under ``CI=true``, where a missing build fails them (CI must test both).
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import random
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from implementations import ROOT, need_compiled

from rummy_env.core import _impl
from rummy_env.registry import GAMES, game
from rummy_env.testing.fuzz import fuzz
from rummy_env.testing.policies import biased_policy, uniform_policy

#: this file's folder: the children run there, and find this module and ``implementations`` (one up) on their path
TESTS = Path(__file__).resolve().parent
IMPLS = ("python", "compiled")

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


# child processes ---------------------------------------------------------------------------------------------------
#: what a child runs: ``child(job, out)`` of this module, after an optional alteration of a hot function made before
#: any engine imports it (``alter``: the last opening meld dropped, for the test that the comparison catches it)
CHILD = """
import json, sys
job = json.loads(sys.argv[1])
if job.get("alter"):
    from rummy_env.rules import contract_opening as co
    real = co.opening_melds
    co.opening_melds = lambda *a, **k: (lambda out: out[:-1] if len(out) > 1 else out)(real(*a, **k))
import test_compiled
test_compiled.child(job, sys.argv[2])
"""


def run_children(jobs: dict[str, dict[str, Any]], timeout: float = 3_000) -> dict[str, Any]:
    """``child(jobs[impl])`` in one child process per implementation (``RUMMY_ENV_IMPL=impl``, the same hash seed),
    run side by side; their answers (JSON, or the path of a pickle for ``record``) by implementation."""
    with tempfile.TemporaryDirectory() as folder:
        procs = {}
        for impl, job in jobs.items():
            path = os.pathsep.join([str(TESTS), str(ROOT / "tests"), os.environ.get("PYTHONPATH", "")])
            env = {**os.environ, _impl.ENV_VAR: impl, "PYTHONHASHSEED": "0", "PYTHONPATH": path}
            out = os.path.join(folder, f"{impl}.out")
            cmd = [sys.executable, "-c", CHILD, json.dumps(job), out]
            procs[impl] = (subprocess.Popen(cmd, cwd=TESTS, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                            text=True), out)
        answers = {}
        for impl, (proc, out) in procs.items():
            log, _ = proc.communicate(timeout=timeout)
            assert proc.returncode == 0, f"the {impl} child failed:\n{log[-4000:]}"
            with open(out, "rb") as f:
                data = f.read()
            answers[impl] = pickle.loads(data) if jobs[impl]["kind"] == "record" else json.loads(data)
        return answers


def child(job: dict[str, Any], out: str) -> None:
    """A child process's work (``run_children``), its answer written to ``out``: ``play`` (traces of the games,
    which implementation every name bound in the package holds, and the fuzzer's answer when asked), ``digests``
    (the slow differential's share, a digest per decision), ``fuzz`` or ``record`` (the reference's calls, pickled)."""
    kind = job["kind"]
    if kind == "record":
        with open(out, "wb") as f:
            pickle.dump(record_calls([tuple(g) for g in job["games"]], job["per_function"]), f)
        return
    if kind == "play":
        answer: Any = {"bound": bound_implementations(), "traces": [play(*g) for g in job["games"]]}
        if "fuzz" in job:
            answer["fuzz"] = fuzz_every_profile(**job["fuzz"])
    elif kind == "digests":
        answer = slow_share(job["profile"], job["part"], job["points"])
    elif kind == "fuzz":
        answer = fuzz_every_profile(job["decisions"], job["seed"])
    else:
        raise ValueError(f"unknown job {kind!r}")
    with open(out, "w", encoding="utf-8") as f:
        json.dump(answer, f)


def fuzz_every_profile(decisions: int, seed: int) -> dict[str, Any]:
    """Profile -> [violations, examples] of the fuzzer (``rummy_env.testing.fuzz``) over every profile."""
    out = {}
    for profile in sorted(GAMES):
        res = fuzz(profile=profile, decisions=decisions, seed=seed)
        out[profile] = [res["violations"], res.get("examples")]
    return out


def bound_implementations() -> dict[str, list[str]]:
    """Implementation -> every ``module.name`` of a loaded package module (twins aside) that holds one of that
    implementation's hot functions: the package binds the chosen implementation's functions only."""
    reference = {id(f) for fns in _impl.functions("python").values() for f in fns.values()}
    twins = set(_impl.TWINS.values())
    found: dict[str, list[str]] = {}
    for name, module in sorted(sys.modules.items()):
        if module is None or not name.startswith("rummy_env") or name.startswith("rummy_env._compiled"):
            continue
        for key, value in vars(module).items():
            if id(value) in reference:
                found.setdefault("python", []).append(f"{name}.{key}")
            elif getattr(value, "__module__", None) in twins:
                found.setdefault("compiled", []).append(f"{name}.{key}")
    return found


# the engine-level differential -------------------------------------------------------------------------------------
def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


#: one game of the differential: (profile, players, seed, decision cap, policy, rule overrides, session rounds)
Game = tuple[str, int, int, int, str, dict[str, Any], Any]


def play(
    profile: str, players: int, seed: int, decisions: int, policy: str, overrides: dict[str, Any], rounds: Any = None
) -> dict[str, Any]:
    """One seeded game (session length ``rounds``), cut after ``decisions`` decisions: ``points``, per decision
    point [seat, legal actions, digest of the state JSON after the move, digest of the acting seat's observation
    before it, and of its fast-path observation ``encode_state``], and ``returns`` (None for a game cut short)."""
    g = game(profile)
    rules = g.rules(num_players=players, **overrides)
    rounds = tuple(rounds) if isinstance(rounds, list) else rounds  # (a tuple that came through JSON)
    state = g.new_state(rules, seed=seed, rounds=rounds)
    observer = g.observer(rules, rounds)
    fast_observer = g.observer(rules, rounds)  # encode_state's own table cache, apart from encode's
    choose = biased_policy if policy == "biased" else uniform_policy
    rng = random.Random(seed)
    points = []
    while not state.is_terminal() and len(points) < decisions:
        seat = state.current
        legal = list(state.legal_actions())
        obs = observer.encode(state.public_view(seat))
        fast_obs = fast_observer.encode_state(state, seat)
        state.apply(choose(state, legal, rng))
        dump = json.dumps(state.to_json()).encode()  # the engine's own key order, the same under both
        points.append([seat, legal, _digest(dump), _digest(obs.tobytes()), _digest(fast_obs.tobytes())])
    return {"points": points, "returns": state.returns() if state.is_terminal() else None}


def first_difference(a: dict[str, Any], b: dict[str, Any]) -> str | None:
    """Where two traces of ``play`` part (decision index and what differs), or None when they are identical."""
    names = ("seat to move", "legal actions", "state JSON after the move", "observation", "fast-path observation")
    for i, (x, y) in enumerate(zip(a["points"], b["points"])):
        if x != y:
            what = [n for n, u, v in zip(names, x, y) if u != v]
            return f"decision {i}: {', '.join(what)} differ (python {x[:2]}, compiled {y[:2]})"
    if len(a["points"]) != len(b["points"]):
        return f"the games end at different decisions: python {len(a['points'])}, compiled {len(b['points'])}"
    if a["returns"] != b["returns"]:
        return f"the final returns differ: python {a['returns']}, compiled {b['returns']}"
    return None


def differential(games: list[Game]) -> int:
    """Play every game in one child per implementation and assert identical traces (``compare``)."""
    return compare(games, run_children({impl: {"kind": "play", "games": games} for impl in IMPLS}))


def compare(games: list[Game], answers: dict[str, Any]) -> int:
    """Assert identical traces of ``games`` from the children (``answers`` of ``run_children``), the fast path
    equal to ``encode``, and that each child's package binds its own implementation's functions only; the
    decision points compared."""
    bound = {impl: answers[impl]["bound"] for impl in IMPLS}
    for impl in IMPLS:
        assert list(bound[impl]) == [impl], f"the {impl} child binds {sorted(bound[impl])}'s functions"
    assert bound["python"]["python"] == bound["compiled"]["compiled"]  # the same names, bound at import
    total = 0
    for g, ref, got in zip(games, answers["python"]["traces"], answers["compiled"]["traces"]):
        where = first_difference(ref, got)
        assert where is None, f"{g}: {where}"
        # the fast path (encode_state, straight from the state) writes the reference observation encode(view)
        odd = next((i for i, point in enumerate(ref["points"]) if point[3] != point[4]), None)
        assert odd is None, f"{g}: encode_state differs from encode(view) at decision {odd}"
        total += len(ref["points"])
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


def slow_share(profile: str, part: int, points: int) -> list[Any]:
    """The slow differential's share of a child: whole games of ``profile`` (every player count, switch and round
    number), new seeds from ``part``'s until ``points`` decision points are played; per game [the game, one digest
    per decision point, the final returns, the first decision where the fast path differs from ``encode``]."""
    out: list[Any] = []
    n = 0
    seed = 1_000 + 1_000_000 * part
    while n < points:
        for g in _games(range(seed, seed + 1), 10**7):
            if g[0] != profile:
                continue
            trace = play(*g)
            marks = [_digest(json.dumps(p).encode())[:16] for p in trace["points"]]
            odd = next((i for i, p in enumerate(trace["points"]) if p[3] != p[4]), None)
            out.append([g, marks, trace["returns"], odd])
            n += len(marks)
        seed += 1
    return out


# the function-level differential -----------------------------------------------------------------------------------
def record_calls(games: list[Game], per_function: int) -> list[tuple[str, str, bytes, bytes]]:
    """The calls of the reference's hot functions while ``games`` are played (in a process running the reference):
    (module, name, pickled arguments by name as they came in, pickled answer), at most ``per_function`` of each
    function, the later ones skipped. Calls whose arguments or answer do not pickle (the fast path's memoryviews)
    are left out: the engine-level differential covers them."""
    targets = {f.__code__: (m, n) for m, fns in _impl.functions("python").items() for n, f in fns.items()}
    taken: Counter[tuple[str, str]] = Counter()
    pending: dict[int, tuple[tuple[str, str], bytes]] = {}
    records = []

    def hook(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            key = targets.get(frame.f_code)
            if key is None or taken[key] >= per_function:
                return
            code = frame.f_code
            names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
            try:
                pending[id(frame)] = (key, pickle.dumps({n: frame.f_locals[n] for n in names}))
            except (TypeError, pickle.PicklingError):
                pass
        elif event == "return" and id(frame) in pending:
            key, args = pending.pop(id(frame))
            try:
                records.append((*key, args, pickle.dumps(arg)))
            except (TypeError, pickle.PicklingError):
                return
            taken[key] += 1

    sys.setprofile(hook)
    try:
        for g in games:
            play(*g)
    finally:
        sys.setprofile(None)
    return records


def same_answer(a: Any, b: Any) -> bool:
    """Equal answers: arrays by dtype and content, anything else by ``==`` and type."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    return type(a) is type(b) and a == b


# tests -------------------------------------------------------------------------------------------------------------
def test_the_selected_implementation_is_bound_everywhere() -> None:
    """The package holds the selected implementation's functions wherever it imported them (the hot modules and
    every importer), and handing out both sets (``functions``) binds nothing anywhere."""
    import rummy_env
    from rummy_env.core import melds
    from rummy_env.engine import contract_legal

    impl = rummy_env.implementation()
    assert impl in IMPLS
    expected = "rummy_env._compiled.melds" if impl == "compiled" else "rummy_env.core.melds"
    assert melds.can_make_contract.__module__ == expected
    assert contract_legal.opening_melds.__module__ == expected.replace("melds", "contract_opening").replace(
        "core.", "rules.")
    before = bound_implementations()
    assert list(before) == [impl] and "rummy_env.engine.contract_legal.opening_melds" in before[impl]
    if _impl.compiled_available():
        twins = _impl.functions("compiled")
        assert twins["rummy_env.core.melds"]["can_make_contract"].__module__ == "rummy_env._compiled.melds"
    reference = _impl.functions("python")
    assert set(reference) == set(_impl.TWINS)
    assert reference["rummy_env.core.melds"]["can_make_contract"].__module__ == "rummy_env.core.melds"
    assert bound_implementations() == before
    assert not hasattr(_impl, "use") and not hasattr(_impl, "rebind")  # no switch of a running process


def test_a_bad_selection_is_refused_at_import(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_impl.ENV_VAR, "fast")
    with pytest.raises(_impl.ImplementationError, match="allowed: auto, python, compiled"):
        _impl.requested()
    with pytest.raises(ValueError, match="allowed"):
        _impl.functions("fast")
    proc = subprocess.run([sys.executable, "-c", "import rummy_env"], capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and "allowed: auto, python, compiled" in proc.stderr


def test_compiled_without_a_build_names_the_build_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_impl, "compiled_available", lambda: False)
    with pytest.raises(_impl.CompiledNotBuiltError, match="pip install"):
        _impl._resolve("compiled")
    with pytest.raises(_impl.CompiledNotBuiltError, match="pip install"):
        _impl.functions("compiled")
    assert _impl._resolve("auto") == "python"


def test_twins_built_from_older_sources_are_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_impl, "_stale", ["rummy_env._compiled.melds"])
    monkeypatch.setattr(_impl.importlib.util, "find_spec", lambda name: object())  # as if every twin were built
    with pytest.warns(RuntimeWarning, match="older sources"):
        assert _impl.compiled_available() is False
    with pytest.raises(_impl.CompiledNotBuiltError, match="older sources"), pytest.warns(RuntimeWarning):
        _impl._resolve("compiled")


#: games whose calls the function-level differential records: every contract-family round kind (groups and runs, the
#: all-runs final round; extra melds after the opening and the final round's discard switched on in one profile)
#: and continental rounds, with the move chooser that reaches openings, lay-offs and going out
RECORDED_GAMES: list[Game] = [
    *((p, 4, seed, 250, "biased", o, (rnd,)) for p, o in (
        ("contract", {}), ("contract_gamerules", {"final_round_discard": True, "extra_melds_after_opening": True}),
    ) for rnd, seed in ((1, 0), (3, 1), (5, 2), (7, 3))),
    *(("continental", 4, seed, 600, "biased", {}, 1) for seed in range(2)),
]
#: the listed functions those games do not reach: the fast path's writers (memoryview arguments: the engine-level
#: differential covers them), two only tests call (``tests/engine/test_legal_fast.py`` compares them), and ``payment_w``
#: and ``fits_after_layoff``, which the test calls itself
NOT_RECORDED = {
    "rummy_env.encoding.fast." + n for n in ("encode_contract_state", "encode_continental_state", "write_mask",
                                             "float_view", "byte_view")
} | {"rummy_env.core.melds._groups_possible", "rummy_env.rules.contract_opening.opening_rest_ok",
     "rummy_env.rules.continental_hand.payment_w", "rummy_env.rules.contract_layoff.fits_after_layoff"}


def test_each_twin_function_answers_as_the_reference() -> None:
    """Function level: the calls of every hot function in seeded games (recorded by a child running the reference),
    replayed here through the reference and the twin: the recorded answer from both, and the list arguments left
    alike (a search restores what it changes; ``_take_run`` takes cards out of its counts)."""
    need_compiled()
    records = run_children({"python": {"kind": "record", "games": RECORDED_GAMES, "per_function": 80}})["python"]
    both = {impl: _impl.functions(impl) for impl in IMPLS}
    compared: Counter[str] = Counter()
    for module, name, args_blob, answer_blob in records:
        want = pickle.loads(answer_blob)
        left = []
        for impl in IMPLS:
            args = pickle.loads(args_blob)
            got = both[impl][module][name](**args)
            assert same_answer(got, want), f"{impl} {module}.{name}({pickle.loads(args_blob)}): {got!r}, not {want!r}"
            left.append({k: v for k, v in args.items() if isinstance(v, list)})
        assert left[0] == left[1], f"{module}.{name}({pickle.loads(args_blob)}) leaves its lists otherwise compiled"
        compared[f"{module}.{name}"] += 1
    listed = {f"{m}.{n}" for m, fns in both["python"].items() for n in fns}
    assert listed - set(compared) == NOT_RECORDED and sum(compared.values()) > 1_500
    # the two the games do not reach: on hands of their own, and on the table of a game played here
    py, twin = both["python"], both["compiled"]
    ch, lo = "rummy_env.rules.continental_hand", "rummy_env.rules.contract_layoff"
    rng = random.Random(3)
    for _ in range(300):
        hand = [rng.choice((0, 0, 0, 1, 2)) for _ in range(53)]
        assert py[ch]["payment_w"](hand) == twin[ch]["payment_w"](hand), hand
    g = game("contract")
    state = g.new_state(g.rules(), seed=1, rounds=(2,))
    while len(state.table) < 4 and not state.is_terminal():
        state.apply(biased_policy(state, list(state.legal_actions()), rng))
    fits = 0
    for meld in state.table:
        for end in py[lo]["meld_ends"](meld):
            for kind in (k for k in range(53) if py["rummy_env.core.melds"]["layoff_fits"](meld, k, end, state.rules)):
                for card in range(53):
                    want = py[lo]["fits_after_layoff"](state.table, meld, kind, end, card, state.rules)
                    assert twin[lo]["fits_after_layoff"](state.table, meld, kind, end, card, state.rules) == want
                    fits += want
    assert fits > 0


#: the game the altered twin is caught in (also one of the default run's games)
ALTERED_GAME: Game = ("contract", 4, 1, 300, "biased", {}, None)


@pytest.fixture(scope="module")
def default_run() -> tuple[list[Game], dict[str, Any]]:
    """The default run's games (every profile, player count and switch, 7 seeds, 60 decisions each, and
    ``ALTERED_GAME``) and the fuzzer, in one child per implementation: (games, answers)."""
    need_compiled()
    games = [*_games(range(7), 60), ALTERED_GAME]
    job = {"kind": "play", "games": games, "fuzz": {"decisions": 1_500, "seed": 3}}
    return games, run_children({impl: job for impl in IMPLS})


def test_both_implementations_play_identical_games(default_run: tuple[list[Game], dict[str, Any]]) -> None:
    """Engine level: the same seeded games in a child per implementation, identical traces."""
    assert compare(*default_run) >= 3000


def test_the_fuzzer_finds_nothing_under_either(default_run: tuple[list[Game], dict[str, Any]]) -> None:
    for impl, answer in default_run[1].items():
        for profile, (violations, examples) in answer["fuzz"].items():
            assert violations == 0, (impl, profile, examples)


def test_the_comparison_catches_an_altered_twin(default_run: tuple[list[Game], dict[str, Any]]) -> None:
    """A compiled function altered on purpose (the last opening meld dropped, before the engines import it) must be
    caught."""
    games, answers = default_run
    altered = run_children({"compiled": {"kind": "play", "games": [ALTERED_GAME], "alter": True}})["compiled"]
    where = first_difference(answers["python"]["traces"][games.index(ALTERED_GAME)], altered["traces"][0])
    assert where is not None and "legal actions" in where, where


def _fuzz_both(decisions: int, seed: int) -> None:
    """The fuzzer over every profile in a child per implementation: no invariant violated."""
    job = {"kind": "fuzz", "decisions": decisions, "seed": seed}
    for impl, answer in run_children({impl: job for impl in IMPLS}).items():
        for profile, (violations, examples) in answer.items():
            assert violations == 0, (impl, profile, examples)


#: the slow differential's share of each (profile, part): 6 x 170,000 > 10^6 decision points, in parts that
#: pytest-xdist can spread over its workers
SLOW_POINTS = 170_000


@pytest.mark.slow
@pytest.mark.parametrize("part", [0, 1])
@pytest.mark.parametrize("profile", sorted(GAMES))
def test_compiled_differential_a_million_decision_points(profile: str, part: int) -> None:
    """More than 10^6 decision points in all (every profile, player count, switch and round number; whole rounds;
    new seeds until the share is reached), a digest per decision point from each child; a game whose digests
    differ is played again in both children to say where and what."""
    need_compiled()
    job = {"kind": "digests", "profile": profile, "part": part, "points": SLOW_POINTS}
    answers = run_children({impl: job for impl in IMPLS})
    ref, got = answers["python"], answers["compiled"]
    assert [r[0] for r in ref] == [r[0] for r in got], "the children played different games"
    for r, c in zip(ref, got):
        assert r[3] is None, f"{r[0]}: encode_state differs from encode(view) at decision {r[3]}"
        if r[1:3] != c[1:3]:
            differential([tuple(r[0])])  # fails, saying where
            pytest.fail(f"{r[0]}: the traces differ")
    assert sum(len(r[1]) for r in ref) >= SLOW_POINTS


@pytest.mark.slow
def test_compiled_fuzzer_long_run_under_either() -> None:
    need_compiled()
    _fuzz_both(decisions=20_000, seed=11)


def _setup_namespace() -> dict[str, Any]:
    """setup.py's definitions (``TWINS``, ``source_digest``, ``drop_outdated_c`` ...), without running setup()."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "setup.py").read_text(encoding="utf-8")
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
    root = Path(__file__).resolve().parents[2]
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
