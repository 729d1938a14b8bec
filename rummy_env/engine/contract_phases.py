"""The phases of a Contract-family turn and the reasons a round ends: the names ``engine.contract`` (the state),
``engine.contract_describe`` and ``engine.contract_scenario`` share, in a module of their own so that the state
module can import the other two without either importing it back."""

from __future__ import annotations

DRAW = "draw"
BUY = "buy"
ACT = "act"
OPENING = "opening"
PLACE_JOKER = "place_joker"
GAME_OVER = "game_over"
PHASES = (DRAW, BUY, ACT, OPENING, PLACE_JOKER, GAME_OVER)

#: why a round ended (``round_results[i].reason``)
END_REASONS = ("out", "exhausted", "turn_cap", "blocked")

__all__ = ["DRAW", "BUY", "ACT", "OPENING", "PLACE_JOKER", "GAME_OVER", "PHASES", "END_REASONS"]
