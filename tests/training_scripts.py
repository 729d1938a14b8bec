"""Import the scripts under ``training/`` as modules in tests (they are scripts, not a package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

TRAINING = Path(__file__).resolve().parent.parent / "training"


def load_training_module(name: str) -> ModuleType:
    """``training/<name>.py`` as the module ``name`` (imported once; ``training/`` on ``sys.path`` for its imports)."""
    if str(TRAINING) not in sys.path:
        sys.path.insert(0, str(TRAINING))
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, TRAINING / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod
