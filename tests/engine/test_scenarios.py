"""Scenario loading of the Contract Rummy family: impossible or mistyped states are refused (issue 13, point 3).

Every bad input is a ``ScenarioError`` (a ``ValueError``) whose message names the key and says what is allowed;
nothing else escapes the loader (no ``TypeError``, ``OverflowError``, plain ``ValueError``, no state that loads
and breaks later). The positions are real dumps (``state.to_json()`` of seeded play) with one field spoiled, so the
only thing wrong with each is the field under test. Dumps of live play load back identically, including the
derived fields (buy window, player count).
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from rummy_env.core.cards import JOKER
from rummy_env.engine import ScenarioError, load_state, new_state

# ----------------------------------------------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------------------------------------------


def play_until(pred: Callable[[Any], bool], profile: str = "contract", seed: int = 0, **overrides: Any):
    """The first state of seeded uniform-random play (sessions seed, seed+1, ...) for which ``pred`` holds."""
    for sd in range(seed, seed + 50):
        s = new_state(profile, seed=sd, **overrides)
        rng = random.Random(sd)
        while not s.is_terminal():
            if pred(s):
                return s
            s.apply(rng.choice(s.legal_actions()))
    raise AssertionError("no such state in 50 seeded sessions")


def fresh_deal() -> dict[str, Any]:
    """Round 1 just dealt (seed 1: dealer 1, seat 2 to draw, 10 cards each)."""
    return new_state("contract", seed=1).to_json()


_POSITIONS: dict[str, Callable[[Any], bool]] = {
    "act_unopened": lambda s: s.phase == "act" and not s.opened[s.active],
    "joker_unopened": lambda s: s.phase == "act" and not s.opened[s.active] and s.hands[s.active][JOKER] > 0,
    "owner1_draw": lambda s: s.phase == "draw" and s.round <= 3 and any(m.owner == 1 for m in s.table),
    "opening": lambda s: s.phase == "opening",
    "buy2": lambda s: s.phase == "buy" and len(s.buy_queue) >= 2,
}
_CACHE: dict[str, dict[str, Any]] = {}


def position(name: str) -> dict[str, Any]:
    """A copy of the dump of a named position of seeded contract play (found once, then cached)."""
    if name not in _CACHE:
        _CACHE[name] = play_until(_POSITIONS[name], seed=0).to_json()
    return copy.deepcopy(_CACHE[name])


def with_(data: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A deep copy of ``data`` with some keys replaced."""
    out = copy.deepcopy(data)
    out.update(changes)
    return out


def refused(data: dict[str, Any], key: str, **overrides: Any) -> str:
    """Assert that loading ``data`` raises ScenarioError naming ``key``; the message."""
    with pytest.raises(ScenarioError) as err:
        load_state(data, **overrides)
    msg = str(err.value)
    assert key in msg, msg
    return msg


def round_trip(s) -> None:
    """dump -> JSON text -> load -> dump is identical."""
    d = s.to_json()
    assert load_state(json.loads(json.dumps(d))).to_json() == d


# ----------------------------------------------------------------------------------------------------------------
# Impossible states that used to load and play on
# ----------------------------------------------------------------------------------------------------------------


def _empty_hand(d: dict[str, Any]) -> dict[str, Any]:
    seat = (d["active"] + 1) % 4
    d = copy.deepcopy(d)
    d["stock"] += d["hands"][seat]  # to the stock bottom: every card still there once
    d["hands"][seat] = []
    return d


def _short_unopened_hand(d: dict[str, Any]) -> dict[str, Any]:
    seat = (d["active"] + 1) % 4
    d = copy.deepcopy(d)
    d["stock"].append(d["hands"][seat].pop())
    return d


def _taken_not_in_hand(d: dict[str, Any]) -> dict[str, Any]:
    d = position("act_unopened")
    missing = next(c for c in ("KS", "QS", "JS", "10S", "9S", "8S") if c not in d["hands"][d["active"]])
    return with_(d, taken_discard=missing, taken_pending=True)


def _owner_true(d: dict[str, Any]) -> dict[str, Any]:
    d = position("owner1_draw")
    for m in d["table"]:
        if m["owner"] == 1:
            m["owner"] = True  # == 1 in Python: used to be taken as seat 1
    return d


# (case id, spoil a fresh round-1 deal, the key the message must name)
IMPOSSIBLE = [
    ("empty-hand-mid-round", _empty_hand, "hands[3]"),
    ("unopened-hand-below-deal", _short_unopened_hand, "hands[3]"),
    ("negative-scores", lambda d: with_(d, scores=[-5, 0, 0, 0]), "'scores'"),
    ("round-results-garbage", lambda d: with_(d, round_results="garbage"), "'round_results'"),
    ("opened-seat-without-melds", lambda d: with_(d, opened=[3]), "'opened'"),
    ("taken-discard-not-in-hand", _taken_not_in_hand, "'taken_discard'"),
    ("last-buyer-17", lambda d: with_(d, last_buyer=17), "'last_buyer'"),
    ("opened-this-turn-string", lambda d: with_(d, opened_this_turn="no"), "'opened_this_turn'"),
    ("meld-owner-true", _owner_true, ".owner"),
    ("scores-bool", lambda d: with_(d, scores=[True, 0, 0, 0]), "'scores'"),
]


@pytest.mark.parametrize("spoil,key", [c[1:] for c in IMPOSSIBLE], ids=[c[0] for c in IMPOSSIBLE])
def test_impossible_state_is_refused(spoil, key):
    refused(spoil(fresh_deal()), key)


def test_the_unspoilt_positions_load():
    """The positions the cases spoil load as dumped (so each case fails on its one spoilt field)."""
    for d in [fresh_deal()] + [position(name) for name in _POSITIONS]:
        assert load_state(json.loads(json.dumps(d))).to_json() == d


# ----------------------------------------------------------------------------------------------------------------
# Wrong exception types: TypeError, OverflowError, plain ValueError
# ----------------------------------------------------------------------------------------------------------------


def _rng(field: str, value: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def spoil(d: dict[str, Any]) -> dict[str, Any]:
        d = copy.deepcopy(d)
        if field in ("state", "inc"):
            d["rng"]["state"][field] = value
        else:
            d["rng"][field] = value
        return d

    return spoil


WRONG_TYPE = [
    ("opening-left-ab-in-opening", lambda d: with_(position("opening"), opening_left="ab"), "'opening_left'"),
    ("opening-left-ab-in-draw", lambda d: with_(d, opening_left="ab"), "'opening_left'"),
    ("rng-state-minus-5", _rng("state", "-5"), "'rng.state.state'"),
    ("rng-inc-too-big", _rng("inc", str(2**128 + 1)), "'rng.state.inc'"),
    ("rng-has-uint32-2", _rng("has_uint32", 2), "'rng.has_uint32'"),
    ("rng-uinteger-float", _rng("uinteger", 1.5), "'rng.uinteger'"),
    ("rounds-1-9", lambda d: with_(d, rounds=[1, 9]), "'rounds'"),
]


@pytest.mark.parametrize("spoil,key", [c[1:] for c in WRONG_TYPE], ids=[c[0] for c in WRONG_TYPE])
def test_wrong_exception_type_becomes_scenario_error(spoil, key):
    refused(spoil(fresh_deal()), key)


# ----------------------------------------------------------------------------------------------------------------
# More checks of one state (the fuzzer's invariants that a single state allows)
# ----------------------------------------------------------------------------------------------------------------


def _place_joker_without_opening(d: dict[str, Any]) -> dict[str, Any]:
    return with_(position("joker_unopened"), phase="place_joker")


def _opened_seat(d: dict[str, Any]) -> int:
    return next(m["owner"] for m in d["table"])


MORE = [
    ("round-results-entry", lambda d: with_(d, round_results=[{"round": 1}]), "round_results[0]"),
    (
        "round-results-winner-bool",
        lambda d: with_(
            d,
            round=2,
            rounds=[1, 2],
            round_index=1,
            scores=[0, 5, 5, 5],
            round_results=[{"round": 1, "winner": False, "reason": "out", "penalties": [0, 5, 5, 5]}],
        ),
        "round_results[0].winner",
    ),
    ("round-results-count", lambda d: with_(d, round=3, round_index=2), "'round_results'"),
    ("scores-not-the-penalty-sums", lambda d: _results_scores(d, [0, 5, 5, 6]), "'scores'"),
    ("known-not-a-list", lambda d: with_(d, known=5), "'known'"),
    ("turn-does-not-fit-dealer-and-active", lambda d: with_(d, turn=2), "'turn'"),
    ("turn-bool", lambda d: with_(d, turn=True), "'turn'"),
    ("current-player-bool", lambda d: with_(d, current_player=d["current_player"] == 1), "'current_player'"),
    ("opened-twice", lambda d: _opened_twice(), "'opened'"),
    ("taken-in-draw-phase", lambda d: with_(d, taken_discard=d["hands"][d["active"]][0]), "'taken_discard'"),
    ("taken-pending-string", lambda d: with_(d, taken_pending="false"), "'taken_pending'"),
    ("must-place-without-deep-pickup", lambda d: _must_place(position("act_unopened")), "'must_place'"),
    ("opening-left-in-act", lambda d: with_(d, opening_left=[1, 0]), "'opening_left'"),
    ("opening-left-wrong-count", lambda d: with_(position("opening"), opening_left=[2, 2]), "'opening_left'"),
    ("buy-queue-outside-buy", lambda d: with_(d, buy_queue=[3]), "'buy_queue'"),
    ("buy-queue-not-a-tail", lambda d: _reversed_queue(position("buy2")), "'buy_queue'"),
    ("buy-queue-bool-seat", lambda d: with_(position("buy2"), buy_queue=[True]), "buy_queue[0]"),
    ("place-joker-not-opened", _place_joker_without_opening, "'opened'"),
    ("opened-seat-not-the-contract", lambda d: _opened_with_wrong_round(), "'opened'"),
    ("table-not-a-list", lambda d: with_(d, table="5C 5D 5S"), "'table'"),
    ("meld-missing-key", lambda d: with_(position("owner1_draw"), table=[{"owner": 1, "kind": "group"}]), "table[0]"),
    ("rigged-string", lambda d: with_(d, rigged="yes"), "'rigged'"),
    ("round-index-without-rounds", lambda d: _without(with_(d, round_index=1), "rounds"), "'round_index'"),
    ("game-over-not-last-round", lambda d: with_(d, phase="game_over", current_player=-1), "'round_index'"),
    ("num-players-float", lambda d: with_(d, num_players=4.0), "'num_players'"),
    ("profile-not-a-string", lambda d: with_(d, profile=["contract"]), "'profile'"),
    ("rng-inc-even", _rng("inc", "2"), "'rng.state.inc'"),  # a PCG64 increment is odd
]


def _results_scores(d: dict[str, Any], scores: list[int]) -> dict[str, Any]:
    res = [{"round": 1, "winner": 0, "reason": "out", "penalties": [0, 5, 5, 5]}]
    return with_(d, round=2, rounds=[1, 2], round_index=1, scores=scores, round_results=res)


def _without(d: dict[str, Any], key: str) -> dict[str, Any]:
    d = copy.deepcopy(d)
    del d[key]
    return d


def _opened_with_wrong_round() -> dict[str, Any]:
    # an opened seat's melds are its round's contract: the same table read as another round that deals 10 cards
    d = position("owner1_draw")
    other = {1: 3, 2: 1, 3: 1}[d["round"]]
    return with_(d, round=other, rounds=[other], round_index=0, round_results=[], scores=[0] * 4)


def _opened_twice() -> dict[str, Any]:
    d = position("owner1_draw")
    return with_(d, opened=d["opened"] + d["opened"][:1])


def _must_place(d: dict[str, Any]) -> dict[str, Any]:
    return with_(d, must_place=d["hands"][d["active"]][0])


def _reversed_queue(d: dict[str, Any]) -> dict[str, Any]:
    return with_(d, buy_queue=d["buy_queue"][::-1])


@pytest.mark.parametrize("spoil,key", [c[1:] for c in MORE], ids=[c[0] for c in MORE])
def test_inconsistent_state_is_refused(spoil, key):
    refused(spoil(fresh_deal()), key)


def test_round_seven_has_no_melds_before_going_out():
    # A.1-9: round 7 is laid all at once, going out: no table and nobody opened while it is played
    d = with_(position("owner1_draw"), round=7, rounds=[7], round_index=0, round_results=[], scores=[0] * 4)
    msg = refused(d, "'opened'")
    assert "round 7" in msg


# ----------------------------------------------------------------------------------------------------------------
# What may legitimately look odd loads: bought cards, an opening in progress, rigged positions
# ----------------------------------------------------------------------------------------------------------------


def test_unopened_hand_grows_by_buying_and_counts_its_opening_melds():
    # A.1-10: a buy adds two cards, so an unopened hand may exceed the deal
    s = play_until(lambda s: any(not s.opened[p] and s.hand_size[p] > 11 for p in range(4)), seed=0)
    round_trip(s)
    # an opening in progress: the hand is below the deal, its melds on the table make up the difference
    s = play_until(lambda s: s.phase == "opening" and s.hand_size[s.active] < s.rules.hand_sizes[s.round - 1])
    round_trip(s)


def test_rigged_position_allows_short_hands_and_survives_a_dump():
    # hand-made rule positions hold a few cards per seat; "rigged": true says so, every other check still applies
    scen = {
        "round": 2,
        "dealer": 3,
        "hands": [["7C", "7D", "7H", "3S"], ["4C"], ["5C"], []],
        "discard": ["KS"],
        "rigged": True,
    }
    s = load_state(scen, seed=0)
    assert s.to_json()["rigged"] is True
    round_trip(s)
    refused(_without(scen, "rigged"), "hands[0]")
    refused(with_(scen, scores=[-1, 0, 0, 0]), "'scores'")  # still checked when rigged
    refused(with_(scen, opened=[2]), "'opened'")  # an opened seat needs melds, rigged or not
    # the next deal is a real one: the flag goes
    rng = random.Random(0)
    while s.round == 2:
        s.apply(rng.choice(s.legal_actions()))
    assert "rigged" not in s.to_json()


def test_game_over_at_the_turn_cap_reloads():
    # the turn cap ends the round after counting the turn past it: the final dump holds turn = cap + 1
    s = new_state("contract", seed=0, rounds=(1,), turn_cap=3)
    rng = random.Random(0)
    while not s.is_terminal():
        s.apply(rng.choice(s.legal_actions()))
    assert s.round_results[-1]["reason"] == "turn_cap" and s.turn == 4
    d = s.to_json()
    assert load_state(d, turn_cap=3).to_json() == d
    refused(with_(fresh_deal(), turn=5), "'turn'", turn_cap=3)  # past the cap only once the game is over


# ----------------------------------------------------------------------------------------------------------------
# Loader inconsistencies: the player count, the derived buy window
# ----------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("drop", [True, False], ids=["without-num_players", "with-num_players"])
def test_five_player_gamerules_dump_loads_without_a_player_override(drop):
    # B.2-1: five players play with 106 cards; the dump's hands (or its num_players) say how many sit at the table
    s = play_until(lambda s: s.dealer == 4 and s.phase == "act", "contract_gamerules", seed=0, num_players=5)
    d = s.to_json()
    data = _without(d, "num_players") if drop else d
    t = load_state(data)
    assert t.n == 5 and t.rules.decks == 2 and t.to_json() == d


def test_player_count_outside_the_profile_names_the_key():
    d = fresh_deal()
    refused(with_(d, hands=d["hands"][:3]), "'hands'")
    refused(with_(d, num_players=6), "'num_players'")


def test_buy_window_of_a_dump_without_buy_queue_is_the_live_one():
    # A.2-3 off (discarder_may_buy=False): the live window skips the discarder; the reloaded one must too
    s = play_until(lambda s: s.phase == "buy" and len(s.buy_queue) == 2, seed=0, discarder_may_buy=False)
    live = list(s.buy_queue)
    d = _without(s.to_json(), "buy_queue")
    t = load_state(d, discarder_may_buy=False)
    assert t.buy_queue == live and t.current_player == live[0]
    assert (s.active - 1) % 4 not in t.buy_queue


def test_buy_window_after_a_buy_excludes_the_buyer():
    # A.2-1: the buyer of the previous card of the chain is not asked again; derived from last_buyer
    s = play_until(lambda s: s.phase == "buy" and s.last_buyer >= 0 and len(s.buy_queue) == 2, seed=0)
    live = list(s.buy_queue)
    t = load_state(_without(s.to_json(), "buy_queue"))
    assert t.buy_queue == live and s.last_buyer not in live


# ----------------------------------------------------------------------------------------------------------------
# Live play reloads identically (no check refuses a reachable state)
# ----------------------------------------------------------------------------------------------------------------


SESSIONS = [
    ("contract", {}),
    ("contract", {"discarder_may_buy": False}),
    ("contract_gamerules", {"num_players": 3}),
    ("contract_gamerules", {"num_players": 5}),
]


@pytest.mark.parametrize("profile,overrides", SESSIONS, ids=["contract", "no-discarder-buy", "gr3", "gr5"])
def test_live_states_round_trip(profile, overrides):
    phases = set()
    for seed in range(2):
        s = new_state(profile, seed=seed, turn_cap=60, **overrides)
        rng = random.Random(seed)
        step = 0
        while True:
            if step % 7 == 0 or s.phase in ("opening", "place_joker", "buy") or s.is_terminal():
                d = s.to_json()
                t = load_state(json.loads(json.dumps(d)), turn_cap=60, **overrides)
                assert t.to_json() == d, (seed, step, s.phase)
                phases.add(s.phase)
            if s.is_terminal():
                break
            s.apply(rng.choice(s.legal_actions()))
            step += 1
    assert {"draw", "act", "game_over"} <= phases


# ----------------------------------------------------------------------------------------------------------------
# The shared typed-value helpers (engine/common.py)
# ----------------------------------------------------------------------------------------------------------------


def test_typed_helpers_refuse_bools_strings_and_out_of_range():
    from rummy_env.engine.common import bool_field, int_field, load_round_results, rng_from_json, seat_value

    assert int_field({"k": 3}, "k", 0, 0, 5) == 3 and int_field({}, "k", 2, 0, 5) == 2
    for bad in (True, "3", 3.0, 6, -1):
        with pytest.raises(ScenarioError, match="'k' must be an integer in 0..5"):
            int_field({"k": bad}, "k", 0, 0, 5)
    assert bool_field({"b": False}, "b", True) is False
    for bad in ("no", 0, 1, None):
        with pytest.raises(ScenarioError, match="'b' must be true or false"):
            bool_field({"b": bad}, "b", False)
    assert seat_value(2, "s", 4) == 2 and seat_value(None, "s", 4, allow_none=True) is None
    for bad in (True, 4, "1", None):
        with pytest.raises(ScenarioError, match="'s' must be a seat 0..3"):
            seat_value(bad, "s", 4)
    with pytest.raises(ScenarioError, match="'round_results'"):
        load_round_results({"round_results": {}}, 4, (1, 2), "penalties", ("out",))
    with pytest.raises(ScenarioError, match="'rng'"):
        rng_from_json({"bit_generator": "PCG64", "state": "x"})
