"""Progress bars of the long commands (``rummy tournament``, ``rummy fuzz``, ``bots_eval``, ``training/evaluate.py``).

One rule for all of them: a tqdm bar on stderr, shown only when stderr is a terminal (so pipes, logs and the tests
get clean output) and not asked to be quiet (``--quiet``).
"""

from __future__ import annotations

import sys
from typing import Any, TextIO


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


__all__ = ["progress_bar", "show_progress"]
