"""Which implementation of the engines' hot rules functions runs: the pure-Python reference or its compiled twin.

The hot modules (``core.melds``, ``rules.contract_opening``, ``rules.contract_layoff``, ``rules.continental_hand``,
``encoding.fast``) are also compiled by Cython, from the same ``.py`` files, into extension modules
``rummy_env._compiled.<name>`` (``setup.py``; C types from the ``.pxd`` beside each twin; optional: without Cython or a
C compiler the package installs and runs in pure Python).

The seam, in one place: the implementation is chosen once per process, from the environment variable
``RUMMY_ENV_IMPL``, when the first hot module is imported (``import rummy_env`` imports one), and never changes after.
Each hot module ends with ``install(globals(), NAMES)``: with the compiled implementation chosen, it replaces its own
listed functions by the twin's before any other module imports them, so every caller binds the chosen functions at
its own import and calls them with no dispatch. Only functions over plain data (and table melds, read through their
attributes) are listed: nothing that makes an object of a class of the module, so class identity never differs.
Nothing rebinds a function in another module, and nothing switches a running process: to run the other
implementation, start a process with ``RUMMY_ENV_IMPL`` set (the engine-level differential tests run each one in a
child process). ``functions(impl)`` hands out either implementation's functions without binding them anywhere (the
function-level differential tests call both on the same inputs). The twin runs the reference's source; a few small
branches on ``_TYPED`` (true in a twin) pick a C-loop form where the fastest forms in C and in the interpreter differ,
each with a comment saying why.

``RUMMY_ENV_IMPL``:

- ``auto`` (default): compiled when the twins are built, else python;
- ``python``: the pure-Python reference;
- ``compiled``: the twins; ``CompiledNotBuiltError`` (an ``ImportError``) with the build command if they are not built.

Twins built from older sources than the ``.py`` files (an edit without a rebuild; ``setup.py`` records the SHA-256
of each source in ``_compiled/_sources.json``) count as not built: ``auto`` runs pure Python with a warning.
``rummy_env.implementation()`` says which one runs.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Callable
from typing import Any

ENV_VAR = "RUMMY_ENV_IMPL"
CHOICES = ("auto", "python", "compiled")
#: hot module -> its twin under ``rummy_env._compiled``
TWINS = {
    "rummy_env.core.melds": "rummy_env._compiled.melds",
    "rummy_env.rules.contract_opening": "rummy_env._compiled.contract_opening",
    "rummy_env.rules.contract_layoff": "rummy_env._compiled.contract_layoff",
    "rummy_env.rules.continental_hand": "rummy_env._compiled.continental_hand",
    "rummy_env.encoding.fast": "rummy_env._compiled.fast_observation",
}
BUILD_HINT = (
    'build them with a C compiler and Cython installed: pip install "Cython>=3" && pip install -e . '
    "(or python setup.py build_ext --inplace in a source checkout)"
)


class ImplementationError(ValueError):
    """``RUMMY_ENV_IMPL`` names no implementation."""


class CompiledNotBuiltError(ImportError):
    """The compiled implementation was asked for but its extension modules are not built."""


#: hot module -> {function name: the pure-Python function}, recorded by ``install`` whichever implementation runs
_PYTHON: dict[str, dict[str, Callable[..., Any]]] = {}
_current: str | None = None


def requested() -> str:
    """The implementation ``RUMMY_ENV_IMPL`` asks for (``auto`` when unset); ``ImplementationError`` if unknown."""
    value = os.environ.get(ENV_VAR, "auto").strip().lower() or "auto"
    if value not in CHOICES:
        raise ImplementationError(
            f"{ENV_VAR}={os.environ.get(ENV_VAR)!r} is not an implementation; allowed: {', '.join(CHOICES)}"
        )
    return value


_stale: list[str] | None = None


def source_digest(source: str, pxd: str) -> str:
    """SHA-256 of what a twin is compiled from: the ``.py`` at ``source``, plus the typing ``.pxd`` at ``pxd``
    when it exists (as ``setup.py``'s ``source_digest`` records it), so an edit of either makes the twin stale."""
    with open(source, "rb") as f:
        data = f.read()
    if os.path.exists(pxd):
        with open(pxd, "rb") as f:
            data += b"\0pxd\0" + f.read()
    return hashlib.sha256(data).hexdigest()


def stale_twins() -> list[str]:
    """The built twins whose source changed since the build (``_sources.json``, written by ``setup.py``, holds the
    SHA-256 of each source compiled, with its ``.pxd`` when it has one; a build without it counts as stale: nothing says what it was built from)."""
    global _stale
    if _stale is None:
        package = importlib.util.find_spec("rummy_env._compiled")
        folder = os.path.dirname(package.origin) if package and package.origin else ""
        try:
            with open(os.path.join(folder, "_sources.json"), encoding="utf-8") as f:
                built = json.load(f)
        except (OSError, ValueError):
            built = {}
        out = []
        for module, twin in TWINS.items():
            spec = importlib.util.find_spec(module) if module not in sys.modules else sys.modules[module].__spec__
            try:
                digest = source_digest(spec.origin, os.path.join(folder, twin.rsplit(".", 1)[1] + ".pxd"))  # type: ignore[union-attr, arg-type]
            except (OSError, AttributeError, TypeError):
                digest = None
            if built.get(twin) != digest:
                out.append(twin)
        _stale = out
    return list(_stale)


def compiled_available() -> bool:
    """Are all the compiled twins built (importable extension modules) from the current source files?"""
    try:
        if not all(importlib.util.find_spec(twin) is not None for twin in TWINS.values()):
            return False
    except ImportError:
        return False
    stale = stale_twins()
    if stale:
        warnings.warn(
            f"the compiled twins {', '.join(stale)} were built from older sources: running pure Python; rebuild "
            f"them ({BUILD_HINT})",
            RuntimeWarning,
            stacklevel=2,
        )
        return False
    return True


def _resolve(value: str) -> str:
    """``python`` or ``compiled`` for a requested value (``auto`` resolved); raises if compiled is not built."""
    if value not in CHOICES:
        raise ImplementationError(f"implementation {value!r} is unknown; allowed: {', '.join(CHOICES)}")
    if value == "python":
        return "python"
    if compiled_available():
        return "compiled"
    if value == "compiled":
        raise CompiledNotBuiltError(
            f"{ENV_VAR}=compiled but the compiled modules are not built (or were built from older sources); "
            f"{BUILD_HINT}"
        )
    return "python"


def implementation() -> str:
    """The implementation of the hot rules functions in use in this process: ``"python"`` or ``"compiled"``."""
    global _current
    if _current is None:
        _current = _resolve(requested())
    return _current


def install(namespace: dict[str, Any], names: tuple[str, ...]) -> None:
    """The seam, called once at the end of each hot module with its ``globals()``: record its pure-Python functions
    ``names`` and, when the compiled implementation is selected, replace them by the twin's in that module only
    (before any other module imports them). A no-op inside the twin itself."""
    module = namespace["__name__"]
    if module not in TWINS:
        return  # the compiled twin (or a copy under another name) runs its own code
    _PYTHON[module] = {n: namespace[n] for n in names}
    if implementation() == "compiled":
        twin = importlib.import_module(TWINS[module])
        for n in names:
            namespace[n] = getattr(twin, n)


def functions(impl: str) -> dict[str, dict[str, Callable[..., Any]]]:
    """Hot module -> {name: function} of ``impl`` (``python``: the reference functions each hot module listed;
    ``compiled``: the twin's functions of the same names), every hot module imported first. Binds nothing anywhere:
    for tests that call both on the same inputs. Each function calls the other functions of its module as that
    module holds them, so in a process running the compiled implementation a reference function calls the twins of
    the listed functions it uses; a reference run through and through is a process with ``RUMMY_ENV_IMPL=python``."""
    if impl not in ("python", "compiled"):
        raise ImplementationError(f"implementation {impl!r} is unknown; allowed: python, compiled")
    for module in TWINS:
        importlib.import_module(module)  # each records its reference functions (``install``)
    if impl == "python":
        return {m: dict(fns) for m, fns in _PYTHON.items()}
    if not compiled_available():
        raise CompiledNotBuiltError(f"the compiled modules are not built; {BUILD_HINT}")
    out = {}
    for m, fns in _PYTHON.items():
        twin = importlib.import_module(TWINS[m])
        out[m] = {n: getattr(twin, n) for n in fns}
    return out
