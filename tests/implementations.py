"""What the tests of the two implementations (the pure-Python reference and the compiled twins, ``RUMMY_ENV_IMPL``)
share: whether CI runs them (where a missing build fails instead of skipping), and a rerun of a test module in a
child pytest under the implementation this process does not run -- nothing switches a running process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rummy_env.core import _impl

IN_CI = os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")
#: the repository root (the child pytest runs there)
ROOT = Path(__file__).resolve().parents[1]
#: set in the child pytest of ``rerun_under_the_other_implementation`` (which must not start another)
RERUN_VAR = "RUMMY_ENV_TEST_RERUN"


def need_compiled() -> None:
    """Skip the calling test when the compiled twins are not built (fail it under CI, which must test both)."""
    if not _impl.compiled_available():
        message = f"the compiled twins are not built; {_impl.BUILD_HINT}"
        if IN_CI:
            pytest.fail(f"CI must test both implementations: {message}")
        pytest.skip(message)


def rerun_under_the_other_implementation(module: str | os.PathLike[str], timeout: float = 1_200) -> None:
    """Run the test module at path ``module`` (the caller's ``__file__``) again in a child pytest under the
    implementation this process does not run: how a module's tests cover both. Skipped inside such a child; the
    compiled one skipped without a build (a failure under CI)."""
    if os.environ.get(RERUN_VAR):
        pytest.skip("this is the rerun under the other implementation")
    other = "python" if _impl.implementation() == "compiled" else "compiled"
    if other == "compiled":
        need_compiled()
    env = {**os.environ, _impl.ENV_VAR: other, RERUN_VAR: "1"}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", str(Path(module).resolve())]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    name = Path(module).name
    assert proc.returncode == 0, f"{name} under RUMMY_ENV_IMPL={other}:\n{proc.stdout[-6000:]}{proc.stderr[-2000:]}"
