"""Import paths that moved when the package was split into layers (README "Architecture").

``import rummy_env.tournament``, ``rummy_env.checkpoints`` and ``rummy_env.wrappers`` are stable public names of
``rummy_env.evaluation.tournament``, ``rummy_env.models.checkpoints`` and ``rummy_env.envs.wrappers`` (the same
module objects, so ``monkeypatch`` on either name patches both). The other pre-0.2 paths below still import, with
a ``DeprecationWarning`` naming the new one.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType

#: stable public names -> the module they are
STABLE = {
    "rummy_env.tournament": "rummy_env.evaluation.tournament",
    "rummy_env.checkpoints": "rummy_env.models.checkpoints",
    "rummy_env.wrappers": "rummy_env.envs.wrappers",
}
#: old module paths -> new ones (importing the old one warns)
MOVED = {
    "rummy_env.cards": "rummy_env.core.cards",
    "rummy_env.melds": "rummy_env.core.melds",
    "rummy_env.continental_hand": "rummy_env.rules.continental_hand",
    "rummy_env.profiles": "rummy_env.rules",
    "rummy_env.profiles.contract": "rummy_env.rules.contract",
    "rummy_env.profiles.continental": "rummy_env.rules.continental",
    "rummy_env.fuzz": "rummy_env.testing.fuzz",
    "rummy_env.bench": "rummy_env.evaluation.bench",
    "rummy_env.docs": "rummy_env.envs.docs",
    "rummy_env.bots_eval": "rummy_env.evaluation.bots_eval",
    "rummy_env.policy": "rummy_env.models.policy",
    "rummy_env.play": "rummy_env.cli.play",
    "rummy_env.encoding.actions": "rummy_env.engine.actions",
}


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str, warn: bool):
        self.target, self.warn = target, warn

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        if self.warn:
            warnings.warn(
                f"{spec.name} moved to {self.target}; the old path will be removed in a later release",
                DeprecationWarning,
                stacklevel=2,
            )
        module = importlib.import_module(self.target)
        self._spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """The target module is already executed; give it back its own ``__spec__`` (the import system sets the
        alias's spec on the module it is handed, which would make relative imports in it resolve wrongly)."""
        module.__spec__ = self._spec


class _AliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: object = None, target: object = None):  # noqa: ANN201
        if fullname in STABLE:
            return importlib.machinery.ModuleSpec(fullname, _AliasLoader(STABLE[fullname], warn=False))
        if fullname in MOVED:
            return importlib.machinery.ModuleSpec(fullname, _AliasLoader(MOVED[fullname], warn=True))
        return None


def install() -> None:
    """Put the finder on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
        # first, so that a stale folder of an old install (rummy_env/profiles/) cannot shadow an alias
        sys.meta_path.insert(0, _AliasFinder())
