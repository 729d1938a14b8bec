"""Optional Cython build of the compiled twins (``rummy_env._compiled``) and the shipped checkpoints as package data;
everything else is in pyproject.toml.

The shipped checkpoints live in the repository's top-level ``checkpoints/``; ``build_py`` copies them into the built
package as ``rummy_env/_shipped/`` so that an installed wheel loads them by name (``checkpoint:contract``,
``rummy_env.models.checkpoints.resolve_checkpoint``). An editable install reads ``checkpoints/`` in place.

The hot pure-Python modules are compiled, from the same source files, into extension modules under
``rummy_env._compiled`` (``rummy_env/core/_impl.py`` selects between the two once per process, at import,
``RUMMY_ENV_IMPL``). The build is optional: without Cython or a working C compiler, or with
``RUMMY_ENV_NO_COMPILE=1``, the package installs and runs in pure Python (a warning is printed, the install does not
fail).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

#: extension module -> the pure-Python source it is compiled from
TWINS = {
    "rummy_env._compiled.melds": "rummy_env/core/melds.py",
    "rummy_env._compiled.contract_opening": "rummy_env/rules/contract_opening.py",
    "rummy_env._compiled.contract_layoff": "rummy_env/rules/contract_layoff.py",
    "rummy_env._compiled.continental_hand": "rummy_env/rules/continental_hand.py",
    # typed by rummy_env/_compiled/fast_observation.pxd (C integers, a float32 memoryview)
    "rummy_env._compiled.fast_observation": "rummy_env/encoding/fast.py",
}
#: Python semantics kept exactly: annotations are not C types (a ``list[int]`` argument still takes any sequence),
#: no C division, bounds or wrap-around shortcuts
DIRECTIVES = {
    "language_level": 3,
    "annotation_typing": False,
    "binding": True,
    "embedsignature": True,
}


def source_digest(source: str, twin: str) -> str:
    """SHA-256 of what a twin is compiled from: the ``.py`` source, plus the typing ``.pxd`` beside the twin
    (``rummy_env/_compiled/<name>.pxd``) when there is one. ``rummy_env.core._impl.source_digest`` is the same."""
    with open(source, "rb") as f:
        data = f.read()
    pxd = os.path.join(*twin.split(".")) + ".pxd"
    if os.path.exists(pxd):
        with open(pxd, "rb") as f:
            data += b"\0pxd\0" + f.read()
    return hashlib.sha256(data).hexdigest()


def _warn(message: str) -> None:
    print(f"WARNING (rummy_env): {message}; installing the pure-Python implementation only", file=sys.stderr)


class OptionalBuildExt(build_ext):
    """``build_ext`` whose failures (no compiler, no headers) warn instead of failing the install."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # noqa: BLE001 - any build failure falls back to pure Python
            _warn(f"the compiled modules were not built ({exc})")
            return
        self._write_source_digests()

    def _write_source_digests(self) -> None:
        """``_sources.json`` beside the built twins: the SHA-256 of each source they were compiled from, so that
        ``rummy_env.core._impl`` never runs twins older than the source (an edit without a rebuild)."""
        digests = {}
        out_dir = None
        for ext in self.extensions:
            path = self.get_ext_fullpath(ext.name)
            if not os.path.exists(path):
                return  # a twin failed to build: no digests, the package runs in pure Python
            out_dir = os.path.dirname(path)
            digests[ext.name] = source_digest(TWINS[ext.name], ext.name)
        if out_dir is not None:
            with open(os.path.join(out_dir, "_sources.json"), "w", encoding="utf-8") as f:
                json.dump(digests, f, indent=1, sort_keys=True)

    def build_extension(self, ext) -> None:  # type: ignore[no-untyped-def]
        if self.compiler.compiler_type == "unix":
            ext.extra_compile_args = [*ext.extra_compile_args, "-g0"]  # no debug info: a third of the build time
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001
            _warn(f"{ext.name} was not built ({exc})")


#: the shipped checkpoints (the top-level ``checkpoints/``) and the package folder they are copied to in a wheel
SHIPPED_SOURCE = "checkpoints"
SHIPPED_TARGET = os.path.join("rummy_env", "_shipped")


def shipped_files(source: str = SHIPPED_SOURCE) -> list[str]:
    """The files of the shipped checkpoints: each ``X.safetensors`` with its ``X.json``, ``manifest.json`` and
    ``README.md`` (nothing else in the folder travels)."""
    if not os.path.isdir(source):
        return []
    names = sorted(os.listdir(source))
    out = []
    for name in names:
        stem, ext = os.path.splitext(name)
        if ext == ".safetensors" and stem + ".json" in names:
            out += [name, stem + ".json"]
    out += [n for n in ("manifest.json", "README.md") if n in names]
    return [os.path.join(source, n) for n in out]


class BuildPyWithCheckpoints(build_py):
    """``build_py`` that also copies the shipped checkpoints into the built package (``rummy_env/_shipped/``)."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return  # an editable install reads checkpoints/ in place
        target = os.path.join(self.build_lib, SHIPPED_TARGET)
        self.mkpath(target)
        for path in shipped_files():
            self.copy_file(path, os.path.join(target, os.path.basename(path)))


def typing_pxds(twin: str) -> list[str]:
    """The ``.pxd`` files a twin's C code is generated from: its own (``rummy_env/_compiled/<name>.pxd``, when
    there is one) and those of the twins it cimports there (``cimport rummy_env._compiled.<other>``)."""
    pxd = os.path.join(*twin.split(".")) + ".pxd"
    if not os.path.exists(pxd):
        return []
    out = [pxd]
    with open(pxd, encoding="utf-8") as f:
        for line in f:
            words = line.split()
            if len(words) >= 2 and words[0] == "cimport" and words[1].startswith("rummy_env._compiled."):
                other = os.path.join(*words[1].split(".")) + ".pxd"
                if os.path.exists(other) and other not in out:
                    out.append(other)
    return out


def drop_outdated_c(build_dir: str) -> list[str]:
    """Remove the generated C file of every twin whose typing ``.pxd`` (or the ``.pxd`` of a twin it cimports,
    ``typing_pxds``) is newer than it, so that Cython translates the twin again (it does not track an augmenting
    ``.pxd`` of a ``.py`` source): without this, an edit of a ``.pxd`` alone would leave the old C code built while
    ``_sources.json`` records the new digest. Returns the paths removed."""
    removed = []
    for twin, source in TWINS.items():
        c_file = os.path.join(build_dir, os.path.splitext(source)[0] + ".c")
        if not os.path.exists(c_file):
            continue
        if any(os.path.getmtime(pxd) >= os.path.getmtime(c_file) for pxd in typing_pxds(twin)):
            os.remove(c_file)
            removed.append(c_file)
    return removed


def _extensions() -> list:
    if os.environ.get("RUMMY_ENV_NO_COMPILE", "").strip() not in ("", "0"):
        _warn("RUMMY_ENV_NO_COMPILE is set")
        return []
    try:
        from Cython.Build import cythonize
        from setuptools import Extension
    except ImportError:
        _warn("Cython is not installed")
        return []
    drop_outdated_c("build/cython")
    try:
        return cythonize(
            [Extension(name, [src]) for name, src in TWINS.items()],
            compiler_directives=DIRECTIVES,
            build_dir="build/cython",
            quiet=True,
        )
    except Exception as exc:  # noqa: BLE001
        _warn(f"Cython could not translate the modules ({exc})")
        return []


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt, "build_py": BuildPyWithCheckpoints})
