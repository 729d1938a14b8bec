"""Profile ``contract``: Contract Rummy for exactly 4 players (document 000, spec A.1/A.2).

Every choice the spec lists as a resolution (A.2) is a field of the frozen ``ContractRules`` object, with the
adopted value as default, so a user can switch it: ``ContractRules(forbid_rediscard=False)``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .bounds import CONTRACT_BOUNDS, MAX_CONTRACT_MELDS, RulesError, check_fields, check_override_names


@dataclass(frozen=True)
class ContractRules:
    """Frozen rules object of the Contract Rummy family (profiles ``contract`` and ``contract_gamerules``)."""

    name: str = "contract"
    #: players at the table (A.1-1: exactly 4)
    num_players: int = 4
    min_players: int = 4
    max_players: int = 4
    #: shoe: decks of 52 and jokers (A.1-1: 2 x 52 + 3 JK = 107)
    decks: int = 2
    jokers: int = 3
    #: cards dealt in rounds 1..7 (A.1-2)
    hand_sizes: tuple[int, ...] = (10, 10, 10, 12, 12, 12, 12)
    #: contract of rounds 1..7 as (groups, runs) (A.1-6)
    contracts: tuple[tuple[int, int], ...] = ((2, 0), (1, 1), (0, 2), (3, 0), (2, 1), (1, 2), (0, 3))
    #: minimum group / run length (A.1-3, A.1-4)
    group_min: int = 3
    run_min: int = 4
    #: largest group (None: no cap, A.1-3) and whether its suits must differ (no, A.1-3)
    group_max: int | None = None
    group_distinct_suits: bool = False
    #: the opening uses exactly the minimum lengths (A.1-9)
    exact_minimum_opening: bool = True
    #: same-suit runs of one opening must not be adjacent (A.1-7); jokers count by declaration (A.2-7)
    forbid_adjacent_same_suit_runs: bool = True
    #: the runs of one opening must have pairwise different suits (not in this profile)
    opening_runs_distinct_suits: bool = False
    #: last round: the whole hand after drawing is laid as runs at once, no discard (A.1-9)
    final_round_all_at_once: bool = True
    #: lay-offs / joker swaps only from the next own turn after opening (A.1-9, A.1-11, A.2-13)
    layoff_on_opening_turn: bool = False
    #: out-of-turn buying (A.1-10) and its penalty cards from the stock
    buying: bool = True
    buy_penalty_cards: int = 1
    #: A.2-1: the buyer of the previous card of the same buy chain may not buy the next one
    consecutive_buy_ban: bool = True
    #: A.2-3: the player who discarded the card may buy it back
    discarder_may_buy: bool = True
    #: A.2-4: the card taken from the discard pile may not be discarded in the same turn
    forbid_rediscard: bool = True
    #: A.2-6: a meld made only of jokers is legal
    allow_all_joker_melds: bool = True
    #: B.1-6: deep pickups from the discard pile (the chosen card must reach the table this turn)
    deep_pickup: bool = False
    #: A.1-12: lay-offs may never empty the hand, going out = discarding the last card (False: B.1-10, a hand
    #: emptied by melding / laying off goes out without a discard)
    keep_card_for_discard: bool = True
    #: document 003 lists melding from the hand as a step of every turn: True lets a player who has opened lay new
    #: melds (any set / run, not only the contract's) whenever he may lay off; False (adopted, B.2-6 / A.1-9): after
    #: the opening no new melds
    extra_melds_after_opening: bool = False
    #: document 003 (swap): "if another player uses a joker in a run for a card you hold": True = literally, only a
    #: joker that another player placed may be swapped; False (adopted, B.2-8): any joker in a run, own ones too
    swap_only_others_jokers: bool = False
    #: document 003, round 7 is "as a rule" melded all at once; True also lets the player lay the three runs and
    #: discard his last card (the general way of going out, B.1-10); False (adopted, B.2-9): no discard
    final_round_discard: bool = False
    #: document 000 §09: a buy whose penalty card cannot be supplied ends the round (A.2-9), which lets a player end
    #: a round on purpose; True refuses such a buy instead (it is not offered)
    buy_needs_penalty_card: bool = False
    #: engine limit: end a round as soon as nobody can ever go out (every seat down, no card outside the table fits
    #: any meld), scored like a round without a winner (reason "blocked") instead of cycling to the turn cap
    end_blocked_rounds: bool = True
    #: engine safety limit: turns per round before the round ends without a winner (docs/rules/contract.md)
    turn_cap: int = 400

    def __post_init__(self) -> None:
        check_fields(self, CONTRACT_BOUNDS)  # types and bounds first (``rummy_env.rules.bounds``): RulesError
        problems = []
        if not self.min_players <= self.num_players <= self.max_players:
            problems.append(f"num_players={self.num_players} (allowed {self.min_players}..{self.max_players})")
        if len(self.hand_sizes) != len(self.contracts):
            problems.append("hand_sizes and contracts must have one entry per round")
        if self.group_max is not None and self.group_max < self.group_min:
            problems.append(f"group_max={self.group_max} is below group_min={self.group_min}")
        if any(not 1 <= g + r <= MAX_CONTRACT_MELDS for g, r in self.contracts):
            problems.append(f"every contract asks for 1..{MAX_CONTRACT_MELDS} melds in all")
        deal = self.num_players * max(self.hand_sizes) + 1
        if deal > self.decks * 52 + self.jokers:
            problems.append(f"{self.num_players} hands of {max(self.hand_sizes)} + 1 upcard exceed the shoe")
        if problems:
            raise RulesError(f"bad {self.name} rules: " + "; ".join(problems))

    @property
    def num_rounds(self) -> int:
        """Rounds in a full session."""
        return len(self.contracts)

    @property
    def max_melds_per_seat(self) -> int:
        """Most melds one seat can have on the table: the largest contract; with ``extra_melds_after_opening`` as
        many as the shoe's cards can make (every meld has at least ``min(group_min, run_min)`` cards)."""
        contract = max(g + r for g, r in self.contracts)
        if self.extra_melds_after_opening:
            return max(contract, (self.decks * 52 + self.jokers) // min(self.group_min, self.run_min))
        return contract

    def is_final_all_at_once(self, round_no: int) -> bool:
        """Whether ``round_no`` (1-based) is a round that must be gone out in one action."""
        return self.final_round_all_at_once and round_no == self.num_rounds

    def buy_window(self, active: int, last_buyer: int = -1) -> list[int]:
        """The seats a buy window asks, in order, when ``active`` declines the discard top (A.1-10): the others
        nearest in future turn order first; A.2-1 (``consecutive_buy_ban``): not ``last_buyer``, the buyer of the
        previous card of the same chain (-1: none); A.2-3 (``discarder_may_buy`` off): not the discarder, the seat
        before ``active``. The one computation of the order: the engine opens its windows with it and the scenario
        loader checks a ``buy_queue`` against it."""
        n = self.num_players
        seats = [(active + i) % n for i in range(1, n)]
        if self.consecutive_buy_ban:
            seats = [s for s in seats if s != last_buyer]
        if not self.discarder_may_buy:
            seats = [s for s in seats if s != (active - 1) % n]
        return seats

    def with_overrides(self, **overrides: Any) -> ContractRules:
        """A copy with some fields changed; unknown names or values out of bounds raise ``RulesError`` (a
        ``ValueError``) saying what is allowed."""
        check_override_names(self, overrides)
        return replace(self, **overrides)


CONTRACT = ContractRules()

#: Profile ``contract_gamerules`` (document 003, spec B.1/B.2): 3-5 players, 53 cards (106 for 5 players, B.2-1),
#: sets of distinct suits (3-4 cards), runs of 3+, melds longer than the minimum, lay-offs on the opening turn,
#: deep pickups, no buying, round 7 as three runs of different suits.
CONTRACT_GAMERULES = ContractRules(
    name="contract_gamerules",
    num_players=4,
    min_players=3,
    max_players=5,
    decks=1,
    jokers=1,
    hand_sizes=(10, 10, 10, 10, 12, 12, 12),
    group_min=3,
    group_max=4,
    group_distinct_suits=True,
    run_min=3,
    exact_minimum_opening=False,
    forbid_adjacent_same_suit_runs=False,
    opening_runs_distinct_suits=True,
    final_round_all_at_once=True,
    layoff_on_opening_turn=True,
    buying=False,
    deep_pickup=True,
    keep_card_for_discard=False,
    forbid_rediscard=True,
)
