"""Opening searches of the Contract family (private to the rules layer; the engine's ``opening`` / ``act`` phases
call them): which catalog melds may start or continue an opening, whether a card can go into the rest of a
contract, new melds after the opening, and how the final round's hand is gone out at once.

Every function is pure: it reads a hand (``NUM_KINDS`` counts, changed during a search and always restored), the
contract still owed (``g`` groups, ``r`` runs), the runs already laid in the same opening (``declared``: (suit, low,
high) triples) and the rules object. ``catalog`` is the meld catalog of the profile's action table (the engine's
``ActionLayout``): ``group_ids``, ``run_index``, ``groups``, ``meld_kinds``, ``meld_needs``; a *meld index* numbers
its groups then its runs (action id = ``layout.MELD + meld index``).
"""

from __future__ import annotations

from typing import Any

from ..core import melds as _melds
from ..core._impl import install
from ..core.cards import JOKER, NUM_KINDS, NUM_RANKS
from ..core.melds import MAX_POS, can_make_contract, final_partition, run_conflicts, run_presence

#: (suit, low, high) of the runs already laid in the current opening
Declared = tuple[tuple[int, int, int], ...]
#: the final round's way out: (suit, low, kinds) per run, and the discarded kind or -1
FinalLayout = tuple[list[tuple[int, int, list[int]]], int]


#: True only in the compiled twin (``rummy_env._compiled.contract_opening``, C types from
#: ``_compiled/contract_opening.pxd``). Two branches on it, ``_bits`` and the ``_tally`` / ``_tally_ref`` choice of
#: the public searches, take a C-loop form there, which pure Python runs slower than the built-ins of the reference
#: form; ``tests/engine/test_legal_fast.py`` and the function-level differential of ``tests/core/test_compiled.py`` compare them
_TYPED = __name__.startswith("rummy_env._compiled.")


def _bits(x: int) -> int:
    """The number of set bits of ``x`` >= 0 (``int.bit_count``; a C loop in the typed twin)."""
    if _TYPED:
        # the price of the speed: on a C integer this loop beats boxing it for ``int.bit_count`` (measured: the
        # opening search 2 % slower without it);
        # tests/engine/test_legal_fast.py::test_the_c_loop_tally_is_sum_and_run_presence
        n = 0
        while x:
            x &= x - 1
            n += 1
        return n
    return x.bit_count()


def _tally(h: list[int], presence: list[int]) -> int:
    """The number of cards in the counts ``h``, with ``presence`` set to their ``run_presence``: the typed twin's
    C-loop form of ``sum(hand)`` and ``run_presence(hand)`` (``tests/engine/test_legal_fast.py`` compares the two).

    The public searches call it as ``_tally(h, presence) if _TYPED else _tally_ref(hand, presence)``: the price of
    the speed: their hand and ``presence`` are C arrays in the twin (C loops, no Python object made; ``_tally_ref``
    could not fill a C array), lists in pure Python (where the built-ins are faster)."""
    total = 0
    for k in range(NUM_KINDS):
        total += h[k]
    _melds.presence_from(h, presence)  # a C function of the melds twin, cimported by _compiled/contract_opening.pxd
    return total


def _tally_ref(hand: list[int], presence: list[int]) -> int:
    """``_tally`` by the built-ins, the pure-Python module's form: ``sum(hand)``, ``presence`` set to
    ``run_presence(hand)``."""
    p = run_presence(hand)
    for s in range(4):
        presence[s] = p[s]
    return sum(hand)


_SUB_MULTISETS: dict[tuple[int, ...], list[tuple[int, ...]]] = {}


def sub_multisets(avail: list[int], size: int, distinct: bool) -> list[tuple[int, ...]]:
    """Sorted suit tuples of length ``size`` drawable from ``avail`` copies per suit (``distinct``: each suit once).
    Cached by its arguments (the list returned is shared: do not change it)."""
    key = (*avail, size, distinct)
    out = _SUB_MULTISETS.get(key)
    if out is None:
        out = _SUB_MULTISETS[key] = _sub_multisets(avail, size, distinct)
    return out


def _sub_multisets(avail: list[int], size: int, distinct: bool) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = []
    cur: list[int] = []

    def rec(start: int) -> None:
        if len(cur) == size:
            out.append(tuple(cur))
            return
        for s in range(start, 4):
            used = cur.count(s)
            if used < avail[s] and (not distinct or used == 0):
                cur.append(s)
                rec(s)
                cur.pop()

    rec(0)
    return out


def rest_ok(hand: list[int], used: list[int], jokers: int, g: int, r: int, declared: Declared, rules: Any) -> bool:
    """Can the ``g`` groups and ``r`` runs still owed be made from ``hand`` without the ``used`` naturals and
    ``jokers`` jokers (already given to a meld)?"""
    if g == 0 and r == 0:
        return True
    h = hand  # the typed twin copies the hand into a C array (``_compiled/contract_opening.pxd``)
    presence = [0, 0, 0, 0]
    total = _tally(h, presence) if _TYPED else _tally_ref(hand, presence)
    return _rest_ok(h, total, presence, used, jokers, g, r, declared, rules)


# The searches below take the hand as ``h`` with its card count ``total`` and its ``presence`` bits (``run_presence``)
# kept up to date: the caller's list here, changed during a search and restored; C arrays (``long*``) in the typed
# twin, which tests the contract still owed by calling the melds twin's search on them directly
# (``melds.contract_search``, cimported by ``_compiled/contract_opening.pxd``): no Python call, no copy per test.


def _take(h: list[int], presence: list[int], used: list[int], jokers: int, saved: list[int]) -> int:
    """Take the ``used`` cards and ``jokers`` more jokers out of ``h``, clearing the presence bit of each natural
    whose last copy leaves (both bits of an ace), after saving the four presence words in ``saved`` (a ``long[4]``
    of the caller in the typed twin); the number of cards taken. ``_give`` puts them back."""
    for s in range(4):
        saved[s] = presence[s]
    for k in used:
        h[k] -= 1
        if k != JOKER and not h[k]:
            q = k % NUM_RANKS
            presence[k // NUM_RANKS] &= ~((1 << q) | ((1 << (MAX_POS - 1)) if q == 0 else 0))
    h[JOKER] -= jokers
    return len(used) + jokers


def _give(h: list[int], presence: list[int], used: list[int], jokers: int, saved: list[int]) -> None:
    """Undo ``_take``: the cards back into ``h``, the presence bits back to those ``_take`` saved in ``saved``."""
    for k in used:
        h[k] += 1
    h[JOKER] += jokers
    for s in range(4):
        presence[s] = saved[s]


def _rest_ok(
    h: list[int], total: int, presence: list[int], used: list[int], jokers: int, g: int, r: int, declared: Declared,
    rules: Any,
) -> bool:
    """``rest_ok`` on ``h`` (``total`` cards, ``presence`` bits)."""
    if g == 0 and r == 0:
        return True
    saved = [0, 0, 0, 0]  # a C array in the typed twin
    n = _take(h, presence, used, jokers, saved)
    ok = _melds.contract_search(h, total - n, presence, g, r, rules, declared)
    _give(h, presence, used, jokers, saved)
    return ok


def in_some_contract_meld(hand: list[int], c: int, g: int, r: int, declared: Declared, rules: Any) -> bool:
    """Is there a way to finish the opening (``g`` groups, ``r`` runs still owed) with card ``c`` in one of its
    melds?"""
    h = hand  # a C array in the typed twin
    presence = [0, 0, 0, 0]
    total = _tally(h, presence) if _TYPED else _tally_ref(hand, presence)
    return _in_some_contract_meld(h, total, presence, c, g, r, declared, rules)


def _in_some_contract_meld(
    h: list[int], total: int, presence: list[int], c: int, g: int, r: int, declared: Declared, rules: Any
) -> bool:
    """``in_some_contract_meld`` on ``h`` (``total`` cards, ``presence`` bits)."""
    jokers = h[JOKER]
    if c == JOKER:
        return bool(g or r) and jokers > 0 and _melds.contract_search(h, total, presence, g, r, rules, declared)
    if g and _in_some_group(h, total, presence, c, g, r, declared, rules):
        return True
    return bool(r) and _in_some_run(h, total, presence, c, g, r, declared, rules)


def _in_some_group(
    h: list[int], total: int, presence: list[int], c: int, g: int, r: int, declared: Declared, rules: Any
) -> bool:
    """``in_some_contract_meld`` for a group of ``c``'s rank holding ``c``."""
    r0, suit = c % NUM_RANKS, c // NUM_RANKS  # ``rank_of(c) - 1``, ``suit_of(c)``
    size = rules.group_min
    distinct = rules.group_distinct_suits
    avail = [h[r0], h[r0 + NUM_RANKS], h[r0 + 2 * NUM_RANKS], h[r0 + 3 * NUM_RANKS]]
    avail[suit] -= 1
    for j in range(0, min(size - 1, h[JOKER]) + 1):
        for suits in sub_multisets(avail, size - 1 - j, distinct):
            if distinct and suit in suits:
                continue
            used = [c] + [s * NUM_RANKS + r0 for s in suits]  # ``kind_of(s, rank)``
            if _rest_ok(h, total, presence, used, j, g - 1, r, declared, rules):
                return True
    return False


def _in_some_run(
    h: list[int], total: int, presence: list[int], c: int, g: int, r: int, declared: Declared, rules: Any
) -> bool:
    """``in_some_contract_meld`` for a minimum run of ``c``'s suit holding ``c`` (an ace at either end)."""
    rank, suit = c % NUM_RANKS + 1, c // NUM_RANKS
    size = rules.run_min
    jokers = h[JOKER]
    for pos in [1, MAX_POS] if rank == 1 else [rank]:
        for low in range(max(1, pos - size + 1), min(pos, MAX_POS - size + 1) + 1):
            high = low + size - 1
            if declared and run_conflicts(suit, low, high, declared, rules):
                continue
            used = [c]
            nj = 0
            for q in range(low, high + 1):
                if q == pos:
                    continue
                # ``pos_kind(suit, q)``: never c itself (a window of 3 cannot hold both ace positions)
                k = suit * NUM_RANKS + (0 if q == MAX_POS else q - 1)
                if h[k] - used.count(k) > 0:
                    used.append(k)
                else:
                    nj += 1
            if nj <= jokers and _rest_ok(
                h, total, presence, used, nj, g, r - 1, declared + ((suit, low, high),), rules
            ):
                return True
    return False


def opening_melds(
    hand: list[int], hand_size: int, g: int, r: int, declared: Declared, rules: Any, catalog: Any, taken: int = -1
) -> list[int]:
    """Meld indices of the catalog melds legal now in an opening: in hand, of a kind still owed (``g`` groups,
    ``r`` runs), and the rest of the contract stays makeable.

    ``taken``: the card taken from the discard pile this turn while it is still in hand (-1: none). A.1-12 +
    A.2-4: if only one card will remain after the whole opening, the opening must use that card (else the last card
    could not be discarded and the player would be stuck).
    """
    h = hand  # a C array in the typed twin
    presence = [0, 0, 0, 0]
    total = _tally(h, presence) if _TYPED else _tally_ref(hand, presence)
    if not _melds.contract_search(h, total, presence, g, r, rules, declared):
        return []
    # A.1-12: after the whole opening a card must remain that may be discarded
    remaining = hand_size - g * rules.group_min - r * rules.run_min
    if remaining < (1 if rules.keep_card_for_discard else 0):
        return []
    needs_taken = taken if rules.keep_card_for_discard and rules.forbid_rediscard and remaining == 1 else -1
    out: list[int] = []
    if g:
        _opening_groups(out, h, total, presence, g, r, declared, rules, catalog, needs_taken)
    if r:
        _opening_runs(out, h, total, presence, g, r, declared, rules, catalog, needs_taken)
    return out


def _opening_groups(
    out: list[int], h: list[int], total: int, presence: list[int], g: int, r: int, declared: Declared, rules: Any,
    catalog: Any, needs_taken: int,
) -> None:
    """``opening_melds``' groups, appended to ``out``: every rank x natural suits x jokers the hand holds (B.1-3:
    one meld index per choice of the suits the jokers stand for)."""
    size = rules.group_min
    jokers = h[JOKER]
    distinct = rules.group_distinct_suits
    group_ids = catalog.group_ids
    for r0 in range(NUM_RANKS):  # the rank - 1
        a0, a1, a2, a3 = h[r0], h[r0 + NUM_RANKS], h[r0 + 2 * NUM_RANKS], h[r0 + 3 * NUM_RANKS]
        if a0 + a1 + a2 + a3 + jokers < size:
            continue
        avail = [a0, a1, a2, a3]
        for j in range(0, min(size, jokers) + 1):
            for suits in sub_multisets(avail, size - j, distinct):
                ids = group_ids.get((r0 + 1, suits, j))
                if not ids:
                    continue
                used = [s * NUM_RANKS + r0 for s in suits]
                if _opening_rest_ok(h, total, presence, used, j, g - 1, r, declared, rules, needs_taken):
                    out.extend(ids)


def _opening_runs(
    out: list[int], h: list[int], total: int, presence: list[int], g: int, r: int, declared: Declared, rules: Any,
    catalog: Any, needs_taken: int,
) -> None:
    """``opening_melds``' runs, appended to ``out``: every suit x lowest position x set of joker positions the hand
    can fill (jokers where it lacks the natural, and optionally for naturals it holds)."""
    size = rules.run_min
    jokers = h[JOKER]
    full = (1 << size) - 1
    base = len(catalog.groups)
    run_index = catalog.run_index
    for suit in range(4):
        pres = presence[suit]
        for low in range(1, MAX_POS - size + 2):
            present = (pres >> (low - 1)) & full  # bit i: the hand holds the natural at position low + i
            must = full & ~present  # positions that need a joker
            if _bits(must) > jokers:
                continue
            high = low + size - 1
            if declared and run_conflicts(suit, low, high, declared, rules):
                continue
            sub = present
            while True:
                mask = must | (present & ~sub)  # jokers where the hand lacks the card, and optionally more
                nj = _bits(mask)
                idx = run_index.get((suit, low, mask)) if nj <= jokers else None
                if idx is not None:
                    used = [
                        suit * NUM_RANKS + (0 if low + i == MAX_POS else low + i - 1)  # ``pos_kind(suit, low + i)``
                        for i in range(size)
                        if not mask >> i & 1
                    ]
                    if _opening_rest_ok(
                        h, total, presence, used, nj, g, r - 1, declared + ((suit, low, high),), rules, needs_taken
                    ):
                        out.append(base + idx)
                if sub == 0:
                    break
                sub = (sub - 1) & present


def opening_rest_ok(
    hand: list[int], used: list[int], jokers: int, g: int, r: int, declared: Declared, rules: Any, needs_taken: int
) -> bool:
    """``rest_ok`` for an opening meld; with ``needs_taken`` (a kind, -1: none) the opening must also hold that
    card: in this meld, or in one of the melds still owed."""
    h = hand  # a C array in the typed twin
    presence = [0, 0, 0, 0]
    total = _tally(h, presence) if _TYPED else _tally_ref(hand, presence)
    return _opening_rest_ok(h, total, presence, used, jokers, g, r, declared, rules, needs_taken)


def _opening_rest_ok(
    h: list[int], total: int, presence: list[int], used: list[int], jokers: int, g: int, r: int, declared: Declared,
    rules: Any, needs_taken: int,
) -> bool:
    """``opening_rest_ok`` on ``h`` (``total`` cards, ``presence`` bits)."""
    t = needs_taken
    if t < 0 or t in used or (t == JOKER and jokers):
        return _rest_ok(h, total, presence, used, jokers, g, r, declared, rules)
    if g == 0 and r == 0:
        return False
    saved = [0, 0, 0, 0]  # a C array in the typed twin
    n = _take(h, presence, used, jokers, saved)
    ok = _in_some_contract_meld(h, total - n, presence, t, g, r, declared, rules)
    _give(h, presence, used, jokers, saved)
    return ok


def pickup_marks(hand: list[int], disc: list[int], g: int, r: int, declared: Declared, rules: Any) -> list[int]:
    """B.1-6 deep pickups of a hand not yet down: ``marks[depth]`` for every depth 0..``len(disc)`` (the engine reads
    2 and up). 0: the hand with the top ``depth`` cards of the pile ``disc`` (top at the end) cannot make the
    contract owed (``g`` groups, ``r`` runs; the least depth that can is found by bisection, ``can_make_contract``
    being monotone in the hand); 1: it can, and the card at that depth is in some meld of the contract
    (``in_some_contract_meld``); 2: it can, but that card is in no contract meld (the engine asks its other ways to
    the table). The hand is changed during the search and restored; the typed twin adds the pile's cards to its C
    copy one at a time."""
    top = len(disc)
    marks = [0] * (top + 1)
    if top < 2:
        return marks
    h = hand  # a C array in the typed twin
    presence = [0, 0, 0, 0]
    total = _tally(h, presence) if _TYPED else _tally_ref(hand, presence)
    if not _makeable_with(h, total, presence, disc, top, g, r, declared, rules):
        return marks
    lo, hi = 2, top  # makeable at ``hi``; find the least such depth
    while lo < hi:
        mid = (lo + hi) // 2
        if _makeable_with(h, total, presence, disc, mid, g, r, declared, rules):
            hi = mid
        else:
            lo = mid + 1
    saved = [0, 0, 0, 0]  # a C array in the typed twin
    _add_pile(h, presence, disc, lo - 1, saved)
    for depth in range(lo, top + 1):
        c = disc[top - depth]
        _add(h, presence, c)
        marks[depth] = 1 if _in_some_contract_meld(h, total + depth, presence, c, g, r, declared, rules) else 2
    _drop_pile(h, presence, disc, top, saved)
    return marks


def _add_pile(h: list[int], presence: list[int], disc: list[int], depth: int, saved: list[int]) -> None:
    """The top ``depth`` cards of the pile ``disc`` into ``h`` with their presence bits, after saving the four
    presence words in ``saved``; ``_drop_pile`` takes them out again."""
    for s in range(4):
        saved[s] = presence[s]
    top = len(disc)
    for i in range(1, depth + 1):
        _add(h, presence, disc[top - i])


def _drop_pile(h: list[int], presence: list[int], disc: list[int], depth: int, saved: list[int]) -> None:
    """Undo ``_add_pile`` (``depth`` cards now in ``h``): the counts back, the presence words from ``saved``."""
    top = len(disc)
    for i in range(1, depth + 1):
        k = disc[top - i]
        h[k] -= 1
    for s in range(4):
        presence[s] = saved[s]


def _add(h: list[int], presence: list[int], k: int) -> None:
    """One card of kind ``k`` into ``h``, its presence bit set (both bits of an ace)."""
    h[k] += 1
    if k != JOKER:
        q = k % NUM_RANKS
        presence[k // NUM_RANKS] |= (1 << q) | ((1 << (MAX_POS - 1)) if q == 0 else 0)


def _makeable_with(
    h: list[int], total: int, presence: list[int], disc: list[int], depth: int, g: int, r: int, declared: Declared,
    rules: Any,
) -> bool:
    """Can ``h`` (``total`` cards, ``presence`` bits) with the top ``depth`` cards of ``disc`` make the contract?"""
    saved = [0, 0, 0, 0]  # a C array in the typed twin
    _add_pile(h, presence, disc, depth, saved)
    ok = _melds.contract_search(h, total + depth, presence, g, r, rules, declared)
    _drop_pile(h, presence, disc, depth, saved)
    return ok


def extra_meld_with(
    hand: list[int], c: int, rules: Any, catalog: Any, g: int = 0, r: int = 0, declared: Declared = ()
) -> bool:
    """``extra_melds_after_opening``: can ``c`` go into a new meld from the hand (after the ``g`` groups and ``r``
    runs still owed by the opening, if any)?  A longer meld holding ``c`` always contains a catalog meld holding
    it, so the catalog is enough."""
    for i, need in enumerate(catalog.meld_needs):
        if c not in catalog.meld_kinds[i] or not all(hand[k] >= n for k, n in need):
            continue
        if not (g or r):
            return True
        for k, n in need:
            hand[k] -= n
        try:
            ok = can_make_contract(hand, g, r, rules, declared)
        finally:
            for k, n in need:
                hand[k] += n
        if ok:
            return True
    return False


def final_layout(
    hand: list[int], contract: tuple[int, int], rules: Any, keep: tuple[int, ...] = (), banned: int = -1
) -> FinalLayout | None:
    """How a hand goes out in the final round: (runs, discarded kind or -1), or None.

    The whole hand as the contract's runs (only all-runs final rounds exist in this family); with
    ``final_round_discard`` also every card but one that may be discarded: not a last copy of a kind in ``keep``
    (cards that must reach the table), nor of ``banned`` (the card taken from the discard pile, A.2-4 / B.1-6). The
    round ends either way, so which card is discarded changes nothing: the lowest kind that works is taken.
    """
    g, r = contract
    parts = None if g else final_partition(hand, r, rules)
    if parts is not None:
        return parts, -1
    if not rules.final_round_discard or g:
        return None
    h = hand  # a C array in the typed twin, where the bound of runs needed is a C call per card (no list copy)
    run_min = rules.run_min
    for k in range(NUM_KINDS):
        if not h[k] or (h[k] == 1 and (k in keep or k == banned)):
            continue
        h[k] -= 1
        refused = _melds.partition_refused(h, r, run_min)  # ``final_partition``'s first refusals, asked first
        h[k] += 1
        if refused:
            continue
        hand[k] -= 1
        try:
            parts = final_partition(hand, r, rules)
        finally:
            hand[k] += 1
        if parts is not None:
            return parts, k
    return None


#: the functions the compiled twin (``rummy_env._compiled.contract_opening``, same source) takes over when
#: ``RUMMY_ENV_IMPL`` selects it (``core/_impl.py``)
NAMES = (
    "sub_multisets", "_sub_multisets", "rest_ok", "in_some_contract_meld", "opening_melds", "opening_rest_ok",
    "extra_meld_with", "final_layout", "pickup_marks",
)
install(globals(), NAMES)
