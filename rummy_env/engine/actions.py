"""The fixed action tables of every profile, laid out as named ranges: the engines' move alphabet.

As in OpenSpiel, where a game defines its action ids, the table belongs to the engine layer: the engines route an
action by the name of its range (``RangeTable.kind_of``), and the layers above (observation, envs, bots) read the
same table. ``ActionLayout`` is the table of the Contract family, ``ContinentalLayout`` the one of ``continental``.

Contract family
---------------

Every atomic decision has one id in ``range(layout.num_actions)``, the same in every round. Ranges, in order:

| range          | size (contract)          | meaning                                                           |
|----------------|--------------------------|-------------------------------------------------------------------|
| `draw_stock`   | 1                        | take the stock top (declines the discard: opens the buy window)   |
| `draw_discard` | 1                        | take the discard top                                              |
| `pickup`       | max_depth-1 (profiles with deep pickups) | take the card at depth d >= 2 and all above it    |
| `buy` / `pass` | 1 / 1                    | buy the offered discard top (+ penalty card) / decline it        |
| `meld`         | 403 groups + 660 runs    | declare one exact-minimum meld (catalog index; a set's jokers with their suits) |
| `lay_off`      | 53 kinds x slots x 2 ends | lay off a card on a table meld; end 0 = low (or group), 1 = high |
| `swap_joker`   | 4 suits x 14 pos x slots | give the natural for the joker at (suit, position) of a run       |
| `place_joker`  | slots x 2 ends           | place the freed joker on a meld                                   |
| `discard`      | 53 kinds                 | discard a card of that kind                                       |
| `go_out`       | 1                        | lay the whole hand at once (final round)                          |

A *slot* names a table meld relative to the acting seat: ``slot = seat_offset * max_melds + meld_index`` with
``seat_offset = (owner - actor) % num_players`` (0 = the actor's own melds), so a policy sees the table from its
own seat. ``action_info`` reports seats as absolute numbers.

Continental
-----------

``draw_stock`` (1), ``draw_discard`` (1), ``discard`` (53 kinds), ``declare`` (1: the first-turn declaration
without drawing), ``discard_declare`` (53 kinds: discard that card and go out with the 15 left).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from ..core.cards import NUM_KINDS
from ..core.melds import GroupSpec, RunSpec, group_catalog, group_spec_cards, run_catalog, run_spec_cards


@dataclass(frozen=True)
class ActionRange:
    """One named range of action ids: ``start <= a < start + size``."""

    name: str
    start: int
    size: int

    @property
    def stop(self) -> int:
        """One past the last id."""
        return self.start + self.size


class RangeTable:
    """Named, consecutive action ranges; the total is computed from them (shared by every profile's table)."""

    def __init__(self, sizes: list[tuple[str, int]]):
        self.ranges: dict[str, ActionRange] = {}
        start = 0
        for name, size in sizes:
            if name in self.ranges:
                raise ValueError(f"range {name!r} is named twice in the action table")
            self.ranges[name] = ActionRange(name, start, size)
            start += size
        self.num_actions = start
        #: range names in table order
        self.range_names: tuple[str, ...] = tuple(self.ranges)
        #: per action id, the index of its range in ``range_names`` (O(1) ``kind_of``; the engines' dispatch tables
        #: are indexed by it)
        self.range_index = bytes(i for i, (_, size) in enumerate(sizes) for _ in range(size))

    def start(self, name: str) -> int:
        """First id of a named range (-1 if the profile has no such range)."""
        r = self.ranges.get(name)
        return r.start if r else -1

    def kind_of(self, action: int) -> str:
        """The name of the range holding ``action`` (``"meld"``, ``"discard"``, ...): what the engines dispatch on,
        so inserting a range cannot misroute an action. O(1); ``ValueError`` if ``action`` is outside the table."""
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action!r} is outside the action table 0..{self.num_actions - 1}")
        return self.range_names[self.range_index[action]]

    def range_of(self, action: int) -> ActionRange:
        """The named range holding ``action``; ``ValueError`` if out of the table."""
        return self.ranges[self.kind_of(action)]

    def table_rows(self) -> list[tuple[str, int, int, int]]:
        """(name, first id, last id, size) for documentation."""
        return [(r.name, r.start, r.stop - 1, r.size) for r in self.ranges.values()]

    def __reduce_ex__(self, protocol: Any) -> Any:
        """A table an engine made and cached (``rebuild``: its factory and arguments, set by the engine) pickles
        and deep-copies as that factory call, so a copy of a state uses the same cached table; any other table
        by value."""
        rebuild = self.__dict__.get("rebuild")
        return rebuild if rebuild is not None else super().__reduce_ex__(protocol)


class ActionLayout(RangeTable):
    """Named action ranges of a Contract-family profile and player count; the total is computed from them."""

    def __init__(self, rules, num_players: int | None = None, pickup_depths: int = 0, joker_suits: bool | None = None):
        """``joker_suits=False`` builds the rank-only set catalog of earlier versions (checkpoint migration)."""
        self.num_players = num_players or rules.num_players
        self.max_melds = rules.max_melds_per_seat
        self.slots = self.num_players * self.max_melds
        self.groups: list[GroupSpec] = group_catalog(rules, rules.decks, rules.jokers, joker_suits)
        self.runs: list[RunSpec] = run_catalog(rules, rules.jokers)
        self.run_size = rules.run_min
        #: (rank, natural suits, jokers) -> catalog indices of every joker declaration of that group
        self.group_ids: dict[tuple[int, tuple[int, ...], int], list[int]] = {}
        for i, spec in enumerate(self.groups):
            self.group_ids.setdefault((spec.rank, spec.suits, spec.jokers), []).append(i)
        self.group_index = {spec: i for i, spec in enumerate(self.groups)}
        for (rank, suits, j), ids in self.group_ids.items():
            # a spec without joker suits names the first declaration (callers that do not choose the suit)
            self.group_index.setdefault(GroupSpec(rank, suits, j), ids[0])
        self.run_index = {spec: i for i, spec in enumerate(self.runs)}
        #: per meld index (groups then runs): its kinds, and the (kind, copies) a hand needs to declare it
        self.meld_kinds: list[list[int]] = [group_spec_cards(g) for g in self.groups] + [
            run_spec_cards(r, self.run_size) for r in self.runs
        ]
        self.meld_needs: list[tuple[tuple[int, int], ...]] = [
            tuple(sorted(Counter(kinds).items())) for kinds in self.meld_kinds
        ]
        sizes = [("draw_stock", 1), ("draw_discard", 1)]
        if pickup_depths:
            sizes.append(("pickup", pickup_depths))
        if rules.buying:
            sizes += [("buy", 1), ("pass", 1)]
        sizes += [
            ("meld", len(self.groups) + len(self.runs)),
            ("lay_off", NUM_KINDS * self.slots * 2),
            ("swap_joker", 4 * 14 * self.slots),
            ("place_joker", self.slots * 2),
            ("discard", NUM_KINDS),
            ("go_out", 1),
        ]
        super().__init__(sizes)
        r = self.ranges
        self.DRAW_STOCK = r["draw_stock"].start
        self.DRAW_DISCARD = r["draw_discard"].start
        self.PICKUP = r["pickup"].start if "pickup" in r else -1
        self.BUY = r["buy"].start if "buy" in r else -1
        self.PASS = r["pass"].start if "pass" in r else -1
        self.MELD = r["meld"].start
        self.MELD_RUN = self.MELD + len(self.groups)
        self.LAY_OFF = r["lay_off"].start
        self.SWAP = r["swap_joker"].start
        self.PLACE = r["place_joker"].start
        self.DISCARD = r["discard"].start
        self.GO_OUT = r["go_out"].start
        #: the discard ids by kind, made once (the engine selects the held kinds' ids from it every act decision)
        self.discard_ids: tuple[int, ...] = tuple(range(self.DISCARD, self.DISCARD + NUM_KINDS))

    # encoders -------------------------------------------------------------------------------------------
    def slot(self, actor: int, owner: int, meld_index: int) -> int:
        """Slot of ``owner``'s meld number ``meld_index`` seen from ``actor``."""
        return ((owner - actor) % self.num_players) * self.max_melds + meld_index

    def slot_target(self, actor: int, slot: int) -> tuple[int, int]:
        """(owner seat, meld index) of a slot seen from ``actor``."""
        off, idx = divmod(slot, self.max_melds)
        return (actor + off) % self.num_players, idx

    def lay_off(self, kind: int, slot: int, end: int) -> int:
        """Id of laying off ``kind`` on ``slot`` at ``end``."""
        return self.LAY_OFF + (kind * self.slots + slot) * 2 + end

    def decode_lay_off(self, action: int) -> tuple[int, int, int]:
        """(kind, slot, end) of a lay-off id."""
        x, end = divmod(action - self.LAY_OFF, 2)
        kind, slot = divmod(x, self.slots)
        return kind, slot, end

    def swap(self, suit: int, pos: int, slot: int) -> int:
        """Id of swapping the natural for the joker at (suit, position 1..14) of the run in ``slot``."""
        return self.SWAP + (suit * 14 + pos - 1) * self.slots + slot

    def decode_swap(self, action: int) -> tuple[int, int, int]:
        """(suit, position, slot) of a swap id."""
        x, slot = divmod(action - self.SWAP, self.slots)
        suit, p = divmod(x, 14)
        return suit, p + 1, slot

    def place(self, slot: int, end: int) -> int:
        """Id of placing the freed joker on ``slot`` at ``end``."""
        return self.PLACE + slot * 2 + end

    def decode_place(self, action: int) -> tuple[int, int]:
        """(slot, end) of a placement id."""
        return divmod(action - self.PLACE, 2)


class ContinentalLayout(RangeTable):
    """Action table of ``continental``: draw_stock, draw_discard, discard (53 kinds), declare (the first-turn
    declaration without drawing), discard_declare (53 kinds: discard that card and go out with the 15 left)."""

    def __init__(self) -> None:
        super().__init__(
            [
                ("draw_stock", 1),
                ("draw_discard", 1),
                ("discard", NUM_KINDS),
                ("declare", 1),
                ("discard_declare", NUM_KINDS),
            ]
        )
        self.DRAW_STOCK = self.start("draw_stock")
        self.DRAW_DISCARD = self.start("draw_discard")
        self.DISCARD = self.start("discard")
        self.DECLARE = self.start("declare")
        self.DISCARD_DECLARE = self.start("discard_declare")
        #: the discard ids by kind, made once (the engine picks the held kinds' ids from it every act decision)
        self.discard_ids: tuple[int, ...] = tuple(range(self.DISCARD, self.DISCARD + NUM_KINDS))


__all__ = ["ActionRange", "RangeTable", "ActionLayout", "ContinentalLayout"]
