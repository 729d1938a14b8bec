"""The ``heuristic`` bot: one hand-written policy per profile, chosen by ``env.unwrapped.profile``.

A profile's policy is a class built with ``factory(rng)`` whose ``decide(view) -> int`` picks a legal action from a
``PublicView`` (``ContinentalView`` for ``continental``). ``register_heuristic(profile, factory)`` adds one;
``contract``, ``continental`` and ``contract_gamerules`` are registered here.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from .view import PublicView, public_view


class Policy(Protocol):
    """A profile's heuristic: a legal action for the seat of the view."""

    def decide(self, view: PublicView) -> int:
        """The chosen legal action."""


PolicyFactory = Callable[[np.random.Generator], Policy]

POLICIES: dict[str, PolicyFactory] = {}


def register_heuristic(profile: str, factory: PolicyFactory) -> None:
    """Use ``factory(rng)`` as the heuristic of ``profile``."""
    POLICIES[profile] = factory


def _contract_policy(rng: np.random.Generator) -> Policy:
    from .heuristic_contract import ContractHeuristic

    return ContractHeuristic(rng)


def _continental_policy(rng: np.random.Generator) -> Policy:
    from .heuristic_continental import ContinentalHeuristic

    return ContinentalHeuristic(rng)


def _gamerules_policy(rng: np.random.Generator) -> Policy:
    from .heuristic_gamerules import GamerulesHeuristic

    return GamerulesHeuristic(rng)


register_heuristic("contract", _contract_policy)
register_heuristic("continental", _continental_policy)
register_heuristic("contract_gamerules", _gamerules_policy)


class HeuristicBot:
    """Club-player rules for the env's profile; seeded (ties are broken with the seed's generator)."""

    name = "heuristic"

    def __init__(self, seed: int | None = 0):
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed and forget everything remembered from an earlier session."""
        self.seed = seed
        self.rng = np.random.Generator(np.random.PCG64(seed))
        self._policies: dict[str, Policy] = {}

    def fork(self) -> HeuristicBot:
        """A copy that plays on from the same point -- the same generator state and memory, so it makes the same
        moves this bot would -- and shares this bot's pure caches (hand measures, run planners): the continuation
        of a rollout (``training/advantage_labels.py``). Each profile's policy forks itself (``policy.fork()``;
        a policy without one is deep-copied)."""
        new = copy.copy(self)
        new.rng = copy.deepcopy(self.rng)
        new._policies = {}
        for profile, policy in self._policies.items():
            fork = getattr(policy, "fork", None)
            new._policies[profile] = fork() if fork is not None else copy.deepcopy(policy)
            if getattr(policy, "rng", None) is self.rng:
                new._policies[profile].rng = new.rng  # the bot and its policies draw from one generator
        return new

    def measure_names(self, profile: str) -> tuple[str, ...]:
        """The columns of ``action_measures`` for ``profile`` (its policy's ``ACTION_FEATURES``; empty if it has
        none)."""
        factory = POLICIES.get(profile)
        if factory is None:
            raise ValueError(f"no heuristic for profile {profile!r}; available: {sorted(POLICIES)}")
        return tuple(getattr(self._policy(profile), "ACTION_FEATURES", ()))

    def action_measures(self, view: PublicView) -> np.ndarray:
        """(len(view.legal), len(measure_names)) float32: the measures the heuristic decides by, of each legal
        action of ``view`` in increasing action id (the rows of ``rummy_env.models.policy.legal_index``); a
        network over this bot reads them (``card_prior_measures``). Reads only the view; draws nothing from the
        generator and changes no memory, so the bot's moves are the same whether or not it is asked."""
        policy = self._policy(view.profile)
        rows = policy.action_features(view)
        order = np.argsort(np.asarray(view.legal, dtype=np.int64), kind="stable")
        return np.asarray(rows, dtype=np.float32).reshape(len(view.legal), -1)[order]

    def _policy(self, profile: str) -> Policy:
        policy = self._policies.get(profile)
        if policy is None:
            factory = POLICIES.get(profile)
            if factory is None:
                raise ValueError(f"no heuristic for profile {profile!r}; available: {sorted(POLICIES)}")
            policy = self._policies[profile] = factory(self.rng)
        return policy

    def act(self, env: Any, agent: str) -> int:
        """The heuristic's legal action for ``agent``, from ``agent``'s public view only."""
        view = public_view(env, agent)
        if not view.legal:
            raise ValueError(f"{agent} has no legal action: it is not its decision")
        return self.act_view(view)

    def act_view(self, view: PublicView) -> int:
        """The heuristic's legal action for the seat of ``view`` (a ``PublicView`` / ``ContinentalView`` with at
        least one legal action): ``act`` without an env, for play on a bare engine state (rollouts)."""
        if len(view.legal) == 1:
            return view.legal[0]
        return self._policy(view.profile).decide(view)


__all__ = ["HeuristicBot", "POLICIES", "Policy", "register_heuristic"]
