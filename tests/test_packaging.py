"""Packaging: shipped checkpoints by name, and the wheel's core install in a clean virtual environment.

The name tests run in the default suite. ``test_wheel_smoke`` (marker ``packaging``, deselected by default; ``.ci/run``
runs it: ``python -m pytest -m packaging``) builds the sdist and the wheel with ``python -m build``, checks both with
``twine check``, installs the wheel into a fresh virtual environment without torch and runs
``tests/packaging_smoke.py`` there, outside the repository.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from rummy_env.models import checkpoints as ck

ROOT = Path(__file__).resolve().parents[1]
NAMES = ("continental", "contract", "contract_gamerules")


def test_shipped_names_are_the_repository_checkpoints() -> None:
    """In a source checkout the shipped checkpoints are ``checkpoints/``: every ``X.safetensors`` with its JSON."""
    assert ck.shipped_dir() == ROOT / "checkpoints"
    assert ck.shipped_names() == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_a_shipped_name_loads_from_any_directory(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``checkpoint:NAME`` works wherever the user stands: the name resolves to the shipped file."""
    monkeypatch.chdir(tmp_path)
    assert Path(ck.resolve_checkpoint(name)) == ROOT / "checkpoints" / name
    assert ck.read_metadata(name)["profile"] == name


def test_a_local_checkpoint_of_the_same_name_takes_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A local ``contract.safetensors`` (or ``.json``) wins over the shipped name: paths keep their old meaning."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "contract.json").write_text("{}")
    assert ck.resolve_checkpoint("contract") == "contract"
    with pytest.raises(ck.CheckpointError, match="missing"):
        ck.read_metadata("contract")  # the local pair is incomplete: refused, not silently replaced


@pytest.mark.parametrize(
    "path",
    ["checkpoints/contract", "./contract", "contract.safetensors", "no_such_checkpoint", "CONTRACT", ""],
)
def test_paths_and_unknown_names_are_left_alone(path: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert ck.resolve_checkpoint(path) == path


def test_no_shipped_folder_means_no_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without package data or a checkout beside the package, a shipped name is an ordinary (missing) path."""
    monkeypatch.setattr(ck, "_PACKAGED", tmp_path / "a")
    monkeypatch.setattr(ck, "_CHECKOUT", tmp_path / "b")
    monkeypatch.chdir(tmp_path)
    assert ck.shipped_dir() is None and ck.shipped_names() == ()
    assert ck.resolve_checkpoint("contract") == "contract"
    with pytest.raises(ck.CheckpointError, match="missing"):
        ck.read_metadata("contract")


def test_the_checkpoint_bot_takes_a_shipped_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("torch")
    from rummy_env import bots

    monkeypatch.chdir(tmp_path)
    bot = bots.load("checkpoint:continental", seed=0)
    assert bot.profile == "continental"
    assert bot.name == f"checkpoint:{ROOT / 'checkpoints' / 'continental'}@greedy"


def test_the_sdist_manifest_ships_the_checkpoints() -> None:
    """MANIFEST.in puts every shipped file into the sdist (the wheel is built from it and copies them into
    ``rummy_env/_shipped/``, setup.py)."""
    manifest = (ROOT / "MANIFEST.in").read_text()
    assert "include checkpoints/*.safetensors checkpoints/*.json checkpoints/README.md" in manifest
    assert "LICENSE" in manifest


def _run(cmd: list[str], cwd: Path, timeout: int = 900) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "RUMMY_ENV_IMPL")}
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == 0, f"{' '.join(cmd)}: exit {done.returncode}\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return done.stdout + done.stderr


@pytest.mark.packaging
def test_wheel_smoke(tmp_path: Path) -> None:
    """The wheel, installed with no repository beside it and no torch, gives a working core (tests/packaging_smoke.py):
    every env, the random and heuristic bots, ``rummy run/record/replay/tournament/play``, the shipped checkpoints by
    name, and an install hint where torch is needed."""
    dist = tmp_path / "dist"
    out = _run([sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)], cwd=tmp_path)
    assert "DeprecationWarning" not in out, out[-2000:]
    wheels, sdists = sorted(dist.glob("*.whl")), sorted(dist.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(os.listdir(dist))
    _run([sys.executable, "-m", "twine", "check", "--strict", str(wheels[0]), str(sdists[0])], cwd=tmp_path)

    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "-q", str(wheels[0])], cwd=tmp_path)
    smoke = tmp_path / "packaging_smoke.py"
    smoke.write_text((ROOT / "tests" / "packaging_smoke.py").read_text())
    out = _run([str(python), "-I", str(smoke), str(tmp_path / "work")], cwd=tmp_path)
    assert out.rstrip().endswith("ok: all"), out[-2000:]
