"""Profile ``continental``: Continental rummy, Bicycle profile (document 004, spec C.1/C.2).

Every choice listed as a resolution in C.2 is a field of the frozen ``ContinentalRules``, adopted value as default.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .bounds import CONTINENTAL_BOUNDS, RulesError, check_fields, check_override_names
from .continental_hand import RUN_LENGTH_PATTERNS


@dataclass(frozen=True)
class ContinentalRules:
    """Frozen rules object of Continental rummy."""

    name: str = "continental"
    #: C.1-1: 4-5 players, each for himself
    num_players: int = 4
    min_players: int = 4
    max_players: int = 5
    #: C.1-1: 2 x 52 + 2 jokers = 106; all 2s and the jokers are wild
    decks: int = 2
    jokers: int = 2
    #: C.1-2: 15 cards each, dealt in packets of 3
    hand_size: int = 15
    deal_packet: int = 3
    #: C.1-4: the run lengths a going-out hand may split into
    patterns: tuple[tuple[int, ...], ...] = RUN_LENGTH_PATTERNS
    min_run: int = 3
    #: C.1-5 / C.2-6: the card taken from the discard pile may not be discarded in the same turn
    forbid_rediscard: bool = True
    #: C.2-7 / 004 section 04: "Когда после сброса оставшиеся 15 полностью подходят, откройте сразу всё" (when after
    #: the discard the 15 left fit, lay them all down) reads as an instruction; the worked example of section 08 (a
    #: valid 15 held on a later turn) needs declaring to be optional, the default. True: a discard that leaves a valid
    #: 15 must declare. The first-turn declaration without drawing stays optional ("можно объявить", may declare).
    declare_mandatory: bool = False
    #: C.1-6: payment per opponent = base + W + F + S
    base_payment: int = 1
    no_wild_bonus: int = 10
    first_turn_bonus: int = 7
    no_draw_bonus: int = 10
    one_suit_bonus: int = 10
    #: C.1-8: deals in a session per player (each player deals once)
    deals_per_player: int = 1
    #: engine safety limit: turns per deal before the deal ends as a drawn deal (docs/rules/continental.md)
    turn_cap: int = 400

    def __post_init__(self) -> None:
        check_fields(self, CONTINENTAL_BOUNDS)  # types and bounds first (``rummy_env.rules.bounds``): RulesError
        problems = []
        if not self.min_players <= self.num_players <= self.max_players:
            problems.append(f"num_players={self.num_players} (allowed {self.min_players}..{self.max_players})")
        if self.hand_size % self.deal_packet:
            problems.append("hand_size must be a multiple of deal_packet")
        if self.num_players * self.hand_size + 1 > self.decks * 52 + self.jokers:
            problems.append("the hands and the upcard exceed the shoe")
        if self.deal_packet > self.hand_size:
            problems.append(f"deal_packet={self.deal_packet} is larger than hand_size={self.hand_size}")
        if any(sum(p) != self.hand_size for p in self.patterns):
            problems.append("every run-length pattern must add up to hand_size")
        if any(x < self.min_run for p in self.patterns for x in p):
            problems.append(f"every run length of the patterns must be at least min_run={self.min_run}")
        if problems:
            raise RulesError(f"bad {self.name} rules: " + "; ".join(problems))

    @property
    def num_deals(self) -> int:
        """Deals in a full session."""
        return self.num_players * self.deals_per_player

    def with_overrides(self, **overrides: Any) -> ContinentalRules:
        """A copy with some fields changed (lists accepted for tuples); unknown names or values out of bounds raise
        ``RulesError`` (a ``ValueError``) saying what is allowed."""
        check_override_names(self, overrides)
        return replace(self, **overrides)


CONTINENTAL = ContinentalRules()
