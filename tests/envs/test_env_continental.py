"""Conformance of the PettingZoo env ``continental_v0`` for 4 and 5 players.

The checks are ``conformance.ProfileConformance`` (PettingZoo API tests, entry points, ANSI rendering, exact masks
both ways with the going-out brute force as oracle, hidden information, reward accounting for "payment" and "win",
observations, the ``action_info`` schema, illegal actions, configuration errors, ``deals`` and ``max_steps``), run
over every case of the profile. Random play almost never holds a valid 15-card hand, so rigged scenarios near going
out (``conformance.RIGGED["continental"]``) supply the declarations. Figures are printed (run with ``-s``).
"""

from __future__ import annotations

import copy
from collections import Counter

import numpy as np
import pytest
from conformance import (
    CONT_ONE_SUIT,
    CONT_V1,
    CONT_V2,
    ProfileConformance,
    build_scenario,
    case_id,
    cases_of,
    continental_valid,
    make_env,
)

import rummy_env
from rummy_env.core.cards import counts_of, parse_cards

CASES = [pytest.param(c, id=case_id(c)) for c in cases_of("continental")]


class TestContinentalEnv(ProfileConformance):
    profile = "continental"


@pytest.mark.parametrize("case", CASES)
def test_table_sizes(case):
    """109 action ids for 4 and 5 players, a shoe of 106 cards (the entry points themselves:
    ``ProfileConformance.test_entry_points``)."""
    env = make_env(case)
    assert env.action_space("player_0").n == 109
    assert env.unwrapped.rules.decks * 52 + env.unwrapped.rules.jokers == 106


def test_rigged_hands_are_valid_by_brute_force():
    for hand in (CONT_V1, CONT_V2, CONT_ONE_SUIT):
        assert continental_valid(counts_of(parse_cards(hand)))
    for bad in ("3C 4C 5C 6C 7C 3D 4D 5D 6D 7D 3H 4H 5H 6H 7H", "KS AS 2S 3S 3C 4C 5C 6C 3D 4D 5D 6D 9H 10H JH"):
        assert not continental_valid(counts_of(parse_cards(bad)))


@pytest.mark.parametrize("case", CASES)
def test_declaration_rewards(case):
    """C.1-5/C.1-6 through the env: the first-turn declaration without drawing pays 1 + 10 (no wild) + 10 (no
    draw) per opponent; the rewards are the balance changes / 100, delivered to every agent."""
    n = case[1]["num_players"]
    env = make_env(case)
    sc = build_scenario(case, CONT_V1, phase="draw", turns_taken=[0] * n, deals=1)
    env.reset(seed=0, options={"scenario": sc})
    u = env.unwrapped
    env.step(u._state.find_action(kind="declare", draw=False))
    pay = 1 + 10 + 10
    res = u._state.round_results[-1]
    assert res["winner"] == 0 and res["payments"] == [pay * (n - 1)] + [-pay] * (n - 1)
    got = {}
    for agent in env.agent_iter():
        _, rew, term, trunc, _ = env.last()
        assert term
        got[agent] = rew
        env.step(None)
    assert got == {a: (pay * (n - 1) if i == 0 else -pay) / 100 for i, a in enumerate(env.possible_agents)}


@pytest.mark.parametrize("case", CASES)
def test_balances_piece_in_space_after_payments(case):
    """Negative balances must still give an observation inside ``Box(0, inf)``."""
    n = case[1]["num_players"]
    env = make_env(case)
    env.reset(seed=0, options={"scenario": build_scenario(case, CONT_V1 + " KS")})
    env.step(env.unwrapped._state.find_action(kind="discard_declare", card="KS"))
    assert min(env.unwrapped._state.scores) < 0
    for a in env.possible_agents:
        o = env.unwrapped.observe(a)
        assert env.observation_space(a).contains(o), np.flatnonzero(o["observation"] < 0)
    assert len(env.possible_agents) == n


@pytest.mark.parametrize("case", CASES)
def test_valid_hand_after_discard_is_not_visible_to_the_others(case):
    """Issue 13.4: a plain discard that leaves a valid 15 passes the turn exactly like any other discard; the other
    seats' observations are the same as in a world where seat 0 holds one other hidden card (6H swapped with a
    stock card) and his 15 left are invalid."""
    valid = build_scenario(case, CONT_V1 + " KS", discard=["QD"])
    held = Counter(c for h in valid["hands"] for c in h) + Counter(valid["discard"])
    base = [c for c in valid["hands"][0] if c != "6H"]

    def hopeless(card: str) -> bool:  # no discard of the 16 leaves a valid 15
        hand = counts_of(parse_cards([*base, card]))
        return not any(continental_valid([c - (i == k) for i, c in enumerate(hand)]) for k in range(len(hand)))

    spare = next(c for c in ("KC", "KD", "QC", "QS", "AS", "AC", "8D") if held[c] < 2 and hopeless(c))
    invalid = copy.deepcopy(valid)
    invalid["hands"][0] = [*base, spare]
    worlds = {}
    for name, sc in (("valid", valid), ("invalid", invalid)):
        env = make_env(case)
        env.reset(seed=0, options={"scenario": sc})
        u = env.unwrapped
        assert ("discard_declare" in {i["kind"] for _, i in u._state.legal_action_infos()}) is (name == "valid")
        env.step(u._state.find_action(kind="discard", card="KS"))
        assert env.agent_selection == "player_1" and u._state.phase == "draw"
        worlds[name] = [u.observe(a)["observation"] for a in env.possible_agents[1:]]
    assert len(worlds["valid"]) == case[1]["num_players"] - 1
    for a, b in zip(worlds["valid"], worlds["invalid"], strict=True):
        assert np.array_equal(a, b)


def test_rounds_is_the_session_length_and_deals_is_its_old_spelling() -> None:
    """One session-length argument for every profile: ``rounds=N`` plays N deals; ``deals=N`` still works with a
    ``DeprecationWarning``, and giving both is refused."""
    env = rummy_env.make("continental", rounds=2)
    env.reset(seed=1)
    assert env.unwrapped.game_state()["deals"] == 2
    with pytest.warns(DeprecationWarning, match="rounds="):
        old = rummy_env.make("continental", deals=2)
    old.reset(seed=1)
    assert old.unwrapped.game_state() == env.unwrapped.game_state()
    with pytest.raises(ValueError, match="once"):
        rummy_env.make("continental", rounds=2, deals=2)
