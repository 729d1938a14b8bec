"""Game logs: one played session as versioned JSON (``docs/guides/watching.md`` documents every key).

The format (``GameRecorder``, ``save_log``, ``read_log``, ``check_log`` ...) lives in
``rummy_env.evaluation.game_log``, below the match runner that records with it, and ``record_game`` (one session of
bots played and logged) in ``rummy_env.evaluation.record``; both are re-exported here under their old path.
Whether a log's actions are legal and reproduce its results is checked by replaying it through the engine
(``rummy_env.replay.replay``).
"""

from __future__ import annotations

from ..evaluation.game_log import (
    ACTION_KEYS,
    FORMAT,
    LOG_KEYS,
    ROUND_KEYS,
    VERSION,
    VERSIONS,
    GameLogError,
    GameRecorder,
    check_log,
    jsonable,
    read_log,
    rules_json,
    save_log,
)
from ..evaluation.record import record_game

__all__ = [
    "ACTION_KEYS",
    "FORMAT",
    "GameLogError",
    "GameRecorder",
    "LOG_KEYS",
    "ROUND_KEYS",
    "VERSION",
    "VERSIONS",
    "check_log",
    "jsonable",
    "read_log",
    "record_game",
    "rules_json",
    "save_log",
]
