"""The Ray backend's options without Ray installed: ``tournament(..., backend="ray", address=, runtime_env=)`` and
``rummy tournament --backend ray --address ADDR`` are checked before anything is played, ``checkpoint:`` entrants
travel as absolute paths, and a call without an address says that it starts a local Ray (a stand-in ``ray`` module
records what ``ray.init`` was given). The real two-node cluster is in ``tests/integrations/test_integration_ray_cluster.py``.
"""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path

import pytest

from rummy_env.cli import commands as cli
from rummy_env.evaluation import match
from rummy_env.evaluation.tournament import tournament
from rummy_env.integrations import ray_backend as rb
from rummy_env.models.checkpoints import resolve_checkpoint


def _rummy(capsys: pytest.CaptureFixture, *args: str) -> tuple[int, str, str]:
    try:
        code = cli.main(list(args))
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"address": "auto"}, "address is for backend='ray'"),
        ({"runtime_env": {"py_modules": []}}, "runtime_env is for backend='ray'"),
    ],
)
def test_ray_options_on_the_local_backend_are_refused(kwargs: dict, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        tournament("contract", ["random", "heuristic"], 2, rounds=(1,), **kwargs)


def test_a_missing_ray_stops_the_tournament_before_play(monkeypatch) -> None:
    monkeypatch.setitem(match.BACKEND_NEEDS, "ray", "no_such_module_for_this_test")
    with pytest.raises(ValueError, match="needs no_such_module_for_this_test: pip install"):
        tournament("contract", ["random", "heuristic"], 2, rounds=(1,), backend="ray")


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--address", "auto"], "needs --backend ray"),
        (["--backend", "ray", "--save-games", "games"], "--save-games needs --backend local"),
        (["--backend", "mars"], "invalid choice: 'mars'"),
    ],
)
def test_cli_backend_flags_are_checked(capsys, tmp_path: Path, monkeypatch, args: list[str], fragment: str) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = _rummy(capsys, "tournament", "--entrants", "random", "heuristic", "--rounds", "1", *args)
    assert code == 2 and fragment in err and "Traceback" not in err, err
    assert not (tmp_path / "games").exists()


def test_checkpoint_entrants_travel_as_absolute_paths(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert rb.portable_entrant("checkpoint:runs/a") == f"checkpoint:{tmp_path / 'runs' / 'a'}"
    assert rb.portable_entrant("checkpoint:runs/a@sample") == f"checkpoint:{tmp_path / 'runs' / 'a'}@sample"
    assert rb.portable_entrant("checkpoint:/abs/b@greedy") == "checkpoint:/abs/b@greedy"
    assert rb.portable_entrant("heuristic") == "heuristic"
    assert rb.portable_entrant(dict) is dict  # a bot factory is sent as it is
    # a shipped name stays a name (each worker resolves it in its own installed package) ...
    assert resolve_checkpoint("contract") != "contract"
    assert rb.portable_entrant("checkpoint:contract") == "checkpoint:contract"
    # ... unless a local checkpoint of that name shadows it here, which must then travel by its absolute path
    (tmp_path / "contract.json").write_text("{}")
    assert rb.portable_entrant("checkpoint:contract") == f"checkpoint:{tmp_path / 'contract'}"


class _FakeRay(types.ModuleType):
    def __init__(self) -> None:
        super().__init__("ray")
        self.calls: list[dict] = []

    def is_initialized(self) -> bool:
        return False

    def init(self, **kwargs) -> None:
        self.calls.append(kwargs)


@pytest.mark.parametrize("address, env, noted", [(None, None, True), ("10.0.0.1:6379", None, False),
                                                  (None, "10.0.0.1:6379", False)])  # fmt: skip
def test_without_an_address_a_local_ray_is_announced(monkeypatch, capsys, address, env, noted) -> None:
    fake = _FakeRay()
    monkeypatch.setitem(sys.modules, "ray", fake)
    if env is None:
        monkeypatch.delenv("RAY_ADDRESS", raising=False)
    else:
        monkeypatch.setenv("RAY_ADDRESS", env)
    assert rb._ensure_ray(address, {"py_modules": ["x"]}, None) is True
    err = capsys.readouterr().err
    assert (rb.LOCAL_RAY_NOTE in err) is noted
    assert fake.calls[0].get("address") == address and fake.calls[0]["runtime_env"] == {"py_modules": ["x"]}
    assert os.environ.get("RAY_ADDRESS") == env
