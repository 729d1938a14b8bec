"""How far a Contract Rummy hand is from its goal: pure functions on card counts, used by the contract heuristic.

The measure is the one a club player keeps in his head: *how many cards am I still missing?* A missing card is
weighted by how likely it is to come: ``slot_weight(live)`` is about 1 when many copies are still unseen and grows
when they are gone (``live`` = unseen copies). Jokers fill the dearest missing slots. So a hand's *cost* is roughly
the number of useful draws it still needs; 0 means the contract (or the going out of round 7) is in hand.

* ``contract_structure``: rounds 1-6 before opening -- the cheapest set of ``g`` groups of 3 and ``r`` runs of 4.
* ``final_structure``: round 7 -- three runs (each >= 4) holding the whole hand after the next draw.
* ``opening_plans``: every exact opening the hand can declare now, to pick the one that leaves the best rest.
* ``playable``: the cards of a hand that can be laid off on the table, following chains (8 then 9 on a run to 7).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

from ..core.cards import JOKER, NUM_KINDS, NUM_RANKS
from ..core.melds import GROUP, MAX_POS, RUN, GroupSpec, Meld, RunSpec, lay_off, layoff_fits, pos_kind

NUM_NAT = 52


def slot_weight(live: int) -> float:
    """Expected-difficulty weight of one missing card with ``live`` unseen copies: 3 when none is left (only a joker
    can fill it), 2 with one, 1.67 with two, close to 1 with many."""
    return _WEIGHT[live] if 0 <= live < len(_WEIGHT) else 1.0 + 2.0 / (1 + max(live, 0))


_WEIGHT = tuple(1.0 + 2.0 / (1 + n) for n in range(16))


def kind_weights(live: list[int] | tuple[int, ...]) -> tuple[float, ...]:
    """``slot_weight`` of every kind."""
    return tuple(_WEIGHT[n] if 0 <= n < 16 else slot_weight(n) for n in live)


class Structure(NamedTuple):
    """The best target found for a hand: its cost, the cards it uses, and its melds."""

    cost: float
    #: missing cards after jokers
    missing: int
    #: copies of each kind the target uses (jokers included)
    used: tuple[int, ...]
    #: ("group", rank) and ("run", suit, low, high) targets
    melds: tuple[tuple[int | str, ...], ...]


def _apply_jokers(weights: list[float], jokers: int) -> tuple[float, int]:
    """Jokers fill the dearest missing slots: (cost, missing cards) left."""
    if jokers <= 0:
        return sum(weights), len(weights)
    if jokers >= len(weights):
        return 0.0, 0
    ws = sorted(weights, reverse=True)
    return sum(ws[jokers:]), len(ws) - jokers


# --------------------------------------------------------------------------------------------------------------
# Rounds 1-6: the contract before opening
# --------------------------------------------------------------------------------------------------------------


def _best_groups(rank_n: list[int], rank_w: list[float], g: int, size: int) -> list[tuple[float, int, int, int]]:
    """The ``g`` cheapest groups: (cost, rank index, missing, nth group of that rank); a second group of one rank
    (two decks) costs what the first leaves short."""
    if g == 1:
        best = (float("inf"), 0, 0, 1)
        for q in range(NUM_RANKS):
            n = rank_n[q]
            if n >= size:
                return [(0.0, q, 0, 1)]
            c = (size - n) * rank_w[q]
            if c < best[0]:
                best = (c, q, size - n, 1)
        return [best]
    opts: list[tuple[float, int, int, int]] = []
    for q in range(NUM_RANKS):
        n = rank_n[q]
        m1 = size - n if n < size else 0
        m2 = (2 * size - n if n < 2 * size else 0) - m1
        opts.append((m1 * rank_w[q], q, m1, 1))
        opts.append((m2 * rank_w[q] + 1e-6, q, m2, 2))  # never before the first group of its rank
    opts.sort()
    return opts[:g]


def _windows(counts: list[int] | tuple[int, ...], size: int, kw: tuple[float, ...]) -> list[tuple[float, int, int]]:
    """Runs of ``size`` positions holding at least one natural of the hand: (missing weight, suit, low)."""
    out = []
    for suit in range(4):
        base = suit * NUM_RANKS
        for low in range(1, MAX_POS - size + 2):
            have = 0
            w = 0.0
            for p in range(low, low + size):
                k = base + (0 if p == MAX_POS else p - 1)
                if counts[k]:
                    have += 1
                else:
                    w += kw[k]
            if have:
                out.append((w, suit, low))
    out.sort()
    return out


def _target_used(
    counts: list[int] | tuple[int, ...],
    runs: tuple[tuple[int, int], ...],
    groups: list[tuple[int, int]],
    size_r: int,
    size_g: int,
    n_missing: int,
) -> list[int]:
    """The cards of ``counts`` a target of ``runs`` ((suit, low) of ``size_r`` positions) and ``groups`` ((rank
    index, missing) of ``size_g`` cards) uses, the jokers filling up to ``n_missing`` gaps."""
    used = [0] * NUM_KINDS
    for s, lo in runs:
        for p in range(lo, lo + size_r):
            k = pos_kind(s, p)
            if counts[k] > used[k]:
                used[k] += 1
    for q, m in groups:
        want = size_g - m
        for s in range(4):
            k = s * NUM_RANKS + q
            take = min(counts[k] - used[k], want)
            if take > 0:
                used[k] += take
                want -= take
    used[JOKER] = min(counts[JOKER], n_missing)
    return used


def contract_structure(
    counts: list[int] | tuple[int, ...], g: int, r: int, live: list[int], rules: Any, max_windows: int = 10
) -> Structure:
    """The cheapest way to ``g`` groups and ``r`` runs of minimum size from ``counts`` (A.1-6 contracts).

    Runs are tried over the windows that hold most of the hand (the ``max_windows`` best), groups take what the
    runs leave; same-suit runs of one opening must not touch (A.1-7).
    """
    size_g, size_r = rules.group_min, rules.run_min
    kw = kind_weights(live)
    jokers = counts[JOKER]
    rank_w = [slot_weight(live[q] + live[q + 13] + live[q + 26] + live[q + 39]) for q in range(NUM_RANKS)]
    nat = list(counts[:NUM_NAT])
    rank_n = [nat[q] + nat[q + 13] + nat[q + 26] + nat[q + 39] for q in range(NUM_RANKS)]
    best: list[Any] = []

    def finish(runs: tuple[tuple[int, int], ...], run_weights: list[float]) -> None:
        groups = _best_groups(rank_n, rank_w, g, size_g) if g else []
        weights = run_weights
        if groups:
            weights = run_weights + [rank_w[q] for _, q, m, _ in groups for _ in range(m)]
        cost, missing = _apply_jokers(weights, jokers)
        if not best or cost < best[0] - 1e-9:
            best[:] = [cost, missing, runs, [(q, m) for _, q, m, _ in groups], len(weights)]

    def take_run(suit: int, low: int) -> tuple[list[float], list[int]]:
        base = suit * NUM_RANKS
        weights = []
        took = []
        for p in range(low, low + size_r):
            q = 0 if p == MAX_POS else p - 1
            k = base + q
            if nat[k]:
                nat[k] -= 1
                rank_n[q] -= 1
                took.append(k)
            else:
                weights.append(kw[k])
        return weights, took

    def give_back(took: list[int]) -> None:
        for k in took:
            nat[k] += 1
            rank_n[k % NUM_RANKS] += 1

    if r == 0:
        finish((), [])
    else:
        wins = _windows(counts, size_r, kw)[:max_windows] or [(size_r * 1.5, 0, 1)]
        adjacent_ban = rules.forbid_adjacent_same_suit_runs

        def rec(r_left: int, start: int, runs: tuple[tuple[int, int], ...], weights: list[float]) -> None:
            if r_left == 0:
                finish(runs, weights)
                return
            base = sum(weights) - 3.0 * jokers  # a joker saves at most 3
            for i in range(start, len(wins)):
                w0, s, lo = wins[i]
                if best and base + w0 * r_left >= best[0] - 1e-9:
                    break  # windows are sorted: none of the rest can beat the best target
                if adjacent_ban and any(s == s2 and (lo == lo2 + size_r or lo2 == lo + size_r) for s2, lo2 in runs):
                    continue
                w, took = take_run(s, lo)
                rec(r_left - 1, i, runs + ((s, lo),), weights + w)
                give_back(took)

        rec(r, 0, (), [])
    cost, missing, runs, groups, n_missing = best
    used = _target_used(counts, runs, groups, size_r, size_g, n_missing)
    melds = tuple((RUN, s, lo, lo + size_r - 1) for s, lo in runs) + tuple((GROUP, q + 1) for q, _ in groups)
    return Structure(cost, missing, tuple(used), melds)


# --------------------------------------------------------------------------------------------------------------
# Round 7: three runs holding the whole hand
# --------------------------------------------------------------------------------------------------------------


@lru_cache(maxsize=1 << 16)
def _suit_frontier(
    pattern: tuple[int, ...], weights: tuple[float, ...], max_len: int
) -> tuple[tuple[tuple[int, float, tuple[tuple[int, int], ...]], ...], ...]:
    """Runs of one suit: for k = 0..3 runs, the options (total length L, value, runs) where value = weighted missing
    positions - L (lower is better); only options that beat every shorter one are kept.

    ``pattern`` = copies of the 13 kinds of the suit, ``weights`` = weight of a missing card per kind. Runs of one
    suit do not overlap and keep a gap (A.1-7); one ace can stand at position 1 or 14, not both.
    """
    aces = pattern[0]

    def have(p: int) -> bool:
        return pattern[0 if p == MAX_POS else p - 1] > 0

    def wt(p: int) -> float:
        return weights[0 if p == MAX_POS else p - 1]

    # (lo, hi, weight of the missing positions); a run longer than 4 that ends on a missing position is never
    # better than the shorter run plus an extension slot (weight 1), so such runs are skipped
    intervals = []
    for lo in range(1, MAX_POS - 2):
        w = 0.0
        for p in range(lo, min(MAX_POS, lo + max_len - 1) + 1):
            if not have(p):
                w += wt(p)
            length = p - lo + 1
            if length == 4 or (length > 4 and have(lo) and have(p)):
                intervals.append((lo, p, w))
    by_k: list[dict[int, tuple[float, tuple[tuple[int, int], ...]]]] = [{0: (0.0, ())}, {}, {}, {}]

    def offer(k: int, length: int, value: float, runs: tuple[tuple[int, int], ...]) -> None:
        cur = by_k[k].get(length)
        if cur is None or value < cur[0] - 1e-9:
            by_k[k][length] = (value, runs)

    def ace_fix(runs: tuple[tuple[int, int], ...]) -> float:
        # one ace cannot fill both position 1 and position 14
        if aces == 1 and any(lo == 1 for lo, _ in runs) and any(hi == MAX_POS for _, hi in runs):
            return 2.0  # the ace missing at one end: one live copy left at best
        return 0.0

    for i, (lo1, hi1, w1) in enumerate(intervals):
        r1 = ((lo1, hi1),)
        offer(1, hi1 - lo1 + 1, w1 - (hi1 - lo1 + 1), r1)
        for lo2, hi2, w2 in intervals[i + 1 :]:
            if lo2 < hi1 + 2:
                continue
            r2 = r1 + ((lo2, hi2),)
            l2 = hi1 - lo1 + 1 + hi2 - lo2 + 1
            offer(2, l2, w1 + w2 + ace_fix(r2) - l2, r2)
            if sum(pattern) >= 8:
                for lo3, hi3, w3 in intervals:
                    if lo3 < hi2 + 2:
                        continue
                    r3 = r2 + ((lo3, hi3),)
                    l3 = l2 + hi3 - lo3 + 1
                    offer(3, l3, w1 + w2 + w3 + ace_fix(r3) - l3, r3)
    out = []
    for k in range(4):
        front = []
        best = float("inf")
        for length in sorted(by_k[k]):
            value, runs = by_k[k][length]
            if value < best - 1e-9:
                best = value
                front.append((length, value, runs))
        out.append(tuple(front))
    return tuple(out)


def final_structure(counts: list[int] | tuple[int, ...], target: int, live: list[int], n_runs: int = 3) -> Structure:
    """Round 7: the cheapest ``n_runs`` runs whose lengths add up to at most ``target`` cards (the hand after the
    next draw); cards short of ``target`` are extension slots of weight 1. Cost 0: the hand goes out now."""
    jokers = counts[JOKER]
    kw = kind_weights(live)
    max_len = max(4, target - 4 * (n_runs - 1))
    fronts = []
    for suit in range(4):
        base = suit * NUM_RANKS
        pattern = tuple(counts[base : base + NUM_RANKS])
        # only the weights of missing cards matter: zero the others so that the cache hits more often
        weights = tuple(0.0 if c else w for c, w in zip(pattern, kw[base : base + NUM_RANKS]))
        fronts.append(_suit_frontier(pattern, weights, max_len))
    # knapsack over suits: (runs, length) -> (value, chosen)
    states: dict[tuple[int, int], tuple[float, tuple[tuple[int, int, int], ...]]] = {(0, 0): (0.0, ())}
    for suit, front in enumerate(fronts):
        new = dict(states)
        for (k, length), (value, chosen) in states.items():
            for k2 in range(1, n_runs - k + 1):
                for l2, v2, runs in front[k2]:
                    if length + l2 > target:
                        break
                    key = (k + k2, length + l2)
                    v = value + v2
                    cur = new.get(key)
                    if cur is None or v < cur[0] - 1e-9:
                        new[key] = (v, chosen + tuple((suit, lo, hi) for lo, hi in runs))
        states = new
    best: tuple[float, tuple[tuple[int, int, int], ...]] | None = None
    for (k, _length), (value, chosen) in states.items():
        if k != n_runs:
            continue
        total = value + target  # = weighted missing + (target - length) extension slots
        if best is None or total < best[0] - 1e-9:
            best = (total, chosen)
    if best is None:
        return Structure(float(target), target, tuple([0] * NUM_KINDS), ())
    total, chosen = best
    used = [0] * NUM_KINDS
    aces_left = {s: counts[s * NUM_RANKS] for s in range(4)}
    for suit, lo, hi in chosen:
        for p in range(lo, hi + 1):
            k = pos_kind(suit, p)
            if p in (1, MAX_POS):
                if aces_left[suit] > 0:
                    aces_left[suit] -= 1
                    used[k] += 1
            elif counts[k] and not used[k]:
                used[k] += 1
    covered = sum(used)
    missing = max(0, target - covered - jokers)
    used[JOKER] = min(jokers, target - covered)
    cost = max(0.0, total - jokers) if missing else 0.0
    return Structure(cost, missing, tuple(used), tuple((RUN, s, lo, hi) for s, lo, hi in chosen))


# --------------------------------------------------------------------------------------------------------------
# Lay-offs and openings
# --------------------------------------------------------------------------------------------------------------


def playable(counts: list[int] | tuple[int, ...], melds: list[Meld], rules: Any) -> list[int]:
    """Copies of each kind of ``counts`` that can be laid off on ``melds``, chains included (the melds are copied;
    jokers last, so they never take a place a natural of the hand wanted)."""
    table = [m.copy() for m in melds]
    left = list(counts)
    out = [0] * NUM_KINDS
    changed = True
    while changed:
        changed = False
        for k in range(NUM_NAT):
            while left[k]:
                spot = _spot(table, k, rules)
                if spot is None:
                    break
                lay_off(spot[0], k, spot[1])
                left[k] -= 1
                out[k] += 1
                changed = True
    if left[JOKER] and any(_spot([m], JOKER, rules) for m in table):
        out[JOKER] = left[JOKER]
    return out


def _spot(table: list[Meld], kind: int, rules: Any) -> tuple[Meld, int] | None:
    for m in table:
        if layoff_fits(m, kind, 0, rules):
            return m, 0
        if m.kind == RUN and layoff_fits(m, kind, 1, rules):
            return m, 1
    return None


def fits_table(kind: int, melds: list[Meld], rules: Any) -> bool:
    """Whether one card of ``kind`` can be laid off on some meld now."""
    return _spot(melds, kind, rules) is not None


class Plan(NamedTuple):
    """An exact opening: its melds (catalog specs) and the hand left afterwards."""

    melds: tuple[GroupSpec | RunSpec, ...]
    rest: tuple[int, ...]


def _group_choices(counts: list[int], q: int, size: int, jokers: int) -> list[tuple[GroupSpec, list[int]]]:
    """Exact groups of rank index ``q``: the fewest jokers the hand allows (and one more), every suit choice."""
    avail = [counts[s * NUM_RANKS + q] for s in range(4)]
    n = sum(avail)
    jmin = max(0, size - n)
    out = []
    for j in range(jmin, min(jokers, size, jmin + 1) + 1):
        seen = set()

        def rec(start: int, cur: list[int], j: int = j, seen: set = seen) -> None:
            if len(cur) == size - j:
                key = tuple(cur)
                if key not in seen:
                    seen.add(key)
                    kinds = [s * NUM_RANKS + q for s in key] + [JOKER] * j
                    out.append((GroupSpec(q + 1, key, j), kinds))
                return
            for s in range(start, 4):
                if cur.count(s) < avail[s]:
                    cur.append(s)
                    rec(s, cur)
                    cur.pop()

        rec(0, [])
    return out


def _run_choices(counts: list[int], size: int, jokers: int) -> list[tuple[RunSpec, list[int], tuple[int, int, int]]]:
    """Exact runs with jokers only where the hand lacks the natural."""
    out = []
    for suit in range(4):
        for low in range(1, MAX_POS - size + 2):
            mask = 0
            kinds = []
            for i in range(size):
                k = pos_kind(suit, low + i)
                if counts[k]:
                    kinds.append(k)
                else:
                    mask |= 1 << i
                    kinds.append(JOKER)
            nj = bin(mask).count("1")
            if nj <= jokers and nj < size:
                out.append((RunSpec(suit, low, mask), kinds, (suit, low, low + size - 1)))
    return out


def opening_plans(
    counts: list[int] | tuple[int, ...],
    g: int,
    r: int,
    rules: Any,
    declared_runs: tuple[tuple[int, int, int], ...] = (),
    limit: int = 3000,
) -> list[Plan]:
    """Exact openings of ``g`` groups and ``r`` runs from ``counts`` (at most ``limit``), each leaving a card."""
    hand = list(counts)
    size_g, size_r = rules.group_min, rules.run_min
    plans: list[Plan] = []
    runs_cands = _run_choices(hand, size_r, hand[JOKER]) if r else []

    def fits(kinds: list[int]) -> bool:
        need: dict[int, int] = {}
        for k in kinds:
            need[k] = need.get(k, 0) + 1
        return all(hand[k] >= c for k, c in need.items())

    def take(kinds: list[int], sign: int) -> None:
        for k in kinds:
            hand[k] -= sign

    def conflicts(span: tuple[int, int, int], chosen: list[tuple[int, int, int]]) -> bool:
        s, lo, hi = span
        for s2, lo2, hi2 in chosen:
            if s2 != s:
                continue
            if rules.opening_runs_distinct_suits:
                return True
            if rules.forbid_adjacent_same_suit_runs and (lo2 == hi + 1 or lo == hi2 + 1):
                return True
        return False

    def rec_runs(r_left: int, start: int, melds: list, spans: list) -> None:
        if len(plans) >= limit:
            return
        if r_left == 0:
            if sum(hand) >= 1:
                plans.append(Plan(tuple(melds), tuple(hand)))
            return
        for i in range(start, len(runs_cands)):
            spec, kinds, span = runs_cands[i]
            if not fits(kinds) or conflicts(span, spans):
                continue
            take(kinds, 1)
            melds.append(spec)
            spans.append(span)
            rec_runs(r_left - 1, i, melds, spans)
            spans.pop()
            melds.pop()
            take(kinds, -1)

    def rec_groups(g_left: int, start_q: int, melds: list) -> None:
        if len(plans) >= limit:
            return
        if g_left == 0:
            rec_runs(r, 0, melds, list(declared_runs))
            return
        for q in range(start_q, NUM_RANKS):
            for spec, kinds in _group_choices(hand, q, size_g, hand[JOKER]):
                take(kinds, 1)
                melds.append(spec)
                rec_groups(g_left - 1, q, melds)
                melds.pop()
                take(kinds, -1)

    rec_groups(g, 0, [])
    return plans


def plan_melds(plan: Plan, owner: int, size_r: int) -> list[Meld]:
    """The plan's melds as table ``Meld`` objects."""
    out = []
    for spec in plan.melds:
        if isinstance(spec, GroupSpec):
            kinds = [s * NUM_RANKS + spec.rank - 1 for s in spec.suits] + [JOKER] * spec.jokers
            out.append(Meld(owner, GROUP, kinds, rank=spec.rank))
        else:
            kinds = [JOKER if spec.joker_mask >> i & 1 else pos_kind(spec.suit, spec.low + i) for i in range(size_r)]
            out.append(Meld(owner, RUN, kinds, suit=spec.suit, low=spec.low))
    return out


__all__ = [
    "Structure",
    "Plan",
    "slot_weight",
    "contract_structure",
    "final_structure",
    "playable",
    "fits_table",
    "opening_plans",
    "plan_melds",
]
