"""The scripts of ``training/`` in tests: each is a CleanRL-style file that imports only the ``rummy_env`` package, so a
test that needs a script's own ``Config`` or functions (its GAE, its update, an export) loads the file under the
module name ``training_<name>`` -- never ``ppo`` or ``common``, and with no ``sys.path`` edit. Everything the scripts
share is tested from the package (``rummy_env.training``, ``rummy_env.distill``, ``rummy_env.evaluation``); the
scripts themselves also run by subprocess with a tiny budget."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

TRAINING = Path(__file__).resolve().parent.parent / "training"
SCRIPTS = ("ppo", "sb3_maskable_ppo", "rllib_ppo", "tianshou_dqn")


def load_training_module(name: str) -> ModuleType:
    """``training/<name>.py`` as the module ``training_<name>`` (loaded once; registered so that its dataclasses
    resolve their annotations)."""
    if name not in SCRIPTS:
        raise ValueError(f"{name!r} is not a training script; the scripts are {SCRIPTS}")
    module_name = f"training_{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, TRAINING / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = mod
    spec.loader.exec_module(mod)
    return mod


def script_configs() -> dict[str, type]:
    """Script name -> its ``Config`` dataclass, for every script of ``training/``."""
    return {name: load_training_module(name).Config for name in SCRIPTS}
