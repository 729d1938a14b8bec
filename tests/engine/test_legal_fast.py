"""The fast paths of legal-action generation (issue 15) against their references, in the default suite.

- The typed compiled twin of the contract search (``rummy_env/_compiled/melds.pxd``: the hand in a C array, the
  distinct-suit group DP on C arrays) against the pure-Python ``can_make_contract`` / ``_groups_possible`` on random
  hands of every contract-family rules object (with and without all-joker melds, with runs already declared).
- The C-array form of the distinct-suit DP (``_groups_dp_c``), run as plain Python, against the cached DP.
- The light clone of the deep-pickup probes (``ContractState._probe``) against a full ``clone``: the same legal
  actions, and the original's generator never moved by a probe.
- The round's facts the legal-action code reads as fields (``ContractState._final`` / ``_contract``) against the
  properties they stand for.

The whole-game differential of both implementations is ``tests/core/test_compiled.py`` (its slow run > 10^6 decision
points covers every function twinned here).
"""

from __future__ import annotations

import importlib
import random
from typing import Any

import pytest

from rummy_env.core import _impl
from rummy_env.core import melds as reference
from rummy_env.core.cards import Shoe
from rummy_env.engine import contract as engine
from rummy_env.registry import game

#: (profile, rule overrides) of the contract family
RULES = [
    ("contract", {}),
    ("contract", {"allow_all_joker_melds": True}),
    ("contract_gamerules", {}),
    ("contract_gamerules", {"allow_all_joker_melds": True}),
]
CONTRACTS = [(2, 0), (1, 1), (0, 2), (3, 0), (2, 1), (1, 2), (0, 3), (1, 0), (0, 1), (4, 0)]


def _hands(rules: Any, n: int, seed: int) -> list[tuple[list[int], int, int, tuple[tuple[int, int, int], ...]]]:
    """``n`` random (hand, groups, runs, declared runs) drawn from the rules' shoe (6 to 18 cards)."""
    rng = random.Random(seed)
    kinds = Shoe(rules.decks, rules.jokers).kinds()
    out = []
    for _ in range(n):
        hand = [0] * 53
        for k in rng.sample(kinds, rng.randint(6, 18)):
            hand[k] += 1
        g, r = rng.choice(CONTRACTS)
        declared: tuple[tuple[int, int, int], ...] = ()
        if rng.random() < 0.3:
            suit, low = rng.randrange(4), rng.randrange(1, 15 - rules.run_min)
            declared = ((suit, low, low + rules.run_min - 1),)
        out.append((hand, g, r, declared))
    return out


@pytest.fixture
def twin() -> Any:
    """The compiled twin of ``core.melds`` (skip without a build, fail under CI like ``tests/core/test_compiled.py``)."""
    from implementations import IN_CI

    if not _impl.compiled_available():
        if IN_CI:
            pytest.fail(f"CI must test both implementations: the compiled twins are not built; {_impl.BUILD_HINT}")
        pytest.skip(f"the compiled twins are not built; {_impl.BUILD_HINT}")
    return importlib.import_module("rummy_env._compiled.melds")


@pytest.mark.parametrize("profile,overrides", RULES)
def test_the_typed_contract_search_answers_as_the_reference(profile: str, overrides: dict[str, Any], twin: Any) -> None:
    rules = game(profile).rules(**overrides)
    py = _impl.functions("python")["rummy_env.core.melds"]
    found = 0
    for hand, g, r, declared in _hands(rules, 2_500, seed=len(profile) + len(overrides)):
        want = py["can_make_contract"](hand, g, r, rules, declared)
        assert twin.can_make_contract(hand, g, r, rules, declared) == want, (hand, g, r, declared)
        assert list(hand) == hand  # the caller's counts are never changed
        jokers = hand[52]
        assert twin._groups_possible(hand, jokers, g, rules) == py["_groups_possible"](hand, jokers, g, rules)
        found += want
    assert 100 < found < 2_400  # both answers occur: the comparison can fail either way


def test_the_c_array_group_dp_is_the_cached_dp() -> None:
    """``_groups_dp_c`` (the typed twin's form) run as Python gives the cached DP's answer on every hand."""
    for overrides in ({}, {"allow_all_joker_melds": True}):
        rules = game("contract_gamerules").rules(**overrides)
        assert rules.group_distinct_suits
        for hand, g, _r, _d in _hands(rules, 3_000, seed=7):
            for jokers in (0, 1, 2, 4):
                want = reference._groups_ok(hand, jokers, g, rules.group_min, True, rules.allow_all_joker_melds)
                got = reference._groups_dp_c(hand, jokers, g, rules.group_min, rules.allow_all_joker_melds)
                assert got == want, (hand, jokers, g, overrides)


def _full_probe(self: engine.ContractState) -> engine.ContractState:
    t = self.clone()
    t._legal = None
    return t


def test_deep_pickup_probes_match_full_clones(monkeypatch: pytest.MonkeyPatch) -> None:
    """B.2-10 probes (``_keeping_placeable``) on a light clone: the same legal actions as on full clones at every
    decision of seeded games, and asking for them never moves the state's generator."""
    g = game("contract_gamerules")
    rules = g.rules(num_players=4)
    probed = 0
    for seed in range(4):
        a = g.new_state(rules, seed=seed)
        b = g.new_state(rules, seed=seed)
        rng = random.Random(seed)
        for _ in range(1_500):
            if a.is_terminal():
                break
            before = a.rng.bit_generator.state
            legal = a.legal_actions()
            assert a.rng.bit_generator.state == before
            with monkeypatch.context() as m:
                m.setattr(engine.ContractState, "_probe", _full_probe)
                assert b.legal_actions() == legal
            probed += a.must_place >= 0
            action = legal[rng.randrange(len(legal))]
            a.apply(action)
            b.apply(action)
    assert probed > 0  # deep pickups were probed


def test_a_probe_draws_from_its_own_copy_of_the_generator() -> None:
    st = game("contract").new_state(game("contract").rules(), seed=3)
    before = st.rng.bit_generator.state
    probe = st._probe()
    nested = probe._probe()  # a probe of a probe (a joker swap's placements) copies the same source
    ref = st.clone()
    want = [int(ref.rng.integers(1000)) for _ in range(5)]
    assert [int(probe.rng.integers(1000)) for _ in range(5)] == want
    assert [int(nested.rng.integers(1000)) for _ in range(5)] == want
    assert st.rng.bit_generator.state == before


def test_the_continental_prefilter_only_refuses_hands_the_solver_refuses() -> None:
    """``_hopeless`` (the typed twin's pre-filter of ``fitting_discards``), run as Python: True exactly when the
    X"""
    from rummy_env.rules import continental_hand as ch

    rng = random.Random(5)
    solver = ch._solver(ch.RUN_LENGTH_PATTERNS, ch.MIN_RUN)
    hopeless = 0
    for i in range(3_000):
        if i % 3 == 0:
            hand = ch.random_valid_counts(rng)
            hand[rng.randrange(52)] += 1  # 16 cards, often one discard away from going out
        else:
            hand = ch.random_shoe_counts(rng, 16)
        kinds = [k for k in range(53) if hand[k]]
        fits = solver.fitting_discards(list(hand), kinds)
        if ch._hopeless(solver, hand):
            hopeless += 1
            assert fits == [], hand
        # the pre-filter says no more than the solver's bound: a hand it lets through gets the full solver
        bs = bytes(hand)
        keys = [int.from_bytes(bs[b : b + 13], "little") & ch._NO_DEUCE for b in (0, 13, 26, 39)]
        bound = sum(solver.suit_bound(k) for k in keys)
        assert ch._hopeless(solver, hand) == (sum(hand) - 1 not in solver.hand_sizes or bound - 1 > solver.maxruns)
    assert 500 < hopeless < 2_900
    assert ch._hopeless(solver, [4] + [0] * 52) is False  # counts outside 0..3: the solver decides


@pytest.fixture
def opening_twin() -> Any:
    """The compiled twin of ``rules.contract_opening`` (typed by ``rummy_env/_compiled/contract_opening.pxd``: its
    searches run on C arrays and call the melds twin's ``contract_search`` through a cimport)."""
    from implementations import IN_CI

    if not _impl.compiled_available():
        if IN_CI:
            pytest.fail(f"CI must test both implementations: the compiled twins are not built; {_impl.BUILD_HINT}")
        pytest.skip(f"the compiled twins are not built; {_impl.BUILD_HINT}")
    return importlib.import_module("rummy_env._compiled.contract_opening")


def _minus(hand: list[int], kinds: Any, jokers: int = 0) -> list[int]:
    rest = list(hand)
    for k in kinds:
        rest[k] -= 1
    rest[52] -= jokers
    return rest


def _spec_opening_melds(hand: list[int], g: int, r: int, declared: Any, rules: Any, catalog: Any) -> list[int]:
    """``opening_melds`` (no card taken from the pile, enough cards left) by its definition, meld by meld over the
    whole catalog: in hand, of a kind still owed, and the rest of the contract still makeable from what is left
    (``can_make_contract`` of the pure-Python ``core.melds``)."""
    cmc = _impl.functions("python")["rummy_env.core.melds"]["can_make_contract"]
    out = []
    ngroups = len(catalog.groups)
    for i, need in enumerate(catalog.meld_needs):
        if not all(hand[k] >= n for k, n in need):
            continue
        rest = _minus(hand, catalog.meld_kinds[i])
        if i < ngroups:
            if len(catalog.meld_kinds[i]) == rules.group_min and g and cmc(rest, g - 1, r, rules, declared):
                out.append(i)
            continue
        run = catalog.runs[i - ngroups]
        high = run.low + rules.run_min - 1
        if r and not reference.run_conflicts(run.suit, run.low, high, declared, rules) and cmc(
            rest, g, r - 1, rules, declared + ((run.suit, run.low, high),)
        ):
            out.append(i)
    return out


@pytest.mark.parametrize("profile,overrides", RULES)
def test_the_typed_opening_search_answers_as_the_reference(
    profile: str, overrides: dict[str, Any], opening_twin: Any
) -> None:
    """The contract_opening twin against the pure-Python module, function by function, on random hands and
    positions; and both against the definitions (a meld is offered iff the rest of the contract stays makeable;
    ``rest_ok`` is ``can_make_contract`` of what is left)."""
    from rummy_env.rules import contract_opening

    rules = game(profile).rules(**overrides)
    catalog = game(profile).layout(rules)
    py = _impl.functions("python")["rummy_env.rules.contract_opening"]
    cmc = _impl.functions("python")["rummy_env.core.melds"]["can_make_contract"]
    rng = random.Random(7 + len(profile) + len(overrides))
    offered = 0
    for hand, g, r, declared in _hands(rules, 600, seed=3 * len(profile) + len(overrides)):
        held = [k for k in range(53) if hand[k]]
        copy = list(hand)
        size = sum(hand)
        want = py["opening_melds"](hand, size, g, r, declared, rules, catalog)
        assert opening_twin.opening_melds(hand, size, g, r, declared, rules, catalog) == want
        assert sorted(want) == _spec_opening_melds(hand, g, r, declared, rules, catalog), (hand, g, r, declared)
        offered += bool(want)
        # the card taken from the pile (A.1-12 + A.2-4 when one card remains) and hand sizes around the true one
        taken = rng.choice(held)
        n = size + rng.choice((0, 0, -1, 1))
        assert opening_twin.opening_melds(hand, n, g, r, declared, rules, catalog, taken) == py["opening_melds"](
            hand, n, g, r, declared, rules, catalog, taken
        ), (hand, n, g, r, declared, taken)
        c = rng.choice(held)
        assert opening_twin.in_some_contract_meld(hand, c, g, r, declared, rules) == py["in_some_contract_meld"](
            hand, c, g, r, declared, rules
        ), (hand, c, g, r, declared)
        used = rng.sample(held, min(len(held), rng.randint(1, 3)))
        jokers = rng.randint(0, hand[52])
        rest = _minus(hand, used, jokers)
        expected = cmc(rest, g, r, rules, declared) if g or r else True
        assert py["rest_ok"](hand, used, jokers, g, r, declared, rules) == expected
        assert opening_twin.rest_ok(hand, used, jokers, g, r, declared, rules) == expected, (hand, used, jokers)
        t = rng.choice((-1, c, 52))
        assert opening_twin.opening_rest_ok(hand, used, jokers, g, r, declared, rules, t) == py["opening_rest_ok"](
            hand, used, jokers, g, r, declared, rules, t
        ), (hand, used, jokers, g, r, declared, t)
        assert hand == copy  # every search restores the hand it changes
    assert 60 < offered < 540  # both answers occur: the comparison can fail either way
    assert contract_opening._TYPED is False  # the module above is the reference (the twin runs its C forms)


def _spec_pickup_marks(hand: list[int], disc: list[int], g: int, r: int, declared: Any, rules: Any) -> list[int]:
    """``pickup_marks`` by its definition: per depth, the reference ``can_make_contract`` of the hand with the top
    ``depth`` cards of the pile, then ``in_some_contract_meld`` of the card at that depth."""
    from rummy_env.rules import contract_opening

    cmc = _impl.functions("python")["rummy_env.core.melds"]["can_make_contract"]
    ismc = _impl.functions("python")["rummy_env.rules.contract_opening"]["in_some_contract_meld"]
    assert contract_opening._TYPED is False
    out = [0] * (len(disc) + 1)
    for depth in range(2, len(disc) + 1):
        h = list(hand)
        for k in disc[-depth:]:
            h[k] += 1
        if cmc(h, g, r, rules, declared):
            out[depth] = 1 if ismc(h, disc[-depth], g, r, declared, rules) else 2
    return out


@pytest.mark.parametrize("profile,overrides", RULES)
def test_the_deep_pickup_marks_answer_as_their_definition(
    profile: str, overrides: dict[str, Any], opening_twin: Any
) -> None:
    """``contract_opening.pickup_marks`` (B.1-6 deep pickups of a hand not yet down, the engine's draw decision),
    the twin and the pure-Python module, against its definition on random hands and discard piles (0 to 12
    cards) of the rules' shoe: every depth from the least makeable one on is marked 1 or 2, none before it."""
    rules = game(profile).rules(**overrides)
    py = _impl.functions("python")["rummy_env.rules.contract_opening"]
    rng = random.Random(11 + len(profile) + len(overrides))
    kinds = Shoe(rules.decks, rules.jokers).kinds()
    seen = {0: 0, 1: 0, 2: 0}
    for hand, g, r, declared in _hands(rules, 400, seed=5 * len(profile) + len(overrides)):
        pool = list(kinds)
        for k in range(53):
            for _ in range(hand[k]):
                pool.remove(k)
        disc = rng.sample(pool, rng.randint(0, 12))
        copy, disc_copy = list(hand), list(disc)
        want = _spec_pickup_marks(hand, disc, g, r, declared, rules)
        assert py["pickup_marks"](hand, disc, g, r, declared, rules) == want, (hand, disc, g, r, declared)
        assert opening_twin.pickup_marks(hand, disc, g, r, declared, rules) == want, (hand, disc, g, r, declared)
        assert hand == copy and disc == disc_copy  # the search restores the hand, never changes the pile
        for m in want[2:]:
            seen[m] += 1
    assert min(seen.values()) > 20, seen  # every answer occurs: the comparison can fail each way


def _spec_layoff_ids(st: Any, own_only: bool) -> list[int]:
    """The engine's lay-offs by their definition: every (kind, end) ``layoff_options`` offers on each table meld,
    held, fitting (``layoff_fits``), that the hand can spare (``_can_spare``) or whose taken card then follows
    (``_taken_follows``); the id by ``layout.lay_off``."""
    layoff = _impl.functions("python")["rummy_env.rules.contract_layoff"]
    fits = _impl.functions("python")["rummy_env.core.melds"]["layoff_fits"]
    p, lay = st.active, st.layout
    out = []
    for owner in (p,) if own_only else range(st.n):
        for idx, meld in enumerate(st.seat_melds[owner]):
            for kind, end in layoff["layoff_options"](meld):
                if st.hands[p][kind] and fits(meld, kind, end, st.rules) and (
                    st._can_spare(kind) or st._taken_follows(meld, kind, end)
                ):
                    out.append(lay.lay_off(kind, lay.slot(p, owner, idx), end))
    return out


def _layoff_pair(name: str) -> tuple[Any, Any]:
    """``contract_layoff.<name>``: the pure-Python reference and its compiled twin (None without a build; a failure
    under CI, which must test both)."""
    from implementations import IN_CI

    py = _impl.functions("python")["rummy_env.rules.contract_layoff"][name]
    twin = None
    if _impl.compiled_available():
        twin = getattr(importlib.import_module("rummy_env._compiled.contract_layoff"), name)
    elif IN_CI:
        pytest.fail(f"CI must test both implementations: the compiled twins are not built; {_impl.BUILD_HINT}")
    return py, twin


@pytest.mark.parametrize("profile,overrides", RULES + [("contract_gamerules", {"num_players": 5})])
def test_the_typed_layoff_listing_answers_as_its_definition(profile: str, overrides: dict[str, Any]) -> None:
    """``contract_layoff.layoff_ids`` (the engine's ``_layoff_actions``; C-typed in its twin by
    ``_compiled/contract_layoff.pxd``), twin and pure Python, against its definition at every act decision of a
    seat already down in random games of every contract-family rules object (A.1-11: lay off on any table meld;
    A.1-12: a card must remain to discard)."""
    py, twin = _layoff_pair("layoff_ids")
    g = game(profile)
    rules = g.rules(**overrides)
    rng = random.Random(len(profile) + len(overrides))
    asked = found = 0
    for seed in range(6):
        st = g.new_state(rules, seed=seed)
        while not st.is_terminal() and asked < 400:
            p = st.active
            if st.phase == engine.ACT and st.opened[p] and not st.final_round:
                for own_only in (False, True):
                    t = st.taken_discard
                    spare = st._can_spare(-2)
                    args = (st.hands[p], st.seat_melds, p, own_only, st.layout, rules, t, spare,
                            st._can_spare(t) if t >= 0 else spare, st._taken_follows)
                    want = _spec_layoff_ids(st, own_only)
                    assert py(*args) == want
                    if twin is not None:
                        assert twin(*args) == want
                    asked += 1
                    found += bool(want)
            st.apply(rng.choice(st.legal_actions()))
    assert asked > 50 and 0 < found < asked  # both answers occur: the comparison can fail either way


@pytest.mark.parametrize("profile,overrides", RULES + [("contract_gamerules", {"num_players": 5})])
def test_the_lay_off_reach_test_answers_as_the_chains(profile: str, overrides: dict[str, Any]) -> None:
    """``contract_layoff.layoff_reaches`` (the engine's "can the card still reach the table" test of a seat already
    down: B.1-6 "the card ... must be played", a lay-off through a chain of hand cards), twin and pure Python,
    against its definition ``any(layoff_chains(hand, meld, c, rules) for meld in table)`` for every kind (held or
    not, the joker included) at act decisions of random games, with the hand given extra random cards."""
    py, twin = _layoff_pair("layoff_reaches")
    chains = _impl.functions("python")["rummy_env.rules.contract_layoff"]["layoff_chains"]
    g = game(profile)
    rules = g.rules(**overrides)
    rng = random.Random(7 + len(profile) + len(overrides))
    answers = {True: 0, False: 0}
    for seed in range(5):
        st = g.new_state(rules, seed=seed)
        while not st.is_terminal() and sum(answers.values()) < 6000:
            if st.phase == engine.ACT and st.table:
                hand = list(st.hands[st.active])
                for _ in range(rng.randrange(4)):
                    hand[rng.randrange(len(hand))] += 1  # more hands than the games deal
                copy = list(hand)
                for c in range(len(hand)):
                    want = any(chains(hand, meld, c, rules) for meld in st.table)
                    assert py(hand, st.table, c, rules) == want
                    if twin is not None:
                        assert twin(hand, st.table, c, rules) == want
                    answers[want] += 1
                assert hand == copy
            st.apply(rng.choice(st.legal_actions()))
    assert min(answers.values()) > 100, answers  # both answers occur: the comparison can fail either way


def test_the_c_loop_tally_is_sum_and_run_presence() -> None:
    """``contract_opening._tally`` (the twin's C-loop form), run as Python, against ``sum`` and ``run_presence``."""
    from rummy_env.rules import contract_opening

    rules = game("contract").rules()
    for hand, _g, _r, _d in _hands(rules, 300, seed=5):
        presence = [0, 0, 0, 0]
        assert contract_opening._tally(hand, presence) == sum(hand)
        assert presence == reference.run_presence(hand)
    for x in range(1 << 10):
        assert contract_opening._bits(x) == x.bit_count()


def test_the_c_loop_partition_bound_refuses_only_what_final_partition_refuses(twin: Any) -> None:
    """``melds._partition_refused`` (the twin's C-loop form of ``final_partition``'s first refusals), run as Python:
    it refuses a hand exactly when too few cards or too many runs needed, and ``final_partition`` (reference and
    twin) then finds no partition; the twin's ``final_partition`` answers as the reference on every hand."""
    py = _impl.functions("python")["rummy_env.core.melds"]["final_partition"]
    refused = 0
    for profile, overrides in RULES:
        rules = game(profile).rules(**overrides)
        for hand, _g, _r, _d in _hands(rules, 400, seed=11 + len(overrides)):
            for n_runs in (1, 2, 3, 4):
                least = sum(
                    max(max(hand[b + 1 : b + 13]), (hand[b] + 1) // 2, 1)
                    for b in (0, 13, 26, 39)
                    if any(hand[b : b + 13])
                )
                want = sum(hand) < n_runs * rules.run_min or least > n_runs
                assert reference._partition_refused(hand, n_runs, rules.run_min) is want, (hand, n_runs)
                expected = py(hand, n_runs, rules)
                if want:
                    refused += 1
                    assert expected is None
                assert twin.final_partition(hand, n_runs, rules) == expected, (hand, n_runs)
    assert 1_000 < refused < 6_300  # both answers occur
    # hands made of runs (some with a joker standing in), so that partitions exist too
    rng = random.Random(12)
    found = 0
    for profile, overrides in RULES:
        rules = game(profile).rules(**overrides)
        for _ in range(300):
            hand = [0] * 53
            n_runs = rng.randint(1, 3)
            for _r in range(n_runs):
                suit, size = rng.randrange(4), rng.randint(rules.run_min, rules.run_min + 2)
                low = rng.randint(1, 15 - size)
                for q in range(low, low + size):
                    hand[52 if rng.random() < 0.1 else suit * 13 + (0 if q == 14 else q - 1)] += 1
            expected = py(hand, n_runs, rules)
            found += expected is not None
            assert reference._partition_refused(hand, n_runs, rules.run_min) is False or expected is None
            assert twin.final_partition(hand, n_runs, rules) == expected, (hand, n_runs)
    assert found > 300  # partitions found: the twin's answers compared with the reference's layouts


@pytest.mark.parametrize("profile,overrides", RULES)
def test_the_round_facts_kept_as_fields_are_the_properties(profile: str, overrides: dict[str, Any]) -> None:
    """``ContractState._final`` / ``_contract`` (set by ``_clear_round``, read by the legal-action code on every
    decision) equal the properties ``final_round`` / ``contract`` at every decision of random whole sessions, every
    round included, and in a state loaded back from its JSON (the scenario loader's path) mid-session."""
    g = game(profile)
    rules = g.rules(**overrides)
    rng = random.Random(5)
    finals = set()
    for seed in range(3):
        st = g.new_state(rules, seed=seed)
        steps = 0
        while not st.is_terminal() and steps < 6000:
            assert (st._final, st._contract) == (st.final_round, st.contract)
            finals.add(st.final_round)
            if steps % 97 == 0:
                back = g.load_state(st.to_json(), rules)
                assert (back._final, back._contract) == (back.final_round, back.contract) == (st._final, st._contract)
            legal = st.legal_actions()
            st.apply(legal[rng.randrange(len(legal))])
            steps += 1
    assert finals == ({False, True} if rules.final_round_all_at_once else {False})
