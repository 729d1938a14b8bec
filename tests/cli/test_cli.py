"""Command-line usage errors (issue 13, point 6): one line on stderr naming the flag and the allowed values, exit
code 2, before any work is done; ``rummy run --json`` prints only JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rummy_env.cli import commands as cli
from rummy_env.evaluation import bots_eval

ROOT = Path(__file__).resolve().parents[2]


def _rummy(capsys: pytest.CaptureFixture, *args: str) -> tuple[int, str, str]:
    try:
        code = cli.main(list(args))
    except SystemExit as e:  # argparse usage errors
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_error(err: str, *fragments: str) -> None:
    assert err.count("\n") == 1 and "error:" in err and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in err, err


@pytest.mark.parametrize(
    "args, fragments",
    [
        (["fuzz", "--profile", "bogus", "--decisions", "10"], ["--profile", "invalid choice: 'bogus'", "'contract'"]),
        (["fuzz", "--decisions", "-1"], ["--decisions", "expected an integer >= 0"]),
        (["bench", "--seconds", "-1", "--engine-only"], ["--seconds", "expected a number of seconds > 0"]),
        (["bench", "--seconds", "0", "--engine-only"], ["--seconds", "> 0"]),
        (["bench", "--seconds", "inf", "--engine-only"], ["--seconds", "> 0"]),
        (["bench", "--profile", "bogus"], ["--profile", "invalid choice"]),
        (["run", "--sessions", "0"], ["--sessions", "expected an integer >= 1"]),
        (["run", "--seed", "-1"], ["--seed", "expected an integer >= 0"]),
        (["run", "--profile", "nope"], ["--profile", "invalid choice"]),
        (["tournament", "--entrants", "random", "random", "--sessions", "-3"], ["--sessions", ">= 1"]),
        (["tournament", "--entrants", "random", "random", "--workers", "0"], ["--workers", ">= 1"]),
        (["tournament", "--entrants", "random", "random", "--seed", "-1"], ["--seed", ">= 0"]),
        (["play", "--opponents", "random", "random", "random", "--seed", "-1"], ["--seed", ">= 0"]),
        (
            ["tournament", "--profile", "continental", "--entrants", "random", "random", "--rounds", "1", "2"],
            ["--rounds 1 2", "'continental' counts deals", "give one number"],
        ),
        (["tournament", "--entrants", "random", "random", "--deals", "2"], ["--deals", "use --rounds"]),
        (["play", "--opponents", "random", "random", "random", "--deals", "2"], ["--deals", "use --rounds"]),
        (
            ["play", "--profile", "continental", "--opponents", "random", "random", "random", "--rounds", "1", "2"],
            ["--rounds 1 2", "give one number"],
        ),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(capsys, args: list[str], fragments: list[str]) -> None:
    code, out, err = _rummy(capsys, *args)
    assert code == 2 and out == ""
    _one_line_error(err, *fragments)


def test_fuzz_unknown_profile_from_python_is_a_value_error() -> None:
    from rummy_env.testing.fuzz import fuzz

    with pytest.raises(ValueError, match=r"profile='bogus': expected one of \['contract'"):
        fuzz(profile="bogus", decisions=10)


@pytest.mark.parametrize("kind", ["existing_file", "under_a_file"])
def test_tournament_out_is_checked_before_playing(tmp_path: Path, kind: str) -> None:
    """An --out that cannot be a folder used to fail after the whole tournament had been played (results lost)."""
    blocker = tmp_path / "results.txt"
    blocker.write_text("not a folder")
    out_dir = blocker if kind == "existing_file" else blocker / "sub"
    cmd = [sys.executable, "-m", "rummy_env.cli", "tournament", "--entrants", "random", "random", "--sessions",
           "100000", "--quiet", "--out", str(out_dir)]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=tmp_path)  # 100,000 sessions: hours
    assert out.returncode == 2 and out.stdout == ""
    _one_line_error(out.stderr, "--out", "not a folder", "expected a folder that exists or can be created")
    assert blocker.read_text() == "not a folder"


def test_tournament_out_that_can_be_created_still_works(capsys, tmp_path: Path) -> None:
    code, out, _ = _rummy(
        capsys, "tournament", "--entrants", "random", "random", "--sessions", "2", "--rounds", "1", "--quiet",
        "--no-chart", "--out", str(tmp_path / "new" / "folder"),
    )  # fmt: skip
    assert code == 0 and "saved:" in out and (tmp_path / "new" / "folder" / "tournament.json").is_file()


def test_run_json_prints_only_json(capsys) -> None:
    code, out, _ = _rummy(capsys, "run", "--profile", "contract", "continental", "--sessions", "1", "--json")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]  # every line of stdout is JSON: no text table
    assert [r["profile"] for r in rows] == ["contract", "continental"] and rows[0]["sessions"] == 1
    code, out, _ = _rummy(capsys, "run", "--profile", "contract", "--sessions", "1")
    assert code == 0 and out.startswith("== contract: 1 sessions") and "{" not in out  # text without --json


def test_run_names_the_score_from_the_registry(capsys) -> None:
    code, out, _ = _rummy(capsys, "run", "--profile", "contract", "continental", "--sessions", "1", "--json")
    assert code == 0 and [json.loads(line)["score_kind"] for line in out.splitlines()] == ["penalty", "payment"]
    code, out, _ = _rummy(capsys, "run", "--profile", "continental", "--sessions", "1")
    assert code == 0 and "mean total balance" in out


def test_bots_eval_labels_the_score_from_the_registry(capsys) -> None:
    args = ["--profile", "continental", "--entrants", "heuristic", "random", "random", "random", "--sessions", "2"]
    assert bots_eval.main(args) == 0
    out = capsys.readouterr().out
    assert "payment/deal/seat" in out and "penalty" not in out


def test_bench_with_a_short_budget_measures_something(capsys) -> None:
    code, out, _ = _rummy(capsys, "bench", "--profile", "contract", "--seconds", "0.2", "--engine-only", "--json")
    assert code == 0 and json.loads(out)["decisions"] > 0


def test_bench_prints_a_readable_table_and_json_only_with_json(capsys) -> None:
    """Issue 38: ``rummy bench`` printed JSON lines only; now a table with a header, one row per profile and layer
    and a legend, and ``--json`` prints the same records as before, one JSON line each and nothing else."""
    code, out, _ = _rummy(capsys, "bench", "--profile", "contract", "--seconds", "0.05", "--engine-only")
    assert code == 0 and "{" not in out
    lines = out.splitlines()
    assert lines[0].split()[:4] == ["profile", "layer", "decisions/s", "sessions/s"]
    row = lines[1].split()
    assert row[:2] == ["contract", "engine"] and int(row[2].replace(",", "")) > 0 and "legal" in lines[1]
    assert any(line.startswith("each row: random legal play for 0.05 s") for line in lines)
    assert "--json prints the records" in " ".join(lines)
    code, out, _ = _rummy(capsys, "bench", "--profile", "contract", "--seconds", "0.05", "--engine-only", "--json")
    (record,) = [json.loads(line) for line in out.splitlines()]  # every line of stdout is JSON
    keys = {"profile", "layer", "impl", "decisions", "sessions", "seconds", "decisions_per_second",
            "sessions_per_second", "legal_actions_time_share"}  # fmt: skip
    assert set(record) == keys and record["layer"] == "engine"


def test_run_legend_explains_split_wins_and_the_turn_cap(capsys) -> None:
    """Issue 38: ``rummy run`` printed wins such as 5.75 without saying that ties are split, and continental's many
    turn-cap deals under random play without saying why; the legend and a note (naming the rules field) say it."""
    code, out, _ = _rummy(capsys, "run", "--profile", "continental", "--sessions", "4")
    assert code == 0
    text = " ".join(out.split())
    assert "wins: sessions won, a tie split between the tied seats" in text
    assert "mean per deal" in out and "turn-cap deals" in out
    assert "rummy_env.rules.continental.ContinentalRules.turn_cap" in text
    assert "Random play rarely goes out in continental, so most deals end at the turn cap: this is expected" in text
    code, out, _ = _rummy(capsys, "run", "--profile", "contract", "--sessions", "1")
    assert code == 0 and "a tie split between the tied seats" in out and "rarely goes out" not in out


@pytest.mark.parametrize("seconds", [-1.0, 0.0, float("nan"), float("inf")])
def test_bench_functions_refuse_a_budget_that_measures_nothing(seconds: float) -> None:
    from rummy_env.evaluation.bench import bench_env

    for bench in (cli.bench_engine, bench_env):
        with pytest.raises(ValueError, match="expected a finite number of seconds > 0"):
            bench("contract", seconds)


@pytest.mark.parametrize(
    "args, fragments",
    [
        (["--entrants", "random", "random", "random", "random", "--sessions", "0"], ["--sessions", ">= 1"]),
        (["--entrants", "random", "random", "random", "random", "--workers", "-1"], ["--workers", ">= 1"]),
        (["--entrants", "random", "random", "random", "random", "--seed", "-2"], ["--seed", ">= 0"]),
        (["--profile", "bogus", "--entrants", "random"], ["--profile", "invalid choice"]),
        (["--entrants", "random", "nobody", "random", "random"], ["unknown bot id 'nobody'"]),
        (["--entrants", "random", "random"], ["seats 4 players: give 4 entrants, got 2"]),
    ],
)
def test_bots_eval_arguments(capsys, args: list[str], fragments: list[str]) -> None:
    try:
        code = bots_eval.main(args)
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    _one_line_error(err, *fragments)


def _evaluate(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rummy_env.distill", "evaluate", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )


@pytest.mark.parametrize(
    "args, fragments",
    [
        (["nothere", "--sessions", "1"], ["checkpoint file 'nothere.safetensors' is missing"]),
        ([str(ROOT / "checkpoints" / "contract"), "--sessions", "0"], ["--sessions", ">= 1"]),
        ([str(ROOT / "checkpoints" / "contract"), "--workers", "0"], ["--workers", ">= 1"]),
        (["--plot", "no_run"], ["--plot", "'no_run' is not a run folder"]),
        (["--manifest", "no_dir"], ["--manifest", "is not a folder"]),
        ([], ["nothing to do"]),
    ],
)
def test_evaluate_script_arguments(tmp_path: Path, args: list[str], fragments: list[str]) -> None:
    pytest.importorskip("torch")
    out = _evaluate(tmp_path, *args)
    assert out.returncode == 2 and out.stdout == ""
    _one_line_error(out.stderr, *fragments)


def test_bench_vector_reports_the_vector_layer_and_its_ratio(capsys: pytest.CaptureFixture[str]) -> None:
    """``rummy bench --vector N`` adds a ``vector`` line with ``num_envs`` and ``ratio_to_aec`` (same run)."""
    from rummy_env.cli import commands

    assert commands.main(["bench", "--profile", "continental", "--seconds", "0.3", "--vector", "2", "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]
    assert [x["layer"] for x in lines] == ["engine", "pettingzoo_aec", "vector"]
    vec, aec = lines[2], lines[1]
    assert vec["num_envs"] == 2 and vec["decisions"] > 0
    assert vec["ratio_to_aec"] == round(vec["decisions_per_second"] / aec["decisions_per_second"], 2)


@pytest.mark.parametrize("command", ["record", "tournament"])
def test_a_checkpoint_entrant_without_torch_is_one_line_with_the_install_hint(tmp_path: Path, command: str) -> None:
    """Issue 38: a ``checkpoint:`` entrant that cannot load because torch is missing is one line on stderr (the
    ImportError's install hint), exit code 2, for ``rummy record`` as for ``rummy tournament``; nothing written."""
    run = (
        "import sys; sys.modules['torch'] = None; from rummy_env.cli.commands import main; sys.exit(main(sys.argv[1:]))"
    )
    out = tmp_path / ("game.json" if command == "record" else "t")
    entrants = ["checkpoint:contract", "heuristic"] + (["heuristic"] * 2 if command == "record" else [])
    argv = [command, "--profile", "contract", "--rounds", "1", "--entrants", *entrants, "--out", str(out)]
    argv += [] if command == "record" else ["--sessions", "1"]
    proc = subprocess.run([sys.executable, "-c", run, *argv], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    _one_line_error(proc.stderr, "entrant 'checkpoint:contract' cannot be loaded", "needs torch", "pip install")
    assert not out.exists()


def test_entrant_refusals_are_entrant_errors() -> None:
    from rummy_env.evaluation.tournament import EntrantError, check_entrants

    assert issubclass(EntrantError, ValueError)
    with pytest.raises(EntrantError, match="entrant 'wizard' cannot be loaded"):
        check_entrants("contract", ["random", "wizard"], 4, {})


def test_bench_rollouts_reports_both_policies_in_one_run(capsys) -> None:
    code, out, err = _rummy(capsys, "bench", "--rollouts", "--profile", "contract", "--seconds", "0.3", "--json")
    assert code == 0, err
    res = json.loads(out.strip().splitlines()[-1])
    assert res["profile"] == "contract" and res["heuristic"]["rollouts"] >= 1 and res["fast"]["rollouts"] >= 1
    assert res["speedup"] == pytest.approx(res["fast"]["rollouts_per_s"] / res["heuristic"]["rollouts_per_s"])
