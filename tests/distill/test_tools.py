"""The tools around the package: ``python -m rummy_env.distill evaluate`` never overwrites shipped files unasked and its manifest
keys are the shipped ones; long commands show progress (on a terminal only); terminal tables fit in 120 columns;
the learning-curve chart has bands, units and its legends outside the data; missing extras get an install hint."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rummy_env.distill import evaluate as evaluate_script
from rummy_env.distill import manifest as manifest_module

ROOT = Path(__file__).resolve().parents[2]
EVALUATE = [sys.executable, "-m", "rummy_env.distill", "evaluate"]

SHIPPED = ROOT / "checkpoints"
WIDTH = 120


def _digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


# ----------------------------------------------------------------------------------------------------------------
# python -m rummy_env.distill evaluate --manifest
# ----------------------------------------------------------------------------------------------------------------


def test_shipped_manifest_has_exactly_the_keys_the_tool_writes() -> None:
    from rummy_env.models.checkpoints import read_metadata

    manifest = json.loads((SHIPPED / "manifest.json").read_text())
    assert list(manifest) == ["about", "evaluation_seed", "evaluated", "checkpoints"]
    names = sorted(p.stem for p in SHIPPED.glob("*.json") if p.name != "manifest.json")
    assert sorted(manifest["checkpoints"]) == names
    for name, shipped in manifest["checkpoints"].items():
        assert tuple(shipped) == evaluate_script.MANIFEST_ENTRY_KEYS, name
        base = SHIPPED / name
        entry = evaluate_script.manifest_entry(base, read_metadata(base), shipped["evaluation"], runs_dir="no-runs")
        assert tuple(entry) == evaluate_script.MANIFEST_ENTRY_KEYS
        # what the tool would write from the checkpoint's own metadata is what is shipped (the run's progress.jsonl
        # that run_figures come from is not in the repository)
        differ = [k for k in entry if k != "run_figures" and entry[k] != shipped[k]]
        assert differ == [], f"{name}: {differ}"


def _fake_match(path: str, opponent: str, sessions: int, **kwargs: Any) -> dict[str, Any]:
    progress = kwargs.get("progress")
    for _ in range(sessions):
        progress(1)
    return {"opponent": opponent, "skipped": f"fake match of {Path(path).name}, {sessions} sessions"}


@pytest.fixture
def checkpoint_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "ckpts"
    folder.mkdir()
    for f in ("contract.json", "contract.safetensors", "manifest.json"):
        shutil.copy(SHIPPED / f, folder / f)
    return folder


def test_manifest_prints_and_writes_only_with_write(
    checkpoint_copy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(manifest_module, "evaluate_checkpoint", _fake_match)
    before = _digests(checkpoint_copy)
    args = ["--manifest", str(checkpoint_copy), "--sessions", "3", "--opponents", "random", "--quiet"]
    assert evaluate_script.main(args) == 0
    out, err = capsys.readouterr()
    assert _digests(checkpoint_copy) == before
    assert "contract: vs random" in out and "fake match of contract, 3 sessions" in out
    assert "contract: vs random, 3 session(s)" in err and "nothing written: add --write" in err

    assert evaluate_script.main([*args, "--write"]) == 0
    out, _ = capsys.readouterr()
    assert "wrote" in out and "manifest.json" in out
    manifest = json.loads((checkpoint_copy / "manifest.json").read_text())
    assert list(manifest["checkpoints"]) == ["contract"]
    entry = manifest["checkpoints"]["contract"]
    assert tuple(entry) == evaluate_script.MANIFEST_ENTRY_KEYS
    assert entry["evaluation"]["random"]["skipped"].startswith("fake match")
    meta = json.loads((checkpoint_copy / "contract.json").read_text())
    assert meta["evaluation"] == entry["evaluation"]
    assert (checkpoint_copy / "contract.safetensors").read_bytes() == (SHIPPED / "contract.safetensors").read_bytes()


def test_manifest_real_run_writes_nothing(checkpoint_copy: Path, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    before = _digests(checkpoint_copy)
    cmd = [*EVALUATE, "--manifest", str(checkpoint_copy)]
    cmd += ["--sessions", "1", "--opponents", "random", "--workers", "1"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert _digests(checkpoint_copy) == before
    assert out.stdout.startswith("contract: vs random ") and "penalty_per_round" in out.stdout
    assert out.stderr.splitlines()[0] == "contract: vs random, 1 session(s), 1 worker(s) ..."


def test_write_needs_manifest(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        evaluate_script.main([str(SHIPPED / "contract"), "--write"])
    assert exit_.value.code == 2
    assert "--write: only with --manifest" in capsys.readouterr().err


def test_evaluate_help_sentences_are_whole(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        evaluate_script.main(["--help"])
    text = "".join(capsys.readouterr().out.split())  # argparse wraps lines at spaces and after hyphens
    description = "".join(evaluate_script.__doc__.split("\n\n")[0].replace("``", "").split())
    assert description.endswith("plotlearningcurves.") and description in text
    assert "itwritesnothingunless--writeisgiven" in text and "``" not in text


# ----------------------------------------------------------------------------------------------------------------
# Learning curves
# ----------------------------------------------------------------------------------------------------------------


def _fake_run(folder: Path, metric: str = "penalty_per_round") -> Path:
    run = folder / "contract__ppo__1__1"
    run.mkdir(parents=True)
    prog = [{"update": u, "global_step": 256 * u, "wall_seconds": u, "episode_return": -1 + u / 100 + (u % 3) / 10}
            for u in range(1, 121)]  # fmt: skip
    evals = [
        {"update": u, "global_step": 256 * u,
         "eval": {o: {"metric": metric, "policy": 50 - u / 10 + k, "policy_ci95": 5.0, "opponents": 100 + k,
                      "opponents_ci95": 4.0} for k, o in enumerate(("random", "heuristic"))}}
        for u in range(0, 121, 20)
    ]  # fmt: skip
    (run / "progress.jsonl").write_text("".join(json.dumps(r) + "\n" for r in prog))
    (run / "eval.jsonl").write_text("".join(json.dumps(r) + "\n" for r in evals))
    return run


@pytest.mark.parametrize("metric, unit", [("penalty_per_round", "penalty points"), ("payment_per_deal", "payment points")])
def test_learning_curves_have_bands_units_and_outside_legends(tmp_path: Path, metric: str, unit: str) -> None:
    pytest.importorskip("matplotlib")
    from matplotlib.collections import PolyCollection

    run = _fake_run(tmp_path, metric)
    fig = evaluate_script.learning_curve_figure([str(run)])
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    left, right = fig.axes
    # one band per drawn line: policy and opponents against 2 opponents; the moving mean of the returns
    assert sum(isinstance(c, PolyCollection) for c in left.collections) == 4 == len(left.lines)
    assert sum(isinstance(c, PolyCollection) for c in right.collections) == 1
    band = next(c for c in left.collections if isinstance(c, PolyCollection)).get_paths()[0].vertices[:, 1]
    assert band.max() - band.min() >= 2 * 5.0  # at least the stored half-width on either side
    assert unit in left.get_ylabel() and metric.split("_per_")[1] in left.get_ylabel()
    assert "points / 100" in right.get_ylabel()
    for ax in (left, right):
        legend = ax.get_legend()
        assert legend is not None and len(legend.get_texts()) >= 2
        box, area = legend.get_window_extent(renderer), ax.get_window_extent(renderer)
        assert not box.overlaps(area), "the legend sits on the data"
    out = tmp_path / "curve.png"
    assert evaluate_script.main(["--plot", str(run), "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _tiny_checkpoint(path: Path, steps: int, seed: int, profile: str = "contract") -> Path:
    pytest.importorskip("torch")
    import rummy_env
    from rummy_env.models.checkpoints import save_checkpoint
    from rummy_env.models.policy import architecture, build_policy

    env = rummy_env.make(profile, wrapped=False)
    net = build_policy(architecture(env.observer.size, env.num_actions, trunk=(8,)), seed=seed)
    save_checkpoint(path, net, {"profile": profile, "num_players": 4, "training_steps": steps})
    return path


def test_checkpoint_curve_evaluates_each_checkpoint_once_and_draws(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``checkpoint-curve``: one point per checkpoint at its training steps, in the order given; a second run
    reuses the evaluations on disk and evaluates only an opponent it has not seen; the figure is written."""
    pytest.importorskip("matplotlib")
    from rummy_env.distill import checkpoint_curve

    ckpts = [_tiny_checkpoint(tmp_path / f"c{i}", steps, i) for i, steps in enumerate((0, 4096, 8192))]
    calls: list[tuple[str, tuple[str, ...]]] = []

    def fake(path: str, opponents: list[str], sessions: int, seed: int, workers: int, quiet: bool = False) -> dict:
        calls.append((path, tuple(opponents)))
        return {o: {"difference": -float(len(calls)), "difference_ci95": 0.5, "metric": "penalty_per_round"}
                for o in opponents}  # fmt: skip

    monkeypatch.setattr(checkpoint_curve, "evaluate_against", fake)
    work, out = tmp_path / "work", tmp_path / "curve.png"
    argv = [*map(str, ckpts), "--work", str(work), "--out", str(out), "--sessions", "3"]
    assert checkpoint_curve.main([*argv, "--opponents", "heuristic"]) == 0
    assert calls == [(str(c), ("heuristic",)) for c in ckpts]
    curve = json.loads((work / "curve.json").read_text())
    assert [p["training_steps"] for p in curve] == [0, 4096, 8192]
    assert [p["evaluation"]["heuristic"]["difference"] for p in curve] == [-1.0, -2.0, -3.0]
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    calls.clear()
    assert checkpoint_curve.main([*argv, "--opponents", "heuristic", "random"]) == 0
    assert calls == [(str(c), ("random",)) for c in ckpts]  # heuristic's figures reused
    calls.clear()
    assert checkpoint_curve.main([*argv, "--opponents", "heuristic", "--sessions", "4"]) == 0
    assert len(calls) == 3  # other sessions: other matches, evaluated afresh
    # --x epoch: each point at its distillation epoch (none: 0)
    meta = json.loads(ckpts[2].with_suffix(".json").read_text())
    meta["distillation"] = {"kept_epoch": 3}
    ckpts[2].with_suffix(".json").write_text(json.dumps(meta))
    assert checkpoint_curve.main([*argv, "--opponents", "heuristic", "--x", "epoch"]) == 0
    assert [p["epoch"] for p in json.loads((work / "curve.json").read_text())] == [0, 0, 3]


def test_checkpoint_curve_against_training_minutes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``checkpoint-curve --x minutes``: each point at the training wall time its checkpoint records
    (``training_state.wall_seconds`` / 60, as training/ppo.py writes it into snapshots and checkpoints); a checkpoint
    that records none is refused by name, exit code 2, before any evaluation."""
    pytest.importorskip("matplotlib")
    from rummy_env.distill import checkpoint_curve

    ckpts = [_tiny_checkpoint(tmp_path / f"c{i}", 4096 * i, i) for i in range(3)]
    for ckpt, wall in zip(ckpts, (90.0, 1800.0)):  # the third records no wall time
        meta = json.loads(ckpt.with_suffix(".json").read_text())
        meta["training_state"] = {"update": 1, "wall_seconds": wall, "pool": []}
        ckpt.with_suffix(".json").write_text(json.dumps(meta))
    calls: list[str] = []

    def fake(path: str, opponents: list[str], sessions: int, seed: int, workers: int, quiet: bool = False) -> dict:
        calls.append(path)
        return {o: {"difference": 1.0, "difference_ci95": 0.5, "metric": "penalty_per_round"} for o in opponents}

    monkeypatch.setattr(checkpoint_curve, "evaluate_against", fake)
    work, out = tmp_path / "work", tmp_path / "curve.png"
    argv = ["--work", str(work), "--out", str(out), "--opponents", "heuristic", "--x", "minutes"]
    assert checkpoint_curve.main([*map(str, ckpts[:2]), *argv]) == 0
    assert [p["minutes"] for p in json.loads((work / "curve.json").read_text())] == [1.5, 30.0]
    assert "30.00 min" in capsys.readouterr().out and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    calls.clear()
    assert checkpoint_curve.main([*map(str, ckpts), *argv]) == 2
    err = capsys.readouterr().err
    assert str(ckpts[2]) in err and "wall_seconds" in err and calls == []
    assert checkpoint_curve.main([*map(str, ckpts), *argv[:-2]]) == 0  # --x steps needs no wall time


@pytest.mark.parametrize(
    ("make", "extra", "says"),
    [
        (False, [], "is missing"),
        (True, ["--sessions", "0"], "--sessions"),
        (True, ["--mixed"], "share one profile"),
    ],
)
def test_bad_checkpoint_curve_arguments_exit_2(
    tmp_path: Path, make: bool, extra: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from rummy_env.distill import checkpoint_curve

    paths = [tmp_path / "a"]
    if make:
        _tiny_checkpoint(paths[0], 0, 0)
    if "--mixed" in extra:
        extra = []
        paths.append(_tiny_checkpoint(tmp_path / "b", 0, 0, profile="continental"))
    argv = [*map(str, paths), "--work", str(tmp_path / "w"), "--out", str(tmp_path / "c.png"), *extra]
    assert checkpoint_curve.main(argv) == 2
    assert says in capsys.readouterr().err
    assert not (tmp_path / "w").exists()


# ----------------------------------------------------------------------------------------------------------------
# Progress (on a terminal only) and table widths
# ----------------------------------------------------------------------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_only_on_a_terminal() -> None:
    from rummy_env.cli.terminal import progress_bar, show_progress

    tty, pipe = _Terminal(), io.StringIO()
    assert show_progress(stream=tty) and not show_progress(quiet=True, stream=tty) and not show_progress(stream=pipe)
    for stream, enabled in ((tty, True), (pipe, True), (tty, False)):
        bar = progress_bar(10, desc="work", unit="session", enabled=enabled, stream=stream)
        bar.update(4)
        bar.close()
    assert "work:" in tty.getvalue() and "0/10" in tty.getvalue()  # drawn from the start
    assert pipe.getvalue() == ""


def test_fuzz_and_bots_eval_report_progress() -> None:
    from rummy_env.evaluation.bots_eval import evaluate as bots_eval
    from rummy_env.testing.fuzz import fuzz

    ticks: list[int] = []
    res = fuzz(decisions=300, seed=1, progress=ticks.append)
    assert len(ticks) == res["sessions"] and sum(ticks) == res["decisions"] >= 300
    ticks.clear()
    bots_eval("contract", ["random"] * 4, sessions=3, seed=0, progress=ticks.append, rounds=(1,))
    assert sum(ticks) == 3


def test_commands_print_no_bar_into_a_pipe(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "rummy_env.cli", "fuzz", "--decisions", "200", "--seed", "3"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 0 and out.stderr == ""
    assert json.loads(out.stdout)["violations"] == 0


def _long_named_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    from rummy_env.evaluation.tournament import tournament

    # two checkpoint entrants with long paths and the same file name, a long py: bot id
    long_dir = tmp_path / ("a_rather_long_folder_name_for_checkpoints" * 2)
    for sub in ("one", "two"):
        (long_dir / sub).mkdir(parents=True)
        for f in ("contract.json", "contract.safetensors"):
            shutil.copy(SHIPPED / f, long_dir / sub / f)
    (tmp_path / "a_user_module_with_a_long_name.py").write_text(
        "from rummy_env.bots.random_bot import RandomBot as TheRandomBotUnderAVeryLongName\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "a_user_module_with_a_long_name", raising=False)
    entrants = [f"checkpoint:{long_dir / 'one' / 'contract.safetensors'}", f"checkpoint:{long_dir / 'two' / 'contract'}",
                "py:a_user_module_with_a_long_name.TheRandomBotUnderAVeryLongName", "heuristic", "random"]  # fmt: skip
    return tournament("contract", entrants, sessions=5, seed=0, rounds=(1,))


def test_tournament_and_bots_eval_tables_fit_120_columns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("torch")
    from rummy_env.evaluation.bots_eval import format_report, summarise
    from rummy_env.evaluation.tournament import format_standings

    results = _long_named_results(tmp_path, monkeypatch)
    text = format_standings(results)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= WIDTH, max(lines, key=len)
    assert max(len(line) for line in format_standings(results, width=100).splitlines()) <= 100
    rows = [line for line in lines if line[:2].strip().isdigit()]
    shown = [line.split()[1] for line in rows]
    assert len(set(shown)) == 5, shown  # abbreviated names stay distinct
    for full in results["entrants"]:  # every abbreviated name is spelt out in full under the table
        assert full in shown or full in "".join(text.split()), full  # (a path wider than the table is broken)
    # the head-to-head matrix splits its columns instead of running past the width
    many = dict(results, standings=results["standings"] * 3, head_to_head=[])
    assert max(len(line) for line in format_standings(many).splitlines()) <= WIDTH
    report = summarise("contract", results["specs"][:4], [[{"penalties": [1, 2, 3, 4], "winner": 0,
                       "reason": "out", "turns": 9}]], seed=0, wall=1.0)  # fmt: skip
    assert max(len(line) for line in format_report(report).splitlines()) <= WIDTH


def test_rummy_run_table_fits_120_columns(capsys: pytest.CaptureFixture[str]) -> None:
    from rummy_env.cli.commands import main

    assert main(["run", "--sessions", "1", "--profile", "contract"]) == 0
    assert max(len(line) for line in capsys.readouterr().out.splitlines()) <= WIDTH


# ----------------------------------------------------------------------------------------------------------------
# Missing extras and repeated warnings
# ----------------------------------------------------------------------------------------------------------------

_WITHOUT = """
import runpy, sys
class Hide:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
HIDDEN = set(sys.argv[1].split(","))
sys.meta_path.insert(0, Hide())
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


@pytest.mark.parametrize(
    "script, hidden, hint",
    [
        ("rllib_ppo.py", "ray", 'needs ray[rllib], which is not installed; install the [rllib] extra (pip install -e ".[rllib]")'),
        ("tianshou_dqn.py", "tianshou", 'needs tianshou, which is not installed; install the [tianshou] extra (pip install -e ".[tianshou]")'),
        ("sb3_maskable_ppo.py", "sb3_contrib,stable_baselines3", 'needs stable-baselines3, sb3-contrib, which are not installed; install the [train] extra'),
        ("ppo.py", "tensorboard", 'pip install -e ".[train]"'),
        ("tianshou_dqn.py", "torch", "pip install torch==2.13.0"),
    ],
)  # fmt: skip
def test_training_scripts_without_their_extra_say_what_to_install(
    tmp_path: Path, script: str, hidden: str, hint: str
) -> None:
    cmd = [sys.executable, "-c", _WITHOUT, hidden, str(ROOT / "training" / script)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith(f"training/{script}: needs ") and len(out.stderr.strip().splitlines()) == 1
    assert hint in out.stderr, out.stderr
    assert "Traceback" not in out.stderr


def test_the_pipeline_without_its_extra_says_what_to_install(tmp_path: Path) -> None:
    code = _WITHOUT.replace("runpy.run_path(sys.argv[0], run_name=\"__main__\")", "runpy.run_module('rummy_env.distill', run_name='__main__')")
    out = subprocess.run([sys.executable, "-c", code, "safetensors", "rummy_env.distill", "evaluate", "x"],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)  # fmt: skip
    assert out.returncode == 2 and out.stdout == "" and "Traceback" not in out.stderr, out.stderr
    assert out.stderr.startswith("python -m rummy_env.distill evaluate: needs safetensors, which is not installed")


def test_training_script_help_works_without_the_extra(tmp_path: Path) -> None:
    cmd = [sys.executable, "-c", _WITHOUT, "ray", str(ROOT / "training" / "rllib_ppo.py"), "--help"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 0 and out.stdout.startswith("usage: rllib_ppo.py")


def test_tianshou_repeated_warning_is_shown_once(caplog: pytest.LogCaptureFixture) -> None:
    pytest.importorskip("torch")
    import logging

    from rummy_env.integrations import tianshou as ts

    logger = logging.getLogger("tianshou.data.stats")
    before = list(logger.filters)
    try:
        ts.quiet_repeated_warnings()
        ts.quiet_repeated_warnings()  # idempotent: one filter
        assert sum(isinstance(f, ts.OncePerMessage) for f in logger.filters) == 1
        with caplog.at_level(logging.WARNING, logger="tianshou.data.stats"):
            for n in range(1, 170):  # what one training/tianshou_dqn.py run logged
                logger.warning(f"Sequence has shape ({n}, 1), but only 1D sequences are supported.")
            logger.warning("another warning")
        messages = [r.getMessage() for r in caplog.records if r.name == "tianshou.data.stats"]
        assert messages == ["Sequence has shape (1, 1), but only 1D sequences are supported.", "another warning"]
    finally:
        logger.filters[:] = before


# ----------------------------------------------------------------------------------------------------------------
# The import trap
# ----------------------------------------------------------------------------------------------------------------


def test_import_from_the_folder_that_contains_a_checkout_named_rummy_env(tmp_path: Path) -> None:
    """A checkout cloned as ``rummy_env/`` and imported from its parent folder: the folder (no ``__init__.py``) is
    a namespace-package candidate that shadows an editable install made with setuptools' default finder, and
    ``rummy_env.make`` is then missing. The install must put the project on ``sys.path`` (pyproject.toml's
    ``package-dir = {"" = "."}`` makes ``pip install -e .`` a plain ``.pth`` entry) so the real package wins."""
    (tmp_path / "rummy_env" / "rummy_env").mkdir(parents=True)  # a checkout's shape, seen from its parent
    code = "import rummy_env; rummy_env.make; print(rummy_env.__file__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 0, (
        "import rummy_env from a folder holding a rummy_env/ folder found that folder, not the package: install "
        'with pip install -e ".[train]" (pyproject.toml: package-dir = {"" = "."})\n' + out.stderr
    )
    assert Path(out.stdout.strip()).resolve() == (ROOT / "rummy_env" / "__init__.py").resolve()


@pytest.mark.parametrize(
    ("hidden", "module", "hint"),
    [
        ("torch", "rummy_env.models.policy", "pip install torch==2.13.0"),
        ("ray", "rummy_env.integrations.rllib", 'pip install -e ".[rllib]"'),
    ],
)
def test_a_missing_optional_package_gives_an_install_hint(hidden: str, module: str, hint: str) -> None:
    # issue 17: "an install hint for every missing extra" -- the package is hidden (sys.modules[name] = None makes
    # its import fail as a missing one would), the module's import must name what to install
    code = (
        f"import sys; sys.modules[{hidden!r}] = None\n"
        f"try:\n    import {module}\nexcept ImportError as exc:\n    print('HINT', exc)\nelse:\n    print('NO ERROR')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120).stdout
    assert "HINT" in out and hint in out, out
