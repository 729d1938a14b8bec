"""Install hints for the training scripts' optional dependencies: ``require(script, extra, modules)``.

Each script of ``training/`` (and ``python -m rummy_env.distill``) calls it before importing anything optional, so
that a missing package is one line naming what to install -- the project extra (``pip install -e ".[rllib]"``) or,
for torch, the CPU build -- instead of a bare ``ModuleNotFoundError`` from deep inside an import. Only the standard
library is used here.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence

#: import name -> the package that provides it (where the two differ)
PACKAGES = {
    "yaml": "pyyaml",
    "sb3_contrib": "sb3-contrib",
    "stable_baselines3": "stable-baselines3",
    "ray": "ray[rllib]",
    "tensorboard": "tensorboard",
}

#: how torch is installed (not an extra: a bare ``torch`` requirement would pull the multi-gigabyte CUDA build)
TORCH_HINT = "pip install torch==2.13.0, the CPU build, see the README"


def missing_modules(modules: Sequence[str]) -> list[str]:
    """The import names of ``modules`` that cannot be found (nothing is imported but the parents of dotted names)."""
    missing = []
    for name in modules:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # a parent package is missing, or a module without a spec
            found = False
        if not found:
            missing.append(name)
    return missing


def install_hint(script: str, extra: str, missing: Sequence[str]) -> str:
    """The one-line message: what ``script`` misses and the command that installs it."""
    packages = [PACKAGES.get(m.split(".")[0], m.split(".")[0]) for m in missing if m != "torch"]
    steps = []
    if "torch" in missing:
        steps.append(f"the CPU build of torch ({TORCH_HINT})")
    if packages:
        steps.append(f'the [{extra}] extra (pip install -e ".[{extra}]")')
    names = list(dict.fromkeys([*packages, "torch"] if "torch" in missing else packages))
    verb = "is" if len(names) == 1 else "are"
    return f"{script}: needs {', '.join(names)}, which {verb} not installed; install {' and then '.join(steps)}"


def require(script: str, extra: str, modules: Sequence[str]) -> None:
    """Exit with code 2 and ``install_hint`` on stderr if any of ``modules`` is not installed (``--help`` is
    still answered without them)."""
    if any(arg in ("-h", "--help") for arg in sys.argv[1:]):
        return
    missing = missing_modules(modules)
    if missing:
        print(install_hint(script, extra, missing), file=sys.stderr)
        raise SystemExit(2)


__all__ = ["PACKAGES", "TORCH_HINT", "install_hint", "missing_modules", "require"]
