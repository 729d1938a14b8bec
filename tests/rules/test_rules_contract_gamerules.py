"""Scripted-hand tests of the ``contract_gamerules`` profile, one (or more) per rule of document 003.

Each test rigs a small position with ``load_state`` (or deals with ``new_state``), plays actions through
``find_action`` and checks exact outcomes. The comment above each test quotes the rule it checks: the English
specification (docs/rules/contract_gamerules.md, "Profile contract_gamerules", items B.1-n / B.2-n) and, where it helps, the
Ukrainian source sentence (the original rule text).

Scenario conventions: seats P0..P{n-1} clockwise, piles listed top first, ``JK(6D)`` a joker declared as 6D in a
run, ``JK(7H)`` a joker declared as the 7 of hearts in a set (``JK(7)``, rank only, takes the first missing suit). Default table: 3 players, round 2, dealer P2 (so P0 plays first).
``complete()`` puts every card of the shoe (53 cards, or 106 for 5 players) not placed by the test at the bottom of
the stock, so the tops of both piles are exactly what the test wrote.
"""

from __future__ import annotations

import copy
from collections import Counter
from functools import partial

import pytest
import scenarios
from scenarios import (
    act,
    complete,
    discards,
    final,
    hand,
    infos,
    kinds,
    layoffs,
    leftover,
    load,
    melds_offered,
    pen,
    pickups,
    quiet_turn,
    srt,
    table_of,
)

from rummy_env.core.cards import JOKER, Shoe, card_str, parse_card
from rummy_env.engine import IllegalActionError, ScenarioError, load_state, new_state
from rummy_env.engine.common import make_rng, shuffled
from rummy_env.rules import CONTRACT_GAMERULES, get_rules

PROFILE = "contract_gamerules"

scenario = partial(scenarios.scenario, PROFILE)
shoe_counts = partial(scenarios.shoe_counts, PROFILE)


# ----------------------------------------------------------------------------------------------------------------
# B.1-1 Players / deck, B.2-1, B.2-2
# ----------------------------------------------------------------------------------------------------------------


# B.1-1 "3-5, individual. 3-4 players: 52 + 1 JK = 53. 5 players: 2x52 + 2 JK = 106 (our resolution, B.2-1)."
# Source: "КІЛЬКІСТЬ ГРАВЦІВ: 3-5 гравців" / "КІЛЬКІСТЬ КАРТОК: 52 карти + 1 джокер" /
# "У грі ... де грає більше 5 гравців, використовуються 2 колоди + 2 джокери."
# B.1-2 "Stock sizes (discard 1): 3p 22 / 16; 4p 12 / 4; 5p (106) 55 / 45." and "10 cards in rounds 1-4, 12 in 5-7".
@pytest.mark.parametrize(
    "n,rnd,size,stock",
    [(3, 1, 10, 22), (3, 4, 10, 22), (3, 5, 12, 16), (3, 7, 12, 16),
     (4, 1, 10, 12), (4, 4, 10, 12), (4, 5, 12, 4), (4, 7, 12, 4),
     (5, 1, 10, 55), (5, 4, 10, 55), (5, 5, 12, 45), (5, 7, 12, 45)],
)  # fmt: skip
def test_pack_hand_and_stock_sizes(n, rnd, size, stock):
    s = new_state(PROFILE, seed=4, num_players=n, rounds=(rnd,))
    j = s.to_json()
    assert s.n == n and len(j["hands"]) == n
    assert s.hand_size == [size] * n and [len(h) for h in j["hands"]] == [size] * n
    assert len(j["discard"]) == 1 and len(j["stock"]) == stock
    every = Counter(c for h in j["hands"] for c in h) + Counter(j["stock"] + j["discard"])
    assert every == shoe_counts(n)
    assert sum(every.values()) == (106 if n == 5 else 53)


# B.1-1 "Only jokers wild" (2s are natural): a 2 does not fill the gap of a run, a joker does.
#   P0 round 3 (two runs), after drawing:  2C | 3S 4S _ 6S | 7H 8H 9H | KD QC 10D AD
def test_only_jokers_are_wild():
    rest = ["KD", "QC", "10D", "AD"]
    s = load(scenario([["2C", "3S", "4S", "6S", "7H", "8H", "9H", *rest], [], []], round=3, phase="act"))
    assert infos(s, "meld") == []
    s = load(scenario([["JK", "3S", "4S", "6S", "7H", "8H", "9H", *rest], [], []], round=3, phase="act"))
    assert ("run", tuple(sorted(["4S", "JK(5S)", "6S"]))) in melds_offered(s)
    assert ("run", tuple(sorted(["3S", "4S", "JK(5S)"]))) in melds_offered(s)


# B.2-1 "use that pack for 5 players for the whole session"; B.2-2 "'More than 5 players use 2 decks' conflicts
# with '3-5 players': out of scope." -> 2 or 6 players are refused; the rules object switches pack only for 5.
def test_player_count_bounds_and_five_player_pack():
    for bad in (2, 6):
        with pytest.raises(ValueError):
            new_state(PROFILE, seed=0, num_players=bad)
        with pytest.raises(ValueError):
            get_rules(PROFILE, num_players=bad)
    assert (CONTRACT_GAMERULES.decks, CONTRACT_GAMERULES.jokers) == (1, 1)
    for n in (3, 4):
        r = get_rules(PROFILE, num_players=n)
        assert (r.decks, r.jokers) == (1, 1)
    r = get_rules(PROFILE, num_players=5)
    assert (r.decks, r.jokers, r.num_players) == (2, 2, 5)
    # the 5-player pack is kept for every round of the session
    s = new_state(PROFILE, seed=5, num_players=5, turn_cap=1)
    for _ in range(7):
        j = s.to_json()
        assert Counter(c for h in j["hands"] for c in h) + Counter(j["stock"] + j["discard"]) == shoe_counts(5)
        quiet_turn(s)
    assert s.is_terminal()


# ----------------------------------------------------------------------------------------------------------------
# B.1-2 Deal
# ----------------------------------------------------------------------------------------------------------------


# B.1-2 "First dealer: lowest card in a draw (engine: random/seeded); deal passes left. 7 rounds. One card at a time
# clockwise from dealer's left ... Next card face up = discard, rest = stock. Left of dealer plays first."
# Source: "Здача переходить до нього зліва." / "Усього в Контрактному Руммі сім роздач." / "Карти роздаються по
# одній". The deal is replayed from the seeded generator: card i of the shuffled pack goes to seat
# (dealer + 1 + i) mod n, the next card is the up-card, the rest is the stock from the top.
@pytest.mark.parametrize("n", [3, 4, 5])
def test_deal_one_card_at_a_time_from_dealers_left(n):
    seed = 9
    s = new_state(PROFILE, seed=seed, num_players=n)
    rng = make_rng(seed)
    dealer = int(rng.integers(n))
    cards = shuffled(rng, Shoe(2, 2).kinds() if n == 5 else Shoe(1, 1).kinds())
    assert s.dealer == dealer and s.current_player == s.active == (dealer + 1) % n
    want: list[list[str]] = [[] for _ in range(n)]
    for i in range(10 * n):
        want[(dealer + 1 + i) % n].append(card_str(cards[i]))
    j = s.to_json()
    assert j["hands"] == [srt(h) for h in want]
    assert j["discard"] == [card_str(cards[10 * n])]
    assert j["stock"] == [card_str(k) for k in cards[10 * n + 1 :]]


# B.1-2 "7 rounds ... 10 cards in rounds 1-4, 12 in rounds 5-7"; B.2-4 "Round 4 deals 10 ... keep 10"; the deal
# passes left each round. (turn_cap=1 ends every round after one turn, so the seven deals follow one another.)
def test_seven_rounds_hand_sizes_and_dealer_rotation():
    s = new_state(PROFILE, seed=21, num_players=4, turn_cap=1)
    prev = None
    for rnd in range(1, 8):
        assert s.round == rnd and s.phase == "draw"
        assert s.hand_size == [10 if rnd <= 4 else 12] * 4
        assert len(s.stock) == (12 if rnd <= 4 else 4)
        if prev is not None:
            assert s.dealer == (prev + 1) % 4
        assert s.current_player == (s.dealer + 1) % 4
        prev = s.dealer
        quiet_turn(s)
    assert s.is_terminal()
    assert [r["round"] for r in s.round_results] == list(range(1, 8))
    assert all(r["reason"] == "turn_cap" and r["winner"] is None for r in s.round_results)


# ----------------------------------------------------------------------------------------------------------------
# B.1-3 Sets, B.1-4 Runs
# ----------------------------------------------------------------------------------------------------------------


# B.1-3 "3 or 4 cards of one rank, all suits different". Source: "У іграх з більш ніж однією колодою в мельді не
# може бути 2 карти в групі однієї масті. Наприклад, не може бути 2 п'ятірки бубнових і одна п'ятірка червових".
#   5 players (two decks), P0 round 1 after drawing:  7C 7C 7D 7H | 9C 9D 9S 9S | KD QD 2H
# Only distinct-suit sets are offered; 7C 7C 7D and 9S 9S 9C never are, nor a lay-off of the second 7C.
def test_set_suits_must_differ_with_two_decks():
    h0 = ["7C", "7C", "7D", "7H", "9C", "9D", "9S", "9S", "KD", "QD", "2H"]
    s = load(scenario([h0, [], [], [], []], round=1, phase="act"))
    assert melds_offered(s) == {("group", ("7C", "7D", "7H")), ("group", ("9C", "9D", "9S"))}
    act(s, kind="meld", cards=["7C", "7D", "7H"])
    assert s.phase == "opening"
    act(s, kind="meld", cards=["9C", "9D", "9S"])
    assert s.phase == "act"
    assert table_of(s, 0) == [["7C", "7D", "7H"], ["9C", "9D", "9S"]]
    assert hand(s, 0) == srt(["7C", "9S", "KD", "QD", "2H"])
    assert layoffs(s) == set()  # 7C and 9S repeat a suit of their set
    assert discards(s) == {"7C", "9S", "KD", "QD", "2H"}
    # a table set with a repeated suit is not a legal meld
    with pytest.raises(ScenarioError):
        load(scenario([[], [], [], [], []], table=[{"owner": 1, "kind": "group", "cards": ["5D", "5D", "5H"]}],
                      opened=[1]))  # fmt: skip


# B.1-3 "Max 4 cards" and "(a joker must declare a suit absent from the set)"; B.1-8 "sets <= 4 distinct suits".
#   P0 (opened earlier) holds 8S JK 3C 2H; P1 has the set 8C 8D 8H (and 4C 4D 4H 4S), P2 5C 5D 5H 5S.
# 8S or the joker may go on 8C 8D 8H (a suit is missing there), nothing on the full set; once 8S fills the last
# suit, the joker has no absent suit left to declare.
def test_set_holds_at_most_four_and_joker_only_for_a_missing_suit():
    table = [
        {"owner": 0, "kind": "group", "cards": ["KC", "KD", "KH", "KS"]},
        {"owner": 0, "kind": "group", "cards": ["QC", "QD", "QH", "QS"]},
        {"owner": 1, "kind": "group", "cards": ["8C", "8D", "8H"]},
        {"owner": 1, "kind": "group", "cards": ["4C", "4D", "4H", "4S"]},
        {"owner": 2, "kind": "group", "cards": ["5C", "5D", "5H", "5S"]},
    ]
    s = load(scenario([["8S", "JK", "3C", "2H"], [], []], round=1, table=table, opened=[0, 1, 2], stock=["10C"]))
    act(s, kind="draw_stock")
    assert layoffs(s) == {("8S", 1, 0, None), ("JK", 1, 0, None)}
    act(s, kind="lay_off", card="8S", seat=1, meld=0)
    assert table_of(s, 1)[0] == ["8C", "8D", "8H", "8S"]
    assert layoffs(s) == set()  # every set is full: the joker has no absent suit left to declare
    # a four-card set with a joker: the joker stands for the one missing suit, so 8S cannot join
    table2 = [{"owner": 0, "kind": "group", "cards": ["KC", "KD", "KH", "KS"]},
              {"owner": 0, "kind": "group", "cards": ["QC", "QD", "QH", "QS"]},
              {"owner": 1, "kind": "group", "cards": ["8C", "8D", "8H", "JK(8)"]},
              {"owner": 1, "kind": "group", "cards": ["4C", "4D", "4H"]}]  # fmt: skip
    s = load(scenario([["8S", "3C", "2S"], [], []], round=1, phase="act", table=table2, opened=[0, 1]))
    assert layoffs(s) == set()
    with pytest.raises(ScenarioError):  # five cards is never a set
        load(scenario([["2S"], [], []], round=1,
                      table=[{"owner": 1, "kind": "group", "cards": ["8C", "8D", "8H", "8S", "JK(8)"]},
                             {"owner": 1, "kind": "group", "cards": ["4C", "4D", "4H"]}], opened=[1]))  # fmt: skip


# B.1-3 "(a joker must declare a suit absent from the set)" in an opening: 7C 7D + JK is a set of 7s (the joker
# takes a missing suit); with two natural 7s of one suit the joker cannot make a set of them.
#   P0 round 1 (3 players) after drawing:  7C 7D JK | 9C 9D 9S | KD QH 4C 2H 3S
#   P0 round 1 (5 players) after drawing:  7C 7C JK | 9C 9D 9S | KD QH 4C 2H 3S   -> no opening
def test_set_with_a_joker_in_the_opening():
    rest = ["KD", "QH", "4C", "2H", "3S"]
    s = load(scenario([["7C", "7D", "JK", "9C", "9D", "9S", *rest], [], []], round=1, phase="act"))
    assert melds_offered(s) == {
        ("group", ("7C", "7D", "JK(7H)")),
        ("group", ("7C", "7D", "JK(7S)")),
        ("group", ("9C", "9D", "9S")),
    }
    act(s, kind="meld", cards=["7C", "7D", "JK(7S)"])
    act(s, kind="meld", cards=["9C", "9D", "9S"])
    assert table_of(s, 0) == [["7C", "7D", "JK(7S)"], ["9C", "9D", "9S"]]
    s = load(scenario([["7C", "7C", "JK", "9C", "9D", "9S", *rest], [], [], [], []], round=1, phase="act"))
    assert kinds(s) == {"discard"}


# README "Re-discard ban and identical copies" (project resolution for the 5-player two-deck pack): the ban of
# B.1-6 (b) is on the physical card taken; another copy of the same kind may be discarded.
def test_five_players_identical_copy_of_the_taken_card():
    h0 = ["7H", "2C", "4D", "6S", "8C", "10D", "QS", "KH", "AC", "3D"]
    s = load(scenario([h0, [], [], [], []], discard=["7H", "9S"]))
    act(s, kind="draw_discard")
    assert hand(s, 0).count("7H") == 2 and "7H" in discards(s)
    act(s, kind="discard", card="7H")
    assert hand(s, 0).count("7H") == 1 and s.to_json()["discard"] == ["7H", "9S"] and s.active == 1


# B.1-4 "Runs. >=3 consecutive positions, one suit, A low or high, no wrap (K-A-2 illegal), within 1..14."
# Source: "КАРТКОВИЙ РАНГ: A (високий), K, ..., 2, A (низький)" / "послідовність 3 або більше карт, які йдуть
# підряд і належать до однієї масті".
#   P0 round 3 (two runs), after drawing:  AH 2H 3H | QS KS AS | 7C 9D 5C JD 10H
def test_runs_of_three_ace_low_and_ace_high():
    h0 = ["AH", "2H", "3H", "QS", "KS", "AS", "7C", "9D", "5C", "JD", "10H"]
    s = load(scenario([h0, [], []], round=3, phase="act"))
    assert melds_offered(s) == {("run", ("2H", "3H", "AH")), ("run", ("AS", "KS", "QS"))}
    act(s, kind="meld", cards=["AH", "2H", "3H"])
    act(s, kind="meld", cards=["QS", "KS", "AS"])
    assert table_of(s, 0) == [["AH", "2H", "3H"], ["QS", "KS", "AS"]]
    assert s.phase == "act" and hand(s, 0) == srt(["7C", "9D", "5C", "JD", "10H"])


# B.1-4 "no wrap (K-A-2 illegal), within 1..14": K-A-2 is never offered nor loadable; an ace-low run takes nothing
# below the ace, an ace-high run nothing above it.
#   P0 round 3:  KH AH 2H | KS AS 2S | 7C 9D 5C JD 10H       -> no opening at all
def test_no_wrap_around_the_ace():
    h0 = ["KH", "AH", "2H", "KS", "AS", "2S", "7C", "9D", "5C", "JD", "10H"]
    s = load(scenario([h0, [], []], round=3, phase="act"))
    assert kinds(s) == {"discard"}
    with pytest.raises(ScenarioError):
        load(
            scenario(
                [[], [], []],
                table=[
                    {"owner": 1, "kind": "run", "cards": ["KH", "AH", "2H"]},
                    {"owner": 1, "kind": "group", "cards": ["9C", "9D", "9S"]},
                ],
                opened=[1],
            )
        )
    with pytest.raises(ScenarioError):  # two cards are no run
        load(
            scenario(
                [[], [], []],
                table=[
                    {"owner": 1, "kind": "run", "cards": ["5H", "6H"]},
                    {"owner": 1, "kind": "group", "cards": ["9C", "9D", "9S"]},
                ],
                opened=[1],
            )
        )
    #   P0 opened earlier holds KH 2S 4H JS JK; table: P1 runs A-2-3 hearts and Q-K-A spades
    table = [{"owner": 0, "kind": "group", "cards": ["7C", "7D", "7S"]},
             {"owner": 0, "kind": "run", "cards": ["8D", "9D", "10D"]},
             {"owner": 1, "kind": "run", "cards": ["AH", "2H", "3H"]},
             {"owner": 1, "kind": "run", "cards": ["QS", "KS", "AS"]}]  # fmt: skip
    s = load(scenario([["KH", "2S", "4H", "JS", "JK", "5C"], [], []], phase="act", table=table, opened=[0, 1]))
    on_p1 = {x for x in layoffs(s) if x[1] == 1}
    assert on_p1 == {("4H", 1, 0, "high"), ("JK", 1, 0, "high"), ("JS", 1, 1, "low"), ("JK", 1, 1, "low")}


# B.2-13 "One deck: A-spades...K-spades + JK(A-spades high) = 14 positions, legal."
def test_fourteen_position_run_with_the_joker_as_high_ace():
    run13 = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS"]
    table = [{"owner": 1, "kind": "run", "cards": run13},
             {"owner": 1, "kind": "group", "cards": ["9C", "9D", "9H"]},
             {"owner": 0, "kind": "group", "cards": ["7C", "7D", "7H"]},
             {"owner": 0, "kind": "run", "cards": ["2H", "3H", "4H"]}]  # fmt: skip
    s = load(scenario([["JK", "QC", "KD"], [], []], phase="act", table=table, opened=[0, 1]))
    assert {x for x in layoffs(s) if x[0] == "JK"} == {
        ("JK", 1, 0, "high"),
        ("JK", 1, 1, None),
        ("JK", 0, 0, None),
        ("JK", 0, 1, "low"),
        ("JK", 0, 1, "high"),
    }
    act(s, kind="lay_off", card="JK", seat=1, meld=0, end="high")
    assert table_of(s, 1)[0] == [*run13, "JK(AS)"]
    assert {x for x in layoffs(s) if (x[1], x[2]) == (1, 0)} == set()  # both ends are closed now
    s2 = load(scenario([["QC"], [], []], table=[{"owner": 1, "kind": "run", "cards": [*run13, "JK(AS)"]},
                                                {"owner": 1, "kind": "group", "cards": ["9C", "9D", "9H"]}],
                       opened=[1]))  # fmt: skip
    assert len(s2.seat_melds[1][0].cards) == 14


# ----------------------------------------------------------------------------------------------------------------
# B.1-5 Contracts, B.1-7 Opening, B.2-5 / B.2-6
# ----------------------------------------------------------------------------------------------------------------

SETS = [["2C", "2D", "2H"], ["5C", "5D", "5H"], ["9C", "9D", "9S"]]
RUNS = [["JC", "QC", "KC"], ["JD", "QD", "KD"], ["JS", "QS", "KS"]]
FILLER = ["4H", "6S", "8H", "4S", "3D", "7S"]


# B.1-5 "r1 2S; r2 S+R; r3 2R; r4 3S; r5 2S+R; r6 S+2R". Source: "Угода 1: 10 карток, 2 набори ... Угода 6: 12
# карток, 1 набір і 2 послідовності". B.1-7 "lay down exactly the contract's melds (number and kinds) in one
# action" (engine: one meld per step; between them only melds are legal), "No extra melds" (B.2-6).
@pytest.mark.parametrize("rnd,g,r", [(1, 2, 0), (2, 1, 1), (3, 0, 2), (4, 3, 0), (5, 2, 1), (6, 1, 2)])
def test_contract_of_each_round(rnd, g, r):
    pieces = [("group", m) for m in SETS[:g]] + [("run", m) for m in RUNS[:r]]
    size = (10 if rnd <= 4 else 12) + 1
    cards = [c for _, m in pieces for c in m]
    h0 = cards + FILLER[: size - len(cards)]
    s = load(scenario([h0, [], []], round=rnd, phase="act"))
    assert melds_offered(s) == {(k, tuple(sorted(m))) for k, m in pieces}
    for i, (k, m) in enumerate(pieces):
        act(s, kind="meld", meld=k, cards=m)
        if i < len(pieces) - 1:
            assert s.phase == "opening" and kinds(s) == {"meld"}  # no partial opening, no discard in between
    assert s.phase == "act" and s.opened[0]
    assert table_of(s, 0) == [m for _, m in pieces]
    assert hand(s, 0) == srt(FILLER[: size - len(cards)])
    assert "meld" not in kinds(s)


# B.1-5 a hand one meld short of the contract cannot open: the wrong kinds never count.
#   round 2 (S+R) with two sets and no run; round 3 (2R) with one run and two sets
def test_wrong_kinds_do_not_fulfil_the_contract():
    s = load(scenario([SETS[0] + SETS[1] + FILLER[:5], [], []], round=2, phase="act"))
    assert kinds(s) == {"discard"}
    s = load(scenario([RUNS[0] + SETS[0] + SETS[1] + FILLER[:2], [], []], round=3, phase="act"))
    assert kinds(s) == {"discard"}


# B.1-5 "Runs in one contract must be of pairwise different suits." Source: "Якщо контракт вимагає декількох
# послідовностей, вони не можуть бути з однієї масті."
#   round 3 (2R): 3H 4H 5H | 7H 8H 9H | filler -> no opening; round 6 (S+2R): hearts x2 + clubs: once one heart
#   run is down, only the club run may follow.
def test_runs_of_one_contract_have_different_suits():
    hearts = ["3H", "4H", "5H", "7H", "8H", "9H"]
    s = load(scenario([hearts + ["AC", "3D", "6S", "JD", "QS"], [], []], round=3, phase="act"))
    assert kinds(s) == {"discard"}
    h0 = hearts + ["JC", "QC", "KC", "2C", "2D", "2S", "6S"]
    s = load(scenario([h0, [], []], round=6, phase="act"))
    assert melds_offered(s) == {
        ("run", ("3H", "4H", "5H")), ("run", ("7H", "8H", "9H")), ("run", ("JC", "KC", "QC")),
        ("group", ("2C", "2D", "2S")),
    }  # fmt: skip
    act(s, kind="meld", cards=["3H", "4H", "5H"])
    assert melds_offered(s) == {("run", ("JC", "KC", "QC")), ("group", ("2C", "2D", "2S"))}
    act(s, kind="meld", cards=["JC", "QC", "KC"])
    assert melds_offered(s) == {("group", ("2C", "2D", "2S"))}
    act(s, kind="meld", cards=["2C", "2D", "2S"])
    assert s.phase == "act" and table_of(s, 0) == [["3H", "4H", "5H"], ["JC", "QC", "KC"], ["2C", "2D", "2S"]]
    # the second heart run may not be laid as a new meld; 6H is missing so nothing joins the first run either
    assert "meld" not in kinds(s)
    assert {x for x in layoffs(s) if x[0] in {"7H", "8H", "9H"}} == set()


# B.2-5 "Exact-minimum opening? Not stated -> not required"; B.1-7 "Melds may exceed minimum length"; B.2-7 same-
# turn lay-off allowed: a longer meld is a minimum meld plus lay-offs in the same turn.
#   P0 round 2 (S+R) after drawing:  3H 4H 5H 6H 7H | 9C 9D 9S 9H | 2C KD
def test_longer_melds_are_a_minimum_meld_plus_same_turn_layoffs():
    h0 = ["3H", "4H", "5H", "6H", "7H", "9C", "9D", "9S", "9H", "2C", "KD"]
    s = load(scenario([h0, [], []], phase="act"))
    groups = {m for m in melds_offered(s) if m[0] == "group"}
    runs = {m for m in melds_offered(s) if m[0] == "run"}
    assert groups == {("group", tuple(sorted(set(["9C", "9D", "9S", "9H"]) - {x}))) for x in ["9C", "9D", "9S", "9H"]}
    assert runs == {("run", tuple(sorted(h0[i : i + 3]))) for i in range(3)}
    act(s, kind="meld", cards=["9C", "9D", "9S"])
    act(s, kind="meld", cards=["4H", "5H", "6H"])
    assert layoffs(s) == {("9H", 0, 0, None), ("3H", 0, 1, "low"), ("7H", 0, 1, "high")}
    act(s, kind="lay_off", card="9H", seat=0, meld=0)
    act(s, kind="lay_off", card="3H", seat=0, meld=1, end="low")
    act(s, kind="lay_off", card="7H", seat=0, meld=1, end="high")
    assert table_of(s, 0) == [["9C", "9D", "9S", "9H"], ["3H", "4H", "5H", "6H", "7H"]]
    assert hand(s, 0) == ["2C", "KD"] and discards(s) == {"2C", "KD"}
    act(s, kind="discard", card="KD")
    assert s.active == 1 and s.phase == "draw"


# B.2-6 "Extra melds? ... forbid at and after opening". Round 1 (2 sets) with three sets in hand: after the two
# sets of the contract no third set may be laid, neither on the opening turn nor later.
def test_no_extra_melds_at_or_after_opening():
    h0 = SETS[0] + SETS[1] + SETS[2] + ["4H", "6S"]
    s = load(scenario([h0, [], []], round=1, phase="act"))
    assert len(melds_offered(s)) == 3
    act(s, kind="meld", cards=SETS[0])
    act(s, kind="meld", cards=SETS[1])
    assert s.phase == "act" and "meld" not in kinds(s)
    # later turn: still only lay-offs / discards
    table = [{"owner": 0, "kind": "group", "cards": SETS[0]}, {"owner": 0, "kind": "group", "cards": SETS[1]}]
    s = load(scenario([SETS[2] + ["4H", "6S"], [], []], round=1, phase="act", table=table, opened=[0]))
    assert kinds(s) == {"discard"}


# ----------------------------------------------------------------------------------------------------------------
# B.1-8 Lay-offs, B.2-7
# ----------------------------------------------------------------------------------------------------------------

P1_MELDS = [
    {"owner": 1, "kind": "group", "cards": ["8C", "8D", "8H"]},
    {"owner": 1, "kind": "run", "cards": ["4S", "5S", "6S"]},
]


# B.2-7 "Lay-off before opening forbidden (family rule 'to meld or lay off you must first fulfil your contract')."
# B.1-7 "Before any meld or lay-off the player must lay down exactly the contract's melds".
#   P0 (not opened) round 2 holds 8S 7S 3S KD ... but no contract: nothing goes on P1's 8-set or spade run.
def test_no_layoff_before_opening():
    h0 = ["8S", "7S", "3S", "KD", "QC", "2H", "10C", "JC", "AD", "5H", "9H"]
    s = load(scenario([h0, [], []], phase="act", table=P1_MELDS, opened=[1]))
    assert kinds(s) == {"discard"} and layoffs(s) == set()


# B.1-8 "Only after opening; allowed on the opening turn and later (our resolution); onto any meld".
# B.2-7 "same-turn lay-off is allowed (Wikipedia text: 'in the same turn that the initial meld is laid down or in
# later turns')". Source: "Гравці також можуть 'відкладати' свої карти на вже існуючі комбінації, як свої, так і
# інших гравців."
#   P0 round 2 after drawing: 10C 10D 10H | 9D JD QD?  -> S + R = 10C 10D 10H, QH KH AH; then 8S and 3S/7S on P1.
def test_layoffs_on_the_opening_turn_onto_any_meld():
    h0 = ["10C", "10D", "10H", "QH", "KH", "AH", "8S", "7S", "3S", "2D", "5C"]
    s = load(scenario([h0, [], []], phase="act", table=P1_MELDS, opened=[1]))
    assert layoffs(s) == set()
    act(s, kind="meld", cards=["10C", "10D", "10H"])
    act(s, kind="meld", cards=["QH", "KH", "AH"])
    assert s.opened[0] and s.phase == "act"
    assert layoffs(s) == {("8S", 1, 0, None), ("7S", 1, 1, "high"), ("3S", 1, 1, "low")}
    act(s, kind="lay_off", card="8S", seat=1, meld=0)
    act(s, kind="lay_off", card="7S", seat=1, meld=1, end="high")
    act(s, kind="lay_off", card="3S", seat=1, meld=1, end="low")
    assert table_of(s, 1) == [["8C", "8D", "8H", "8S"], ["3S", "4S", "5S", "6S", "7S"]]
    assert hand(s, 0) == srt(["2D", "5C"])
    act(s, kind="discard", card="2D")
    assert s.active == 1


# ----------------------------------------------------------------------------------------------------------------
# B.1-6 Draws, B.2-10 deep pickups
# ----------------------------------------------------------------------------------------------------------------


# B.1-6 "(a) stock top; (b) discard top only - that card may not be discarded this turn". Source: "Якщо ви взяли
# одну карту зі стопки скидання, ви не можете скинути цю карту."
def test_stock_draw_and_discard_top_draw():
    h0 = ["3C", "5D", "7H", "9S", "JC", "KD", "2H", "4S", "6C", "8D"]
    s = load(scenario([h0, [], []], discard=["QH", "10S"], stock=["AC"]))
    assert s.phase == "draw" and s.current_player == 0
    assert kinds(s) <= {"draw_stock", "draw_discard", "pickup"}
    assert {i["card"] for i in infos(s, "draw_discard")} == {"QH"}
    before = s.clone()
    act(s, kind="draw_stock")
    assert s.phase == "act" and s.current_player == 0 and hand(s, 0) == srt(h0 + ["AC"])
    assert discards(s) == set(srt(h0 + ["AC"]))
    s = before
    act(s, kind="draw_discard")
    assert hand(s, 0) == srt(h0 + ["QH"]) and s.to_json()["discard"] == ["10S"]
    assert discards(s) == set(h0)  # everything but the QH just taken
    with pytest.raises(IllegalActionError):
        s.apply(s.layout.DISCARD + parse_card("QH"))
    act(s, kind="discard", card="3C")
    assert s.to_json()["discard"] == ["3C", "10S"] and hand(s, 0) == srt([*h0[1:], "QH"])


# B.1-6 "(c) deep pickup: choose a card at depth >=2, take it and every card above it; the chosen card must be put on
# the table this turn (in the opening ...); any *other* picked-up card may be discarded this turn." B.2-10 "engine
# offers it only if the chosen card can be placed this turn; discard blocked until it is on the table."
# Source: "Ви можете брати карти зі скиду, якщо (але не зверху): карта негайно зливається ..., і ви берете всі
# карти, що лежать над картою, яку ви вирішили злити." / "якщо ви взяли кілька карт зі стопки скидання, ви можете
# вибрати одну з них, щоб скинути її знову."
#   P0 (not opened) round 1:  7C 7D 7H | 9C 9D | KD 4C 2H 3S 6S      discard (top first): QH 5D 9S JC
# Depth 3 (9S) completes the second set: offered. Depth 2 (5D) and depth 4 (JC) cannot reach the table: refused.
def test_deep_pickup_into_the_opening():
    h0 = ["7C", "7D", "7H", "9C", "9D", "KD", "4C", "2H", "3S", "6S"]
    s = load(scenario([h0, [], []], round=1, discard=["QH", "5D", "9S", "JC"]))
    assert pickups(s) == {(3, "9S")}
    illegal = s.layout.PICKUP + 2 - 2  # depth 2 (5D)
    assert s.action_info(illegal) == {"kind": "pickup", "depth": 2, "card": "5D"}
    before = s.to_json()
    with pytest.raises(IllegalActionError):
        s.apply(illegal)
    with pytest.raises(IllegalActionError):
        s.apply(s.layout.PICKUP + 4 - 2)  # depth 4 (JC)
    assert s.to_json() == before  # a refused action changes nothing
    act(s, kind="pickup", depth=3)
    assert hand(s, 0) == srt(h0 + ["QH", "5D", "9S"]) and s.to_json()["discard"] == ["JC"]
    assert s.must_place == parse_card("9S") and s.to_json()["must_place"] == "9S"
    assert kinds(s) == {"meld"}  # no discard until 9S is on the table
    assert melds_offered(s) == {("group", ("7C", "7D", "7H")), ("group", ("9C", "9D", "9S"))}
    act(s, kind="meld", cards=["7C", "7D", "7H"])
    act(s, kind="meld", cards=["9C", "9D", "9S"])
    assert s.must_place == -1 and s.phase == "act"
    # both other picked-up cards may go straight back
    assert discards(s) == set(srt(["KD", "4C", "2H", "3S", "6S", "QH", "5D"]))
    act(s, kind="discard", card="QH")
    assert s.to_json()["discard"] == ["QH", "JC"] and s.active == 1


# B.1-6 "(c) ... put on the table this turn (in the opening or as a lay-off)"; B.2-10.
#   P0 opened earlier; P1's set JC JD JS and run 4S 5S 6S. discard: 2H 7S KC 8S 5C. Depth 2 (7S) fits the run; depth 4 (8S) only
#   after 7S, which is picked up with it (a chain); depth 3 (KC) and 5 (5C) never. After the pickup no discard
#   until 8S is down, then the other picked-up cards 2H / KC may be discarded.
def test_deep_pickup_as_a_layoff_and_chain():
    own = [{"owner": 0, "kind": "group", "cards": ["10C", "10D", "10H"]},
           {"owner": 0, "kind": "run", "cards": ["QH", "KH", "AH"]}]  # fmt: skip
    h0 = ["3D", "9C"]
    p1 = [{"owner": 1, "kind": "group", "cards": ["JC", "JD", "JS"]}, P1_MELDS[1]]
    s = load(scenario([h0, [], []], discard=["2H", "7S", "KC", "8S", "5C"], table=own + p1, opened=[0, 1]))
    assert pickups(s) == {(2, "7S"), (4, "8S")}
    act(s, kind="pickup", depth=4)
    assert hand(s, 0) == srt(h0 + ["2H", "7S", "KC", "8S"]) and s.to_json()["must_place"] == "8S"
    assert discards(s) == set()
    assert layoffs(s) == {("7S", 1, 1, "high")}  # 3S is gone, 8S needs the 7S first
    act(s, kind="lay_off", card="7S", seat=1, meld=1, end="high")
    assert s.to_json()["must_place"] == "8S" and discards(s) == set()
    act(s, kind="lay_off", card="8S", seat=1, meld=1, end="high")
    assert s.must_place == -1
    assert discards(s) == {"2H", "KC", "3D", "9C"}
    assert table_of(s, 1)[1] == ["4S", "5S", "6S", "7S", "8S"]


# B.1-6 (c) with B.2-7: a player who has not opened may take a card that he can lay off right after opening.
#   P0 round 2: 10C 10D 10H | QH KH AH | 2D 5C 9S 3C    discard: JD 7S 4D; P1 has the run 4S 5S 6S.
def test_deep_pickup_laid_off_on_the_opening_turn():
    h0 = ["10C", "10D", "10H", "QH", "KH", "AH", "2D", "5C", "9S", "3C"]
    s = load(scenario([h0, [], []], discard=["JD", "7S", "4D"], table=P1_MELDS, opened=[1]))
    assert pickups(s) == {(2, "7S")}
    act(s, kind="pickup", depth=2)
    assert kinds(s) == {"meld"}
    act(s, kind="meld", cards=["10C", "10D", "10H"])
    act(s, kind="meld", cards=["QH", "KH", "AH"])
    assert discards(s) == set() and ("7S", 1, 1, "high") in layoffs(s)
    act(s, kind="lay_off", card="7S", seat=1, meld=1, end="high")
    assert discards(s) == {"JD", "2D", "5C", "9S", "3C"}


# ----------------------------------------------------------------------------------------------------------------
# B.1-9 Joker swap, B.2-8
# ----------------------------------------------------------------------------------------------------------------

OWN_R2 = [
    {"owner": 0, "kind": "group", "cards": ["10C", "10D", "10H"]},
    {"owner": 0, "kind": "run", "cards": ["QH", "KH", "AH"]},
]


# B.1-9 "Player who completed the contract on a previous turn, on his turn, may replace a joker *in a run* with the
# exact natural card it represents; the freed joker must be laid off this turn (not kept, not discarded)."
# Source: "Якщо гравець виконав свій контракт на попередньому ході, якщо інший гравець використовує джокер в
# послідовності, ... він може обміняти ці карти і взяти джокер. Джокер, однак, повинен бути використаний в цей хід
# і не може бути збережений на потім."
#   P0 opened earlier holds 6D 2C KS; P1's run 5D JK(6D) 7D and set 8C 8D 8H.
def test_joker_swap_in_a_run_and_forced_placement():
    table = OWN_R2 + [{"owner": 1, "kind": "run", "cards": ["5D", "JK(6D)", "7D"]},
                      {"owner": 1, "kind": "group", "cards": ["8C", "8D", "8H"]}]  # fmt: skip
    s = load(scenario([["6D", "2C", "KS"], [], []], phase="act", table=table, opened=[0, 1]))
    swaps = infos(s, "swap_joker")
    assert swaps == [{"kind": "swap_joker", "card": "6D", "seat": 1, "meld": 0, "position": 6}]
    act(s, kind="swap_joker", card="6D")
    assert s.phase == "place_joker" and table_of(s, 1)[0] == ["5D", "6D", "7D"]
    assert hand(s, 0) == srt(["2C", "KS", "JK"])
    # only placements: no discard of the joker, no keeping it
    assert kinds(s) == {"place_joker"}
    assert {(i["seat"], i["meld"], i["end"]) for i in infos(s, "place_joker")} == {
        (0, 0, None),
        (0, 1, "low"),
        (1, 0, "low"),
        (1, 0, "high"),
        (1, 1, None),
    }
    with pytest.raises(IllegalActionError):
        s.apply(s.layout.DISCARD + JOKER)
    act(s, kind="place_joker", seat=1, meld=0, end="high")
    assert table_of(s, 1)[0] == ["5D", "6D", "7D", "JK(8D)"]
    assert s.phase == "act" and hand(s, 0) == srt(["2C", "KS"]) and discards(s) == {"2C", "KS"}


# B.1-9 "Jokers in sets are dead." Source: "Джокери, розіграні в сетах, є мертвими і не можуть бути повернуті."
# B.2-8 "any run may be used (own too)".
def test_no_swap_from_a_set_and_swap_from_own_run():
    table = [{"owner": 0, "kind": "group", "cards": ["10C", "10D", "JK(10S)"]},
             {"owner": 0, "kind": "run", "cards": ["QH", "KH", "AH"]},
             {"owner": 1, "kind": "group", "cards": ["8C", "8D", "8H"]},
             {"owner": 1, "kind": "run", "cards": ["4S", "5S", "6S"]}]  # fmt: skip
    s = load(scenario([["10H", "9D", "2C"], [], []], phase="act", table=table, opened=[0, 1]))
    assert infos(s, "swap_joker") == []
    assert ("10H", 0, 0, None) in layoffs(s)  # the natural may still join the set
    own = [{"owner": 0, "kind": "group", "cards": ["10C", "10D", "10H"]},
           {"owner": 0, "kind": "run", "cards": ["QH", "JK(KH)", "AH"]}, *table[2:]]  # fmt: skip
    s = load(scenario([["KH", "9D", "2C"], [], []], phase="act", table=own, opened=[0, 1]))
    act(s, kind="swap_joker", card="KH", seat=0, meld=1)
    act(s, kind="place_joker", seat=1, meld=1, end="high")
    assert table_of(s, 0)[1] == ["QH", "KH", "AH"] and table_of(s, 1)[1] == ["4S", "5S", "6S", "JK(7S)"]


# B.1-9 "completed the contract on a *previous* turn": on the opening turn lay-offs are allowed (B.2-7) but not the
# swap. Only the joker clause requires "previous turn" (B.2-7).
#   P0 round 2 holds 10C 10D 10H | QH KH AH | 6D 2C 9S 3C 4H; P1's run 5D JK(6D) 7D.
def test_no_joker_swap_on_the_opening_turn():
    table = [{"owner": 1, "kind": "run", "cards": ["5D", "JK(6D)", "7D"]},
             {"owner": 1, "kind": "group", "cards": ["8C", "8D", "8H"]}]  # fmt: skip
    h0 = ["10C", "10D", "10H", "QH", "KH", "AH", "6D", "2C", "9S", "3C", "4H"]
    s = load(scenario([h0, [], []], phase="act", table=table, opened=[1]))
    assert infos(s, "swap_joker") == []
    act(s, kind="meld", cards=["10C", "10D", "10H"])
    act(s, kind="meld", cards=["QH", "KH", "AH"])
    assert infos(s, "swap_joker") == []
    assert ("6D", 1, 0, "low") not in layoffs(s)
    # the next turn the swap is there (state reloaded as "opened earlier")
    j = s.to_json()
    j.update(phase="act", opened=[0, 1], opened_this_turn=False)
    t = load_state(j, seed=0, num_players=3)
    assert [i["card"] for i in infos(t, "swap_joker")] == ["6D"]


# B.1-9 + B.1-10: the swap's natural and the freed joker both go to the table, so a player holding only the
# natural goes out: swap, place the joker, empty hand, no discard.
def test_going_out_by_a_joker_swap():
    table = OWN_R2 + [{"owner": 1, "kind": "run", "cards": ["5D", "JK(6D)", "7D"]},
                      {"owner": 1, "kind": "group", "cards": ["8C", "8D", "8H"]}]  # fmt: skip
    s = load(scenario([["6D"], ["2C"], ["KS"]], phase="act", table=table, opened=[0, 1], **final()))
    act(s, kind="swap_joker", card="6D")
    act(s, kind="place_joker", seat=0, meld=0)
    assert s.is_terminal()
    assert table_of(s, 0)[0] == ["10C", "10D", "10H", "JK(10S)"]  # the joker stands for the missing suit
    assert s.round_results[-1] == {"round": 2, "winner": 0, "reason": "out", "penalties": [0, 2, 10]}


# B.1-6 (c) "the chosen card must be put on the table this turn" - a joker swap puts it there too (B.1-9).
#   P0 opened earlier holds 3C; discard 2H 6D 9C; P1's run 5D JK(6D) 7D.
def test_deep_pickup_placed_by_a_joker_swap():
    table = OWN_R2 + [{"owner": 1, "kind": "run", "cards": ["5D", "JK(6D)", "7D"]},
                      {"owner": 1, "kind": "group", "cards": ["8C", "8D", "8H"]}]  # fmt: skip
    s = load(scenario([["3C"], [], []], discard=["2H", "6D", "9C"], table=table, opened=[0, 1]))
    assert pickups(s) == {(2, "6D")}
    act(s, kind="pickup", depth=2)
    assert kinds(s) == {"swap_joker"}
    act(s, kind="swap_joker", card="6D")
    act(s, kind="place_joker", seat=1, meld=0, end="low")
    assert table_of(s, 1)[0] == ["JK(4D)", "5D", "6D", "7D"]
    assert s.must_place == -1 and discards(s) == {"2H", "3C"}


# B.2-10 "discard blocked until it is on the table" with B.1-9: after a deep pickup, a joker swap may not leave the
# freed joker only the place the picked card needs (it would strand the card and the player).
#   P0 opened earlier (set 9C 9H 9S, run QH KH AH) holds 6D 3C; discard 2S 9D 4C; P1: run 5D JK(6D) 7D, set 8C 8D 8H.
#   After taking 9D the freed joker may go anywhere but on the 9s.
def test_deep_pickup_then_swap_keeps_the_picked_cards_place():
    table = [{"owner": 0, "kind": "group", "cards": ["9C", "9H", "9S"]},
             {"owner": 0, "kind": "run", "cards": ["QH", "KH", "AH"]},
             {"owner": 1, "kind": "run", "cards": ["5D", "JK(6D)", "7D"]},
             {"owner": 1, "kind": "group", "cards": ["8C", "8D", "8H"]}]  # fmt: skip
    s = load(scenario([["6D", "3C"], [], []], discard=["2S", "9D", "4C"], table=table, opened=[0, 1]))
    assert pickups(s) == {(2, "9D")}
    act(s, kind="pickup", depth=2)
    act(s, kind="swap_joker", card="6D")
    assert {(i["seat"], i["meld"], i["end"]) for i in infos(s, "place_joker")} == {
        (0, 1, "low"),
        (1, 0, "low"),
        (1, 0, "high"),
        (1, 1, None),
    }
    act(s, kind="place_joker", seat=1, meld=1)
    assert layoffs(s) == {("9D", 0, 0, None)} and discards(s) == set()
    act(s, kind="lay_off", card="9D", seat=0, meld=0)
    assert discards(s) == {"2S", "3C"}
    # 5 players: every other meld is closed, so the joker could only go on the 9s -> the swap is not offered
    run_c = ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC"]
    run_d = ["AD", "2D", "3D", "4D", "5D", "JK(6D)", "7D", "8D", "9D", "10D", "JD", "QD", "KD", "AD"]
    table5 = [{"owner": 0, "kind": "group", "cards": ["9C", "9H", "9S"]},
              {"owner": 0, "kind": "run", "cards": run_c},
              {"owner": 1, "kind": "run", "cards": run_d},
              {"owner": 1, "kind": "group", "cards": ["8C", "8D", "8H", "8S"]}]  # fmt: skip
    s = load(scenario([["6D", "3S"], [], [], [], []], discard=["KS", "9D", "2H"], table=table5, opened=[0, 1]))
    assert pickups(s) == {(2, "9D")}
    act(s, kind="pickup", depth=2)
    assert kinds(s) == {"lay_off"} and layoffs(s) == {("9D", 0, 0, None)}
    act(s, kind="lay_off", card="9D", seat=0, meld=0)
    assert kinds(s) == {"discard"}  # the 9s are full: the freed joker would have no place (no swap)


# ----------------------------------------------------------------------------------------------------------------
# B.1-10 Discard / going out
# ----------------------------------------------------------------------------------------------------------------


# B.1-10 "if the hand is empty (everything melded/laid off) the player goes out without discarding ... Round ends
# immediately." Source: "Гравець 'вибуває', якщо він виконав контракт цього раунду і зіграв усі свої карти. Якщо це
# сталося, роздача закінчується для всіх гравців". B.1-14 penalties of the others.
def test_going_out_by_laying_off_the_last_card():
    h1, h2 = ["KC", "AD", "7H"], ["JK", "2S", "10S", "QD"]
    s = load(scenario([["3S", "7S"], h1, h2], phase="act", table=OWN_R2 + P1_MELDS, opened=[0, 1], **final()))
    act(s, kind="lay_off", card="3S", seat=1, meld=1, end="low")
    assert s.phase == "act" and not s.is_terminal()
    act(s, kind="lay_off", card="7S", seat=1, meld=1, end="high")
    assert s.is_terminal()
    assert s.round_results == [{"round": 2, "winner": 0, "reason": "out", "penalties": [0, 32, 37]}]
    assert [0, pen(h1), pen(h2)] == [0, 32, 37]
    assert s.scores == [0, 32, 37] and s.winners() == [0]


# B.1-10 "Going out by discarding the last card is also allowed (r1-6)."
def test_going_out_by_discarding_the_last_card():
    h1, h2 = ["KC", "AD", "7H"], ["2S", "10S"]
    s = load(scenario([["3S", "9C"], h1, h2], phase="act", table=OWN_R2 + P1_MELDS, opened=[0, 1], **final()))
    act(s, kind="lay_off", card="3S", seat=1, meld=1, end="low")
    assert discards(s) == {"9C"}
    act(s, kind="discard", card="9C")
    assert s.is_terminal()
    assert s.round_results[-1] == {"round": 2, "winner": 0, "reason": "out", "penalties": [0, 32, 12]}


# B.1-10 going out on the opening turn: open, lay everything else off, no discard.
#   P0 round 1 draws KH:  7C 7D 7H 7S | 8C 8D 8H 8S | 5S 6S + KH  -> sets, then 7S 8S on them, 5S 6S on P1's spade
#   run 2S 3S 4S, KH on P2's set KC KD KS.
def test_going_out_on_the_opening_turn():
    h0 = ["7C", "7D", "7H", "7S", "8C", "8D", "8H", "8S", "5S", "6S"]
    table = [{"owner": 1, "kind": "run", "cards": ["2S", "3S", "4S"]},
             {"owner": 1, "kind": "group", "cards": ["QC", "QD", "QS"]},
             {"owner": 2, "kind": "group", "cards": ["KC", "KD", "KS"]},
             {"owner": 2, "kind": "group", "cards": ["JC", "JD", "JS"]}]  # fmt: skip
    s = load(scenario([h0, ["AC", "2C"], ["3C"]], round=1, table=table, opened=[1, 2], stock=["KH"], **final(1)))
    act(s, kind="draw_stock")
    act(s, kind="meld", cards=["7C", "7D", "7H"])
    act(s, kind="meld", cards=["8C", "8D", "8H"])
    for card, seat, meld, end in [("7S", 0, 0, None), ("8S", 0, 1, None), ("5S", 1, 0, "high"),
                                  ("6S", 1, 0, "high")]:  # fmt: skip
        act(s, kind="lay_off", card=card, seat=seat, meld=meld, end=end)
    assert hand(s, 0) == ["KH"] and not s.is_terminal()
    act(s, kind="lay_off", card="KH", seat=2, meld=0)
    assert s.is_terminal()
    assert s.round_results == [{"round": 1, "winner": 0, "reason": "out", "penalties": [0, 17, 3]}]


# B.1-10 with B.1-6(b): the discard top taken this turn may not be *discarded*, but it may be *laid off*, so a
# player whose whole hand can go on the table goes out even if the taken card can only follow another lay-off.
#   P0 opened earlier holds 3S; discard top 2S; P1's run 4S 5S 6S: take 2S, lay off 3S, then 2S -> out.
def test_taken_discard_may_be_laid_off_to_go_out():
    h1, h2 = ["KC"], ["9D"]
    s = load(scenario([["3S"], h1, h2], discard=["2S", "9H"], table=OWN_R2 + P1_MELDS, opened=[0, 1], **final()))
    act(s, kind="draw_discard")
    assert discards(s) == {"3S"}
    assert ("3S", 1, 1, "low") in layoffs(s)
    act(s, kind="lay_off", card="3S", seat=1, meld=1, end="low")
    assert discards(s) == set() and layoffs(s) == {("2S", 1, 1, "low")}
    act(s, kind="lay_off", card="2S", seat=1, meld=1, end="low")
    assert s.is_terminal()
    assert s.round_results[-1] == {"round": 2, "winner": 0, "reason": "out", "penalties": [0, 10, 9]}


# ----------------------------------------------------------------------------------------------------------------
# B.1-11 Round 7, B.2-9
# ----------------------------------------------------------------------------------------------------------------

R7 = ["AC", "2C", "3C", "4C", "5C", "5D", "6D", "7D", "8D", "9H", "10H", "JH"]


# B.1-11 "A player may lay down only by laying his entire hand at once as exactly 3 runs of 3 different suits, each
# >=3; no discard; this is going out." B.2-9 "make mandatory; no discard". Source: "Угода 7: 12 карт, 3
# послідовності" / "Сьомий раунд/роздача, як правило, вимагає злиття всіх карт одночасно, це означає, що злиття може
# бути більше, ніж 4 карти."
#   P0 round 7 holds AC-5C, 5D-8D, 9H-JH and draws QH: the whole hand as three runs.
def test_round_seven_goes_out_all_at_once():
    h1, h2 = ["KS", "2S", "JK"], ["AD", "4H"]
    s = load(scenario([R7, h1, h2], round=7, stock=["QH"], **final(7)))
    assert s.to_json()["rounds"] == [7]
    act(s, kind="draw_stock")
    assert kinds(s) == {"go_out", "discard"}  # no separate melds, no partial lay-down
    act(s, kind="go_out")
    assert s.is_terminal()
    assert table_of(s, 0) == [["AC", "2C", "3C", "4C", "5C"], ["5D", "6D", "7D", "8D"], ["9H", "10H", "JH", "QH"]]
    assert s.round_results == [{"round": 7, "winner": 0, "reason": "out", "penalties": [0, 27, 19]}]
    assert [pen(h1), pen(h2)] == [27, 19]


# B.1-11 "exactly 3 runs of 3 different suits": two runs of one suit, or four runs, never go out; B.1-11 "Otherwise
# draw and discard normally."
@pytest.mark.parametrize(
    "h0",
    [
        ["AC", "2C", "3C", "5C", "6C", "7C", "9H", "10H", "JH", "5D", "6D", "7D", "8D"],  # clubs twice
        ["AC", "2C", "3C", "5D", "6D", "7D", "9H", "10H", "JH", "2S", "3S", "4S", "5S"],  # four runs
        ["AC", "2C", "3C", "4C", "5C", "5D", "6D", "7D", "8D", "9H", "10H", "JH", "KH"],  # one stray card
    ],
)
def test_round_seven_only_three_runs_of_different_suits(h0):
    s = load(scenario([h0, [], []], round=7, phase="act"))
    assert kinds(s) == {"discard"}
    assert discards(s) == set(h0)


# B.1-11 with B.1-6(c): in round 7 a card can reach the table only by going out, so a deep pickup is offered only
# when it lets the player go out at once.
#   P0 round 7 holds R7; discard KH QH 3S: depth 2 (QH, with KH) completes 9H-KH -> offered; depth 3 (3S) not.
#   With 2S above the QH instead, taking QH also takes a stray 2S -> not offered.
def test_round_seven_deep_pickup_only_to_go_out():
    s = load(scenario([R7, ["4S"], ["6S"]], round=7, discard=["KH", "QH", "3S"], **final(7)))
    assert pickups(s) == {(2, "QH")}
    assert infos(s, "draw_discard") == [{"kind": "draw_discard", "card": "KH"}]
    t = s.clone()
    act(t, kind="draw_discard")  # KH without QH: no going out, a normal discard (not the KH)
    assert kinds(t) == {"discard"} and "KH" not in discards(t)
    act(s, kind="pickup", depth=2)
    assert kinds(s) == {"go_out"}
    act(s, kind="go_out")
    assert table_of(s, 0)[2] == ["9H", "10H", "JH", "QH", "KH"]
    assert s.round_results[-1] == {"round": 7, "winner": 0, "reason": "out", "penalties": [0, 4, 6]}
    s = load(scenario([R7, [], []], round=7, discard=["2S", "QH", "3S"]))
    assert pickups(s) == set()


# ----------------------------------------------------------------------------------------------------------------
# B.1-12 No buying
# ----------------------------------------------------------------------------------------------------------------


# B.1-12 "No buying out of turn." The action table has no buy/pass range; after a stock draw the active player
# continues at once, nobody else is asked; a scenario in a buy window is refused.
def test_no_buying():
    s = new_state(PROFILE, seed=3, num_players=4)
    assert s.rules.buying is False
    assert set(s.layout.ranges) == {
        "draw_stock", "draw_discard", "pickup", "meld", "lay_off", "swap_joker", "place_joker", "discard", "go_out"
    }  # fmt: skip
    p = s.current_player
    act(s, kind="draw_stock")
    assert s.phase == "act" and s.current_player == p
    with pytest.raises(ScenarioError):
        load(scenario([["2C"], ["3C"], ["4C"]], phase="buy", discard=["5C"]))


# ----------------------------------------------------------------------------------------------------------------
# B.1-13 Stock exhaustion, B.2-3, B.2-11, engine turn cap
# ----------------------------------------------------------------------------------------------------------------


# B.1-13 "as A.1-14 (reshuffle all but top; if impossible the round ends with no winner, all score hands)"; A.1-14
# "Whenever a stock card is needed ... and the stock is empty: shuffle all discards except the current top into a
# new stock." B.2-11 "Stock exhaustion unspecified -> seed-000 rule".
def test_empty_stock_reshuffles_all_discards_but_the_top():
    scen = scenario([["2C", "3D"], [], []], stock=[], discard=["KH", "5S", "9D"])
    scen["hands"][1] = leftover(scen)  # every other card is in P1's hand, so the piles are exactly as written
    s = load(scen, full=False)
    act(s, kind="draw_stock")
    j = s.to_json()
    assert j["discard"] == ["KH"]
    assert len(j["stock"]) == 1 and {j["stock"][0], *(set(hand(s, 0)) - {"2C", "3D"})} == {"5S", "9D"}
    assert len(hand(s, 0)) == 3 and s.phase == "act"
    s.check_invariants()


# B.1-13 "if impossible the round ends with no winner, all score hands"; A.2-10 "only when a stock card is actually
# required; an active player facing empty stock + 1-card discard may still take that discard."
def test_no_stock_and_one_discard_ends_the_round_without_winner():
    scen = scenario([["2C", "KD"], [], ["JK", "AS"]], stock=[], discard=["9H"], scores=[1, 2, 3], **final())
    scen["hands"][1] = leftover(scen)
    s = load(scen, full=False)
    assert {i["kind"] for i in infos(s)} == {"draw_stock", "draw_discard"}
    t = s.clone()
    act(t, kind="draw_discard")
    assert hand(t, 0) == srt(["2C", "KD", "9H"]) and t.phase == "act"
    act(s, kind="draw_stock")
    assert s.is_terminal()
    p1 = pen(scen["hands"][1])
    assert s.round_results == [{"round": 2, "winner": None, "reason": "exhausted", "penalties": [12, p1, 30]}]
    assert s.scores == [13, 2 + p1, 33]


# B.2-3 "4 players, rounds 5-7: stock only 4 -> legal; frequent reshuffles (test it)."
def test_four_players_late_round_reshuffles_the_four_card_stock():
    s = new_state(PROFILE, seed=7, num_players=4, rounds=(5,))
    assert len(s.stock) == 4 and len(s.discard) == 1
    for k in range(1, 5):
        quiet_turn(s)
        assert (len(s.stock), len(s.discard)) == (4 - k, 1 + k)
    top = s.discard[-1]
    act(s, kind="draw_stock")  # five discards: the top stays, four are shuffled into a stock, one is drawn
    assert (len(s.stock), len(s.discard)) == (3, 1) and s.discard == [top]
    s.check_invariants()
    s.apply(s.find_action(**infos(s, "discard")[0]))
    for _ in range(8):  # and again, and again
        quiet_turn(s)
        s.check_invariants()
    assert s.round == 5 and s.round_results == [] and s.hand_size == [12, 12, 12, 12]


# Engine turn cap (docs/rules/contract_gamerules.md, "Engine limits"): "reaching it ends the round like a round without a winner
# (penalty profiles: everyone scores the hand they hold)". B.1-13 / README: rounds cannot be guaranteed to end.
def test_turn_cap_ends_the_round_without_winner():
    s = new_state(PROFILE, seed=2, num_players=3, rounds=(1, 2), turn_cap=3)
    for _ in range(3):
        quiet_turn(s)
    assert s.round == 2 and s.turn == 1
    res = s.round_results[0]
    assert res["winner"] is None and res["reason"] == "turn_cap" and res["round"] == 1
    assert all(p > 0 for p in res["penalties"]) and s.scores == res["penalties"]


# ----------------------------------------------------------------------------------------------------------------
# B.1-14 Scoring, B.2-12
# ----------------------------------------------------------------------------------------------------------------


# B.1-14 "Cards left in hand: 2-10 pip, J/Q/K 10, A 15, JK 15. Lowest total after 7 rounds wins; ties share (our
# resolution)." Source: "Лицьові карти (K, Q, J): 10 балів за кожну / Тузи: 15 балів за кожну / Жартівник: 15 балів /
# Номерні картки: Номінальна вартість ... Переможцем вважається гравець, який набрав найменшу кількість очок."
# B.2-12 "Ties unspecified -> shared win."
def test_scoring_and_shared_win():
    h1 = ["JK", "AC", "KD", "QS", "JH", "10S", "2D"]  # 15 + 15 + 10 + 10 + 10 + 10 + 2 = 72
    h2 = ["9H", "3S"]  # 12
    s = load(scenario([["2H"], h1, h2], phase="act", table=OWN_R2 + P1_MELDS, opened=[0, 1], scores=[84, 12, 90],
                      **final()))  # fmt: skip
    assert pen(h1) == 72 and pen(h2) == 12
    assert kinds(s) == {"discard"}
    act(s, kind="discard", card="2H")  # P0 goes out by discarding his last card
    assert s.is_terminal() and s.current_player == -1 and s.legal_actions() == []
    assert s.round_results[-1]["penalties"] == [0, 72, 12]
    assert s.scores == [84, 84, 102]
    assert s.winners() == [0, 1]
    assert s.returns() == [-84.0, -84.0, -102.0]


# ----------------------------------------------------------------------------------------------------------------
# Illegal actions and bad scenarios
# ----------------------------------------------------------------------------------------------------------------


# An action the rules do not allow raises IllegalActionError and leaves the state unchanged: a meld or discard in
# the draw phase, a lay-off before opening, an id outside the table, a non-integer, anything after the game ended.
def test_illegal_actions_leave_the_state_unchanged():
    h0 = ["7C", "7D", "7H", "9C", "9D", "9S", "KD", "4C", "2H", "3S"]
    s = load(scenario([h0, [], []], round=1, table=P1_MELDS, opened=[1], **final(1)))
    before = s.to_json()
    lay = s.layout
    meld_797 = next(a for a in range(lay.MELD, lay.MELD_RUN) if s.action_info(a)["cards"] == ["7C", "7D", "7H"])
    bad = [meld_797, lay.DISCARD + parse_card("KD"), lay.GO_OUT, lay.num_actions, -3, "x", 1.5, True]
    for a in bad:
        with pytest.raises(IllegalActionError):
            s.apply(a)
    assert s.to_json() == before
    act(s, kind="draw_stock")
    before = s.to_json()
    layoff_3s = lay.lay_off(parse_card("3S"), lay.slot(0, 1, 1), 0)
    assert s.action_info(layoff_3s) == {"kind": "lay_off", "card": "3S", "seat": 1, "meld": 1, "end": "low"}
    with pytest.raises(IllegalActionError):  # not opened yet
        s.apply(layoff_3s)
    with pytest.raises(IllegalActionError):  # nothing was taken from the discard pile
        s.apply(lay.PICKUP)
    assert s.to_json() == before
    act(s, kind="meld", cards=["7C", "7D", "7H"])
    act(s, kind="meld", cards=["9C", "9D", "9S"])
    s.apply(layoff_3s)  # now it is legal (same turn as the opening)
    assert table_of(s, 1)[1] == ["3S", "4S", "5S", "6S"]
    act(s, kind="discard", card="KD")
    assert s.active == 1
    # the game ends: nothing is legal any more
    s2 = load(scenario([["2H"], ["KC"], ["9D"]], phase="act", table=OWN_R2 + P1_MELDS, opened=[0, 1], **final()))
    act(s2, kind="discard", card="2H")
    assert s2.is_terminal()
    with pytest.raises(IllegalActionError):
        s2.apply(s2.layout.DRAW_STOCK)


# Malformed or impossible scenarios are refused with ScenarioError (B.2-1/B.2-2 player counts, one card of each kind
# in the 53-card pack, melds the profile does not allow, a must_place card that is not in hand, unknown keys).
def test_bad_scenarios():
    good = scenario([["2C"], ["3C"], ["4C"]])
    load(good)
    with pytest.raises(ScenarioError):  # the dict and the rules disagree on the player count
        load_state(complete(good), seed=0, num_players=4)
    with pytest.raises(ScenarioError):  # six players are out of scope (B.2-2)
        load_state({**good, "num_players": 6, "hands": [[]] * 6}, seed=0, num_players=6)
    with pytest.raises(ScenarioError):  # one 7H in the 53-card pack
        load(scenario([["7H", "7H"], [], []]))
    with pytest.raises(ScenarioError):  # two jokers only with 5 players
        load(scenario([["JK"], ["JK"], []]))
    load(scenario([["JK", "7H"], ["JK", "7H"], [], [], []]))  # the 106-card pack has them
    with pytest.raises(ScenarioError):
        load(scenario([["2C"], ["3C"], ["4C"]], must_place="9D"))
    with pytest.raises(ScenarioError):
        load(scenario([["2C"], ["3C"], ["4C"]], buying=True))  # not a scenario key
    with pytest.raises(ScenarioError):  # a seat with melds must have opened
        load(scenario([["2C"], ["3C"], ["4C"]], table=P1_MELDS))
    with pytest.raises(ScenarioError):
        load_state({**good, "profile": "continental_x"}, seed=0, num_players=3)
    with pytest.raises(ValueError):
        new_state(PROFILE, seed=0, num_players=3, rounds=(8,))


# ----------------------------------------------------------------------------------------------------------------
# Environment (smoke): the PettingZoo env of the profile plays by these rules
# ----------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 5])
def test_env_masks_match_the_engine(n):
    import numpy as np

    from rummy_env import contract_gamerules_v0

    env = contract_gamerules_v0.raw_env(num_players=n)
    env.reset(seed=1)
    st = env._state
    assert env.action_space(env.agent_selection).n == st.layout.num_actions
    assert "buy" not in st.layout.ranges and (st.rules.decks, st.rules.jokers) == ((2, 2) if n == 5 else (1, 1))
    rng = np.random.default_rng(0)
    for _ in range(150):
        if not env.agents:
            break
        mask = env.observe(env.agent_selection)["action_mask"]
        assert sorted(np.flatnonzero(mask).tolist()) == st.legal_actions()
        env.step(int(rng.choice(np.flatnonzero(mask))))
        st = env._state


# ----------------------------------------------------------------------------------------------------------------
# B.1-3 A set's joker names its suit; rule switches of document 003 (each tested both ways)
# ----------------------------------------------------------------------------------------------------------------

OTHER_R2 = [
    {"owner": 1, "kind": "group", "cards": ["9H", "9S", "JK(9D)"]},
    {"owner": 1, "kind": "run", "cards": ["4S", "5S", "6S"]},
]


# B.1-3 "(a joker must declare a suit absent from the set)". Source: "Гравці повинні вказати масть і ранг карти,
# якою вони хочуть її замінити." The joker of 9H 9S JK(9D) is the 9 of diamonds: only 9C may still join the set.
# An older dump's JK(9) (rank only) takes the first missing suit in the order C D H S, here clubs.
#   P0 opened earlier (OWN_R2) holds 9C 9D 2C; P1 has 9H 9S JK(9D) and 4S 5S 6S.
def test_set_joker_stands_for_its_declared_suit():
    s = load(scenario([["9C", "9D", "2C"], [], []], phase="act", table=OWN_R2 + OTHER_R2, opened=[0, 1]))
    assert {c for c, seat, meld, _ in layoffs(s) if (seat, meld) == (1, 0)} == {"9C"}
    assert table_of(s, 1)[0] == ["9H", "9S", "JK(9D)"]
    assert load_state(s.to_json(), num_players=3).to_json() == s.to_json()
    act(s, kind="lay_off", card="9C", seat=1, meld=0)
    assert table_of(s, 1)[0] == ["9H", "9S", "JK(9D)", "9C"] and layoffs(s) == set()
    old = copy.deepcopy(OTHER_R2)
    old[0]["cards"] = ["9H", "9S", "JK(9)"]
    s = load(scenario([["9C", "9D", "2C"], [], []], phase="act", table=OWN_R2 + old, opened=[0, 1]))
    assert table_of(s, 1)[0] == ["9H", "9S", "JK(9C)"]
    assert {c for c, seat, meld, _ in layoffs(s) if (seat, meld) == (1, 0)} == {"9D"}
    for bad in (["9H", "9S", "JK(9H)"], ["9H", "JK(9D)", "JK(9D)"], ["9H", "9S", "JK(8D)"]):
        with pytest.raises(ScenarioError):
            load(scenario([["9C"], [], [], [], []], table=[{"owner": 1, "kind": "group", "cards": bad}], opened=[1]))


# B.1-3 with B.1-7: the meld action names the suits of the set's jokers, so each choice is its own action. Five
# players (two decks, two jokers): 7C JK JK is a set of 7s in three ways; the suit left free decides which natural
# 7 may join afterwards (lay-offs are allowed on the opening turn, B.2-7).
#   P0 round 1 (5 players) after drawing: 7C JK JK | 9C 9D 9S | 7H KD QH 4C 2H
@pytest.mark.parametrize("jokers,seven_h_fits", [(["JK(7D)", "JK(7S)"], True), (["JK(7D)", "JK(7H)"], False)])
def test_set_joker_suits_are_part_of_the_meld_action(jokers, seven_h_fits):
    h0 = ["7C", "JK", "JK", "9C", "9D", "9S", "7H", "KD", "QH", "4C", "2H"]
    s = load(scenario([h0, [], [], [], []], round=1, phase="act"))
    sevens = {cards for kind, cards in melds_offered(s) if "7C" in cards and "7H" not in cards}
    assert sevens == {
        ("7C", "JK(7D)", "JK(7H)"),
        ("7C", "JK(7D)", "JK(7S)"),
        ("7C", "JK(7H)", "JK(7S)"),
    }
    a = s.find_action(kind="meld", cards=["7C", *jokers])
    assert s.action_info(a) == {"kind": "meld", "meld": "group", "cards": ["7C", *jokers]}
    s.apply(a)
    act(s, kind="meld", cards=["9C", "9D", "9S"])
    assert table_of(s, 0)[0] == ["7C", *jokers]
    assert (("7H", 0, 0, None) in layoffs(s)) is seven_h_fits
    # the declaration survives a JSON round trip
    assert load_state(s.to_json(), num_players=5).to_json()["table"][0]["cards"] == ["7C", *jokers]


# B.1-3 with B.1-8: a joker laid off on a set stands for the suit the set lacks (a set on the table has at least 3
# of its 4 suits, so that suit is the only one).
#   P0 opened earlier (OWN_R2) holds JK 9C 2C; P1 has 9H 9S 9D.
def test_joker_laid_off_on_a_set_takes_the_missing_suit():
    table = OWN_R2 + [{"owner": 1, "kind": "group", "cards": ["9H", "9S", "9D"]}, OTHER_R2[1]]
    s = load(scenario([["JK", "2C", "3C"], ["9C"], []], phase="act", table=table, opened=[0, 1]))
    act(s, kind="lay_off", card="JK", seat=1, meld=0)
    assert table_of(s, 1)[0] == ["9H", "9S", "9D", "JK(9C)"]


# B.2-7 "Lay-off timing: only the joker clause requires 'previous turn', so same-turn lay-off is allowed" onto any
# meld (B.1-8 "onto any meld"), another seat's included. ``layoff_on_opening_turn=False`` waits for the next turn.
#   P0 round 2 holds 10C 10D 10H | QH KH AH | 3S 2C 9C; P1 has 9H 9S JK(9D) and 4S 5S 6S.
@pytest.mark.parametrize("allowed", [True, False])
def test_lay_off_on_another_seats_meld_on_the_opening_turn(allowed):
    h0 = ["10C", "10D", "10H", "QH", "KH", "AH", "3S", "2C", "9C"]
    s = load(scenario([h0, [], []], phase="act", table=OTHER_R2, opened=[1]), layoff_on_opening_turn=allowed)
    assert layoffs(s) == set()  # not before the opening
    act(s, kind="meld", cards=["10C", "10D", "10H"])
    act(s, kind="meld", cards=["QH", "KH", "AH"])
    want = {("3S", 1, 1, "low"), ("9C", 1, 0, None)}
    assert (want <= layoffs(s)) is allowed and (layoffs(s) & want == set()) is not allowed
    if allowed:
        act(s, kind="lay_off", card="3S", seat=1, meld=1, end="low")
        assert table_of(s, 1)[1] == ["3S", "4S", "5S", "6S"] and hand(s, 0) == srt(["2C", "9C"])


# ``extra_melds_after_opening``. 003 lists melding from the hand as a step of every turn: "Гравці можуть зливатися
# комбінації карт у своїй руці, виклавши їх на стіл" (B.2-6 adopts "after opening no new melds"). With the switch a
# player who is down may lay a new set or run (of any kind) whenever he may lay off, the opening turn included.
#   P0 opened earlier (OWN_R2) holds 5C 5D 5H 2C 3S; P1 has 9H 9S JK(9D) and 4S 5S 6S.
@pytest.mark.parametrize("allowed", [False, True])
def test_extra_melds_after_opening(allowed):
    sc = scenario([["5C", "5D", "5H", "2C", "4C"], [], []], phase="act", table=OWN_R2 + OTHER_R2, opened=[0, 1])
    s = load(sc, extra_melds_after_opening=allowed)
    if not allowed:
        assert melds_offered(s) == set() and s.layout.max_melds == 3
        return
    assert melds_offered(s) == {("group", ("5C", "5D", "5H"))}
    assert s.layout.max_melds == 53 // 3  # a seat may hold as many melds as the shoe can make
    act(s, kind="meld", cards=["5C", "5D", "5H"])
    assert table_of(s, 0)[2] == ["5C", "5D", "5H"] and hand(s, 0) == srt(["2C", "4C"])
    assert s.phase == "act" and discards(s) == {"2C", "4C"} and melds_offered(s) == set()
    # on the opening turn too, right after the contract (B.2-7 timing of lay-offs)
    h0 = ["10C", "10D", "10H", "QH", "KH", "AH", "5C", "5D", "5H", "2C"]
    s = load(scenario([h0, [], []], phase="act", table=OTHER_R2, opened=[1]), extra_melds_after_opening=True)
    act(s, kind="meld", cards=["10C", "10D", "10H"])
    assert melds_offered(s) == {("run", ("AH", "KH", "QH"))}  # the opening owes a run: no second set yet
    act(s, kind="meld", cards=["QH", "KH", "AH"])
    assert ("group", ("5C", "5D", "5H")) in melds_offered(s)
    act(s, kind="meld", cards=["5C", "5D", "5H"])
    act(s, kind="discard", card="2C")
    assert s.round_results[-1]["winner"] == 0


# ``swap_only_others_jokers``. 003: "якщо інший гравець використовує джокер в послідовності, щоб замінити карту, яку
# він має на руці ... він може обміняти ці карти і взяти джокер" - literally only a joker another player placed
# (B.2-8 adopts any run, own too). The engine records who placed each joker of a run (JSON ``placed_by``).
#   5 players (two jokers). P0 opened earlier holds KH 6D 2C 9S; P0 has 10C 10D 10H and QH JK(KH) AH (own joker);
#   P1 has 5D JK(6D) 7D (P1's joker) and 8C 8D 8H.
@pytest.mark.parametrize("only_others", [False, True])
def test_swap_only_jokers_placed_by_another_player(only_others):
    table = [{"owner": 0, "kind": "group", "cards": ["10C", "10D", "10H"]},
             {"owner": 0, "kind": "run", "cards": ["QH", "JK(KH)", "AH"]},
             {"owner": 1, "kind": "run", "cards": ["5D", "JK(6D)", "7D"]},
             {"owner": 1, "kind": "group", "cards": ["8C", "8D", "8H"]}]  # fmt: skip
    sc = scenario([["KH", "6D", "2C", "9S"], [], [], [], []], phase="act", table=table, opened=[0, 1])
    s = load(sc, swap_only_others_jokers=only_others)
    assert {i["card"] for i in infos(s, "swap_joker")} == ({"6D"} if only_others else {"KH", "6D"})
    act(s, kind="swap_joker", card="6D", seat=1, meld=0)
    act(s, kind="place_joker", seat=1, meld=0, end="high")
    j = s.to_json()
    assert j["table"][2] == {"owner": 1, "kind": "run", "cards": ["5D", "6D", "7D", "JK(8D)"], "placed_by": [0]}
    assert load_state(j, num_players=5, swap_only_others_jokers=only_others).to_json() == j
    # P0 placed JK(8D) himself: with the switch he may not take it back with an 8D, another player may
    j.update(hands=[["8D", "2C", "9S"], ["3C"], [], [], []], phase="act", opened=[0, 1], taken_discard=None)
    del j["stock"], j["discard"], j["known"]
    t = load_state(j, seed=0, num_players=5, swap_only_others_jokers=only_others)
    assert bool(infos(t, "swap_joker")) is not only_others
    j.update(hands=[["2C", "9S"], ["8D", "3C"], [], [], []], active=1, current_player=1, turn=j["turn"] + 1)
    t = load_state(j, seed=0, num_players=5, swap_only_others_jokers=only_others)
    assert [i["card"] for i in infos(t, "swap_joker")] == ["8D"]
    with pytest.raises(ScenarioError):  # one seat per joker, seats of the table
        load_state({**j, "table": [{**j["table"][2], "placed_by": [7]}]}, seed=0, num_players=5)


# ``final_round_discard``. 003: "Сьомий раунд/роздача, як правило, вимагає злиття всіх карт одночасно" ("as a rule",
# B.2-9 makes it mandatory with no discard); the general rule (B.1-10) lets a player lay down and discard his last
# card. With the switch ``go_out`` lays the three runs and discards the one card left over.
#   P0 round 7 holds AC-5C 5D-8D 9H-JH and KH (a stray card).
@pytest.mark.parametrize("allowed", [False, True])
def test_final_round_lay_down_and_discard_the_last_card(allowed):
    h0 = [*R7, "KH"]
    s = load(scenario([h0, ["4S"], ["6S"]], round=7, phase="act", **final(7)), final_round_discard=allowed)
    assert kinds(s) == ({"go_out", "discard"} if allowed else {"discard"})
    if not allowed:
        return
    assert s.describe_action(s.find_action(kind="go_out")) == "go out: lay the hand as runs and discard K♥"
    act(s, kind="go_out")
    j = s.to_json()
    assert s.is_terminal() and j["discard"][0] == "KH" and j["hands"][0] == []
    assert table_of(s, 0) == [["AC", "2C", "3C", "4C", "5C"], ["5D", "6D", "7D", "8D"], ["9H", "10H", "JH"]]
    assert s.round_results[-1] == {"round": 7, "winner": 0, "reason": "out", "penalties": [0, 4, 6]}
    # the card taken from the discard pile may not be the one discarded (B.1-6 (b)): no going out with it
    s = load(scenario([R7, [], []], round=7, discard=["2S"]), final_round_discard=True)
    act(s, kind="draw_discard")
    assert kinds(s) == {"discard"} and "2S" not in discards(s)
    s = load(scenario([R7, [], []], round=7, stock=["2S"]), final_round_discard=True)
    act(s, kind="draw_stock")
    assert kinds(s) == {"go_out", "discard"}
