"""Bots that play any profile through the env, loadable by id: ``bots.load("heuristic", seed=0)``.

A bot answers one question, ``bot.act(env, agent) -> int``: a legal action for ``agent``, who must be the player to
move. It reads only what that agent may know: its observation / action mask, or the ``PublicView`` that
``rummy_env.bots.view.public_view(env, agent)`` returns (the engine's typed view, ``env.unwrapped.public_view(agent)``:
own hand, table, discard pile, publicly known cards, hand sizes, legal actions) -- never an opponent's hidden cards
or the stock order. Every bot is seeded (``load(spec, seed=...)`` or ``bot.reset(seed)``) and plays
deterministically for a seed.

| id | bot |
|---|---|
| `random` | uniform over the action mask |
| `heuristic` | hand-written club-player rules, one module per profile (`heuristic_contract`, ...) |
| `checkpoint:PATH` | a trained network (`checkpoint_bot`); `checkpoint:PATH@sample` samples instead of greedy |

More ids are added with ``register(name, factory)``; ``factory(arg, seed)`` receives the text after the first
colon of the id (``"checkpoint:PATH"`` gives ``arg="PATH"``; ``None`` without a colon) and returns a ``Bot``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from .view import PublicView, public_view


@runtime_checkable
class Bot(Protocol):
    """What every bot offers: a name, a re-seed and a legal action for the agent to move."""

    name: str

    def reset(self, seed: int | None = None) -> None:
        """Start afresh (a new session) with a new seed."""

    def act(self, env: Any, agent: str) -> int:
        """A legal action for ``agent`` (the player to move in ``env``)."""


BotFactory = Callable[[str | None, int | None], Bot]

_REGISTRY: dict[str, BotFactory] = {}


def register(name: str, factory: BotFactory, overwrite: bool = False) -> None:
    """Make ``load(name)`` / ``load(f"{name}:ARG")`` build a bot with ``factory(arg, seed)``."""
    if not name or ":" in name:
        raise ValueError(f"bad bot id {name!r}: a non-empty name without ':'")
    if name in _REGISTRY and not overwrite:
        raise ValueError(f"bot id {name!r} is already registered (pass overwrite=True to replace it)")
    _REGISTRY[name] = factory


def known_ids() -> list[str]:
    """The registered bot ids, sorted."""
    return sorted(_REGISTRY)


def load(spec: str, seed: int | None = 0) -> Bot:
    """The bot named by ``spec`` (``"random"``, ``"heuristic"``, ``"name:ARG"``), seeded with ``seed``."""
    if not isinstance(spec, str):
        raise ValueError(f"bot id must be a string, got {spec!r}; known ids: {known_ids()}")
    name, sep, arg = spec.partition(":")
    factory = _REGISTRY.get(name)
    if factory is None:
        raise ValueError(f"unknown bot id {spec!r}; known ids: {known_ids()}")
    return factory(arg if sep else None, seed)


def _no_arg(name: str, cls: Callable[[int | None], Bot]) -> BotFactory:
    def factory(arg: str | None, seed: int | None) -> Bot:
        if arg is not None:
            raise ValueError(f"bot id {name!r} takes no argument, got {name}:{arg}")
        return cls(seed)

    return factory


def _register_builtins() -> None:
    from .heuristic import HeuristicBot
    from .random_bot import RandomBot

    register("random", _no_arg("random", RandomBot))
    register("heuristic", _no_arg("heuristic", HeuristicBot))
    register("checkpoint", _checkpoint)
    from .search import search_factory  # "search" / "search:N" (N rollouts a decision)
    register("search", search_factory)


def _checkpoint(arg: str | None, seed: int | None) -> Bot:
    # imported on use: loading a network needs torch, which importing the bots must not
    from .checkpoint_bot import checkpoint_factory

    return checkpoint_factory(arg, seed)


_register_builtins()

__all__ = ["Bot", "BotFactory", "PublicView", "register", "load", "known_ids", "public_view"]
