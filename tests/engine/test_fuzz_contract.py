"""Fuzzing and property tests of the ``contract`` engine (A.1/A.2) and of the meld primitives.

* ``test_fuzz_default``: 100,000 fuzzed decisions (``rummy_env.testing.fuzz``), no violation, every action kind
  and every way a round ends seen (about 25 s; the default suite stays short).
* ``test_fuzz_long`` (``-m slow``): the 500,000 decisions of ``rummy fuzz``'s default, and a soak of 10,000,000.
* hypothesis properties: JSON dump/load round trip, clone independence, replay of the history, determinism;
  ``can_make_contract`` and ``final_partition`` against brute forces on small hands.
* regression tests of the bugs the fuzzer's oracles found, and mutation tests showing the oracles bite.

Run ``pytest -s tests/engine/test_fuzz_contract.py`` to see the fuzz figures.
"""

from __future__ import annotations

import json
import random
from itertools import combinations_with_replacement

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from rummy_env.core.cards import JOKER, NUM_KINDS, NUM_RANKS
from rummy_env.core.melds import MAX_POS, can_make_contract, final_partition, pos_kind, run_problem
from rummy_env.engine import IllegalActionError, load_state, new_state
from rummy_env.engine.contract import ContractState
from rummy_env.rules import get_rules
from rummy_env.testing.fuzz import biased_policy, fuzz, fuzz_session, uniform_policy

RULES = get_rules("contract")


def _summary(res: dict) -> str:
    keys = (
        "sessions",
        "rounds",
        "decisions",
        "buys",
        "openings",
        "lay_offs",
        "joker_swaps",
        "joker_placements",
        "go_outs_r1_6",
        "go_outs_r7",
        "exhausted_rounds",
        "turn_cap_rounds",
        "violations",
        "seconds",
    )
    lines = [f"  {k}: {res[k]}" for k in keys]
    lines.append(f"  kinds: {res['kinds']}")
    lines.append(f"  checks: {res['checks']}")
    lines.append(f"  per_policy: {res['per_policy']}")
    return "\n".join(lines)


def _assert_clean_and_covered(res: dict, at_least: int) -> None:
    assert res["violations"] == 0, json.dumps(res["examples"][:2])[:4000]
    for key in ("buys", "openings", "lay_offs", "joker_swaps", "joker_placements", "go_outs_r1_6", "go_outs_r7"):
        assert res[key] >= at_least, f"{key} exercised only {res[key]} times"
    for kind in ("draw_stock", "draw_discard", "buy", "pass", "meld", "lay_off", "swap_joker", "place_joker"):
        assert res["kinds"][kind] >= at_least, f"action kind {kind} exercised only {res['kinds'][kind]} times"
    assert res["kinds"]["discard"] >= at_least and res["kinds"]["go_out"] >= at_least
    assert res["exhausted_rounds"] >= 1
    assert res["rounds"] == 7 * res["sessions"]
    checks = res["checks"]
    assert checks["replays"] == res["sessions"]
    assert min(checks["json_round_trips"], checks["clone_checks"], checks["meld_scans"]) >= at_least


# --------------------------------------------------------------------------------------------------------------
# Fuzzing
# --------------------------------------------------------------------------------------------------------------


#: decisions of the default run: enough for every action kind and round ending at least 10 times (the rarest,
#: going out in round 7, comes about once per 3,000 decisions)
DEFAULT_DECISIONS = 100_000


def test_fuzz_default() -> None:
    res = fuzz(decisions=DEFAULT_DECISIONS)
    print(f"\nfuzz(contract, {DEFAULT_DECISIONS:,} decisions):\n" + _summary(res))
    assert res["decisions"] >= DEFAULT_DECISIONS
    _assert_clean_and_covered(res, at_least=10)
    json.dumps(res)  # the CLI prints it


@pytest.mark.slow
@pytest.mark.parametrize(
    "decisions,seed,at_least", [(500_000, 0, 10), (10_000_000, 1, 200)], ids=["cli-default", "soak"]
)
def test_fuzz_long(decisions: int, seed: int, at_least: int) -> None:
    """``rummy fuzz``'s default run (500,000 decisions, seed 0) and a soak of twenty times more."""
    res = fuzz(decisions=decisions, seed=seed)
    print(f"\nfuzz(contract, {decisions:,} decisions, seed {seed}):\n" + _summary(res))
    assert res["decisions"] >= decisions
    _assert_clean_and_covered(res, at_least=at_least)


def test_fuzz_turn_cap_rounds() -> None:
    """A small engine turn cap: rounds end at the cap (everyone scores his hand), the session goes on."""
    res = fuzz(decisions=15_000, seed=3, turn_cap=40)
    print("\nfuzz(contract, turn_cap=40):\n" + _summary(res))
    assert res["violations"] == 0, json.dumps(res["examples"][:2])[:4000]
    assert res["turn_cap_rounds"] >= 5


def test_fuzz_round_subset_and_policies() -> None:
    for policy in ("uniform", "biased"):
        res = fuzz(decisions=3_000, seed=5, policy=policy, rounds=(7, 3))
        assert res["violations"] == 0, json.dumps(res["examples"][:2])[:4000]
        assert res["rounds"] == 2 * res["sessions"]
        assert res["per_policy"][policy]["sessions"] == res["sessions"]


def test_fuzz_is_reproducible() -> None:
    a = fuzz(decisions=2_000, seed=11)
    b = fuzz(decisions=2_000, seed=11)
    for key in ("sessions", "decisions", "kinds", "openings", "go_outs", "checks"):
        assert a[key] == b[key]


@pytest.mark.parametrize("profile", ["contract_gamerules", "continental"])
def test_fuzz_other_profiles_generic_checks(profile: str) -> None:
    """The contract oracles are off for other profiles; invariants, JSON, clones and replays still hold."""
    res = fuzz(profile=profile, decisions=3_000, seed=1)
    assert res["violations"] == 0, json.dumps(res["examples"][:2])[:4000]
    assert res["checks"]["replays"] == res["sessions"] and res["checks"]["json_round_trips"] > 0


def test_fuzz_stops_on_a_broken_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self):
        raise AssertionError("broken")

    monkeypatch.setattr(ContractState, "check_invariants", broken)
    res = fuzz(decisions=10_000, max_violations=3)
    assert res["violations"] == 3 and res["sessions"] == 3
    assert res["examples"][0]["error"] == "AssertionError: broken"


def test_fuzz_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="policy"):
        fuzz(decisions=10, policy="greedy")
    with pytest.raises(ValueError, match="decisions"):
        fuzz(decisions=-1)


# the oracles must bite: re-introduce rule bugs into a copy of the engine class and watch the fuzzer report them


def test_oracle_catches_rediscard_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ContractState, "_discardable", lambda self, kind: self.hands[self.active][kind] > 0)
    res = fuzz(decisions=3_000, seed=2, policy="biased")
    assert res["violations"] > 0
    assert "discards" in res["examples"][0]["error"]


def test_oracle_catches_spare_card_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ContractState, "_can_spare", lambda self, kind: True)
    res = fuzz(decisions=20_000, seed=2, policy="biased")
    assert res["violations"] > 0
    assert "lay-offs" in res["examples"][0]["error"] or "swaps" in res["examples"][0]["error"]


def test_oracle_catches_buy_order_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = ContractState._open_window

    def reversed_window(self):  # farthest player asked first: wrong (A.1-10)
        orig(self)
        if self.phase == "buy":
            self.buy_queue.reverse()
            self.current = self.buy_queue[0]

    monkeypatch.setattr(ContractState, "_open_window", reversed_window)
    res = fuzz(decisions=2_000, seed=2, policy="uniform")
    assert res["violations"] > 0
    assert "buy window" in res["examples"][0]["error"]


def test_fuzz_session_reruns_an_example() -> None:
    state = fuzz_session(12345, policy="biased", rounds=(1,))
    assert state.is_terminal() and len(state.round_results) == 1


# --------------------------------------------------------------------------------------------------------------
# Regression: bugs found by the fuzzer's oracles
# --------------------------------------------------------------------------------------------------------------


def _joker_taken_then_swap_state() -> ContractState:
    """Seat 0 (opened earlier) took a joker from the discard pile and can swap 3H for the joker of seat 1's run."""
    scenario = {
        "round": 1,
        "dealer": 3,
        "phase": "act",
        "active": 0,
        "current_player": 0,
        "hands": [
            ["JK", "3H", "9C"],
            ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9D", "10D", "JD"],
            ["2D", "3D", "4D", "5D", "6D", "7D", "8D", "9S", "10S", "JS"],
            ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9H", "10H", "JH"],
        ],
        "table": [
            {"owner": 0, "kind": "group", "cards": ["KC", "KD", "KH"]},
            {"owner": 0, "kind": "group", "cards": ["QC", "QD", "QH"]},
            {"owner": 1, "kind": "group", "cards": ["3H", "3S", "3D"]},
            {"owner": 1, "kind": "run", "cards": ["2H", "JK(3H)", "4H", "5H"]},
        ],
        "opened": [0, 1],
        "taken_discard": "JK",
        "taken_pending": True,
        "known": [["JK"], [], [], []],
        "discard": ["7H"],
        "rigged": True,  # seat 0's short hand, seat 1's table: hand-made
    }
    return load_state(scenario, seed=1)


def test_freed_joker_does_not_release_the_joker_taken_from_the_discard_pile() -> None:
    """A.2-4 + A.1-11: after swapping and placing the freed joker, the joker taken from the discard pile this turn
    is still in hand and may not be discarded (the engine used to treat the placement as playing the taken joker).
    """
    s = _joker_taken_then_swap_state()
    assert s.find_action(kind="discard", card="9C") in s.legal_actions()
    s.apply(s.find_action(kind="swap_joker", card="3H"))
    assert s.phase == "place_joker"
    s.apply(s.find_action(kind="place_joker", seat=1, meld=1, end="high"))
    assert s.hand_cards(0) == [8, JOKER]  # 9C and the joker taken from the discard pile
    discards = [i["card"] for _, i in s.legal_action_infos() if i["kind"] == "discard"]
    assert discards == ["9C"]
    # laying the taken joker off is fine, and then nothing is banned any more
    s.apply(s.find_action(kind="lay_off", card="JK", seat=0, meld=0))
    assert [i["card"] for _, i in s.legal_action_infos() if i["kind"] == "discard"] == ["9C"]
    s.check_invariants()


def test_freed_joker_keeps_the_taken_joker_public_and_json_round_trips() -> None:
    s = _joker_taken_then_swap_state()
    s.apply(s.find_action(kind="swap_joker", card="3H"))
    s.apply(s.find_action(kind="place_joker", seat=1, meld=1, end="high"))
    assert s.known[0][JOKER] == 1  # everybody saw the joker taken from the discard pile; it is still in hand
    d = s.to_json()
    assert d["taken_pending"] is True
    assert load_state(json.loads(json.dumps(d))).to_json() == d


# --------------------------------------------------------------------------------------------------------------
# Hypothesis: states reached by random play
# --------------------------------------------------------------------------------------------------------------

ROUND_SETS = st.sampled_from([None, (1,), (2,), (3,), (4,), (5,), (6,), (7,), (6, 7), (3, 1)])


def _play(seed: int, rounds, steps: int, policy_seed: int, biased: bool) -> ContractState:
    s = new_state("contract", seed=seed, rounds=rounds)
    rng = random.Random(policy_seed)
    pol = biased_policy if biased else uniform_policy
    for _ in range(steps):
        if s.is_terminal():
            break
        s.apply(pol(s, s.legal_actions(), rng))
    return s


state_params = st.tuples(
    st.integers(0, 2**32 - 1), ROUND_SETS, st.integers(0, 900), st.integers(0, 2**16), st.booleans()
)
HSET = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@HSET
@given(state_params)
def test_prop_json_round_trip(params) -> None:
    s = _play(*params)
    d = s.to_json()
    back = json.loads(json.dumps(d))
    assert back == d
    t = load_state(back)
    assert t.to_json() == d
    assert t.legal_actions() == s.legal_actions()
    # continuing play from the loaded state with the same actions gives identical dumps
    rng = random.Random(params[3] + 1)
    for _ in range(25):
        if s.is_terminal():
            break
        a = rng.choice(s.legal_actions())
        s.apply(a)
        t.apply(a)
        assert t.to_json() == s.to_json()
    if not s.is_terminal():
        t.check_invariants()


@HSET
@given(state_params, st.integers(0, 2**16))
def test_prop_clone_independence(params, seed2) -> None:
    s = _play(*params)
    before = s.to_json()
    hist = list(s.history)
    c = s.clone()
    assert c.to_json() == before
    rng = random.Random(seed2)
    for _ in range(40):  # play the clone on
        if c.is_terminal():
            break
        c.apply(rng.choice(c.legal_actions()))
    # and mutate its containers directly
    c.hands[0][5] += 1
    c.stock.append(7)
    c.discard.clear()
    c.scores[1] += 99
    c.round_results.append({"round": 9})
    for m in c.table:
        m.cards.append(JOKER)
    c.rng.integers(1000)
    assert s.to_json() == before
    assert s.history == hist
    if not s.is_terminal():
        s.check_invariants()


@HSET
@given(state_params)
def test_prop_replay_and_determinism(params) -> None:
    seed, rounds = params[0], params[1]
    s = _play(*params)
    r = new_state("contract", seed=seed, rounds=rounds)
    for a in s.history:
        r.apply(a)
    assert r.to_json() == s.to_json()
    assert r.history == s.history
    again = _play(*params)  # the same seeds give the same session
    assert again.to_json() == s.to_json() and again.history == s.history


@HSET
@given(state_params, st.lists(st.integers(-5, 5000), min_size=1, max_size=8))
def test_prop_illegal_actions_leave_state_unchanged(params, ids) -> None:
    s = _play(*params)
    before = s.to_json()
    legal = list(s.legal_actions())
    for a in ids:
        if a in legal:
            c = s.clone()
            c.apply(a)  # accepted
            continue
        with pytest.raises(IllegalActionError):
            s.apply(a)
        assert s.to_json() == before and s.legal_actions() == legal


# --------------------------------------------------------------------------------------------------------------
# Hypothesis: meld primitives versus brute force
# --------------------------------------------------------------------------------------------------------------

# a small universe so that hands are dense: two suits, ranks A 2 3 4 5 6 J Q K (A counts low and high)
SMALL_KINDS = [s * NUM_RANKS + r - 1 for s in (0, 2) for r in (1, 2, 3, 4, 5, 6, 11, 12, 13)]
# or all four suits of a few ranks (groups with repeated and mixed suits, short runs around the ace)
FEW_RANKS = [s * NUM_RANKS + r - 1 for s in range(4) for r in (1, 2, 3, 4, 13)]


def _hand_from(cards: list[int]) -> list[int]:
    counts = [0] * NUM_KINDS
    for k in cards:
        counts[k] += 1
    return counts


@st.composite
def small_hands(draw, max_size: int = 11) -> list[int]:
    universe = draw(st.sampled_from([SMALL_KINDS, FEW_RANKS]))
    cards = draw(st.lists(st.sampled_from(universe), max_size=max_size))
    counts = _hand_from(cards)
    for k in range(52):
        counts[k] = min(counts[k], 2)  # two decks
    counts[JOKER] = draw(st.integers(0, 3))
    return counts


def _fits(hand: list[int], cards: list[int]) -> bool:
    need: dict[int, int] = {}
    for k in cards:
        need[k] = need.get(k, 0) + 1
    return all(hand[k] >= c for k, c in need.items())


def _brute_groups(hand: list[int]) -> list[list[int]]:
    out = []
    for rank in range(1, NUM_RANKS + 1):
        options = [q * NUM_RANKS + rank - 1 for q in range(4)] + [JOKER]
        for combo in combinations_with_replacement(options, 3):
            if _fits(hand, list(combo)):
                out.append(list(combo))
    return out


def _brute_runs(hand: list[int], size: int = 4) -> list[tuple[int, int, int, list[int]]]:
    out = []
    for suit in range(4):
        for low in range(1, MAX_POS - size + 2):
            for mask in range(1 << size):
                cards = [JOKER if mask >> i & 1 else pos_kind(suit, low + i) for i in range(size)]
                if _fits(hand, cards):
                    out.append((suit, low, low + size - 1, cards))
    return out


def _adjacent(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    return a[0] == b[0] and (b[1] == a[2] + 1 or a[1] == b[2] + 1)


def brute_contract(hand: list[int], g: int, r: int, declared=()) -> bool:
    """Every way to pick ``r`` runs of 4 and ``g`` groups of 3 from disjoint cards, same-suit runs not adjacent."""
    runs = _brute_runs(hand)
    groups = _brute_groups(hand)

    def pick_runs(start: int, left: int, h: list[int], chosen: list) -> bool:
        if left == 0:
            return pick_groups(0, g, h)
        for i in range(start, len(runs)):
            suit, lo, hi, cards = runs[i]
            if not _fits(h, cards):
                continue
            if any(_adjacent((suit, lo, hi), c) for c in chosen):
                continue
            h2 = list(h)
            for k in cards:
                h2[k] -= 1
            if pick_runs(i, left - 1, h2, chosen + [(suit, lo, hi)]):
                return True
        return False

    def pick_groups(start: int, left: int, h: list[int]) -> bool:
        if left == 0:
            return True
        for i in range(start, len(groups)):
            if _fits(h, groups[i]):
                h2 = list(h)
                for k in groups[i]:
                    h2[k] -= 1
                if pick_groups(i, left - 1, h2):
                    return True
        return False

    return pick_runs(0, r, list(hand), list(declared))


CONTRACTS = st.sampled_from([(2, 0), (1, 1), (0, 2), (3, 0), (2, 1), (1, 2), (0, 3), (1, 0), (0, 1)])
MSET = settings(max_examples=300, deadline=None)


@MSET
@given(small_hands(max_size=12), CONTRACTS)
def test_prop_can_make_contract_matches_brute_force(hand, contract) -> None:
    g, r = contract
    want = brute_contract(hand, g, r)
    event(f"makeable={want}")
    assert can_make_contract(hand, g, r, RULES) == want


@MSET
@given(
    small_hands(max_size=9),
    st.sampled_from([(0, 1), (1, 1), (0, 2)]),
    st.tuples(st.sampled_from([0, 2]), st.integers(1, 11)),
)
def test_prop_can_make_contract_with_declared_run(hand, contract, decl) -> None:
    """Runs still owed in an opening must not touch a run already declared in it (A.1-7)."""
    g, r = contract
    suit, low = decl
    declared = ((suit, low, low + 3),)
    want = brute_contract(hand, g, r, declared)
    event(f"makeable={want}")
    assert can_make_contract(hand, g, r, RULES, declared) == want


def brute_partition(hand: list[int], n_runs: int, run_min: int = 4) -> bool:
    """Exact cover of the whole hand by ``n_runs`` runs (each >= run_min, jokers anywhere), no adjacent same-suit
    runs."""
    total = sum(hand)
    if total < n_runs * run_min:
        return False

    def first_card(h: list[int]) -> int:
        for k in range(NUM_KINDS):
            if h[k]:
                return k
        return -1

    def rec(h: list[int], left: int, chosen: list) -> bool:
        k = first_card(h)
        if k < 0:
            return left == 0
        if left == 0:
            return False
        cards_left = sum(h)
        # the run holding card k (a natural, or a joker once only jokers are left)
        for suit in range(4) if k == JOKER else (k // NUM_RANKS,):
            for low in range(1, MAX_POS - run_min + 2):
                for high in range(low + run_min - 1, MAX_POS + 1):
                    length = high - low + 1
                    if length > cards_left - (left - 1) * run_min:
                        break
                    if any(_adjacent((suit, low, high), c) for c in chosen):
                        continue
                    positions = list(range(low, high + 1))
                    if k != JOKER and not any(pos_kind(suit, q) == k for q in positions):
                        continue
                    # every choice of joker positions (at most the jokers held)
                    for nj in range(0, min(h[JOKER], length) + 1):
                        for jpos in _subsets(positions, nj):
                            cards = [JOKER if q in jpos else pos_kind(suit, q) for q in positions]
                            if k != JOKER and k not in cards:
                                continue
                            if not _fits(h, cards):
                                continue
                            h2 = list(h)
                            for c in cards:
                                h2[c] -= 1
                            if rec(h2, left - 1, chosen + [(suit, low, high)]):
                                return True
        return False

    return rec(list(hand), n_runs, [])


def _subsets(items: list[int], n: int):
    from itertools import combinations

    return (set(c) for c in combinations(items, n))


@st.composite
def run_hands(draw) -> tuple[list[int], int]:
    """Hands that often split into runs: unions of random runs, some cards made jokers, sometimes perturbed."""
    n_runs = draw(st.sampled_from([2, 3]))
    cards: list[int] = []
    for _ in range(n_runs):
        suit = draw(st.sampled_from([0, 2]))
        length = draw(st.integers(4, 5))
        low = draw(st.integers(1, MAX_POS - length + 1))
        cards += [pos_kind(suit, q) for q in range(low, low + length)]
    jokers = draw(st.integers(0, 3))
    for _ in range(jokers):
        i = draw(st.integers(0, len(cards) - 1))
        cards[i] = JOKER
    if draw(st.booleans()):
        i = draw(st.integers(0, len(cards) - 1))
        cards[i] = draw(st.sampled_from(SMALL_KINDS + [JOKER]))
    hand = _hand_from(cards)
    if any(hand[k] > 2 for k in range(52)) or hand[JOKER] > 3:
        return draw(small_hands(max_size=8)), n_runs
    return hand, n_runs


def _check_partition(hand: list[int], n_runs: int, parts) -> None:
    assert len(parts) == n_runs
    laid = [0] * NUM_KINDS
    spans = []
    for suit, low, cards in parts:
        assert len(cards) >= RULES.run_min
        assert run_problem(suit, low, cards, RULES) is None
        for k in cards:
            laid[k] += 1
        spans.append((suit, low, low + len(cards) - 1))
    assert laid == hand, "the partition must use exactly the hand"
    for i, a in enumerate(spans):
        for b in spans[i + 1 :]:
            assert not _adjacent(a, b), f"adjacent same-suit runs {a} {b}"


@MSET
@given(run_hands())
def test_prop_final_partition_matches_brute_force(case) -> None:
    hand, n_runs = case
    parts = final_partition(hand, n_runs, RULES)
    if parts is not None:
        _check_partition(hand, n_runs, parts)
    want = brute_partition(hand, n_runs)
    event(f"partitionable={want}")
    assert (parts is not None) == want


@settings(max_examples=150, deadline=None)
@given(small_hands(max_size=10), st.sampled_from([1, 2]))
def test_prop_final_partition_random_hands(hand, n_runs) -> None:
    parts = final_partition(hand, n_runs, RULES)
    if parts is not None:
        _check_partition(hand, n_runs, parts)
    want = brute_partition(hand, n_runs)
    event(f"partitionable={want}")
    assert (parts is not None) == want
