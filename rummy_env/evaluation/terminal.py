"""Terminal output of the commands: progress bars and tables that fit the terminal.

Shared by the evaluation modules and the command line (``rummy_env.cli.terminal`` re-exports it); it imports no
module of ``rummy_env``.

* Progress bars of the long commands (``rummy tournament``, ``rummy fuzz``, ``bots_eval``, ``python -m rummy_env.distill evaluate``):
  one rule for all of them, a tqdm bar on stderr, shown only when stderr is a terminal (so pipes, logs and the
  tests get clean output) and not asked to be quiet (``--quiet``).
* Tables within ``WIDTH`` (120) columns: ``abbreviate`` shortens a long name (a checkpoint path) and ``wrap``
  breaks the prose lines around a table.
"""

from __future__ import annotations

import os
import sys
import textwrap
from collections.abc import Iterable
from typing import Any, TextIO

#: the widest line a command's table or report may print
WIDTH = 120


def show_progress(quiet: bool = False, stream: TextIO | None = None) -> bool:
    """Whether a command should draw a bar: not ``quiet`` and ``stream`` (stderr by default) is a terminal."""
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    return not quiet and bool(isatty and isatty())


def progress_bar(total: float | None, desc: str, unit: str, enabled: bool = True, stream: TextIO | None = None) -> Any:
    """A tqdm bar of ``total`` ``unit`` on ``stream`` (stderr), drawn only if ``enabled`` and the stream is a
    terminal; a disabled bar still accepts ``update`` and ``close``."""
    from tqdm import tqdm

    stream = sys.stderr if stream is None else stream
    on = enabled and show_progress(False, stream)
    return tqdm(total=total, desc=desc, unit=unit, file=stream, disable=not on, dynamic_ncols=True, leave=False)


def abbreviate(name: str, width: int) -> str:
    """``name`` in at most ``width`` characters: a ``checkpoint:PATH`` id keeps the file name without its suffix
    (``checkpoint:…/contract``, else ``ckpt:…/contract@sample``); anything still too long keeps its start and end
    around an ellipsis."""
    if len(name) <= width:
        return name
    kind, sep, rest = name.partition(":")
    if sep and ("/" in rest or os.sep in rest):
        base, at, how = os.path.basename(rest.rstrip("/" + os.sep)).partition("@")
        for suffix in (".safetensors", ".json"):
            base = base.removesuffix(suffix)
        for label in (kind, "ckpt" if kind == "checkpoint" else kind):
            name = f"{label}:…/{base}{at}{how}"
            if len(name) <= width:
                return name
    head = (width - 1) // 2
    return name[:head] + "…" + name[len(name) - (width - 1 - head) :]


def wrap(lines: Iterable[str], width: int = WIDTH, indent: str = "  ") -> list[str]:
    """``lines`` with every line longer than ``width`` broken: after a ``"; "`` where that is enough, else at
    spaces (continuations indented by ``indent``)."""
    out: list[str] = []
    for line in lines:
        if len(line) <= width:
            out.append(line)
            continue
        pieces = line.split("; ")
        current = pieces[0]
        for piece in pieces[1:]:
            if len(current) + 2 + len(indent) + len(piece) <= width or len(current) + 1 > width:
                current += "; " + piece
            else:
                out += _break(current + ";", width, indent)
                current = indent + piece
        out += _break(current, width, indent)
    return out


def _break(line: str, width: int, indent: str) -> list[str]:
    """One line broken at spaces to fit ``width``, keeping its own leading spaces."""
    if len(line) <= width:
        return [line]
    lead = line[: len(line) - len(line.lstrip())]
    return textwrap.wrap(
        line, width=width, initial_indent="", subsequent_indent=lead or indent, break_on_hyphens=False
    ) or [""]


__all__ = ["WIDTH", "abbreviate", "progress_bar", "show_progress", "wrap"]
