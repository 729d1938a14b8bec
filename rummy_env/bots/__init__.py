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
| `heuristic:FIELD=NUMBER,...` | the same rules with fields of the profile's style replaced (``heuristic.py``), e.g. `heuristic:penalty_weight=0.4` |
| `search`, `search:N`, `search:Ts` | determinized Monte-Carlo search (``search.py``): full-round rollouts on hidden cards weighted by what opponents revealed; it leaves the heuristic's move only when a paired test accepts; N rollouts or T seconds' worth a decision, plain `search` is `search:1s`; in ``continental`` an exact look-ahead of the seat's next draw instead (no budget) |
| `checkpoint:PATH` | a trained network (`checkpoint_bot`); `checkpoint:PATH@sample` samples instead of greedy; PATH may be a shipped checkpoint's name (`checkpoint:contract`, `checkpoint:contract_gamerules`, `checkpoint:continental`) |
| `py:MODULE.ATTR` | a user's bot: ``ATTR(seed)`` of the importable module ``MODULE`` (see ``load``) |

More ids are added with ``register(name, factory)``; ``factory(arg, seed)`` receives the text after the first
colon of the id (``"checkpoint:PATH"`` gives ``arg="PATH"``; ``None`` without a colon) and returns a ``Bot``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from . import checkpoint_bot
from .checkpoint_bot import checkpoint_factory
from .heuristic import HeuristicBot, HeuristicStyleError
from .random_bot import RandomBot
from .search import search_factory
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


class BotLoadError(ValueError):
    """A bot id ``load`` cannot turn into a bot: an unknown id, or a ``py:MODULE.ATTR`` whose module does not
    import, whose attribute is missing, or whose object does not build a bot (``name``, ``reset(seed)``,
    ``act(env, agent)``)."""


#: the prefix of a user's bot id: ``py:MODULE.ATTR`` (``load`` imports MODULE and calls ``ATTR(seed)``)
PY_PREFIX = "py:"


def load(spec: str, seed: int | None = 0) -> Bot:
    """The bot named by ``spec`` (``"random"``, ``"heuristic"``, ``"name:ARG"``, ``"py:MODULE.ATTR"``), seeded.

    ``py:MODULE.ATTR`` loads a user's bot without registering it: ``MODULE`` is imported (from ``sys.path``; the
    current directory is tried last when it is not on it, as for ``python -m``) and ``ATTR`` -- a class or a
    factory -- is called with the seed, ``ATTR(seed)``; what it returns must offer ``name``, ``reset(seed)`` and
    ``act(env, agent)``. Every problem is a ``BotLoadError`` (a ``ValueError``) saying what is wrong.
    """
    if not isinstance(spec, str):
        raise BotLoadError(f"bot id must be a string, got {spec!r}; known ids: {known_ids()} or py:MODULE.ATTR")
    if spec.startswith(PY_PREFIX):
        return _load_python_bot(spec, seed)
    name, sep, arg = spec.partition(":")
    factory = _REGISTRY.get(name)
    if factory is None:
        raise BotLoadError(f"unknown bot id {spec!r}; known ids: {known_ids()}, or py:MODULE.ATTR for your own bot")
    return factory(arg if sep else None, seed)


def _import_user_module(spec: str, module: str) -> Any:
    """``module`` imported for the bot id ``spec``; the current directory is tried when it is not on sys.path."""
    import importlib
    import os
    import sys

    def attempt() -> Any:
        return importlib.import_module(module)

    try:
        return attempt()
    except ModuleNotFoundError as exc:
        top = module.split(".")[0]
        cwd = os.getcwd()
        missing = exc.name or ""
        if missing.split(".")[0] == top and cwd not in sys.path and "" not in sys.path:
            sys.path.append(cwd)  # appended: a user's file never shadows an installed module
            try:
                return attempt()
            except ModuleNotFoundError as again:
                exc = again
        raise BotLoadError(
            f"bot id {spec!r}: module {module!r} cannot be imported ({exc}); give py:MODULE.ATTR with MODULE "
            f"importable from sys.path or the current directory {cwd!r}"
        ) from None
    except Exception as exc:  # noqa: BLE001 - a user's module failing to import is a bad bot id
        raise BotLoadError(
            f"bot id {spec!r}: importing module {module!r} failed with {type(exc).__name__}: {exc}"
        ) from None


def _load_python_bot(spec: str, seed: int | None) -> Bot:
    """The user's bot of ``py:MODULE.ATTR``: ``ATTR(seed)`` of the imported ``MODULE``, checked against ``Bot``."""
    target = spec[len(PY_PREFIX) :]
    module, dot, attr = target.rpartition(".")
    if not dot or not module or not attr or not all(p.isidentifier() for p in target.split(".")):
        raise BotLoadError(
            f"bot id {spec!r}: expected py:MODULE.ATTR (a dotted module path, then the class or factory name), "
            "e.g. py:mybots.GreedyBot"
        )
    mod = _import_user_module(spec, module)
    obj = getattr(mod, attr, None)
    if obj is None:
        public = sorted(n for n in vars(mod) if not n.startswith("_") and callable(getattr(mod, n)))
        raise BotLoadError(f"bot id {spec!r}: module {module!r} has no attribute {attr!r}; it has {public}")
    if not callable(obj):
        raise BotLoadError(
            f"bot id {spec!r}: {module}.{attr} is an object of type {type(obj).__name__}, not a class or factory taking a seed"
        )
    try:
        bot = obj(seed)
    except Exception as exc:  # noqa: BLE001 - the user's constructor failing is a bad bot id
        raise BotLoadError(
            f"bot id {spec!r}: {module}.{attr}(seed={seed!r}) raised {type(exc).__name__}: {exc}; "
            "expected a class or factory called with one argument, the seed"
        ) from None
    missing = [m for m in ("reset", "act") if not callable(getattr(bot, m, None))]
    if not isinstance(getattr(bot, "name", None), str):
        missing.insert(0, "name")
    if missing:
        raise BotLoadError(
            f"bot id {spec!r}: {module}.{attr}(seed) returned {type(bot).__name__!s}, not a bot: it lacks "
            f"{', '.join(missing)} (a bot has name: str, reset(seed) and act(env, agent) -> int)"
        )
    return bot


def _no_arg(name: str, cls: Callable[[int | None], Bot]) -> BotFactory:
    def factory(arg: str | None, seed: int | None) -> Bot:
        if arg is not None:
            raise ValueError(f"bot id {name!r} takes no argument, got {name}:{arg}")
        return cls(seed)

    return factory


def _register_builtins() -> None:
    register("random", _no_arg("random", RandomBot))
    register("heuristic", _heuristic)
    register("checkpoint", checkpoint_factory)  # loads torch only when a network is loaded
    register("search", search_factory)  # "search" / "search:N" (N rollouts) / "search:0.5s" (a time budget)
    checkpoint_bot.set_bot_loader(load)  # the prior bot of a ``card_prior`` network


def _heuristic(arg: str | None, seed: int | None) -> Bot:
    """``heuristic`` or ``heuristic:FIELD=VALUE,...``: the heuristic with fields of its style replaced
    (``rummy_env.bots.heuristic``; e.g. ``heuristic:penalty_weight=0.4``)."""
    if arg is None:
        return HeuristicBot(seed)
    style: dict[str, float] = {}
    for item in arg.split(","):
        key, eq, value = item.partition("=")
        try:
            if not eq or not key.strip():
                raise ValueError
            style[key.strip()] = float(value)
        except ValueError:
            raise BotLoadError(
                f"bot id 'heuristic:{arg}': {item!r} is not FIELD=NUMBER; expected heuristic:FIELD=NUMBER,... "
                "(e.g. heuristic:penalty_weight=0.4)"
            ) from None
    try:
        return HeuristicBot(seed, style=style)
    except HeuristicStyleError as exc:
        raise BotLoadError(f"bot id 'heuristic:{arg}': {exc}") from None


_register_builtins()

__all__ = [
    "Bot",
    "BotFactory",
    "BotLoadError",
    "PublicView",
    "PY_PREFIX",
    "register",
    "load",
    "known_ids",
    "public_view",
]
