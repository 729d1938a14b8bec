"""The ``continental`` heuristic: its distance measure against the exact going-out check, legal and seeded play at 4
and 5 players, blindness to hidden cards, decisions on scripted hands, and a seeded match against random play."""

from __future__ import annotations

import random
from functools import partial
from pathlib import Path

import pytest
import scenarios
from scenarios import check_blind_to_hidden, counts, decide

import rummy_env
from rummy_env import bots
from rummy_env.bots.heuristic_continental import RunPlanner
from rummy_env.bots.view import ContinentalView
from rummy_env.core.cards import JOKER, card_str, parse_cards
from rummy_env.rules.continental_hand import (
    RUN_LENGTH_PATTERNS,
    can_go_out,
    random_shoe_counts,
    random_valid_counts,
)

PROFILE = "continental"
play = partial(scenarios.play, PROFILE)

# ----------------------------------------------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------------------------------------------


def session_payments(specs: list[str], sessions: int, seed: int) -> dict[str, dict[str, float]]:
    """Seats rotated as in ``bots_eval``: mean payment per deal per seat, share of deals won, share capped."""
    n = len(specs)
    env = rummy_env.make("continental", wrapped=False, num_players=n)
    pay = {s: 0.0 for s in set(specs)}
    won = {s: 0 for s in set(specs)}
    seats = {s: specs.count(s) for s in set(specs)}
    deals = capped = 0
    players = [bots.load(s, seed=None) for s in specs]
    for i in range(sessions):
        deal_seed = seed * 100_000 + i
        env.reset(seed=deal_seed)
        for j, bot in enumerate(players):
            bot.reset(deal_seed * 10 + j)
        at = {(i + j) % n: j for j in range(n)}
        while not env._state.is_terminal():
            agent = env.agent_selection
            env.step(players[at[env.agent_name_mapping[agent]]].act(env, agent))
        for res in env._state.round_results:
            deals += 1
            capped += res["reason"] == "turn_cap"
            for seat, j in at.items():
                pay[specs[j]] += res["payments"][seat]
            if res["winner"] is not None:
                won[specs[at[res["winner"]]]] += 1
    return {
        s: {"payment": pay[s] / (deals * seats[s]), "won": won[s] / (deals * seats[s]), "capped": capped / deals}
        for s in pay
    }


def scenario_env(own: list[str], discard: list[str], phase: str = "draw", n: int = 4, **scn):
    """Seat 0 to move with ``own``; the other seats get spread-out filler cards (15 each) that make nothing."""
    used = parse_cards(own + discard)
    pool = [k for k in range(52) for _ in range(2)] + [JOKER, JOKER]
    for k in used:
        pool.remove(k)
    pool = [k for k in pool if k != JOKER and k % 13 != 1]  # no wilds for the others: nothing to go out with
    order = pool[::7] + [k for i, k in enumerate(pool) if i % 7]
    hands = [list(own)] + [[card_str(order.pop(0)) for _ in range(15)] for _ in range(n - 1)]
    scn.setdefault("dealer", n - 1)
    scn.setdefault("turns_taken", [1] * n)
    env = rummy_env.make("continental", num_players=n)
    env.reset(
        seed=0,
        options={"scenario": {"hands": hands, "discard": discard, "phase": phase, "active": 0, **scn}},
    )
    return env


VALID = "3C 4C 5C 6D 7D 8D 9H 10H JH QS KS AS 5S 6S 7S".split()  # five runs of three, no wild

# ----------------------------------------------------------------------------------------------------------------
# The distance to going out
# ----------------------------------------------------------------------------------------------------------------


def test_distance_is_zero_exactly_when_the_hand_goes_out():
    planner = RunPlanner(RUN_LENGTH_PATTERNS)
    rng = random.Random(7)
    hands = [random_valid_counts(rng) for _ in range(600)] + [random_shoe_counts(rng) for _ in range(600)]
    for _ in range(800):  # one card away: a valid hand with one card exchanged
        h = random_valid_counts(rng)
        k = rng.choice([k for k in range(53) if h[k]])
        h[k] -= 1
        h[rng.randrange(53)] += 1
        hands.append(h)
    checked = 0
    for h in hands:
        if max(h[:52]) > 2 or h[JOKER] > 2:
            continue  # not a hand of the 106-card shoe
        d = planner.distance(h)
        assert (d == 0) == can_go_out(h), [card_str(k) for k in range(53) for _ in range(h[k])]
        checked += 1
    assert checked > 1800
    # a valid hand with one card exchanged is at most one card away
    assert all(planner.distance(h) <= 1 for h in hands[1200:] if max(h[:52]) <= 2 and h[JOKER] <= 2)


def test_distance_counts_the_missing_cards():
    planner = RunPlanner(RUN_LENGTH_PATTERNS)
    less = [c for c in VALID if c not in ("7S", "JH")]
    assert planner.distance(counts(VALID)) == 0
    assert planner.distance(counts(less + ["7S", "KD"])) == 1  # K♦ for J♥: one card missing
    assert planner.distance(counts(less + ["KD", "4D"])) == 2
    assert planner.distance(counts(less + ["2C", "JK"])) == 0  # wilds fill any hole


# ----------------------------------------------------------------------------------------------------------------
# Whole sessions: legal, deterministic, blind to hidden cards
# ----------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [4, 5])
def test_heuristic_answers_legally_in_thousands_of_random_states(players):
    # random play wanders through long deals (turn cap included); the heuristic is asked at every state
    _, asked = play(["random"] * players, seed=players, deals=2, ask_heuristic=True)
    assert asked > 1500


@pytest.mark.parametrize("players", [4, 5])
def test_heuristic_sessions_are_legal_and_end_before_the_cap(players):
    env, _ = play(["heuristic"] * (players - 1) + ["random"], seed=3)
    results = env._state.round_results
    assert len(results) == players
    assert all(r["reason"] == "out" for r in results)


def test_heuristic_is_deterministic_for_a_seed():
    specs = ["heuristic", "heuristic", "random", "heuristic"]
    a, _ = play(specs, seed=8, deals=2)
    b, _ = play(specs, seed=8, deals=2)
    assert a._state.history == b._state.history
    assert a._state.scores == b._state.scores


def test_decisions_do_not_change_when_hidden_cards_are_resampled():
    specs = ["heuristic", "heuristic", "heuristic", "random"]
    seen = check_blind_to_hidden(PROFILE, specs, (2, 6, 9), rng_seed=5, only="heuristic", view_type=ContinentalView)
    assert seen["checked"] > 400
    assert {"draw", "act"} <= seen["phases"]
    assert {"draw_stock", "draw_discard", "discard", "discard_declare"} <= seen["kinds"]


# ----------------------------------------------------------------------------------------------------------------
# Decisions on scripted hands
# ----------------------------------------------------------------------------------------------------------------


def test_declares_a_valid_dealt_hand_without_drawing():
    env = scenario_env(VALID, ["9C"], turns_taken=[0, 0, 0, 0])
    assert decide(env) == "declare: reveal all 15 cards and go out without drawing"


def test_takes_the_discard_that_brings_the_hand_closer_and_declines_others():
    hand = [c for c in VALID if c != "7S"] + ["KD"]
    assert decide(scenario_env(hand, ["7S"])) == "take 7♠ from the discard pile"
    assert decide(scenario_env(hand, ["2H"])) == "take 2♥ from the discard pile"  # a wild fills the hole
    assert decide(scenario_env(hand, ["9D"])) == "draw from the stock"


def test_discards_the_stray_card_never_a_wild():
    # 16 cards, one card from going out: K♦ is far from everything; the 2 stays (it will fill the J♥ gap)
    hand = [c for c in VALID if c != "JH"] + ["2H", "KD"]
    hand.remove("7S")
    hand.append("8S")
    env = scenario_env(hand, ["9D"], phase="act")
    assert decide(env) == "discard K♦"


def test_goes_out_with_the_discard_that_pays_most():
    # the valid runs plus 2♦: throwing the 2 leaves a hand without wilds (W = 10, 11 a head), throwing 3♣ keeps
    # 2♦ as the 3♣ (W = 1): the 2 goes
    env = scenario_env(VALID + ["2D"], ["9D"], phase="act")
    assert decide(env) == "discard 2♦ and declare: reveal the 15 cards left and go out"
    # here the 2 is needed (it stands for 7♠): the stray K♦ goes
    env = scenario_env([c for c in VALID if c != "7S"] + ["2D", "KD"], ["9D"], phase="act", turn=20)
    assert decide(env) == "discard K♦ and declare: reveal the 15 cards left and go out"


def test_declares_at_once_when_nothing_better_is_near():
    env = scenario_env(VALID + ["KD"], ["9D"], phase="act", turn=20)
    assert decide(env) == "discard K♦ and declare: reveal the 15 cards left and go out"


#: a valid 15 whose only wild (2H for 3C) pays W = 1; a natural 3C would make it W = 10
ONE_WILD = ["2H"] + VALID[1:]


def test_waits_with_a_plain_discard_when_a_better_payment_is_near():
    # C.2-7: declaring is optional; early in the deal the lone wild is worth swapping for the no-wild bonus
    env = scenario_env(ONE_WILD + ["KD"], ["9D"], phase="act", turn=1)
    assert decide(env) == "discard K♦"
    assert env.unwrapped._state.find_action(kind="discard_declare", card="KD") in env.unwrapped._state.legal_actions()


def test_declares_when_the_rules_make_it_mandatory():
    # declare_mandatory=True: the plain discard of K♦ is illegal, so the heuristic declares with it
    env = scenario_env(ONE_WILD + ["KD"], ["9D"], phase="act", turn=1)
    sc = env.unwrapped._state.to_json()
    env = rummy_env.make("continental", declare_mandatory=True)
    env.reset(seed=0, options={"scenario": sc})
    assert decide(env) == "discard K♦ and declare: reveal the 15 cards left and go out"


# ----------------------------------------------------------------------------------------------------------------
# Match against random play
# ----------------------------------------------------------------------------------------------------------------


def test_heuristic_beats_random_by_a_wide_margin():
    # 12 seeded sessions (48 deals), seats rotated; random play almost never goes out, the heuristic almost always
    figures = session_payments(["heuristic", "random", "random", "random"], sessions=12, seed=0)
    h, r = figures["heuristic"], figures["random"]
    assert h["payment"] > 6.0 and r["payment"] < -2.0
    assert h["won"] > 0.85 > 0.05 > r["won"]
    assert h["capped"] <= 0.05


# ----------------------------------------------------------------------------------------------------------------
# The shipped checkpoint
# ----------------------------------------------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", ["continental"])
def test_shipped_checkpoint_loads_and_declares_with_the_discard(name: str):
    """The shipped checkpoint loads in the current env and declares with the discard."""
    pytest.importorskip("torch")
    pytest.importorskip("safetensors")
    from rummy_env.models.checkpoints import load_checkpoint

    path = ROOT / "checkpoints" / name
    ckpt = load_checkpoint(path, expect_profile="continental", expect_num_players=4)
    assert ckpt.metadata["num_actions"] == 109
    env = scenario_env(VALID + ["KD"], ["9D"], phase="act", turn=20)
    bot = bots.load(f"checkpoint:{path}", seed=0)
    action = bot.act(env, env.agent_selection)
    assert env.unwrapped.action_info(action)["kind"] == "discard_declare"
