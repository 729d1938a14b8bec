"""``.ci/run`` runs the README's two set-up commands verbatim: the main job (install + quick start) and the tests
(the test tools added to the main job's environment). A README edit that changes either without ``.ci/run`` fails
here, so CI always tries what a new user copies."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _bash_blocks(text: str) -> list[str]:
    return [b.strip() for b in re.findall(r"```bash\n(.*?)```", text, flags=re.S)]


def _setup_commands() -> tuple[str, str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = _bash_blocks(readme)
    main = [b for b in blocks if "pip install -q torch==2.13.0" in b and "training/ppo.py" in b]
    tests = [b for b in blocks if "--group test" in b and "pytest" in b]
    assert len(main) == 1, f"README needs exactly one main-job block (install + quick start), found {len(main)}"
    assert len(tests) == 1, f"README needs exactly one test block, found {len(tests)}"
    return main[0], tests[0]


def test_setup_commands_are_single_lines() -> None:
    """Each set-up command is one copy-paste line."""
    for block in _setup_commands():
        assert "\n" not in block, block


def test_ci_runs_the_readme_commands_verbatim() -> None:
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    for block in _setup_commands():
        assert any(line == block or line.startswith(block + " ||") for line in ci_lines), (
            f".ci/run does not run this README command verbatim:\n{block}"
        )


def test_the_test_command_adds_to_the_main_install_without_rebuilding() -> None:
    """The test command reuses the main job's environment: no second venv, no second install of the package (which
    would rebuild the compiled extensions), no ``editable_mode=compat`` (setuptools' deprecated mode)."""
    main, tests = _setup_commands()
    assert "venv" not in tests.replace(". .venv/bin/activate", "")
    assert "pip install -q -e" not in tests and "pip install -e" not in tests
    for block in (main, tests):
        assert "editable_mode=compat" not in block


def test_main_job_comes_first_in_the_readme() -> None:
    """A newcomer finds both set-up commands in the README's first screen (the first 60 lines)."""
    head = "\n".join((ROOT / "README.md").read_text(encoding="utf-8").splitlines()[:60])
    main, tests = _setup_commands()
    assert main in head and tests in head
