"""Figures in the README and docs/ that come from a file or the code match it (issue 17, "honest numbers").

- the shipped checkpoints' evaluation tables (docs/training.md, checkpoints/README.md) are checkpoints/manifest.json;
- the integration test count stated in docs/frameworks.md is the number of tests marked ``integration``, counted by
  reading the test files (their frameworks are not installed in the core venv, so pytest cannot collect them here);
- the quick start's step count is what configs/quickstart.yaml makes ``training/ppo.py`` run;
- docs/bots.md's budget table is ``rummy_env.bots.search``'s constants;
- every section of README and docs/ that gives a duration or a throughput dates it.
"""

from __future__ import annotations

import ast
import json
import math
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = json.loads((ROOT / "checkpoints" / "manifest.json").read_text(encoding="utf-8"))
TESTS = ROOT / "tests"


def _read(rel: str) -> str:
    return (ROOT / rel).read_text(encoding="utf-8")


def _num(text: str) -> float:
    """A figure as the docs print it (``−149.2``, ``+31.2``, ``1,558``) as a float."""
    return float(text.replace("−", "-").replace("+", "").replace(",", ""))


def _pm(text: str) -> list[tuple[float, float]]:
    """Every ``value ± half-width`` pair in ``text``."""
    return [(_num(a), _num(b)) for a, b in re.findall(r"([−+-]?\d[\d,]*\.?\d*) ± (\d+\.?\d*)", text)]


def _row(text: str, first_cell: str) -> str:
    rows = [line for line in text.splitlines() if line.startswith(f"| {first_cell}")]
    assert len(rows) == 1, f"expected one table row starting with {first_cell!r}, found {len(rows)}"
    return rows[0]


def _expected(ev: dict) -> list[tuple[float, float]]:
    return [
        (round(ev["policy"], 1), round(ev["policy_ci95"], 1)),
        (round(ev["opponents"], 1), round(ev["opponents_ci95"], 1)),
        (round(ev["difference"], 1), round(ev["difference_ci95"], 1)),
    ]


@pytest.mark.parametrize("profile", sorted(MANIFEST["checkpoints"]))
def test_training_doc_shipped_table_is_the_manifest(profile: str) -> None:
    """docs/training.md: one row per checkpoint, policy / random, difference, policy / heuristic, difference."""
    row = _row(_read("docs/training.md"), f"`{profile}` (")
    ev = MANIFEST["checkpoints"][profile]["evaluation"]
    exp = _expected(ev["random"]) + _expected(ev["heuristic"])
    assert _pm(row) == exp, f"docs/training.md row of {profile} differs from checkpoints/manifest.json: {row}"


@pytest.mark.parametrize("profile", sorted(MANIFEST["checkpoints"]))
@pytest.mark.parametrize("opponent", ["random", "heuristic"])
def test_checkpoints_readme_table_is_the_manifest(profile: str, opponent: str) -> None:
    ev = MANIFEST["checkpoints"][profile]["evaluation"][opponent]
    row = _row(_read("checkpoints/README.md"), f"`{profile}` | {opponent} ")
    assert _pm(row) == _expected(ev), f"checkpoints/README.md row differs from the manifest: {row}"
    shares = [float(x) for x in re.findall(r"(\d+\.\d) %", row)]
    assert shares == [round(100 * ev["policy_rounds_won_share"], 1), round(100 * ev["opponent_rounds_won_share"], 1)]


def test_shipped_training_minutes_and_steps_are_the_manifest() -> None:
    """docs/training.md's minutes of each checkpoint made by ``training/ppo.py`` alone ("in N minutes"; a warm start
    alone "in N minutes" too) and checkpoints/README.md's steps, updates and minutes; a checkpoint fitted to rollout
    advantages or distilled from a teacher's labels names its labelled decisions and sessions."""
    training = _read("docs/training.md")
    shipped = training[training.index("## Shipped checkpoints") :].split("\n## ")[0]
    readme = _read("checkpoints/README.md")
    for profile, e in MANIFEST["checkpoints"].items():
        minutes = round(e["wall_seconds"] / 60)
        fit = e["advantage_fit"] or e["distillation"]
        if not fit:
            assert f"in {minutes} minutes" in shipped, f"docs/training.md lacks {profile}'s {minutes} minutes"
            assert f"; {minutes} min" in _row(readme, f"`{profile}` | `")
        row = _row(readme, f"`{profile}` | `")
        for figure in (e["warm_start"]["decisions"], e["training_steps"]):
            assert f"{figure:,}" in row, f"checkpoints/README.md row of {profile} lacks {figure:,}: {row}"
        updates = e["updates"] if not fit else f"{e['updates']} updates;"
        assert f"({updates}" in row, f"checkpoints/README.md row of {profile} lacks its updates: {row}"
        if fit:
            assert f"{round(e['wall_seconds'] / 60)} min in all" in row
            assert f"{fit['training_rows'] + fit['held_out_rows']:,} labelled decisions of {fit['sessions']}" in row


# ---- integration tests, counted from the files -----------------------------------------------------------------


def _module_values(tree: ast.Module) -> dict[str, ast.expr]:
    return {
        t.id: node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        for t in node.targets
        if isinstance(t, ast.Name)
    }


def _length(node: ast.expr, names: dict[str, ast.expr]) -> int:
    """How many cases a ``parametrize`` argvalues expression holds (lists, tuples, names of them, slices)."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return len(node.elts)
    if isinstance(node, ast.Name) and node.id in names:
        return _length(names[node.id], names)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        bounds = [
            ast.literal_eval(b) if b is not None else None
            for b in (node.slice.lower, node.slice.upper, node.slice.step)
        ]
        return len(range(_length(node.value, names))[slice(*bounds)])
    raise AssertionError(f"cannot count the parametrize values {ast.unparse(node)}: extend _length")


def _is_mark(node: ast.expr, name: str) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    return isinstance(target, ast.Attribute) and target.attr == name and "mark" in ast.unparse(target)


def _integration_cases(path: Path) -> int:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = _module_values(tree)
    marked = "pytestmark" in names and any(
        _is_mark(m, "integration") for m in ([names["pytestmark"]] + list(getattr(names["pytestmark"], "elts", [])))
    )
    total = 0
    for node in ast.walk(tree):
        if not (isinstance(node, ast.FunctionDef) and node.name.startswith("test")):
            continue
        if not (marked or any(_is_mark(d, "integration") for d in node.decorator_list)):
            continue
        cases = 1
        for d in node.decorator_list:
            if isinstance(d, ast.Call) and _is_mark(d, "parametrize"):
                cases *= _length(d.args[1], names)
        total += cases
    return total


def integration_test_count() -> int:
    """Tests that ``pytest -m integration`` collects, counted in tests/*.py."""
    return sum(_integration_cases(p) for p in sorted(TESTS.glob("test_*.py")))


def test_counter_counts_parametrized_cases(tmp_path: Path) -> None:
    """The counter itself: module mark, decorator mark, stacked parametrize, a sliced module list."""
    (tmp_path / "test_x.py").write_text(
        "import pytest\nP = [1, 2, 3]\n"
        "@pytest.mark.integration\n@pytest.mark.parametrize('a', P[::2])\n@pytest.mark.parametrize('b', [1, 2])\n"
        "def test_a(a, b): pass\n"
        "def test_unmarked(): pass\n",
        encoding="utf-8",
    )
    assert _integration_cases(tmp_path / "test_x.py") == 4
    (tmp_path / "test_y.py").write_text(
        "import pytest\npytestmark = pytest.mark.integration\ndef test_a(): pass\ndef test_b(): pass\n",
        encoding="utf-8",
    )
    assert _integration_cases(tmp_path / "test_y.py") == 2


def test_frameworks_doc_states_the_integration_test_count() -> None:
    count = integration_test_count()
    text = _read("docs/frameworks.md")
    assert f"`pytest -m integration` collects {count} tests" in text, (
        f"docs/frameworks.md must say how many tests `pytest -m integration` collects: {count}"
    )
    # every other "N tests" of the page is this count too, unless it is marked as an earlier run
    stated = [
        int(m.group(1))
        for m in re.finditer(r"\b(\d+) tests\b", text)
        if "earlier" not in text[max(0, m.start() - 40) : m.start()] and "that day" not in text[m.end() : m.end() + 12]
    ]
    assert stated and set(stated) == {count}, f"docs/frameworks.md states {stated} integration tests; {count} exist"


# ---- the quick start and the search bot --------------------------------------------------------------------------


def test_quick_start_steps_are_what_the_config_runs() -> None:
    """``training/ppo.py`` runs whole updates: total_steps rounded up to steps_per_update."""
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load(_read("configs/quickstart.yaml"))
    steps = math.ceil(config["total_steps"] / config["steps_per_update"]) * config["steps_per_update"]
    for rel in ("README.md", "docs/training.md"):
        text = _read(rel)
        assert f"{steps:,} env steps" in text, f"{rel} should give the quick start's {steps:,} env steps"
        others = {int(x.replace(",", "")) for x in re.findall(r"\b(\d{3},\d{3}) env steps\b", text)}
        assert others <= {steps} | _other_runs_steps(), f"{rel}: env step counts {others}; the quick start runs {steps}"
    assert f"after {config['max_minutes']:g} minutes of PPO" in _read("README.md")


def _other_runs_steps() -> set[int]:
    """Step counts of runs other than the quick start that docs/training.md reports (capped runs, shipped runs)."""
    return {192_512, 163_840, 330_000} | {e["training_steps"] for e in MANIFEST["checkpoints"].values()}


def test_bots_doc_budget_table_is_the_code() -> None:
    from rummy_env.bots import search

    text = _read("docs/bots.md")
    for profile, budget in search.DEFAULT_BUDGET.items():
        row = _row(text, f"`{profile}` | {budget} |")
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[2] == str(search.HORIZON[profile]), row
        final = search.FINAL_HORIZON.get(profile)
        assert (f"({final})" in cells[3]) if final else cells[3] == "(one stage)", row


# ---- every duration and throughput is dated ------------------------------------------------------------------------

DATED_DOCS = ["README.md"] + sorted(
    f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md") if p.name not in ("benchmarks.md", "performance.md")
)
#: a duration or a throughput: "3 s", "62.6 s", "4-8 ms", "6 min 51 s", "12-23 minutes", "1,051 env steps/s"
FIGURE = re.compile(
    r"\d(?:[\d,.]*\d)?(?:\s?-\s?\d[\d,.]*)?\s(?:ms|s|min|minutes|seconds|hours)\b|\d[\d,.]*\s(?:\w+\s)?\w+/s\b"
)
DATE = re.compile(r"\b2026-\d\d-\d\d\b")


def _sections(text: str) -> list[tuple[str, str]]:
    """(heading, body) of every ``#`` section, fenced code left out (command output, comments)."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    parts = re.split(r"^(#+ .*)$", text, flags=re.M)
    return [("(top)", parts[0])] + list(zip(parts[1::2], parts[2::2]))


def undated_sections(text: str) -> list[str]:
    """Headings of the sections that give a duration or throughput but no date."""
    return [
        f"{head}: {FIGURE.search(body).group(0)!r}"
        for head, body in _sections(text)
        if head.strip("# ") != "Speed" and FIGURE.search(body) and not DATE.search(body)
    ]


def test_dating_check_catches_an_undated_figure() -> None:
    assert undated_sections("# A\n\nThe run takes 3 s.\n") == ["# A: '3 s'"]
    assert undated_sections("# A\n\nThe run takes 3 s (2026-12-01).\n\n```\ntime 5 s\n```\n# B\n\nNo figure.\n") == []
    assert undated_sections("# A\n\n1,051 env steps/s\n") == ["# A: '1,051 env steps/s'"]


@pytest.mark.parametrize("rel", DATED_DOCS)
def test_every_duration_and_throughput_is_dated(rel: str) -> None:
    """Issue 17: a duration or throughput is given with the date it was measured (and the machine, in the text)."""
    assert not undated_sections(_read(rel)), f"{rel}: sections with an undated figure: {undated_sections(_read(rel))}"


RESULTS = sorted((ROOT / "docs" / "tournaments").glob("tournament-*.json"))


def _results_section() -> str:
    text = _read("README.md")
    start = text.index("## Results: bots and shipped checkpoints")
    return text[start : text.index("\n## ", start + 1)]


def test_readme_results_tables_cover_every_profile_once() -> None:
    """The README results section has one tournament file per profile, each named in the reproduce text."""
    assert sorted(json.loads(p.read_text(encoding="utf-8"))["profile"] for p in RESULTS) == sorted(MANIFEST["checkpoints"])


@pytest.mark.parametrize("path", RESULTS, ids=lambda p: p.stem)
def test_readme_results_rows_are_the_tournament(path: Path) -> None:
    """Each README results row (score per round with CI, rating, minus heuristic) is its tournament.json's figures,
    and the table lists every entrant of that tournament in standings order."""
    data = json.loads(path.read_text(encoding="utf-8"))
    section = _results_section()
    block = section[section.index(f"`{data['profile']}`, {data['num_players']} players") :]
    rows = [line for line in block.split("\n\n", 2)[1].splitlines() if line.startswith("| `")]
    hh = {(h["row"], h["col"]): h for h in data["head_to_head"]}
    assert len(rows) == len(data["standings"])
    for row, st in zip(rows, data["standings"]):
        pr, rating = st["per_round"], st["rating"]
        h = hh.get((st["spec"], "heuristic"))
        vs = f"{h['mean_diff']:+.1f} [{h['low']:+.1f}, {h['high']:+.1f}]" if h else "—"
        expected = (
            f"| `{st['spec']}` | {pr['mean']:.1f} [{pr['low']:.1f}, {pr['high']:.1f}] | "
            f"{rating['mu']:.1f} ± {1.96 * rating['sigma']:.1f} ({rating['ordinal']:.1f}) | {vs} |"
        )
        assert row == expected, f"README results row differs from {path.name}"
    assert f"--seed {data['seed']}" in section and f"{data['sessions']} sessions" in section
