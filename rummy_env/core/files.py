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
API promises one. :func:`check_depth` applies the nesting limit to data a caller hands over already parsed.

Writing: :func:`write_text_atomic` writes a file whole or not at all (a temporary file in the same folder, then
``os.replace``), so an interrupted command never leaves half a log, page or checkpoint; :func:`refuse_overwrite`
refuses an output path that is one of the command's own inputs (``rummy replay game.json --html game.json``) with an
:class:`OutputFileError` before any work is done.
"""

from __future__ import annotations

import json
import os
import re
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

DEFAULT_LIMIT = 64 << 20
MAX_DEPTH = 64
MAX_INT_DIGITS = 64
MAX_MESSAGE = 200
# YAML 1.2 reads ``1e-3`` and ``3e6`` as numbers; YAML 1.1 (PyYAML) wants ``1.0e-3``.
_EXPONENT_FLOAT = re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$")


class InputFileError(ValueError):
    """A file or text the package was given cannot be read within its bounds (kind, size, depth, encoding).

    ``reason`` is the message without the name of the file (for callers that name it their own way);
    ``decode_error`` the ``json.JSONDecodeError`` behind a "not valid JSON" refusal (its line and column), else None.
    """

    def __init__(self, message: str, reason: str | None = None, decode_error: Any = None) -> None:
        super().__init__(message)
        self.reason = message if reason is None else reason
        self.decode_error = decode_error


class OutputFileError(ValueError):
    """An output path a command may not write: one of the command's own inputs (it would be overwritten)."""


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
        if _items_over(value, 32) or _deeper_than(value, 3):
            text = f"<{type(value).__name__} of {len(value)} items>"
        else:
            text = repr(value)
    else:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _items_over(value: Any, budget: int) -> bool:
    """Whether ``value`` holds more than ``budget`` items and strings' characters in all, counting nested containers
    (stops as soon as it knows: a short repr is built only of a small value)."""
    stack, seen = [value], 0
    while stack:
        v = stack.pop()
        if isinstance(v, (dict, list, tuple, set, frozenset)):
            seen += len(v)
            if seen > budget:
                return True
            stack.extend(v.items() if isinstance(v, dict) else v)
        elif isinstance(v, str):
            seen += len(v) // 8
        elif isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > 200:
            return True
        if seen > budget:
            return True
    return False


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

    def refuse(reason: str) -> InputFileError:
        return InputFileError(f"{name}: {reason}", reason)

    try:
        fd = os.open(os.fspath(path), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise refuse(f"cannot read it ({e.strerror or e})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise refuse("not a regular file; only regular files are read (no FIFO, device or folder)")
        if info.st_size > limit:
            raise refuse(f"{info.st_size} bytes; at most {limit} are allowed")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise refuse(f"more than {limit} bytes; at most {limit} are allowed")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise refuse(f"not UTF-8 text (byte {e.start})") from None


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
        reason = f"nested more than {MAX_DEPTH} levels deep; at most {MAX_DEPTH} are allowed"
        raise InputFileError(f"{what}: {reason}", reason)
    try:
        return json.loads(text, parse_int=_bounded_int, parse_constant=_constant)
    except InputFileError as e:
        raise InputFileError(f"{what}: {e}", str(e)) from None
    except json.JSONDecodeError as e:
        reason = f"not valid JSON ({str(e)[:MAX_MESSAGE]})"
        raise InputFileError(f"{what}: {reason}", reason, decode_error=e) from None
    except RecursionError:
        reason = "not valid JSON (nested too deeply)"
        raise InputFileError(f"{what}: {reason}", reason) from None


def check_depth(value: Any, *, what: str = "data", max_depth: int = MAX_DEPTH) -> None:
    """:class:`InputFileError` when ``value`` (parsed data: dicts, lists, tuples) nests more than ``max_depth`` levels;
    an explicit stack, so no depth of nesting can overflow Python's (the data a caller passes instead of a file)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list, tuple)):
            if depth > max_depth:
                reason = f"nested more than {max_depth} levels deep; at most {max_depth} are allowed"
                raise InputFileError(f"{what}: {reason}", reason)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list, tuple)))


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


def _umask() -> int:
    """The process umask: from ``/proc/self/status`` where there is one (nothing changed), else by setting it and
    putting it back at once."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_text_atomic(path: str | os.PathLike[str], text: str, *, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` whole or not at all: into a temporary file in the same folder (folders created),
    flushed to disk, then renamed over ``path`` (``os.replace``), so a reader never sees half a file and an interrupted
    write leaves the old file. The file gets the mode a plain write would give it (an existing file keeps its own).
    An existing ``path`` that is not a regular file (``/dev/stdout``, a FIFO) is written to directly."""
    p = Path(path)
    try:
        st = os.stat(p)
    except OSError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        with open(p, "w", encoding=encoding) as f:
            f.write(text)
        return p
    return write_atomic(p, lambda tmp: tmp.write_text(text, encoding=encoding), mode=None if st is None else st.st_mode)


def write_atomic(path: str | os.PathLike[str], write: Any, *, mode: int | None = None) -> Path:
    """Call ``write(tmp)`` (a ``Path`` in the folder of ``path``) and rename ``tmp`` over ``path`` once it returns;
    ``tmp`` is removed if it raises. For writers that take a file name (``safetensors.save_file``). ``mode``: the
    permission bits of the file (default: those of a new file under the umask)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        write(tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.chmod(tmp, stat.S_IMODE(mode) if mode is not None else 0o666 & ~_umask())
        os.replace(tmp, p)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return p


def _same_file(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
        return a.resolve() == b.resolve()
    except OSError:
        return False


def refuse_overwrite(
    output: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]], *, flag: str = "output"
) -> None:
    """:class:`OutputFileError` when ``output`` is the same file as one of ``inputs`` (after following links and
    ``..``): a command never writes over what it reads. ``flag`` names the output in the message (``--html``)."""
    out = Path(output)
    for source in inputs:
        if _same_file(out, Path(source)):
            raise OutputFileError(
                f"{flag} {shorten(os.fspath(output), 200)} is the input file {shorten(os.fspath(source), 200)}: it "
                "would be overwritten; write the output to another file"
            )


__all__ = [
    "DEFAULT_LIMIT",
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "InputFileError",
    "OutputFileError",
    "check_depth",
    "read_yaml",
    "parse_json",
    "parse_yaml",
    "read_json",
    "read_text",
    "refuse_overwrite",
    "shorten",
    "write_atomic",
    "write_text_atomic",
]
