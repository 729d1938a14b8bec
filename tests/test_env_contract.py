"""Conformance of the PettingZoo env ``contract_v0`` (the other profiles: ``test_env_contract_gamerules.py``,
``test_env_continental.py``, over the same ``conformance`` checks).

Covers the PettingZoo API tests, exact masks over many random states, opening completeness against an
independent brute force, hidden information, reward accounting, observation layout, illegal actions, config
errors, session length options and the ``action_info`` schema. Figures are printed (run with ``-s``).
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import numpy as np
import pytest
from conformance import (
    ENV_CASES,
    EXPECTED_KINDS,
    RARE_KINDS,
    case_id,
    check_action_info,
    check_hidden,
    check_mask_exact,
    check_observation,
    decisions,
    expected_returns,
    legal_kinds,
    make_env,
    play_session,
)
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test
from pettingzoo.utils import BaseWrapper, wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import rummy_env
from rummy_env.core.cards import card_str, parse_card
from rummy_env.engine import IllegalActionError

#: this module's checks are written for the contract profile (its rounds, buy window and reward modes); the other
#: profiles of ``ENV_CASES`` run the same checks through ``conformance``'s sweeps in their own modules
CASES = [pytest.param(c, id=case_id(c)) for c in ENV_CASES if c[0] == "contract"]


class _DefaultSeed(BaseWrapper):
    """Makes ``reset()`` without a seed use ``seed``, ``seed + 1``, ... so api_test runs reproducible games."""

    def __init__(self, env: Any, seed: int):
        super().__init__(env)
        self._next_seed = seed

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is None:
            seed = self._next_seed
            self._next_seed += 1
        super().reset(seed=seed, options=options)


# ============================================================================================================
# 1. PettingZoo API tests, entry points
# ============================================================================================================


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("seed", [0, 11, 222])
def test_pettingzoo_api(case, seed):
    api_test(_DefaultSeed(make_env(case), seed), num_cycles=400)


@pytest.mark.parametrize("case", CASES)
def test_pettingzoo_seed_render_parallel(case):
    seed_test(lambda **kw: make_env(case, **kw), num_cycles=300)
    render_test(lambda **kw: make_env(case, **kw))
    par = turn_based_aec_to_parallel(make_env(case))
    parallel_api_test(par, num_cycles=300)


def test_render_ansi_text():
    from rummy_env import contract_v0

    env = contract_v0.env(render_mode="ansi")
    env.reset(seed=5)
    text = env.render()
    assert isinstance(text, str) and "Round 1" in text and "Hand:" in text


def test_entry_points_equivalent():
    from rummy_env import contract_v0
    from rummy_env.envs import contract_v0 as inner

    assert contract_v0.env is inner.env and contract_v0.raw_env is inner.raw_env
    assert "contract_v0" in (contract_v0.__doc__ or "")
    a, b = contract_v0.env(), rummy_env.make("contract")
    assert type(a) is type(b) and type(a.unwrapped) is type(b.unwrapped) is contract_v0.raw_env
    assert isinstance(rummy_env.make("contract", wrapped=False), contract_v0.raw_env)
    assert a.possible_agents == b.possible_agents == [f"player_{i}" for i in range(4)]
    for ag in a.possible_agents:
        assert a.observation_space(ag) == b.observation_space(ag)
        assert a.action_space(ag) == b.action_space(ag)
    # the same seed and the same actions give the same trajectory
    rng = np.random.default_rng(0)
    a.reset(seed=9)
    b.reset(seed=9)
    for _ in range(300):
        oa, ra, ta, ua, _ = a.last()
        ob, rb, tb, ub, _ = b.last()
        assert a.agent_selection == b.agent_selection
        assert np.array_equal(oa["observation"], ob["observation"]) and np.array_equal(
            oa["action_mask"], ob["action_mask"]
        )
        assert (ra, ta, ua) == (rb, tb, ub)
        if ta or ua:
            break
        act = int(rng.choice(np.flatnonzero(oa["action_mask"])))
        a.step(act)
        b.step(act)
    assert a.unwrapped.game_state() == b.unwrapped.game_state()
    with pytest.raises(ValueError, match="contract"):
        rummy_env.make("no_such_game")


# ============================================================================================================
# 2. Exact masks over many random states
# ============================================================================================================

#: (seed, bias of the policy, extra config): uniform random play and a policy biased to meld / lay off / swap
MASK_RUNS = [
    (0, 0.0, {}),
    (1, 0.0, {}),
    (2, 0.9, {}),
    (3, 0.9, {}),
    (4, 0.9, {}),
    (5, 0.9, {"rounds": (7,)}),
    (6, 0.0, {"rounds": (7,)}),
]


def _rigged_states(profile: str) -> list[dict[str, Any]]:
    """Scenario positions that random play reaches rarely (swap, joker placement, going out)."""
    if profile != "contract":
        return []
    return [SWAP_SCENARIO, PLACE_SCENARIO, GO_OUT_SCENARIO, OPENING_MID_SCENARIO]


@pytest.mark.parametrize("case", CASES)
def test_mask_exact(case):
    rng = np.random.default_rng(1234)
    states = actions = legal_total = full_states = 0
    mismatches: list[str] = []
    kinds_seen: Counter[str] = Counter()
    phases_seen: Counter[str] = Counter()
    rounds_seen: set[int] = set()
    swept_phases: set[str] = set()

    def check(env, mask, force_full=False):
        nonlocal states, actions, legal_total, full_states
        st = env.unwrapped.state_
        full = force_full or states % 7 == 0 or st.phase not in swept_phases
        res = check_mask_exact(env, mask, rng, full=full, sample=120)
        if full:
            swept_phases.add(st.phase)
            full_states += 1
        states += 1
        legal_total += res["legal"]
        actions += res["legal"] + res["illegal"]
        mismatches.extend(f"[{st.phase} r{st.round}] {m}" for m in res["mismatches"])
        kinds_seen.update(legal_kinds(env, mask))
        phases_seen[st.phase] += 1
        rounds_seen.add(st.round)

    for seed, bias, extra in MASK_RUNS:
        env = make_env(case, **extra)
        per_round: Counter[int] = Counter()  # at most 7 states per round of each session: all rounds get sampled
        for _, obs in decisions(env, seed, bias=bias):
            rnd = env.unwrapped.state_.round
            if per_round[rnd] >= 7:
                continue
            mask = obs["action_mask"]
            rare = bool(legal_kinds(env, mask) & RARE_KINDS)
            if rng.random() < (0.3 if rare else 0.03):
                check(env, mask)
                per_round[rnd] += 1
    env = make_env(case)
    for sc in _rigged_states(case[0]):
        env.reset(seed=0, options={"scenario": sc})
        check(env, env.unwrapped.observe(env.agent_selection)["action_mask"], force_full=True)
    print(
        f"\n[mask {case_id(case)}] states checked {states} (full sweeps {full_states}), actions checked {actions} "
        f"(legal {legal_total}), mismatches {len(mismatches)}; phases {dict(phases_seen)}; rounds "
        f"{sorted(rounds_seen)}; legal kinds seen {dict(kinds_seen)}"
    )
    assert not mismatches, "\n".join(mismatches[:20])
    assert states >= 150
    missing = EXPECTED_KINDS.get(case[0], frozenset()) - set(kinds_seen)
    assert not missing, f"the sampled states never offered {sorted(missing)}"
    assert rounds_seen >= {1, 2, 3, 4, 5, 6, 7}


def test_mask_follows_state_replacement():
    """The env's mask cache must not return the mask of an earlier state object (ids are reused by Python)."""
    env = rummy_env.make("contract")
    env.reset(seed=3)
    u = env.unwrapped
    root = u.state_
    while root.phase != "act":
        root.apply(root.legal_actions()[0])
    p = root.current_player
    agent = u.possible_agents[p]
    rng = np.random.default_rng(0)
    stale = 0
    for _ in range(100):
        other = root.resample_hidden((p + 1) % 4, rng)  # redeals p's hand too: p's mask changes
        u.state_ = other
        if np.flatnonzero(u.action_mask(agent)).tolist() != other.legal_actions():
            stale += 1
        u.state_ = root
        del other
    assert stale == 0, f"{stale} of 100 masks were stale"


# ============================================================================================================
# 3. Opening completeness against an independent brute force
# ============================================================================================================

RANK_TXT = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUIT_TXT = "CDHS"
CONTRACTS = {1: (2, 0), 2: (1, 1), 3: (0, 2), 4: (3, 0), 5: (2, 1), 6: (1, 2), 7: (0, 3)}


def _nat(suit: int, pos: int) -> str:
    return RANK_TXT[0 if pos == 14 else pos - 1] + SUIT_TXT[suit]


def _norm(cards: list[str]) -> list[str]:
    return [card_str(parse_card(c)) for c in cards]


def _group_candidates(have: Counter) -> list[tuple[tuple, Counter]]:
    out = []
    jokers = have["JK"]
    for rank in RANK_TXT:
        naturals = sorted(rank + s for s in SUIT_TXT for _ in range(have[rank + s]))
        for j in range(min(3, jokers) + 1):
            for combo in sorted(set(itertools.combinations(naturals, 3 - j))):
                use = Counter(combo)
                if j:
                    use["JK"] = j
                out.append((("group", tuple(sorted(list(combo) + [f"JK({rank})"] * j))), use))
    return out


def _run_candidates(have: Counter, lengths: tuple[int, ...] = (4,)) -> list[tuple[tuple, Counter, tuple]]:
    out = []
    for length in lengths:
        for suit in range(4):
            for low in range(1, 14 - length + 2):
                for jk in itertools.product((False, True), repeat=length):
                    use: Counter = Counter()
                    cards = []
                    for i, is_joker in enumerate(jk):
                        c = _nat(suit, low + i)
                        if is_joker:
                            use["JK"] += 1
                            cards.append(f"JK({c})")
                        else:
                            use[c] += 1
                            cards.append(c)
                    if all(use[c] <= have[c] for c in use):
                        out.append((("run", tuple(sorted(cards))), use, (suit, low, low + length - 1)))
    return out


def _adjacent(spans: list[tuple[int, int, int]]) -> bool:
    for (s1, a1, b1), (s2, a2, b2) in itertools.combinations(spans, 2):
        if s1 == s2 and (a2 == b1 + 1 or a1 == b2 + 1):
            return True
    return False


def _combos(cands: list, k: int, have: Counter, start: int = 0, used: Counter | None = None):
    """Index tuples (non-decreasing) of ``k`` candidates whose cards fit together in ``have``."""
    used = used if used is not None else Counter()
    if k == 0:
        yield (), used
        return
    for i in range(start, len(cands)):
        use = cands[i][1]
        if any(used[c] + n > have[c] for c, n in use.items()):
            continue
        for rest, total in _combos(cands, k - 1, have, i, used + use):
            yield (i, *rest), total


def brute_openings(hand: list[str], groups: int, runs: int) -> set[tuple]:
    """Every exact-minimum opening layout of ``hand``: ``groups`` groups of 3 and ``runs`` runs of 4 from disjoint
    cards, jokers declared anywhere, same-suit runs not adjacent (A.1-7), a card left to discard (A.1-12)."""
    have = Counter(_norm(hand))
    gc = _group_candidates(have) if groups else []
    rc = _run_candidates(have) if runs else []
    size = sum(have.values())
    out = set()
    for gs, gused in _combos(gc, groups, have):
        for rs, total in _combos(rc, runs, have, 0, gused):
            if size - sum(total.values()) < 1 or _adjacent([rc[i][2] for i in rs]):
                continue
            out.add(tuple(sorted([gc[i][0] for i in gs] + [rc[i][0] for i in rs])))
    return out


def brute_go_out(hand: list[str], runs: int = 3) -> set[tuple]:
    """Every way to lay the whole hand as exactly ``runs`` runs (each >= 4), same-suit runs not adjacent."""
    have = Counter(_norm(hand))
    size = sum(have.values())
    longest = size - 4 * (runs - 1)
    rc = _run_candidates(have, tuple(range(4, min(longest, 14) + 1)))
    by_use: dict[tuple, list[int]] = {}
    for i, (_, use, _) in enumerate(rc):
        by_use.setdefault(tuple(sorted(use.items())), []).append(i)
    out = set()
    for rs, used in _combos(rc, runs - 1, have):
        rest = tuple(sorted((c, n - used[c]) for c, n in have.items() if n - used[c] > 0))
        for last in by_use.get(rest, []):
            if last < rs[-1]:
                continue
            chosen = (*rs, last)
            if not _adjacent([rc[i][2] for i in chosen]):
                out.add(tuple(sorted(rc[i][0] for i in chosen)))
    return out


def _table_layout(state_json: dict[str, Any], seat: int) -> tuple:
    return tuple(sorted((m["kind"], tuple(sorted(m["cards"]))) for m in state_json["table"] if m["owner"] == seat))


def _scenario(round_no: int, hand: list[str] | str, seed: int = 0, **extra: Any) -> dict[str, Any]:
    """Seat 0 to act in round ``round_no`` with ``hand``; the other hands are dealt from the rest of the shoe."""
    if isinstance(hand, str):
        hand = hand.split()
    pool = Counter({card_str(k): 2 for k in range(52)})
    pool["JK"] = 3
    pool.subtract(Counter(_norm(hand)))
    for tm in extra.get("table", []):
        pool.subtract(Counter("JK" if c.startswith("JK") else card_str(parse_card(c)) for c in tm["cards"]))
    assert min(pool.values()) >= 0, "the scenario uses more copies than the shoe has"
    rest = sorted(pool.elements(), key=parse_card)
    rest = [rest[i] for i in np.random.default_rng(seed).permutation(len(rest))]
    size = 10 if round_no <= 3 else 12
    hands = [list(hand)] + [rest[i * size : (i + 1) * size] for i in range(3)]
    sc = {"round": round_no, "dealer": 3, "phase": "act", "hands": hands, "taken_discard": None}
    sc.update(extra)
    return sc


OPENING_HANDS = [
    # round 1, G+G: copies, jokers in groups, several ranks
    (1, "7C 7C 7D 7H 9S 9S 9D JK JK KD 2C"),
    # round 2, G+R: runs with optional jokers, groups with and without jokers
    (2, "5H 6H 7H 8H 9H JK QS QS QD 3C 10D"),
    # round 3, R+R: same-suit runs (overlap legal, adjacency illegal), ace low
    (3, "AH 2H 3H 4H 5H 6H 7H 8H 3H 4H JK"),
    # round 3: ace-high runs and two suits
    (3, "JS QS KS AS 10S 9D 10D JD QD JK 2C 2C"),
    # round 4, G+G+G with all three jokers (an all-joker group is legal, A.2-6)
    (4, "JK JK JK 5C 5D 6H 6S 6S 8C 9D 10H KD KC"),
    # round 5, G+G+R
    (5, "AC AC AD 2D 2H 2S JS QS KS AS JK 8C 9C"),
    # round 6, G+R+R: two diamond runs must leave a gap
    (6, "AD 2D 3D 4D 5D 6D 7D 8D 9D 9C 9S JK KH"),
    # round 3: 3H..10H only makes adjacent runs: no opening (A.1-7)
    (3, "3H 4H 5H 6H 7H 8H 9H 10H 2C KD QS"),
    # round 2: no run at all
    (2, "3H 3D 3S 7C 9C JC KC 2D 6D 10D QS"),
]


def _reachable_openings(env, root) -> tuple[set[tuple], int, list[str]]:
    """Layouts reachable from ``root`` by meld actions offered in the env's mask (DFS, memoised by table)."""
    u = env.unwrapped
    agent = u.possible_agents[root.current_player]
    seat = root.current_player
    layouts: set[tuple] = set()
    problems: list[str] = []
    seen: dict[tuple, bool] = {}
    nodes = 0

    def dfs(st) -> bool:
        nonlocal nodes
        nodes += 1
        js = st.to_json()
        key = _table_layout(js, seat)
        if key in seen:
            return seen[key]
        u.state_ = st
        mask = u.action_mask(agent)
        melds = [int(a) for a in np.flatnonzero(mask) if u.action_info(int(a))["kind"] == "meld"]
        if st.phase == "opening" and len(melds) != int(mask.sum()):
            problems.append(f"opening phase offers non-meld actions at {key}")
        found = False
        for a in melds:
            child = st.clone()
            child.apply(a)
            if child.phase == "act":
                cj = child.to_json()
                layouts.add(_table_layout(cj, seat))
                if seat not in cj["opened"] and not cj["opened_this_turn"]:
                    problems.append("a completed opening did not mark the seat opened")
                if not child.legal_actions():
                    problems.append(f"the opening {_table_layout(cj, seat)} leaves the player no legal action")
                found = True
            elif child.phase == "opening":
                sub = dfs(child)
                if not sub:
                    problems.append(f"meld {u.action_info(a)['cards']} leads to a dead end at {key}")
                found = found or sub
            else:
                problems.append(f"meld led to phase {child.phase}")
        seen[key] = found
        return found

    dfs(root)
    u.state_ = root
    return layouts, nodes, problems


@pytest.mark.parametrize("round_no,hand", OPENING_HANDS, ids=[f"r{r}-{i}" for i, (r, _) in enumerate(OPENING_HANDS)])
def test_opening_completeness(round_no, hand):
    cards = hand.split()
    env = rummy_env.make("contract")
    env.reset(seed=1, options={"scenario": _scenario(round_no, cards)})
    root = env.unwrapped.state_
    assert root.phase == "act" and root.current_player == 0
    g, r = CONTRACTS[round_no]
    want = brute_openings(cards, g, r)
    got, nodes, problems = _reachable_openings(env, root)
    print(f"\n[opening r{round_no}] {hand}: brute force {len(want)} layouts, reachable {len(got)}, nodes {nodes}")
    assert not problems, problems[:10]
    assert got == want, f"missing {sorted(want - got)[:5]}; extra {sorted(got - want)[:5]}"


def test_opening_never_strands_the_player():
    """A.1-12 + A.2-4: an opening must leave a card that may be discarded. Here the only card left after opening
    with the group and the run would be KD, just taken from the discard pile (not re-discardable): the engine must
    not offer that opening (scenario-only position: dealt hands are too large to reach it)."""
    sc = _scenario(2, "7C 7D 7H 5S 6S 7S 8S KD", taken_discard="KD", taken_pending=True, rigged=True)
    env = rummy_env.make("contract")
    env.reset(seed=0, options={"scenario": sc})
    _, _, problems = _reachable_openings(env, env.unwrapped.state_)
    assert not problems, sorted(set(problems))


def test_opening_hands_are_rich():
    """The scenarios above exercise many layouts (so the equality is not trivially about empty sets)."""
    sizes = [len(brute_openings(h.split(), *CONTRACTS[r])) for r, h in OPENING_HANDS]
    assert sum(1 for s in sizes if s >= 10) >= 5 and sizes[-2:] == [0, 0], sizes


GO_OUT_HANDS = [
    "AC 2C 3C 4C 5C 6D 7D 8D 9D 10S JS QS KS",  # 5 + 4 + 4
    "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH",  # one suit, contiguous: every split is adjacent
    "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH JK",  # one joker closes only one of the two gaps
    "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH JK JK",  # two jokers: overlapping runs
    "3D 4D 5D 6D 3D 4D 5D 6D 9S 10S JK QS JK",  # two equal runs overlap (legal)
    "2C 3C 4C 5C 7C 8C 9C 10C JS QS KS AS 5H",  # a stray card: no go-out
]


@pytest.mark.parametrize("hand", GO_OUT_HANDS)
def test_go_out_matches_brute_force(hand):
    cards = hand.split()
    env = rummy_env.make("contract")
    env.reset(seed=2, options={"scenario": _scenario(7, cards)})
    st = env.unwrapped.state_
    want = brute_go_out(cards)
    mask = env.unwrapped.action_mask("player_0")
    go = st.layout.GO_OUT
    print(f"\n[go out] {hand}: brute force {len(want)} partitions, go_out offered {bool(mask[go])}")
    assert bool(mask[go]) == bool(want)
    if want:
        c = st.clone()
        c.apply(go)
        js = c.to_json()
        assert _table_layout(js, 0) in want
        assert js["round_results"][-1]["winner"] == 0 and js["round_results"][-1]["penalties"][0] == 0


# rigged positions for the mask test: a joker swap, a freed joker to place, a round-7 go out, an opening half done
SWAP_SCENARIO = _scenario(
    2,
    "6H 2C 9D KS 4S",
    table=[
        {"owner": 1, "kind": "run", "cards": ["5H", "JK(6H)", "7H", "8H"]},
        {"owner": 1, "kind": "group", "cards": ["QC", "QD", "JK(Q)"]},
        {"owner": 0, "kind": "group", "cards": ["3C", "3D", "3S"]},
        {"owner": 0, "kind": "run", "cards": ["9S", "10S", "JS", "QS"]},
    ],
    opened=[0, 1],
)
PLACE_SCENARIO = dict(SWAP_SCENARIO, phase="place_joker", hands=[["JK", "2C", "9D", "KS"]] + SWAP_SCENARIO["hands"][1:])
PLACE_SCENARIO["table"] = [dict(m) for m in SWAP_SCENARIO["table"]]
PLACE_SCENARIO["table"][0] = {"owner": 1, "kind": "run", "cards": ["5H", "6H", "7H", "8H"]}
GO_OUT_SCENARIO = _scenario(7, GO_OUT_HANDS[0].split())
OPENING_MID_SCENARIO = _scenario(
    5,
    "AC AD 2D 2H 2S JS QS KS AS JK 8C",
    phase="opening",
    opening_left=[1, 1],
    table=[{"owner": 0, "kind": "group", "cards": ["7C", "7D", "7H"]}],
)


def test_rigged_scenarios_offer_their_actions():
    env = rummy_env.make("contract")
    want = {"swap_joker": SWAP_SCENARIO, "place_joker": PLACE_SCENARIO, "go_out": GO_OUT_SCENARIO}
    for kind, sc in want.items():
        env.reset(seed=0, options={"scenario": sc})
        assert kind in legal_kinds(env, env.unwrapped.action_mask("player_0")), kind
    env.reset(seed=0, options={"scenario": OPENING_MID_SCENARIO})
    assert legal_kinds(env, env.unwrapped.action_mask("player_0")) == {"meld"}


# ============================================================================================================
# 4. Hidden information
# ============================================================================================================


@pytest.mark.parametrize("case", CASES)
def test_hidden_information(case):
    rng = np.random.default_rng(77)
    states = checks = opp_changed = other_obs = 0
    problems: list[str] = []
    for seed, bias, extra in [(30, 0.9, {}), (31, 0.9, {}), (32, 0.0, {}), (33, 0.9, {"rounds": (7,)})]:
        env = make_env(case, **extra)
        per_round: Counter[int] = Counter()
        for _, _obs in decisions(env, seed, bias=bias):
            rnd = env.unwrapped.state_.round
            if per_round[rnd] >= 6 or rng.random() > 0.08:
                continue
            per_round[rnd] += 1
            res = check_hidden(env, rng)
            states += 1
            checks += res["players"]
            opp_changed += res["opp_changed"]
            other_obs += res["other_obs_changed"]
            st = env.unwrapped.state_
            problems.extend(f"[{st.phase} r{st.round}] {p}" for p in res["problems"])
    print(
        f"\n[hidden {case_id(case)}] states {states}, (state, player) checks {checks}, problems {len(problems)}; "
        f"resamples that changed an opponent hand {opp_changed}, that changed another seat's observation {other_obs}"
    )
    assert not problems, "\n".join(problems[:20])
    assert states >= 80
    # the resampling really redeals hidden cards (otherwise the check above is vacuous)
    assert opp_changed >= 0.9 * checks
    assert other_obs >= 0.9 * checks


# ============================================================================================================
# 5. Reward accounting
# ============================================================================================================


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("mode", ["penalty", "relative", "win"])
def test_reward_accounting(case, mode):
    env = make_env(case, reward=mode)
    agents = env.possible_agents
    reasons: Counter[str] = Counter()
    for seed, bias in [(40, 0.9), (41, 0.9), (42, 0.0)]:
        res = play_session(env, seed, bias)
        st = res["state"]
        reasons.update(r["reason"] for r in st.round_results)
        assert st.is_terminal() and len(st.round_results) == len(st.rounds)
        assert res["final_seen"] == dict.fromkeys(agents, 1), "every agent sees its termination once"
        want = expected_returns(mode, st, agents)
        for a in agents:
            assert res["last"][a] == pytest.approx(want[a], abs=1e-9), (a, res["last"], want)
            assert res["rewards"].get(a, 0.0) == pytest.approx(want[a], abs=1e-9)
        if mode == "penalty":
            assert [res["last"][a] for a in agents] == pytest.approx([-s / 100 for s in st.scores])
        if mode in ("relative", "win"):
            assert sum(res["last"].values()) == pytest.approx(0.0, abs=1e-9)
    print(f"\n[reward {mode}] round endings {dict(reasons)}")
    assert reasons["out"] >= 3, "some rounds must be won (not only exhausted / capped)"


def test_reward_delivered_to_idle_agents():
    """A round-end penalty of an agent who did not act is visible in its next ``last()``, exactly once."""
    env = rummy_env.make("contract", rounds=(1, 2))
    env.reset(seed=40)
    u = env.unwrapped
    rng = np.random.default_rng(0)
    from conformance import choose_action

    pending = dict.fromkeys(env.possible_agents, 0.0)
    delivered = 0
    for agent in env.agent_iter():
        obs, rew, term, trunc, _ = env.last()
        assert rew == pytest.approx(pending[agent]), (agent, rew, pending[agent])
        if rew:
            delivered += 1
        pending[agent] = 0.0
        if term or trunc:
            env.step(None)
            continue
        env.step(choose_action(env, obs["action_mask"], rng, 0.9, 0.05))
        for a, r in u.rewards.items():
            pending[a] += r
    assert delivered >= 6, "both round ends delivered penalties to the non-acting agents"


# ============================================================================================================
# 6. Observations
# ============================================================================================================


@pytest.mark.parametrize("case", CASES)
def test_observations(case):
    rng = np.random.default_rng(5)
    checked = 0
    problems: list[str] = []
    for seed, bias, extra in [(50, 0.9, {}), (51, 0.0, {}), (52, 0.9, {"rounds": (7,)})]:
        env = make_env(case, **extra)
        space = env.observation_space(env.possible_agents[0])
        assert space["observation"].dtype == np.float32 and space["action_mask"].dtype == np.int8
        assert space["action_mask"].shape == (env.action_space(env.possible_agents[0]).n,)
        for agent, obs in decisions(env, seed, bias=bias):
            if rng.random() < 0.15:
                checked += 1
                problems.extend(check_observation(env, agent, obs, rng))
        # after the session: terminal observations are still in the space, masks all zero
        assert env.unwrapped.state_.is_terminal()
        for a in env.possible_agents:
            o = env.unwrapped.observe(a)
            assert space.contains(o) and not o["action_mask"].any()
    print(f"\n[observations {case_id(case)}] decisions checked {checked}, problems {len(problems)}")
    assert not problems, problems[:20]
    assert checked >= 300


# ============================================================================================================
# 7. Illegal actions and configuration errors
# ============================================================================================================


def _first_illegal(env) -> int:
    mask = env.unwrapped.action_mask(env.agent_selection)
    return int(np.flatnonzero(mask == 0)[5])


def test_illegal_action_raises_and_keeps_state():
    env = rummy_env.make("contract", illegal_action="raise")
    env.reset(seed=60)
    rng = np.random.default_rng(1)
    for _ in range(40):  # get into an act phase with many legal actions
        agent = env.agent_selection
        env.step(int(rng.choice(np.flatnonzero(env.unwrapped.action_mask(agent)))))
    for _ in range(3):
        before = env.unwrapped.game_state()
        agent = env.agent_selection
        legal = env.unwrapped.state_.legal_actions()
        bad = _first_illegal(env)
        with pytest.raises(ValueError) as ei:
            env.step(bad)
        assert isinstance(ei.value, IllegalActionError)
        msg = str(ei.value)
        assert f"illegal action {bad}" in msg and "legal actions" in msg
        for a in legal[:40]:
            assert f"{a} (" in msg
        assert env.unwrapped.game_state() == before and env.agent_selection == agent
        env.step(legal[0])  # the env goes on
    before = env.unwrapped.game_state()
    with pytest.raises(IllegalActionError, match="not an action of this table"):  # out of range: no assert
        env.step(env.action_space(env.agent_selection).n)
    with pytest.raises(IllegalActionError, match="must act"):  # None for a live agent
        env.step(None)
    assert env.unwrapped.game_state() == before


def _terminate_run(env, seed: int) -> dict[str, Any]:
    env.reset(seed=seed)
    for _ in range(7):
        env.step(int(np.flatnonzero(env.unwrapped.action_mask(env.agent_selection))[0]))
    offender = env.agent_selection
    env.step(_first_illegal(env))
    got: Counter[str] = Counter()
    seen = []
    for agent in env.agent_iter():
        _, rew, term, trunc, info = env.last()
        assert term or trunc
        got[agent] += rew
        seen.append(agent)
        env.step(None)
    return {"offender": offender, "rewards": dict(got), "seen": sorted(seen), "agents": list(env.agents)}


def test_illegal_action_terminate_like_pettingzoo():
    ours = _terminate_run(rummy_env.make("contract", illegal_action="terminate"), 61)
    agents = [f"player_{i}" for i in range(4)]
    assert ours["seen"] == agents and ours["agents"] == []
    assert ours["rewards"] == {a: (-1.0 if a == ours["offender"] else 0.0) for a in agents}
    ref_env = wrappers.OrderEnforcingWrapper(
        wrappers.TerminateIllegalWrapper(rummy_env.make("contract", wrapped=False), illegal_reward=-1)
    )
    ref = _terminate_run(ref_env, 61)
    assert ref["offender"] == ours["offender"] and ref["rewards"] == ours["rewards"] and ref["seen"] == ours["seen"]
    # None for a live agent also terminates
    env = rummy_env.make("contract", illegal_action="terminate", wrapped=False)
    env.reset(seed=1)
    off = env.agent_selection
    env.step(None)
    assert all(env.terminations.values()) and env._cumulative_rewards[off] == -1.0
    assert env.infos[off]["illegal_move"] is True


@pytest.mark.parametrize(
    "kwargs,needle",
    [
        ({"reward": "x"}, "penalty"),
        ({"render_mode": "x"}, "ansi"),
        ({"illegal_action": "x"}, "terminate"),
        ({"max_steps": 0}, "positive"),
        ({"no_such_rule": 1}, "turn_cap"),
        ({"rounds": (8,)}, "round"),
        ({"rounds": ()}, "round"),
    ],
)
def test_bad_config(kwargs, needle):
    with pytest.raises(ValueError) as ei:
        rummy_env.make("contract", **kwargs)
    assert needle in str(ei.value)
    assert next(iter(kwargs)) in str(ei.value)


def test_rule_override_forbid_rediscard_false():
    """The documented override ``forbid_rediscard=False`` must let a player discard the card just taken."""
    for flag, allowed in ((True, False), (False, True)):
        env = rummy_env.make("contract", wrapped=False, forbid_rediscard=flag)
        env.reset(seed=0)
        st = env.state_
        st.apply(st.layout.DRAW_DISCARD)
        k = st.taken_kind
        assert st.hands[st.active][k] == 1
        assert (st.layout.DISCARD + k in st.legal_actions()) is allowed, f"forbid_rediscard={flag}"


# ============================================================================================================
# 8. Session length options, action_info schema
# ============================================================================================================


def test_single_round_session():
    env = rummy_env.make("contract", rounds=(1,))
    for seed in (70, 71):
        res = play_session(env, seed, bias=0.9)
        st = res["state"]
        assert st.is_terminal() and [r["round"] for r in st.round_results] == [1]
        assert env.agents == []


def test_round_7_only():
    env = rummy_env.make("contract", rounds=(7,))
    env.reset(seed=3)
    assert env.unwrapped.state_.round == 7
    assert env.unwrapped.observation_pieces(env.agent_selection)["round"][6] == 1.0


@pytest.mark.parametrize("max_steps", [1, 25, 333])
def test_max_steps_truncates(max_steps):
    env = rummy_env.make("contract", max_steps=max_steps)
    env.reset(seed=80)
    steps = 0
    truncated = set()
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            assert trunc and not term
            truncated.add(agent)
            env.step(None)
            continue
        env.step(int(np.flatnonzero(env.unwrapped.action_mask(agent))[-1]))
        steps += 1
    assert steps == max_steps and truncated == set(env.possible_agents) and env.agents == []


@pytest.mark.parametrize("case", CASES)
def test_action_info_schema(case):
    problems: list[str] = []
    kinds: Counter[str] = Counter()
    rng = np.random.default_rng(9)
    env = make_env(case)
    for seed, bias, extra in [(90, 0.9, {}), (91, 0.0, {}), (92, 0.9, {})]:
        env = make_env(case, **extra)
        for _, obs in decisions(env, seed, bias=bias):
            if rng.random() > 0.2:
                continue
            for a in np.flatnonzero(obs["action_mask"]):
                problems.extend(check_action_info(env, int(a)))
                kinds[env.unwrapped.action_info(int(a))["kind"]] += 1
    for sc in _rigged_states(case[0]):
        env.reset(seed=0, options={"scenario": sc})
        for a in np.flatnonzero(env.unwrapped.action_mask(env.agent_selection)):
            problems.extend(check_action_info(env, int(a)))
            kinds[env.unwrapped.action_info(int(a))["kind"]] += 1
    print(f"\n[action_info {case_id(case)}] legal actions checked by kind {dict(kinds)}, problems {len(problems)}")
    assert not problems, problems[:20]
    if case[0] == "contract":
        assert set(kinds) == set(EXPECTED_KINDS["contract"]) | {"go_out"}


def test_action_info_joker_strings():
    env = rummy_env.make("contract")
    env.reset(seed=0, options={"scenario": SWAP_SCENARIO})
    u = env.unwrapped
    table = u.game_state()["table"]
    assert table[0]["cards"][1] == "JK(6H)" and table[1]["cards"][2] == "JK(Q)"
    swaps = [u.action_info(a) for a in u.state_.legal_actions() if u.action_info(a)["kind"] == "swap_joker"]
    assert len(swaps) == 1
    assert {k: swaps[0][k] for k in ("kind", "card", "seat", "meld")} == {
        "kind": "swap_joker",
        "card": "6H",
        "seat": 1,
        "meld": 0,
    }
    meld_infos = [u.action_info(a) for a in range(u.num_actions) if u.layout.range_of(a).name == "meld"]
    jokers = {c for i in meld_infos for c in i["cards"] if c.startswith("JK")}
    assert "JK(6D)" in jokers and "JK(7)" in jokers and "JK(AS)" in jokers and "JK(10)" in jokers
    assert all(c.startswith("JK(") and c.endswith(")") for c in jokers)


def test_rounds_as_a_number_plays_the_first_rounds() -> None:
    """``rounds=N`` (the session length every profile accepts) plays rounds 1..N; out of range is refused."""
    env = rummy_env.make("contract", rounds=2)
    env.reset(seed=3)
    assert env.unwrapped.game_state()["rounds"] == [1, 2]
    for bad in (0, 8, True):
        with pytest.raises(ValueError, match="round"):
            rummy_env.make("contract", rounds=bad)
