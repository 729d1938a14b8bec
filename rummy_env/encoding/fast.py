"""The observers' fast path: a seat's observation written straight from an engine state, and a mask row written
from the legal actions, with no ``PublicView`` in between (the envs' hot path: ``VectorEnv`` and the AEC env).

``ContractObserver.encode_state(state, seat, out)`` / ``ContinentalObserver.encode_state`` call the functions here.
They read exactly the fields ``engine.view.contract_view`` / ``continental_view`` put in a view -- the viewing
seat's own hand, the public piles (the stock only by its size), the known cards, the table, hand sizes, scores,
round, phase -- and never an opponent's hand or the stock order; and they write exactly the float32 values that
``observer.encode(state.public_view(seat))`` writes (``tests/encoding/test_fast_observation.py`` compares the two, bit for
bit, over random decision points of every profile).

This module is a hot module in the sense of ``rummy_env.core._impl``: ``setup.py`` also compiles it with Cython into
``rummy_env._compiled.fast_observation``, typed by ``rummy_env/_compiled/fast_observation.pxd`` (C integers, and a
typed float32 memoryview for ``out``: every item write is a store to memory), and ``RUMMY_ENV_IMPL`` selects between
the two. The pure-Python functions (the reference of the twin) take ``out`` as a Python ``memoryview`` of the
float32 row; the twin takes any float32 buffer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core._impl import install
from ..core.cards import JOKER, NUM_KINDS
from ..core.melds import GROUP
from ..engine.view import _continental_round, _contract_round, _seat_melds

#: True only in the compiled twin (``rummy_env._compiled.fast_observation``), which clears the row with a C loop
#: (the one branch on it, in ``_clear``, says why)
_TYPED = __name__.startswith("rummy_env._compiled.")

# row offsets inside a table meld's features (``observation.MELD_ROW``; the observer module checks they agree)
MELD_FEATURES = 97
MELD_GROUP = 1
MELD_RUN = 2
MELD_NATURALS = 3
MELD_RUN_FILLED = 55
MELD_RUN_JOKERS = 69
MELD_GROUP_RANK = 83
MELD_GROUP_JOKERS = 96


def table_segment(seat_melds: Any, me: int, n: int, max_melds: int, slots: int) -> Any:
    """The ``table`` piece of a Contract observation from seat ``me`` (float32 array; None for an empty table):
    ``seat_melds`` are the engine's frozen table snapshot (``TableMeld`` tuples per owner seat)."""
    empty = True
    for melds in seat_melds:
        if melds:
            empty = False
            break
    if empty:
        return None
    seg = np.zeros(slots * MELD_FEATURES, dtype=np.float32)
    out = memoryview(seg)
    for owner in range(len(seat_melds)):
        melds = seat_melds[owner]
        if not melds:
            continue
        row = ((owner - me) % n) * max_melds * MELD_FEATURES
        for meld in melds:
            cards = meld[2]
            if meld[1] == GROUP:
                out[row + MELD_GROUP] = 1.0
                out[row + MELD_GROUP_RANK + meld[3] - 1] = 1.0
                nj = 0
                for k in cards:
                    if k == JOKER:
                        nj += 1
                    else:
                        out[row + MELD_NATURALS + k] += 1.0
                out[row + MELD_GROUP_JOKERS] = nj / 4.0
            else:
                out[row + MELD_RUN] = 1.0
                filled = row + MELD_RUN_FILLED + meld[5] - 1
                jokers = row + MELD_RUN_JOKERS + meld[5] - 1
                for i in range(len(cards)):
                    k = cards[i]
                    out[filled + i] = 1.0
                    if k == JOKER:
                        out[jokers + i] = 1.0
                    else:
                        out[row + MELD_NATURALS + k] += 1.0
            row += MELD_FEATURES
    return seg


def _cards(out: Any, h: int, dc: int, dt: int, ps: int, hand: Any, disc: Any, stock_size: int, shoe_size: float) -> None:
    """The card pieces (``observation.CARD_PIECES``, at offsets ``h``, ``dc``, ``dt``, ``ps``): own hand, discard
    counts, top 4 discards, pile sizes."""
    for k in range(NUM_KINDS):
        c = hand[k]
        if c:
            out[h + k] = c
    size = len(disc)
    if size:
        for i in range(size):
            out[dc + disc[i]] += 1.0
        out[dt + disc[size - 1]] = 1.0
        if size > 1:
            out[dt + NUM_KINDS + disc[size - 2]] = 1.0
            if size > 2:
                out[dt + 2 * NUM_KINDS + disc[size - 3]] = 1.0
                if size > 3:
                    out[dt + 3 * NUM_KINDS + disc[size - 4]] = 1.0
    out[ps] = stock_size / shoe_size
    out[ps + 1] = size / shoe_size


def _clear(arr: Any, out: Any) -> None:
    """Every item of the float32 row ``arr`` set to 0.0 (``out``: its memoryview): ``arr.fill`` here, a C loop over
    the typed memoryview in the twin (a numpy call costs more than the loop for one row)."""
    if _TYPED:
        # the price of the speed: a store loop over the typed memoryview beats a numpy call for one row (measured:
        # the observation 0.3-0.5 us, about 10 %, slower with ``arr.fill`` in the twin); a Python memoryview
        # cannot be filled so. The stale row of tests/encoding/test_fast_observation.py's differential must be cleared
        out[:] = 0.0
    else:
        arr.fill(0.0)


def _copy(out: Any, at: int, seg: Any, start: int, length: int) -> None:
    """Copy ``length`` items of the float32 vector ``seg`` from ``start`` on into ``out`` from ``at`` on."""
    out[at : at + length] = seg[start : start + length]


def _known(out: Any, kn: int, known: Any, me: int, n: int) -> None:
    """The ``known`` piece: per opponent in seat order after ``me``, the copies publicly known in that hand
    (``known``: the engine's rows, a list of ``NUM_KINDS`` counts per seat; lists in the twin, which reads them as
    such)."""
    for i in range(1, n):
        row = known[(me + i) % n]
        at = kn + (i - 1) * NUM_KINDS
        for k in range(NUM_KINDS):
            c = row[k]
            if c:
                out[at + k] = c


def encode_contract_state(obs: Any, st: Any, seat: int, arr: Any, out: Any) -> None:
    """Write seat ``seat``'s observation of the Contract-family engine state ``st`` into ``arr`` (a float32 row of
    ``obs.size`` items; ``out``: a memoryview of it), as ``obs.encode(st.public_view(seat), out=arr)`` does.
    ``obs``: the ``ContractObserver`` (``_fast_consts``: its sizes and offsets in one tuple; ``_fast_table``: its
    cache of the encoded table). The engine's piles, hands, known rows, sizes, flags and scores are lists (the
    twin reads them as lists)."""
    _clear(arr, out)
    # a Contract state has over 30 fields, so CPython 3.11 keeps them in a real dict (no inline values): read there,
    # one hash look-up each (a typed dict in the twin) where an attribute look-up also searches the type
    d = st.__dict__
    (n, shoe_size, block, turn_cap, highs, phase_index,
     h, dc, dt, ps, tb, hs, op, sc, rd, ct, ph, ac, of, lb, ol, td, tu, kn, mp) = obs._fast_consts  # fmt: skip
    rs = d.get("_round_snap")
    if rs is None or rs[0] != d["round_index"] or rs[1] != d["dealer"]:
        rs = _contract_round(st)
    rnd = rs[6]
    contract = rs[7]
    discard = d["discard"]
    _cards(out, h, dc, dt, ps, d["hands"][seat], discard, len(d["stock"]), shoe_size)
    _known(out, kn, d["known"], seat, n)  # the rows a view's snapshot (``_known_snap``) copies
    melds = d.get("_table_snap")
    if melds is None:
        melds = st._table_snap = _seat_melds(d["seat_melds"])
    cache = obs._fast_table  # [table snapshot, its encoded view or False for an empty table]
    if melds is not cache[0]:  # the engine's snapshot of the table changed: encode it again, once
        seg = table_segment(melds, 0, n, obs.max_melds, obs.slots)
        cache[0] = melds
        cache[1] = False if seg is None else float_view(seg)  # the view its copies read, made once
    seg = cache[1]
    if seg is not False:  # the melds of each owner (seat 0's order) moved to the viewer's seat order
        segv = seg
        for i in range(n):
            p = (seat + i) % n
            if melds[p]:
                _copy(out, tb + i * block, segv, p * block, block)
    sizes, opened, scores = d["hand_size"], d["opened"], d["scores"]
    active, this_turn = d["active"], d["opened_this_turn"]
    for i in range(n):
        p = (seat + i) % n
        size = sizes[p]
        out[hs + i] = size / 20.0
        if opened[p]:
            out[op + 2 * i] = 1.0
            if p == active and this_turn:
                out[op + 2 * i + 1] = 1.0
        score = scores[p]
        if score:  # a zero score leaves the zero
            s = score / 100.0
            high = highs[i]
            out[sc + i] = high if s > high else (s if s > 0.0 else 0.0)
    out[rd + rnd - 1] = 1.0
    out[ct] = contract[0] / 3.0
    out[ct + 1] = contract[1] / 3.0
    phase = d["phase"]
    at = phase_index.get(phase, -1)
    if at >= 0:
        out[ph + at] = 1.0
        out[ac + (active - seat) % n] = 1.0
    if phase == "buy":
        if discard:
            out[of + discard[len(discard) - 1]] = 1.0
        if d["last_buyer"] >= 0:
            out[lb + (d["last_buyer"] - seat) % n] = 1.0
    left = d["opening_left"]
    if left:
        out[ol] = left[0] / 3.0
        out[ol + 1] = left[1] / 3.0
    if d["taken_pending"] and d["taken_discard"] >= 0:
        out[td + d["taken_discard"]] = 1.0
    t = d["turn"] / turn_cap
    out[tu] = t if t < 1.0 else 1.0
    if d["must_place"] >= 0 and mp >= 0:
        out[mp + d["must_place"]] = 1.0


def encode_continental_state(obs: Any, st: Any, seat: int, arr: Any, out: Any) -> None:
    """Write seat ``seat``'s observation of the Continental engine state ``st`` into ``arr`` (``out``: a memoryview
    of it), as ``obs.encode(st.public_view(seat), out=arr)`` does (``obs``: the ``ContinentalObserver``; its
    ``_fast_consts`` as in ``encode_contract_state``)."""
    _clear(arr, out)
    # read as attributes, never through ``st.__dict__``: a Continental state's fields are few enough for CPython 3.11
    # to keep them inline, and asking for its ``__dict__`` would make one that deoptimises the engine's every
    # attribute access (+12 % instructions a decision, measured: docs/guides/performance.md)
    n, shoe_size, last, turn_cap, highs, phase_index, h, dc, dt, ps, kn, ft, bal, dl, ph, ac, td, tu = obs._fast_consts
    rs = st._round_snap
    if rs is None or rs[0] != st.deal_index or rs[1] != st.dealer:
        rs = _continental_round(st)
    rnd = rs[6]
    _cards(out, h, dc, dt, ps, st.hands[seat], st.discard, len(st.stock), shoe_size)
    _known(out, kn, st.known, seat, n)  # the rows a view's snapshot (``_known_snap``) copies
    turns_taken, scores = st.turns_taken, st.scores
    for i in range(n):
        p = (seat + i) % n
        if turns_taken[p] == 0:
            out[ft + i] = 1.0
        score = scores[p]
        if score:  # a zero balance leaves the zeros
            b = score / 100.0
            if b >= 0:
                j = 2 * i
                mag = b
            else:
                j = 2 * i + 1
                mag = -b
            high = highs[j]
            out[bal + j] = mag if mag < high else high
    out[dl + (rnd - 1 if rnd - 1 < last else last)] = 1.0
    phase = st.phase
    at = phase_index.get(phase, -1)
    if at >= 0:
        out[ph + at] = 1.0
        out[ac + (st.active - seat) % n] = 1.0
    taken = st.taken_discard
    if taken >= 0:
        out[td + taken] = 1.0
    t = st.turn / turn_cap
    out[tu] = t if t < 1.0 else 1.0


def write_mask(row: Any, legal: Any) -> None:
    """Set the mask row ``row`` (a uint8 view of a bool row: 1 at each id of ``legal``, 0 elsewhere)."""
    row[:] = 0
    for a in legal:
        row[a] = 1


def float_view(row: Any) -> Any:
    """The view of the float32 row ``row`` that the encoders here take as ``out``: a ``memoryview``; in the twin,
    its own typed memoryview object, which it takes back without validating a new buffer each call. Made once per
    row by a caller that writes the same rows again and again (``VectorEnv``)."""
    view = memoryview(row)
    return view


def byte_view(row: Any) -> Any:
    """The view of the uint8 row ``row`` (a bool mask row seen as uint8) that ``write_mask`` takes: ``row`` itself;
    in the twin, its own typed memoryview object (as ``float_view``)."""
    view = row
    return view


#: the functions the compiled twin (``rummy_env._compiled.fast_observation``, same source) takes over when
#: ``RUMMY_ENV_IMPL`` selects it (``core/_impl.py``)
NAMES = (
    "table_segment", "encode_contract_state", "encode_continental_state", "write_mask", "float_view", "byte_view",
)
install(globals(), NAMES)
