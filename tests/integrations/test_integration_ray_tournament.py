"""tournament(..., backend="ray") gives the same results as the local backend (needs ray: -m integration)."""

import pytest

pytestmark = pytest.mark.integration


def _strip(results):
    out = dict(results)
    out.pop("timing", None)
    out.pop("backend", None)
    return out


def test_ray_backend_matches_local(monkeypatch):
    pytest.importorskip("ray")
    monkeypatch.setenv("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    from rummy_env.evaluation.tournament import tournament

    kw = dict(sessions=4, seed=3, rounds=(1,))
    local = tournament("contract", ["random", "heuristic"], **kw)
    ray_res = tournament("contract", ["random", "heuristic"], backend="ray", **kw)
    assert _strip(ray_res) == _strip(local)
