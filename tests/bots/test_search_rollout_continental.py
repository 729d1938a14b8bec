"""The fast rollout policy of ``continental`` (``rummy_env.bots.rollout_continental``) and the continental search
candidates (``ContinentalHeuristic.search_candidates``): legal in whole sessions at 4 and 5 players, deterministic,
the heuristic's decisions on scripted hands, and the close calls a search weighs (its bot's blindness to hidden
cards: ``test_search_rollout.py``).

Strength against ``heuristic`` and rollouts/s are measured by the commands in ``docs/guides/bots.md``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scenarios import decide
from test_bots_continental import ONE_WILD, VALID, scenario_env

import rummy_env
from rummy_env.bots.heuristic import POLICIES
from rummy_env.bots.rollout import FAST_POLICIES, play_out
from rummy_env.bots.rollout_continental import FastContinentalPolicy
from rummy_env.bots.view import public_view
from rummy_env.core.cards import parse_cards
from rummy_env.registry import game

G = game("continental")


def fast_decision(env) -> str:
    """The fast policy's move for the player to move of ``env``, as ``action_info``'s text."""
    st = env.unwrapped._state
    legal = st.legal_actions()
    return env.unwrapped.describe_action(FastContinentalPolicy().decide(st, legal))


@pytest.mark.parametrize("players", [4, 5])
def test_legal_in_whole_sessions_and_every_session_ends(players):
    """Every decision of whole sessions is one of the engine's legal actions; every deal ends before the turn cap."""
    policy = FastContinentalPolicy()
    rules = G.rules(num_players=players)
    for seed in range(2):
        st = G.new_state(rules, seed=seed)
        while not st.is_terminal():
            legal = st.legal_actions()
            action = legal[0] if len(legal) == 1 else policy.decide(st, legal)
            assert action in legal, (seed, st.phase, action, legal)
            st.apply(action)
        assert len(st.round_results) == rules.num_players * rules.deals_per_player
        assert all(res["reason"] != "turn_cap" for res in st.round_results)


def test_play_out_is_deterministic_and_stops_at_the_round():
    """Two play-outs of copies of one state make the same moves; the next deal is dealt, not played."""
    st = G.new_state(G.rules(), seed=4, rounds=2)
    first, second = st.clone(), st.clone()
    steps = play_out(first, FastContinentalPolicy(), 0)
    assert steps > 8 and len(first.round_results) == 1 and not first.is_terminal()
    assert play_out(second, FastContinentalPolicy(), 0) == steps and second.history == first.history


def test_registered_as_the_continental_rollout_policy():
    assert FAST_POLICIES["continental"] is FastContinentalPolicy


def test_declares_a_valid_dealt_hand_and_goes_out_with_the_best_payment():
    """The heuristic's rules C.1-5 / C.1-6 on the scripted hands of its own tests: "a valid dealt hand may be
    declared without drawing"; going out, the discard that leaves no wild pays the no-wild bonus."""
    assert fast_decision(scenario_env(VALID, ["9C"], turns_taken=[0, 0, 0, 0])).startswith("declare")
    env = scenario_env(VALID + ["2D"], ["9D"], phase="act")
    assert fast_decision(env) == "discard 2♦ and declare: reveal the 15 cards left and go out"
    env = scenario_env([c for c in VALID if c != "7S"] + ["2D", "KD"], ["9D"], phase="act", turn=20)
    assert fast_decision(env) == "discard K♦ and declare: reveal the 15 cards left and go out"


def test_takes_the_top_that_brings_the_hand_closer_and_declines_others():
    hand = [c for c in VALID if c != "7S"] + ["KD"]
    assert fast_decision(scenario_env(hand, ["7S"])) == "take 7♠ from the discard pile"
    assert fast_decision(scenario_env(hand, ["2H"])) == "take 2♥ from the discard pile"
    assert fast_decision(scenario_env(hand, ["9D"])) == "draw from the stock"


def test_discards_the_stray_card_never_a_wild():
    hand = [c for c in VALID if c not in ("JH", "7S")] + ["2H", "KD", "8S"]
    assert fast_decision(scenario_env(hand, ["9D"], phase="act")) == "discard K♦"


def test_connection_counts_neighbours_runs_and_copies():
    """An isolated natural scores 0; a neighbour one away counts ``near1``, two away ``near2``; three held in a row
    add ``in_run``; the ace plays high (after the king) or low (the 2's place, a gap, then the 3)."""
    policy = FastContinentalPolicy()
    style = policy.style

    def conn(cards: str, card: str) -> float:
        hand = [0] * 53
        for k in parse_cards(cards):
            hand[k] += 1
        return policy.connection(hand, parse_cards([card])[0])

    assert conn("9D KS", "9D") == 0
    assert conn("9D 10D", "9D") == style.near1
    assert conn("9D JD", "9D") == style.near2
    assert conn("8D 9D 10D", "9D") == 2 * style.near1 + policy.in_run
    assert conn("AD KD QD", "AD") == style.near1 + policy.in_run  # the high ace: nothing above it
    assert conn("AD 3D", "AD") == style.near2  # the low ace: the 2 between is a gap any wild fills
    assert conn("9D 9D", "9D") == style.duplicate


# ----------------------------------------------------------------------------------------------------------------
# The close calls a search weighs
# ----------------------------------------------------------------------------------------------------------------


def candidates(env) -> tuple[int, list[int], object]:
    view = public_view(env, env.agent_selection)
    heuristic = POLICIES["continental"](np.random.default_rng(0))
    prior = heuristic.decide(view)
    return prior, heuristic.search_candidates(view, prior), view


def test_search_candidates_are_the_discards_as_close_to_going_out_as_the_heuristics():
    """Prior first, then only other discards keeping the distance to going out as low as the prior's, at most
    ``SEARCH_DISCARDS``; every candidate legal."""
    for seed in range(6):
        env = rummy_env.make("continental")
        env.reset(seed=seed)
        for _ in range(40):
            prior, cands, view = candidates(env)
            assert cands[0] == prior and set(cands) <= set(view.legal) and len(set(cands)) == len(cands)
            lay = view.layout
            if view.phase == "act" and len(cands) > 1 and cands[1] < lay.DISCARD_DECLARE and prior < lay.DISCARD_DECLARE:
                heuristic = POLICIES["continental"](np.random.default_rng(0))
                planner = heuristic.planner(view)
                kinds = [a - lay.DISCARD for a in cands]
                dist = planner.distances_after_discard(view.hand, kinds)
                assert len(set(dist.values())) == 1, dist
                assert len(cands) <= 1 + heuristic.SEARCH_DISCARDS
            if view.phase == "draw":
                assert cands == [prior]
            env.step(prior)
            if env.unwrapped.session_over:
                break


def test_search_candidates_offer_declaring_against_waiting():
    """C.2-7 "declaring is optional": where the heuristic waits with a valid hand, declaring with the same discard
    is the one alternative, and the other way round."""
    env = scenario_env(ONE_WILD + ["KD"], ["9D"], phase="act", turn=1)
    assert decide(env) == "discard K♦"
    prior, cands, view = candidates(env)
    lay = view.layout
    assert cands == [prior, prior - lay.DISCARD + lay.DISCARD_DECLARE]
    env = scenario_env(VALID + ["KD"], ["9D"], phase="act", turn=20)
    prior, cands, view = candidates(env)
    assert cands == [prior, prior - lay.DISCARD_DECLARE + lay.DISCARD]
