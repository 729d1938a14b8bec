"""Pinned catalog sizes, each derived here from the rule text by an independent count.

The meld catalog and action layout are counted from the physical shoe and the meld rules (never by calling
``rummy_env.core.melds`` or ``rummy_env.encoding``), pinned as numbers, and compared with the env's action table as
``action_info`` reports it (every meld the table offers, card by card).
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

import rummy_env

SUITS = "CDHS"
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]  # rank r (1..13) is RANKS[r - 1]
KINDS = 53  # 52 naturals + the joker kind
POSITIONS = 14  # run positions: A-low = 1, 2..K = 2..13, A-high = 14


def shoe(decks: int, jokers: int) -> list[tuple[int, str] | None]:
    """The physical cards: ``(rank, suit)`` per copy, ``None`` per joker."""
    return [(r, s) for _ in range(decks) for s in SUITS for r in range(1, 14)] + [None] * jokers


def groups(
    decks: int, jokers: int, size: int, distinct_suits: bool, joker_suits: bool = False
) -> set[tuple[str, ...]]:
    """Every exact-``size`` group the shoe can form, as the sorted card strings ``action_info`` shows.

    A group is ``size`` cards of one rank; a joker declares the group's rank (A.1-5, A.2-14), so two groups differ
    in their rank, the suits of their naturals and their number of jokers; physical copies of a card are
    interchangeable. With ``joker_suits`` (B.1-3: "a joker must declare a suit absent from the set") each joker also
    declares one of the absent suits, shown ``JK(7S)``; today's table names the rank only (``JK(7)``).
    """
    out = set()
    for combo in combinations(shoe(decks, jokers), size):
        naturals = [c for c in combo if c is not None]
        j = size - len(naturals)
        suits = [s for _, s in naturals]
        if distinct_suits and len(set(suits)) < len(suits):
            continue
        ranks = {r for r, _ in naturals} or set(range(1, 14))  # all jokers: any declared rank (A.2-6)
        if len(ranks) != 1 and naturals:
            continue
        for r in ranks:
            cards = [RANKS[r - 1] + s for s in suits]
            if not joker_suits:
                out.add(tuple(sorted(cards + [f"JK({RANKS[r - 1]})"] * j)))
                continue
            for declared in combinations([s for s in SUITS if s not in suits], j):
                out.add(tuple(sorted(cards + [f"JK({RANKS[r - 1]}{s})" for s in declared])))
    return out


def runs(jokers: int, size: int) -> set[tuple[str, ...]]:
    """Every exact-``size`` run: ``size`` consecutive positions of one suit inside 1..14 (ace low or high, no wrap),
    each position held by its natural card or by a joker declared at it (at most ``jokers`` jokers exist)."""
    out = set()
    for suit in SUITS:
        for low in range(1, POSITIONS - size + 2):
            window = [RANKS[(p - 1) % 13] + suit for p in range(low, low + size)]
            for joker_at in range(1 << size):
                if bin(joker_at).count("1") > jokers:
                    continue
                out.add(tuple(f"JK({c})" if joker_at >> i & 1 else c for i, c in enumerate(window)))
    return out


def table_melds(env) -> tuple[set[tuple[str, ...]], set[tuple[str, ...]], Counter]:
    """The groups and runs of the env's action table (from ``action_info``) and the count of every action kind."""
    raw = env.unwrapped
    g, r, kinds = set(), set(), Counter()
    for a in range(env.action_space(env.possible_agents[0]).n):
        info = raw.action_info(a)
        kinds[info["kind"]] += 1
        if info["kind"] == "meld":
            (g if info["meld"] == "group" else r).add(
                tuple(sorted(info["cards"])) if info["meld"] == "group" else tuple(info["cards"])
            )
    return g, r, kinds


def contract_layout(n: int, melds: int, buying: bool, pickup_depths: int) -> dict[str, int]:
    """Range sizes of the README's action table for ``n`` seats with 3 melds each at most (the largest contract
    has three melds: A.1-6, B.1-5): a slot is (seat, meld number)."""
    slots = n * 3
    sizes = {"draw_stock": 1, "draw_discard": 1}
    if buying:
        sizes |= {"buy": 1, "pass": 1}
    if pickup_depths:
        sizes["pickup"] = pickup_depths
    sizes |= {
        "meld": melds,
        "lay_off": KINDS * slots * 2,  # card kind x slot x end
        "swap_joker": len(SUITS) * POSITIONS * slots,  # (suit, position of the joker) x slot
        "place_joker": slots * 2,
        "discard": KINDS,
        "go_out": 1,
    }
    return sizes


def test_contract_meld_catalog_403_groups_660_runs():
    # A.1-1: 2 x 52 + 3 JK; A.1-3: groups of one rank, suits may repeat; A.1-4: runs of one suit within 1..14;
    # A.1-9: the opening lays exactly the minimum lengths, groups exactly 3 and runs exactly 4.
    g = groups(decks=2, jokers=3, size=3, distinct_suits=False)
    r = runs(jokers=3, size=4)
    # closed form: per rank, suit multisets of 3 - j naturals with at most 2 copies of a suit: 16 + 10 + 4 + 1
    assert len(g) == 13 * (16 + 10 + 4 + 1) == 403
    # 4 suits x 11 lowest positions x the 2^4 - 1 joker patterns (four jokers do not exist)
    assert len(r) == 4 * 11 * 15 == 660
    env = rummy_env.make("contract")
    tg, tr, kinds = table_melds(env)
    assert tg == g and tr == r
    sizes = contract_layout(4, len(g) + len(r), buying=True, pickup_depths=0)
    assert dict(kinds) == sizes
    assert env.action_space("player_0").n == sum(sizes.values()) == 3089


# B.1-1: 52 + 1 JK for 3-4 players, 2 x 52 + 2 JK for 5 (B.2-1); B.1-3: sets of distinct suits; B.1-4: runs >= 3;
# the table offers exact-minimum melds (3 cards) and pickups of depth 2..shoe size.
@pytest.mark.parametrize(
    "n, decks, jokers, n_groups, n_runs, total",
    [
        # per rank: 4 suit triples, each with 0 or 1 of its 3 suits held by the joker (B.1-3: the joker names its
        # suit); 4 suits x 12 lows x (1 + 3) joker patterns
        (3, 1, 1, 13 * 4 * (1 + 3), 4 * 12 * 4, 1984),
        (4, 1, 1, 13 * 4 * (1 + 3), 4 * 12 * 4, 2476),
        # with two jokers also 2 of the 3 suits held by jokers (C(3,2)); runs with up to two jokers: 1 + 3 + 3
        (5, 2, 2, 13 * 4 * (1 + 3 + 3), 4 * 12 * 7, 3321),
    ],
)
def test_contract_gamerules_meld_catalog(n, decks, jokers, n_groups, n_runs, total):
    g = groups(decks=decks, jokers=jokers, size=3, distinct_suits=True, joker_suits=True)
    r = runs(jokers=jokers, size=3)
    assert (len(g), len(r)) == (n_groups, n_runs)
    env = rummy_env.make("contract_gamerules", num_players=n)
    tg, tr, kinds = table_melds(env)
    assert tg == g and tr == r
    shoe_size = decks * 52 + jokers
    sizes = contract_layout(n, len(g) + len(r), buying=False, pickup_depths=shoe_size - 1)
    assert dict(kinds) == sizes
    assert env.action_space("player_0").n == sum(sizes.values()) == total


def test_group_derivation_with_declared_joker_suits():
    # B.1-3 with the joker's suit named: per rank, 3 of the 4 suits, any j of them held by jokers
    assert len(groups(1, 1, 3, distinct_suits=True, joker_suits=True)) == 13 * 4 * (1 + 3)
    assert len(groups(2, 2, 3, distinct_suits=True, joker_suits=True)) == 13 * 4 * (1 + 3 + 3)


@pytest.mark.parametrize("n", [4, 5])
def test_continental_action_count(n):
    # C.2: draw the stock or the discard top, then discard one card (53 kinds), declaring with it or not (C.2-7:
    # "discard X and declare" is its own action, so no separate question reveals a complete hand); the first-turn
    # declaration without drawing (C.1-5); no melding, lay-offs or buying.
    sizes = {"draw_stock": 1, "draw_discard": 1, "discard": KINDS, "declare": 1, "discard_declare": KINDS}
    env = rummy_env.make("continental", num_players=n)
    _, _, kinds = table_melds(env)
    assert dict(kinds) == sizes
    assert env.action_space("player_0").n == sum(sizes.values()) == 109
