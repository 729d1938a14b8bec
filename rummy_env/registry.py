"""One ``Game`` descriptor per profile: the only place that knows what a profile id means.

OpenSpiel has its ``Game`` object and Pgx its env object; here ``game("contract")`` answers every question code
above the engine would otherwise settle by comparing profile names: the rules object (with the player-count
adjustments of the rule document), the engine and its scenario loader, the action table, the observer and its
sizes, what the score is called and which way is better, what one unit of a session is called, the player counts
and the bots that play it. Nothing is built to learn a size: the action table and the observer are derived from
the rules object alone.

Components are named by import path and imported on first use, so importing the registry imports no engine,
env or torch (the layers below never import it; ``rummy_env.engine.new_state`` asks it which engine to build).

| field | contract | contract_gamerules | continental |
|---|---|---|---|
| ``family`` | contract | contract | continental |
| ``score_name`` / ``lower_is_better`` | penalty / True | penalty / True | payment / False |
| ``unit`` / ``units`` | round / rounds | round / rounds | deal / deals |
| players (default) | 4..4 (4) | 3..5 (4) | 4..5 (4) |
| env module | ``contract_v0`` | ``contract_gamerules_v0`` | ``continental_v0`` |
| ``fuzz_oracles`` | True | False | False |
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

#: the session-length argument every profile accepts (``rounds=``): contract's rounds, continental's deals
SESSION_ARG = "rounds"


def _resolve(path: str) -> Any:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class Game:
    """What one profile is (frozen; one per profile id, ``GAMES[id]``)."""

    #: the profile id (``"contract"``) and a one-line title
    id: str
    title: str
    #: engine family: ``"contract"`` (Contract Rummy engine) or ``"continental"``
    family: str
    #: the env module under ``rummy_env`` (``contract_v0``) and its PettingZoo / Gymnasium ids
    env_module: str
    pettingzoo_id: str
    gymnasium_id: str
    #: the profile's rules page in the repository (the rule text, resolutions and worked examples)
    rules_doc: str
    #: the score a session accumulates: its name, and whether lower is better (penalties) or higher (payments)
    score_name: str
    lower_is_better: bool
    #: one unit of a session, singular and plural (``round`` / ``rounds``; continental's ``deal`` / ``deals``)
    unit: str
    units: str
    #: ``rummy fuzz`` checks every transition against independent rule oracles (``rummy_env.testing.invariants``)
    fuzz_oracles: bool = False
    #: the rule-based bots that play this profile (``rummy_env.bots``): ``heuristic`` (its policy is registered in
    #: ``rummy_env.bots.heuristic.POLICIES``) and ``search`` (it rolls out with it); data here, so that the registry
    #: imports no bot
    rule_bots: tuple[str, ...] = ()
    #: rules overrides implied by a player count (B.2-1: five players of ``contract_gamerules`` use 2 decks)
    pack_for_players: dict[int, dict[str, Any]] = field(default_factory=dict, compare=False)
    #: import paths (``module:name``) of the base rules object, engine state class and scenario loader
    rules_path: str = field(default="", repr=False)
    engine_path: str = field(default="", repr=False)
    loader_path: str = field(default="", repr=False)
    #: import paths of ``layout(rules)`` and ``observer(rules, num_units)`` factories
    layout_path: str = field(default="", repr=False)
    observer_path: str = field(default="", repr=False)

    # rules ----------------------------------------------------------------------------------------------------
    @cached_property
    def base_rules(self) -> Any:
        """The profile's frozen rules object with every default."""
        return _resolve(self.rules_path)

    @property
    def min_players(self) -> int:
        return self.base_rules.min_players

    @property
    def max_players(self) -> int:
        return self.base_rules.max_players

    @property
    def default_players(self) -> int:
        return self.base_rules.num_players

    @property
    def player_counts(self) -> tuple[int, ...]:
        """Every player count the profile seats."""
        return tuple(range(self.min_players, self.max_players + 1))

    def rules(self, **overrides: Any) -> Any:
        """The rules object with ``overrides`` (fields of the rules class), after the player-count adjustments
        (``pack_for_players``) that the overrides do not set themselves; ``ValueError`` for a bad field."""
        n = overrides.get("num_players")
        implied = self.pack_for_players.get(n, {}) if isinstance(n, int) else {}
        overrides = {**{k: v for k, v in implied.items() if k not in overrides}, **overrides}
        base = self.base_rules
        return base.with_overrides(**overrides) if overrides else base

    # engine ---------------------------------------------------------------------------------------------------
    @property
    def engine(self) -> type:
        """The engine state class (``ContractState``, ``ContinentalState``)."""
        return _resolve(self.engine_path)

    def new_state(self, rules: Any, seed: int | None = None, rounds: Any = None) -> Any:
        """A new seeded session under ``rules``; ``rounds`` is the session length in this profile's units
        (None: all of them)."""
        return self.engine(rules, seed=seed, rounds=rounds)

    def load_state(self, data: dict[str, Any], rules: Any, seed: int | None = None) -> Any:
        """A state from a JSON scenario of this profile under ``rules``."""
        return _resolve(self.loader_path)(data, rules, seed=seed)

    # encoding -------------------------------------------------------------------------------------------------
    def layout(self, rules: Any) -> Any:
        """The fixed action table (``num_actions``, named ranges, ``kind_of(a)``) of ``rules``."""
        return _resolve(self.layout_path)(rules)

    def observer(self, rules: Any, rounds: Any = None) -> Any:
        """The observer (``size``, ``low``, ``high``, named ``pieces``) of a session of ``rules``."""
        return _resolve(self.observer_path)(rules, rounds)

    def num_actions(self, num_players: int | None = None) -> int:
        """``Discrete(N)``'s N for a player count (default: the profile's)."""
        return self.layout(self._rules_for(num_players)).num_actions

    def observation_size(self, num_players: int | None = None) -> int:
        """Length of the ``"observation"`` vector for a player count."""
        return self.observer(self._rules_for(num_players)).size

    def _rules_for(self, num_players: int | None) -> Any:
        return self.rules() if num_players is None else self.rules(num_players=num_players)

    # above the engine -----------------------------------------------------------------------------------------
    @property
    def score_per_unit(self) -> str:
        """The label of a per-unit score figure: ``penalty_per_round`` / ``payment_per_deal``."""
        return f"{self.score_name}_per_{self.unit}"

    @property
    def bots(self) -> tuple[str, ...]:
        """Bot ids that play this profile (``rummy_env.bots.load``): ``random``, ``heuristic``, ``search`` (it rolls
        out with the heuristic), ``checkpoint``."""
        return ("random",) + self.rule_bots + ("checkpoint",)

    def env_module_obj(self) -> Any:
        """The env module (``rummy_env.contract_v0``)."""
        return importlib.import_module(f"rummy_env.{self.env_module}")

    def make_env(self, wrapped: bool = True, **config: Any) -> Any:
        """The AEC env (``env(**config)``; ``wrapped=False``: ``raw_env``)."""
        mod = self.env_module_obj()
        return mod.env(**config) if wrapped else mod.raw_env(**config)


_CONTRACT_COMMON = dict(
    family="contract",
    score_name="penalty",
    lower_is_better=True,
    unit="round",
    units="rounds",
    engine_path="rummy_env.engine.contract:ContractState",
    loader_path="rummy_env.engine.contract:load_state",
    layout_path="rummy_env.engine.contract:layout_for",
    observer_path="rummy_env.encoding.observation:contract_observer",
    rule_bots=("heuristic", "search"),
)

GAMES: dict[str, Game] = {
    g.id: g
    for g in (
        Game(
            id="contract",
            title="Contract Rummy (4 players, 107 cards, 7 contracts, buying, joker swaps)",
            env_module="contract_v0",
            pettingzoo_id="rummy_env/contract-v0",
            gymnasium_id="rummy_env/Contract-v0",
            rules_doc="docs/rules/contract.md",
            fuzz_oracles=True,
            rules_path="rummy_env.rules.contract:CONTRACT",
            **_CONTRACT_COMMON,
        ),
        Game(
            id="contract_gamerules",
            title="Contract Rummy, gamerules family rules (3-5 players, deep discard pickups)",
            env_module="contract_gamerules_v0",
            pettingzoo_id="rummy_env/contract_gamerules-v0",
            gymnasium_id="rummy_env/ContractGamerules-v0",
            rules_doc="docs/rules/contract_gamerules.md",
            rules_path="rummy_env.rules.contract:CONTRACT_GAMERULES",
            pack_for_players={5: {"decks": 2, "jokers": 2}},
            **_CONTRACT_COMMON,
        ),
        Game(
            id="continental",
            title="Continental rummy (15 cards, runs only, 2s and jokers wild, payments)",
            family="continental",
            env_module="continental_v0",
            pettingzoo_id="rummy_env/continental-v0",
            gymnasium_id="rummy_env/Continental-v0",
            rules_doc="docs/rules/continental.md",
            score_name="payment",
            lower_is_better=False,
            unit="deal",
            units="deals",
            rules_path="rummy_env.rules.continental:CONTINENTAL",
            engine_path="rummy_env.engine.continental:ContinentalState",
            loader_path="rummy_env.engine.continental:load_state",
            layout_path="rummy_env.engine.continental:layout_for",
            observer_path="rummy_env.encoding.observation:continental_observer",
            rule_bots=("heuristic", "search"),
        ),
    )
}


class UnknownProfileError(ValueError):
    """A profile id that is not in ``GAMES``."""


def game(profile: str) -> Game:
    """The descriptor of ``profile``; ``UnknownProfileError`` (a ``ValueError``) naming the known ids."""
    g = GAMES.get(profile) if isinstance(profile, str) else None
    if g is None:
        raise UnknownProfileError(f"unknown profile {profile!r}; available: {sorted(GAMES)}")
    return g


__all__ = ["GAMES", "Game", "SESSION_ARG", "UnknownProfileError", "game"]
