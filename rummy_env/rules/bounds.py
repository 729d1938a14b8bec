"""Bounds of every rules field: the one place that says which values a rules object may hold.

A rules object (``ContractRules``, ``ContinentalRules``) checks its fields against these bounds first thing when it
is made (``__post_init__``), before anything is derived from it: a rules object from a game log, a checkpoint's
``env_config``, a config file or a keyword of ``rummy_env.make`` that is out of bounds is refused with a
:class:`RulesError` (a ``ValueError``) naming the field, the value (cut short) and what is allowed, in microseconds
and without building a shoe, an action table or an observer. The bounds are far above any real game (the shipped
profiles use 1-2 decks, 3-5 players, hands of 10-15 cards, 7 rounds) and keep the largest env one can make small
(8 decks and 8 players with every meld-multiplying switch on: about 170,000 observation entries and 280,000
actions, built in a few seconds), as the checkpoint loader bounds network sizes.

| field | allowed |
|---|---|
| ``name`` | a string of 1..40 characters |
| ``num_players``, ``min_players``, ``max_players`` | integers 2..8, ``min_players <= num_players <= max_players`` |
| ``decks`` | 1..8 decks of 52 |
| ``jokers`` | 0..16 |
| ``hand_sizes`` (contract) | 1..16 entries (one per round), each 1..30 cards |
| ``contracts`` (contract) | one ``(groups, runs)`` pair per entry of ``hand_sizes``, each count 0..6, 1..6 melds in all |
| ``group_min`` | 2..16 |
| ``run_min``, ``min_run`` | 2..14 (a run has at most 14 positions, A..K..A) |
| ``group_max`` | ``None`` or ``group_min``..64 |
| ``buy_penalty_cards`` | 0..10 |
| ``hand_size`` (continental) | 1..30 |
| ``deal_packet`` (continental) | 1..``hand_size``, dividing it |
| ``patterns`` (continental) | 1..32 patterns, each 1..15 run lengths of ``min_run``..14 adding up to ``hand_size`` |
| ``base_payment`` and the bonuses (continental) | 0..1,000 |
| ``deals_per_player`` (continental) | 1..16 |
| ``turn_cap`` | 1..10,000 turns |
| every switch (``buying``, ``deep_pickup``, ...) | ``True`` or ``False`` |

Integers must be integers (``True`` and ``2.0`` are refused); lists are accepted where a tuple is expected (JSON has
no tuples) and stored as tuples. The rules documents (``docs/rules/<profile>.md``, "Rules fields") give each field's
bound beside its default.
"""

from __future__ import annotations

import dataclasses
import operator
from dataclasses import dataclass
from typing import Any

from ..core.files import shorten

MAX_NAME = 40
MAX_PLAYERS = 8
MAX_DECKS = 8
MAX_JOKERS = 16
MAX_ROUNDS = 16
MAX_HAND_SIZE = 30
MAX_CONTRACT_MELDS = 6
MAX_GROUP_MIN = 16
MAX_GROUP = 64
MAX_RUN = 14
MAX_BUY_PENALTY = 10
MAX_PATTERNS = 32
MAX_PATTERN_RUNS = 15
MAX_PAYMENT = 1_000
MAX_DEALS_PER_PLAYER = 16
MAX_TURN_CAP = 10_000


class RulesError(ValueError):
    """A rules object (or a rules override) outside its bounds: a field of the wrong type, a value over its bound,
    or fields that contradict each other; the message names the field, the value and what is allowed."""


@dataclass(frozen=True)
class Bound:
    """What one rules field may hold: ``kind`` (``int``, ``bool``, ``str``, ``int?``: an int or None, ``ints``: a
    sequence of ints, ``pairs``: a sequence of int pairs, ``patterns``: a sequence of int sequences), the range of
    each integer (``low``..``high``) and, for sequences, the range of the number of entries (``count``)."""

    kind: str
    low: int = 0
    high: int = 0
    count: tuple[int, int] = (0, 0)
    inner: tuple[int, int] = (0, 0)

    def text(self) -> str:
        """The allowed values in words, as the rules documents show them."""
        span = f"{self.low:,}..{self.high:,}"
        if self.kind == "bool":
            return "True / False"
        if self.kind == "str":
            return f"a string of {self.low}..{self.high} characters"
        if self.kind == "int?":
            return f"None or {span}"
        if self.kind == "ints":
            return f"{self.count[0]}..{self.count[1]} entries, each {span}"
        if self.kind == "pairs":
            return f"{self.count[0]}..{self.count[1]} pairs, each count {span}"
        if self.kind == "patterns":
            return f"{self.count[0]}..{self.count[1]} patterns of {self.inner[0]}..{self.inner[1]} lengths, each {span}"
        return span


_PLAYERS = Bound("int", 2, MAX_PLAYERS)
_COMMON = {
    "name": Bound("str", 1, MAX_NAME),
    "num_players": _PLAYERS,
    "min_players": _PLAYERS,
    "max_players": _PLAYERS,
    "decks": Bound("int", 1, MAX_DECKS),
    "jokers": Bound("int", 0, MAX_JOKERS),
    "turn_cap": Bound("int", 1, MAX_TURN_CAP),
}
#: the bound of every ``ContractRules`` field that is not a switch (every other field is a bool)
CONTRACT_BOUNDS: dict[str, Bound] = {
    **_COMMON,
    "hand_sizes": Bound("ints", 1, MAX_HAND_SIZE, count=(1, MAX_ROUNDS)),
    "contracts": Bound("pairs", 0, MAX_CONTRACT_MELDS, count=(1, MAX_ROUNDS)),
    "group_min": Bound("int", 2, MAX_GROUP_MIN),
    "run_min": Bound("int", 2, MAX_RUN),
    "group_max": Bound("int?", 2, MAX_GROUP),
    "buy_penalty_cards": Bound("int", 0, MAX_BUY_PENALTY),
}
#: the bound of every ``ContinentalRules`` field that is not a switch
CONTINENTAL_BOUNDS: dict[str, Bound] = {
    **_COMMON,
    "hand_size": Bound("int", 1, MAX_HAND_SIZE),
    "deal_packet": Bound("int", 1, MAX_HAND_SIZE),
    "patterns": Bound("patterns", 2, MAX_RUN, count=(1, MAX_PATTERNS), inner=(1, MAX_PATTERN_RUNS)),
    "min_run": Bound("int", 2, MAX_RUN),
    "base_payment": Bound("int", 0, MAX_PAYMENT),
    "no_wild_bonus": Bound("int", 0, MAX_PAYMENT),
    "first_turn_bonus": Bound("int", 0, MAX_PAYMENT),
    "no_draw_bonus": Bound("int", 0, MAX_PAYMENT),
    "one_suit_bonus": Bound("int", 0, MAX_PAYMENT),
    "deals_per_player": Bound("int", 1, MAX_DEALS_PER_PLAYER),
}
_BOOL = Bound("bool")


def bound_of(rules_class: type, field: str) -> Bound:
    """The bound of ``field`` of a rules class (a switch: ``bool``)."""
    table = CONTINENTAL_BOUNDS if rules_class.__name__ == "ContinentalRules" else CONTRACT_BOUNDS
    return table.get(field, _BOOL)


def _int(value: Any) -> int | None:
    """``value`` as an ``int`` when it is an integer (not a bool, not a float), else None."""
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def _check(name: str, value: Any, b: Bound) -> tuple[Any, str | None]:
    """(``value`` normalised, None) or (None, the problem) for one field."""
    shown = f"{name}={shorten(value)}"
    if b.kind == "bool":
        return (value, None) if isinstance(value, bool) else (None, f"{shown} (allowed True or False)")
    if b.kind == "str":
        ok = isinstance(value, str) and b.low <= len(value) <= b.high
        return (value, None) if ok else (None, f"{shown} (allowed {b.text()})")
    if b.kind in ("int", "int?"):
        if value is None and b.kind == "int?":
            return None, None
        v = _int(value)
        if v is None or not b.low <= v <= b.high:
            return None, f"{shown} (allowed {b.text()})"
        return v, None
    # sequences: the number of entries first (len is O(1)), then each entry
    if not isinstance(value, (list, tuple)) or not b.count[0] <= len(value) <= b.count[1]:
        return None, f"{shown} (allowed a list or tuple of {b.text()})"
    out = []
    for i, item in enumerate(value):
        if b.kind == "ints":
            v = _int(item)
            if v is None or not b.low <= v <= b.high:
                return None, f"{name}[{i}]={shorten(item)} (allowed {b.text()})"
            out.append(v)
            continue
        lo, hi = (2, 2) if b.kind == "pairs" else b.inner
        if not isinstance(item, (list, tuple)) or not lo <= len(item) <= hi:
            what = "a (groups, runs) pair" if b.kind == "pairs" else f"a list of {lo}..{hi} run lengths"
            return None, f"{name}[{i}]={shorten(item)} (allowed {what})"
        ints = [_int(x) for x in item]
        if any(v is None or not b.low <= v <= b.high for v in ints):
            return None, f"{name}[{i}]={shorten(item)} (allowed {b.text()})"
        out.append(tuple(ints))
    return tuple(out), None


def check_fields(rules: Any, table: dict[str, Bound]) -> None:
    """Check every field of the frozen ``rules`` against ``table`` (fields not in it are switches: bools) and store
    the normalised values (lists as tuples, integer types as ``int``); :class:`RulesError` listing the fields out of
    bounds. Called first by the rules classes' ``__post_init__``, before any other check reads a field."""
    problems = []
    for f in dataclasses.fields(rules):
        value = getattr(rules, f.name)
        fixed, problem = _check(f.name, value, table.get(f.name, _BOOL))
        if problem:
            problems.append(problem)
        elif fixed is not value and (type(fixed) is not type(value) or fixed != value):
            object.__setattr__(rules, f.name, fixed)  # a frozen dataclass: the normalised value, once
    if problems:
        name = rules.name if isinstance(rules.name, str) and len(rules.name) <= MAX_NAME else type(rules).__name__
        raise RulesError(f"bad {name} rules: " + "; ".join(problems))


def check_override_names(rules: Any, overrides: dict[str, Any]) -> None:
    """:class:`RulesError` for override names that are not fields of ``rules`` (the names cut short)."""
    names = {f.name for f in dataclasses.fields(rules)}
    unknown = [k for k in overrides if k not in names]
    if unknown:
        shown = ", ".join(shorten(k, 40) for k in sorted(map(str, unknown))[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        raise RulesError(f"unknown {rules.name} rule field(s) [{shown}{more}]; allowed: {sorted(names)}")


__all__ = [
    "CONTINENTAL_BOUNDS",
    "CONTRACT_BOUNDS",
    "Bound",
    "RulesError",
    "bound_of",
    "check_fields",
    "check_override_names",
]
