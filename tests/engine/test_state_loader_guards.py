"""The scenario loader refuses states that break later, and every state the engine reaches reloads from its dump
(issue 40, points 12-15; OpenSpiel's RandomSimTest promise: every non-terminal state has a legal action, every state
serialises and reloads).

* 12: continental ``round_results`` is checked (``0``, ``NaN``, ``"abc"``, ``[1] * 100000``, ``[{"junk": 1}]`` and
  one result too many are refused with ``ScenarioError``); a deal ended by the turn cap at game over reloads.
* 13: a scenario with scores and no results (the documented example: round 2, ``scores: [0, 25, 10, 40]``) plays
  on, and its dumps reload at every step, round ends and the session's end included (``carried_scores``).
* 14: a fresh deal relabelled ``phase: "act"`` (the seat to move has not drawn) is refused.
* 15: a hand-made position with an empty hand at its draw offers no draw that leaves the player stuck.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import numpy as np
import pytest

import rummy_env
from rummy_env.engine import ScenarioError, load_state, new_state

CONTRACT_PROFILES = ["contract", "contract_gamerules"]


def _play_and_reload(st: Any, rng: random.Random, decisions: int, **rules: Any) -> Any:
    """Random decisions; at every state a legal action unless terminal, and the dump reloads (under the same rule
    overrides ``rules``) to the same dump."""
    for _ in range(decisions):
        dump = st.to_json()
        assert load_state(copy.deepcopy(dump), **rules).to_json() == dump
        if st.is_terminal():
            break
        legal = st.legal_actions()
        assert legal, f"no legal action in phase {st.phase!r}"
        st.apply(rng.choice(legal))
    return st


# 12 ---------------------------------------------------------------------------------------------------------------
def _continental_mid_session() -> dict[str, Any]:
    """A dump in deal 2 of a 2-deal continental session (one result recorded)."""
    st = new_state("continental", seed=3, rounds=2, turn_cap=8)
    rng = random.Random(0)
    while st.round == 1:
        st.apply(rng.choice(st.legal_actions()))
    assert len(st.round_results) == 1
    return st.to_json()


@pytest.mark.parametrize(
    "bad",
    [0, float("nan"), "abc", [1] * 100000, [{"junk": 1}], None, {"round": 1}],
    ids=["zero", "nan", "string", "huge-list", "junk-entry", "null", "dict"],
)
def test_continental_round_results_of_the_wrong_shape_are_refused(bad: Any) -> None:
    data = _continental_mid_session()
    data["round_results"] = bad
    with pytest.raises(ScenarioError, match="round_results"):
        load_state(data)


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r.update(payments=[float("nan")] * len(r["payments"])),
        lambda r: r.update(payments=[1, 2, 3]),
        lambda r: r.update(payments=[5] + [0] * (len(r["payments"]) - 1)),  # not zero-sum
        lambda r: r.update(round=2),
        lambda r: r.update(winner=True),
        lambda r: r.update(reason="junk"),
        lambda r: r.update(junk=1),
        lambda r: r.update(winner=None, reason="exhausted", melds=[["3C", "4C", "5C"]]),
    ],
    ids=["nan-payments", "short-payments", "not-zero-sum", "wrong-round", "bool-winner", "bad-reason", "extra-key",
         "melds-without-winner"],
)
def test_a_malformed_continental_round_result_is_refused(change: Any) -> None:
    data = _continental_mid_session()
    change(data["round_results"][0])
    with pytest.raises(ScenarioError, match=r"round_results\[0\]|'scores'"):
        load_state(data)


def test_a_continental_session_never_holds_more_results_than_deals() -> None:
    """A 2-deal session at game over holds 2 results; a third is refused (it reported 3 before)."""
    st = new_state("continental", seed=3, rounds=2, turn_cap=8)
    _play_and_reload(st, random.Random(1), 10_000)
    assert st.is_terminal() and len(st.round_results) == 2
    data = st.to_json()
    data["round_results"].append(copy.deepcopy(data["round_results"][-1]))
    with pytest.raises(ScenarioError, match="round_results"):
        load_state(data)


def test_a_continental_session_ended_by_the_turn_cap_reloads() -> None:
    """C.2-5: the turn cap ends the deal after counting the turn past it; the dump at game over reloads."""
    st = new_state("continental", seed=5, rounds=1, turn_cap=6)
    _play_and_reload(st, random.Random(2), 1000, turn_cap=6)
    assert st.is_terminal() and st.round_results[-1]["reason"] == "turn_cap" and st.turn == 7


def test_continental_results_reload_and_the_env_resets_from_them() -> None:
    data = _continental_mid_session()
    assert load_state(copy.deepcopy(data)).to_json() == data
    env = rummy_env.make("continental", wrapped=False, rounds=2)
    env.reset(seed=0, options={"scenario": data})
    assert env.results()["round_results"] == data["round_results"]


# 13 ---------------------------------------------------------------------------------------------------------------
def _documented_example(profile: str, seed: int) -> dict[str, Any]:
    """The shape of docs/guides/engine.md's example: round 2, cumulative ``scores`` before it, no results."""
    st = new_state(profile, seed=seed, rounds=(2,))
    d = st.to_json()
    n = len(d["hands"])
    keep = ("profile", "round", "dealer", "current_player", "phase", "hands", "discard", "stock", "num_players")
    scenario = {k: d[k] for k in keep}
    scenario["scores"] = [0, 25, 10, 40, 5][:n]
    return scenario


@pytest.mark.parametrize("profile", CONTRACT_PROFILES)
@pytest.mark.parametrize("seed", [0, 1])
def test_scores_without_results_carry_on_through_every_round_end(profile: str, seed: int) -> None:
    scenario = _documented_example(profile, seed)
    st = load_state(copy.deepcopy(scenario), seed=seed)
    rng = random.Random(seed)
    _play_and_reload(st, rng, 100_000)  # every dump reloads, at each round end and at the session's end
    assert st.is_terminal() and [r["round"] for r in st.round_results] == list(range(2, 8))
    sums = [sum(r["penalties"][p] for r in st.round_results) for p in range(len(st.scores))]
    assert st.scores == [c + s for c, s in zip(scenario["scores"], sums)]
    assert st.to_json()["carried_scores"] == scenario["scores"]


def test_scores_that_are_not_carried_scores_plus_the_results_are_refused() -> None:
    st = load_state(_documented_example("contract", 0), seed=0)
    rng = random.Random(3)
    while not st.round_results:
        st.apply(rng.choice(st.legal_actions()))
    data = st.to_json()
    for change in (
        lambda d: d.update(scores=[s + 1 for s in d["scores"]]),
        lambda d: d.pop("carried_scores"),
        lambda d: d.update(carried_scores=[0, 25, 10]),
        lambda d: d.update(carried_scores=[0, 25, 10, -40]),
        lambda d: d.update(carried_scores="junk"),
    ):
        bad = copy.deepcopy(data)
        change(bad)
        with pytest.raises(ScenarioError, match="carried_scores|'scores'"):
            load_state(bad)


def test_continental_balances_without_results_carry_on() -> None:
    st = new_state("continental", seed=2, rounds=3, turn_cap=8)
    data = st.to_json()
    data.update(round=2, scores=[30, -10, -10, -10])
    st = load_state(data)
    _play_and_reload(st, random.Random(0), 10_000)
    assert st.is_terminal() and len(st.round_results) == 2
    assert st.scores == [c + sum(r["payments"][p] for r in st.round_results)
                         for p, c in enumerate([30, -10, -10, -10])]


# 14 ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("profile", CONTRACT_PROFILES)
@pytest.mark.parametrize("phase", ["act", "opening"])
def test_a_fresh_deal_relabelled_after_the_draw_is_refused(profile: str, phase: str) -> None:
    data = new_state(profile, seed=2).to_json()
    data["phase"] = phase
    with pytest.raises(ScenarioError, match="'hands|'phase'|opening"):
        load_state(data)


@pytest.mark.parametrize("profile", CONTRACT_PROFILES)
def test_a_position_after_the_draw_reloads(profile: str) -> None:
    st = new_state(profile, seed=2)
    st.apply(st.find_action(kind="draw_discard"))
    assert st.phase == "act"
    _play_and_reload(load_state(st.to_json()), random.Random(0), 60)


# 15 ---------------------------------------------------------------------------------------------------------------
def _empty_hand_to_draw(profile: str, *, opened: bool) -> dict[str, Any]:
    """Rigged: seat 0 (to draw) holds nothing; the discard top 9D fits seat 0's run 5D-8D when ``opened``."""
    return {
        "profile": profile,
        "round": 2,
        "dealer": 3,
        "phase": "draw",
        "hands": [[], ["3C", "4D"], ["5S", "6S"], ["7H", "8H"]],
        "discard": ["9D"],
        "table": [{"owner": 0, "kind": "run", "cards": ["5D", "6D", "7D", "8D"]}] if opened else [],
        "opened": [0] if opened else [],
        "rigged": True,
    }


@pytest.mark.parametrize("profile", CONTRACT_PROFILES)
@pytest.mark.parametrize("opened", [False, True], ids=["unopened", "opened"])
def test_an_empty_hand_at_its_draw_is_never_left_without_a_move(profile: str, opened: bool) -> None:
    st = load_state(_empty_hand_to_draw(profile, opened=opened), seed=0)
    kinds = {st.action_info(a)["kind"] for a in st.legal_actions()}
    assert "draw_stock" in kinds
    for a in st.legal_actions():  # every draw offered leaves a move (or ends the round)
        probe = st.clone()
        probe.apply(a)
        assert probe.is_terminal() or probe.round != st.round or probe.legal_actions(), st.describe_action(a)
    rules = st.rules
    # taking 9D into an empty hand: only laid off on 5D-8D (and the hand then empties, B.1-10) is it not stuck
    fits = opened and not rules.keep_card_for_discard
    assert ("draw_discard" in kinds) == fits
    for seed in range(5):
        _play_and_reload(load_state(_empty_hand_to_draw(profile, opened=opened), seed=seed), random.Random(seed), 200)


@pytest.mark.parametrize("profile", CONTRACT_PROFILES)
def test_an_empty_hand_at_its_draw_leaves_the_env_a_live_mask(profile: str) -> None:
    env = rummy_env.make(profile, wrapped=False)
    env.reset(seed=0, options={"scenario": _empty_hand_to_draw(profile, opened=False)})
    rng = np.random.default_rng(0)
    for _ in range(200):
        if not env.agents:
            break
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        assert obs["action_mask"].any(), f"{env.agent_selection} is live with an all-zero mask"
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
