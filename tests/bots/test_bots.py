"""Bots: registry, legality over whole sessions, seeded determinism, no peeking at hidden cards, the contract
heuristic's decisions on scripted hands, and a seeded match against random play."""

from __future__ import annotations

from functools import partial

import pytest
import scenarios
from scenarios import check_blind_to_hidden, decide, play_turn

import rummy_env
from rummy_env import bots
from rummy_env.core.cards import JOKER, card_str, parse_cards
from rummy_env.evaluation.bots_eval import evaluate, format_report, main

PROFILE = "contract"
play = partial(scenarios.play, PROFILE)

# ----------------------------------------------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------------------------------------------


def scenario_env(own: list[str], size: int = 10, fixed: dict[int, list[str]] | None = None, **scn):
    """A wrapped env started from a scenario: seat 0 holds ``own``; the other seats get ``fixed`` cards and then
    spread-out filler cards (``size`` in all) that make nothing."""
    fixed = fixed or {}
    used = list(own) + list(scn.get("discard", [])) + [c for cs in fixed.values() for c in cs]
    used += [c for m in scn.get("table", []) for c in m["cards"] if not c.startswith("JK")]
    pool = [k for k in range(52) for _ in range(2)]
    for k in parse_cards(used):
        if k != JOKER:
            pool.remove(k)
    order = pool[::7] + [k for i, k in enumerate(pool) if i % 7]
    hands = [list(own)]
    for seat in (1, 2, 3):
        hand = list(fixed.get(seat, []))
        while len(hand) < size:
            hand.append(card_str(order.pop(0)))
        hands.append(hand)
    scn.setdefault("dealer", 3)
    scn.setdefault("rigged", True)  # a hand-made table, not one reached by play
    scn["hands"] = hands
    env = rummy_env.make("contract")
    env.reset(seed=0, options={"scenario": scn})
    return env


# ----------------------------------------------------------------------------------------------------------------
# Registry
# ----------------------------------------------------------------------------------------------------------------


def test_unknown_id_raises_listing_the_known_ids():
    with pytest.raises(ValueError, match="unknown bot id 'nope'.*heuristic.*random"):
        bots.load("nope")
    with pytest.raises(ValueError, match="takes no argument"):
        bots.load("random:extra")
    with pytest.raises(ValueError, match="already registered"):
        bots.register("random", lambda arg, seed: None)
    with pytest.raises(ValueError, match="bad bot id"):
        bots.register("a:b", lambda arg, seed: None)
    assert {"random", "heuristic"} <= set(bots.known_ids())


def test_register_passes_the_argument_and_seed(bot_registry):
    seen = []

    def factory(arg, seed):
        seen.append((arg, seed))
        return bots.load("random", seed=seed)

    bots.register("test_echo", factory, overwrite=True)
    bot = bots.load("test_echo:some/path.pt", seed=5)
    assert seen == [("some/path.pt", 5)]
    assert isinstance(bot, bots.Bot)


def test_registrations_of_a_test_are_undone(bot_registry):
    """What the test before registered (``bot_registry``) is gone; the built-in ids are still there."""
    assert "test_echo" not in bots.known_ids() and {"random", "heuristic", "checkpoint"} <= set(bots.known_ids())


# ----------------------------------------------------------------------------------------------------------------
# Whole sessions: legal, deterministic, blind to hidden cards
# ----------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_and_heuristic_play_legal_sessions(seed):
    env, _ = play(["heuristic", "random", "heuristic", "random"], seed)
    results = env._state.round_results
    assert len(results) == 7
    assert not any(r["reason"] == "turn_cap" for r in results)


def test_bots_are_deterministic_for_a_seed():
    specs = ["heuristic", "random", "heuristic", "random"]
    a, _ = play(specs, seed=4, rounds=(1, 7))
    b, _ = play(specs, seed=4, rounds=(1, 7))
    assert a._state.history == b._state.history
    assert a._state.scores == b._state.scores
    env = rummy_env.make("contract")
    env.reset(seed=0)
    env.step(0)  # declines the discard: the next seat decides buy / pass
    agent = env.agent_selection
    first = [bots.load("random", seed=3).act(env, agent) for _ in range(5)]
    assert len(set(first)) == 1  # the same seed, the same choice
    bot = bots.load("random", seed=3)
    seq = [bot.act(env, agent) for _ in range(40)]
    bot.reset(3)
    assert [bot.act(env, agent) for _ in range(40)] == seq
    assert len(set(seq)) == 2


def test_decisions_do_not_change_when_hidden_cards_are_resampled():
    """Resample every card the deciding seat cannot see (opponents' hidden cards, stock order): its public view and
    its decision stay the same, in every phase."""
    seen = check_blind_to_hidden(PROFILE, ["heuristic", "heuristic", "heuristic", "random"], (3, 5), rng_seed=11)
    assert seen["checked"] > 1000
    assert {"draw", "buy", "act", "opening"} <= seen["phases"]


# ----------------------------------------------------------------------------------------------------------------
# The contract heuristic on scripted hands
# ----------------------------------------------------------------------------------------------------------------

ROUND1_HAND = "7C 7D 9C 9D 9H KS QC 2D 3H 5S".split()


def test_takes_the_discard_that_advances_the_contract_and_declines_others():
    # round 1 (two groups): 7♣ 7♦ + 7♥ makes the second group
    assert decide(scenario_env(ROUND1_HAND, round=1, discard=["7H"])) == "take 7♥ from the discard pile"
    assert decide(scenario_env(ROUND1_HAND, round=1, discard=["JS"])) == "draw from the stock"


def test_buys_a_card_that_advances_the_contract_but_not_once_down():
    env = scenario_env(ROUND1_HAND, round=1, discard=["7H"], phase="buy", active=3, current_player=0)
    assert decide(env) == "buy 7♥ (+ penalty card)"
    # late in the round, with every opponent down, the penalty card is not worth it for a mere pair
    table = [
        {"owner": p, "kind": "group", "cards": [f"{r}C", f"{r}D", f"{r}S"]} for p, r in ((1, "4"), (2, "5"), (3, "6"))
    ] + [{"owner": p, "kind": "group", "cards": [f"{r}C", f"{r}D", f"{r}S"]} for p, r in ((1, "J"), (2, "Q"), (3, "K"))]
    env = scenario_env(
        "7C 9C 9D 9H KH QH 2D 3H 5H 8H".split(),
        round=1,
        discard=["7H"],
        phase="buy",
        active=3,
        current_player=0,
        table=table,
        opened=[1, 2, 3],
        turn=60,
    )
    assert decide(env) == "pass (do not buy)"
    # down already: a bought card comes with a penalty card that must then be got rid of
    env = scenario_env(
        "8C 2D 3H 5S".split(),
        size=4,
        round=1,
        discard=["7H"],
        phase="buy",
        active=3,
        current_player=0,
        table=[{"owner": 0, "kind": "group", "cards": ["7C", "7D", "7S"]}],
        opened=[0],
    )
    assert decide(env) == "pass (do not buy)"


def test_opens_at_once_with_the_opening_that_leaves_the_best_rest():
    # round 2 (group + run) after drawing 8♠: 4♠ 5♠ 6♠ + JK as 7♠ keeps 8♠ playable on the run's high end;
    # JK as 3♠ would strand the 8♠
    env = scenario_env("4S 5S 6S JK 9C 9D 9H 2H KD QC 8S".split(), round=2, phase="act", active=0, current_player=0)
    bot = bots.load("heuristic", seed=0)
    done = play_turn(env, bot)
    melds = [d for d in done if d.startswith("declare")]
    assert len(melds) == 2
    assert "declare group 9♣ 9♦ 9♥" in melds
    assert "declare run JK(3S) 4♠ 5♠ 6♠" not in melds
    assert done[-1] == "discard K♦"


def test_lays_off_everything_chains_included_and_goes_out():
    # seat 0 is down since an earlier turn: 8♠ then 9♠ extend its run, 7♥ joins its group, K♦ is the discard
    table = [
        {"owner": 0, "kind": "group", "cards": ["7C", "7D", "7S"]},
        {"owner": 0, "kind": "run", "cards": ["4S", "5S", "6S", "7S"]},
    ]
    env = scenario_env(
        "8S 9S 7H KD".split(), size=10, round=2, phase="act", active=0, current_player=0, table=table, opened=[0]
    )
    done = play_turn(env, bots.load("heuristic", seed=0))
    assert done[:2] == ["lay off 8♠ on seat 0's run 4♠–7♠ (high end)", "lay off 9♠ on seat 0's run 4♠–8♠ (high end)"]
    assert done[2] == "lay off 7♥ on seat 0's group 7♣ 7♦ 7♠"
    assert done[3] == "discard K♦"
    assert env.unwrapped._state.round_results[-1]["winner"] == 0


def test_swaps_a_joker_for_the_natural_it_stands_for():
    table = [
        {"owner": 0, "kind": "group", "cards": ["QC", "QD", "QS"]},
        {"owner": 0, "kind": "group", "cards": ["3C", "3D", "3S"]},
        {"owner": 1, "kind": "run", "cards": ["5D", "JK(6D)", "7D", "8D"]},
    ]
    env = scenario_env("6D KC 2H".split(), round=1, phase="act", active=0, current_player=0, table=table, opened=[0, 1])
    done = play_turn(env, bots.load("heuristic", seed=0))
    assert done[0] == "swap 6♦ for the joker in seat 1's run 5♦–8♦"
    assert done[1].startswith("place the freed joker on seat 0's group")  # a group: no new place for opponents
    assert done[-1] == "discard K♣"


def test_discard_avoids_what_the_next_player_collects():
    # round 1, not down: 9♥ is the dearest loose card, but seat 1 took 9♣ 9♦ from the discard pile
    hand = "5C 5D 8C 8D JC JD QS QH 9H 2C 3S".split()
    env = scenario_env(hand, round=1, phase="act", active=0, current_player=0)
    assert decide(env) == "discard 9♥"
    env = scenario_env(
        hand,
        round=1,
        phase="act",
        active=0,
        current_player=0,
        fixed={1: ["9C", "9D"]},
        known=[[], ["9C", "9D"], [], []],
    )
    assert decide(env) == "discard 3♠"


def test_round_7_goes_out_and_builds_three_runs():
    hand = "AC 2C 3C 4C 5D 6D 7D 8D 9H 10H JH QH KH".split()
    env = scenario_env(hand, size=12, round=7, phase="act", active=0, current_player=0)
    assert decide(env) == "go out: lay the whole hand as runs"
    # one card short of three runs: the discard top that fills the gap is taken
    hand = "AC 2C 3C 4C 5D 6D 8D 9H 10H JH QH KH".split()
    env = scenario_env(hand, size=12, round=7, discard=["7D"])
    assert decide(env) == "take 7♦ from the discard pile"
    # after drawing a stray card it goes back, whatever its penalty
    env = scenario_env(hand + ["2S"], size=12, round=7, phase="act", active=0, current_player=0)
    assert decide(env) == "discard 2♠"


# ----------------------------------------------------------------------------------------------------------------
# Styled heuristics: heuristic:FIELD=NUMBER,...
# ----------------------------------------------------------------------------------------------------------------


def test_a_style_replaces_its_fields_and_leaves_the_default_bot_alone():
    styled = bots.load("heuristic:penalty_weight=0.4,buy_danger=2", seed=0)
    assert styled.name == "heuristic:penalty_weight=0.4,buy_danger=2"
    style = styled._policy("contract").style
    assert (style.penalty_weight, style.buy_danger) == (0.4, 2.0)
    assert style.take_gain == type(style)().take_gain  # the other fields keep their defaults
    plain = bots.load("heuristic", seed=0)
    assert plain.name == "heuristic" and plain._policy("contract").style == type(style)()
    assert styled.fork()._policy("contract").style == style  # rollouts keep the style


def test_a_styled_heuristic_plays_differently_and_the_default_values_play_the_same():
    base, _ = play(["heuristic"] * 4, seed=3, rounds=(1, 2))
    same, _ = play(["heuristic:penalty_weight=0.1"] * 4, seed=3, rounds=(1, 2))  # 0.1 is the default
    other, _ = play(["heuristic:penalty_weight=1.5"] * 4, seed=3, rounds=(1, 2))
    again, _ = play(["heuristic:penalty_weight=1.5"] * 4, seed=3, rounds=(1, 2))
    assert same._state.history == base._state.history
    assert other._state.history != base._state.history
    assert other._state.history == again._state.history


def test_the_continental_outs_tie_break_is_off_by_default_and_changes_the_game_when_on():
    """``outs_weight`` (ContinentalStyle): 0, the default, plays plain ``heuristic``'s game; 1 another, reproducibly."""
    cont = partial(scenarios.play, "continental")
    base, _ = cont(["heuristic"] * 4, seed=5, rounds=2)
    same, _ = cont(["heuristic:outs_weight=0"] * 4, seed=5, rounds=2)
    other, _ = cont(["heuristic:outs_weight=1"] * 4, seed=5, rounds=2)
    again, _ = cont(["heuristic:outs_weight=1"] * 4, seed=5, rounds=2)
    assert same._state.history == base._state.history
    assert other._state.history != base._state.history
    assert other._state.history == again._state.history


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("heuristic:nope=1", "unknown heuristic style field 'nope'"),
        ("heuristic:penalty_weight=high", "is not FIELD=NUMBER"),
        ("heuristic:penalty_weight", "is not FIELD=NUMBER"),
        ("heuristic:penalty_weight=inf", "must be a finite number"),
        ("heuristic:=1", "is not FIELD=NUMBER"),
    ],
)
def test_bad_heuristic_styles_are_refused_naming_the_fields(spec: str, says: str):
    with pytest.raises(bots.BotLoadError, match=says) as info:
        bots.load(spec)
    assert "penalty_weight" in str(info.value) or "FIELD=NUMBER" in str(info.value)


def test_a_style_field_of_another_profile_is_refused_when_it_plays_that_profile():
    from rummy_env.bots.heuristic import HeuristicStyleError

    bot = bots.load("heuristic:wait_margin=2", seed=0)  # a continental field
    env = rummy_env.make("contract")
    env.reset(seed=0)
    with pytest.raises(HeuristicStyleError, match=r"\['wait_margin'\] are not fields of the contract heuristic"):
        bot.act(env, env.agent_selection)
    env = rummy_env.make("continental", num_players=4)
    env.reset(seed=0)
    assert env.observe(env.agent_selection)["action_mask"][bot.act(env, env.agent_selection)] == 1


# ----------------------------------------------------------------------------------------------------------------
# Matches
# ----------------------------------------------------------------------------------------------------------------


def test_heuristic_beats_random_by_a_wide_margin():
    report = evaluate("contract", ["heuristic", "random", "random", "random"], sessions=30, seed=0)
    h, r = report["bots"]["heuristic"], report["bots"]["random"]
    assert h["mean_penalty_per_round"] + h["ci95"] < 0.4 * (r["mean_penalty_per_round"] - r["ci95"])
    assert h["rounds_won_share"] > 0.4 > r["rounds_won_share"]
    assert report["turn_cap_share"] == 0.0
    assert "heuristic" in format_report(report)


def test_evaluate_is_the_same_with_more_workers(capsys):
    one = evaluate("contract", ["random"] * 4, sessions=4, seed=2, workers=1)
    two = evaluate("contract", ["random"] * 4, sessions=4, seed=2, workers=2)
    one.pop("wall_seconds"), two.pop("wall_seconds")
    assert one == two
    assert one["rounds"] == 28 and one["bots"]["random"]["seats"] == 4
    with pytest.raises(ValueError, match="give 4 entrants"):
        evaluate("contract", ["random"] * 3, sessions=1)
    main(["--entrants", "random", "random", "random", "random", "--sessions", "1", "--json"])
    assert '"mean_penalty_per_round"' in capsys.readouterr().out
