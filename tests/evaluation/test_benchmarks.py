"""``rummy bench``, the one benchmark entry point: ``--compare`` (ours beside the peers' gin rummy) runs end to end and
writes a well-formed table; the plain command reports memory per table. Tiny budgets, no timed assertions (speed is
read from the benchmark, never asserted)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from rummy_env.cli import commands
from rummy_env.evaluation import peer_bench as cg

ROOT = Path(__file__).resolve().parents[2]
PEERS_SCRIPT = ROOT / "rummy_env" / "evaluation" / "peers.py"
COMPARE = ["bench", "--compare"]
OURS = [f"{p}_{layer}" for layer in ("aec", "engine", "vector") for p in ("contract", "contract_gamerules",
                                                                            "continental")]
PEERS = ["pz_gin", "rlcard_gin", "openspiel_gin_obs", "openspiel_gin"]
TINY = ["--seconds", "0.05", "--warmup", "0", "--vector", "2", "--no-pin"]


def _table_rows(md: str) -> list[list[str]]:
    """The cells of the markdown table's body rows (header and separator checked here)."""
    lines = md.splitlines()
    assert lines[0] == ("| | decisions/s | ÷ PettingZoo gin | decisions/CPU-s | ÷ PettingZoo gin, CPU time | "
                        "sessions/s |")
    assert lines[1] == "|---|---|---|---|---|---|"
    body = []
    for line in lines[2:]:
        if not line.startswith("|"):
            break
        assert line.endswith("|")
        cells = [c.strip() for c in line[1:-1].split("|")]
        assert len(cells) == 6, line
        body.append(cells)
    return body


def test_compare_gin_runs_end_to_end_with_only_our_envs(tmp_path: Path) -> None:
    """Every row of ours measured twice, the peers missing from this Python reported as such, a JSON file and a
    markdown table with one line per row."""
    out_json, out_md = tmp_path / "r.json", tmp_path / "r.md"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    # the test venv is the "peers' Python": PettingZoo >= 1.27 without gin_rummy_v4, no rlcard, no pyspiel
    proc = subprocess.run(
        [sys.executable, "-m", "rummy_env.cli", *COMPARE, *TINY, "--repeats", "2", "--peers-python", sys.executable,
         "--json", str(out_json), "--markdown", str(out_md)],
        capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    res = json.loads(out_json.read_text())
    md = out_md.read_text()
    assert res["markdown"] == md and md in proc.stdout
    assert [r["id"] for r in res["rows"]] == PEERS + OURS
    assert res["settings"]["repeats"] == 2 and res["machine"]["cores"] >= 1
    assert len(res["schedule"]) == 2 and res["schedule"][1] == res["schedule"][0][::-1]
    for row in res["rows"]:
        if row["kind"] == "ours":
            assert row["available"] and len(row["runs"]) == 2
            assert all(r["decisions"] > 0 and r["decisions_per_second"] > 0 for r in row["runs"])
            dps = sorted(r["decisions_per_second"] for r in row["runs"])
            assert row["decisions_per_second"] == pytest.approx(sum(dps) / 2)  # median of two
        elif not row["available"]:
            assert row["reason"] and f"{row['id']}: not installed" in proc.stderr
    body = _table_rows(md)
    assert [c[0] for c in body] == [r["label"] for r in res["rows"]]
    for cells, row in zip(body, res["rows"]):
        if row["available"]:
            assert int(cells[1].replace(",", "")) == round(row["decisions_per_second"])
            assert int(cells[3].replace(",", "")) == round(row["decisions_per_cpu_second"])
            assert float(cells[5].replace(",", "")) >= 0
        else:
            assert cells[1].startswith("not measured:")
    if not res["rows"][0]["available"]:  # no PettingZoo gin: no ratios, and the table says why
        assert all(c[2] == c[4] == "" for c in body) and "no ratios" in md


def test_ratios_are_per_repeat_against_pettingzoo_and_the_runs_alternate(monkeypatch, tmp_path: Path) -> None:
    """With a stand-in peer at a known rate, each row's ratio is the median over repeats of its decisions/s over
    the PettingZoo figure of the same repeat; peers run between our rows."""
    rates = iter([1000.0, 2000.0, 4000.0])
    calls: list[str] = []

    def fake_probe(_python: Path) -> tuple[dict[str, Any], None]:
        return {p: ({"available": True, "version": "x"} if p == "pz_gin" else {"available": False,
                                                                                "reason": "absent"})
                for p in cg.PEER_ROWS}, None

    def fake_peer(_python: Path, peer: str, seconds: float, seed: int, warmup: float) -> dict[str, Any]:
        calls.append(peer)
        r = next(rates)
        return {"decisions": int(r), "sessions": 1, "seconds": 1.0, "decisions_per_second": r,
                "sessions_per_second": 1.0, "cpu_seconds": 0.5, "decisions_per_cpu_second": 2 * r}

    real_ours = cg.measure_ours

    def spy_ours(row: str, *a: Any) -> dict[str, Any]:
        calls.append(row)
        return real_ours(row, *a)

    monkeypatch.setattr(cg, "probe_peers", fake_probe)
    monkeypatch.setattr(cg, "measure_peer", fake_peer)
    monkeypatch.setattr(cg, "measure_ours", spy_ours)
    code = commands.main([*COMPARE, *TINY, "--repeats", "3", "--only", "pz_gin,contract_aec,continental_engine",
                          "--json", str(tmp_path / "r.json")])
    assert code == 0
    assert calls[:3] == ["contract_aec", "pz_gin", "continental_engine"]  # ours, peer, ours
    assert calls[3:6] == ["continental_engine", "pz_gin", "contract_aec"]  # reversed next repeat
    res = json.loads((tmp_path / "r.json").read_text())
    assert (tmp_path / "r.md").read_text() == res["markdown"]
    rows = {r["id"]: r for r in res["rows"]}
    assert rows["pz_gin"]["ratio_to_pz_gin"] == 1.0 and rows["pz_gin"]["decisions_per_second"] == 2000.0
    aec = rows["contract_aec"]
    expected = sorted(r["decisions_per_second"] / g for r, g in zip(aec["runs"], [1000.0, 2000.0, 4000.0]))[1]
    assert aec["ratio_to_pz_gin"] == pytest.approx(expected)
    cpu_expected = sorted(r["decisions_per_cpu_second"] / (2 * g)
                          for r, g in zip(aec["runs"], [1000.0, 2000.0, 4000.0]))[1]
    assert aec["cpu_ratio_to_pz_gin"] == pytest.approx(cpu_expected)
    assert all(0 < r["cpu_seconds"] and r["decisions_per_cpu_second"] > 0 for r in aec["runs"])
    assert [r["id"] for r in res["rows"]] == ["pz_gin", "contract_aec", "continental_engine"]


def test_a_missing_peers_python_is_reported_and_ours_still_measured(tmp_path: Path, capsys) -> None:
    code = commands.main([*COMPARE, *TINY, "--repeats", "1", "--peers-python", str(tmp_path / "nope" / "python"),
                          "--only", "pz_gin,rlcard_gin,continental_vector", "--json", str(tmp_path / "r.json")])
    err = capsys.readouterr().err
    assert code == 0 and "no peers Python at" in err and "setup_peers.sh" in err
    rows = {r["id"]: r for r in json.loads((tmp_path / "r.json").read_text())["rows"]}
    assert not rows["pz_gin"]["available"] and not rows["rlcard_gin"]["available"]
    assert rows["continental_vector"]["available"] and rows["continental_vector"]["runs"][0]["decisions"] > 0


@pytest.mark.parametrize("argv, fragment", [
    (["--only", "contract_aec,bogus"], "unknown rows"),
    (["--seconds", "0"], "seconds > 0"),
    (["--repeats", "0"], ">= 1"),
])
def test_bad_arguments_are_refused(tmp_path: Path, capsys, argv: list[str], fragment: str) -> None:
    try:
        code = commands.main([*COMPARE, *argv, "--no-pin", "--json", str(tmp_path / "r.json")])
    except SystemExit as exc:
        code = exc.code
    assert code == 2 and fragment in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()


def test_peers_script_reports_a_missing_peer_without_importing_rummy_env() -> None:
    """The peers' script runs by its path in a Python without the peers (here: without gin_rummy_v4 or rlcard)
    and imports nothing of the package."""
    proc = subprocess.run([sys.executable, "-I", str(PEERS_SCRIPT), "probe"], capture_output=True, text=True,
                          timeout=120, cwd=ROOT / "benchmarks")
    assert proc.returncode == 0, proc.stderr
    peers = json.loads(proc.stdout)["peers"]
    assert sorted(peers) == sorted(PEERS)
    for info in peers.values():
        assert info["available"] or "setup_peers.sh" in info["reason"]
    tree = ast.parse(PEERS_SCRIPT.read_text())
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert "rummy_env" not in imported and not any(isinstance(n, ast.ImportFrom) and n.level for n in ast.walk(tree))


def test_bench_reports_a_positive_memory_per_table_for_both_apis() -> None:
    from rummy_env.evaluation.bench import bench_env, bench_vector_env, table_memory

    aec = bench_env("continental", 0.05)
    vec = bench_vector_env("continental", 3, 0.05)
    for rec in (aec, vec):
        assert rec["memory_per_table_bytes"] > 0 and rec["memory_peak_bytes"] >= rec["memory_per_table_bytes"]
        assert rec["memory_method"] == "tracemalloc" and rec["decisions"] > 0 and rec["sessions_per_second"] >= 0
    assert vec["num_envs"] == 3 and 0 < vec["step_time_share"] <= 1 and 0 <= vec["sampling_time_share"] <= 1
    assert vec["observation_time_share"] is not None and 0 < vec["observation_time_share"] < vec["step_time_share"]
    assert not tracemalloc.is_tracing()  # left as found
    # a VectorEnv's tables share its layout and observer: more tables, not proportionally more memory each
    one, eight = table_memory("contract", 1, steps=10), table_memory("contract", 8, steps=10)
    assert 0 < eight["memory_per_table_bytes"] <= one["memory_per_table_bytes"]
    assert eight["memory_peak_bytes"] > one["memory_peak_bytes"]


def test_bench_vector_env_leaves_the_observer_as_it_was() -> None:
    from rummy_env.evaluation.bench import bench_vector_env
    from rummy_env.vector import VectorEnv

    bench_vector_env("contract", 2, 0.05, memory=False)
    vec = VectorEnv("contract", 2, seed=0)
    assert "encode" not in vars(vec.observer)
    with pytest.raises(ValueError, match="expected a finite number of seconds > 0"):
        bench_vector_env("contract", 2, 0.0)


def test_rummy_bench_vector_lines_carry_memory_and_time_shares(capsys) -> None:
    from rummy_env.cli import commands

    assert commands.main(["bench", "--profile", "contract", "--seconds", "0.05", "--vector", "2", "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]
    engine, aec, vec = lines
    assert engine["layer"] == "engine" and "legal_actions_time_share" in engine
    for key in ("decisions_per_second", "sessions_per_second", "mask_time_share", "observation_time_share"):
        assert key in aec
    for key in ("decisions_per_second", "sessions_per_second", "step_time_share", "sampling_time_share",
                "ratio_to_aec"):
        assert key in vec
    assert aec["memory_per_table_bytes"] > 0 and vec["memory_per_table_bytes"] > 0


def test_rummy_bench_is_the_one_entry_point() -> None:
    """No benchmark script besides ``rummy bench``: benchmarks/ keeps the peers' set-up and the stored results;
    the flags of the comparison belong to --compare, a --json file name too."""
    assert sorted(p.name for p in (ROOT / "benchmarks").iterdir() if p.suffix == ".py") == []
    for argv, says in ((["bench", "--repeats", "2"], "only with --compare"),
                       (["bench", "--json", "x.json"], "a file name only with --compare"),
                       (["bench", "--compare", "--engine-only"], "not with --compare")):
        assert commands.main(argv) == 2, says
