"""Command-line helpers shared by the ``rummy`` commands, ``python -m rummy_env.evaluation.bots_eval``, the
tournament's ``save_games`` and the training scripts: ``ArgumentParser`` (one-line usage errors, exit code 2), the
argument types ``count`` and ``positive_seconds``, and ``output_problem`` (why a path cannot be written).
``rummy_env.cli.commands`` re-exports them under their old path. This module imports no module of ``rummy_env``.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any


class ArgumentParser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose usage errors are one line (``PROG: error: ...``), exit code 2."""

    def error(self, message: str) -> Any:
        """Print ``message`` on one line and exit with code 2."""
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())} (see {self.prog} --help)\n")


def count(low: int = 1) -> Callable[[str], int]:
    """An argparse type: an integer >= ``low``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {text!r}")
        return value

    parse.__name__ = f"integer >= {low}"
    return parse


def positive_seconds(text: str) -> float:
    """An argparse type: a finite number of seconds > 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}")
    return value


def output_problem(path: str | os.PathLike[str], folder: bool = True) -> str | None:
    """Why ``path`` cannot be written -- as a folder, or as a file when ``folder`` is false -- or None.

    Nothing is created: an existing ``path`` must be of the right kind, and the nearest existing ancestor must be
    a folder we may write in."""
    p = Path(path)
    if not str(path):
        return "is empty"
    if folder and p.exists() and not p.is_dir():
        return "exists and is not a folder"
    if not folder and p.is_dir():
        return "is a folder; expected a file name"
    parent = p if folder else p.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        return f"cannot be created: {str(parent)!r} is not a folder"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"cannot be created: no permission to write in {str(parent)!r}"
    return None


__all__ = ["ArgumentParser", "count", "output_problem", "positive_seconds"]
