"""Scripted-hand tests of the ``continental`` profile, one (or more) per rule of document 004.

Each test rigs a position with ``load_state`` (or deals with ``new_state``), plays actions through ``find_action``
and checks exact outcomes. The comment above each test quotes the rule it checks: the English specification
(docs/rules/continental.md, "Profile continental", items C.1-n / C.2-n) and, where it helps, the Russian source
sentence (the original rule text, by its section number).

Scenario conventions: seats P0..P3 clockwise, piles listed top first, dealer P3 so P0 (left of the dealer) moves
first. ``scenario()`` fills the seats the test does not care about with 15-card hands that cannot go out (no
wilds, checked), and puts every card of the 106-card shoe the test does not place at the bottom of the stock (or
of the discard pile), so the tops of both piles are exactly what the test wrote.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import partial
from typing import Any

import numpy as np
import pytest
import scenarios
from scenarios import act, assert_rejected, declaring_discards, hand, idle_turn, kinds, names
from scenarios import continental_scenario as scenario

from rummy_env import continental_v0
from rummy_env.core.cards import JOKER, NUM_KINDS, Shoe, card_str, counts_of, parse_card, parse_cards
from rummy_env.engine import ScenarioError, load_state, new_state
from rummy_env.engine.common import make_rng, shuffled
from rummy_env.engine.continental import LAYOUT
from rummy_env.engine.continental import load_state as load_continental
from rummy_env.rules import get_rules
from rummy_env.rules.continental_hand import can_go_out

# ----------------------------------------------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------------------------------------------

#: section 08 of the document: "3♣–4♣–5♣, 6♠–7♠–8♠, 9♥–10♥–J♥, Q♦–K♦–A♦ и 9♣–10♣–J♣"
EX08 = "3C 4C 5C 6S 7S 8S 9H 10H JH QD KD AD 9C 10C JC"
EX08_MELDS = [["3C", "4C", "5C"], ["6S", "7S", "8S"], ["9H", "10H", "JH"], ["QD", "KD", "AD"], ["9C", "10C", "JC"]]


#: the scenarios here are complete already (``continental_scenario``), and some are wrong on purpose
load = partial(scenarios.load, full=False)


def valid(text: str) -> bool:
    return can_go_out(counts_of(parse_cards(text)))


# ----------------------------------------------------------------------------------------------------------------
# C.1-1 players and deck
# ----------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [4, 5])
def test_shoe_is_two_decks_and_two_jokers(n):
    # C.1-1: "4–5, individual. 2×52 + 2 JK = 106. Wild: all eight 2s and both jokers; everything else natural."
    # 01: "используйте две колоды 52 и всего 2 джокера: 106 карт"
    st = new_state("continental", seed=3, num_players=n, rounds=1)
    total = Counter()
    for p in range(n):
        total.update(st.hand_cards(p))
    total.update(st.stock)
    total.update(st.discard)
    assert sum(total.values()) == 106
    assert all(total[k] == 2 for k in range(52)) and total[JOKER] == 2
    st.check_invariants()


@pytest.mark.parametrize("n", [3, 6])
def test_player_count_outside_4_5_rejected(n):
    # C.1-1: "4–5, individual."
    with pytest.raises(ValueError):
        new_state("continental", seed=0, num_players=n)


# ----------------------------------------------------------------------------------------------------------------
# C.1-2 the deal
# ----------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "seed"), [(4, 0), (4, 11), (5, 7)])
def test_deal_in_packets_of_three_from_dealers_left(n, seed):
    # C.1-2: "Shuffle, cut, deal 15 each face down in packets of 3. Next card face up = discard; rest stock: 4p
    # stock 45 + discard 1 (verified 106−60−1); 5p 30 + 1. Left of dealer plays first."
    # 02: "сдайте каждому по 15 закрытых карт пакетами по 3 ... Слева от сдающего первый ход. В начале при 4
    # игроках в запасе 45 карт и ещё 1 в сбросе."
    st = new_state("continental", seed=seed, num_players=n, rounds=1)
    # replay the engine's one generator: first dealer, then the shuffle
    rng = make_rng(seed)
    dealer = int(rng.integers(n))
    cards = shuffled(rng, Shoe(2, 2).kinds())
    assert st.dealer == dealer
    expected: list[list[int]] = [[] for _ in range(n)]
    i = 0
    for _packet in range(5):
        for j in range(n):
            seat = (dealer + 1 + j) % n  # from the dealer's left, clockwise
            expected[seat] += cards[i : i + 3]
            i += 3
    assert i == 15 * n
    for p in range(n):
        assert st.hand_cards(p) == sorted(expected[p])
    assert st.discard == [cards[i]]
    assert st.to_json()["stock"] == [card_str(k) for k in cards[i + 1 :]]  # top first = next card dealt
    assert len(st.stock) == {4: 45, 5: 30}[n] and len(st.discard) == 1
    # one card at a time would have dealt differently
    single = [sorted(cards[j : 15 * n : n]) for j in range(n)]
    assert any(sorted(expected[(dealer + 1 + j) % n]) != single[j] for j in range(n))
    assert st.current_player == (dealer + 1) % n
    assert st.phase == "draw" and st.turns_taken == [0] * n


def test_first_dealer_is_random():
    # C.1-2: "First dealer random"
    dealers = {new_state("continental", seed=s, rounds=1).dealer for s in range(40)}
    assert dealers == {0, 1, 2, 3}


def test_dealer_passes_left_after_a_win_and_after_drawn_deals():
    # C.1-2: "Next deal's dealer = left of previous dealer (also after a drawn deal)." C.2-4: Bicycle's "winner
    # deals next" is not followed. 06: "сдача ничейная и очередь сдавать переходит дальше"
    data = scenario({1: EX08}, stock="KS QS", dealer=3, deals=3)  # P0 moves first, P1 goes out
    st = load(data, turn_cap=4)
    idle_turn(st)
    assert st.current_player == 1
    act(st, kind="draw_stock")
    act(st, kind="discard_declare", card="QS")
    assert st.round_results[-1]["winner"] == 1
    # not the winner P1 but P0 (left of the old dealer P3) deals; P1, left of P0, moves first
    assert st.round == 2 and st.dealer == 0 and st.current_player == 1
    assert st.turns_taken == [0, 0, 0, 0] and all(st.hand_size[p] == 15 for p in range(4))
    assert len(st.stock) == 45 and len(st.discard) == 1
    # deal 2 is drawn by the turn cap; the deal still passes left
    for _ in range(4):
        idle_turn(st)
    assert st.round_results[-1]["reason"] == "turn_cap"
    assert st.round == 3 and st.dealer == 1 and st.current_player == 2


def test_dealer_passes_left_after_exhausted_deal():
    # C.1-7 + C.1-2: a deal drawn by exhaustion ("nothing to recycle") still passes the deal left.
    st = new_state("continental", seed=5, rounds=2, **TINY)
    d = st.dealer
    act(st, kind="draw_stock")
    assert st.round_results[-1]["reason"] == "exhausted"
    assert st.round == 2 and st.dealer == (d + 1) % 4 and st.current_player == (d + 2) % 4


# ----------------------------------------------------------------------------------------------------------------
# C.1-3 / C.1-4 runs only, the three patterns (checked through the engine: the first-turn declaration is offered
# exactly when the dealt 15 go out)
# ----------------------------------------------------------------------------------------------------------------

HANDS = [
    # (hand, goes out, what it shows)
    (EX08, True, "3+3+3+3+3 and Q-K-A ace high (section 08)"),
    ("3C 3D 3H 6C 6D 6H 9C 9D 9H QC QD QH KS KD KH", False, "groups only: runs only, no groups"),
    ("7C 7D 7H JC QC KC JD QD KD JH QH KH 3S 4S 5S", False, "three 7s never go out"),
    ("AC 2C 3C 6S 7S 8S 9H 10H JH QD KD AD 9C 10C JC", True, "A-2-3 ace low (2 at its own place)"),
    ("QS KS AS 2S 3C 4C 5C 6C 3D 4D 5D 6D 9H 10H JH", True, "J(2S)-Q-K-A ace high"),
    ("KS AS 2S 3S 3C 4C 5C 6C 3D 4D 5D 6D 9H 10H JH", False, "K-A-2-3 wrap forbidden"),
    ("3C 4C 5C 6C 3D 4D 5D 6D 3H 4H 5H 6H 3S 4S 5S", True, "4+4+4+3"),
    ("3C 4C 5C 6C 7C 3D 4D 5D 6D 3H 4H 5H 3S 4S 5S", True, "5+4+3+3"),
    ("3C 4C 5C 6C 7C 3D 4D 5D 6D 7D 3H 4H 5H 6H 7H", False, "5+5+5 is not a pattern"),
    ("3C 4C 5C 6C 7C 8C 3D 4D 5D 6D 7D 3H 4H 5H 6H", True, "a 6-stretch only as 3+3 (5+4+3+3)"),
    ("5H 6H 7H 5H 6H 7H 4H 8H 9H 10H 9C 10C JC QC KC", True, "same-suit runs overlapping (C.2-9)"),
    ("3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH 3S 4S 5S", True, "same-suit runs adjacent (C.2-9)"),
    ("5H 5H 6H 7H 8C 9C 10C JC QC 3D 4D 5D 6D 7D 8D", False, "two 5H never in one run"),
    ("3C JK 5C 6S 2H 8S 9H 10H JH QD KD 2D 9C 10C JC", True, "2s of any suit and jokers are wild"),
    ("AS 2S 3S 6S 7S 8S 9H 10H JH QD KD 3D 9C 10C JC", False, "Q-K-3 of diamonds is no run"),
]


@pytest.mark.parametrize(("text", "ok", "why"), HANDS, ids=[h[2] for h in HANDS])
def test_going_out_shapes(text, ok, why):
    # C.1-3: "Runs only (no groups): ≥3 consecutive positions of one suit, ace low or high, no K-A-2 wrap. ...
    # No card in two runs; no two cards at one position. Same-suit runs may be adjacent or overlap."
    # C.1-4: "Exactly 15 cards split as 3+3+3+3+3, 4+4+4+3 or 5+4+3+3 (so no run >5)."
    # 03: "Туз допускается внизу либо вверху, но переход K–A–2 запрещён ... 3+3+3+3+3; 4+4+4+3; 5+4+3+3"
    st = load(scenario({0: text}, turns_taken=[0, 0, 0, 0]))
    assert ("declare" in kinds(st)) is ok, why
    assert valid(text) is ok
    if ok:
        act(st, kind="declare", draw=False)
        res = st.round_results[-1]
        assert res["winner"] == 0
        lengths = sorted(len(m) for m in res["melds"])
        assert sum(lengths) == 15
        assert tuple(sorted(lengths, reverse=True)) in {(3, 3, 3, 3, 3), (4, 4, 4, 3), (5, 4, 3, 3)}


def test_melds_of_a_six_stretch_are_cut():
    # C.1-4: "(so no run >5)": 3C..8C goes out as 3C-4C-5C + 6C-7C-8C.
    st = load(scenario({0: "3C 4C 5C 6C 7C 8C 3D 4D 5D 6D 7D 3H 4H 5H 6H"}, turns_taken=[0] * 4))
    act(st, kind="declare", draw=False)
    melds = sorted(st.round_results[-1]["melds"])
    assert melds == sorted(
        [["3C", "4C", "5C"], ["6C", "7C", "8C"], ["3D", "4D", "5D", "6D", "7D"], ["3H", "4H", "5H", "6H"]]
    )
    assert get_rules("continental").patterns == ((3, 3, 3, 3, 3), (4, 4, 4, 3), (5, 4, 3, 3))


def test_wilds_declare_their_positions_in_the_melds():
    # C.1-3: "Each wild's position declared. ... A 2 may be declared at its own position"
    st = load(scenario({0: "3C JK 5C 6S 2H 8S 9H 10H JH QD KD 2D 9C 10C JC"}, turns_taken=[0] * 4))
    act(st, kind="declare", draw=False)
    melds = st.round_results[-1]["melds"]
    # wilds are fungible: which of JK / 2H / 2D sits where is the engine's choice, the positions are not
    shapes = sorted([re.sub(r"^(JK|2[CDHS])\(", "*(", c) for c in m] for m in melds)
    assert shapes == sorted(
        [["3C", "*(4C)", "5C"], ["6S", "*(7S)", "8S"], ["9H", "10H", "JH"], ["QD", "KD", "*(AD)"], EX08_MELDS[4]]
    )
    used = sorted(c.split("(")[0] for m in melds for c in m if "(" in c)
    assert used == ["2D", "2H", "JK"]
    st = load(scenario({0: "AC 2C 3C 6S 7S 8S 9H 10H JH QD KD AD 9C 10C JC"}, turns_taken=[0] * 4))
    act(st, kind="declare", draw=False)
    assert ["AC", "2C", "3C"] in st.round_results[-1]["melds"]  # the 2 at its own place


# C.1-3: "Each run contains ≥1 natural card (not a 2, not a JK)." C.2-1: "section 01 defines naturals as all cards
# except 2s and jokers → a 2 at its own position does not satisfy it."
# With the default patterns (at most 5 runs) and at most 10 wilds in the shoe the rule can never bind: a split with
# a wild-only run can always hand that run one natural taken off a run holding two (>= 5 naturals, <= 5 runs). So
# the rule is exercised with a rule override of six runs (3+3+3+2+2+2, min_run 2): five naturals and all ten wilds
# would need a sixth run of wilds only (e.g. JK(AC)-2C at its own place): rejected; with six naturals accepted.
SIX_RUNS = {"patterns": ((3, 3, 3, 2, 2, 2),), "min_run": 2}
FIVE_NATURALS = "5C 10C 5D 5H 5S 2C 2C 2D 2D 2H 2H 2S 2S JK JK"
SIX_NATURALS = "5C 10C 5D 5H 5S 10D 2C 2D 2D 2H 2H 2S 2S JK JK"


def test_run_of_only_wilds_rejected_and_own_place_two_is_no_natural():
    st = load(scenario({0: FIVE_NATURALS}, turns_taken=[0] * 4), **SIX_RUNS)
    assert "declare" not in kinds(st)  # a run of wilds only (JK/2s, even 2C at its own place) is no run
    assert_rejected(st, LAYOUT.DECLARE)
    st = load(scenario({0: SIX_NATURALS}, turns_taken=[0] * 4), **SIX_RUNS)
    assert "declare" in kinds(st)
    act(st, kind="declare", draw=False)
    melds = st.round_results[-1]["melds"]
    assert len(melds) == 6
    assert all(any(not (c.startswith("2") or c.startswith("JK")) for c in m) for m in melds)
    # W counts all seven 2s and both jokers: 7 + 2*2 = 11; 1 + 11 + 10 (no-draw first turn) = 22 each
    assert st.round_results[-1]["payments"] == [66, -22, -22, -22]
    # the default patterns take the five-natural hand as 3+3+3+3+3, one natural per run
    assert valid(FIVE_NATURALS) and not valid(SIX_NATURALS)  # six far-apart naturals need six runs


# ----------------------------------------------------------------------------------------------------------------
# C.1-5 the turn; C.2-6 re-discard ban; C.2-7 optional declaration
# ----------------------------------------------------------------------------------------------------------------


def test_turn_draw_stock_then_discard():
    # C.1-5: "Draw the stock top or the discard top; discard one card face up"
    # 04: "В свой ход возьмите только верх запаса или верх сброса, затем сбросьте одну карту открыто."
    st = load(scenario({}, stock="KS QS", discard="9D 8D", turns_taken=[0, 0, 0, 0]))
    p0 = hand(st, 0)
    assert st.current_player == 0 and st.phase == "draw"
    assert kinds(st) == {"draw_discard", "draw_stock"}
    assert st.find_action(kind="draw_discard") and st.action_info(st.find_action(kind="draw_discard"))["card"] == "9D"
    act(st, kind="draw_stock")
    assert st.phase == "act" and st.hand_size[0] == 16 and "KS" in hand(st, 0)
    assert kinds(st) == {"discard"} and len(st.legal_actions()) == len(set(hand(st, 0)))
    act(st, kind="discard", card=p0[0])
    assert st.hand_size[0] == 15 and st.to_json()["discard"][:3] == [p0[0], "9D", "8D"]
    assert st.current_player == 1 and st.phase == "draw" and st.turns_taken[0] == 1
    # P1 takes the discard top (only the top is reachable)
    act(st, kind="draw_discard")
    assert p0[0] in hand(st, 1) and st.to_json()["discard"][:1] == ["9D"]
    assert st.to_json()["stock"][:1] == ["QS"]


def test_only_the_discard_top_is_reachable():
    # C.1-5: "Earlier discards are reachable only as the current top." 04: "Карты, отвергнутые ранее, доступны
    # лишь когда вновь окажутся верхом сброса."
    st = load(scenario({}, discard="9D 8D 7D"))
    draws = [i for _, i in st.legal_action_infos() if i["kind"] == "draw_discard"]
    assert draws == [{"kind": "draw_discard", "card": "9D"}]


def test_rediscard_of_the_taken_card_is_banned():
    # C.1-5: "discard one card face up (our resolution: not the card just taken from the discard pile)"
    # C.2-6: "Re-discard of the picked-up card: seed silent; forbidden by default"
    st = load(scenario({}, discard="9D"))
    assert "9D" not in hand(st, 0)
    act(st, kind="draw_discard")
    assert "9D" not in [i.get("card") for _, i in st.legal_action_infos()]
    assert_rejected(st, LAYOUT.DISCARD + parse_card("9D"))
    # a card drawn from the stock may be discarded at once
    st = load(scenario({}, stock="9D"))
    act(st, kind="draw_stock")
    act(st, kind="discard", card="9D")
    assert st.current_player == 1


def test_rediscard_ban_allows_the_other_copy():
    # C.2-6 reading (as A.2-4 in the contract engine): the ban is on the card taken; another copy may go.
    st = load(scenario({0: "9D 3C 3D 3H 6C 6D 6H 9C 9H QC QD QH KS KD KH"}, discard="9D"))
    act(st, kind="draw_discard")
    act(st, kind="discard", card="9D")
    assert st.current_player == 1 and hand(st, 0).count("9D") == 1


def test_rediscard_ban_can_be_switched_off():
    # C.2-6 is a choice: the rules field forbid_rediscard (default True) switches it off.
    assert get_rules("continental").forbid_rediscard is True
    st = load(scenario({}, discard="9D"), forbid_rediscard=False)
    act(st, kind="draw_discard")
    act(st, kind="discard", card="9D")
    assert st.current_player == 1 and st.to_json()["discard"][0] == "9D"


def test_section_08_worked_example():
    # 08: "Позже первого хода рука содержит 3♣–4♣–5♣, 6♠–7♠–8♠, 9♥–10♥–J♥, Q♦–K♦–A♦ и 9♣–10♣–J♣. Возьмите 2♦,
    # сбросьте её и раскройте все 15 как пять отдельных троек. Ни двойки, ни джокера в выкладке нет: каждый
    # соперник передаёт 1+10=11. При 4 участниках победитель получает 33 суммарно, остальные теряют по 11."
    # C.2-6: "the seed example's 2♦ is then a stock draw."
    st = load(scenario({0: EX08}, stock="2D"))
    assert st.turns_taken[0] == 1 and "declare" not in kinds(st)  # later than the first turn: must draw first
    act(st, kind="draw_stock")
    # "сбросьте её и раскройте все 15": the discard and the declaration are one decision (the 2 could stand in for
    # any card of the five runs, so every discard may declare here; only the discard of 2D pays W = 10)
    assert kinds(st) == {"discard", "discard_declare"} and len(declaring_discards(st)) == 16
    act(st, kind="discard_declare", card="2D")
    res = st.round_results[-1]
    assert res["winner"] == 0 and res["reason"] == "out"
    assert res["payments"] == [33, -11, -11, -11]
    assert st.scores == [33, -11, -11, -11] and sum(st.scores) == 0
    assert sorted(res["melds"]) == sorted(EX08_MELDS)
    assert st.phase == "game_over" and st.winners() == [0]


def test_section_08_with_2d_from_the_discard_pile():
    # C.2-6: with the ban the 2♦ taken from the discard pile cannot go back. The player may still go out by
    # discarding a natural that the 2♦ replaces (2D(3C)-4C-5C), but then W = 1: 1 + 1 = 2 per opponent, not 11.
    # With forbid_rediscard=False the seed's wording works as written (33 / -11).
    st = load(scenario({0: EX08}, discard="2D"))
    act(st, kind="draw_discard")
    assert_rejected(st, LAYOUT.DISCARD + parse_card("2D"))
    assert "3C" in declaring_discards(st) and "2D" not in declaring_discards(st)
    act(st, kind="discard_declare", card="3C")
    assert st.round_results[-1]["payments"] == [6, -2, -2, -2]
    clubs = next(m for m in st.round_results[-1]["melds"] if "4C" in m)
    assert len(clubs) == 3 and "5C" in clubs and any(c.startswith("2D(") for c in clubs)  # 2D(3C) or 2D(6C)
    st = load(scenario({0: EX08}, discard="2D"), forbid_rediscard=False)
    act(st, kind="draw_discard")
    act(st, kind="discard_declare", card="2D")
    assert st.round_results[-1]["payments"] == [33, -11, -11, -11]


def test_declaring_is_optional_a_plain_discard_keeps_playing():
    # C.2-7: "Declaring is optional (a player may wait to improve W/S), but only right after his own discard, or
    # at first-turn start before drawing." 08: a valid 15 is held on a later turn, so the player did not declare.
    st = load(scenario({0: EX08}, stock="2D KS QS JS 10S"))
    act(st, kind="draw_stock")
    assert kinds(st) == {"discard", "discard_declare"} and "2D" in declaring_discards(st)
    act(st, kind="discard", card="2D")  # "discard 2D" without declaring: the turn passes as after any discard
    assert st.current_player == 1 and st.phase == "draw" and st.round_results == []
    assert hand(st, 0) == sorted(names(EX08), key=parse_card)
    for _ in range(3):
        idle_turn(st)
    # P0 again, still holding the valid 15: no declaration before drawing on a later turn
    assert st.current_player == 0 and st.phase == "draw"
    assert kinds(st) == {"draw_discard", "draw_stock"}
    assert_rejected(st, LAYOUT.DECLARE)
    top = st.stock[-1]
    act(st, kind="draw_stock")
    act(st, kind="discard_declare", card=card_str(top))
    assert st.round_results[-1]["payments"] == [33, -11, -11, -11]


def test_declare_mandatory_off_by_default_plain_discard_allowed():
    # 004 section 04: "Когда после сброса оставшиеся 15 полностью подходят, откройте сразу всё и завершите сдачу"
    # (when after the discard the 15 left fit, lay them all down) could be an instruction; the default reads it with
    # C.2-7 and section 08 (a valid 15 held on a later turn) as optional: both variants of the discard are legal.
    assert get_rules("continental").declare_mandatory is False
    st = load(scenario({0: EX08}, stock="2D"))
    act(st, kind="draw_stock")
    two = parse_card("2D")
    assert {LAYOUT.DISCARD + two, LAYOUT.DISCARD_DECLARE + two} <= set(st.legal_actions())


def test_declare_mandatory_on_forces_the_declaring_discard():
    # declare_mandatory=True reads section 04 as an instruction: a discard that leaves a valid 15 must declare
    # ("откройте сразу всё"); discards that leave an invalid 15 stay plain discards.
    st = load(scenario({0: EX08}, stock="KS"), declare_mandatory=True)
    act(st, kind="draw_stock")
    ks = parse_card("KS")
    assert declaring_discards(st) == ["KS"]
    assert LAYOUT.DISCARD + ks not in st.legal_actions()
    assert_rejected(st, LAYOUT.DISCARD + ks)
    assert LAYOUT.DISCARD + parse_card("3C") in st.legal_actions()  # 15 left invalid: no declaration to force
    assert len(st.legal_actions()) == 16  # 15 plain discards + the declaring discard of K♠
    act(st, kind="discard_declare", card="KS")
    assert st.round_results[-1]["payments"] == [33, -11, -11, -11]


def test_declare_mandatory_keeps_the_first_turn_declaration_optional():
    # 004 section 04: "Если уже сданы подходящие 15, можно объявить выход в начале своего первого хода" -- "можно"
    # (may): even with declare_mandatory the dealt valid hand may draw instead; after drawing, discarding the
    # drawn card leaves the valid 15 again, which must then be declared (F = 7 instead of 10).
    st = load(scenario({0: EX08}, stock="KS", turns_taken=[0, 0, 0, 0]), declare_mandatory=True)
    assert kinds(st) == {"declare", "draw_discard", "draw_stock"}
    act(st, kind="draw_stock")
    assert_rejected(st, LAYOUT.DISCARD + parse_card("KS"))
    act(st, kind="discard_declare", card="KS")
    assert st.round_results[-1]["payments"] == [54, -18, -18, -18]


def test_declare_mandatory_through_the_env():
    env = continental_v0.env(declare_mandatory=True)
    env.reset(seed=0, options={"scenario": scenario({0: EX08}, stock="KS")})
    assert env.unwrapped.rules.declare_mandatory is True
    env.step(LAYOUT.DRAW_STOCK)
    mask = env.observe("player_0")["action_mask"]
    assert mask[LAYOUT.DISCARD_DECLARE + parse_card("KS")] == 1 and mask[LAYOUT.DISCARD + parse_card("KS")] == 0
    assert mask[LAYOUT.DISCARD + parse_card("3C")] == 1 and mask[LAYOUT.DISCARD_DECLARE + parse_card("3C")] == 0


def test_declaring_discard_only_when_the_15_left_are_valid():
    # C.1-5: "If the remaining 15 form a valid hand the player may declare" -- only the discard of K♠ leaves
    # EX08; "discard 3C and declare" is refused and the plain discard passes the turn.
    st = load(scenario({0: EX08}, stock="KS"))
    act(st, kind="draw_stock")
    assert declaring_discards(st) == ["KS"]
    assert_rejected(st, LAYOUT.DISCARD_DECLARE + parse_card("3C"))
    act(st, kind="discard", card="3C")
    assert st.current_player == 1 and st.phase == "draw" and "discard_declare" not in kinds(st)


def test_no_buying_no_layoffs_no_partial_melds():
    # C.1-5: "Never: buying, partial melding, laying off, laying down before going out."
    # 04: "Покупок вне очереди нет. Все комбинации остаются в руке"
    assert [r.name for r in LAYOUT.ranges.values()] == [
        "draw_stock", "draw_discard", "discard", "declare", "discard_declare"
    ]  # fmt: skip
    assert LAYOUT.num_actions == 109
    st = load(scenario({}))
    assert "table" not in st.to_json()
    with pytest.raises(ScenarioError):
        load(dict(scenario({}), table=[]))
    # only the active player ever has a decision: seats 1..3 cannot act out of turn
    env = continental_v0.env()
    env.reset(seed=0, options={"scenario": scenario({})})
    for a in ("player_1", "player_2", "player_3"):
        assert not env.unwrapped.action_mask(a).any()


# ----------------------------------------------------------------------------------------------------------------
# C.1-5 / C.1-6 / C.2-3 first-turn declarations and the F term
# ----------------------------------------------------------------------------------------------------------------


def test_first_turn_declaration_without_drawing_f10():
    # C.1-5: "Special: at the start of his own first turn, before drawing, a player whose dealt 15 are valid may
    # declare with no draw and no discard." C.1-6: "F = ... 10 if out at start of first turn without drawing"
    # 05: "выход без взятия в первый ход — 10 вместо 7"
    st = load(scenario({0: EX08}, turns_taken=[0, 0, 0, 0]))
    assert kinds(st) == {"declare", "draw_discard", "draw_stock"}
    assert st.action_info(st.find_action(kind="declare")) == {"kind": "declare", "draw": False}
    assert st.payment(0, no_draw=True) == 21 and st.payment(0, no_draw=False) == 18
    act(st, kind="declare", draw=False)
    res = st.round_results[-1]
    assert res["payments"] == [63, -21, -21, -21]  # 1 + W 10 + F 10
    assert st.hand_size[0] == 15  # no draw, no discard


def test_first_turn_declaration_of_a_later_seat():
    # C.1-5: "at the start of his own first turn" -- P2's first turn, after P0 and P1 have played.
    st = load(scenario({2: EX08}, turns_taken=[1, 1, 0, 0], active=2))
    assert st.current_player == 2 and "declare" in kinds(st)
    act(st, kind="declare", draw=False)
    assert st.round_results[-1]["payments"] == [-21, -21, 63, -21]


def test_first_turn_after_a_stock_draw_f7():
    # C.1-6: "F = 7 if out on own first turn after drawing" 05: "Первый ход добавляет 7"
    st = load(scenario({0: EX08}, stock="KS", turns_taken=[0, 0, 0, 0]))
    act(st, kind="draw_stock")
    a = st.find_action(kind="discard_declare", card="KS")
    assert st.action_info(a) == {"kind": "discard_declare", "card": "KS"}
    st.apply(a)
    assert st.round_results[-1]["payments"] == [54, -18, -18, -18]  # 1 + 10 + 7


def test_first_turn_after_a_discard_pile_draw_f7():
    # C.2-3: "'First turn': the player's own first turn of the deal, whatever pile he drew from."
    st = load(scenario({0: EX08}, discard="QC", turns_taken=[0, 0, 0, 0]))
    act(st, kind="draw_discard")
    act(st, kind="discard_declare", card="9C")  # 10C-JC-QC replaces 9C-10C-JC
    res = st.round_results[-1]
    assert res["payments"] == [54, -18, -18, -18]
    assert ["10C", "JC", "QC"] in res["melds"]


def test_first_turn_pass_then_later_turn_f0():
    # C.1-6: "F = ... else 0": a player who did not declare on his first turn gets no F later.
    st = load(scenario({0: EX08}, stock="KS QS JS 10S 9S", turns_taken=[0, 0, 0, 0]))
    act(st, kind="draw_stock")
    act(st, kind="discard", card="KS")
    assert st.turns_taken[0] == 1
    for _ in range(3):
        idle_turn(st)
    assert st.current_player == 0 and "declare" not in kinds(st)
    assert st.payment(0, no_draw=True) == 11 and st.payment(0, no_draw=False) == 11
    act(st, kind="draw_stock")
    act(st, kind="discard_declare", card="9S")
    assert st.round_results[-1]["payments"] == [33, -11, -11, -11]


# ----------------------------------------------------------------------------------------------------------------
# C.1-6 payment arithmetic 1 + W + F + S (C.2-2 one suit by runs, C.2-8 all physical 2s)
# ----------------------------------------------------------------------------------------------------------------

PAYMENTS = [
    # (hand, per-opponent payment on a later turn, breakdown)
    (EX08, 11, "1 + W 10 (no 2, no JK)"),
    ("3C JK 5C 6S 2H 8S 9H 10H JH QD KD 2D 9C 10C JC", 5, "1 + W (2 twos + 2*1 JK = 4)"),
    ("3C JK 5C 6S JK 8S 9H 2H JH QD KD 2D 9C 10C JC", 7, "1 + W (2 + 2*2 = 6)"),
    ("AS 2S 3S 6S 7S 8S 9H 10H JH QD KD AD 9C 10C JC", 2, "1 + W 1: a 2 at its own place counts (C.2-8)"),
    ("3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH 3H 4H 5H", 21, "1 + W 10 + S 10"),
    ("3H 4H 5H 6H 7H 8H 9H 10H JH QH KH 2C JK 3H 4H", 14, "1 + W 3 + S 10: runs' suits, not physical (C.2-2)"),
    ("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH 3H 4H", 12, "1 + W 1 (2H at own place) + S 10"),
]


@pytest.mark.parametrize(("text", "pay", "why"), PAYMENTS, ids=[p[2] for p in PAYMENTS])
def test_payment_arithmetic(text, pay, why):
    # C.1-6: "Payment per opponent = 1 + W + F + S, where W = (#2s + 2·#JK in the 15) if that is >0, else 10; ...
    # S = 10 if all 15 are one suit. Winner receives the total; each opponent loses his payment (zero-sum). No
    # rank penalties." C.2-2: "All 15 one suit: judge by the runs' suits (wilds take the run's suit)".
    # C.2-8: "Deuce count = all physical 2s among the 15, wild or natural".
    # 05: "1 за выход; плюс по 1 за каждую выложенную двойку и по 2 за джокера. Если ни двойки, ни джокера нет,
    # вместо этих добавок начислите 10. ... Все 15 одной масти добавляют ещё 10."
    st = load(scenario({0: text}, stock="KS"))
    assert st.payment(0, no_draw=False) == pay
    act(st, kind="draw_stock")
    assert "KS" in declaring_discards(st), why
    act(st, kind="discard_declare", card="KS")
    assert st.round_results[-1]["payments"] == [3 * pay, -pay, -pay, -pay]
    assert st.scores == [3 * pay, -pay, -pay, -pay]


def test_payment_all_terms_together():
    # C.1-6 all four terms: 1 + W (JK = 2) + F 10 (no-draw first turn) + S 10 (hearts, JK takes the run's suit)
    st = load(scenario({1: "3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH 3H 4H JK"}, turns_taken=[1, 0, 0, 0], active=1))
    act(st, kind="declare", draw=False)
    assert st.round_results[-1]["payments"] == [-23, 69, -23, -23]


def test_payment_with_five_players():
    # C.1-6 zero-sum with 5 players: the winner receives 4 payments.
    st = load(scenario({0: EX08}, stock="2D", n=5, dealer=4))
    act(st, kind="draw_stock")
    act(st, kind="discard_declare", card="2D")
    assert st.round_results[-1]["payments"] == [44, -11, -11, -11, -11]


def test_balances_are_zero_sum_in_random_play():
    # C.1-6: "Winner receives the total; each opponent loses his payment (zero-sum)." Random legal play, with
    # every going-out declared, over whole sessions: the invariants hold at every step.
    for seed in (1, 2):
        st = new_state("continental", seed=seed, turn_cap=60)
        rng = np.random.default_rng(seed)
        steps = 0
        while not st.is_terminal():
            legal = st.legal_actions()
            outs = [b for b in legal if b == LAYOUT.DECLARE or b >= LAYOUT.DISCARD_DECLARE]
            a = outs[0] if outs else int(rng.choice(legal))
            st.apply(a)
            steps += 1
            assert sum(st.scores) == 0
            if steps % 25 == 0:
                st.check_invariants()
        assert len(st.round_results) == 4
        for res in st.round_results:
            assert sum(res["payments"]) == 0
        assert st.scores == [sum(r["payments"][p] for r in st.round_results) for p in range(4)]


# ----------------------------------------------------------------------------------------------------------------
# C.1-7 exhaustion; engine turn cap
# ----------------------------------------------------------------------------------------------------------------

#: a shoe with nothing left over: 1 deck + 1 joker = 53 = 4 x 13 + 1 (stock 0, discard 1 after the deal)
TINY = {"decks": 1, "jokers": 1, "hand_size": 13, "deal_packet": 1, "patterns": ((4, 3, 3, 3),)}


def test_reshuffle_all_discards_but_the_top():
    # C.1-7: "Draw needed from empty stock → shuffle discards except top into a new stock."
    # 06: "при необходимости добора перемешайте сброс, оставив верх на столе, и получите новый запас"
    data = scenario({}, discard="9D", rest="discard")
    data["stock"] = []
    st = load(data)
    old = st.to_json()["discard"]
    assert len(old) == 46 and old[0] == "9D"
    before = Counter(hand(st, 0))
    act(st, kind="draw_stock")
    drawn = list((Counter(hand(st, 0)) - before).elements())
    assert len(drawn) == 1
    assert st.to_json()["discard"] == ["9D"]
    assert len(st.stock) == 44
    assert Counter(st.to_json()["stock"]) + Counter(drawn) == Counter(old[1:])
    st.check_invariants()


def test_reshuffle_only_when_a_draw_needs_it():
    # C.1-7: "Draw needed from empty stock" -- an empty stock alone triggers nothing; the top may still be taken.
    data = scenario({}, stock="KS", discard="9D", rest="discard")
    st = load(data)
    act(st, kind="draw_stock")
    act(st, kind="discard", card="KS")
    assert st.stock == [] and st.to_json()["discard"][:2] == ["KS", "9D"]
    act(st, kind="draw_discard")  # P1 takes KS from the pile: still no reshuffle
    assert st.stock == [] and "KS" in hand(st, 1)
    act(st, kind="discard", card=hand(st, 1)[0])
    top = st.to_json()["discard"][0]
    act(st, kind="draw_stock")  # P2 needs a stock card: reshuffle now, the top stays
    assert st.to_json()["discard"] == [top] and len(st.stock) == 46 - 1 - 1
    st.check_invariants()


def test_nothing_to_recycle_is_a_drawn_deal():
    # C.1-7: "If nothing to recycle and the top discard is not taken → drawn deal, no payments."
    # 06: "Если переработать нечего, а верх сброса не берут, сдача ничейная". Unreachable with the 106-card shoe
    # (C.2-5), so a one-deck shoe dealt out completely (rule overrides) leaves stock 0 + discard 1.
    st = new_state("continental", seed=5, rounds=1, **TINY)
    assert st.stock == [] and len(st.discard) == 1
    p = st.current_player
    act(st, kind="draw_stock")
    res = st.round_results[-1]
    assert res["reason"] == "exhausted" and res["winner"] is None and res["payments"] == [0, 0, 0, 0]
    assert "melds" not in res and st.scores == [0, 0, 0, 0]
    assert st.phase == "game_over" and st.winners() == [0, 1, 2, 3]
    # taking the lone top is still allowed; the next player's stock draw then ends the deal
    st = new_state("continental", seed=5, rounds=1, **TINY)
    act(st, kind="draw_discard")
    act(st, kind="discard", card=hand(st, p)[0])
    assert st.round_results == [] and st.current_player == (p + 1) % 4
    act(st, kind="draw_stock")
    assert st.round_results[-1]["reason"] == "exhausted" and st.scores == [0, 0, 0, 0]


def test_turn_cap_ends_the_deal_as_drawn():
    # README (top): "Every profile has a configurable cap on turns per round; reaching it ends the round like a
    # round without a winner (... `continental`: no payment), the session goes on". C.2-5.
    st = load(scenario({}, deals=2), turn_cap=3)
    idle_turn(st)
    idle_turn(st)
    assert st.round == 1 and st.current_player == 2
    idle_turn(st)
    res = st.round_results[-1]
    assert res == {"round": 1, "winner": None, "reason": "turn_cap", "payments": [0, 0, 0, 0]}
    assert st.round == 2 and st.phase == "draw" and st.scores == [0, 0, 0, 0]
    assert get_rules("continental").turn_cap == 400


def test_turn_cap_lets_the_last_turn_declare():
    # the cap counts completed turns: the capped turn's optional declaration (C.2-7) still comes first
    st = load(scenario({0: EX08}, stock="2D"), turn_cap=1)
    act(st, kind="draw_stock")
    act(st, kind="discard_declare", card="2D")
    assert st.round_results[-1]["reason"] == "out" and st.scores == [33, -11, -11, -11]
    st = load(scenario({0: EX08}, stock="2D"), turn_cap=1)
    act(st, kind="draw_stock")
    act(st, kind="discard", card="2D")
    assert st.round_results[-1]["reason"] == "turn_cap" and st.scores == [0, 0, 0, 0]


# ----------------------------------------------------------------------------------------------------------------
# C.1-8 session
# ----------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [4, 5])
def test_session_one_deal_per_player(n):
    # C.1-8: "n deals (each player deals once)." 06: "каждый сдаёт по разу"
    st = new_state("continental", seed=9, num_players=n, turn_cap=2)
    assert st.num_deals == n
    dealers = []
    while not st.is_terminal():
        if not dealers or dealers[-1][0] != st.round:
            dealers.append((st.round, st.dealer, st.current_player))
        idle_turn(st)
    assert [d[0] for d in dealers] == list(range(1, n + 1))
    first = dealers[0][1]
    assert [d[1] for d in dealers] == [(first + i) % n for i in range(n)]  # everybody deals once, passing left
    assert all(d[2] == (d[1] + 1) % n for d in dealers)
    assert len(st.round_results) == n and st.current_player == -1 and st.legal_actions() == []


def test_highest_balance_wins():
    # C.1-8: "Highest balance wins; tied leaders share." 06: "наибольший баланс выигрывает, равные лидеры делят"
    st = load(scenario({0: EX08}, stock="2D", scores=[-5, 10, 0, -5]))
    act(st, kind="draw_stock")
    act(st, kind="discard_declare", card="2D")
    assert st.scores == [28, -1, -11, -16] and st.winners() == [0]
    assert st.returns() == [28.0, -1.0, -11.0, -16.0]


def test_tied_leaders_share():
    st = load(scenario({0: EX08}, stock="2D", scores=[-11, 33, 0, -22]))
    act(st, kind="draw_stock")
    act(st, kind="discard_declare", card="2D")
    assert st.scores == [22, 22, -11, -33] and st.winners() == [0, 1]


# ----------------------------------------------------------------------------------------------------------------
# C.1-9 / engine contract: illegal actions and bad scenarios
# ----------------------------------------------------------------------------------------------------------------


def test_illegal_actions_raise_and_leave_the_state_unchanged():
    # C.1-9: "Invalid declaration: rejected; cards stay in hand; play continues"
    st = load(scenario({}, discard="9D"))
    assert_rejected(st, LAYOUT.DECLARE)  # an invalid hand cannot declare
    assert_rejected(st, LAYOUT.DISCARD_DECLARE + st.hand_cards(0)[0])  # nor declare before drawing
    assert_rejected(st, LAYOUT.DISCARD + st.hand_cards(0)[0])  # discard before drawing
    assert_rejected(st, 999)
    assert_rejected(st, -1)
    for bad in ("draw", 1.5, None):
        assert_rejected(st, bad)  # type: ignore[arg-type]
    act(st, kind="draw_stock")
    assert_rejected(st, LAYOUT.DRAW_STOCK)
    assert_rejected(st, LAYOUT.DRAW_DISCARD)
    assert_rejected(st, LAYOUT.DECLARE)
    missing = next(k for k in range(52) if st.hands[0][k] == 0)
    assert_rejected(st, LAYOUT.DISCARD + missing)
    assert_rejected(st, LAYOUT.DISCARD_DECLARE + missing)
    assert_rejected(st, LAYOUT.DISCARD_DECLARE + st.hand_cards(0)[0])  # the 15 left are no valid hand
    # after the session: nothing is legal
    st = load(scenario({0: EX08}, stock="2D"))
    act(st, kind="draw_stock")
    act(st, kind="discard_declare", card="2D")
    assert st.phase == "game_over"
    assert_rejected(st, LAYOUT.DRAW_STOCK)


def test_find_action_errors():
    st = load(scenario({}))
    with pytest.raises(ValueError):
        st.find_action(kind="declare")
    with pytest.raises(ValueError):
        st.find_action(kind="buy")


def _bad(**changes: Any) -> dict[str, Any]:
    data = scenario({0: EX08})
    data.update(changes)
    return data


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (
            _bad(
                hands=[names(EX08)[1:]] + scenario({0: EX08})["hands"][1:], stock=["3C", *scenario({0: EX08})["stock"]]
            ),
            "holds 14 cards",
        ),
        (_bad(phase="act"), "holds 15 cards"),
        (_bad(phase="bidding"), "unknown phase"),
        (_bad(scores=[5, 0, 0, 0]), "zero-sum"),
        (_bad(scores=[1, -1, 0]), "scores"),
        (_bad(profile="contract"), None),
        (_bad(turns_taken=[0, -1, 0, 0]), "turns_taken"),
        (_bad(dealer=4), "dealer"),
        (_bad(table=[]), "unknown scenario key"),
        (_bad(stock=[]), "nowhere"),
    ],
    ids=["hand14", "act15", "phase", "scores-sum", "scores-len", "profile", "turns", "dealer", "key", "missing"],
)
def test_bad_scenarios_raise(data, match):
    with pytest.raises(ScenarioError, match=match):
        load(data)


def test_too_many_copies_raise():
    data = scenario({0: EX08})
    data["hands"][1] = ["7C", "7C", "7C"] + data["hands"][1][3:]
    with pytest.raises(ScenarioError, match="copies of 7C"):
        load(data)
    data = scenario({0: EX08})
    data["discard"] = ["JK", "JK", "JK"] + data["discard"]
    with pytest.raises(ScenarioError, match="copies of JK"):
        load(data)


def test_old_declare_phase_is_refused_with_a_pointer_to_discard_declare():
    # issue 13: the declare phase of the first release is gone (it showed every seat a valid hidden hand)
    for hands in ({}, {0: EX08}):
        with pytest.raises(ScenarioError, match="discard_declare"):
            load(scenario(hands, phase="declare"))


def test_json_round_trip():
    st = load(scenario({0: EX08}, stock="KS", turns_taken=[0, 0, 0, 0], deals=2))
    act(st, kind="draw_stock")
    dumped = st.to_json()
    again = load_state(dumped, seed=0)
    assert again.to_json() == dumped
    act(again, kind="discard_declare", card="KS")
    assert again.round_results[-1]["payments"] == [54, -18, -18, -18]
    # the dumped generator makes the next deal identical
    act(st, kind="discard_declare", card="KS")
    assert again.to_json() == st.to_json()


# ----------------------------------------------------------------------------------------------------------------
# env continental_v0: rewards at the end of a deal = payment / 100 per seat
# ----------------------------------------------------------------------------------------------------------------


def _env_step(env, **info: Any) -> None:
    st = env.unwrapped._state
    env.step(st.find_action(**info))


def test_env_rewards_equal_payments_over_100():
    env = continental_v0.env()
    env.reset(seed=0, options={"scenario": scenario({0: EX08}, stock="2D")})
    assert env.agent_selection == "player_0"
    _env_step(env, kind="draw_stock")
    assert all(r == 0.0 for r in env.rewards.values())
    mask = env.observe("player_0")["action_mask"]
    assert LAYOUT.DISCARD_DECLARE + parse_card("2D") in np.flatnonzero(mask)
    _env_step(env, kind="discard_declare", card="2D")
    assert env.rewards == pytest.approx({"player_0": 0.33, "player_1": -0.11, "player_2": -0.11, "player_3": -0.11})
    assert all(env.terminations.values())
    info = env.unwrapped.results()
    assert info["scores"] == [33, -11, -11, -11]
    assert info["round_results"][-1]["payments"] == [33, -11, -11, -11]


def test_env_rewards_mid_session_and_first_turn_declaration():
    env = continental_v0.env()
    env.reset(seed=1, options={"scenario": scenario({1: EX08}, turns_taken=[1, 0, 0, 0], active=1, deals=2)})
    assert env.agent_selection == "player_1"
    _env_step(env, kind="declare", draw=False)
    assert env.rewards == pytest.approx({"player_0": -0.21, "player_1": 0.63, "player_2": -0.21, "player_3": -0.21})
    assert not any(env.terminations.values())
    st = env.unwrapped._state
    assert st.round == 2 and st.dealer == 0 and env.agent_selection == "player_1"
    assert env.observe("player_1")["action_mask"].sum() >= 2


def test_env_turn_cap_reports_and_pays_nothing():
    env = continental_v0.env(turn_cap=2)
    env.reset(seed=2, options={"scenario": scenario({})})
    for _ in range(2):
        st = env.unwrapped._state
        p = st.current_player
        k = st.stock[-1]
        _env_step(env, kind="draw_stock")
        assert st.current_player == p
        _env_step(env, kind="discard", card=card_str(k))
    assert all(env.terminations.values())
    assert all(r == 0.0 for r in env.rewards.values())
    assert env.infos["player_0"]["turn_cap"] is True
    assert env.unwrapped.results()["round_results"][-1]["reason"] == "turn_cap"


def test_json_round_trip_keeps_the_rediscard_ban():
    # C.2-6 survives a dump/load in the middle of a turn: the taken card is still banned after loading.
    st = load(scenario({}, discard="9D"))
    act(st, kind="draw_discard")
    dumped = st.to_json()
    assert dumped["phase"] == "act" and dumped["taken_discard"] == "9D"
    again = load_state(dumped, seed=0)
    assert again.legal_actions() == st.legal_actions()
    assert_rejected(again, LAYOUT.DISCARD + parse_card("9D"))


def test_scenario_for_another_profile_rejected():
    with pytest.raises(ScenarioError, match="for profile 'contract'"):
        load_continental(dict(scenario({}), profile="contract"), get_rules("continental"))


# ----------------------------------------------------------------------------------------------------------------
# The declaring discards are found exactly (fast path of the act-phase mask)
# ----------------------------------------------------------------------------------------------------------------


def test_fitting_discards_match_can_go_out_on_every_discard():
    # the engine offers "discard X and declare" for the X returned by fitting_discards; it must be exactly the
    # discards after which can_go_out holds, on random 16-card hands and on valid hands plus one card
    import random

    from rummy_env.rules.continental_hand import fitting_discards, random_shoe_counts, random_valid_counts

    rng = random.Random(13)
    hands = [random_shoe_counts(rng, 16) for _ in range(150)]
    for _ in range(150):
        h = random_valid_counts(rng)
        extra = rng.choice([k for k in range(NUM_KINDS) if h[k] < 2])
        h[extra] += 1
        hands.append(h)
    hits = 0
    for h in hands:
        want = [k for k in range(NUM_KINDS) if h[k] and can_go_out([c - (i == k) for i, c in enumerate(h)])]
        assert fitting_discards(h) == want, h
        hits += bool(want)
    assert hits >= 150  # every valid hand plus one card has a fitting discard (the added one)
    with pytest.raises(ValueError):
        fitting_discards([1] * 10)
