"""Conformance of the PettingZoo env ``contract_gamerules_v0`` for 3, 4 and 5 players.

The checks are ``conformance.ProfileConformance`` (PettingZoo API tests, entry points, ANSI rendering, exact masks
both ways with the round-7 and deep-pickup oracles, hidden information, reward accounting for every reward mode,
observations, the ``action_info`` schema, illegal actions, configuration errors, ``rounds`` and ``max_steps``), run
over every case of the profile; this module adds what is particular to it. Figures are printed (run with ``-s``).
"""

from __future__ import annotations

import numpy as np
import pytest
from conformance import ProfileConformance, build_scenario, case_id, cases_of, gamerules_final_valid, make_env

from rummy_env.core.cards import counts_of, parse_cards

CASES = [pytest.param(c, id=case_id(c)) for c in cases_of("contract_gamerules")]


class TestContractGamerulesEnv(ProfileConformance):
    profile = "contract_gamerules"


@pytest.mark.parametrize("case", CASES)
def test_table_sizes(case):
    """No buy window (no ``buy`` / ``pass`` ids), a ``must_place`` piece; B.2-1: 53 cards for 3-4 players, 106
    for 5 (the entry points themselves: ``ProfileConformance.test_entry_points``)."""
    u = make_env(case).unwrapped
    assert "buy" not in u.layout.ranges and "pass" not in u.layout.ranges
    assert "must_place" in u.observer.pieces.shapes
    assert u.rules.decks * 52 + u.rules.jokers == (106 if case[1]["num_players"] == 5 else 53)


@pytest.mark.parametrize("case", CASES)
def test_must_place_piece_follows_the_pickup(case):
    """The observation piece ``must_place`` shows the deep-pickup card until it is on the table, for every seat."""
    env = make_env(case)
    sc = build_scenario(
        case, "7C 7D 7H 9C 9D KD 4C 2H 3S 6S", round_no=1, phase="draw", discard=["QH", "5D", "9S", "JC"]
    )
    env.reset(seed=0, options={"scenario": sc})
    u = env.unwrapped
    assert not any(u.observation_pieces(a)["must_place"].any() for a in env.possible_agents)
    env.step(u._state.find_action(kind="pickup", depth=3))
    for a in env.possible_agents:
        piece = u.observation_pieces(a)["must_place"]
        assert np.flatnonzero(piece).tolist() == [u._state.must_place] and u._state.must_place >= 0
    env.step(u._state.find_action(kind="meld", cards=["9C", "9D", "9S"]))
    env.step(u._state.find_action(kind="meld", cards=["7C", "7D", "7H"]))
    assert not any(u.observation_pieces(a)["must_place"].any() for a in env.possible_agents)


GO_OUT_HANDS = [
    ("AC 2C 3C 4C 5C 6D 7D 8D 9D 10S JS QS KS", True),  # 5 + 4 + 4, three suits
    ("AC 2C 3C 4C 5C 6C 7C 8D 9D 10D JS QS KS", True),  # 8 + 3 + 3
    ("QH KH AH 2D 3D 4D 5D 9S 10S JS JK 6D 7D", True),  # ace high, a joker at an end
    ("AC 2C 3C 5C 6C 7C 8D 9D 10D JS QS KS 4H", False),  # four suits
    ("AC 2C 3C 5C 6C 7C 8D 9D 10D JS QS KS JK", True),  # the joker closes the club gap
    ("AC 2C 3C 4C 5C 6C 7C 8C 9C 10D JD QD KD", False),  # two suits only
    ("KC AC 2C 3D 4D 5D 9S 10S JS QS KS 6D JK", False),  # K-A-2 wraps
]


@pytest.mark.parametrize("hand,ok", GO_OUT_HANDS)
def test_round7_go_out_matches_brute_force(hand, ok):
    """B.1-11: ``go_out`` is offered exactly when the independent brute force finds three runs of three suits."""
    assert gamerules_final_valid(counts_of(parse_cards(hand))) is ok
    for case in cases_of("contract_gamerules"):
        env = make_env(case)
        env.reset(seed=2, options={"scenario": build_scenario(case, hand, round_no=7)})
        u = env.unwrapped
        mask = u.action_mask("player_0")
        assert bool(mask[u.layout.GO_OUT]) is ok, case
        if ok:
            env.step(u.layout.GO_OUT)
            res = u._state.round_results[-1]
            assert res["winner"] == 0 and res["reason"] == "out" and res["penalties"][0] == 0
            assert env.agents == [] or u._state.is_terminal()
