"""Pure meld primitives shared by every profile: groups, runs, joker declarations and the contract searches.

Runs live on positions 1..14 (ace low = 1, 2..13, ace high = 14) and never wrap. A run is stored as its suit, its
lowest position and the kind at each position (``JOKER`` where a joker is declared there), so a joker's
declaration is explicit and fixed while it stays; it also records which seat placed each of its jokers (a rule
switch lets only other players' jokers be swapped). A group is stored as its rank and the kinds laid; its jokers are
declared as the group's rank, and in sets of distinct suits (``group_distinct_suits``, document 003) also as one of
the missing suits (``jsuits``, -1 = rank only, A.2-14). Hands are lists of ``NUM_KINDS`` counts, so one physical card is never counted
twice. Every function takes the profile's rules object (``group_min``, ``run_min``, ``group_max``,
``group_distinct_suits``, ``allow_all_joker_melds``, ``forbid_adjacent_same_suit_runs``,
``opening_runs_distinct_suits``) instead of hard-coding a game.
"""

from __future__ import annotations

import re
from itertools import combinations
from typing import Any, NamedTuple, Protocol

from ..core._impl import install  # the same paths from the compiled twin (rummy_env._compiled)
from ..core.cards import (
    JOKER,
    NUM_KINDS,
    NUM_RANKS,
    RANKS,
    SUIT_SYMBOLS,
    SUITS,
    card_str,
    kind_of,
    parse_card,
    parse_rank,
    rank_of,
    suit_of,
)

GROUP = "group"
RUN = "run"
MAX_POS = 14  # ace high
#: True in the typed compiled twin (``rummy_env._compiled.melds``, C types from ``_compiled/melds.pxd``). Three
#: branches on it (``can_make_contract``, ``_groups_ok``, ``final_partition``) take a C-loop form there, which pure
#: Python runs slower than the reference form: each says why; ``tests/engine/test_legal_fast.py`` and the function-level
#: differential of ``tests/core/test_compiled.py`` compare the two forms
_TYPED = __name__.startswith("rummy_env._compiled.")


class MeldRules(Protocol):
    """The rule fields the meld functions read."""

    group_min: int
    run_min: int
    group_max: int | None
    group_distinct_suits: bool
    allow_all_joker_melds: bool
    forbid_adjacent_same_suit_runs: bool
    opening_runs_distinct_suits: bool


def pos_kind(suit: int, pos: int) -> int:
    """Kind of the natural card at run position ``pos`` (1..14) of ``suit``; both 1 and 14 are the ace."""
    return suit * NUM_RANKS + (0 if pos == MAX_POS else pos - 1)


def pos_text(pos: int) -> str:
    """Rank text of a run position (1 and 14 are both ``A``)."""
    return RANKS[0 if pos == MAX_POS else pos - 1]


class Meld:
    """A meld on the table: a group (``rank``) or a run (``suit``, ``low``), with its owner seat.

    ``jsuits`` (groups): the declared suit of each joker, in the order the jokers appear in ``cards``; -1 = declared
    by rank only (profile ``contract``, A.2-14) or not yet declared (a bot's hypothetical meld).
    ``placers`` (runs): run position -> seat that placed the joker standing there (default: the owner).
    """

    __slots__ = ("owner", "kind", "rank", "suit", "low", "cards", "jsuits", "placers")

    def __init__(
        self,
        owner: int,
        kind: str,
        cards: list[int],
        rank: int = 0,
        suit: int = -1,
        low: int = 0,
        jsuits: list[int] | None = None,
        placers: dict[int, int] | None = None,
    ):
        self.owner = owner
        self.kind = kind
        self.cards = cards  # group: kinds as laid; run: kind at positions low..high
        self.rank = rank
        self.suit = suit
        self.low = low
        jokers = cards.count(JOKER)
        if kind == GROUP:
            self.jsuits = list(jsuits) if jsuits is not None else [-1] * jokers
            self.placers: dict[int, int] = {}
        else:
            self.jsuits = []
            if placers is None:
                placers = {low + i: owner for i, k in enumerate(cards) if k == JOKER}
            self.placers = dict(placers)

    @property
    def high(self) -> int:
        """Highest position of a run."""
        return self.low + len(self.cards) - 1

    def copy(self) -> Meld:
        """An independent copy."""
        return Meld(
            self.owner, self.kind, list(self.cards), self.rank, self.suit, self.low, self.jsuits, self.placers
        )

    def card_strings(self) -> list[str]:
        """Cards as strings with joker declarations: ``JK(6D)`` in a run, ``JK(7)`` or ``JK(7H)`` (suit declared) in
        a group."""
        if self.kind == GROUP:
            out = []
            j = 0
            for k in self.cards:
                if k == JOKER:
                    s = self.jsuits[j] if j < len(self.jsuits) else -1
                    j += 1
                    out.append(f"JK({RANKS[self.rank - 1]}{SUITS[s] if s >= 0 else ''})")
                else:
                    out.append(card_str(k))
            return out
        out = []
        for i, k in enumerate(self.cards):
            if k == JOKER:
                out.append(f"JK({pos_text(self.low + i)}{SUITS[self.suit]})")
            else:
                out.append(card_str(k))
        return out

    def joker_placers(self) -> list[int]:
        """Seats that placed the jokers of a run, in card order (empty for a group)."""
        if self.kind != RUN:
            return []
        return [self.placers.get(self.low + i, self.owner) for i, k in enumerate(self.cards) if k == JOKER]

    def to_json(self) -> dict[str, Any]:
        """The scenario-format dict of this meld (``placed_by`` only when another seat placed one of its jokers)."""
        out: dict[str, Any] = {"owner": self.owner, "kind": self.kind, "cards": self.card_strings()}
        placers = self.joker_placers()
        if any(p != self.owner for p in placers):
            out["placed_by"] = placers
        return out

    def describe(self, symbols: bool = True) -> str:
        """Readable form, e.g. ``run 5♥–8♥`` or ``group 7♣ 7♦ JK``."""
        if self.kind == GROUP:
            return "group " + " ".join("JK" if k == JOKER else card_str(k, symbols) for k in self.cards)
        s = SUIT_SYMBOLS[self.suit] if symbols else SUITS[self.suit]
        return f"run {pos_text(self.low)}{s}–{pos_text(self.high)}{s}"

    def jokers(self) -> int:
        """Number of jokers in the meld."""
        return self.cards.count(JOKER)

    def suits_taken(self) -> set[int]:
        """Suits a group already holds: its naturals' suits and its jokers' declared suits."""
        out = {k // NUM_RANKS for k in self.cards if k != JOKER}  # ``suit_of(k)``
        out.update(s for s in self.jsuits if s >= 0)
        return out

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Meld) and (
            self.owner,
            self.kind,
            self.cards,
            self.rank,
            self.suit,
            self.low,
            self.jsuits,
            self.placers,
        ) == (other.owner, other.kind, other.cards, other.rank, other.suit, other.low, other.jsuits, other.placers)

    def __repr__(self) -> str:
        return f"Meld(owner={self.owner}, {self.kind}, {self.card_strings()})"


# --------------------------------------------------------------------------------------------------------------
# Validity of single melds
# --------------------------------------------------------------------------------------------------------------


def group_problem(rank: int, cards: list[int], rules: MeldRules, jsuits: list[int] | None = None) -> str | None:
    """Why a group of ``rank`` made of ``cards`` (jokers declared as ``jsuits``, -1 = rank only) is illegal, or
    None if it is legal."""
    if not 1 <= rank <= NUM_RANKS:
        return f"group rank {rank} out of range"
    if len(cards) < rules.group_min:
        return f"a group needs at least {rules.group_min} cards, got {len(cards)}"
    if rules.group_max is not None and len(cards) > rules.group_max:
        return f"a group holds at most {rules.group_max} cards, got {len(cards)}"
    naturals = [k for k in cards if k != JOKER]
    for k in naturals:
        if rank_of(k) != rank:
            return f"{card_str(k)} does not belong in a group of {RANKS[rank - 1]}s"
    if not naturals and not rules.allow_all_joker_melds:
        return "a meld needs at least one natural card"
    if rules.group_distinct_suits:
        suits = [suit_of(k) for k in naturals]
        if len(set(suits)) != len(suits):
            return "the suits in a set must all differ"
        if len(cards) > 4:
            return "a set of distinct suits holds at most 4 cards"
    if jsuits:
        if len(jsuits) != cards.count(JOKER):
            return f"{len(jsuits)} joker declarations for {cards.count(JOKER)} jokers"
        declared = [x for x in jsuits if x >= 0]
        if declared and not rules.group_distinct_suits:
            return "a joker in a group is declared by rank only in this profile (A.2-14), e.g. JK(7)"
        if any(not 0 <= x < 4 for x in declared):
            return f"joker suits {jsuits} out of range 0..3"
        naturals_suits = [suit_of(k) for k in naturals]
        if len(set(declared)) != len(declared) or set(declared) & set(naturals_suits):
            return "a joker in a set must declare a suit that no other card of the set has"
    return None


def run_problem(suit: int, low: int, cards: list[int], rules: MeldRules) -> str | None:
    """Why a run of ``suit`` from position ``low`` with ``cards`` is illegal, or None if it is legal."""
    if not 0 <= suit < 4:
        return f"run suit {suit} out of range"
    if len(cards) < rules.run_min:
        return f"a run needs at least {rules.run_min} cards, got {len(cards)}"
    if low < 1 or low + len(cards) - 1 > MAX_POS:
        return "a run must stay within positions A(1)..A(14) and cannot wrap around the ace"
    naturals = 0
    for i, k in enumerate(cards):
        if k == JOKER:
            continue
        naturals += 1
        if k != pos_kind(suit, low + i):
            return f"{card_str(k)} cannot stand at position {pos_text(low + i)}{SUITS[suit]} of this run"
    if not naturals and not rules.allow_all_joker_melds:
        return "a meld needs at least one natural card"
    return None


def meld_problem(meld: Meld, rules: MeldRules) -> str | None:
    """Why a table meld is illegal, or None."""
    if meld.kind == GROUP:
        return group_problem(meld.rank, meld.cards, rules, meld.jsuits)
    if meld.kind == RUN:
        return run_problem(meld.suit, meld.low, meld.cards, rules)
    return f"unknown meld kind {meld.kind!r} (allowed: 'group', 'run')"


_JOKER_DECL = re.compile(r"^JK\((.+)\)$", re.IGNORECASE)


def _group_declaration(d: str, texts: list[str]) -> tuple[int, int]:
    """(rank, suit or -1) of a group joker's declaration ``7`` or ``7H``."""
    try:
        return parse_rank(d), -1
    except ValueError:
        pass
    try:
        card = parse_card(d)
    except ValueError:
        card = JOKER
    if card == JOKER:
        raise ValueError(f"group {texts!r}: joker declaration JK({d}) is neither a rank (JK(7)) nor a card (JK(7H))")
    return rank_of(card), suit_of(card)


def parse_meld(
    owner: int,
    kind: str,
    texts: list[str],
    rules: MeldRules,
    placed_by: list[int] | None = None,
    num_players: int | None = None,
) -> Meld:
    """Build a table meld from scenario strings (``["5D", "JK(6D)", "7D", "8D"]``); ``ValueError`` if invalid.

    A joker in a group is ``JK(7)`` (rank only) or, in sets of distinct suits, ``JK(7H)`` (rank and the suit it
    stands for). ``JK(7)`` in such a set (an older dump) takes the first suit, in the order C D H S, that no other
    card of the set has or declares. ``placed_by`` (runs): the seat that placed each joker, in card order (default:
    the owner); ``num_players`` bounds those seats.
    """
    if kind not in (GROUP, RUN):
        raise ValueError(f"unknown meld kind {kind!r} (allowed: 'group', 'run')")
    if not isinstance(texts, list) or not texts:
        raise ValueError(f"a meld needs a non-empty list of cards, got {texts!r}")
    kinds, decl = _meld_texts(texts)
    meld = _parse_group(owner, texts, kinds, decl, rules) if kind == GROUP else _parse_run(owner, texts, kinds, decl)
    if placed_by is not None:
        meld.placers = _joker_placers(meld, texts, placed_by, num_players)
    problem = meld_problem(meld, rules)
    if problem:
        raise ValueError(f"{kind} {texts!r} is not a valid meld: {problem}")
    return meld


def _meld_texts(texts: list[str]) -> tuple[list[int], list[str | None]]:
    """The kinds of a meld's card strings and each joker's declaration text (None for a natural or a bare joker)."""
    kinds: list[int] = []
    decl: list[str | None] = []
    for t in texts:
        m = _JOKER_DECL.match(t.strip()) if isinstance(t, str) else None
        if m:
            kinds.append(JOKER)
            decl.append(m.group(1).strip().upper())
        else:
            kinds.append(parse_card(t))
            decl.append(None)
    return kinds, decl


def _parse_group(owner: int, texts: list[str], kinds: list[int], decl: list[str | None], rules: MeldRules) -> Meld:
    """The group of ``parse_meld``: one rank for cards and declarations; undeclared joker suits filled in."""
    ranks = {rank_of(k) for k in kinds if k != JOKER}
    jsuits: list[int] = []
    for d in decl:
        if d is None:
            continue
        r, suit = _group_declaration(d, texts)
        if suit >= 0 and not rules.group_distinct_suits:
            raise ValueError(
                f"group {texts!r}: in this profile a joker in a group is declared by rank only (A.2-14), "
                f"e.g. JK({RANKS[r - 1]})"
            )
        ranks.add(r)
        jsuits.append(suit)
    if len(ranks) != 1:
        raise ValueError(f"group {texts!r}: cards and joker declarations must share one rank")
    if rules.group_distinct_suits:
        taken = {suit_of(k) for k in kinds if k != JOKER} | {x for x in jsuits if x >= 0}
        for i, x in enumerate(jsuits):
            if x < 0:
                free = [s for s in range(4) if s not in taken]
                if not free:
                    raise ValueError(f"group {texts!r}: no suit is left for the joker to stand for")
                jsuits[i] = free[0]
                taken.add(free[0])
    return Meld(owner, GROUP, kinds, rank=ranks.pop(), jsuits=jsuits)


def _parse_run(owner: int, texts: list[str], kinds: list[int], decl: list[str | None]) -> Meld:
    """The run of ``parse_meld``: the one suit and lowest position every card and declaration agrees on."""
    suits = set()
    lows: set[int] | None = None
    for i, (k, d) in enumerate(zip(kinds, decl)):
        if k == JOKER and d is None:
            continue
        card = k if k != JOKER else parse_card(d)  # type: ignore[arg-type]
        if card == JOKER:
            raise ValueError(f"run {texts!r}: a joker must be declared as a natural card, e.g. JK(6D)")
        suits.add(suit_of(card))
        rank = rank_of(card)
        cand = {1 - i, 14 - i} if rank == 1 else {rank - i}
        lows = cand if lows is None else lows & cand
    if len(suits) != 1 or not lows:
        raise ValueError(f"run {texts!r}: cards are not consecutive positions of one suit")
    return Meld(owner, RUN, kinds, suit=suits.pop(), low=min(lows))


def _joker_placers(meld: Meld, texts: list[str], placed_by: Any, num_players: int | None) -> dict[int, int]:
    """``placed_by`` of a scenario run checked (one seat per joker, in card order) as position -> seat."""
    kind = meld.kind
    positions = [meld.low + i for i, k in enumerate(meld.cards) if k == JOKER] if kind == RUN else []
    top = num_players if num_players is not None else 1 << 30
    if (
        kind != RUN
        or not isinstance(placed_by, list)
        or len(placed_by) != len(positions)
        or any(not isinstance(x, int) or isinstance(x, bool) or not 0 <= x < top for x in placed_by)
    ):
        raise ValueError(
            f"{kind} {texts!r}: 'placed_by' {placed_by!r} must list, for a run, one seat per joker in card order"
        )
    return dict(zip(positions, placed_by))


# --------------------------------------------------------------------------------------------------------------
# Lay-offs onto table melds
# --------------------------------------------------------------------------------------------------------------


def layoff_fits(meld: Meld, kind: int, end: int, rules: MeldRules) -> bool:
    """Can card ``kind`` be laid off on ``meld``? ``end`` is 0 (group / low end of a run) or 1 (high end)."""
    if meld.kind == GROUP:
        if end != 0:
            return False
        if rules.group_max is not None and len(meld.cards) >= rules.group_max:
            return False
        if kind == JOKER:
            if rules.group_distinct_suits:
                return len(meld.cards) < 4
            return True
        if kind % NUM_RANKS + 1 != meld.rank:  # ``rank_of(kind)``
            return False
        if rules.group_distinct_suits:
            # B.1-3: the suit must be missing from the set, a joker's declared suit included (003: the player names
            # the joker's suit and rank); an undeclared joker still needs room for a missing suit
            if kind // NUM_RANKS in meld.suits_taken():  # ``suit_of(kind)``
                return False
            return len(meld.cards) < 4
        return True
    pos = meld.low - 1 if end == 0 else meld.low + len(meld.cards)
    if pos < 1 or pos > MAX_POS:
        return False
    # ``pos_kind(meld.suit, pos)`` inlined (asked for every lay-off option at every act decision)
    return kind == JOKER or kind == meld.suit * NUM_RANKS + (0 if pos == MAX_POS else pos - 1)


def set_joker_suit(meld: Meld, rules: MeldRules | None) -> int:
    """The suit a joker laid off on group ``meld`` stands for: in a set of distinct suits the first missing suit in
    the order C D H S (a set on the table holds at least 3 cards, so with the profiles' sizes it is the only one);
    -1 (rank only) otherwise."""
    if rules is None or not rules.group_distinct_suits:
        return -1
    taken = meld.suits_taken()
    return next((s for s in range(4) if s not in taken), -1)


def lay_off(meld: Meld, kind: int, end: int, rules: MeldRules | None = None, placer: int = -1) -> None:
    """Add ``kind`` to ``meld`` at ``end`` (caller checked ``layoff_fits``).

    A joker on a group gets its suit from ``set_joker_suit`` (``rules`` None: undeclared); a joker on a run is
    recorded as placed by ``placer`` (-1: the owner).
    """
    if meld.kind == GROUP:
        if kind == JOKER:
            meld.jsuits.append(set_joker_suit(meld, rules))
        meld.cards.append(kind)
        return
    if end == 0:
        meld.cards.insert(0, kind)
        meld.low -= 1
        pos = meld.low
    else:
        meld.cards.append(kind)
        pos = meld.high
    if kind == JOKER:
        meld.placers[pos] = placer if placer >= 0 else meld.owner


def joker_place_fits(meld: Meld, end: int, rules: MeldRules) -> bool:
    """Can a freed joker be placed on ``meld`` at ``end``?"""
    return layoff_fits(meld, JOKER, end, rules)


# --------------------------------------------------------------------------------------------------------------
# Catalog of exact-minimum opening melds
# --------------------------------------------------------------------------------------------------------------


class GroupSpec(NamedTuple):
    """An exact-minimum group of the opening catalog: rank, suits of its naturals (sorted), jokers, and in sets of
    distinct suits the suits the jokers stand for (sorted; empty: declared by rank only)."""

    rank: int
    suits: tuple[int, ...]
    jokers: int
    joker_suits: tuple[int, ...] = ()


class RunSpec(NamedTuple):
    """An exact-minimum run of the opening catalog: suit, lowest position, bit mask of joker positions."""

    suit: int
    low: int
    joker_mask: int


def _suit_multisets(size: int, max_copies: int, distinct: bool) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = []

    def rec(start: int, cur: list[int]) -> None:
        if len(cur) == size:
            out.append(tuple(cur))
            return
        for s in range(start, 4):
            if cur.count(s) < (1 if distinct else max_copies):
                cur.append(s)
                rec(s, cur)
                cur.pop()

    rec(0, [])
    return out


def group_catalog(rules: MeldRules, decks: int, jokers: int, joker_suits: bool | None = None) -> list[GroupSpec]:
    """Every exact-minimum group the shoe allows: rank x natural suits x number of jokers, and x the suits the
    jokers stand for when ``joker_suits`` (default: sets of distinct suits, B.1-3; ``False`` gives the rank-only
    catalog, in the same order with one entry per (rank, suits, jokers))."""
    if joker_suits is None:
        joker_suits = rules.group_distinct_suits
    size = rules.group_min
    out = []
    for rank in range(1, NUM_RANKS + 1):
        for j in range(0, min(size, jokers) + 1):
            if j == size and not rules.allow_all_joker_melds:
                continue
            for suits in _suit_multisets(size - j, decks, rules.group_distinct_suits):
                if joker_suits and j:
                    free = [s for s in range(4) if s not in suits]
                    for js in combinations(free, j):
                        out.append(GroupSpec(rank, suits, j, js))
                else:
                    out.append(GroupSpec(rank, suits, j))
    return out


def run_catalog(rules: MeldRules, jokers: int) -> list[RunSpec]:
    """Every exact-minimum run: suit x lowest position x joker positions (at most ``jokers`` of them)."""
    size = rules.run_min
    out = []
    for suit in range(4):
        for low in range(1, MAX_POS - size + 2):
            for mask in range(1 << size):
                nj = bin(mask).count("1")
                if nj > jokers or (nj == size and not rules.allow_all_joker_melds):
                    continue
                out.append(RunSpec(suit, low, mask))
    return out


def group_spec_cards(spec: GroupSpec) -> list[int]:
    """Kinds of a catalog group, naturals first then jokers."""
    return [kind_of(s, spec.rank) for s in spec.suits] + [JOKER] * spec.jokers


def group_spec_meld(spec: GroupSpec, owner: int) -> Meld:
    """The table meld of a catalog group (jokers declared by the spec's suits, else by rank only)."""
    jsuits = list(spec.joker_suits) if spec.joker_suits else [-1] * spec.jokers
    return Meld(owner, GROUP, group_spec_cards(spec), rank=spec.rank, jsuits=jsuits)


def run_spec_cards(spec: RunSpec, size: int) -> list[int]:
    """Kinds of a catalog run at positions low..low+size-1."""
    return [JOKER if spec.joker_mask >> i & 1 else pos_kind(spec.suit, spec.low + i) for i in range(size)]


# --------------------------------------------------------------------------------------------------------------
# Searches
# --------------------------------------------------------------------------------------------------------------


def runs_adjacent(suit_a: int, low_a: int, high_a: int, suit_b: int, low_b: int, high_b: int) -> bool:
    """Two same-suit runs touch end to end (b starts right after a ends, or the reverse): A.1-7."""
    return suit_a == suit_b and (low_b == high_a + 1 or low_a == high_b + 1)


def run_conflicts(
    suit: int, low: int, high: int, chosen: list[tuple[int, int, int]] | tuple[tuple[int, int, int], ...],
    rules: MeldRules,
) -> bool:
    """May a run (``suit``, ``low``..``high``) not join the runs ``chosen`` (suit, low, high) of the same opening?
    ``opening_runs_distinct_suits``: no second run of a suit; ``forbid_adjacent_same_suit_runs`` (A.1-7): no run
    touching a same-suit one end to end. The one check of both rules (openings, contract searches, final round)."""
    for s, lo, hi in chosen:
        if s != suit:
            continue
        if rules.opening_runs_distinct_suits:
            return True
        if rules.forbid_adjacent_same_suit_runs and runs_adjacent(suit, low, high, s, lo, hi):
            return True
    return False


# The searches below are the engines' hot loops: they index kinds inline (``counts[r + 13]``, ``suit * NUM_RANKS +
# offset``: a suit's base offset, not a card) instead of calling ``kind_of`` / ``pos_kind`` per position, which
# measurably slows them.


#: ``_rank_costs`` by its arguments (a few hundred keys at most: copies per suit are bounded by the decks)
_RANK_COSTS: dict[tuple[int, ...], list[int]] = {}


def _rank_costs(c0: int, c1: int, c2: int, c3: int, g: int, size: int, allow_jokers_only: bool) -> list[int]:
    """Distinct-suit groups of one rank holding c0..c3 naturals per suit: the jokers that m = 1, 2, .. groups
    need (cut where a group would hold no natural, unless all-joker groups are allowed)."""
    costs = []
    for m in range(1, g + 1):
        avail = min(c0, m) + min(c1, m) + min(c2, m) + min(c3, m)
        if avail < m and not allow_jokers_only:
            break  # every group needs a natural
        costs.append(size * m - min(size * m, avail))
    return costs


def _groups_possible(counts: list[int], jokers: int, g: int, rules: MeldRules) -> bool:
    """Can ``g`` groups of minimum size be made from ``counts`` (naturals) plus ``jokers`` jokers?"""
    if g == 0:
        return True
    c = list(counts)
    return _groups_ok(c, jokers, g, rules.group_min, rules.group_distinct_suits, rules.allow_all_joker_melds)


def _groups_ok(c: list[int], jokers: int, g: int, size: int, distinct: bool, allow_jokers_only: bool) -> bool:
    """``_groups_possible`` on the counts ``c`` (a list here; a C array in the typed twin, ``_compiled/melds.pxd``),
    the rule fields read once by the caller."""
    if g == 0:
        return True
    if not distinct:
        free = 0
        partial: list[int] = []
        for r in range(NUM_RANKS):
            n0 = c[r]
            n1 = c[r + 13]
            n2 = c[r + 26]
            n3 = c[r + 39]
            n = n0 + n1 + n2 + n3
            free += n // size
            if n % size:
                partial.append(size - n % size)
        if free >= g:
            return True
        need = g - free
        partial.sort()
        for cost in partial:
            if jokers < cost:
                return False
            jokers -= cost
            need -= 1
            if need == 0:
                return True
        if not allow_jokers_only:
            return False
        return jokers >= need * size
    # distinct suits: for m groups of one rank, naturals usable = min(size*m, sum_s min(c_s, m)); a small DP over
    # the ranks that hold naturals finds the fewest jokers for g groups, all-joker groups (if allowed) cost `size`
    inf = 1 << 30
    if _TYPED and g < 16:
        # the price of the speed: in C the DP on C arrays beats the cached costs below (a dict look-up and a list
        # per rank), which pure Python runs faster;
        # tests/engine/test_legal_fast.py::test_the_c_array_group_dp_is_the_cached_dp
        return _groups_dp_c(c, jokers, g, size, allow_jokers_only)
    best = [0] + [inf] * g
    for r in range(NUM_RANKS):
        c0 = c[r]
        c1 = c[r + 13]
        c2 = c[r + 26]
        c3 = c[r + 39]
        if not (c0 or c1 or c2 or c3):
            continue
        key = (c0, c1, c2, c3, g, size, allow_jokers_only)
        costs = _RANK_COSTS.get(key)
        if costs is None:
            costs = _RANK_COSTS[key] = _rank_costs(c0, c1, c2, c3, g, size, allow_jokers_only)
        new = list(best)
        ncost = len(costs)
        for k in range(g):
            bk = best[k]
            if bk >= inf:
                continue
            for m in range(1, min(g - k, ncost) + 1):
                v = bk + costs[m - 1]
                if v < new[k + m]:
                    new[k + m] = v
        best = new
        if best[g] <= jokers:
            return True  # the ranks still to come can only lower the jokers needed
    result = best[g]
    if allow_jokers_only:
        for k in range(g):
            if best[k] < inf:
                result = min(result, best[k] + size * (g - k))
    return result <= jokers


def _groups_dp_c(c: list[int], jokers: int, g: int, size: int, allow_jokers_only: bool) -> bool:
    """The distinct-suit DP of ``_groups_ok`` in the typed twin (``g`` < 16): the same recurrence on C arrays, each
    rank's costs computed inline as ``_rank_costs`` computes them (no cache). Not called by the pure-Python
    reference, which caches the costs; the two are compared by ``tests/engine/test_legal_fast.py``."""
    inf = 1 << 30
    bestc = [0] * 16  # C arrays in the typed twin
    newc = [0] * 16
    costc = [0] * 16
    for k in range(1, g + 1):
        bestc[k] = inf
    for r in range(NUM_RANKS):
        c0 = c[r]
        c1 = c[r + 13]
        c2 = c[r + 26]
        c3 = c[r + 39]
        if not (c0 or c1 or c2 or c3):
            continue
        ncost = 0
        for m in range(1, g + 1):
            avail = min(c0, m) + min(c1, m) + min(c2, m) + min(c3, m)
            if avail < m and not allow_jokers_only:
                break  # every group needs a natural
            costc[ncost] = size * m - min(size * m, avail)
            ncost += 1
        for k in range(g + 1):
            newc[k] = bestc[k]
        for k in range(g):
            bk = bestc[k]
            if bk >= inf:
                continue
            for m in range(1, min(g - k, ncost) + 1):
                v = bk + costc[m - 1]
                if v < newc[k + m]:
                    newc[k + m] = v
        for k in range(g + 1):
            bestc[k] = newc[k]
        if bestc[g] <= jokers:
            return True  # the ranks still to come can only lower the jokers needed
    result = bestc[g]
    if allow_jokers_only:
        for k in range(g):
            if bestc[k] < inf:
                result = min(result, bestc[k] + size * (g - k))
    return result <= jokers


#: ``bytes.translate`` table: a count to the digit "0" (none) or "1" (some)
_HELD_DIGIT = bytes([48] + [49] * 255)


def run_presence(c: list[int]) -> list[int]:
    """Per suit, bit q set when the hand holds the natural at run position q + 1 (the ace at both 1 and 14)."""
    # one binary numeral of the 52 naturals, highest kind first: bit k = kind k held (13 bits per suit)
    m = int(bytes(c[51::-1]).translate(_HELD_DIGIT), 2)
    s0, s1, s2, s3 = m & 0x1FFF, m >> 13 & 0x1FFF, m >> 26 & 0x1FFF, m >> 39
    return [s0 | (s0 & 1) << 13, s1 | (s1 & 1) << 13, s2 | (s2 & 1) << 13, s3 | (s3 & 1) << 13]


#: per minimum run length: (suit, lowest position - 1, the kinds at its positions, presence bits cleared when each
#: kind's last copy leaves the hand) of every window, in the search order of ``can_make_contract``
_WINDOWS: dict[int, list[tuple[int, int, tuple[int, ...], tuple[int, ...]]]] = {}


def _windows(size_r: int) -> list[tuple[int, int, tuple[int, ...], tuple[int, ...]]]:
    wins = _WINDOWS.get(size_r)
    if wins is None:
        wins = []
        for suit in range(4):
            base = suit * NUM_RANKS
            for low0 in range(MAX_POS - size_r + 1):
                kinds = tuple(base + (0 if p == MAX_POS else p - 1) for p in range(low0 + 1, low0 + size_r + 1))
                bits = tuple(1 | (1 << 13) if k == base else 1 << (k - base) for k in kinds)
                wins.append((suit, low0, kinds, bits))
        _WINDOWS[size_r] = wins
    return wins


#: ``_window_candidates`` per (run length, all-joker runs allowed), keyed by presence bits and jokers
_WINDOW_CANDIDATES: dict[tuple[int, bool], dict[Any, tuple[tuple[int, int], ...]]] = {}


def _window_candidates(pres: int, jokers: int, size_r: int, nwin: int, all_jokers: bool) -> tuple[tuple[int, int], ...]:
    """The windows (lowest position - 1, jokers needed) of one suit that a hand with presence bits ``pres`` and
    ``jokers`` jokers can fill as a minimum run, lowest first."""
    window = (1 << size_r) - 1
    out = []
    for low0 in range(nwin):
        need = size_r - ((pres >> low0) & window).bit_count()
        if need > jokers or (need == size_r and not all_jokers):
            continue
        out.append((low0, need))
    return tuple(out)


def can_make_contract(
    counts: list[int],
    groups: int,
    runs: int,
    rules: MeldRules,
    declared_runs: tuple[tuple[int, int, int], ...] = (),
) -> bool:
    """Exact: can ``groups`` minimum groups and ``runs`` minimum runs be made from disjoint cards of ``counts``?

    ``declared_runs`` are (suit, low, high) runs already laid in the same opening: new runs must respect the
    adjacency / distinct-suit rules against them. Runs take naturals wherever the hand has them: a joker can
    stand in for any natural elsewhere, so this loses no solution.
    """
    c = list(counts)  # the typed twin copies the counts into a C array (``_compiled/melds.pxd``)
    presence = [0, 0, 0, 0]  # a C array in the typed twin
    if _TYPED:
        # the price of the speed: the card count and the presence bits by C loops over the C array (the built-ins
        # below would first copy it back into lists: the call 2.5 times slower in the twin, measured); the typed
        # search's test, tests/engine/test_legal_fast.py::test_the_typed_contract_search_answers_as_the_reference
        total = 0
        for k in range(NUM_KINDS):
            total += c[k]
        if runs:
            presence_from(c, presence)
    else:
        total = sum(c)
        if runs:
            presence = run_presence(c)
    return contract_search(c, total, presence, groups, runs, rules, declared_runs)


def contract_search(
    c: list[int],
    total: int,
    presence: list[int],
    groups: int,
    runs: int,
    rules: MeldRules,
    declared_runs: tuple[tuple[int, int, int], ...] = (),
) -> bool:
    """``can_make_contract`` on the counts ``c`` (``total`` cards; ``presence``: their ``run_presence``, read only
    when ``runs`` > 0), which the search changes and restores, with ``presence``.

    A list and Python ints here; in the typed twin C arrays (``long*``), where other twins call it directly: the
    contract_opening twin cimports it (``_compiled/contract_opening.pxd``) and passes the hand it holds in a C
    array, with no Python call and no copy per test."""
    size_g, size_r = rules.group_min, rules.run_min
    if total < groups * size_g + runs * size_r:
        return False
    jokers = c[JOKER]
    distinct = rules.group_distinct_suits
    all_jokers = rules.allow_all_joker_melds
    if runs == 0:
        return _groups_ok(c, jokers, groups, size_g, distinct, all_jokers)
    # presence bits are kept up to date as the search takes naturals out of ``c`` (and puts them back)
    nwin = MAX_POS - size_r + 1  # windows (lowest positions) per suit
    key = (size_r, all_jokers)
    cands = _WINDOW_CANDIDATES.get(key)  # (no empty dict made per call, as ``setdefault(key, {})`` would)
    if cands is None:
        cands = _WINDOW_CANDIDATES[key] = {}
    return _runs_search(
        c, presence, list(declared_runs), _windows(size_r), cands, rules, groups, size_g, size_r, distinct, all_jokers,
        nwin, runs, 0, jokers,
    )


def presence_from(c: list[int], presence: list[int]) -> None:
    """``presence[s] = run_presence(c)[s]`` for the four suits, in loops (a C function on ``long*`` in the typed
    twin, which the contract_opening twin cimports; ``tests/engine/test_legal_fast.py`` compares it with
    ``run_presence``)."""
    for s in range(4):
        base = s * NUM_RANKS
        bits = 0
        for i in range(NUM_RANKS):
            if c[base + i]:
                bits |= 1 << i
        presence[s] = bits | (bits & 1) << 13


def _runs_search(
    c: list[int],
    presence: list[int],
    chosen: list[tuple[int, int, int]],
    wins: list[tuple[int, int, tuple[int, ...], tuple[int, ...]]],
    cands: dict[Any, tuple[tuple[int, int], ...]],
    rules: MeldRules,
    groups: int,
    size_g: int,
    size_r: int,
    distinct: bool,
    all_jokers: bool,
    nwin: int,
    r_left: int,
    start: int,
    jokers: int,
) -> bool:
    """``can_make_contract``'s search: ``r_left`` more runs from window index ``start`` on (the windows before it
    were tried by the callers), then the ``groups`` from what is left; ``c`` and ``presence`` are changed during the
    search and restored."""
    if r_left == 0:
        return _groups_ok(c, jokers, groups, size_g, distinct, all_jokers)
    if groups and not _groups_ok(c, jokers, groups, size_g, distinct, all_jokers):
        return False  # the groups are short before the runs take any card (fewer cards never make more groups)
    span = size_r - 1
    s0 = start // nwin
    for suit in range(s0, 4):
        pres = presence[suit]
        if jokers < 64:
            key = pres << 6 | jokers
        else:
            key = (pres, jokers)
        cl = cands.get(key)
        if cl is None:
            cl = cands[key] = _window_candidates(pres, jokers, size_r, nwin, all_jokers)
        first = start - suit * nwin  # windows before ``start`` were tried by the callers
        for low0, need in cl:
            if low0 < first:
                continue
            if chosen and run_conflicts(suit, low0 + 1, low0 + 1 + span, chosen, rules):
                continue
            idx = suit * nwin + low0
            win = wins[idx]
            kinds = win[2]
            bits = win[3]
            used = []
            for i in range(size_r):
                k = kinds[i]
                if c[k]:
                    c[k] -= 1
                    used.append(k)
                    if not c[k]:
                        presence[suit] &= ~bits[i]
            chosen.append((suit, low0 + 1, low0 + 1 + span))
            ok = _runs_search(
                c, presence, chosen, wins, cands, rules, groups, size_g, size_r, distinct, all_jokers, nwin, r_left - 1,
                idx, jokers - need,
            )
            chosen.pop()
            for k in used:
                c[k] += 1
            presence[suit] = pres
            if ok:
                return True
    return False


def _joker_runs(
    runs_left: int, jokers: int, chosen: list[tuple[int, int, int]], result: list[tuple[int, int, list[int]]],
    rules: MeldRules,
) -> bool:
    """``final_partition`` once only jokers are left: ``runs_left`` all-joker runs (if allowed) on free places,
    appended to ``chosen`` / ``result``; the last run takes the jokers to spare."""
    if runs_left == 0:
        return jokers == 0
    if not rules.allow_all_joker_melds:
        return False
    # jokers-only runs can take any free suit/position; enough jokers is all that matters
    if jokers < runs_left * rules.run_min:
        return False
    for i in range(runs_left):
        take = rules.run_min if i < runs_left - 1 else jokers - rules.run_min * (runs_left - 1)
        for suit in range(4):
            for low in range(1, MAX_POS - take + 2):
                if not run_conflicts(suit, low, low + take - 1, chosen, rules):
                    chosen.append((suit, low, low + take - 1))
                    result.append((suit, low, [JOKER] * take))
                    break
            else:
                continue
            break
        else:
            return False
    return True


def _take_run(c: list[int], base: int, low: int, high: int) -> list[int]:
    """Take the naturals of positions ``low..high`` of the suit at ``base`` out of ``c``; jokers fill the gaps."""
    cards = []
    for q in range(low, high + 1):
        kk = base + (0 if q == MAX_POS else q - 1)
        if c[kk]:
            c[kk] -= 1
            cards.append(kk)
        else:
            cards.append(JOKER)
    return cards


def _partition_refused(counts: list[int], n_runs: int, run_min: int) -> bool:
    """``final_partition``'s first two refusals: fewer cards than ``n_runs`` minimum runs, or a hand that needs more
    runs than ``n_runs`` (per suit with naturals: the copies of its most repeated rank 2..K, half its aces rounded
    up, at least 1). The typed twin's C-loop form (the counts copied into a C array), asked before the search; in
    random play 97 % of the hands asked are refused here. ``tests/engine/test_legal_fast.py`` runs it as Python against
    ``final_partition``."""
    c = counts  # a C array in the typed twin (``_compiled/melds.pxd``)
    return partition_refused(c, n_runs, run_min)


def partition_refused(c: list[int], n_runs: int, run_min: int) -> bool:
    """``_partition_refused`` on counts the caller holds: a C function on ``long*`` in the typed twin, which the
    contract_opening twin cimports (``final_layout`` asks it for each card it could discard)."""
    total = 0
    for k in range(NUM_KINDS):
        total += c[k]
    if total < n_runs * run_min:
        return True
    least = 0
    for s in range(4):
        base = s * NUM_RANKS
        most = 0
        for q in range(base + 1, base + NUM_RANKS):
            if c[q] > most:
                most = c[q]
        aces = c[base]
        if most or aces:
            half = (aces + 1) // 2
            least += max(most, half, 1)
    return least > n_runs


def final_partition(counts: list[int], n_runs: int, rules: MeldRules) -> list[tuple[int, int, list[int]]] | None:
    """Split the whole hand into exactly ``n_runs`` runs (each >= ``run_min``); None if impossible.

    Returns (suit, low, kinds at positions) per run. Same-suit runs obey the profile's adjacency /
    distinct-suit rules. Naturals are placed greedily (a joker can swap with any natural), the lowest
    uncovered natural first, so the search is exact.
    """
    if _TYPED and _partition_refused(counts, n_runs, rules.run_min):
        # the price of the speed: most hands asked fail the two first refusals below, which the twin tests in C
        # loops on a C array before any list is made; pure Python tests them faster by the built-ins below.
        # tests/engine/test_legal_fast.py::test_the_c_loop_partition_bound_refuses_only_what_final_partition_refuses
        return None
    c = list(counts)
    total = sum(c)
    if total < n_runs * rules.run_min:
        return None
    # a run is one suit and holds each position once (the ace twice only from 1 to 14): a suit needs a run per copy
    # of its most repeated natural, so a hand needing more runs than ``n_runs`` has no partition
    least = 0
    for base in (0, 13, 26, 39):
        most = max(c[base + 1 : base + 13])
        aces = c[base]
        if most or aces:
            least += max(most, (aces + 1) // 2, 1)
    if least > n_runs:
        return None
    chosen: list[tuple[int, int, int]] = []
    result: list[tuple[int, int, list[int]]] = []

    def rec(runs_left: int, jokers: int) -> bool:
        for k in range(52):  # the lowest uncovered natural
            if c[k]:
                break
        else:
            return _joker_runs(runs_left, jokers, chosen, result, rules)
        if runs_left == 0:
            return False
        suit, rank = divmod(k, NUM_RANKS)
        positions = (1, MAX_POS) if rank == 0 else (rank + 1,)
        base = suit * NUM_RANKS
        # missing[q]: position q of this suit holds no natural (a joker must stand there); fixed while this node
        # tries its runs (each try restores ``c``)
        missing = [0] + [0 if c[base + (0 if q == MAX_POS else q - 1)] else 1 for q in range(1, MAX_POS + 1)]
        for p in positions:
            for low in range(max(1, p - MAX_POS + 1), p + 1):
                h0 = max(p, low + rules.run_min - 1)
                need = sum(missing[low:h0])
                for high in range(h0, MAX_POS + 1):
                    need += missing[high]
                    # the positions below p in this run must be jokers or naturals (all naturals there
                    # are already covered since k is the lowest uncovered natural, except same-kind copies)
                    if need > jokers:
                        break  # longer runs only need more jokers
                    if run_conflicts(suit, low, high, chosen, rules):
                        continue
                    cards = _take_run(c, base, low, high)
                    chosen.append((suit, low, high))
                    result.append((suit, low, cards))
                    if rec(runs_left - 1, jokers - need):
                        return True
                    result.pop()
                    chosen.pop()
                    for kk in cards:
                        if kk != JOKER:
                            c[kk] += 1
        return False

    jokers = c[JOKER]
    c[JOKER] = 0
    if rec(n_runs, jokers):
        return result
    return None


#: the functions the compiled twin (``rummy_env._compiled.melds``, same source) takes over when ``RUMMY_ENV_IMPL``
#: selects it (``core/_impl.py``)
NAMES = (
    "pos_kind", "layoff_fits", "set_joker_suit", "lay_off", "joker_place_fits", "runs_adjacent", "run_conflicts",
    "_rank_costs", "_groups_possible", "run_presence", "_windows", "_window_candidates", "can_make_contract",
    "_joker_runs", "_take_run", "final_partition",
)
install(globals(), NAMES)
