"""The results tables of the README and the docs are what ``docs/figures.py`` renders from docs/results/*.json.

- ``python docs/figures.py --check`` passes on the repository (every ``<!-- figures:NAME -->`` block is current);
- the check can fail: a stale block in a copy is named, and a rewrite makes it current again;
- the README gives each figure once: exactly one results block;
- ``--import`` writes a tournament's summary without its per-session records;
- the quick start's minute budget in the README is the one configs/quickstart.yaml sets.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "docs" / "figures.py"


def _figures(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120)


def test_figures_are_current() -> None:
    out = _figures("--check")
    assert out.returncode == 0, f"stale figures; run python docs/figures.py\n{out.stderr}"


def test_stale_block_is_detected_and_rewritten(tmp_path: Path) -> None:
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    readme = tmp_path / "README.md"
    current = readme.read_text(encoding="utf-8")
    stale = re.sub(r"(<!-- figures:results -->\n\|[^\n]*)", r"\1 (edited by hand)", current, count=1)
    assert stale != current
    readme.write_text(stale, encoding="utf-8")

    out = _figures("--check", "--root", str(tmp_path))
    assert out.returncode == 1 and "README.md: figures:results" in out.stderr, out.stderr
    assert readme.read_text(encoding="utf-8") == stale, "--check must not write"

    assert _figures("--root", str(tmp_path)).returncode == 0
    assert readme.read_text(encoding="utf-8") == current
    assert _figures("--check", "--root", str(tmp_path)).returncode == 0


def test_unknown_block_name_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("<!-- figures:nonsense -->\n<!-- /figures -->\n", encoding="utf-8")
    out = _figures("--check", "--root", str(tmp_path))
    assert out.returncode != 0 and "nonsense" in out.stderr


def test_readme_holds_exactly_one_results_block() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    names = re.findall(r"<!-- figures:([\w-]+) -->", text)
    assert names == ["results"], f"the README gives each figure once, in one results block; found {names}"
    assert text.count("<!-- /figures -->") == 1


def test_results_block_has_a_figure_and_a_command_per_profile() -> None:
    spec = importlib.util.spec_from_file_location("docs_figures", SCRIPT)  # a script, loaded by path: no sys.path edit
    figures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(figures)
    table = figures.results()
    for profile in figures.PROFILES:
        match = figures.load(profile, "checkpoint-vs-heuristic")
        h = figures.head_to_head(match, figures.checkpoint_spec(match))
        assert figures.diff(h) in table
        assert f"--seed {match['seed']}" in table and f"--entrants heuristic checkpoint:{profile} " in table


def test_import_drops_the_records(tmp_path: Path) -> None:
    summary = json.loads((ROOT / "docs" / "results" / "contract-all-entrants.json").read_text(encoding="utf-8"))
    run = tmp_path / "tournament.json"
    run.write_text(json.dumps({**summary, "records": [{"session": 0}]}), encoding="utf-8")
    out = _figures("--import", str(run), "--as", str(tmp_path / "summary.json"))
    assert out.returncode == 0, out.stderr
    assert json.loads((tmp_path / "summary.json").read_text(encoding="utf-8")) == summary


def test_quick_start_budget_is_the_config() -> None:
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / "configs" / "quickstart.yaml").read_text(encoding="utf-8"))
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"for at most {config['max_minutes']:g} minutes" in readme
