"""What one seat may know, for the bots: the engine's typed public view (``rummy_env.engine.view``), re-exported.

``public_view(env, agent)`` is ``env.unwrapped.public_view(agent)``: the agent's own hand and the public facts
(table, discard pile, cards publicly known to be in each hand, hand sizes, who opened, round, phase, the offered
card, the legal actions) and nothing else: no opponent's hidden card, no stock order. A heuristic that reads only
the view cannot cheat (``tests/engine/test_public_view.py`` checks that the view is unchanged when the hidden cards are
resampled).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine.view import ContinentalView, PublicView, TableMeld, continental_view, contract_view

#: view builders ``builder(state, seat, profile)`` by profile id (kept for callers of earlier releases; the engine
#: states build their own view: ``state.public_view(seat)``)
VIEW_BUILDERS: dict[str, Callable[..., Any]] = {
    "contract": contract_view,
    "contract_gamerules": contract_view,
    "continental": continental_view,
}


def public_view(env: Any, agent: str) -> PublicView | ContinentalView:
    """What ``agent`` may know about ``env`` now (``env`` wrapped or raw): ``env.unwrapped.public_view(agent)``."""
    return env.unwrapped.public_view(agent)


__all__ = [
    "PublicView",
    "ContinentalView",
    "TableMeld",
    "contract_view",
    "continental_view",
    "public_view",
    "VIEW_BUILDERS",
]
