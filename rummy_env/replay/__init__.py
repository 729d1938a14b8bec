"""Game logs and the web replay (``docs/guides/watching.md``).

* ``record_game(profile, entrants, seed)`` plays one session of bots and returns its game log (``rummy record``);
  ``rummy tournament --save-games DIR`` writes one log per session (``tournament(..., save_games=DIR)``).
* ``read_log(path)`` reads a log and checks its structure; ``replay(log)`` re-plays it through the engine, checking
  every action and the results, and returns the frames of the replay (``Replay``).
* ``write_html(log, path)`` writes the replay as one self-contained web page (``rummy replay LOG --html PAGE``),
  atomically; a ``path`` that is the log itself is refused (``OutputFileError``, a ``ValueError``).

A log that cannot be read within the bounds of ``read_log`` (a regular file of at most 64 MiB, JSON nested at most 64
levels), is not JSON, of another format or an unknown version, has a key of the wrong type, rules out of bounds, or
actions the engine refuses raises ``GameLogError`` (a ``ValueError``) that says what is wrong and what is expected.
"""

from __future__ import annotations

from .html import render_html, write_html
from .log import FORMAT, VERSION, VERSIONS, GameLogError, GameRecorder, check_log, read_log, record_game, save_log
from .replay import Replay, replay

__all__ = [
    "FORMAT",
    "GameLogError",
    "GameRecorder",
    "Replay",
    "VERSION",
    "VERSIONS",
    "check_log",
    "read_log",
    "record_game",
    "render_html",
    "replay",
    "save_log",
    "write_html",
]
