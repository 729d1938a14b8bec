"""Card kinds, physical cards of a multi-deck shoe, penalty values, parsing and printing.

A *card kind* is a small integer: ``kind = suit * 13 + (rank - 1)`` for the 52 natural cards (suits in the order
clubs, diamonds, hearts, spades; rank 1 = ace ... 13 = king) and ``JOKER = 52``. All jokers are one kind, so there
are ``NUM_KINDS = 53`` kinds (52 naturals + the joker). Copies of a kind from different decks are indistinguishable
in play, so the engines keep hands and piles as kinds; a *physical card id* (``Shoe``) numbers every card of a
shoe once, for accounting.

Strings: ``7C``, ``10H`` or ``TH``, ``AS``, ``JK`` (ASCII) and ``7♣``, ``10♥``, ``A♠``, ``JK`` (suit symbols).
Parsing is case-insensitive and accepts both; a bad string raises ``ValueError`` quoting it.
"""

from __future__ import annotations

from dataclasses import dataclass

SUITS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
NUM_SUITS = 4
NUM_RANKS = 13
NUM_NATURAL = 52
JOKER = 52
NUM_KINDS = 53

_RANK_BY_TEXT = {r: i + 1 for i, r in enumerate(RANKS)}
_RANK_BY_TEXT["T"] = 10
_SUIT_BY_TEXT = {s: i for i, s in enumerate(SUITS)}
_SUIT_BY_TEXT.update({s: i for i, s in enumerate(SUIT_SYMBOLS)})
_SUIT_BY_TEXT.update({"♧": 0, "♢": 1, "♡": 2, "♤": 3})


def kind_of(suit: int, rank: int) -> int:
    """The kind of the natural card of ``suit`` (0..3) and ``rank`` (1 = ace .. 13 = king)."""
    return suit * NUM_RANKS + rank - 1


def suit_of(kind: int) -> int:
    """Suit index 0..3 of a natural kind."""
    return kind // NUM_RANKS


def rank_of(kind: int) -> int:
    """Rank 1..13 (ace = 1) of a natural kind."""
    return kind % NUM_RANKS + 1


def is_joker(kind: int) -> bool:
    """True for the joker kind."""
    return kind == JOKER


def penalty_value(kind: int) -> int:
    """Penalty of a card left in hand: 2-10 pip value, J/Q/K 10, ace 15, joker 15."""
    if kind == JOKER:
        return 15
    rank = kind % NUM_RANKS + 1
    if rank == 1:
        return 15
    return 10 if rank >= 10 else rank


PENALTY = tuple(penalty_value(k) for k in range(NUM_KINDS))


def rank_text(rank: int) -> str:
    """``A``, ``2`` .. ``10``, ``J``, ``Q``, ``K`` for rank 1..13 (14 is the high ace)."""
    return RANKS[(rank - 1) % NUM_RANKS]


def card_str(kind: int, symbols: bool = False) -> str:
    """Print a kind: ``7C`` / ``10H`` / ``JK`` (or ``7♣`` / ``10♥`` with ``symbols=True``)."""
    if kind == JOKER:
        return "JK"
    if not 0 <= kind < NUM_NATURAL:
        raise ValueError(f"card kind {kind!r} is out of range (0..{NUM_KINDS - 1})")
    suits = SUIT_SYMBOLS if symbols else SUITS
    return RANKS[kind % NUM_RANKS] + suits[kind // NUM_RANKS]


def parse_rank(text: str) -> int:
    """Parse a rank (``A``, ``2``..``10``, ``T``, ``J``, ``Q``, ``K``) to 1..13."""
    rank = _RANK_BY_TEXT.get(text.strip().upper())
    if rank is None:
        raise ValueError(f"bad rank {text!r}: expected one of A 2 3 4 5 6 7 8 9 10 (or T) J Q K")
    return rank


def parse_card(text: str) -> int:
    """Parse ``7C``, ``10H``, ``TH``, ``AS``, ``JK``, ``7♣``, ``10♥`` into a kind; ``ValueError`` quoting bad input."""
    if not isinstance(text, str):
        raise ValueError(f"bad card {text!r}: expected a string such as '7C', '10H', 'TH', 'A♠' or 'JK'")
    s = text.strip().upper()
    if s in ("JK", "JOKER", "🃏"):
        return JOKER
    if len(s) >= 2:
        suit = _SUIT_BY_TEXT.get(s[-1])
        rank = _RANK_BY_TEXT.get(s[:-1])
        if suit is not None and rank is not None:
            return kind_of(suit, rank)
    raise ValueError(
        f"bad card {text!r}: expected rank (A 2-10 T J Q K) then suit (C D H S or ♣ ♦ ♥ ♠), e.g. '7C', '10♥', "
        "or 'JK' for a joker"
    )


def parse_cards(texts: list[str] | str) -> list[int]:
    """Parse a list of card strings (or one space-separated string) into kinds."""
    if isinstance(texts, str):
        texts = texts.split()
    return [parse_card(t) for t in texts]


def cards_str(kinds: list[int], symbols: bool = False) -> str:
    """Space-separated card strings."""
    return " ".join(card_str(k, symbols) for k in kinds)


def counts_of(kinds: list[int]) -> list[int]:
    """A list of NUM_KINDS counts from a list of kinds."""
    counts = [0] * NUM_KINDS
    for k in kinds:
        counts[k] += 1
    return counts


def kinds_of(counts: list[int]) -> list[int]:
    """The sorted list of kinds held in a counts list (jokers last)."""
    out: list[int] = []
    for k, c in enumerate(counts):
        if c:
            out.extend([k] * c)
    return out


@dataclass(frozen=True)
class Shoe:
    """A shoe of ``decks`` standard decks plus ``jokers`` jokers; physical card ids 0..size-1.

    Ids ``d * 52 + kind`` are the naturals of deck ``d``; the jokers follow.
    """

    decks: int
    jokers: int

    @property
    def size(self) -> int:
        """Number of physical cards."""
        return self.decks * NUM_NATURAL + self.jokers

    def kind(self, card_id: int) -> int:
        """Kind of a physical card id."""
        if not 0 <= card_id < self.size:
            raise ValueError(f"physical card id {card_id} out of range 0..{self.size - 1}")
        return JOKER if card_id >= self.decks * NUM_NATURAL else card_id % NUM_NATURAL

    def kinds(self) -> list[int]:
        """Kinds of all physical cards, in id order (``kind(i)`` for every id: the naturals deck by deck, then the
        jokers)."""
        return list(range(NUM_NATURAL)) * self.decks + [JOKER] * self.jokers

    def copies(self, kind: int) -> int:
        """How many physical cards of ``kind`` the shoe holds."""
        return self.jokers if kind == JOKER else self.decks

    def copies_list(self) -> list[int]:
        """Copies of every kind, indexed by kind."""
        return [self.copies(k) for k in range(NUM_KINDS)]
