"""The rule switches of issue 13 (``extra_melds_after_opening``, ``swap_only_others_jokers``, ``final_round_discard``,
``buy_needs_penalty_card``) switched on: seeded fuzzing (invariants, JSON round trips, clones, legality, replay) and,
for ``contract_gamerules``, exact masks both ways with the round-7 / deep-pickup oracles of the conformance suite.
The scripted rules tests of each switch are in test_rules_contract*.py."""

from __future__ import annotations

import conformance
import pytest
from conformance import sweep_masks

from rummy_env.testing.fuzz import fuzz

GAMERULES_SWITCHES = ["extra_melds_after_opening", "swap_only_others_jokers", "final_round_discard"]


@pytest.mark.parametrize(
    "profile,field",
    [("contract_gamerules", f) for f in GAMERULES_SWITCHES]
    + [("contract", "buy_needs_penalty_card"), ("contract", "swap_only_others_jokers")],
)
def test_fuzz_with_the_switch_on(profile, field):
    res = fuzz(profile=profile, decisions=8_000, seed=7, **{field: True})
    assert res["violations"] == 0, res.get("examples")
    assert res["decisions"] >= 8_000


@pytest.mark.parametrize("field", GAMERULES_SWITCHES)
def test_gamerules_masks_exact_with_the_switch_on(field):
    case = ("contract_gamerules", {"num_players": 4, field: True})  # its rigged positions are played with the switch
    runs = [(2, 0.9, {}), (5, 0.9, {"rounds": (7,)}), (6, 0.0, {"rounds": (7,)})]
    fig = sweep_masks(case, runs, per_round=3, p_rare=0.3, p_common=0.03, full_every=10, sample=60)
    assert not fig["mismatches"], "\n".join(fig["mismatches"][:20])
    assert fig["states"] >= 20 and fig["oracle"] >= 5


R7 = "AC 2C 3C 4C 5C 5D 6D 7D 8D 9H 10H JH"


# round 7 positions where the switch decides: a stray card (go out and discard it), and a stray card that was
# taken from the discard pile (may not be discarded, so no going out); the oracle brute-forces both
@pytest.mark.parametrize("allowed", [False, True])
@pytest.mark.parametrize("extra", [{"hand": R7 + " KH", "phase": "act"}, {"hand": R7, "discard": ["2S"], "phase": "draw"}])
def test_final_round_discard_mask_and_oracle(allowed, extra):
    import numpy as np

    case = ("contract_gamerules", {"num_players": 4, "final_round_discard": allowed})
    env = conformance.make_env(case)
    extra = dict(extra)
    hand = extra.pop("hand")
    sc = conformance.build_scenario(("contract_gamerules", {"num_players": 4}), hand, round_no=7, **extra)
    env.reset(seed=0, options={"scenario": sc})
    u = env.unwrapped
    if u._state.phase == "draw":
        env.step(u._state.find_action(kind="draw_discard"))
    mask = env.observe(env.agent_selection)["action_mask"]
    res = conformance.check_mask_exact(env, mask, np.random.default_rng(0), full=True, sample=0)
    checks, problems = conformance.oracle_gamerules(env, mask)
    assert not res["mismatches"] and not problems and checks >= 1
    assert bool(mask[u.layout.GO_OUT]) is (allowed and "KH" in hand)


def test_deep_pickup_in_contract_never_strands_a_player() -> None:
    """``deep_pickup=True`` with ``contract``'s A.1-9 ("lay-offs only from the next own turn"): a deep-picked card
    counts as placeable only where it can reach the table this turn, so random play never reaches a decision
    with no legal action (it used to, at seed 0, when the card could only be laid off after the opening)."""
    import random

    from rummy_env.engine import new_state

    for seed in range(6):
        st = new_state("contract", seed=seed, rounds=(1, 7), deep_pickup=True)
        rng = random.Random(seed)
        for _ in range(400):
            if st.is_terminal():
                break
            legal = st.legal_actions()
            assert legal, f"seed {seed}: phase {st.phase} with no legal action"
            st.apply(rng.choice(legal))
