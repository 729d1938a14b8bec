"""The search bot's measurements (``rummy_env.bots.search_audit``) run on a tiny scale and compute what they say:
the false-acceptance audit values deviations in the true position, the inference check compares weighted with
uniform determinizations, and a tournament's margin is the paired per-deal-set difference with its interval."""

from __future__ import annotations

import csv
import math

import pytest

import rummy_env
from rummy_env.bots import search_audit


def test_false_acceptance_audit_runs_and_counts():
    out = search_audit.false_acceptance("search:30", games=1, seed=7000, pairs=2)
    assert out["decisions"] > 10 and 0 <= out["tested"] <= out["decisions"]
    assert out["decision_seconds"]["decisions"] == out["decisions"]
    for key in ("stock_fixed", "stock_shuffled"):
        s = out["summary"][key]
        assert s["deviations"] == len(out["deviations"]) and 0 <= s["worse"] <= s["deviations"]
    for row in out["deviations"]:
        assert row["move"] != row["prior"] and row["t"] > 2 and row["pairs"] >= 8


def test_true_gain_of_a_move_against_itself_is_zero():
    env = rummy_env.make("contract", rounds=(1,))
    env.reset(seed=3)
    raw = env.unwrapped
    legal = list(raw.public_view(env.agent_selection).legal)
    for shuffle in (False, True):
        assert search_audit.true_gain(raw.game_state(), raw.rules, 0, legal[0], legal[0], 3, shuffle) == (0.0, 0.0)


def test_false_acceptance_audit_plays_one_deal_of_continental():
    out = search_audit.false_acceptance("search:12", games=1, seed=7000, pairs=2, profile="continental")
    assert out["profile"] == "continental" and out["decisions"] > 3
    assert out["decision_seconds"]["decisions"] == out["decisions"]
    with pytest.raises(ValueError, match="allowed"):
        search_audit.false_acceptance("search", games=1, profile="gin")


def test_a_move_that_ends_the_round_is_valued_as_it_ended_it():
    """Going out ends the deal at once: the play-out values the round the move ended, not the next one (the audit
    once read past the end of ``round_results`` there)."""
    from test_bots_continental import VALID, scenario_env

    env = scenario_env(VALID + ["KD"], ["9D"], phase="act", turn=20)
    st = env.unwrapped._state.clone()
    st.apply(st.find_action(kind="discard_declare", card="KD"))
    assert len(st.round_results) == 1 and not st.is_terminal()  # the next deal is dealt
    paid = st.round_results[0]["payments"][0]
    assert paid > 0 and search_audit._heuristic_value(st, 0, 0, "continental", rounds=0) == paid


def test_inference_check_runs():
    out = search_audit.inference_gain(games=1, samples=4)
    assert out["positions"] > 3 and out["uniform"] > 0 and math.isfinite(out["gain"])


def test_tournament_margin_is_the_paired_deal_set_difference(tmp_path):
    rows = []
    for deal_set, (a, b) in enumerate([(10, 14), (8, 9), (12, 13)]):
        for rotation in range(2):
            rows.append({"session": 2 * deal_set + rotation, "deal_set": deal_set, "entrant": "x", "total": a})
            rows.append({"session": 2 * deal_set + rotation, "deal_set": deal_set, "entrant": "y", "total": b})
    with open(tmp_path / "sessions.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["session", "deal_set", "entrant", "total"])
        w.writeheader()
        w.writerows(rows)
    out = search_audit.tournament_margin(tmp_path, "x")
    assert out["margin"] == pytest.approx(-2.0) and out["deal_sets"] == 3 and out["sessions"] == 6
    half = search_audit.t975(2) * math.sqrt(3.0) / math.sqrt(3)  # differences -4, -1, -1: sd sqrt(3)
    assert out["low"] == pytest.approx(-2.0 - half, rel=1e-6) and out["high"] == pytest.approx(-2.0 + half, rel=1e-6)
    assert search_audit.t975(30) == pytest.approx(2.042, abs=0.002)
    (tmp_path / "second").mkdir()
    (tmp_path / "second" / "sessions.csv").write_text((tmp_path / "sessions.csv").read_text())
    pooled = search_audit.tournament_margin([tmp_path, str(tmp_path / "second")], "x")  # two runs' deal sets pooled
    assert pooled["deal_sets"] == 6 and pooled["sessions"] == 12 and pooled["margin"] == pytest.approx(-2.0)
