"""Bounded reading of the files the package is given: game logs, scenarios, configs, checkpoint metadata.

Every file a user or another person hands the package goes through :func:`read_text` and one of the two parsers
below, so that a small hostile file cannot hang a command or exhaust memory:

| check | limit |
|---|---|
| kind of file | a regular file only (no FIFO, device, socket or directory) |
| size | ``limit`` bytes (callers pass their own; :data:`DEFAULT_LIMIT` is 64 MiB), checked with ``stat`` and again while reading |
| encoding | UTF-8 |
| JSON / YAML nesting | :data:`MAX_DEPTH` (64) levels of lists and mappings |
| JSON integers | :data:`MAX_INT_DIGITS` (64) digits |
| YAML | plain data only (safe loader); anchors and aliases refused |

A refusal raises :class:`InputFileError` (a ``ValueError``) that names the file, what is wrong and what is allowed.
Callers re-raise it as their own error class (``GameLogError``, ``ScenarioError``, ``ConfigError``, ...) where the
API promises one.
"""

from __future__ import annotations

import json
import os
import re
import stat
from typing import Any

DEFAULT_LIMIT = 64 << 20
MAX_DEPTH = 64
MAX_INT_DIGITS = 64
MAX_MESSAGE = 200
# YAML 1.2 reads ``1e-3`` and ``3e6`` as numbers; YAML 1.1 (PyYAML) wants ``1.0e-3``.
_EXPONENT_FLOAT = re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$")


class InputFileError(ValueError):
    """A file or text the package was given cannot be read within its bounds (kind, size, depth, encoding)."""


def shorten(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, without building the whole ``repr`` of a huge or deep value.

    Containers are summarised by their type and length when they are large; strings are cut before ``repr``.
    """
    if isinstance(value, str):
        text = repr(value[: limit + 1])
    elif isinstance(value, (bool, float, type(None))):
        text = repr(value)
    elif isinstance(value, int):
        text = repr(value) if value.bit_length() < 200 else f"<int of about {int(value.bit_length() * 0.30103)} digits>"
    elif isinstance(value, (list, tuple, dict, set, frozenset)):
        if len(value) > 8 or _deeper_than(value, 3):
            text = f"<{type(value).__name__} of {len(value)} items>"
        else:
            text = repr(value)
    else:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _deeper_than(value: Any, depth: int) -> bool:
    """Whether ``value`` nests lists/tuples/dicts more than ``depth`` levels (stops as soon as it knows)."""
    if not isinstance(value, (list, tuple, dict, set, frozenset)):
        return False
    if depth <= 0:
        return True
    items = value.values() if isinstance(value, dict) else value
    return any(_deeper_than(v, depth - 1) for v in items)


def read_text(path: str | os.PathLike[str], *, limit: int = DEFAULT_LIMIT, what: str = "file") -> str:
    """The UTF-8 text of the regular file ``path``, at most ``limit`` bytes.

    Raises :class:`InputFileError` for a missing file, a FIFO/device/directory, a larger file, or bad UTF-8 — before
    reading more than ``limit + 1`` bytes. ``what`` names the file in the message (``"game log"``, ``"--config"``).
    """
    name = f"{what} {os.fspath(path)}"
    try:
        fd = os.open(os.fspath(path), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise InputFileError(f"{name}: cannot read it ({e.strerror or e})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputFileError(f"{name}: not a regular file; only regular files are read (no FIFO, device or folder)")
        if info.st_size > limit:
            raise InputFileError(f"{name}: {info.st_size} bytes; at most {limit} are allowed")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise InputFileError(f"{name}: more than {limit} bytes; at most {limit} are allowed")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputFileError(f"{name}: not UTF-8 text (byte {e.start})") from None


def _bounded_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise InputFileError(f"an integer of {digits} digits; at most {MAX_INT_DIGITS} are allowed")
    return int(text)


def _constant(name: str) -> Any:
    raise InputFileError(f"{name} is not JSON; only finite numbers are allowed")


def _json_depth(text: str) -> int:
    """The deepest nesting of ``[``/``{`` outside strings (a linear scan, no recursion)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    return deepest
        elif ch in "]}":
            depth -= 1
    return deepest


def parse_json(text: str, *, what: str = "JSON") -> Any:
    """``json.loads`` with bounds: nesting at most :data:`MAX_DEPTH`, integers at most :data:`MAX_INT_DIGITS`
    digits, no ``NaN``/``Infinity``. Raises :class:`InputFileError` naming ``what``."""
    if _json_depth(text) > MAX_DEPTH:
        raise InputFileError(f"{what}: nested more than {MAX_DEPTH} levels deep; at most {MAX_DEPTH} are allowed")
    try:
        return json.loads(text, parse_int=_bounded_int, parse_constant=_constant)
    except InputFileError as e:
        raise InputFileError(f"{what}: {e}") from None
    except (json.JSONDecodeError, RecursionError) as e:
        raise InputFileError(f"{what}: not valid JSON ({str(e)[:MAX_MESSAGE]})") from None


def read_json(path: str | os.PathLike[str], *, limit: int = DEFAULT_LIMIT, what: str = "file") -> Any:
    """:func:`read_text` then :func:`parse_json`."""
    return parse_json(read_text(path, limit=limit, what=what), what=f"{what} {os.fspath(path)}")


def parse_yaml(text: str, *, what: str = "YAML") -> Any:
    """Plain-data YAML (a safe loader with YAML 1.2 numbers such as ``1e-3``), refusing anchors and aliases and
    nesting deeper than :data:`MAX_DEPTH`. Needs PyYAML (the ``train`` extra). Raises :class:`InputFileError`."""
    import yaml  # optional dependency: pyyaml (the train extra)

    class _Loader(yaml.SafeLoader):
        def compose_node(self, parent: Any, index: Any) -> Any:  # noqa: ANN401 - yaml's own types
            if self.check_event(yaml.AliasEvent):
                mark = self.peek_event().start_mark
                raise InputFileError(f"{what}: a YAML alias (line {mark.line + 1}); anchors and aliases are not allowed")
            self._depth = getattr(self, "_depth", 0) + 1
            try:
                if self._depth > MAX_DEPTH:
                    raise InputFileError(f"{what}: nested more than {MAX_DEPTH} levels deep; at most {MAX_DEPTH} are allowed")
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1

    _Loader.add_implicit_resolver(
        "tag:yaml.org,2002:float",
        _EXPONENT_FLOAT,
        list("-+0123456789."),
    )
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as e:
        raise InputFileError(f"{what}: not valid YAML ({' '.join(str(e).split())[:MAX_MESSAGE]})") from None


def read_yaml(path: str | os.PathLike[str], *, limit: int = 1 << 20, what: str = "file") -> Any:
    """:func:`read_text` (default limit 1 MiB) then :func:`parse_yaml`."""
    return parse_yaml(read_text(path, limit=limit, what=what), what=f"{what} {os.fspath(path)}")


__all__ = [
    "DEFAULT_LIMIT",
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "InputFileError",
    "read_yaml",
    "parse_json",
    "parse_yaml",
    "read_json",
    "read_text",
    "shorten",
]
