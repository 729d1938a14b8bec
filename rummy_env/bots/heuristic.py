"""The ``heuristic`` bot: one hand-written policy per profile, chosen by ``env.unwrapped.profile``.

A profile's policy is a class built with ``factory(rng)`` whose ``decide(view) -> int`` picks a legal action from a
``PublicView`` (``ContinentalView`` for ``continental``). ``register_heuristic(profile, factory)`` adds one;
``contract``, ``continental`` and ``contract_gamerules`` are registered here.

Each policy's few numbers are a frozen dataclass in its ``style`` attribute (``ContractStyle`` for the contract
profiles, ``ContinentalStyle`` for continental). ``HeuristicBot(seed, style={"penalty_weight": 0.4})`` -- bot id
``"heuristic:penalty_weight=0.4"`` -- plays with those fields replaced; the default bot is unchanged by this. A
variant is a different player: the package's ``heuristic`` (the baseline of every measurement) has no style.
"""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Callable, Mapping
from typing import Any, Protocol

import numpy as np

from .heuristic_continental import ContinentalHeuristic, ContinentalStyle
from .heuristic_contract import ContractHeuristic, ContractStyle
from .heuristic_gamerules import GamerulesHeuristic
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
    return ContractHeuristic(rng)


def _continental_policy(rng: np.random.Generator) -> Policy:
    return ContinentalHeuristic(rng)


def _gamerules_policy(rng: np.random.Generator) -> Policy:
    return GamerulesHeuristic(rng)


register_heuristic("contract", _contract_policy)
register_heuristic("continental", _continental_policy)
register_heuristic("contract_gamerules", _gamerules_policy)


class HeuristicStyleError(ValueError):
    """A ``style`` the heuristic cannot take: an unknown field, a value that is not a finite number, or a field of
    another profile's heuristic."""


def style_fields() -> dict[str, tuple[str, ...]]:
    """The fields a ``style`` may set, per style class (``ContractStyle``: the contract profiles;
    ``ContinentalStyle``: continental)."""
    return {c.__name__: tuple(f.name for f in dataclasses.fields(c)) for c in (ContractStyle, ContinentalStyle)}


def check_style(style: Mapping[str, Any]) -> dict[str, float]:
    """``style`` as a plain dict of floats, or ``HeuristicStyleError`` saying which field or value is wrong and
    what is allowed."""
    if not isinstance(style, Mapping):
        raise HeuristicStyleError(f"a heuristic style is a mapping of field names to numbers, got {style!r}")
    known = style_fields()
    allowed = sorted({f for fields in known.values() for f in fields})
    out = {}
    for key, value in style.items():
        if key not in allowed:
            raise HeuristicStyleError(f"unknown heuristic style field {key!r}; the fields are {known}")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise HeuristicStyleError(f"heuristic style field {key!r} must be a finite number, got {value!r}")
        out[key] = float(value)
    return out


class HeuristicBot:
    """Club-player rules for the env's profile; seeded (ties are broken with the seed's generator).

    ``style``: fields of the profile's style dataclass to replace (module docstring); checked here, and against the
    profile's own fields when the bot first plays it (``HeuristicStyleError``). The bot's ``name`` is
    ``"heuristic"`` without a style and its bot id (``"heuristic:field=value,..."``) with one."""

    name = "heuristic"

    def __init__(self, seed: int | None = 0, style: Mapping[str, Any] | None = None):
        self.style = check_style(style) if style else {}
        if self.style:
            self.name = "heuristic:" + ",".join(f"{k}={v:g}" for k, v in self.style.items())
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed and forget everything remembered from an earlier session."""
        self.seed = seed
        self.rng = np.random.Generator(np.random.PCG64(seed))
        self._policies: dict[str, Policy] = {}

    def fork(self) -> HeuristicBot:
        """A copy that plays on from the same point -- the same generator state and memory, so it makes the same
        moves this bot would -- and shares this bot's pure caches (hand measures, run planners): the continuation
        of a rollout (``python -m rummy_env.distill advantage-labels``). Each profile's policy forks itself (``policy.fork()``;
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
            policy = factory(self.rng)
            if self.style:
                policy.style = self._styled(profile, policy)
            self._policies[profile] = policy
        return policy

    def _styled(self, profile: str, policy: Policy) -> Any:
        """``policy``'s style with this bot's fields replaced."""
        base = getattr(policy, "style", None)
        if base is None or not dataclasses.is_dataclass(base):
            raise HeuristicStyleError(f"the {profile} heuristic has no style to set; got style {self.style}")
        fields = [f.name for f in dataclasses.fields(base)]
        other = sorted(set(self.style) - set(fields))
        if other:
            raise HeuristicStyleError(
                f"heuristic style fields {other} are not fields of the {profile} heuristic "
                f"({type(base).__name__}: {fields})"
            )
        return dataclasses.replace(base, **self.style)

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


__all__ = ["HeuristicBot", "HeuristicStyleError", "POLICIES", "Policy", "check_style", "register_heuristic", "style_fields"]
