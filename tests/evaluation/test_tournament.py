"""Tournaments: the seating design, duplicate deals that really replay the shoes, results that depend only on the
seed (not on the worker count), a clearly stronger entrant ranked first, well-formed intervals, saved files, and the
CLI's clear refusals (unknown entrant, missing or mismatched checkpoint, impossible player count)."""

from __future__ import annotations

import csv
import dataclasses
import json
import math
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("openskill")
pytest.importorskip("tqdm")

from rummy_env.cli.commands import main  # noqa: E402
from rummy_env.evaluation.tournament import (  # noqa: E402
    SessionRunner,
    cluster_mean_ci,
    plan_sessions,
    save_results,
    t975,
    table_design,
    tournament,
)

# ---- design ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("entrants,seats", [(2, 4), (3, 4), (4, 4), (5, 4), (6, 4), (3, 5), (2, 3), (7, 5)])
def test_every_entrant_every_seat_and_every_pair_equally_often(entrants: int, seats: int) -> None:
    plans = plan_sessions(entrants, seats, sessions=1, seed=3)
    assert len(plans) == len(table_design(entrants, seats)) * seats  # one whole block
    seat_counts = Counter((e, s) for p in plans for s, e in enumerate(p.seats))
    assert len({seat_counts[(e, s)] for e in range(entrants) for s in range(seats)}) == 1
    assert all(len({p.seats for p in plans if p.deal_set == d}) == seats for d in {p.deal_set for p in plans})
    meet = Counter((i, j) for p in plans for i in set(p.seats) for j in set(p.seats) if i < j)
    assert len(meet) == entrants * (entrants - 1) // 2 and len(set(meet.values())) == 1
    # the rotations of a table share its deal set and its seed; different tables do not
    by_set: dict[int, set[int]] = {}
    for p in plans:
        by_set.setdefault(p.deal_set, set()).add(p.deal_seed)
    assert all(len(v) == 1 for v in by_set.values()) and len({p.deal_seed for p in plans}) == len(by_set)


def test_sessions_round_up_to_whole_blocks_and_fresh_deals_without_duplicate() -> None:
    assert len(plan_sessions(3, 4, sessions=13)) == 24  # 3 tables x 4 rotations per block
    plans = plan_sessions(2, 4, sessions=8, duplicate=False)
    assert len({p.deal_seed for p in plans}) == 8
    with pytest.raises(ValueError, match="at least one session"):
        plan_sessions(2, 4, sessions=0)


# ---- statistics --------------------------------------------------------------------------------------------------


def test_t_quantiles_and_cluster_interval() -> None:
    for df, want in [(1, 12.706), (2, 4.303), (3, 3.182), (5, 2.571), (10, 2.228), (30, 2.042), (1000, 1.962)]:
        assert t975(df) == pytest.approx(want, abs=2e-3)
    ci = cluster_mean_ci([(10.0, 2), (14.0, 2), (6.0, 2)])  # cluster means 5, 7, 3
    assert ci["mean"] == pytest.approx(5.0) and ci["n"] == 6 and ci["clusters"] == 3
    half = t975(2) * math.sqrt(4 / 3)  # sd of (5, 7, 3) is 2, se = 2 / sqrt(3)
    assert (ci["low"], ci["high"]) == pytest.approx((5 - half, 5 + half))
    assert cluster_mean_ci([(3.0, 1)])["low"] is None


# ---- duplicate deals ---------------------------------------------------------------------------------------------


def _deals_of(runner: SessionRunner, plan) -> list[tuple]:
    seen: list[tuple] = []

    def grab(env, round_index: int) -> None:
        d = env.unwrapped.game_state()
        seen.append((round_index, d["dealer"], d["hands"], d["discard"], d["stock"]))

    runner.play(plan, on_round_start=grab)
    return seen


def test_duplicate_rotations_are_dealt_identical_hands_every_round() -> None:
    # random play exhausts the stock, and the engine reshuffles the discards with its generator: without the redeal
    # the later rounds of the rotations would differ
    runner = SessionRunner("contract", 4, ["random", "heuristic", "random", "heuristic"], {"rounds": (1, 2, 3)})
    plans = [p for p in plan_sessions(4, 4, sessions=4, seed=7) if p.deal_set == 0]
    assert len(plans) == 4 and len({p.seats for p in plans}) == 4  # the seating really rotates
    deals = [_deals_of(runner, p) for p in plans]
    assert [len(d) for d in deals] == [3, 3, 3, 3]
    for other in deals[1:]:
        assert other == deals[0]
    # the control: the same first deal without the redeal -- the later rounds come out differently
    fresh = [_deals_of(runner, dataclasses.replace(p, duplicate=False)) for p in plans]
    assert all(f[0] == deals[0][0] for f in fresh)
    assert any(f[1:] != deals[0][1:] for f in fresh)


# ---- results -----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small() -> dict:
    return tournament("contract", ["random", "heuristic"], sessions=8, seed=11, rounds=(1, 2))


def _without_timing(res: dict) -> dict:
    return {k: v for k, v in res.items() if k != "timing"}


def test_same_seed_same_results_whatever_the_worker_count(small: dict) -> None:
    two = tournament("contract", ["random", "heuristic"], sessions=8, seed=11, workers=2, rounds=(1, 2))
    assert _without_timing(two) == _without_timing(small)
    other = tournament("contract", ["random", "heuristic"], sessions=8, seed=12, rounds=(1, 2))
    assert other["records"] != small["records"]


def test_duplicate_check_and_design_reported(small: dict) -> None:
    assert small["sessions"] == 8 and small["deal_sets"] == 2 and small["rounds"] == 16
    assert small["duplicate_check"] == {"deal_sets": 2, "identical": True}
    assert small["design"]["every_seat"] and small["design"]["pairs_balanced"]


def test_heuristic_ranks_above_random(small: dict) -> None:
    top, bottom = small["standings"]
    assert top["entrant"] == "heuristic" and bottom["entrant"] == "random"
    assert top["rating"]["ordinal"] > bottom["rating"]["ordinal"]
    assert top["per_round"]["high"] < bottom["per_round"]["low"]  # penalties: lower is better, CIs apart
    assert top["sessions_won"] > bottom["sessions_won"]
    h2h = {(h["row"], h["col"]): h for h in small["head_to_head"]}
    assert h2h[("heuristic", "random")]["high"] < 0 < h2h[("random", "heuristic")]["low"]


def test_intervals_are_well_formed(small: dict) -> None:
    for row in small["standings"]:
        for key in ("per_round", "per_session"):
            ci = row[key]
            assert ci["low"] <= ci["mean"] <= ci["high"]
        r = row["rating"]
        assert r["low"] <= r["mu"] <= r["high"] and r["ordinal"] == pytest.approx(r["mu"] - 3 * r["sigma"])
        assert 0 <= row["rounds_won"] <= 1 and 0 <= row["sessions_won"] <= 1 and 1 <= row["mean_place"] <= 4
    for h in small["head_to_head"]:
        assert h["low"] <= h["mean_diff"] <= h["high"] and 0 <= h["row_ahead"] <= 1
    # a session's seats share its wins: over all entrants the win shares average 1/4
    won = sum(r["sessions_won"] * r["sessions_played"] for r in small["standings"])
    assert won == pytest.approx(small["sessions"])


def test_save_results_writes_json_csv_and_png(small: dict, tmp_path: Path) -> None:
    paths = save_results(small, tmp_path)
    data = json.loads(paths["json"].read_text())
    assert data["standings"][0]["entrant"] == "heuristic"
    rows = list(csv.DictReader(paths["standings"].open()))
    assert [r["entrant"] for r in rows] == ["heuristic", "random"]
    assert len(list(csv.DictReader(paths["sessions"].open()))) == 8 * 4
    assert len(list(csv.DictReader(paths["head_to_head"].open()))) == 2
    assert paths["chart"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_payment_profile_and_other_table_sizes() -> None:
    res = tournament("continental", ["random", "random"], sessions=4, seed=1, rounds=2)
    assert res["score"] == "payment" and res["higher_is_better"] and res["entrants"] == ["random", "random#2"]
    assert res["duplicate_check"] == {"deal_sets": 1, "identical": True}  # the second deal is redealt alike
    assert sum(r["per_session"]["mean"] * r["per_session"]["n"] for r in res["standings"]) == pytest.approx(0)
    res3 = tournament("contract_gamerules", ["random", "random"], sessions=3, num_players=3, seed=1, rounds=(1,))
    assert res3["num_players"] == 3 and res3["sessions"] == 6 and res3["duplicate_check"]["identical"]


def test_checkpoint_entrant_same_with_one_or_two_workers(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("safetensors")
    path = _tiny_checkpoint(tmp_path)
    args = ("contract", [f"checkpoint:{path}", "random"])
    one = tournament(*args, sessions=4, seed=2, rounds=(1,))
    two = tournament(*args, sessions=4, seed=2, workers=2, rounds=(1,))
    assert _without_timing(one) == _without_timing(two)


def _tiny_checkpoint(tmp_path: Path) -> Path:
    import rummy_env
    from rummy_env.models.checkpoints import save_checkpoint
    from rummy_env.models.policy import architecture, build_policy

    env = rummy_env.make("contract", wrapped=False)
    net = build_policy(architecture(env.observer.size, env.num_actions, trunk=(16,)), seed=0)
    save_checkpoint(tmp_path / "tiny", net, {"profile": "contract", "num_players": 4})
    return tmp_path / "tiny.safetensors"


# ---- command line ------------------------------------------------------------------------------------------------


def test_cli_prints_standings_and_saves(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["tournament", "--entrants", "random", "heuristic", "--sessions", "4", "--rounds", "1", "--quiet"]
    assert main(argv + ["--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "rating mu" in out and "head to head" in out and "duplicate deals identical across rotations: True" in out
    lines = [ln for ln in out.splitlines() if ln.lstrip().startswith("1  ")]
    assert lines and "heuristic" in lines[0]
    assert {p.name for p in tmp_path.iterdir()} >= {"tournament.json", "standings.csv", "ratings.png"}


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--entrants", "random", "grandmaster"], "entrant 'grandmaster' cannot be loaded: unknown bot id"),
        (["--entrants", "random", "checkpoint:no/such/file.safetensors"], "no/such/file.safetensors' is missing"),
        (["--entrants", "random", "heuristic", "--num-players", "5"], "seats exactly 4 players; 5 players is"),
        (["--profile", "continental", "--entrants", "random", "random", "--num-players", "3"], "seats 4 to 5"),
        (["--entrants", "random"], "at least two entrants"),
        (["--profile", "continental", "--entrants", "random", "random", "--rounds", "1", "2"], "give one number"),
        (["--entrants", "random", "random", "--deals", "2"], "use --rounds with round numbers"),
        (["--profile", "continental", "--entrants", "random", "random", "--rounds", "2", "--deals", "2"], "give one"),
        (["--profile", "continental", "--entrants", "random", "random", "--rounds", "0"], "rounds=0"),
    ],
)
def test_cli_refuses_with_a_clear_message(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--quiet", "--sessions", "4"] + argv) != 0
    err = capsys.readouterr().err
    assert err.startswith("rummy: error:") and message in err


def test_cli_refuses_a_checkpoint_made_for_another_profile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("safetensors")
    path = _tiny_checkpoint(tmp_path)
    argv = ["tournament", "--profile", "continental", "--entrants", "random", f"checkpoint:{path}", "--quiet"]
    assert main(argv) != 0
    err = capsys.readouterr().err
    assert f"checkpoint:{path}" in err and "'contract'" in err and "'continental'" in err


def test_rounds_is_the_session_length_on_the_command_line() -> None:
    """Continental's ``--rounds N`` is its number of deals; ``--deals N`` is the old spelling of the same thing;
    contract profiles keep ``--rounds`` as round numbers (one number is one round, not rounds 1..N)."""
    from rummy_env.evaluation.tournament import env_config_from_args

    assert env_config_from_args("continental", [3], None) == {"rounds": 3}
    assert env_config_from_args("continental", None, 3) == {"rounds": 3}
    assert env_config_from_args("contract", [3], None) == {"rounds": (3,)}
    assert env_config_from_args("contract_gamerules", [1, 2], None) == {"rounds": (1, 2)}
    assert env_config_from_args("continental", None, None) == {}
    with pytest.raises(ValueError, match="unknown profile"):
        env_config_from_args("bogus", [1], None)


def test_continental_rounds_and_old_deals_spelling_play_the_same(tmp_path: Path, capsys) -> None:
    base = ["tournament", "--profile", "continental", "--entrants", "random", "heuristic", "--sessions", "4", "--quiet"]
    assert main(base + ["--rounds", "2", "--no-chart", "--out", str(tmp_path / "a")]) == 0
    assert main(base + ["--deals", "2", "--no-chart", "--out", str(tmp_path / "b")]) == 0
    capsys.readouterr()
    a, b = (_without_timing(json.loads((tmp_path / d / "tournament.json").read_text())) for d in "ab")
    assert a == b and a["env_config"] == {"rounds": 2} and a["rounds"] == 4 * 2


# ---- the one match runner ----------------------------------------------------------------------------------------


def test_tournament_reads_no_engine_state() -> None:
    """The runner plays through the env's accessors only: the deprecated ``state_`` would warn (attributed to the
    module that reads it; the bots' own reads are not this module's business)."""
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("error", category=DeprecationWarning, module=r"rummy_env\.evaluation\.")
        res = tournament("contract", ["random", "heuristic"], sessions=4, seed=3, rounds=(1, 2))
        cont = tournament("continental", ["random", "heuristic"], sessions=4, seed=3, rounds=2)
    assert res["duplicate_check"]["identical"] and cont["duplicate_check"]["identical"]


def test_tournament_records_are_the_runner_records_without_the_extra_fields(small: dict) -> None:
    from rummy_env.evaluation.match import EXTRA_FIELDS, MatchRunner

    plans = plan_sessions(2, 4, sessions=8, seed=11)
    runner = MatchRunner("contract", 4, ["random", "heuristic"], {"rounds": (1, 2)})
    played = [runner.play(p) for p in plans]
    assert [{k: v for k, v in r.items() if k not in EXTRA_FIELDS} for r in played] == small["records"]
    for rec in played:
        assert len(rec["went_out"]) == len(rec["round_turns"]) == len(rec["round_scores"]) == 2
        assert all(w is None or [w] == rw for w, rw in zip(rec["went_out"], rec["round_winners"]))
        assert all(t > 0 for t in rec["round_turns"])


def test_rotation_plans_seat_entrant_j_at_seat_i_plus_j() -> None:
    from rummy_env.evaluation.match import rotation_plans, session_seed

    plans = rotation_plans(4, sessions=5, seed=2, first_session=3)
    assert [p.index for p in plans] == [3, 4, 5, 6, 7]
    for p in plans:
        deal = session_seed(2, p.index)
        assert p.deal_seed == deal == 2 * 100_000 + p.index and not p.duplicate
        for j in range(4):
            seat = (p.index + j) % 4
            assert p.seats[seat] == j and p.bot_seed(seat) == deal * 10 + j


def test_one_interval_for_every_figure() -> None:
    """One sample per cluster is the plain Student-t interval of independent samples (bots_eval, training)."""
    import statistics

    from rummy_env.evaluation.match import half_width, mean_ci

    xs = [3.0, 7.0, 5.0, 9.0]
    ci = mean_ci((x, 1) for x in xs)
    assert ci["mean"] == pytest.approx(6.0) and ci["clusters"] == 4
    assert half_width(ci) == pytest.approx(t975(3) * statistics.stdev(xs) / 2)
    assert math.isnan(half_width(mean_ci([(1.0, 1)])))
    assert cluster_mean_ci is mean_ci


# ---- issue 38: intervals of a non-negative score, the chart's labels ---------------------------------------------


def _spread_records() -> list[dict]:
    """Two deal sets of one round, entrants 0 and 1 alternating at four seats: entrant 0 scores 0 in the first and
    60 in the second, so the Student-t interval of its mean (30) over two clusters reaches far below 0."""
    out = []
    for k, pen in enumerate((0, 60)):
        scores = [pen, 5, pen, 5]
        out.append({"session": k, "deal_set": k, "table": 0, "rotation": 0, "seats": [0, 1, 0, 1], "totals": scores,
                    "winners": [0, 2] if pen == 0 else [1, 3], "round_scores": [scores],
                    "round_winners": [[0] if pen == 0 else [1]], "deals": []})  # fmt: skip
    return out


def test_penalty_intervals_are_clipped_at_zero_and_payments_are_not() -> None:
    """Issue 38: a penalty is never negative, so '5.6 [-10.5, 21.8]' must not be reported: the per-round and
    per-session intervals of penalties stop at 0 in the JSON (hence the CSV and the chart) and the table, whose
    legend line says so; payments (continental, zero-sum) keep their negative bounds."""
    from rummy_env.evaluation.tournament import clip_interval, format_standings, score_floor, summarize

    res = summarize(_spread_records(), profile="contract", specs=["a", "b"], num_players=4, seed=0, duplicate=True)
    row = next(r for r in res["standings"] if r["entrant"] == "a")
    assert row["per_round"]["mean"] == pytest.approx(30.0) and row["per_round"]["low"] == 0.0
    assert row["per_session"]["low"] == 0.0 and row["per_session"]["high"] > 30.0
    assert res["score_floor"] == 0.0
    table = format_standings(res)
    assert "30.0 [0.0," in table and "[-" not in table
    assert "clipped at 0: a penalty is never negative" in table
    assert score_floor("continental") is None and score_floor("contract_gamerules") == 0.0
    ci = {"mean": -3.0, "low": -9.0, "high": 3.0}
    assert clip_interval(ci, None) == ci and clip_interval(ci, 0.0)["low"] == 0.0
    pay = summarize(_spread_records(), profile="continental", specs=["a", "b"], num_players=4, seed=0, duplicate=True)
    assert pay["score_floor"] is None and "clipped" not in format_standings(pay)


def test_chart_axis_labels_never_overlap_with_long_names(small: dict) -> None:
    """Issue 38: long entrant names narrow both panels; each x-axis label is wrapped to its own panel, so the two
    labels' drawn extents (matplotlib's text extents) stay apart."""
    from rummy_env.evaluation.tournament import chart_figure

    res = json.loads(json.dumps(small))
    long_names = ["checkpoint:runs/contract__ppo__1__1767000000/checkpoints/latest", "py:my_package.bots.LongBotName"]
    for row, name in zip(res["standings"], long_names):
        row["entrant"] = name
    fig = chart_figure(res)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    left, right = (ax.xaxis.label.get_window_extent(renderer) for ax in fig.axes[:2])
    assert left.x1 < right.x0, (left, right)
    for ax in fig.axes[:2]:
        assert ax.xaxis.label.get_window_extent(renderer).width <= ax.get_window_extent(renderer).width
