"""Terminal output of the commands (progress bars, tables within ``WIDTH`` columns): ``rummy_env.evaluation.terminal``,
re-exported here under its old path."""

from __future__ import annotations

from ..evaluation.terminal import WIDTH, abbreviate, progress_bar, show_progress, wrap

__all__ = ["WIDTH", "abbreviate", "progress_bar", "show_progress", "wrap"]
