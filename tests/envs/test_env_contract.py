"""Conformance of the PettingZoo env ``contract_v0``.

The checks every profile shares are ``conformance.ProfileConformance`` (PettingZoo API tests, entry points,
exact masks over many random states and the rigged positions of ``conformance.RIGGED["contract"]`` (a joker swap,
a freed joker to place, a round-7 go out, an opening half done), hidden information, reward accounting for every
reward mode, observation layout, the ``action_info`` schema, illegal actions, configuration errors, ``rounds`` and
``max_steps``), run here over the contract case with ``conformance.PLANS["contract"]``. This module adds what is
particular to the profile: opening completeness and going out against an independent brute force, rewards
delivered to idle agents, the mask cache, the ``forbid_rediscard`` override and joker declarations in
``action_info``. Figures are printed (run with ``-s``).
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import numpy as np
import pytest
from conformance import ProfileConformance, build_scenario, choose_action, named_scenario

import rummy_env
from rummy_env.core.cards import card_str, parse_card

CONTRACT = ("contract", {})


class TestContractEnv(ProfileConformance):
    profile = "contract"


def test_unknown_profile_is_refused():
    with pytest.raises(ValueError, match="contract"):
        rummy_env.make("no_such_game")


def test_mask_follows_state_replacement():
    """The env's mask cache must not return the mask of an earlier state object (ids are reused by Python)."""
    env = rummy_env.make("contract")
    env.reset(seed=3)
    u = env.unwrapped
    root = u._state
    while root.phase != "act":
        root.apply(root.legal_actions()[0])
    p = root.current_player
    agent = u.possible_agents[p]
    rng = np.random.default_rng(0)
    stale = 0
    for _ in range(100):
        other = root.resample_hidden((p + 1) % 4, rng)  # redeals p's hand too: p's mask changes
        u._state = other
        if np.flatnonzero(u.action_mask(agent)).tolist() != other.legal_actions():
            stale += 1
        u._state = root
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
        u._state = st
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
    u._state = root
    return layouts, nodes, problems


@pytest.mark.parametrize("round_no,hand", OPENING_HANDS, ids=[f"r{r}-{i}" for i, (r, _) in enumerate(OPENING_HANDS)])
def test_opening_completeness(round_no, hand):
    cards = hand.split()
    env = rummy_env.make("contract")
    env.reset(seed=1, options={"scenario": build_scenario(CONTRACT, cards, round_no=round_no)})
    root = env.unwrapped._state
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
    sc = build_scenario(CONTRACT, "7C 7D 7H 5S 6S 7S 8S KD", round_no=2, taken_discard="KD", taken_pending=True)
    env = rummy_env.make("contract")
    env.reset(seed=0, options={"scenario": sc})
    _, _, problems = _reachable_openings(env, env.unwrapped._state)
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
    env.reset(seed=2, options={"scenario": build_scenario(CONTRACT, cards, round_no=7)})
    st = env.unwrapped._state
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


def test_reward_delivered_to_idle_agents():
    """A round-end penalty of an agent who did not act is visible in its next ``last()``, exactly once."""
    env = rummy_env.make("contract", rounds=(1, 2))
    env.reset(seed=40)
    u = env.unwrapped
    rng = np.random.default_rng(0)
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


def test_rule_override_forbid_rediscard_false():
    """The documented override ``forbid_rediscard=False`` must let a player discard the card just taken."""
    for flag, allowed in ((True, False), (False, True)):
        env = rummy_env.make("contract", wrapped=False, forbid_rediscard=flag)
        env.reset(seed=0)
        st = env._state
        st.apply(st.layout.DRAW_DISCARD)
        k = st.taken_kind
        assert st.hands[st.active][k] == 1
        assert (st.layout.DISCARD + k in st.legal_actions()) is allowed, f"forbid_rediscard={flag}"


def test_action_info_joker_strings():
    env = rummy_env.make("contract")
    env.reset(seed=0, options={"scenario": named_scenario(CONTRACT, "swap_joker")})
    u = env.unwrapped
    table = u.game_state()["table"]
    assert table[0]["cards"][1] == "JK(6H)" and table[1]["cards"][2] == "JK(Q)"
    swaps = [u.action_info(a) for a in u._state.legal_actions() if u.action_info(a)["kind"] == "swap_joker"]
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
