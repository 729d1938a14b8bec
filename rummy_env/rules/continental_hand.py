"""Continental going-out check: can a 15-card hand be split into runs of 3+3+3+3+3, 4+4+4+3 or 5+4+3+3?

Rules (docs/rules/continental.md, C.1 items 3-4 and C.2): runs only, each run is >= 3 consecutive positions of
one suit on positions 1..14 (ace low = 1, 2..13, ace high = 14, no K-A-2 wrap), one card per position, a physical
card in one run only. All 2s and jokers are wild and take a declared position; a 2 may sit at its own position
but still counts as a deuce, never as the run's natural. Every run holds >= 1 natural (not a 2, not a joker).
Same-suit runs may touch or overlap. The whole hand (exactly the pattern's total) must be used.

Algorithm. Wilds are fungible and runs only meet through the naturals, so a split is: the naturals of each suit
cut into groups of distinct positions, each group getting a run whose length L is >= the group's span (the run
is laid over the group; wilds fill the other places). The pattern's total is the hand size, so the number of
wild places always equals the number of wilds, and the problem splits by suit: a per-suit dynamic programme
finds every multiset of run lengths that can hold exactly that suit's naturals (see ``_Solver._suit_dp``), and
the suits' multisets (int bit masks over the sub-multisets of the patterns) are added up against the patterns.
Exact-safe pre-filters run first: the hand size, and a lower bound on the number of runs of each suit (greedy
cover of its naturals by windows of the longest run length, a doubled card needing two) that rejects about 98%
of random dealt hands in a few microseconds. Per-suit results are memoised in a bounded cache.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from ..core._impl import install
from ..core.cards import JOKER, NUM_KINDS, NUM_RANKS, NUM_SUITS

RUN_LENGTH_PATTERNS: tuple[tuple[int, ...], ...] = ((3, 3, 3, 3, 3), (4, 4, 4, 3), (5, 4, 3, 3))
MIN_RUN = 3
MAX_POS = 14  # ace high
DEUCE_KINDS = tuple(s * NUM_RANKS + 1 for s in range(NUM_SUITS))
NO_WILD_W = 10  # W when the hand holds no 2 and no joker

_LOW = sum(1 << (8 * i) for i in range(MAX_POS))  # bit 0 of each of the 14 position bytes
_HIGH_BITS = _LOW * 0xFC  # any byte >= 4
_NO_DEUCE = (1 << (8 * NUM_RANKS)) - 1 - (0xFF << 8)  # the 13 rank bytes less the 2's byte
_ACE_HIGH_BIT = 1 << (8 * (MAX_POS - 1))
_CACHE_LIMIT = 100_000
#: True in the compiled twin (``rummy_env._compiled.continental_hand``, C types from ``_compiled/continental_hand.pxd``):
#: ``fitting_discards`` then first tries ``_hopeless``, a C-loop form of the solver's run-count pre-filter (the
#: one branch on it, which says why)
_TYPED = __name__.startswith("rummy_env._compiled.")
#: ``_hopeless``'s memo: (solver id, 2-bit packed naturals of one suit) -> ``_Solver.suit_bound`` of that suit
_PACKED_BOUNDS: dict[int, int] = {}


class Run(NamedTuple):
    """One run of a split: its suit, lowest position (1..14) and the kinds at positions low..low+len-1."""

    suit: int
    low: int
    cards: list[int]


def count_wilds(counts: Sequence[int]) -> tuple[int, int]:
    """Number of 2s (any suit, wild or at their own place) and number of jokers in a hand."""
    return counts[1] + counts[14] + counts[27] + counts[40], counts[JOKER]


def payment_w(counts: Sequence[int]) -> int:
    """Payment term W: #2s + 2 * #jokers if that is > 0, else 10."""
    twos, jokers = count_wilds(counts)
    w = twos + 2 * jokers
    return w if w > 0 else NO_WILD_W


def _min_windows(m1: int, m2: int, win: int, limit: int) -> int:
    """Fewest windows (``win`` bytes) covering byte-mask m1 once and m2 twice; stops once above ``limit``."""
    n = 0
    while m1:
        low = m1 & -m1
        w = low * win
        if m2 & low:
            n += 2
            m1 &= ~w
        else:
            n += 1
            m1 = (m1 & ~w) | (m2 & w)
        m2 &= ~w
        if n > limit:
            break
    return n


class _Solver:
    """Run-length rules (patterns, min_run) with their derived tables and per-suit memo."""

    def __init__(self, patterns: Iterable[Iterable[int]], min_run: int) -> None:
        """Validate the patterns and build the length-multiset codes."""
        pats = tuple(tuple(sorted((int(x) for x in p), reverse=True)) for p in patterns)
        if not pats or any(not p for p in pats):
            raise ValueError(f"run length patterns must be non-empty, got {patterns!r}")
        for p in pats:
            for length in p:
                if not max(1, min_run) <= length <= MAX_POS:
                    raise ValueError(f"run length {length} in {p} is outside {max(1, min_run)}..{MAX_POS}")
            if len(p) > 255:
                raise ValueError(f"pattern {p} has too many runs")
        self.patterns = pats
        self.min_run = min_run
        self.lengths = tuple(sorted({x for p in pats for x in p}))
        self.maxlen = self.lengths[-1]
        self.maxruns = max(len(p) for p in pats)
        self.hand_sizes = frozenset(sum(p) for p in pats)
        self.win = sum(1 << (8 * i) for i in range(self.maxlen))
        # a multiset of run lengths is coded with one byte per length: code[L] = 256 ** (L - 1)
        self.code = {x: 1 << (8 * (x - 1)) for x in self.lengths}
        self.pattern_code = {sum(self.code[x] for x in p): p for p in pats}
        self.subs: dict[int, int] = {}  # code of every sub-multiset of a pattern -> its number of runs
        for p in pats:
            self._add_subs(p)
        self.slots = {c: sum(x * ((c >> (8 * (x - 1))) & 0xFF) for x in self.lengths) for c in self.subs}
        self.minlen = self.lengths[0]
        # sub-multisets are also numbered, so a suit's options can be an int bit mask (cheap to cache, no GC)
        self.sub_codes = sorted(self.subs)
        self.sub_index = {c: i for i, c in enumerate(self.sub_codes)}
        self.sum_index = [
            [self.sub_index.get(a + b, -1) for b in self.sub_codes] for a in self.sub_codes
        ]  # index of a + b, or -1
        self.full_mask: dict[int, int] = {}  # hand size -> mask of the patterns of that size
        for c, pat in self.pattern_code.items():
            self.full_mask[sum(pat)] = self.full_mask.get(sum(pat), 0) | 1 << self.sub_index[c]
        # the ways to open k runs at one position (a sub-multiset of k runs): (code, lengths ascending) and
        # (index, lengths ascending), for k = 0..maxruns; add_rows[j][i]: index of sub i + sub j, or -1
        self.openings: list[list[tuple[int, tuple[int, ...]]]] = [[] for _ in range(self.maxruns + 1)]
        for c in self.sub_codes:
            ls = tuple(x for x in self.lengths for _ in range((c >> (8 * (x - 1))) & 0xFF))
            self.openings[len(ls)].append((c, ls))
        self.open_idx = [[(self.sub_index[c], ls) for c, ls in opts] for opts in self.openings]
        self.add_bits = max(1, len(self.sub_codes).bit_length())
        self.add_rows = [[self.sum_index[i][j] for i in range(len(self.sub_codes))] for j in range(len(self.sub_codes))]
        self.zero_bit = 1 << self.sub_index[0]
        self._limit_masks: dict[int, list[int]] = {}
        self._shift_memo: dict[int, int] = {}
        self._bounds: dict[int, int] = {}
        self.cache: dict[int, int] = {}

    def _add_subs(self, pattern: tuple[int, ...]) -> None:
        """Add every sub-multiset of ``pattern`` to ``subs``."""
        items = sorted(set(pattern))
        mult = [pattern.count(x) for x in items]

        def rec(i: int, code: int, runs: int) -> None:
            if i == len(items):
                self.subs[code] = runs
                return
            for c in range(mult[i] + 1):
                rec(i + 1, code + c * self.code[items[i]], runs + c)

        rec(0, 0, 0)

    # ----------------------------------------------------------------- hot path

    def can_go_out(self, counts: Sequence[int]) -> bool:
        """Exact going-out test (see module doc)."""
        found = self._suits(counts)
        return found is not None and self._feasible(self._suit_options(*found), found[0])

    def _suits(self, counts: Sequence[int]) -> tuple[int, list[int], list[int]] | None:
        """(total, per-suit keys, per-suit run lower bounds) of the suits holding naturals, or None when the hand
        size or the run-count bound already rules the hand out."""
        if not isinstance(counts, list | tuple):
            counts = [int(x) for x in counts]
        if len(counts) != NUM_KINDS:
            raise ValueError(f"counts must have {NUM_KINDS} entries, got {len(counts)}")
        total = sum(counts)
        if total not in self.hand_sizes:
            return None
        try:
            bs = bytes(counts)
        except ValueError:
            raise ValueError(f"counts must be integers 0..255, got {list(counts)!r}") from None
        keys = []
        bounds = []
        bound = 0
        maxruns = self.maxruns
        win = self.win
        for b in (0, 13, 26, 39):
            key = int.from_bytes(bs[b : b + 13], "little") & _NO_DEUCE
            if not key:
                continue
            keys.append(key)
            rest = key & ~0xFF
            if rest & _HIGH_BITS or rest & (rest >> 1) & _LOW:
                bounds.append(1)  # a count >= 3 (never with a 2-deck shoe): only the trivial bound
                bound += 1
                continue
            m1 = (rest | (rest >> 1)) & _LOW
            m2 = (rest >> 1) & _LOW
            left = maxruns - bound
            aces = key & 0xFF
            if aces == 0:
                n = _min_windows(m1, m2, win, left)
            elif aces == 1:
                n = _min_windows(m1 | 1, m2, win, left)
                n = min(n, _min_windows(m1 | _ACE_HIGH_BIT, m2, win, n))
            elif aces == 2:
                n = _min_windows(m1 | 1, m2 | 1, win, left)
                n = min(n, _min_windows(m1 | 1 | _ACE_HIGH_BIT, m2, win, n))
                n = min(n, _min_windows(m1 | _ACE_HIGH_BIT, m2 | _ACE_HIGH_BIT, win, n))
            else:
                n = max(1, _min_windows(m1, m2, win, left))
            bound += n
            if bound > maxruns:
                return None
            bounds.append(n)
        if not keys:
            return None
        return total, keys, bounds

    def suit_bound(self, key: int) -> int:
        """The lower bound of ``_suits`` on the runs one suit's naturals (byte-packed ``key``) need; any value above
        ``maxruns`` means "more than the patterns allow". Memoised."""
        n = self._bounds.get(key)
        if n is not None:
            return n
        if not key:
            n = 0
        else:
            rest = key & ~0xFF
            win = self.win
            limit = self.maxruns + 1
            if rest & _HIGH_BITS or rest & (rest >> 1) & _LOW:
                n = 1
            else:
                m1 = (rest | (rest >> 1)) & _LOW
                m2 = (rest >> 1) & _LOW
                aces = key & 0xFF
                if aces == 0:
                    n = _min_windows(m1, m2, win, limit)
                elif aces == 1:
                    n = _min_windows(m1 | 1, m2, win, limit)
                    n = min(n, _min_windows(m1 | _ACE_HIGH_BIT, m2, win, n))
                elif aces == 2:
                    n = _min_windows(m1 | 1, m2 | 1, win, limit)
                    n = min(n, _min_windows(m1 | 1 | _ACE_HIGH_BIT, m2, win, n))
                    n = min(n, _min_windows(m1 | _ACE_HIGH_BIT, m2 | _ACE_HIGH_BIT, win, n))
                else:
                    n = max(1, _min_windows(m1, m2, win, limit))
        if len(self._bounds) >= _CACHE_LIMIT:
            self._bounds.clear()
        self._bounds[key] = n
        return n

    def fitting_discards(self, counts: list[int], kinds: Iterable[int]) -> list[int]:
        """The kinds among ``kinds`` (held in ``counts``) whose removal leaves a hand that goes out.

        Exact: each candidate first meets the run-count bound of ``_suits`` on the hand without it (computed per
        suit, so only the suit that loses the card is recomputed), and the candidates that pass it get the full
        ``can_go_out``. The per-suit bound is a minimum window cover (the greedy of ``_min_windows`` is optimal),
        so removing one card lowers it by at most 1: when the whole hand's bound exceeds the runs allowed by 2 or
        more, no discard can fit and the candidates are not looked at (most random 16-card hands).
        """
        if sum(counts) - 1 not in self.hand_sizes:
            return []
        try:
            bs = bytes(counts)
        except ValueError:
            raise ValueError(f"counts must be integers 0..255, got {list(counts)!r}") from None
        keys = [int.from_bytes(bs[b : b + 13], "little") & _NO_DEUCE for b in (0, 13, 26, 39)]
        bounds = [self.suit_bound(k) for k in keys]
        total = sum(bounds)
        maxruns = self.maxruns
        if total - 1 > maxruns:
            return []
        out = []
        for k in kinds:
            if k == JOKER or k % NUM_RANKS == 1:  # a wild: the naturals (and so the bounds) stay
                bound = total
            else:
                s, r = divmod(k, NUM_RANKS)
                bound = total - bounds[s] + self.suit_bound(keys[s] - (1 << (8 * r)))
            if bound > maxruns:
                continue
            counts[k] -= 1
            try:
                if self.can_go_out(counts):
                    out.append(k)
            finally:
                counts[k] += 1
        return out

    def _suit_options(self, total: int, keys: list[int], bounds: list[int]) -> list[int]:
        """Per suit, the mask of length multisets its naturals can fill within what the other suits leave over."""
        spare_runs = self.maxruns - sum(bounds)
        minlen = self.minlen
        sizes = [_key_size(key) for key in keys]
        need = [max(n, minlen * bd) for n, bd in zip(sizes, bounds, strict=True)]  # slots each suit needs at least
        spare_slots = total - sum(need)
        return [
            self._options(key, spare_slots + nd, spare_runs + bd)
            for key, bd, nd in zip(keys, bounds, need, strict=True)
        ]

    def _feasible(self, masks: list[int], total: int) -> bool:
        """True when one multiset per suit (from its mask) adds up to a pattern of ``total`` cards."""
        sum_index = self.sum_index
        reach = self.zero_bit
        for opts in masks:
            nxt = 0
            r = reach
            while r:
                low = r & -r
                r ^= low
                row = sum_index[low.bit_length() - 1]
                o = opts
                while o:
                    b = o & -o
                    o ^= b
                    i = row[b.bit_length() - 1]
                    if i >= 0:
                        nxt |= 1 << i
            if not nxt:
                return False
            reach = nxt
        return bool(reach & self.full_mask.get(total, 0))

    def _choose(self, masks: list[int], total: int) -> list[int] | None:
        """One length-multiset code per suit adding up to a pattern of ``total`` cards, or None."""
        codes = self.sub_codes
        reach: dict[int, list[int]] = {0: []}
        for opts in masks:
            nxt: dict[int, list[int]] = {}
            for a, chosen in reach.items():
                for i, o in enumerate(codes):
                    if opts >> i & 1 and a + o in self.subs and a + o not in nxt:
                        nxt[a + o] = [*chosen, o]
            reach = nxt
        full = self.full_mask.get(total, 0)
        for c, chosen in reach.items():
            if full >> self.sub_index[c] & 1:
                return chosen
        return None

    def _options(self, key: int, max_slots: int, max_runs: int) -> int:
        """Memoised mask of length multisets (<= max_slots cards, <= max_runs runs) for one suit's naturals ``key``."""
        if max_slots < 0 or max_runs < 0:
            return 0
        ck = key | (max_slots << 112) | (max_runs << 128)
        res = self.cache.get(ck)
        if res is None:
            if len(self.cache) >= _CACHE_LIMIT:
                self.cache.clear()
            res = 0
            for nat in _ace_splits(key):
                res |= self._suit_dp(nat, max_slots, max_runs)
            self.cache[ck] = res
        return res

    def _limits(self, max_slots: int, max_runs: int) -> list[int]:
        """Masks of the multisets that still leave room for ``lb`` more runs, for lb = 0..maxruns + 1."""
        key = max_slots << 16 | max_runs
        ok = self._limit_masks.get(key)
        if ok is None:
            ok = []
            for lb in range(self.maxruns + 2):
                m = 0
                for i, c in enumerate(self.sub_codes):
                    if self.subs[c] + lb <= max_runs and self.slots[c] + self.minlen * lb <= max_slots:
                        m |= 1 << i
                ok.append(m)
            self._limit_masks[key] = ok
        return ok

    def _shift(self, mask: int, add: int) -> int:
        """The mask of {a + add} over the multisets a in ``mask`` (sums outside every pattern dropped)."""
        key = mask << self.add_bits | add
        out = self._shift_memo.get(key)
        if out is None:
            out = 0
            row = self.add_rows[add]
            m = mask
            while m:
                low = m & -m
                m ^= low
                i = row[low.bit_length() - 1]
                if i >= 0:
                    out |= 1 << i
            if len(self._shift_memo) >= _CACHE_LIMIT:
                self._shift_memo.clear()
            self._shift_memo[key] = out
        return out

    def _suit_dp(self, nat: list[int], max_slots: int, max_runs: int) -> int:
        """Mask of the length multisets (<= max_slots cards, <= max_runs runs) that can hold exactly the naturals
        ``nat[1..14]`` of one suit.

        A run is opened by its lowest natural p with its final length L; it can then take at most one natural
        at each position of p..p+L-1 (it is laid on p..p+L-1, or on 15-L..14 near the top) and wilds fill the
        rest. Taking a natural costs an open run nothing, so at each position only the number of new runs
        matters. State: the last positions the open runs reach; value: the mask of run-length multisets so far.

        Canonical form: at a later position q the open runs only matter through min(#runs reaching q, nat[q]),
        and the number reaching q falls as q grows, so the t-th furthest-reaching run is cut back to the last
        position holding >= t naturals (runs beyond the largest count are dropped). Look-ahead: the naturals
        after the furthest open run need at least ``need`` more runs (disjoint-window argument).
        """
        maxlen = self.maxlen
        top = MAX_POS + maxlen + 1
        depth = max(nat)
        snaps = []  # snaps[t][e]: last position <= e holding > t naturals (0 if none)
        for t in range(depth):
            row = [0] * top
            last = 0
            for e in range(1, top):
                if e <= MAX_POS and nat[e] > t:
                    last = e
                row[e] = last
            snaps.append(row)
        need = [0] * (top + maxlen)  # runs that must start at or after q (capped at maxruns + 1)
        cap = self.maxruns + 1
        for q in range(MAX_POS, 0, -1):
            need[q] = min(cap, nat[q] + need[q + maxlen]) if nat[q] else need[q + 1]
        ok = self._limits(max_slots, max_runs)
        shift = self._shift
        memo = self._shift_memo
        ab = self.add_bits
        open_idx = self.open_idx
        kmax = len(open_idx) - 1
        s0 = snaps[0]
        s1 = snaps[1] if depth > 1 else s0
        # canonical ends are positions holding naturals, beyond the last one handled, so all reach p
        states: dict[tuple[int, ...], int] = {(): self.zero_bit & ok[need[1]]}
        for p in range(1, MAX_POS + 1):
            c = nat[p]
            if not c:
                continue
            raws = [
                [(add, tuple(p + x - 1 for x in reversed(ls))) for add, ls in open_idx[k]] if k <= kmax else []
                for k in range(c + 1)
            ]
            new: dict[tuple[int, ...], int] = {}
            get = new.get
            for ends, mask in states.items():
                nl = len(ends)
                if c <= nl:  # no new run: the open runs take the naturals
                    e2 = ends if ends[-1] != p else tuple(e for e in ends if e != p)
                    m2 = mask & ok[need[(e2[0] if e2 else p) + 1]]
                    if m2:
                        new[e2] = get(e2, 0) | m2
                for k in range(max(1, c - nl), c + 1):
                    for add, raw in raws[k]:
                        if depth == 1:  # only the furthest-reaching run matters
                            v = s0[raw[0] if not ends or raw[0] > ends[0] else ends[0]]
                            e2 = (v,) if v > p else ()
                        elif depth == 2:  # the two furthest-reaching runs matter
                            merged = sorted(ends + raw, reverse=True)
                            v = s0[merged[0]]
                            w = s1[merged[1]] if len(merged) > 1 else 0
                            e2 = ((v, w) if w > p else (v,)) if v > p else ()
                        else:
                            merged = sorted(ends + raw, reverse=True)
                            e2 = tuple(
                                [v for v in [snaps[t][merged[t]] for t in range(min(depth, len(merged)))] if v > p]
                            )
                        m2 = memo.get(mask << ab | add)
                        if m2 is None:
                            m2 = shift(mask, add)
                        m2 &= ok[need[(e2[0] if e2 else p) + 1]]
                        if m2:
                            new[e2] = get(e2, 0) | m2
            if not new:
                return 0
            states = new
        out = 0
        for m in states.values():
            out |= m
        return out

    # ----------------------------------------------------------------- reconstruction (not hot)

    def find_partition(self, counts: Sequence[int], one_suit: bool) -> list[Run] | None:
        """A valid split (all runs of one suit if ``one_suit``), or None."""
        if not isinstance(counts, list | tuple):
            counts = [int(x) for x in counts]
        if len(counts) != NUM_KINDS:
            raise ValueError(f"counts must have {NUM_KINDS} entries, got {len(counts)}")
        if any(c < 0 for c in counts):
            raise ValueError(f"counts must be non-negative, got {list(counts)!r}")
        found = self._suits(counts)
        if found is None:
            return None
        total, keys, _ = found
        suits = [s for s in range(NUM_SUITS) if _suit_key(counts, s)]
        if one_suit and len(suits) > 1:
            return None
        chosen = self._choose(self._suit_options(*found), total)
        if chosen is None:
            return None
        runs: list[tuple[int, int, tuple[int, ...]]] = []  # suit, length, natural positions
        for s, key, target in zip(suits, keys, chosen, strict=True):
            for nat in _ace_splits(key):
                suit_runs = self._suit_runs(nat, target)
                if suit_runs is not None:
                    runs.extend((s, length, positions) for _, length, positions in suit_runs)
                    break
            else:  # pragma: no cover - the DP said this code is reachable
                raise AssertionError("continental reconstruction failed")
        return _fill(runs, counts)

    def _suit_runs(self, nat: list[int], target: int) -> list[tuple[int, int, tuple[int, ...]]] | None:
        """Runs (first natural, length, natural positions) of one suit whose length code is ``target``."""
        maxruns = self.maxruns
        subs = self.subs
        occ = [p for p in range(1, MAX_POS + 1) if nat[p]]
        failed: set[tuple[int, tuple[int, ...], int]] = set()

        def rec(i: int, runs: list[tuple[int, int, tuple[int, ...]]], code: int) -> bool:
            if i == len(occ):
                return code == target
            memo = (i, tuple(sorted(f + x - 1 for f, x, _ in runs if f + x - 1 >= occ[i])), code)
            if memo in failed:
                return False
            p = occ[i]
            c = nat[p]
            live = [j for j, (f, x, _) in enumerate(runs) if f + x - 1 >= p]
            for k in range(max(0, c - len(live)), min(c, maxruns - subs[code]) + 1):
                for add, ls in self.openings[k]:
                    if code + add not in subs:
                        continue
                    nxt = list(runs)
                    for j in live[: c - k]:
                        f, x, pos = nxt[j]
                        nxt[j] = (f, x, (*pos, p))
                    nxt.extend((p, x, (p,)) for x in ls)
                    if rec(i + 1, nxt, code + add):
                        runs[:] = nxt
                        return True
            failed.add(memo)
            return False

        out: list[tuple[int, int, tuple[int, ...]]] = []
        return out if rec(0, out, 0) else None


def _suit_key(counts: Sequence[int], suit: int) -> int:
    """Byte-packed counts of the naturals (ranks A, 3..K) of ``suit``; 0 when it has none."""
    b = suit * NUM_RANKS
    return sum(counts[b + r] << (8 * r) for r in range(NUM_RANKS) if r != 1)


def _key_size(key: int) -> int:
    """Number of naturals in a byte-packed suit key."""
    return sum(key.to_bytes(13, "little"))


def _ace_splits(key: int) -> list[list[int]]:
    """Natural counts by position 0..15 for every split of the aces between position 1 and position 14."""
    base = [0] * (MAX_POS + 2)
    for r in range(2, NUM_RANKS):
        base[r + 1] = (key >> (8 * r)) & 0xFF
    aces = key & 0xFF
    out = []
    for low in range(aces, -1, -1):
        nat = list(base)
        nat[1] = low
        nat[MAX_POS] = aces - low
        out.append(nat)
    return out


def _fill(runs: list[tuple[int, int, tuple[int, ...]]], counts: Sequence[int]) -> list[Run]:
    """Lay (suit, length, natural positions) runs on the board and put the hand's wilds on the empty positions.

    A run goes on first..first+L-1 (or 15-L..14 near the top), except that a suit's own 2 is declared at its
    own place (position 2) when the run can cover it.
    """
    deuces = {s: counts[DEUCE_KINDS[s]] for s in range(NUM_SUITS)}
    out: list[Run] = []
    holes: list[tuple[int, int]] = []  # run index, offset
    for suit, length, nats in sorted(runs):
        first, last = min(nats), max(nats)
        low = min(first, MAX_POS + 1 - length)
        lowest = max(1, last - length + 1)
        if deuces[suit] and lowest <= 2 and 2 not in nats:
            low = lowest
        cards = []
        for pos in range(low, low + length):
            if pos in nats:
                cards.append(suit * NUM_RANKS + (0 if pos == MAX_POS else pos - 1))
            elif pos == 2 and deuces[suit]:
                deuces[suit] -= 1  # a 2 at its own place (still a wild)
                cards.append(DEUCE_KINDS[suit])
            else:
                cards.append(-1)
                holes.append((len(out), pos - low))
        out.append(Run(suit, low, cards))
    pool = [DEUCE_KINDS[s] for s in range(NUM_SUITS) for _ in range(deuces[s])] + [JOKER] * counts[JOKER]
    if len(pool) != len(holes):  # pragma: no cover - the slot count argument guarantees equality
        raise AssertionError("continental wild count mismatch")
    for (i, off), kind in zip(holes, pool, strict=True):
        out[i].cards[off] = kind
    out.sort(key=lambda r: (r.suit, r.low, len(r.cards)))
    return out


_SOLVERS: dict[tuple[object, int], _Solver] = {}


def _solver(patterns: Iterable[Iterable[int]], min_run: int) -> _Solver:
    """The (cached) solver for these rules; a dict hit when the rules object passes the same patterns again."""
    if patterns is RUN_LENGTH_PATTERNS and min_run == MIN_RUN:
        return _DEFAULT
    try:
        return _SOLVERS[(patterns, min_run)]
    except (KeyError, TypeError):
        pass
    key = (tuple(tuple(int(x) for x in p) for p in patterns), min_run)
    solver = _SOLVERS.get(key)
    if solver is None:
        solver = _SOLVERS[key] = _Solver(key[0], min_run)
    try:
        _SOLVERS[(patterns, min_run)] = solver
    except TypeError:  # unhashable patterns (lists): the normalised key above still finds it
        pass
    return solver


_DEFAULT = _SOLVERS[(RUN_LENGTH_PATTERNS, MIN_RUN)] = _Solver(RUN_LENGTH_PATTERNS, MIN_RUN)


def can_go_out(
    counts: Sequence[int],
    *,
    patterns: Sequence[Sequence[int]] = RUN_LENGTH_PATTERNS,
    min_run: int = MIN_RUN,
) -> bool:
    """True when the hand (53 counts) splits exactly into runs of one of ``patterns`` (hot path)."""
    solver = _solver(patterns, min_run)
    return solver.can_go_out(counts)


def fitting_discards(
    counts: Sequence[int],
    kinds: Iterable[int] | None = None,
    *,
    patterns: Sequence[Sequence[int]] = RUN_LENGTH_PATTERNS,
    min_run: int = MIN_RUN,
) -> list[int]:
    """The kinds (among ``kinds``, default every kind held) whose discard leaves a hand that goes out, in the order
    given; the same as ``can_go_out`` on each hand less one card, much faster on hands that are far from it."""
    solver = _solver(patterns, min_run)
    hand = list(counts)
    if len(hand) != NUM_KINDS:
        raise ValueError(f"counts must have {NUM_KINDS} entries, got {len(hand)}")
    todo = [k for k in range(NUM_KINDS) if hand[k]] if kinds is None else [k for k in kinds if hand[k]]
    if _TYPED and _hopeless(solver, hand):
        # the price of the speed: most hands asked fail the solver's first tests, which the twin repeats in C loops
        # on a C array before any Python object is made; pure Python runs the solver's own (built-in) form faster.
        # tests/engine/test_legal_fast.py::test_the_continental_prefilter_only_refuses_hands_the_solver_refuses
        return []
    return solver.fitting_discards(hand, todo)


def _hopeless(solver: _Solver, hand: list[int]) -> bool:
    """True when ``solver.fitting_discards(hand, ...)`` returns [] at its first tests: the hand size, or the run-count
    bound of the whole hand exceeding the runs allowed by 2 or more (``_Solver.fitting_discards``). The same
    ``suit_bound`` values, memoised by a 2-bit packing of each suit's naturals; False (the solver decides) for counts
    outside 0..3. Only the typed twin calls it (``tests/engine/test_legal_fast.py`` compares it with the solver)."""
    c = list(hand)  # a C array in the typed twin
    total = 0
    for k in range(NUM_KINDS):
        v = c[k]
        if v < 0 or v > 3:
            return False
        total += v
    if total - 1 not in solver.hand_sizes:
        return True
    sid = id(solver) << 32
    bound = 0
    for s in range(NUM_SUITS):
        b = s * NUM_RANKS
        packed = 0
        for r in range(NUM_RANKS):
            if r != 1:  # the 2s are wild
                packed |= c[b + r] << (2 * r)
        n = _PACKED_BOUNDS.get(sid | packed)
        if n is None:
            if len(_PACKED_BOUNDS) >= _CACHE_LIMIT:
                _PACKED_BOUNDS.clear()
            key = int.from_bytes(bytes(hand[b : b + NUM_RANKS]), "little") & _NO_DEUCE
            n = _PACKED_BOUNDS[sid | packed] = solver.suit_bound(key)
        bound += n
    return bound - 1 > solver.maxruns


def find_partition(
    counts: Sequence[int],
    *,
    one_suit: bool = False,
    patterns: Sequence[Sequence[int]] = RUN_LENGTH_PATTERNS,
    min_run: int = MIN_RUN,
) -> list[Run] | None:
    """A valid split into Runs (all of one suit when ``one_suit``), or None if there is none."""
    solver = _solver(patterns, min_run)
    return solver.find_partition(counts, one_suit)


def one_suit_possible(
    counts: Sequence[int],
    *,
    patterns: Sequence[Sequence[int]] = RUN_LENGTH_PATTERNS,
    min_run: int = MIN_RUN,
) -> bool:
    """True when a valid split exists with every run of one suit (wilds take their run's suit)."""
    solver = _solver(patterns, min_run)
    found = solver._suits(counts)
    if found is None or len(found[1]) != 1:
        return False
    return solver._feasible(solver._suit_options(*found), found[0])


# --------------------------------------------------------------------- generators and benchmark


def random_valid_counts(
    rng: random.Random,
    *,
    pattern: Sequence[int] | None = None,
    wild_rate: float = 0.15,
    one_suit: bool = False,
) -> list[int]:
    """A random hand that goes out: runs of a random pattern, some cards replaced by wilds, shoe limits kept."""
    while True:
        pat = list(pattern) if pattern is not None else list(rng.choice(RUN_LENGTH_PATTERNS))
        suit0 = rng.randrange(NUM_SUITS)
        counts = [0] * NUM_KINDS
        for length in pat:
            suit = suit0 if one_suit else rng.randrange(NUM_SUITS)
            low = rng.randint(1, MAX_POS - length + 1)
            positions = list(range(low, low + length))
            keep = rng.choice([p for p in positions if p != 2])  # the run's guaranteed natural
            for pos in positions:
                if pos == 2 or (pos != keep and rng.random() < wild_rate):
                    kind = JOKER if rng.random() < 0.2 else DEUCE_KINDS[rng.randrange(NUM_SUITS)]
                else:
                    kind = suit * NUM_RANKS + (0 if pos == MAX_POS else pos - 1)
                counts[kind] += 1
        if max(counts[:JOKER]) <= 2 and counts[JOKER] <= 2:
            return counts


def random_shoe_counts(rng: random.Random, size: int = 15) -> list[int]:
    """Counts of ``size`` cards dealt at random from the 106-card shoe (2 decks + 2 jokers)."""
    counts = [0] * NUM_KINDS
    for cid in rng.sample(range(106), size):
        counts[JOKER if cid >= 104 else cid % 52] += 1
    return counts


def bench_can_go_out(n: int = 20000, seed: int = 0) -> dict[str, float]:
    """Microseconds per can_go_out call on ``n`` random 15-card hands dealt from the 106-card shoe and on ``n``
    generated valid hands, in CPU time (time spent descheduled by a busy machine is left out).

    ``*_us``: mean of a first pass from an empty memo; ``*_p50_us`` / ``*_p99_us`` / ``*_max_us``: single calls
    of that pass (each timed with ``time.thread_time``, about 0.5 us overhead included); ``*_warm_us``: mean of
    a second pass over the same hands; ``*_true_fraction``: share of hands that go out.
    """
    rng = random.Random(seed)
    sets = {
        "random": [random_shoe_counts(rng) for _ in range(n)],
        "valid": [random_valid_counts(rng) for _ in range(n)],
    }
    out: dict[str, float] = {}
    clock = time.thread_time
    for name, hands in sets.items():
        _DEFAULT.cache.clear()
        times = []
        hits = 0
        for h in hands:
            t0 = clock()
            hit = can_go_out(h)
            times.append(clock() - t0)
            hits += hit
        t0 = clock()
        for h in hands:
            can_go_out(h)
        warm = clock() - t0
        out[f"{name}_us"] = sum(times) / len(times) * 1e6
        times.sort()
        out[f"{name}_p50_us"] = times[len(times) // 2] * 1e6
        out[f"{name}_p99_us"] = times[min(len(times) - 1, len(times) * 99 // 100)] * 1e6
        out[f"{name}_max_us"] = times[-1] * 1e6
        out[f"{name}_warm_us"] = warm / len(hands) * 1e6
        out[f"{name}_true_fraction"] = hits / len(hands)
    return out


#: the functions the compiled twin (``rummy_env._compiled.continental_hand``, same source) takes over when
#: ``RUMMY_ENV_IMPL`` selects it (``core/_impl.py``; not ``find_partition``: it makes ``Run`` objects, a class of the
#: module)
NAMES = ("count_wilds", "payment_w", "can_go_out", "fitting_discards", "one_suit_possible")
install(globals(), NAMES)
