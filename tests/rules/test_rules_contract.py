"""Scripted-hand tests of the ``contract`` profile, one (or more) per rule of document 000.

Each test rigs a small position with ``load_state`` (or deals with ``new_state``), plays actions through
``find_action`` and checks exact outcomes. The comment above each test quotes the rule it checks: the English
specification (docs/rules/contract.md, "Profile contract", items A.1-n / A.2-n) and, where it helps, the Russian
source sentence (by its section number in the original rule text).

Scenario conventions: seats P0..P3 clockwise, piles listed top first, ``JK(6D)`` a joker declared as 6D in a run,
``JK(7)`` a joker declared as a 7 in a group. ``complete()`` puts every card of the 107-card shoe not placed by the
test at the bottom of the stock, so the tops of both piles are exactly what the test wrote.
"""

from __future__ import annotations

import copy
from collections import Counter
from functools import partial
from typing import Any

import pytest
import scenarios
from scenarios import (
    act,
    card_name,
    complete,
    final,
    hand,
    infos,
    kinds,
    layoffs,
    leftover,
    melds_offered,
    pen,
    quiet_turn,
    srt,
    table_of,
)

from rummy_env.core.cards import JOKER, Shoe, card_str, parse_card
from rummy_env.engine import IllegalActionError, ScenarioError, load_state, new_state
from rummy_env.engine.common import make_rng, shuffled

PROFILE = "contract"
scenario = partial(scenarios.scenario, PROFILE)

# Melds a seat that opened in round 2 (group + run) has on the table in several tests.
OWN_R2 = [
    {"owner": 0, "kind": "group", "cards": ["5C", "5D", "5S"]},
    {"owner": 0, "kind": "run", "cards": ["9D", "10D", "JD", "QD"]},
]


# ----------------------------------------------------------------------------------------------------------------
# A.1-1 Players / deck
# ----------------------------------------------------------------------------------------------------------------


# A.1-1 "Exactly 4, each for self. 2x52 + 3 JK = 107. Only jokers are wild; 2s are natural."
# 01: "Смешайте две колоды 52 с 3 джокерами, всего 107 карт. Только джокеры заменяют карты; двойки натуральные."
def test_shoe_is_107_cards_two_copies_and_three_jokers():
    s = new_state("contract", seed=3)
    j = s.to_json()
    assert len(j["hands"]) == 4 and s.n == 4
    every = [c for h in j["hands"] for c in h] + j["stock"] + j["discard"]
    assert len(every) == 107
    counts = Counter(every)
    assert counts["JK"] == 3
    assert all(counts[card_str(k)] == 2 for k in range(52))
    with pytest.raises(ValueError):
        new_state("contract", seed=0, num_players=3)


# A.1-1 "Only jokers are wild; 2s are natural": a 2 cannot stand in for the missing card of a run,
# but 2-2-2 is an ordinary group.
#   P0 (round 2, after drawing):  2C | 3S 4S 5S | 7C 7D 7H | KD 9H 10C 4D
def test_twos_are_natural_not_wild():
    rest = ["KD", "9H", "10C", "4D"]
    s = load_state(scenario([["2C", "3S", "4S", "5S", "7C", "7D", "7H", *rest], [], [], []], phase="act"))
    assert infos(s, "meld") == []  # no run 3S-6S with the 2 as a wild card, so no contract
    s = load_state(scenario([["JK", "3S", "4S", "5S", "7C", "7D", "7H", *rest], [], [], []], phase="act"))
    assert ("run", tuple(sorted(["3S", "4S", "5S", "JK(6S)"]))) in melds_offered(s)
    s = load_state(
        scenario(
            [["2C", "2D", "2H", "7C", "7D", "7H", "KD", "9H", "10C", "4D", "5S"], [], [], []], round=1, phase="act"
        )
    )
    assert ("group", ("2C", "2D", "2H")) in melds_offered(s)


# ----------------------------------------------------------------------------------------------------------------
# A.1-2 Deal
# ----------------------------------------------------------------------------------------------------------------


# A.1-2 "10 each in rounds 1-3, 12 each in rounds 4-7. Next card face up = discard; rest = stock.
# Rounds 1-3: stock 66, discard 1. Rounds 4-7: stock 58, discard 1. Left of dealer plays first" and "each later
# round the dealer is the left neighbour of the previous dealer. All 107 cards reshuffled before every round."
# (turn_cap=1 ends every round after one turn, so the seven deals follow one another quickly.)
def test_deal_sizes_piles_and_dealer_rotation_over_seven_rounds():
    s = new_state("contract", seed=11, turn_cap=1)
    prev_dealer = None
    for rnd in range(1, 8):
        j = s.to_json()
        size = 10 if rnd <= 3 else 12
        assert s.round == rnd and j["round"] == rnd
        assert s.hand_size == [size] * 4
        assert [len(h) for h in j["hands"]] == [size] * 4
        assert len(j["discard"]) == 1
        assert len(j["stock"]) == (66 if rnd <= 3 else 58)
        assert j["table"] == [] and j["opened"] == []
        assert Counter(c for h in j["hands"] for c in h) + Counter(j["stock"] + j["discard"]) == Counter(
            {card_str(k): 2 for k in range(52)} | {"JK": 3}
        )
        if prev_dealer is not None:
            assert s.dealer == (prev_dealer + 1) % 4
        assert s.active == s.current_player == (s.dealer + 1) % 4
        assert s.phase == "draw"
        prev_dealer = s.dealer
        act(s, kind="draw_discard")
        act(s, **infos(s, "discard")[0])
    assert s.is_terminal()
    assert [r["round"] for r in s.round_results] == list(range(1, 8))


# A.1-2 "First dealer random ... One card at a time, face down ... Next card face up = discard; rest = stock.
# Left of dealer plays first; clockwise." The deal is replayed from the seeded generator: card i of the shuffled
# shoe goes to seat (dealer + 1 + i) mod 4, card 40 is the up-card, cards 41.. are the stock from the top.
def test_deal_one_card_at_a_time_from_dealers_left():
    dealers = set()
    for seed in range(12):
        s = new_state("contract", seed=seed)
        dealers.add(s.dealer)
        assert s.current_player == (s.dealer + 1) % 4
    assert len(dealers) > 1  # the first dealer is drawn at random
    seed = 7
    s = new_state("contract", seed=seed)
    rng = make_rng(seed)
    dealer = int(rng.integers(4))
    cards = shuffled(rng, Shoe(2, 3).kinds())
    assert s.dealer == dealer
    want = [[] for _ in range(4)]
    for i in range(40):
        want[(dealer + 1 + i) % 4].append(card_str(cards[i]))
    j = s.to_json()
    assert j["hands"] == [srt(h) for h in want]
    assert j["discard"] == [card_str(cards[40])]
    assert j["stock"] == [card_str(k) for k in cards[41:]]


# A.1-2 rounds 4-7 deal 12: "по 12 в кругах 4, 5, 6, 7"; rounds=(k,) starts a session at round k.
@pytest.mark.parametrize("rnd,size,stock", [(1, 10, 66), (3, 10, 66), (4, 12, 58), (7, 12, 58)])
def test_deal_of_a_single_round(rnd, size, stock):
    s = new_state("contract", seed=2, rounds=(rnd,))
    assert s.round == rnd and s.hand_size == [size] * 4
    assert len(s.stock) == stock and len(s.discard) == 1


# ----------------------------------------------------------------------------------------------------------------
# A.1-3 Groups, A.1-4 Runs
# ----------------------------------------------------------------------------------------------------------------


# A.1-3 "Groups. >=3 cards of one rank; suits may repeat (7Ca 7Cb 7D legal)."
# 03: "Группа контракта содержит 3 карты одного ранга, в том числе повторяющейся масти из разных колод."
#   P0 round 1 (two groups), after drawing:  7C 7C 7D | 9H 9S JK | KD 4C 5C 2H 3S
# Only openings that leave the rest of the contract makeable are offered (one physical card counts once):
# 7C 7D JK(7) would leave 9H 9S without a third card.
def test_group_with_repeated_suits_opens_round_one():
    h0 = ["7C", "7C", "7D", "9H", "9S", "JK", "KD", "4C", "5C", "2H", "3S"]
    s = load_state(scenario([h0, [], [], []], round=1, phase="act"))
    assert melds_offered(s) == {("group", ("7C", "7C", "7D")), ("group", tuple(sorted(["9H", "9S", "JK(9)"])))}
    act(s, kind="meld", cards=["7C", "7C", "7D"])
    assert s.phase == "opening" and s.current_player == 0
    assert melds_offered(s) == {("group", tuple(sorted(["9H", "9S", "JK(9)"])))}
    act(s, kind="meld", cards=["9H", "9S", "JK(9)"])
    assert s.phase == "act"
    assert table_of(s, 0) == [["7C", "7C", "7D"], ["9H", "9S", "JK(9)"]]
    assert hand(s, 0) == srt(["KD", "4C", "5C", "2H", "3S"])


# A.1-3 "Extended only by that rank (natural or JK); no size cap." A.2-14 "Joker declaration in a group: rank only."
#   table: P1 group 7C 7C 7D 7D 7H 7H (6 cards, legal)      P0 (opened earlier) holds 7S 7S JK 8H 3C
def test_group_extends_by_rank_only_without_size_cap():
    table = [
        *OWN_R2,
        {"owner": 1, "kind": "group", "cards": ["7C", "7C", "7D", "7D", "7H", "7H"]},
        {"owner": 1, "kind": "run", "cards": ["2S", "3S", "4S", "5S"]},
    ]
    s = load_state(scenario([["7S", "7S", "JK", "8H", "3C"], [], [], []], phase="act", table=table, opened=[0, 1]))
    on_group = {(c, e) for c, seat, m, e in layoffs(s) if (seat, m) == (1, 0)}
    assert on_group == {("7S", None), ("JK", None)}  # 8H is not a 7
    act(s, kind="lay_off", card="7S", seat=1, meld=0)
    act(s, kind="lay_off", card="7S", seat=1, meld=0)
    act(s, kind="lay_off", card="JK", seat=1, meld=0)
    assert table_of(s, 1)[0] == ["7C", "7C", "7D", "7D", "7H", "7H", "7S", "7S", "JK(7)"]
    assert hand(s, 0) == ["3C", "8H"]
    # A.2-14: a suit in a group joker's declaration is refused (it would mean nothing: suits repeat in groups)
    bad = [*OWN_R2, {"owner": 1, "kind": "group", "cards": ["7C", "7D", "JK(7H)"]}]
    with pytest.raises(ScenarioError, match="rank only"):
        load_state(scenario([["3C"], [], [], []], phase="act", table=bad, opened=[0, 1]))


# A.1-4 "Runs. >=4 consecutive positions, one suit. A-2-3-4 and J-Q-K-A legal."
# 03: "Туз бывает внизу или вверху; A–2–3–4 и J–Q–K–A подходят, K–A–2–3 нет."
#   P0 round 3 (two runs), after drawing:  AH 2H 3H 4H | JS QS KS AS | 7C 8D 9C
def test_runs_ace_low_and_ace_high_are_legal():
    h0 = ["AH", "2H", "3H", "4H", "JS", "QS", "KS", "AS", "7C", "8D", "9C"]
    s = load_state(scenario([h0, [], [], []], round=3, phase="act"))
    assert melds_offered(s) == {("run", ("2H", "3H", "4H", "AH")), ("run", ("AS", "JS", "KS", "QS"))}
    act(s, kind="meld", cards=["AH", "2H", "3H", "4H"])
    act(s, kind="meld", cards=["JS", "QS", "KS", "AS"])
    assert table_of(s, 0) == [["AH", "2H", "3H", "4H"], ["JS", "QS", "KS", "AS"]]


# A.1-4 "no wrap (K-A-2-3 illegal)": never offered, and a table meld like that is rejected.
#   P0 round 3:  KH AH 2H 3H | KD AD 2D 3D | 7C 8C 9C      -> no opening at all
#   with a joker: every offered run is consecutive inside A(1)..A(14), never K..2
def test_wrap_around_run_is_never_offered():
    h0 = ["KH", "AH", "2H", "3H", "KD", "AD", "2D", "3D", "7C", "8C", "9C"]
    s = load_state(scenario([h0, [], [], []], round=3, phase="act"))
    assert kinds(s) == {"discard"}
    h0 = ["KH", "AH", "2H", "3H", "KD", "AD", "2D", "3D", "JK", "JK", "9C"]
    s = load_state(scenario([h0, [], [], []], round=3, phase="act"))
    offered = infos(s, "meld")
    assert offered  # A-2-3-JK(4) and friends exist
    for i in offered:
        ranks = {card_name(c)[:-1] for c in i["cards"] if not c.startswith("JK")}
        assert not ({"K", "2"} <= ranks), i
    with pytest.raises(ScenarioError):
        load_state(
            scenario(
                [[], [], [], []], table=[{"owner": 1, "kind": "run", "cards": ["KH", "AH", "2H", "3H"]}], opened=[1]
            )
        )


# A.1-4 "Extendable at either end within 1..14, so max 14 cards (A-low...A-high, the two aces being different
# physical cards). One card per position." A.1-11 "any number of cards onto any meld (own/others'), positions must
# be free and inside 1..14." A.1-3 group lay-off by rank.
#   table: P0 group 5C 5D 5S, run 9D-QD; P1 run 2H..KH (12 cards), group 8C 8D 8S
#   P0 (opened earlier, after drawing): AH AH 8H 5H KD 10D 3C
def test_layoffs_on_own_and_others_melds_both_ends_up_to_14():
    run_2_k = ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH"]
    table = [
        *OWN_R2,
        {"owner": 1, "kind": "run", "cards": run_2_k},
        {"owner": 1, "kind": "group", "cards": ["8C", "8D", "8S"]},
    ]
    h0 = ["AH", "AH", "8H", "5H", "KD", "10D", "3C"]
    s = load_state(scenario([h0, ["4C"], [], []], phase="act", table=table, opened=[0, 1]))
    assert layoffs(s) == {
        ("AH", 1, 0, "low"),
        ("AH", 1, 0, "high"),
        ("8H", 1, 1, None),
        ("5H", 0, 0, None),
        ("KD", 0, 1, "high"),
    }  # 10D: its position in 9D-QD is taken; 3C fits nowhere
    act(s, kind="lay_off", card="AH", seat=1, meld=0, end="low")
    act(s, kind="lay_off", card="AH", seat=1, meld=0, end="high")
    assert table_of(s, 1)[0] == ["AH", *run_2_k, "AH"]  # 14 positions: full
    assert not any(seat == 1 and m == 0 for _, seat, m, _ in layoffs(s))
    act(s, kind="lay_off", card="8H", seat=1, meld=1)
    act(s, kind="lay_off", card="5H", seat=0, meld=0)
    act(s, kind="lay_off", card="KD", seat=0, meld=1, end="high")
    assert table_of(s, 0) == [["5C", "5D", "5S", "5H"], ["9D", "10D", "JD", "QD", "KD"]]
    assert table_of(s, 1)[1] == ["8C", "8D", "8S", "8H"]
    assert hand(s, 0) == ["3C", "10D"] and kinds(s) == {"discard"}
    s.check_invariants()


# A.1-5 "Jokers. Declared explicitly when placed (run: a position in the run's suit ...)." A.2-5 "A joker may fill
# an ace position." After JK(AH) the run is at 14 and takes nothing more at the high end.
#   table: P1 run 10H JH QH KH         P0 (opened earlier): JK JK 3C
def test_joker_layoff_is_declared_and_may_fill_the_ace():
    table = [
        *OWN_R2,
        {"owner": 1, "kind": "run", "cards": ["10H", "JH", "QH", "KH"]},
        {"owner": 1, "kind": "group", "cards": ["8C", "8D", "8S"]},
    ]
    s = load_state(scenario([["JK", "JK", "3C"], ["4C"], [], []], phase="act", table=table, opened=[0, 1]))
    act(s, kind="lay_off", card="JK", seat=1, meld=0, end="high")
    assert table_of(s, 1)[0] == ["10H", "JH", "QH", "KH", "JK(AH)"]
    assert ("JK", 1, 0, "high") not in layoffs(s)
    act(s, kind="lay_off", card="JK", seat=0, meld=1, end="low")
    assert table_of(s, 0)[1] == ["JK(8D)", "9D", "10D", "JD", "QD"]


# A.1-5 "No limit on jokers per meld." A.2-6 "All-joker meld (3 JK declared as a group of 9s): legal."
# Declarations are fixed while the joker stays (they survive a dump / load round trip).
def test_tables_with_many_jokers_load_and_keep_declarations():
    table = [
        {"owner": 1, "kind": "group", "cards": ["JK(9)", "JK(9)", "JK(9)"]},
        {"owner": 1, "kind": "run", "cards": ["5D", "JK(6D)", "7D", "8D"]},
    ]
    with pytest.raises(ScenarioError):  # only 3 jokers exist
        load_state(scenario([["3C"], [], [], []], table=table, opened=[1]))
    table[1]["cards"] = ["5D", "6D", "7D", "8D"]
    s = load_state(scenario([["3C"], [], [], []], table=table, opened=[1]))
    assert table_of(s, 1) == [["JK(9)", "JK(9)", "JK(9)"], ["5D", "6D", "7D", "8D"]]
    table = [
        {"owner": 1, "kind": "run", "cards": ["JK(3D)", "JK(4D)", "5D", "JK(6D)"]},
        {"owner": 1, "kind": "group", "cards": ["8C", "8D", "8S"]},
    ]
    s = load_state(scenario([["3C"], [], [], []], table=table, opened=[1]))
    assert load_state(s.to_json()).to_json()["table"][0]["cards"] == ["JK(3D)", "JK(4D)", "5D", "JK(6D)"]


# ----------------------------------------------------------------------------------------------------------------
# A.1-6 Contracts, A.1-9 Opening
# ----------------------------------------------------------------------------------------------------------------

CONTRACT_CASES = [
    # round, hand after drawing, melds to declare in order (the whole contract)
    (1, ["7C", "7D", "7H", "KC", "KD", "KS", "2C", "2D", "2H", "3S", "9D"], [["7C", "7D", "7H"], ["KC", "KD", "KS"]]),
    (
        2,
        ["7C", "7D", "7H", "3S", "4S", "5S", "6S", "KC", "KD", "KS", "9D"],
        [["7C", "7D", "7H"], ["3S", "4S", "5S", "6S"]],
    ),
    (
        3,
        ["3S", "4S", "5S", "6S", "9H", "10H", "JH", "QH", "7C", "7D", "7H"],
        [["3S", "4S", "5S", "6S"], ["9H", "10H", "JH", "QH"]],
    ),
    (
        4,
        ["7C", "7D", "7H", "KC", "KD", "KS", "2C", "2D", "2H", "5C", "5D", "5H", "9D"],
        [["7C", "7D", "7H"], ["KC", "KD", "KS"], ["2C", "2D", "2H"]],
    ),
    (
        5,
        ["7C", "7D", "7H", "KC", "KD", "KS", "3S", "4S", "5S", "6S", "9H", "10H", "JH"],
        [["7C", "7D", "7H"], ["3S", "4S", "5S", "6S"], ["KC", "KD", "KS"]],
    ),
    (
        6,
        ["7C", "7D", "7H", "3S", "4S", "5S", "6S", "9H", "10H", "JH", "QH", "KC", "KD"],
        [["3S", "4S", "5S", "6S"], ["7C", "7D", "7H"], ["9H", "10H", "JH", "QH"]],
    ),
]


# A.1-6 "Contracts (min G=3, R=4): r1 G+G; r2 G+R; r3 R+R; r4 G+G+G; r5 G+G+R; r6 G+R+R."
# A.1-9 "Whole contract in one action, exactly the minimum lengths (groups exactly 3, runs exactly 4), no extra
# cards, no extra melds, no partial opening. After opening the player never creates another meld this round."
# 05: "Первый выход на стол разрешён только полным контрактом и ровно минимальными длинами."
# The engine splits the opening into one meld per step (phase 'opening'), offering only what is still owed.
@pytest.mark.parametrize("rnd,h0,plan", CONTRACT_CASES, ids=[f"r{c[0]}" for c in CONTRACT_CASES])
def test_contract_of_each_round(rnd, h0, plan):
    s = load_state(scenario([h0, [], [], []], round=rnd, phase="act"))
    g, r = [(2, 0), (1, 1), (0, 2), (3, 0), (2, 1), (1, 2)][rnd - 1]
    for step, meld in enumerate(plan):
        offered = infos(s, "meld")
        assert {i["meld"] for i in offered} == {k for k, n in (("group", g), ("run", r)) if n}
        assert all(len(i["cards"]) == (3 if i["meld"] == "group" else 4) for i in offered)
        if step > 0:  # no partial opening: mid-contract only melds are legal
            assert s.phase == "opening" and kinds(s) == {"meld"}
        act(s, kind="meld", cards=meld)
        if len(meld) == 3:
            g -= 1
        else:
            r -= 1
    assert (g, r) == (0, 0)
    assert s.phase == "act" and s.to_json()["opened_this_turn"] is True
    assert table_of(s, 0) == plan
    assert infos(s, "meld") == []  # a further makeable group / run is not an extra meld
    assert kinds(s) == {"discard"}  # and nothing is laid off on the opening turn
    left = list(h0)
    for m in plan:
        for c in m:
            left.remove(c)
    assert hand(s, 0) == srt(left)


# A.1-9 "exactly the minimum lengths (groups exactly 3, runs exactly 4), no extra cards".
#   P0 round 2: 7C 7D 7H 7S | 2H 3H 4H 5H 6H | KC KD   -> no 4-card group, no 5-card run
def test_opening_melds_have_exact_minimum_length():
    h0 = ["7C", "7D", "7H", "7S", "2H", "3H", "4H", "5H", "6H", "KC", "KD"]
    s = load_state(scenario([h0, [], [], []], phase="act"))
    offered = infos(s, "meld")
    assert {len(i["cards"]) for i in offered if i["meld"] == "group"} == {3}
    assert {len(i["cards"]) for i in offered if i["meld"] == "run"} == {4}
    assert len([i for i in offered if i["meld"] == "group"]) == 4  # 4 ways to pick 3 of the 7s
    with pytest.raises(ValueError):
        s.find_action(kind="meld", cards=["7C", "7D", "7H", "7S"])
    with pytest.raises(ValueError):
        s.find_action(kind="meld", cards=["2H", "3H", "4H", "5H", "6H"])
    act(s, kind="meld", cards=["7C", "7D", "7H"])
    act(s, kind="meld", cards=["3H", "4H", "5H", "6H"])
    assert hand(s, 0) == srt(["7S", "2H", "KC", "KD"])
    assert kinds(s) == {"discard"}


# A.1-9 "After opening the player never creates another meld this round": on his next turn a player who opened
# earlier holding a complete group (KC KD KS) may lay off, but not declare it.
def test_no_new_meld_after_opening():
    s = load_state(scenario([["KC", "KD", "KS", "5H", "3C"], [], [], []], phase="act", table=OWN_R2, opened=[0]))
    assert infos(s, "meld") == []
    assert layoffs(s) == {("5H", 0, 0, None), ("KD", 0, 1, "high")}


# ----------------------------------------------------------------------------------------------------------------
# A.1-7 Same-suit runs in one opening
# ----------------------------------------------------------------------------------------------------------------


# A.1-7 "for any two same-suit runs ... a2 = b1+1 is illegal." 04: "3–4–5–6 и 7–8–9–10 не подходят парой."
#   P0 round 3: 3H 4H 5H 6H 7H 8H 9H 10H | KC KD 2S   -> the only split is 3-6 / 7-10: no opening
def test_adjacent_same_suit_runs_rejected():
    h0 = ["3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "KC", "KD", "2S"]
    s = load_state(scenario([h0, [], [], []], round=3, phase="act"))
    assert infos(s, "meld") == []
    assert kinds(s) == {"discard"}


# A.1-7 "need a2 >= b1+2 (a gap); overlapping position ranges (necessarily different physical cards/jokers) are
# fine". 04: "Между рядами должен быть пробел либо перекрытие рангов на разных физических картах."
@pytest.mark.parametrize(
    "second",
    [["8H", "9H", "10H", "JH"], ["5H", "6H", "7H", "8H"], ["3H", "4H", "5H", "6H"], ["7S", "8S", "9S", "10S"]],
    ids=["gap", "overlap", "same-positions", "other-suit-adjacent"],
)
def test_same_suit_runs_with_gap_or_overlap_accepted(second):
    h0 = ["3H", "4H", "5H", "6H", *second, "KC", "KD", "2S"]
    s = load_state(scenario([h0, [], [], []], round=3, phase="act"))
    act(s, kind="meld", cards=["3H", "4H", "5H", "6H"])
    act(s, kind="meld", cards=second)
    assert s.phase == "act" and table_of(s, 0) == [["3H", "4H", "5H", "6H"], second]


# A.1-7 "Positions of jokers count by declaration." A.2-7 "a joker and a natural at the same position count as
# overlap (different physical cards) -> legal."
#   after 3H-6H:  JK(7H) 8H 9H 10H touches 6 -> refused;  8H 9H 10H JK(JH) leaves a gap -> offered
#   after 3H-6H:  JK(6H) 7H 8H 9H overlaps at 6 -> offered;  7H 8H 9H JK(10H) touches 6 -> refused
def test_adjacency_counts_joker_declarations():
    h0 = ["3H", "4H", "5H", "6H", "JK", "8H", "9H", "10H", "KC", "KD", "2S"]
    s = load_state(scenario([h0, [], [], []], round=3, phase="act"))
    act(s, kind="meld", cards=["3H", "4H", "5H", "6H"])
    runs = melds_offered(s)
    assert ("run", tuple(sorted(["8H", "9H", "10H", "JK(JH)"]))) in runs
    assert ("run", tuple(sorted(["JK(7H)", "8H", "9H", "10H"]))) not in runs
    h0 = ["3H", "4H", "5H", "6H", "JK", "7H", "8H", "9H", "KC", "KD", "2S"]
    s = load_state(scenario([h0, [], [], []], round=3, phase="act"))
    act(s, kind="meld", cards=["3H", "4H", "5H", "6H"])
    runs = melds_offered(s)
    assert ("run", tuple(sorted(["JK(6H)", "7H", "8H", "9H"]))) in runs
    assert ("run", tuple(sorted(["7H", "8H", "9H", "JK(10H)"]))) not in runs
    act(s, kind="meld", cards=["JK(6H)", "7H", "8H", "9H"])
    assert table_of(s, 0) == [["3H", "4H", "5H", "6H"], ["JK(6H)", "7H", "8H", "9H"]]


# A.1-7 "Applies only to the opening; later lay-offs may close a gap." 04: "Позднее добавления могут закрыть пробел."
#   table: P0 runs 3H-6H and 8H-JH (opened earlier)      P0: 7H 3C
def test_later_layoff_may_close_the_gap():
    table = [
        {"owner": 0, "kind": "run", "cards": ["3H", "4H", "5H", "6H"]},
        {"owner": 0, "kind": "run", "cards": ["8H", "9H", "10H", "JH"]},
    ]
    s = load_state(scenario([["7H", "3C"], [], [], []], round=3, phase="act", table=table, opened=[0]))
    assert layoffs(s) == {("7H", 0, 0, "high"), ("7H", 0, 1, "low")}
    act(s, kind="lay_off", card="7H", seat=0, meld=0, end="high")
    assert table_of(s, 0)[0] == ["3H", "4H", "5H", "6H", "7H"]
    s.check_invariants()


# ----------------------------------------------------------------------------------------------------------------
# A.1-8 Turn, A.1-9 / A.1-11 / A.2-13 the worked example of section 11
# ----------------------------------------------------------------------------------------------------------------


# A.1-8 "Draw: take the discard top ... OR decline it -> buy window -> take stock top. ... Discard one card."
# After the discard the turn passes clockwise.
def test_turn_draw_then_discard_passes_clockwise():
    s = load_state(complete(scenario([["3C", "4D", "9H"], ["5C"], ["6C"], ["7C"]], discard=["KS"], stock=["QD"])))
    assert infos(s) == [{"kind": "draw_stock"}, {"kind": "draw_discard", "card": "KS"}]
    act(s, kind="draw_discard")
    assert s.phase == "act" and s.current_player == 0
    assert hand(s, 0) == srt(["3C", "4D", "9H", "KS"])
    act(s, kind="discard", card="4D")
    assert s.current_player == s.active == 1 and s.phase == "draw"
    assert s.to_json()["discard"][0] == "4D"
    act(s, kind="draw_stock")
    for seat in (2, 3, 0):  # the buy window asks the others in turn order; all pass
        assert s.phase == "buy" and s.current_player == seat
        act(s, kind="pass")
    assert s.phase == "act" and hand(s, 1) == srt(["5C", "QD"])


# 11 (worked example): "В круге 2 вы имеете 7♣–7♦–7♥ и 3♠–4♠–5♠ ... Возьмите верх сброса 6♠ и откройте сразу
# группу и полный ряд ... Даже если в руке есть 8♥ для чужой выкладки, сейчас добавить её нельзя: ждите
# следующего своего хода. После открытия сбросьте ненужную карту."
# A.1-9 "No lay-off or swap on the opening turn."  A.2-13 "the same-turn ban applies to any target, own or others'."
#   P0: 7C 7D 7H 3S 4S 5S 8H 2S KD 9C      discard: 6S
#   P1 (opened earlier): run 4H 5H 6H 7H, group QC QD QS
def test_worked_example_no_layoff_on_opening_turn():
    table = [
        {"owner": 1, "kind": "run", "cards": ["4H", "5H", "6H", "7H"]},
        {"owner": 1, "kind": "group", "cards": ["QC", "QD", "QS"]},
    ]
    hands = [
        ["7C", "7D", "7H", "3S", "4S", "5S", "8H", "2S", "KD", "9C"],
        ["10C", "JC", "2D"],
        ["AC", "3C", "4C", "5C", "6C", "8C", "JD", "KH", "10S", "9H"],
        ["AD", "3D", "4D", "5D", "6D", "8D", "10D", "9S", "JS", "KS"],
    ]
    s = load_state(scenario(hands, discard=["6S"], table=table, opened=[1]), seed=5)
    act(s, kind="draw_discard")
    act(s, kind="meld", cards=["7C", "7D", "7H"])
    act(s, kind="meld", cards=["3S", "4S", "5S", "6S"])
    assert table_of(s, 0) == [["7C", "7D", "7H"], ["3S", "4S", "5S", "6S"]]
    # 8H fits P1's run, 2S fits P0's own run: neither may be laid off now
    assert kinds(s) == {"discard"}
    lay = s.layout
    before = s.to_json()
    with pytest.raises(IllegalActionError):
        s.apply(lay.lay_off(parse_card("8H"), lay.slot(0, 1, 0), 1))
    with pytest.raises(IllegalActionError):
        s.apply(lay.lay_off(parse_card("2S"), lay.slot(0, 0, 1), 0))
    assert s.to_json() == before
    assert kinds(load_state(s.to_json())) == {"discard"}  # the ban survives a dump / load
    act(s, kind="discard", card="KD")
    quiet_turn(s, "10C")
    quiet_turn(s, "AC")
    quiet_turn(s, "AD")
    assert s.current_player == 0
    act(s, kind="draw_stock")
    while s.phase == "buy":
        act(s, kind="pass")
    # next own turn: both lay-offs are legal
    assert {("8H", 1, 0, "high"), ("2S", 0, 1, "low")} <= layoffs(s)
    act(s, kind="lay_off", card="8H", seat=1, meld=0, end="high")
    act(s, kind="lay_off", card="2S", seat=0, meld=1, end="low")
    assert table_of(s, 1)[0] == ["4H", "5H", "6H", "7H", "8H"]
    assert table_of(s, 0)[1] == ["2S", "3S", "4S", "5S", "6S"]
    act(s, kind="discard", card="9C")
    assert s.hand_size[0] == 1 and s.current_player == 1
    s.check_invariants()


# A.1-11 "player opened on an earlier turn": a player who has not opened may neither lay off nor swap.
def test_unopened_player_cannot_lay_off_or_swap():
    table = [
        {"owner": 1, "kind": "run", "cards": ["5H", "JK(6H)", "7H", "8H"]},
        {"owner": 1, "kind": "group", "cards": ["8C", "8D", "8S"]},
    ]
    s = load_state(scenario([["6H", "9H", "8H", "3C"], [], [], []], phase="act", table=table, opened=[1]))
    assert kinds(s) == {"discard"}


# ----------------------------------------------------------------------------------------------------------------
# A.1-11 Joker swaps
# ----------------------------------------------------------------------------------------------------------------

SWAP_TABLE = [
    *OWN_R2,
    {"owner": 1, "kind": "group", "cards": ["8C", "8D", "JK(8)"]},
    {"owner": 1, "kind": "run", "cards": ["5H", "JK(6H)", "7H", "8H"]},
]


# A.1-11 "Swap: replace JK(x) *in a run* with a natural card exactly x ...; the freed joker must, in the same turn
# and before the discard, be laid off on an existing meld with a new declaration (it may go back on the same run's
# end); it may not be kept or discarded. Jokers in groups are never taken."
# 07: "Освобождённый джокер обязательно добавляется в открытую комбинацию в тот же ход ... Джокеры внутри групп
# не забираются."
#   table: P0 group 5C 5D 5S, run 9D-QD;  P1 group 8C 8D JK(8), run 5H JK(6H) 7H 8H
#   P0 (opened earlier): 6H 8S 3C 4C
def test_joker_swap_in_run_then_forced_placement():
    s = load_state(scenario([["6H", "8S", "3C", "4C"], ["2C"], [], []], phase="act", table=SWAP_TABLE, opened=[0, 1]))
    swaps = infos(s, "swap_joker")
    assert swaps == [{"kind": "swap_joker", "card": "6H", "seat": 1, "meld": 1, "position": 6}]
    assert ("8S", 1, 0, None) in layoffs(s)  # 8S goes on the group, but never takes its joker
    act(s, kind="swap_joker", card="6H")
    assert s.phase == "place_joker" and s.current_player == 0
    assert table_of(s, 1)[1] == ["5H", "6H", "7H", "8H"]
    assert kinds(s) == {"place_joker"}  # no discard, no lay-off while the joker is in hand
    places = {(i["seat"], i["meld"], i["end"]) for i in infos(s)}
    assert places == {(0, 0, None), (0, 1, "low"), (0, 1, "high"), (1, 0, None), (1, 1, "low"), (1, 1, "high")}
    before = s.to_json()
    with pytest.raises(IllegalActionError):
        s.apply(s.layout.DISCARD + JOKER)
    with pytest.raises(IllegalActionError):
        s.apply(s.layout.DISCARD + parse_card("3C"))
    assert s.to_json() == before
    assert kinds(load_state(s.to_json())) == {"place_joker"}  # survives a dump / load
    act(s, kind="place_joker", seat=1, meld=1, end="high")  # back on the same run, new declaration
    assert table_of(s, 1)[1] == ["5H", "6H", "7H", "8H", "JK(9H)"]
    assert s.phase == "act" and hand(s, 0) == srt(["8S", "3C", "4C"])
    assert "discard" in kinds(s)
    s.check_invariants()


# A.1-11 "Multiple swaps per turn allowed", "(either copy)". Two runs with jokers, both naturals in hand.
def test_multiple_joker_swaps_in_one_turn():
    table = [
        {"owner": 0, "kind": "group", "cards": ["5C", "5D", "5S"]},
        {"owner": 0, "kind": "run", "cards": ["9D", "JK(10D)", "JD", "QD"]},
        {"owner": 1, "kind": "group", "cards": ["8C", "8D", "8S"]},
        {"owner": 1, "kind": "run", "cards": ["5H", "JK(6H)", "7H", "8H"]},
    ]
    s = load_state(scenario([["6H", "10D", "3C"], ["2C"], [], []], phase="act", table=table, opened=[0, 1]))
    assert {(i["card"], i["seat"], i["meld"]) for i in infos(s, "swap_joker")} == {("6H", 1, 1), ("10D", 0, 1)}
    act(s, kind="swap_joker", card="10D")
    act(s, kind="place_joker", seat=0, meld=0)
    act(s, kind="swap_joker", card="6H")
    act(s, kind="place_joker", seat=1, meld=0)
    assert table_of(s, 0) == [["5C", "5D", "5S", "JK(5)"], ["9D", "10D", "JD", "QD"]]
    assert table_of(s, 1) == [["8C", "8D", "8S", "JK(8)"], ["5H", "6H", "7H", "8H"]]
    assert hand(s, 0) == ["3C"] and kinds(s) == {"discard"}


# A.1-9 "No lay-off or swap on the opening turn": the swap appears only on the next own turn.
#   P0 round 2: 7C 7D 7H 3S 4S 5S 6S 6H KD 9C 2C (act, not opened)   P1: run 5H JK(6H) 7H 8H, group 8C 8D 8S
def test_no_joker_swap_on_opening_turn():
    table = [
        {"owner": 1, "kind": "run", "cards": ["5H", "JK(6H)", "7H", "8H"]},
        {"owner": 1, "kind": "group", "cards": ["8C", "8D", "8S"]},
    ]
    h0 = ["7C", "7D", "7H", "3S", "4S", "5S", "6S", "6H", "KD", "9C", "2C"]
    s = load_state(scenario([h0, ["10C", "JC", "2D"], ["JD"], ["QD"]], phase="act", table=table, opened=[1]))
    act(s, kind="meld", cards=["7C", "7D", "7H"])
    act(s, kind="meld", cards=["3S", "4S", "5S", "6S"])
    assert kinds(s) == {"discard"}
    act(s, kind="discard", card="KD")
    for card in ("10C", "JD", "QD"):
        quiet_turn(s, card)
    act(s, kind="draw_stock")
    while s.phase == "buy":
        act(s, kind="pass")
    assert ("6H", 1, 0) in {(i["card"], i["seat"], i["meld"]) for i in infos(s, "swap_joker")}


# A.2-8 "Joker swap placement impossible (e.g. only 14-card runs and no groups): swap is legal only if a legal
# placement exists afterwards; the engine must block the discard while a freed joker is in hand."
#   round 3 table: P0 AC..AC, AD..AD (14 each);  P1 AH..AH with JK(6H) (14);  P1's second run varies
#   P0 (opened earlier): 6H 3C
def test_joker_swap_only_if_the_joker_can_be_placed():
    def full(suit: str, joker_at: int = 0) -> list[str]:
        ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
        return [f"JK({r}{suit})" if i + 1 == joker_at else f"{r}{suit}" for i, r in enumerate(ranks)]

    base = [
        {"owner": 0, "kind": "run", "cards": full("C")},
        {"owner": 0, "kind": "run", "cards": full("D")},
        {"owner": 1, "kind": "run", "cards": full("H", joker_at=6)},
    ]
    blocked = [*base, {"owner": 1, "kind": "run", "cards": full("S")}]
    s = load_state(scenario([["6H", "3C"], ["2C"], [], []], round=3, phase="act", table=blocked, opened=[0, 1]))
    assert infos(s, "swap_joker") == []
    assert kinds(s) == {"discard"}
    open_end = [*base, {"owner": 1, "kind": "run", "cards": ["3S", "4S", "5S", "6S"]}]
    s = load_state(scenario([["6H", "3C"], ["2C"], [], []], round=3, phase="act", table=open_end, opened=[0, 1]))
    act(s, kind="swap_joker", card="6H", seat=1, meld=0)
    assert {(i["seat"], i["meld"], i["end"]) for i in infos(s)} == {(1, 1, "low"), (1, 1, "high")}
    act(s, kind="place_joker", seat=1, meld=1, end="low")
    assert table_of(s, 1) == [full("H"), ["JK(2S)", "3S", "4S", "5S", "6S"]]


# ----------------------------------------------------------------------------------------------------------------
# A.1-12 Keep a discard card
# ----------------------------------------------------------------------------------------------------------------


# A.1-12 "lay-offs/swaps may never leave the hand empty. Going out = discarding the last card."
# 05: "В кругах до финального оставляйте карту для обязательного последнего сброса."
#   table: P0 group 5C 5D 5S, run 4H-7H            P0 (opened earlier, after drawing): 8H 9H
def test_hand_never_emptied_by_layoffs_and_going_out_is_the_last_discard():
    table = [
        {"owner": 0, "kind": "group", "cards": ["5C", "5D", "5S"]},
        {"owner": 0, "kind": "run", "cards": ["4H", "5H", "6H", "7H"]},
    ]
    hands = [["8H", "9H"], ["KC", "AH", "5D", "JK"], ["2C", "3C"], ["QS"]]
    s = load_state(scenario(hands, phase="act", table=table, opened=[0], **final()))
    assert layoffs(s) == {("8H", 0, 1, "high")}
    act(s, kind="lay_off", card="8H")
    assert hand(s, 0) == ["9H"]
    assert infos(s) == [{"kind": "discard", "card": "9H"}]  # 9H would fit, but it is the last card
    act(s, kind="discard", card="9H")
    assert s.round_results == [{"round": 2, "winner": 0, "reason": "out", "penalties": [0, 45, 5, 10]}]
    assert s.is_terminal() and s.current_player == -1 and s.legal_actions() == []


# A.1-12 with A.2-4: the card taken from the discard pile cannot be the card kept for the discard, so laying off
# the other card is refused.  P0 (opened, 4H-7H on the table) holds 8H, takes 9H from the discard pile.
def test_layoff_refused_when_only_the_taken_card_would_remain():
    table = [
        {"owner": 0, "kind": "group", "cards": ["5C", "5D", "5S"]},
        {"owner": 0, "kind": "run", "cards": ["4H", "5H", "6H", "7H"]},
    ]
    s = load_state(scenario([["8H"], ["KC"], ["2C"], ["QS"]], discard=["9H"], table=table, opened=[0]))
    act(s, kind="draw_discard")
    assert infos(s) == [{"kind": "discard", "card": "8H"}]
    # with the flag off, the lay-off is fine and the taken 9H is the going-out discard
    s = load_state(
        scenario([["8H"], ["KC"], ["2C"], ["QS"]], discard=["9H"], table=table, opened=[0], **final()),
        forbid_rediscard=False,
    )
    act(s, kind="draw_discard")
    assert layoffs(s) == {("8H", 0, 1, "high")}
    act(s, kind="lay_off", card="8H")
    act(s, kind="discard", card="9H")
    assert s.round_results[-1]["winner"] == 0 and s.round_results[-1]["reason"] == "out"


# ----------------------------------------------------------------------------------------------------------------
# A.1-13 / A.2-4 Discard restriction
# ----------------------------------------------------------------------------------------------------------------


# A.2-4 / A.1-13 "a card taken from the discard pile this turn may not be discarded this turn" (profile flag
# forbid_rediscard, default True).
def test_card_taken_from_discard_cannot_be_rediscarded():
    s = load_state(scenario([["3C", "4D", "9H"], ["5C"], ["6C"], ["7C"]], discard=["KS"]))
    act(s, kind="draw_discard")
    assert {i["card"] for i in infos(s, "discard")} == {"3C", "4D", "9H"}
    before = s.to_json()
    with pytest.raises(IllegalActionError, match="discard"):
        s.apply(s.layout.DISCARD + parse_card("KS"))
    assert s.to_json() == before
    assert "KS" not in {i["card"] for i in infos(load_state(s.to_json()), "discard")}  # survives a dump / load
    # the other physical copy of the same card is a different card and may be discarded
    s = load_state(scenario([["3C", "KS", "9H"], ["5C"], ["6C"], ["7C"]], discard=["KS"]))
    act(s, kind="draw_discard")
    assert {i["card"] for i in infos(s, "discard")} == {"3C", "KS", "9H"}


# A.2-4 "Forbidden by default (make it a profile flag)": with forbid_rediscard=False the taken card may go back.
def test_rediscard_flag_off_allows_discarding_the_taken_card():
    s = load_state(scenario([["3C", "4D", "9H"], ["5C"], ["6C"], ["7C"]], discard=["KS"]), forbid_rediscard=False)
    act(s, kind="draw_discard")
    assert {i["card"] for i in infos(s, "discard")} == {"3C", "4D", "9H", "KS"}
    act(s, kind="discard", card="KS")
    assert s.to_json()["discard"][0] == "KS" and s.current_player == 1


# ----------------------------------------------------------------------------------------------------------------
# A.1-10 Buying ("May I")
# ----------------------------------------------------------------------------------------------------------------

BUY_HANDS = [
    ["3C", "4C", "5C", "6C", "8C", "9C", "10C", "JC", "QC", "KC"],
    ["3D", "4D", "5D", "6D", "7D", "8D", "9D", "10D", "JD", "KD"],
    ["3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "KH"],
    ["3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "KS"],
]


def buy_state(**kw: Any):
    """P0 to draw; discard QH, AC, 2S (top first); stock 2D, AD, 2H, AS, ..."""
    return load_state(complete(scenario(BUY_HANDS, discard=["QH", "AC", "2S"], stock=["2D", "AD", "2H", "AS"], **kw)))


# A.1-10 "Any non-active player (opened or not) may request it; among requesters the one nearest clockwise from
# the active player wins. Buyer takes the discard top + stock top (penalty card) ... Then the new discard top may
# be requested ..., except that the buyer of the immediately preceding card may not request ...; X-Y-X is allowed.
# Chain ends when no eligible request or the discard pile is empty; then the active player draws the stock top."
# 06: "при нескольких просьбах получает ближайший по будущей очереди ... Покупатель дополнительно берёт верх запаса
# как штрафную карту".  Chain here: P2 buys QH, P3 buys AC, P2 buys 2S (X-Y-X); P0 then draws.
def test_buy_chain_nearest_first_penalty_card_and_xyx():
    s = buy_state()
    act(s, kind="draw_stock")
    assert s.phase == "buy" and s.current_player == 1
    assert infos(s) == [{"kind": "buy", "card": "QH"}, {"kind": "pass"}]
    act(s, kind="pass")
    assert s.current_player == 2
    act(s, kind="buy")
    assert hand(s, 2) == srt(BUY_HANDS[2] + ["QH", "2D"])  # bought card + stock top as penalty
    assert s.to_json()["discard"][:1] == ["AC"] and s.to_json()["stock"][0] == "AD"
    # new window for AC: asked from the active player's left again, P2 skipped
    assert s.phase == "buy" and s.current_player == 1
    act(s, kind="pass")
    assert s.current_player == 3
    act(s, kind="buy")
    assert hand(s, 3) == srt(BUY_HANDS[3] + ["AC", "AD"])
    # window for 2S: P1 then P2 (P3 bought the previous card); P2 may buy again (X-Y-X)
    assert s.current_player == 1
    act(s, kind="pass")
    assert s.current_player == 2
    act(s, kind="buy")
    assert hand(s, 2) == srt(BUY_HANDS[2] + ["QH", "2D", "2S", "2H"])
    # discard pile empty: the chain ends and the active player draws the stock top
    assert s.phase == "act" and s.current_player == 0
    assert hand(s, 0) == srt(BUY_HANDS[0] + ["AS"])
    assert s.to_json()["discard"] == []
    assert s.hand_size == [11, 10, 14, 12]
    act(s, kind="discard", card="3C")  # the buyers got no turn: play goes on from P0 to P1
    assert s.current_player == 1 and s.phase == "draw"
    s.check_invariants()


# A.1-10 "the buyer of the immediately preceding card may not request (no two consecutive buys by one person)";
# "The active player cannot buy during his own turn" (A.2-2).
def test_previous_buyer_and_active_player_are_never_asked():
    s = buy_state()
    act(s, kind="draw_stock")
    act(s, kind="pass")  # P1
    act(s, kind="buy")  # P2 buys QH
    seen = []
    while s.phase == "buy":
        seen.append(s.current_player)
        act(s, kind="pass")
    assert seen == [1, 3]  # neither P2 (previous buyer) nor P0 (active)
    assert s.phase == "act" and s.current_player == 0
    assert hand(s, 0) == srt(BUY_HANDS[0] + ["AD"])  # P0 gets the stock top after the penalty card 2D
    assert s.to_json()["discard"][0] == "AC"


# A.2-1 "chain-local - ... no restriction across turns": P2 bought the last card of P0's window and may buy the
# first card of P1's window. Also A.2-3 "Discarder buying back his own discard: allowed" and the order of asking
# follows the new active player (P1): P2, P3, P0.
def test_buy_ban_is_chain_local_and_discarder_may_buy_back():
    s = buy_state()
    act(s, kind="draw_stock")
    act(s, kind="pass")
    act(s, kind="buy")  # P2 buys QH
    act(s, kind="pass")
    act(s, kind="pass")
    act(s, kind="discard", card="3C")  # P0 discards 3C
    act(s, kind="draw_stock")  # P1 declines 3C
    seen = []
    while s.current_player != 0:
        seen.append(s.current_player)
        act(s, kind="pass")
    assert seen == [2, 3]
    assert s.phase == "buy" and s.current_player == 0  # P0, who discarded 3C, may buy it back
    act(s, kind="buy")
    assert "3C" in hand(s, 0)
    s2 = buy_state()
    act(s2, kind="draw_stock")
    act(s2, kind="pass")
    act(s2, kind="buy")  # P2 buys QH
    act(s2, kind="pass")
    act(s2, kind="pass")
    act(s2, kind="discard", card="3C")
    act(s2, kind="draw_stock")
    assert s2.current_player == 2 and "buy" in kinds(s2)  # the previous buyer in a new window


# A.1-8a / 06: "Если активному нужен сброс, он берёт его без штрафа и покупки остальных не допускаются."
def test_taking_the_discard_opens_no_buy_window():
    s = buy_state()
    act(s, kind="draw_discard")
    assert s.phase == "act" and s.current_player == 0
    assert hand(s, 0) == srt(BUY_HANDS[0] + ["QH"])
    assert s.hand_size == [11, 10, 10, 10]
    assert s.to_json()["stock"][0] == "2D"


# A.1-10 "Any non-active player (opened or not) may request it" — an opened player buys too; nearest first from a
# different active seat (P2 active: P3, P0, P1 asked in that order).
def test_opened_player_may_buy_and_order_follows_active_seat():
    table = [
        {"owner": 1, "kind": "group", "cards": ["AH", "AH", "AD"]},
        {"owner": 1, "kind": "run", "cards": ["2C", "3C", "4C", "5C"]},
    ]
    hands = [["7C", "8C"], ["QS", "KS"], ["9C", "10C"], ["JC", "QC"]]
    s = load_state(
        complete(
            scenario(hands, dealer=1, current_player=2, discard=["KH"], stock=["6D", "7D"], table=table, opened=[1])
        )
    )
    act(s, kind="draw_stock")
    seen = []
    while s.current_player != 1:
        seen.append(s.current_player)
        act(s, kind="pass")
    assert seen == [3, 0]
    act(s, kind="buy")
    assert hand(s, 1) == srt(["QS", "KS", "KH", "6D"])
    assert s.current_player == 2 and hand(s, 2) == srt(["9C", "10C", "7D"])


# ----------------------------------------------------------------------------------------------------------------
# Round 7 (A.1-6 r7, A.1-9 round-7 override, A.2-11)
# ----------------------------------------------------------------------------------------------------------------


# A.1-9 "Round 7 override: opening = going out; the entire hand after drawing ... is laid as exactly 3 runs, each
# >=4 (so >=1 run longer than 4), rule 7 applies, no discard, nothing left."
# 07: "вы сразу выкладываете всю увеличенную покупками руку ровно в три последовательности длиной не меньше 4."
#   P0 round 7 after drawing: 3H 4H 5H 6H | 8H 9H 10H JH | 4S 5S 6S 7S 8S
def test_round7_go_out_with_three_runs_no_discard():
    h0 = ["3H", "4H", "5H", "6H", "8H", "9H", "10H", "JH", "4S", "5S", "6S", "7S", "8S"]
    hands = [h0, ["KC", "AH", "5D", "JK"], ["2C", "3C"], ["QS"]]
    s = load_state(scenario(hands, round=7, phase="act", discard=["9D", "2D"], **final(7)))
    assert infos(s, "go_out") == [{"kind": "go_out"}]
    assert infos(s, "meld") == [] and infos(s, "lay_off") == []
    act(s, kind="go_out")
    res = s.round_results[-1]
    assert res == {"round": 7, "winner": 0, "reason": "out", "penalties": [0, 45, 5, 10]}
    runs = sorted(table_of(s, 0))
    assert runs == sorted([["3H", "4H", "5H", "6H"], ["8H", "9H", "10H", "JH"], ["4S", "5S", "6S", "7S", "8S"]])
    assert hand(s, 0) == [] and s.to_json()["discard"] == ["9D", "2D"]  # no final discard


# A.1-9 round 7 "rule 7 applies" and "nothing left"; "no lay-offs" (rounds 1-6 only) and no partial opening.
#   3H..10H + 4S..8S: the only 3-run split would be 3-6 / 7-10 (adjacent) -> no go_out
#   2C-5C, 2D-5D, 2H-5H + KD: three runs plus a leftover card -> no go_out, no meld, only discards
def test_round7_no_go_out_with_adjacent_runs_or_a_leftover_card():
    h0 = ["3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "4S", "5S", "6S", "7S", "8S"]
    s = load_state(scenario([h0, [], [], []], round=7, phase="act"))
    assert kinds(s) == {"discard"}
    h0 = ["2C", "3C", "4C", "5C", "2D", "3D", "4D", "5D", "2H", "3H", "4H", "5H", "KD"]
    s = load_state(scenario([h0, [], [], []], round=7, phase="act"))
    assert kinds(s) == {"discard"}
    assert s.find_action(kind="discard", card="KD")


# A.2-11 "Buys in round 7: allowed; the hand to be laid out grows by 2 per buy." A.1-9 "the entire hand after
# drawing (including all bought cards)".
#   P0 (12): 2C-6C, 2D-6D, 2H 3H.  P3 active declines 4H: P0 buys 4H + penalty 5H.  P0's turn: stock 6H -> 15 cards
def test_round7_go_out_with_a_bought_hand():
    hands = [
        ["2C", "3C", "4C", "5C", "6C", "2D", "3D", "4D", "5D", "6D", "2H", "3H"],
        ["7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC", "7D", "8D", "9D", "10D"],
        ["JD", "QD", "KD", "AD", "7H", "8H", "9H", "10H", "JH", "QH", "KH", "AH"],
        ["9S", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "10S", "JS", "QS", "AS"],
    ]
    s = load_state(
        complete(
            scenario(
                hands,
                round=7,
                dealer=2,
                current_player=3,
                discard=["4H", "KS"],
                stock=["5H", "KS", "6H"],
                **final(7),
            )
        )
    )
    act(s, kind="draw_stock")
    assert s.current_player == 0
    act(s, kind="buy")
    assert s.hand_size[0] == 14
    while s.phase == "buy":
        assert s.current_player != 0
        act(s, kind="pass")
    assert s.current_player == 3 and hand(s, 3) == srt(hands[3] + ["KS"])
    act(s, kind="discard", card="9S")
    act(s, kind="draw_stock")
    while s.phase == "buy":
        act(s, kind="pass")
    assert s.hand_size[0] == 15 and infos(s, "go_out") == [{"kind": "go_out"}]
    act(s, kind="go_out")
    assert sorted(len(m) for m in table_of(s, 0)) == [5, 5, 5]
    assert s.round_results[-1]["winner"] == 0 and s.hand_size[0] == 0


# ----------------------------------------------------------------------------------------------------------------
# A.1-14 Stock exhaustion (A.2-9, A.2-10)
# ----------------------------------------------------------------------------------------------------------------

SMALL_HANDS = [
    ["3C", "4D", "9H", "KS", "2C", "5D", "6H", "8S", "10C", "JD"],
    ["3D", "4H", "9S", "KC", "2D", "5H", "6S", "8C", "10D", "JH"],
    ["3H", "4S", "9C", "KD", "2H", "5S", "6C", "8D", "10H", "JS"],
    ["3S", "4C", "9D", "KH", "2S", "5C", "6D", "8H", "10S", "JC"],
]


# A.1-14 "Whenever a stock card is needed (normal draw ...) and the stock is empty: shuffle all discards except the
# current top into a new stock." 09: "перемешайте сброс кроме открытого верха и сделайте новый запас."
def test_empty_stock_reshuffles_all_discards_but_the_top():
    s = load_state(scenario(SMALL_HANDS, stock=[]), seed=4)  # all 67 other cards are in the discard pile
    j = s.to_json()
    assert j["stock"] == [] and len(j["discard"]) == 67
    top = j["discard"][0]
    act(s, kind="draw_stock")
    while s.phase == "buy":
        act(s, kind="pass")
    j2 = s.to_json()
    assert j2["discard"] == [top]
    assert len(j2["stock"]) == 65 and s.hand_size[0] == 11
    drawn = Counter(j2["hands"][0]) - Counter(j["hands"][0])
    assert sum(drawn.values()) == 1
    assert Counter(j2["stock"]) + drawn == Counter(j["discard"][1:])
    s.check_invariants()


# A.1-14 "(... penalty card ...)" 09: "Это относится и к штрафным картам покупки."
def test_penalty_card_comes_from_a_reshuffle():
    s = load_state(scenario(SMALL_HANDS, stock=[]), seed=4)
    j = s.to_json()
    act(s, kind="draw_stock")
    act(s, kind="buy")  # P1 buys the top; the penalty card needs a reshuffle of all but the new top
    j2 = s.to_json()
    assert s.hand_size[1] == 12
    assert j2["discard"] == [j["discard"][1]] and len(j2["stock"]) == 64
    assert s.phase == "buy" and s.current_player == 2  # the window goes on with the new top
    s.check_invariants()


def _exhausted_scenario(**kw: Any) -> dict[str, Any]:
    """Stock empty, one card (7H) on the discard pile, every other card in a hand."""
    scen = scenario([list(h) for h in SMALL_HANDS], stock=[], discard=["7H"], **final(), **kw)
    for i, card in enumerate(leftover(scen)):
        scen["hands"][1 + i % 3].append(card)
    return scen


# A.1-14 "If nothing can be reshuffled, the round ends with no winner; every player scores his hand."
# A.2-10 "only when a stock card is actually required; an active player facing empty stock + 1-card discard may
# still take that discard."
def test_round_without_winner_when_nothing_can_be_reshuffled():
    scen = _exhausted_scenario(scores=[5, 0, 0, 7])
    s = load_state(scen)
    assert {i["kind"] for i in infos(s)} == {"draw_stock", "draw_discard"}
    act(s, kind="draw_discard")  # A.2-10: still possible
    act(s, kind="discard", card="3C")
    assert s.current_player == 1 and s.phase == "draw" and s.to_json()["discard"] == ["3C"]
    act(s, kind="draw_stock")  # P1 declines 3C; nobody buys; a stock card is required and none exists
    while s.phase == "buy":
        act(s, kind="pass")
    hands = s.to_json()["hands"]
    assert s.is_terminal()
    assert s.round_results == [
        {"round": 2, "winner": None, "reason": "exhausted", "penalties": [pen(h) for h in hands]}
    ]
    assert hands[0] == srt([c for c in SMALL_HANDS[0] if c != "3C"] + ["7H"])
    assert s.scores == [5 + pen(hands[0]), pen(hands[1]), pen(hands[2]), 7 + pen(hands[3])]


# A.2-9 "Penalty card unobtainable during a buy (stock empty, discard has only its new top or nothing): literal
# reading - round ends without winner; the buyer keeps the bought card (it counts in his penalty)."
@pytest.mark.parametrize("discard", [["7H"], ["7H", "QC"]], ids=["discard-empty-after-buy", "only-new-top-left"])
def test_round_ends_when_penalty_card_is_unobtainable(discard):
    scen = scenario([list(h) for h in SMALL_HANDS], stock=[], discard=discard, **final())
    for i, card in enumerate(leftover(scen)):
        scen["hands"][1 + i % 3].append(card)
    s = load_state(scen)
    before = s.to_json()["hands"]
    act(s, kind="draw_stock")
    assert s.current_player == 1
    act(s, kind="buy")
    hands = s.to_json()["hands"]
    assert s.is_terminal()
    assert hands[1] == srt(before[1] + ["7H"])
    res = s.round_results[-1]
    assert res["winner"] is None and res["reason"] == "exhausted"
    assert res["penalties"] == [pen(h) for h in hands] and res["penalties"][1] == pen(before[1]) + 7


# ``buy_needs_penalty_card``. 09: "Это относится и к штрафным картам покупки. Если карт для необходимого добора всё
# равно нет, круг заканчивается без победителя" - read literally (A.2-9) a buy whose penalty card cannot be supplied
# ends the round, so a player can end a round on purpose. The switch refuses such a buy: it is not offered.
#   stock empty, discard 7H QC: after buying 7H only the new top QC is left, so no penalty card.
@pytest.mark.parametrize("refuse", [False, True])
def test_buy_needs_a_penalty_card(refuse):
    scen = scenario([list(h) for h in SMALL_HANDS], stock=[], discard=["7H", "QC"], **final())
    for i, card in enumerate(leftover(scen)):
        scen["hands"][1 + i % 3].append(card)
    s = load_state(scen, buy_needs_penalty_card=refuse)
    act(s, kind="draw_stock")
    if not refuse:
        assert s.phase == "buy" and s.current_player == 1
        act(s, kind="buy")
        assert s.is_terminal() and s.round_results[-1]["reason"] == "exhausted"
        return
    # no buy window: P0 draws at once (the QC below the top is reshuffled into the stock, A.1-14) and plays on
    assert s.phase == "act" and s.current_player == 0 and not s.is_terminal()
    assert hand(s, 0) == srt([*SMALL_HANDS[0], "QC"]) and s.to_json()["discard"] == ["7H"]
    # with one card in the stock the buy can pay its penalty card, so it is offered as before
    scen2 = copy.deepcopy(scen)
    scen2["stock"] = [scen2["hands"][1].pop()]
    s = load_state(scen2, buy_needs_penalty_card=True)
    act(s, kind="draw_stock")
    assert s.phase == "buy" and {i["kind"] for i in infos(s)} == {"buy", "pass"}
    act(s, kind="buy")
    assert s.hand_size[1] == len(scen2["hands"][1]) + 2  # the 7H and the penalty card
    # the next top QC cannot pay a penalty card: no window; P0's own draw then finds no card (A.2-10)
    assert s.is_terminal() and s.round_results[-1]["reason"] == "exhausted"


# ----------------------------------------------------------------------------------------------------------------
# A.1-15 Scoring, session end
# ----------------------------------------------------------------------------------------------------------------


# A.1-15 "each other player scores penalty for cards in hand: 2-10 pip value, J/Q/K 10, A 15, JK 15. Melded cards
# score 0; the winner 0." 08: "Например, оставшиеся K♣, A♥, 5♦ и джокер дают 10+15+5+15=45."
# "Totals accumulate over 7 rounds" and "an unmet contract is not carried over" (next round: its own contract,
# nobody opened, new deal by the next dealer).
#   round 5, P0 opened earlier with 5D-8D on the table, holds 3C, takes 9D, lays it off, discards 3C: out.
def test_scoring_section_08_example_and_totals_accumulate():
    table = [
        {"owner": 0, "kind": "group", "cards": ["QC", "QD", "QH"]},
        {"owner": 0, "kind": "group", "cards": ["2C", "2D", "2H"]},
        {"owner": 0, "kind": "run", "cards": ["5D", "6D", "7D", "8D"]},
    ]
    hands = [["3C"], ["KC", "AH", "5D", "JK"], ["10S", "JS", "2S"], ["AS", "AC", "4H", "9C", "KH"]]
    s = load_state(
        scenario(
            hands,
            round=5,
            discard=["9D"],
            table=table,
            opened=[0],
            scores=[0, 25, 10, 40],
            rounds=[5, 6],
            round_index=0,
        ),
        seed=9,
    )
    act(s, kind="draw_discard")
    act(s, kind="lay_off", card="9D", seat=0, meld=2, end="high")
    act(s, kind="discard", card="3C")
    assert s.round_results[0] == {"round": 5, "winner": 0, "reason": "out", "penalties": [0, 45, 22, 53]}
    assert s.scores == [0, 70, 32, 93]
    # round 6 is dealt: next dealer, his left neighbour starts, nothing carried over
    assert s.round == 6 and s.dealer == 0 and s.current_player == 1 and s.phase == "draw"
    j = s.to_json()
    assert j["table"] == [] and j["opened"] == [] and s.hand_size == [12] * 4 and len(j["stock"]) == 58
    assert not s.is_terminal()


# A.1-15 "Lowest total after round 7 wins; equal lowest totals share the win."
# 09: "после последнего выигрывает минимальный общий штраф. Равные лидеры делят победу".
# turn_cap=1 ends the last round after P0's turn; P0: 10 + (3C KD)=13 -> 23, P1: 14 + 9 -> 23.
def test_lowest_total_wins_and_ties_share():
    hands = [["2C", "3C"], ["4C", "5C"], ["AC", "AD"], ["KC"]]
    s = load_state(scenario(hands, round=7, discard=["KD"], scores=[10, 14, 0, 20], **final(7)), turn_cap=1)
    act(s, kind="draw_discard")
    act(s, kind="discard", card="2C")
    assert s.is_terminal()
    assert s.round_results[-1] == {"round": 7, "winner": None, "reason": "turn_cap", "penalties": [13, 9, 30, 10]}
    assert s.scores == [23, 23, 30, 30]
    assert s.winners() == [0, 1]
    assert s.returns() == [-23.0, -23.0, -30.0, -30.0]


# README (top) "Every profile has a configurable cap on turns per round; reaching it ends the round like a round
# without a winner (penalty profiles: everyone scores the hand they hold)", A.2-12.
def test_turn_cap_ends_the_round_without_winner():
    s = load_state(scenario(SMALL_HANDS, discard=["QH"], **final()), turn_cap=2)
    act(s, kind="draw_discard")
    act(s, kind="discard", card="3C")
    assert not s.is_terminal() and s.current_player == 1
    act(s, kind="draw_discard")
    act(s, kind="discard", card="3D")
    hands = s.to_json()["hands"]
    assert s.is_terminal()
    assert s.round_results == [{"round": 2, "winner": None, "reason": "turn_cap", "penalties": [pen(h) for h in hands]}]
    assert s.scores == [pen(h) for h in hands]
    # with more rounds to play, the session goes on with the next deal
    s = new_state("contract", seed=1, rounds=(1, 2), turn_cap=3)
    dealer = s.dealer
    for _ in range(3):
        act(s, kind="draw_discard")
        act(s, **infos(s, "discard")[0])
    assert s.round_results[0]["reason"] == "turn_cap" and s.round_results[0]["winner"] is None
    assert s.round == 2 and s.dealer == (dealer + 1) % 4 and s.hand_size == [10] * 4


# ----------------------------------------------------------------------------------------------------------------
# Illegal actions and bad scenarios
# ----------------------------------------------------------------------------------------------------------------


# An illegal action raises IllegalActionError naming the action, and leaves the state exactly as it was.
def test_illegal_actions_raise_and_leave_state_unchanged():
    s = buy_state()
    before = s.to_json()
    a = s.layout.DISCARD + parse_card("3C")
    with pytest.raises(IllegalActionError) as exc:
        s.apply(a)
    msg = str(exc.value)
    assert str(a) in msg and s.describe_action(a) in msg and "draw" in msg
    with pytest.raises(IllegalActionError, match="outside|not an action"):
        s.apply(10**7)
    with pytest.raises(IllegalActionError):
        s.apply(s.layout.BUY)
    with pytest.raises(IllegalActionError):
        s.apply("draw")  # type: ignore[arg-type]
    assert s.to_json() == before
    act(s, kind="draw_stock")
    before = s.to_json()
    with pytest.raises(IllegalActionError):  # the active player never buys; P1 is asked, not P0's discard
        s.apply(s.layout.DISCARD + parse_card("3C"))
    assert s.to_json() == before and s.current_player == 1
    # game over: nothing is legal
    s = load_state(scenario(SMALL_HANDS, discard=["QH"], **final()), turn_cap=1)
    act(s, kind="draw_discard")
    act(s, kind="discard", card="3C")
    assert s.is_terminal()
    with pytest.raises(IllegalActionError):
        s.apply(s.layout.DRAW_STOCK)


def _bad(mutate) -> dict[str, Any]:
    scen = scenario([["3C", "4D"], ["5C"], ["6C"], ["7C"]], discard=["KS"])
    mutate(scen)
    return scen


@pytest.mark.parametrize(
    "mutate,match",
    [
        (lambda d: d["hands"][0].extend(["7C", "7C"]), "copies of 7C"),
        (lambda d: d["hands"][1].extend(["JK", "JK", "JK", "JK"]), "copies of JK"),
        (lambda d: d["hands"][2].append("ZZ"), "ZZ"),
        (lambda d: d["hands"][2].append("11H"), "11H"),
        (lambda d: d.update(phase="bidding"), "phase"),
        (lambda d: d.update(dealer=4), "dealer"),
        (lambda d: d.update(opened=[5]), "opened"),
        (lambda d: d.update(table=[{"owner": 4, "kind": "group", "cards": ["9C", "9D", "9H"]}]), "seat"),
        (
            lambda d: d.update(table=[{"owner": 1, "kind": "run", "cards": ["5D", "7D", "8D", "9D"]}], opened=[1]),
            "table",
        ),
        (lambda d: d.update(table=[{"owner": 1, "kind": "group", "cards": ["9C", "8C", "9D"]}], opened=[1]), "table"),
        (lambda d: d.update(table=[{"owner": 1, "kind": "run", "cards": ["5D", "6D", "7D"]}], opened=[1]), "table"),
        (lambda d: d.update(table=[{"owner": 1, "kind": "group", "cards": ["9C", "9D", "9H"]}]), "opened"),
        (lambda d: d.update(stock=["2C"]), "nowhere"),
        (lambda d: d.update(active=1, current_player=2), "current_player"),
        (lambda d: d.update(hands=[[], [], []]), "hands"),
        (lambda d: d.update(profile="continental_x"), "continental_x"),
        (lambda d: d.update(bogus=1), "bogus"),
    ],
    ids=[
        "third-copy",
        "fourth-joker",
        "bad-card",
        "bad-rank",
        "phase",
        "dealer",
        "opened-seat",
        "owner-seat",
        "run-gap",
        "group-mixed",
        "short-run",
        "melds-not-opened",
        "cards-missing",
        "current-player",
        "three-hands",
        "profile",
        "unknown-key",
    ],
)
def test_bad_scenarios_raise_scenario_error(mutate, match):
    with pytest.raises(ScenarioError, match=match):
        load_state(_bad(mutate))
