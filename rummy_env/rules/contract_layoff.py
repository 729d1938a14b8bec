"""Lay-offs and joker swaps of the Contract family (private to the rules layer; the engine's ``act`` and
``place_joker`` phases call them): which cards fit a table meld at which end, the chains of hand cards that carry a
card onto a run, which jokers may be swapped and whether a freed joker has a place, and the engine limit that ends a
round nobody can ever go out of.

Every function is pure: it reads a hand (``NUM_KINDS`` counts, changed during a search and always restored), table
melds (``core.melds.Meld``, never changed) and the rules object.
"""

from __future__ import annotations

from typing import Any

from ..core._impl import install
from ..core.cards import JOKER, NUM_KINDS, NUM_RANKS, kind_of, rank_of, suit_of
from ..core.melds import GROUP, MAX_POS, RUN, Meld, can_make_contract, joker_place_fits, lay_off, layoff_fits, pos_kind


def meld_ends(meld: Meld) -> tuple[int, ...]:
    """The ends a card can be added at: 0 (a group's only end, a run's low end) and 1 (a run's high end)."""
    if meld.kind == RUN:
        return (0, 1)
    return (0,)


def layoff_options(meld: Meld) -> list[tuple[int, int]]:
    """(kind, end) of every card that could extend ``meld`` by one: a group's four suits of its rank or a joker, a
    run's natural or a joker just below / above it (``layoff_fits`` still decides)."""
    # ``kind_of``, ``pos_kind`` and ``meld.high`` inlined (asked for every table meld at every act decision)
    if meld.kind == GROUP:
        r0 = meld.rank - 1
        return [(r0, 0), (NUM_RANKS + r0, 0), (2 * NUM_RANKS + r0, 0), (3 * NUM_RANKS + r0, 0), (JOKER, 0)]
    out: list[tuple[int, int]] = []
    low = meld.low
    base = meld.suit * NUM_RANKS
    if low > 1:
        out += [(base + low - 2, 0), (JOKER, 0)]  # position low - 1 (never the high ace)
    high = low + len(meld.cards) - 1
    if high < MAX_POS:
        out += [(base + (0 if high + 1 == MAX_POS else high), 1), (JOKER, 1)]
    return out


def layoff_ids(
    hand: list[int], seat_melds: list[list[Meld]], p: int, own_only: bool, lay: Any, rules: Any, taken: int,
    spare: bool, spare_taken: bool, follows: Any = None,
) -> list[int]:
    """The lay-off actions of seat ``p`` (the engine's ``_layoff_actions``): the id (``lay.lay_off``, inlined:
    ``LAY_OFF + (kind * slots + slot) * 2 + end``) of every hand card that fits an end of a table meld
    (``seat_melds`` per owner seat; ``own_only``: ``p``'s own melds), if the hand can spare it (A.1-12: ``spare``,
    or ``spare_taken`` for the kind ``taken``, the card taken from the discard pile) or else, with ``follows`` given,
    if ``follows(meld, kind, end)`` (B.1-10: the taken card then follows onto the table)."""
    out: list[int] = []
    n, max_melds, slots, base = lay.num_players, lay.max_melds, lay.slots, lay.LAY_OFF
    for owner in range(n):
        if own_only and owner != p:
            continue
        melds = seat_melds[owner]
        if not melds:
            continue
        first = ((owner - p) % n) * max_melds
        for idx in range(len(melds)):
            meld = melds[idx]
            for kind, end in layoff_options(meld):
                if (
                    hand[kind]
                    and layoff_fits(meld, kind, end, rules)
                    and ((spare_taken if kind == taken else spare) or follows is not None and follows(meld, kind, end))
                ):
                    out.append(base + (kind * slots + first + idx) * 2 + end)
    return out


def layoff_chains(hand: list[int], meld: Meld, c: int, rules: Any) -> list[list[int]]:
    """Hand cards (other than one ``c``) that would carry a lay-off of ``c`` onto ``meld``, one list per way: the
    naturals (or jokers) of the positions between the run and ``c``; ``[[]]`` when ``c`` fits at once."""
    if meld.kind == GROUP:
        return [[]] if layoff_fits(meld, c, 0, rules) else []
    targets: list[int] = []
    if c == JOKER:
        if meld.low > 1:
            targets.append(meld.low - 1)
        if meld.high < MAX_POS:
            targets.append(meld.high + 1)
    elif suit_of(c) == meld.suit:
        rank = rank_of(c)
        targets = [1, MAX_POS] if rank == 1 else [rank]
    out = []
    hand[c] -= 1
    try:
        for pos in targets:
            if meld.low <= pos <= meld.high:
                continue
            between = range(meld.high + 1, pos) if pos > meld.high else range(pos + 1, meld.low)
            need = _chain(hand, meld.suit, between)
            if need is not None:
                out.append(need)
    finally:
        hand[c] += 1
    return out


def layoff_reaches(hand: list[int], table: list[Meld], c: int, rules: Any) -> bool:
    """``any(layoff_chains(hand, meld, c, rules) for meld in table)``, without building the chains (the engine's
    "can the deep-pickup card still reach the table" test of a seat already down asks it at every depth).

    A group takes ``c`` if ``layoff_fits`` says so. A joker always has a way onto a run with a free end. A natural
    of a run's suit reaches its position (an ace: below position 2 or above 13) if the hand fills every position in
    between: those positions' kinds are distinct and none is ``c``'s, so a chain exists when the positions the hand
    holds no natural for are at most its jokers.
    """
    suit = c // NUM_RANKS
    r0 = c % NUM_RANKS  # ``rank_of(c) - 1``
    jokers = hand[JOKER]
    for meld in table:
        if meld.kind == GROUP:
            if layoff_fits(meld, c, 0, rules):
                return True
            continue
        low = meld.low
        high = low + len(meld.cards) - 1  # ``meld.high``
        if c == JOKER:
            if low > 1 or high < MAX_POS:
                return True
            continue
        if meld.suit != suit:
            continue
        base = suit * NUM_RANKS
        for t in range(2 if r0 == 0 else 1):
            pos = (1 if t == 0 else MAX_POS) if r0 == 0 else r0 + 1
            if low <= pos <= high:
                continue
            if pos > high:
                first, last = high + 1, pos - 1
            else:
                first, last = pos + 1, low - 1
            missing = 0
            for q in range(first, last + 1):  # ``pos_kind(suit, q)``: q is 2..13 here, never the ace
                if not hand[base + q - 1]:
                    missing += 1
            if missing <= jokers:
                return True
    return False


def _chain(hand: list[int], suit: int, between: range) -> list[int] | None:
    """The hand cards filling the run positions ``between`` of ``suit`` (naturals first, else jokers); None if the
    hand cannot fill them."""
    need: list[int] = []
    used: dict[int, int] = {}
    jokers = hand[JOKER]
    for q in between:
        k = pos_kind(suit, q)
        if hand[k] - used.get(k, 0) > 0:
            used[k] = used.get(k, 0) + 1
            need.append(k)
        elif jokers > 0:
            jokers -= 1
            need.append(JOKER)
        else:
            return None
    return need


def may_swap(meld: Meld, pos: int, actor: int, rules: Any) -> bool:
    """``swap_only_others_jokers`` (003: "if another player uses a joker in a run"): the joker at ``pos`` was
    placed by a seat other than ``actor``; otherwise any joker of a run may be swapped."""
    return not rules.swap_only_others_jokers or meld.placers.get(pos, meld.owner) != actor


def joker_placeable(table: list[Meld], rules: Any) -> bool:
    """A.2-8: has a freed joker a place on some table meld?"""
    for meld in table:
        if joker_place_fits(meld, 0, rules) or (meld.kind == RUN and joker_place_fits(meld, 1, rules)):
            return True
    return False


def swap_takes(table: list[Meld], c: int, actor: int, rules: Any) -> bool:
    """Can natural ``c`` replace a joker that ``actor`` may swap in a table run, the freed joker then finding a
    place (A.1-11, A.2-8)?"""
    if c == JOKER:
        return False
    for meld in table:
        if meld.kind == RUN and meld.suit == suit_of(c):
            for i, k in enumerate(meld.cards):
                if (
                    k == JOKER
                    and pos_kind(meld.suit, meld.low + i) == c
                    and may_swap(meld, meld.low + i, actor, rules)
                    and joker_placeable(table, rules)
                ):
                    return True
    return False


def fits_after_layoff(table: list[Meld], meld: Meld, kind: int, end: int, card: int, rules: Any) -> bool:
    """Once ``kind`` is laid off on ``meld`` at ``end``, does ``card`` fit some table meld (that one included)?"""
    after = meld.copy()
    lay_off(after, kind, end, rules)
    for m in table:
        target = after if m is meld else m
        for e in meld_ends(target):
            if layoff_fits(target, card, e, rules):
                return True
    return False


def nothing_fits(hands: list[list[int]], stock: list[int], discard: list[int], table: list[Meld], rules: Any) -> bool:
    """No card outside the table can ever change it: no new meld from those cards (``extra_melds_after_opening``),
    no lay-off and no joker swap (the caller knows every seat is down, so no opening is left either)."""
    outside = [0] * NUM_KINDS
    for h in hands:
        for k in range(NUM_KINDS):
            outside[k] += h[k]
    for k in stock:
        outside[k] += 1
    for k in discard:
        outside[k] += 1
    if rules.extra_melds_after_opening and (
        can_make_contract(outside, 1, 0, rules) or can_make_contract(outside, 0, 1, rules)
    ):
        return False  # the cards outside the table can still make a new meld
    return not any(_meld_reachable(meld, outside, rules) for meld in table)


def _meld_reachable(meld: Meld, outside: list[int], rules: Any) -> bool:
    """Could a card of ``outside`` (counts) still be laid off on ``meld`` or swapped for one of its jokers?"""
    for end in meld_ends(meld):
        if outside[JOKER] and layoff_fits(meld, JOKER, end, rules):
            return True
        if meld.kind == GROUP:
            for s in range(4):
                k = kind_of(s, meld.rank)
                if outside[k] and layoff_fits(meld, k, 0, rules):
                    return True
        else:
            pos = meld.low - 1 if end == 0 else meld.high + 1
            if 1 <= pos <= MAX_POS and outside[pos_kind(meld.suit, pos)]:
                return True
    if meld.kind == RUN and JOKER in meld.cards:
        for i, k in enumerate(meld.cards):
            if k == JOKER and outside[pos_kind(meld.suit, meld.low + i)]:
                return True  # a swap could change the table
    return False


#: the functions the compiled twin (``rummy_env._compiled.contract_layoff``, same source) takes over when
#: ``RUMMY_ENV_IMPL`` selects it (``core/_impl.py``)
NAMES = (
    "meld_ends", "layoff_options", "layoff_ids", "layoff_chains", "layoff_reaches", "_chain", "may_swap",
    "joker_placeable", "swap_takes", "fits_after_layoff", "nothing_fits", "_meld_reachable",
)
install(globals(), NAMES)
