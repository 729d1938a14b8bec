"""The ``contract_gamerules`` heuristic: its targets (sets of distinct suits, runs of different suits, round 7),
legal and seeded play at 3, 4 and 5 players, blindness to hidden cards, deep pickups and going out without a
discard on scripted hands, and a seeded match against random play."""

from __future__ import annotations

from functools import partial

import pytest
import scenarios
from scenarios import check_blind_to_hidden, counts, play_turn

import rummy_env
from rummy_env import bots
from rummy_env.bots.heuristic_gamerules import gamerules_final_structure, gamerules_structure
from rummy_env.evaluation.bots_eval import evaluate
from rummy_env.rules import get_rules

PROFILE = "contract_gamerules"
RULES = get_rules(PROFILE)
play = partial(scenarios.play, PROFILE)

# ----------------------------------------------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------------------------------------------


def scenario_env(hands: list[list[str]], discard: list[str], n: int = 3, **scn):
    """A wrapped env from a scenario: the given hands and discard pile (top first), the rest in the stock."""
    env = rummy_env.make("contract_gamerules", num_players=n)
    scn.setdefault("dealer", n - 1)
    env.reset(seed=0, options={"scenario": {"hands": hands, "discard": discard, "rigged": True, **scn}})
    return env


# ----------------------------------------------------------------------------------------------------------------
# Targets
# ----------------------------------------------------------------------------------------------------------------


def test_contract_target_counts_distinct_suits_and_runs_of_different_suits():
    live = [1] * 53
    # two sets: 7♣ 7♦ 7♥ is made; 9♣ 9♦ lacks one card
    s = gamerules_structure(counts("7C 7D 7H 9C 9D 2S 5S KD QH 4C".split()), 2, 0, live, RULES)
    assert s.missing == 1
    # two runs must be of two suits: 4-5-6♠ and 8-9-10♠ do not make the contract, 4-5-6♠ and 8-9-10♥ do
    same = gamerules_structure(counts("4S 5S 6S 8S 9S 10S KD QH 2C 7D".split()), 0, 2, live, RULES)
    other = gamerules_structure(counts("4S 5S 6S 8H 9H 10H KD QH 2C 7D".split()), 0, 2, live, RULES)
    assert same.missing >= 2 and other.missing == 0
    # a joker fills the missing card
    s = gamerules_structure(counts("7C 7D 7H 9C 9D 2S 5S KD QH JK".split()), 2, 0, live, RULES)
    assert s.missing == 0


def test_round_7_target_is_three_runs_of_three_suits():
    live = [1] * 53
    hand = counts("3C 4C 5C 6C 7D 8D 9D JH QH KH AH 2S".split())
    assert gamerules_final_structure(hand, 12, live).missing == 1  # the 2♠ does not fit: one card to exchange
    hand = counts("3C 4C 5C 6C 7D 8D 9D JH QH KH AH 10H".split())
    assert gamerules_final_structure(hand, 12, live).cost == 0  # goes out as it is
    # three runs in two suits are no going out
    hand = counts("3C 4C 5C 7C 8C 9C 7D 8D 9D 10D JD QD".split())
    assert gamerules_final_structure(hand, 12, live).missing >= 1


# ----------------------------------------------------------------------------------------------------------------
# Whole sessions: legal, deterministic, blind to hidden cards
# ----------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5])
def test_heuristic_answers_legally_in_thousands_of_random_states(players):
    # random play (deep pickups included) wanders through long rounds; every seat's heuristic is asked each time
    _, asked = play(["random"] * players, seed=players, rounds=(1, 3, 5, 7), ask_heuristic=True)
    assert asked > 1000


@pytest.mark.parametrize("players", [3, 4, 5])
def test_heuristic_sessions_are_legal(players):
    env, _ = play(["heuristic"] * (players - 1) + ["random"], seed=1)
    assert len(env._state.round_results) == 7


def test_heuristic_is_deterministic_for_a_seed():
    specs = ["heuristic", "random", "heuristic", "heuristic"]
    a, _ = play(specs, seed=4, rounds=(2, 6, 7))
    b, _ = play(specs, seed=4, rounds=(2, 6, 7))
    assert a._state.history == b._state.history
    assert a._state.scores == b._state.scores


def test_decisions_do_not_change_when_hidden_cards_are_resampled():
    specs = ["heuristic", "heuristic", "heuristic", "random"]
    seen = check_blind_to_hidden(PROFILE, specs, (3, 5), rng_seed=3, only="heuristic", rounds=(1, 2, 5, 7))
    assert seen["checked"] > 400
    assert {"draw", "act", "opening"} <= seen["phases"]
    assert {"draw_stock", "draw_discard", "pickup", "meld", "lay_off", "discard"} <= seen["kinds"]


# ----------------------------------------------------------------------------------------------------------------
# Decisions on scripted hands
# ----------------------------------------------------------------------------------------------------------------


def test_takes_a_deep_pickup_that_completes_the_contract():
    # round 1 (two sets): 9♥ at depth 2 makes the second set; the Q♦ above it comes along
    hands = [
        "7C 7D 7H 9C 9D 2C 4D 6H JS KS".split(),
        "AC 3C 5C 8C 10C AD 3D 5D 8D 10D".split(),
        "AH 3H 5H 8H 10H AS 3S 5S 8S 10S".split(),
    ]
    env = scenario_env(hands, ["QD", "9H"], round=1)
    done = play_turn(env, bots.load("heuristic", seed=0))
    assert done[0] == "pick up the discard pile down to 9♥ (depth 2)"
    assert any(d.startswith("declare group") and "9♥" in d for d in done)
    assert done[-1].startswith("discard")
    # the same pile without the 9♥ deep down: nothing completes, the stock is drawn
    env = scenario_env(hands, ["QD", "QH"], round=1)
    assert env.unwrapped.describe_action(bots.load("heuristic").act(env, env.agent_selection)) == (
        "draw from the stock"
    )


def test_lays_off_everything_and_goes_out_without_a_discard():
    # P0 is down since an earlier turn; with the 3♠ from the pile his three cards all go onto the table: no discard
    table = [
        {"owner": 0, "kind": "group", "cards": ["7C", "7D", "7H"]},
        {"owner": 0, "kind": "run", "cards": ["4S", "5S", "6S"]},
    ]
    hands = [
        "7S 8S".split(),
        "AC 3C 5C 8C 10C AD 3D 5D 8D 10D".split(),
        "AH 3H 5H 8H 10H AS 9S JS 10S KS".split(),
    ]
    env = scenario_env(hands, ["3S", "QD"], round=1, table=table, opened=[0])
    done = play_turn(env, bots.load("heuristic", seed=0))
    assert done[0] == "take 3♠ from the discard pile"
    assert not any(d.startswith("discard") for d in done)
    assert env.unwrapped._state.round_results[-1]["winner"] == 0


def test_round_7_takes_the_pickup_that_goes_out():
    # 9♥ on top, 10♥ below: with both, 9♥-A♥ joins 3-6♣ and 7-10♦ (three runs, three suits, the whole hand)
    hands = [
        "3C 4C 5C 6C 7D 8D 9D 10D JH QH KH AH".split(),
        "AC 2C 8C 10C AD 2D 3D 5D 6D JD QD KD".split(),
        "2H 3H 4H 5H 6H 7H 8H 2S 3S 4S 5S 6S".split(),
    ]
    env = scenario_env(hands, ["9H", "10H"], round=7)
    done = play_turn(env, bots.load("heuristic", seed=0))
    assert done == ["pick up the discard pile down to 10♥ (depth 2)", "go out: lay the whole hand as runs"]
    assert env.unwrapped._state.round_results[-1]["winner"] == 0


# ----------------------------------------------------------------------------------------------------------------
# Match against random play
# ----------------------------------------------------------------------------------------------------------------


def test_heuristic_beats_random_by_a_wide_margin():
    report = evaluate("contract_gamerules", ["heuristic", "random", "random", "random"], sessions=16, seed=0)
    h, r = report["bots"]["heuristic"], report["bots"]["random"]
    assert h["mean_penalty_per_round"] + h["ci95"] < 0.4 * (r["mean_penalty_per_round"] - r["ci95"])
    assert h["rounds_won_share"] > 0.35 > 0.05 > r["rounds_won_share"]
    # rounds 1-2 can freeze (every seat down, no card fits the table): the cap is their only end
    assert report["turn_cap_share"] < 0.2
