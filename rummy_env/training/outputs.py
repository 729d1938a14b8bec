"""Where the training scripts and the checkpoint pipeline may write, and how: never into the shipped checkpoints
unasked, never over their own inputs, every file atomically.

* ``shipped_problem(path, overwrite_shipped)``: a path inside the folder of the shipped checkpoints (the source
  checkout's ``checkpoints/``, or ``rummy_env/_shipped/`` of an installed wheel) is refused unless the command was
  given ``--overwrite-shipped`` (a config's ``overwrite_shipped: true``): a documented config or a default output
  can never replace a shipped file.
* ``same_checkpoint(a, b)`` / ``input_problem(out, inputs)``: a command never writes its output over one of its
  own inputs (``--save-path`` = ``--resume``, ``--out`` = ``--base``, ...).
* ``write_json_atomic``, ``savez_atomic``, ``save_figure_atomic`` (and ``write_text_atomic``): each file is
  written whole or not at all, through ``rummy_env.core.files.write_atomic`` (a temporary file in its own folder,
  then ``os.replace``), as ``rummy_env.checkpoints.save_checkpoint`` writes a checkpoint's files.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..core.files import write_atomic, write_text_atomic
from ..models import checkpoints as checkpoint_files

#: the flag that allows a write into the shipped checkpoints' folder
OVERWRITE_FLAG = "--overwrite-shipped"


def shipped_folders() -> list[Path]:
    """The folders that hold shipped checkpoints: the one names resolve to (``shipped_dir``) and the package's
    ``_shipped/`` (present in an installed wheel)."""
    folders = [checkpoint_files.shipped_dir(), Path(checkpoint_files.__file__).resolve().parents[1] / "_shipped"]
    return list(dict.fromkeys(f.resolve() for f in folders if f is not None))


def shipped_problem(path: str | os.PathLike[str], overwrite_shipped: bool = False) -> str | None:
    """Why ``path`` may not be written: it lies inside a folder of shipped checkpoints and ``overwrite_shipped``
    was not given; None otherwise."""
    if overwrite_shipped or not str(path):
        return None
    target = Path(path).resolve()
    for folder in shipped_folders():
        if target == folder or folder in target.parents:
            return (
                f"is inside {folder}, the folder of the shipped checkpoints; write under runs/ instead, or add "
                f"{OVERWRITE_FLAG} (a training config: overwrite_shipped: true) to replace a shipped file on purpose"
            )
    return None


def _checkpoint_base(path: str | os.PathLike[str]) -> Path:
    """``X`` for ``X``, ``X.json`` or ``X.safetensors``, resolved (a shipped name stays a plain path)."""
    p = Path(path)
    if p.suffix in (".json", ".safetensors"):
        p = p.with_suffix("")
    return p.resolve()


def same_checkpoint(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether ``a`` and ``b`` name the same checkpoint files (``X``, ``X.json`` and ``X.safetensors`` are one)."""
    base_b = checkpoint_files.resolve_checkpoint(str(b)) if isinstance(b, str) else b
    return _checkpoint_base(a) == _checkpoint_base(base_b)


def input_problem(out: str | os.PathLike[str], inputs: Iterable[tuple[str, Any]]) -> str | None:
    """Why the checkpoint ``out`` may not be written: it is one of ``inputs`` (``(flag, path)`` pairs) of the same
    command, which it would overwrite; None otherwise."""
    for flag, path in inputs:
        if path and same_checkpoint(out, path):
            return f"is also this command's {flag} ({path}): write the result elsewhere, its input stays as it is"
    return None


def write_json_atomic(path: str | os.PathLike[str], data: Any, indent: int | None = 1) -> Path:
    """``write_text_atomic`` of ``data`` as JSON (a trailing newline)."""
    return write_text_atomic(path, json.dumps(data, indent=indent) + "\n")


def savez_atomic(path: str | os.PathLike[str], **arrays: Any) -> Path:
    """``numpy.savez_compressed`` of ``arrays`` as the file ``path``, whole or not at all (``write_atomic``)."""
    import numpy as np

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as f:  # a file object: numpy adds no .npz to the temporary name
            np.savez_compressed(f, **arrays)

    return write_atomic(path, write)


def save_figure_atomic(fig: Any, path: str | os.PathLike[str], dpi: int = 110) -> Path:
    """Save the matplotlib figure ``fig`` as the PNG ``path``, whole or not at all (``write_atomic``)."""
    return write_atomic(path, lambda tmp: fig.savefig(tmp, dpi=dpi, format="png"))


__all__ = [
    "OVERWRITE_FLAG",
    "input_problem",
    "same_checkpoint",
    "save_figure_atomic",
    "savez_atomic",
    "shipped_folders",
    "shipped_problem",
    "write_json_atomic",
    "write_text_atomic",
]
