"""``TableEnv``: one table of a ``VectorEnv`` seen through the part of the AEC env's interface that bots read.

A bot answers ``bot.act(env, agent)`` from ``env.unwrapped.public_view(agent)`` (the heuristics),
``env.unwrapped.action_mask(agent)`` (``random``) or ``env.observe(agent)`` (checkpoint bots). ``vec.table(i)``
returns a ``TableEnv`` that answers those calls from table ``i``'s current state, so every registered bot plays a
seat of a batched table without an AEC env beside it (``training/ppo.py`` collects this way). It is a live view:
it always describes the table's current decision (after an auto-reset, the new session's). It never steps the
table: the caller puts the bot's action into the ``actions`` array of the next ``vec.step``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..envs.base import agent_seat


class TableEnv:
    """Table ``i`` of ``vec`` as a read-only, env-like object for bots (see the module docstring).

    Attributes as the AEC env's: ``profile``, ``possible_agents``, ``agent_name_mapping``, ``num_actions``,
    ``observer``, ``layout``, ``rules``; ``agent_selection`` (the agent to move), ``current_seat``;
    ``unwrapped`` is the object itself.
    """

    def __init__(self, vec: Any, i: int):
        self._vec = vec
        self.index = int(i)
        self.profile = vec.profile
        self.possible_agents = [f"player_{p}" for p in range(vec.num_players)]
        self.agent_name_mapping = {a: p for p, a in enumerate(self.possible_agents)}
        self.num_actions = vec.num_actions
        self.observer = vec.observer
        self.layout = vec.layout
        self.rules = vec.rules

    @property
    def unwrapped(self) -> TableEnv:
        """The object itself (bots call ``env.unwrapped``)."""
        return self

    @property
    def current_seat(self) -> int:
        """The seat to move at this table."""
        return int(self._vec.seat[self.index])

    @property
    def agent_selection(self) -> str:
        """The agent to move at this table (``player_<seat>``)."""
        return self.possible_agents[self.current_seat]

    def _seat(self, agent: Any) -> int:
        return agent_seat(self, agent)

    def public_view(self, agent: str) -> Any:
        """Everything ``agent`` may know at this table (``rummy_env.engine.view``), as the AEC env's."""
        return self._vec.public_view(self.index, self._seat(agent))

    def action_mask(self, agent: str) -> np.ndarray:
        """int8 mask of ``agent``'s legal actions (all zeros when it is not ``agent``'s decision), a copy."""
        if self._seat(agent) != self.current_seat:
            return np.zeros(self.num_actions, dtype=np.int8)
        return self._vec.mask[self.index].astype(np.int8)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": float32 vector from agent's seat, "action_mask": int8}``, as the AEC env's."""
        mask = self.action_mask(agent)
        return {"observation": self._vec.observe(self.index, self._seat(agent)), "action_mask": mask}

    def results(self) -> dict[str, Any]:
        """The table's current session so far (the AEC env's ``results()``)."""
        return self._vec.results(self.index)

    def game_state(self) -> dict[str, Any]:
        """The table's engine state as JSON (the scenario format)."""
        return self._vec.game_state(self.index)

    def __repr__(self) -> str:
        return f"TableEnv(table {self.index} of {self._vec!r})"


__all__ = ["TableEnv"]
