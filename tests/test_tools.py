"""The tools around the package: ``training/evaluate.py`` never overwrites shipped files unasked and its manifest
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "training"))

import evaluate as evaluate_script  # noqa: E402

SHIPPED = ROOT / "checkpoints"
WIDTH = 120


def _digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


# ----------------------------------------------------------------------------------------------------------------
# training/evaluate.py --manifest
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
    monkeypatch.setattr(evaluate_script, "evaluate_checkpoint", _fake_match)
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
    cmd = [sys.executable, str(ROOT / "training" / "evaluate.py"), "--manifest", str(checkpoint_copy)]
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
