"""The ``random`` bot: a uniformly random action among those the mask allows."""

from __future__ import annotations

from typing import Any

import numpy as np


class RandomBot:
    """Uniform over the agent's action mask; deterministic for a seed."""

    name = "random"

    def __init__(self, seed: int | None = 0):
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the bot's generator."""
        self.seed = seed
        self.rng = np.random.Generator(np.random.PCG64(seed))

    def act(self, env: Any, agent: str) -> int:
        """A uniformly random legal action of ``agent`` (read from its action mask only)."""
        legal = np.flatnonzero(env.unwrapped.action_mask(agent))
        if len(legal) == 0:
            raise ValueError(f"{agent} has no legal action: it is not its decision")
        return self.act_legal(legal)

    def act_legal(self, legal: Any) -> int:
        """The action ``act`` picks when the legal action ids, in ascending order, are ``legal`` (a non-empty
        sequence): batched envs that hold the engine's legal list call this instead of building a mask."""
        return int(legal[self.rng.integers(len(legal))])
