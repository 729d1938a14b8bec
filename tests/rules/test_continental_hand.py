"""Continental going-out check against the rules (README "Profile continental" C.1 items 3-4, C.2) and a brute force."""

from __future__ import annotations

import random
from array import array
from itertools import combinations, product

import pytest

from rummy_env.core.cards import JOKER, NUM_KINDS, counts_of, parse_cards
from rummy_env.rules.continental_hand import (
    RUN_LENGTH_PATTERNS,
    Run,
    bench_can_go_out,
    can_go_out,
    count_wilds,
    find_partition,
    one_suit_possible,
    payment_w,
    random_valid_counts,
)

PATTERNS = ((3, 3, 3, 3, 3), (4, 4, 4, 3), (5, 4, 3, 3))


def hand(text: str) -> list[int]:
    """Counts of a space-separated hand."""
    return counts_of(parse_cards(text))


def is_wild(kind: int) -> bool:
    """2s of every suit and jokers are wild."""
    return kind == JOKER or kind % 13 == 1


# --------------------------------------------------------------------------- independent reference


def brute_force(
    counts: list[int],
    *,
    one_suit: bool = False,
    patterns: tuple[tuple[int, ...], ...] = PATTERNS,
    wild_only_runs: bool = False,
    deuce_natural: bool = False,
) -> bool:
    """Slow reference, straight from the rules: build the runs one by one. The run that holds the smallest
    (suit, position) natural x not yet placed has all its naturals unplaced, in x's suit, at distinct positions
    of x..x+L-1 (L its length, any length left in the pattern), so try every such run; wilds fill its other
    L - #naturals places. Every ace's position (1 or 14) is fixed first, every way.

    ``wild_only_runs`` / ``deuce_natural`` switch on the rejected readings (runs with no natural; a 2 at its
    own place counting as a natural) so the scripted tests can show that the rule decides the case.
    """
    total = sum(counts)
    sized = [tuple(sorted(p)) for p in patterns if sum(p) == total]
    if not sized:
        return False
    base: list[tuple[int, int]] = []  # naturals as (suit, position)
    aces: list[int] = []
    deuces: list[int] = []
    for suit in range(4):
        for rank in range(1, 14):
            for _ in range(counts[suit * 13 + rank - 1]):
                if rank == 2:
                    deuces.append(suit)
                elif rank == 1:
                    aces.append(suit)
                else:
                    base.append((suit, rank))
    n_wild = total - len(base) - len(aces)

    def rec(left: list[tuple[int, int]], lengths: tuple[int, ...], wilds: int) -> bool:
        if not left:
            return not lengths or wild_only_runs  # runs left over would hold only wilds
        if not lengths:
            return False
        suit, first = left[0]
        for length in sorted(set(lengths)):
            rest_lengths = list(lengths)
            rest_lengths.remove(length)
            later = sorted({pos for s, pos in left[1:] if s == suit and first < pos < first + length})
            for k in range(len(later) + 1):
                for others in combinations(later, k):
                    used = length - 1 - k  # wilds in this run
                    if used > wilds:
                        continue
                    rest = list(left[1:])
                    for pos in others:
                        rest.remove((suit, pos))
                    if rec(rest, tuple(rest_lengths), wilds - used):
                        return True
        return False

    for deuce_naturals in range(len(deuces) + 1 if deuce_natural else 1):
        for chosen in set(combinations(deuces, deuce_naturals)):
            for ace_pos in set(product((1, 14), repeat=len(aces))):
                naturals = sorted(base + [(s, 2) for s in chosen] + list(zip(aces, ace_pos, strict=True)))
                if one_suit and len({s for s, _ in naturals}) > 1:
                    continue
                if any(rec(naturals, p, n_wild - deuce_naturals) for p in sized):
                    return True
    return False


def check_partition(runs: list[Run], counts: list[int], *, one_suit: bool = False, patterns=PATTERNS) -> None:
    """Independent validator: exactly the hand's cards, lengths a pattern, run rules of C.1 item 3."""
    assert sorted((len(r.cards) for r in runs), reverse=True) in [sorted(p, reverse=True) for p in patterns]
    used = [0] * NUM_KINDS
    for r in runs:
        assert 0 <= r.suit < 4
        assert 1 <= r.low and r.low + len(r.cards) - 1 <= 14, r
        naturals = 0
        for i, kind in enumerate(r.cards):
            pos = r.low + i
            used[kind] += 1
            if is_wild(kind):
                continue
            assert kind // 13 == r.suit, r
            rank = kind % 13 + 1
            assert pos == rank or (rank == 1 and pos == 14), r
            naturals += 1
        assert naturals >= 1, r
    assert used == list(counts)
    if one_suit:
        assert len({r.suit for r in runs}) == 1


def check_all(counts: list[int]) -> bool:
    """Compare every public function with the brute force on one hand; return the verdict."""
    expected = brute_force(counts)
    assert can_go_out(counts) is expected, counts
    runs = find_partition(counts)
    assert (runs is not None) is expected, counts
    if runs is not None:
        check_partition(runs, counts)
    expected_one = brute_force(counts, one_suit=True)
    assert one_suit_possible(counts) is expected_one, counts
    runs1 = find_partition(counts, one_suit=True)
    assert (runs1 is not None) is expected_one, counts
    if runs1 is not None:
        check_partition(runs1, counts, one_suit=True)
    return expected


# --------------------------------------------------------------------------- generators


def shoe_hand(rng: random.Random, size: int = 15) -> list[int]:
    """``size`` cards dealt from the 106-card shoe."""
    counts = [0] * NUM_KINDS
    for cid in rng.sample(range(106), size):
        counts[JOKER if cid >= 104 else cid % 52] += 1
    return counts


def legal(counts: list[int], copies: int = 2) -> bool:
    """Within the shoe: <= 2 of each natural kind (and of each 2), <= 2 jokers."""
    return max(counts) <= copies and min(counts) >= 0


def built_hand(
    rng: random.Random, *, suits: int | None = None, wild_p: float | None = None, copies: int = 2
) -> list[int]:
    """A hand built from random runs of a random pattern (few suits -> overlaps and duplicates), with wilds."""
    while True:
        pattern = rng.choice(PATTERNS)
        pool = rng.sample(range(4), suits if suits is not None else rng.randint(1, 4))
        p_wild = wild_p if wild_p is not None else rng.choice((0.0, 0.1, 0.25, 0.5))
        counts = [0] * NUM_KINDS
        for length in pattern:
            suit = rng.choice(pool)
            low = rng.randint(1, 15 - length)
            positions = range(low, low + length)
            keep = rng.choice([p for p in positions if p != 2])
            for pos in positions:
                if pos == 2 and rng.random() < 0.5:
                    kind = suit * 13 + 1  # its own 2 at its own place (still a wild)
                elif pos == 2 or (pos != keep and rng.random() < p_wild):
                    kind = JOKER if rng.random() < 0.3 else rng.randrange(4) * 13 + 1
                else:
                    kind = suit * 13 + (0 if pos == 14 else pos - 1)
                counts[kind] += 1
        if legal(counts, copies):
            return counts


def near_miss(rng: random.Random, counts: list[int], copies: int = 2) -> list[int]:
    """The hand with one card changed: replaced by a random card, or a natural moved one rank up or down."""
    while True:
        out = list(counts)
        kinds = [k for k in range(NUM_KINDS) for _ in range(out[k])]
        old = rng.choice(kinds)
        out[old] -= 1
        if rng.random() < 0.5 and old != JOKER:
            new = old - old % 13 + (old % 13 + rng.choice((-1, 1))) % 13
        else:
            new = rng.randrange(NUM_KINDS)
        out[new] += 1
        if new != old and legal(out, copies):
            return out


# --------------------------------------------------------------------------- scripted rules


def test_pattern_constants():
    # C.1 item 4: "Exactly 15 cards split as 3+3+3+3+3, 4+4+4+3 or 5+4+3+3 (so no run >5)."
    assert RUN_LENGTH_PATTERNS == PATTERNS


def test_example_from_the_document():
    # doc 004 section 08: "3♣–4♣–5♣, 6♠–7♠–8♠, 9♥–10♥–J♥, Q♦–K♦–A♦ и 9♣–10♣–J♣ ... как пять отдельных троек"
    h = hand("3C 4C 5C 6S 7S 8S 9H 10H JH QD KD AD 9C 10C JC")
    assert can_go_out(h)
    runs = find_partition(h)
    assert runs is not None
    check_partition(runs, h)
    assert payment_w(h) == 10 and count_wilds(h) == (0, 0)
    assert not one_suit_possible(h)


def test_wrap_k_a_2_rejected():
    # C.1 item 3: "≥3 consecutive positions of one suit, ace low or high, no K-A-2 wrap"
    # K-A-2-3 of diamonds would need the wrap; Q-K-A or A-2-3 each leave one diamond without a run.
    h = hand("3C 4C 5C 6C 6S 7S 8S 9S 9H 10H JH KD AD 2C 3D")
    assert not can_go_out(h)
    assert find_partition(h) is None
    assert not brute_force(h)


def test_ace_low_and_ace_high_accepted():
    # C.1 item 3: "ace low or high"; notation: "Run positions: A-low=1, 2…K=2…13, A-high=14"
    low = hand("AS 2S 3S 6S 7S 8S 9H 10H JH JD QD KD 9C 10C JC")  # A-2-3 spades, 2S at its own place
    high = hand("QS KS AS 6S 7S 8S 9H 10H JH JD QD KD 9C 10C JC")  # Q-K-A spades
    for h in (low, high):
        assert check_all(h)
    runs = find_partition(high)
    assert runs is not None
    assert any(r.suit == 3 and r.low == 12 and r.cards[-1] == 3 * 13 for r in runs)  # AS at position 14
    # both aces of one suit in one hand: one low, one high
    both = hand("AH 2H 3H QH KH AH 9C 10C JC 5S 6S 7S 8D 9D 10D")
    assert check_all(both)


# With the real shoe (at most 8 twos + 2 jokers = 10 wilds) the two rules below never decide a hand: a split that
# used a run without a natural could move one natural out of a run holding two or more into it, unless every run
# holds exactly one natural, which needs 4 naturals and 11 wilds. So they are shown on an over-supplied hand.
OVER_SUPPLIED = "3C 6D 9H 2C 2C 2D 2D 2H 2H 2S 2S JK JK JK JK"


def test_run_of_only_wilds_rejected():
    # C.1 item 3: "Each run contains ≥1 natural card (not a 2, not a JK)."
    h = hand(OVER_SUPPLIED)  # 3 naturals, 12 wilds: every pattern has >= 4 runs
    assert not can_go_out(h)
    assert find_partition(h) is None
    assert brute_force(h, wild_only_runs=True)  # the rule is what rejects it
    assert not brute_force(h)


def test_natural_two_at_own_place_is_not_the_natural():
    # C.1 item 3: "A 2 may be declared at its own position but still counts as a deuce for payment."
    # C.2 item 1: "section 01 defines naturals as all cards except 2s and jokers → a 2 at its own position does
    # not satisfy it." A fourth run 2S-JK-JK would need the 2S as its natural.
    h = hand(OVER_SUPPLIED)
    assert not can_go_out(h)
    assert brute_force(h, deuce_natural=True)  # the rejected reading would accept it
    assert not brute_force(h)
    # a 2 at its own place next to real naturals is fine, and it is a wild for payment
    ok = hand("2S 3S 4S 6S 7S 8S 9H 10H JH QD KD AD 9C 10C JC")
    assert check_all(ok)
    runs = find_partition(ok)
    assert runs is not None and any(r.suit == 3 and r.low == 2 and r.cards[0] == 3 * 13 + 1 for r in runs)
    assert count_wilds(ok) == (1, 0) and payment_w(ok) == 1


def test_duplicates_in_overlapping_same_suit_runs():
    # C.1 item 3: "No card in two runs; no two cards at one position. Same-suit runs may be adjacent or overlap."
    h = hand("5H 6H 7H 5H 6H 7H 4H 8H 9H 10H 9C 10C JC QC KC")  # 4-5-6-7 / 5-6-7-8 hearts overlap
    assert can_go_out(h)
    runs = find_partition(h)
    assert runs is not None
    check_partition(runs, h)
    # the two 5H can never share a run: the second 5H needs a run of its own and there is no wild to fill it
    bad = hand("5H 5H 6H 7H 8C 9C 10C JC QC 3D 4D 5D 6D 7D 8D")
    assert not can_go_out(bad) and not brute_force(bad)
    # adjacent same-suit runs are allowed (no gap rule here, unlike profile contract)
    adj = hand("3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH 3S 4S 5S")
    assert can_go_out(adj)


def test_no_run_longer_than_five():
    # C.1 item 4: "Exactly 15 cards split as 3+3+3+3+3, 4+4+4+3 or 5+4+3+3 (so no run >5)."
    five_five_five = hand("3C 4C 5C 6C 7C 3D 4D 5D 6D 7D 3H 4H 5H 6H 7H")
    assert not can_go_out(five_five_five) and not brute_force(five_five_five)
    # a 6-card stretch is always cut into 3+3: the split never holds a run of 6
    six = hand("3C 4C 5C 6C 7C 8C 3D 4D 5D 6D 7D 3H 4H 5H 6H")
    runs = find_partition(six)
    assert runs is not None
    check_partition(runs, six)
    assert max(len(r.cards) for r in runs) <= 5
    # with a rules object allowing (6, 5, 4) the 6-run is produced
    runs6 = find_partition(six, patterns=((6, 5, 4),))
    assert runs6 is not None and sorted(len(r.cards) for r in runs6) == [4, 5, 6]
    check_partition(runs6, six, patterns=((6, 5, 4),))


def test_patterns_5433_and_4443():
    # C.1 item 4: "split as 3+3+3+3+3, 4+4+4+3 or 5+4+3+3"
    p5433 = hand("3C 4C 5C 6C 7C 3D 4D 5D 6D 3H 4H 5H 3S 4S 5S")
    p4443 = hand("3C 4C 5C 6C 3D 4D 5D 6D 3H 4H 5H 6H 3S 4S 5S")
    for h, lengths in ((p5433, [5, 4, 3, 3]), (p4443, [4, 4, 4, 3])):
        runs = find_partition(h)
        assert runs is not None
        check_partition(runs, h)
        assert sorted((len(r.cards) for r in runs), reverse=True) == lengths
    # 4+4+4+3 with a wild: 4+4+4+2 naturals
    assert can_go_out(hand("3C 4C 5C 6C 3D 4D 5D 6D 3H 4H 5H 6H 3S 4S JK"))
    # 4+4+4 naturals plus 8S 9S _ JS: the spades need a 4-run with a wild and there is none
    assert not check_all(hand("3C 4C 5C 6C 3D 4D 5D 6D 3H 4H 5H 6H 8S 9S JS"))
    assert check_all(hand("3C 4C 5C 6C 3D 4D 5D 6D 3H 4H 5H 6H 8S JK 10S"))


def test_one_suit_bonus():
    # C.1 item 6: "S = 10 if all 15 are one suit"; C.2 item 2: "judge by the runs' suits (wilds take the run's suit)"
    hearts = hand("3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH 3H 4H 5H")
    assert can_go_out(hearts) and one_suit_possible(hearts)
    runs = find_partition(hearts, one_suit=True)
    assert runs is not None
    check_partition(runs, hearts, one_suit=True)
    with_wilds = hand("3H 4H 5H 6H 7H 8H 9H 10H JH QH KH 2C JK 3H 4H")
    assert one_suit_possible(with_wilds)  # wilds take the run's suit
    check_partition(find_partition(with_wilds, one_suit=True), with_wilds, one_suit=True)
    mixed = hand("3C 4C 5C 6S 7S 8S 9H 10H JH QD KD AD 9C 10C JC")
    assert can_go_out(mixed) and not one_suit_possible(mixed) and find_partition(mixed, one_suit=True) is None
    # all naturals hearts but the hearts cannot be split: no bonus and no going out
    bad = hand("3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH 3H 4H 8H")
    assert not one_suit_possible(bad) and not can_go_out(bad)


def test_wrong_sizes_and_payment():
    # C.1 item 4: "Exactly 15 cards"
    h = hand("3C 4C 5C 6S 7S 8S 9H 10H JH QD KD AD 9C 10C JC")
    h16 = list(h)
    h16[JOKER] += 1
    h14 = list(h)
    h14[parse_cards("JC")[0]] -= 1
    for bad in (h16, h14, [0] * NUM_KINDS):
        assert not can_go_out(bad)
        assert find_partition(bad) is None
        assert not one_suit_possible(bad)
    # C.1 item 6: "W = (#2s + 2·#JK in the 15) if that is >0, else 10"
    assert payment_w(hand("2C 2D JK 3C")) == 4 and count_wilds(hand("2C 2D JK 3C")) == (2, 1)
    with pytest.raises(ValueError):
        can_go_out([0] * 52)


def test_wilds_fill_declared_positions():
    # C.1 item 3: "Each wild's position declared."
    h = hand("3C JK 5C 6S 2H 8S 9H 10H JH QD KD 2D 9C 10C JC")
    runs = find_partition(h)
    assert runs is not None
    check_partition(runs, h)
    # no diamond run reaches position 2, so the 2D is declared elsewhere (here the diamonds are Q-K-wild)
    assert any(r.suit == 1 and r.low == 12 for r in runs)
    assert all(r.cards[2 - r.low] == 1 * 13 + 1 for r in runs if r.suit == 1 and r.low <= 2)


# --------------------------------------------------------------------------- randomised comparison


def test_random_dealt_hands_match_brute_force():
    rng = random.Random(11)
    for _ in range(2500):
        check_all(shoe_hand(rng))
    for size in (14, 16):
        assert not can_go_out(shoe_hand(rng, size))


def test_built_valid_hands_match_brute_force():
    rng = random.Random(12)
    valid = 0
    for _ in range(1000):
        valid += check_all(built_hand(rng))
    assert valid == 1000  # built hands go out by construction


def test_near_misses_match_brute_force():
    rng = random.Random(13)
    outcomes = [0, 0]
    for _ in range(1500):
        outcomes[check_all(near_miss(rng, built_hand(rng)))] += 1
    assert min(outcomes) > 100  # both verdicts well represented


def test_one_suit_hands_match_brute_force():
    rng = random.Random(14)
    outcomes = [0, 0]
    for i in range(500):
        h = built_hand(rng, suits=1)
        if i % 2:
            h = near_miss(rng, h)
        outcomes[check_all(h)] += 1
    assert min(outcomes) > 50


def test_module_generator_and_bench():
    rng = random.Random(15)
    for _ in range(300):
        h = random_valid_counts(rng)
        assert legal(h) and sum(h) == 15 and check_all(h)
    h = random_valid_counts(rng, one_suit=True)
    assert one_suit_possible(h)
    stats = bench_can_go_out(n=200, seed=1)
    assert stats["valid_true_fraction"] == 1.0
    assert stats["random_us"] > 0 and stats["valid_us"] > 0


def test_custom_patterns_match_brute_force():
    rng = random.Random(16)
    pats = ((4, 4, 4, 3), (6, 6, 3))
    for _ in range(300):
        h = near_miss(rng, built_hand(rng)) if rng.random() < 0.5 else built_hand(rng)
        expected = brute_force(h, patterns=pats)
        assert can_go_out(h, patterns=pats) is expected
        runs = find_partition(h, patterns=pats)
        assert (runs is not None) is expected
        if runs is not None:
            check_partition(runs, h, patterns=pats)


def test_three_copies_of_a_card_match_brute_force():
    # not reachable with the 2-deck shoe; exercises the general path (a position holding 3 naturals)
    rng = random.Random(17)
    seen3 = 0
    for _ in range(300):
        h = built_hand(rng, suits=rng.randint(1, 2), copies=3)
        if rng.random() < 0.5:
            h = near_miss(rng, h, copies=3)
        seen3 += max(h[k] for k in range(JOKER) if not is_wild(k)) == 3
        check_all(h)
    assert seen3 > 20


def test_inputs_and_parameters():
    h = hand("3C 4C 5C 6S 7S 8S 9H 10H JH QD KD AD 9C 10C JC")
    assert can_go_out(tuple(h)) and can_go_out(array("b", h)) and can_go_out(iter(h))
    assert find_partition(array("b", h)) == find_partition(h)
    bad = list(h)
    bad[0] -= 1  # a negative count, total still 15
    bad[1] += 1
    with pytest.raises(ValueError):
        can_go_out(bad)
    with pytest.raises(ValueError):
        find_partition(bad)
    with pytest.raises(ValueError):
        can_go_out(h, patterns=((4, 4, 4, 3),), min_run=4)  # a pattern length below min_run
    with pytest.raises(ValueError):
        can_go_out(h, patterns=((15,),))  # longer than the 14 positions
    assert can_go_out(h, patterns=((3, 3, 3, 3, 3),))
    assert not can_go_out(h, patterns=((4, 4, 4, 3),))
