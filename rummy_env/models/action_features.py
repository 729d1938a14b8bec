"""Static features of every action id, and the card-relation matrices of the ``card_action`` network.

``action_table(layout)`` is a ``(num_actions, NUM_FEATURES)`` float32 table: what an action *is*, read from the
profile's action layout (``rummy_env.registry.game(p).layout(rules)``, the same table ``action_info`` reads), so
that actions which move the same cards share the parameters that score them (DouZero's move encoding). Columns:

| columns | meaning |
|---|---|
| 0..12 | the action's range, one-hot over ``RANGES`` |
| 13..65 | copies of each card kind (53) the action moves out of the hand: a meld's cards, a lay-off's card, the natural a joker swap gives, a discard |
| 66 | takes the discard top (``draw_discard``, a deep ``pickup``: the cards the network reads from ``discard_top``) |
| 67 | takes the offered card (``buy``: the card in the ``offered`` piece) |
| 68, 69, 70 | a meld that is a group / a run; the meld's size / 10 |
| 71, 72, 73 | a target meld of the actor's own / of another seat (lay-off, swap, placement); the high end |
| 74 | the depth of a deep pickup / 10 |

``context_matrix()`` gives, per card kind, ``NUM_CONTEXT`` relations to a hand as one linear map of the hand's
counts (``hand @ M`` reshaped to ``(53, NUM_CONTEXT)``): copies of that kind, copies of its rank in other suits,
same-suit neighbours at rank -1, +1, -2, +2 (the ace next to both the two and the king), and jokers. The network
turns each action's moved cards (and the discard top / offered card it takes) into these relations: "does this card
fit my hand" is then one matrix product, not something each action's row must learn alone.

Numpy only (no torch): the tables are data, stored in a checkpoint's weights (``action_table``) or rebuilt from
constants (``context_matrix``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.cards import JOKER, NUM_KINDS, NUM_RANKS
from .spec import CARD_ACTION_FEATURES, CARD_CONTEXT

#: the range names a column stands for (a profile has a subset of them)
RANGES = ("draw_stock", "draw_discard", "pickup", "buy", "pass", "meld", "lay_off", "swap_joker", "place_joker",
          "discard", "go_out", "declare", "discard_declare")  # fmt: skip
CARDS = len(RANGES)  # first column of the moved cards
TAKES_TOP = CARDS + NUM_KINDS
TAKES_OFFERED = TAKES_TOP + 1
MELD_GROUP, MELD_RUN, MELD_SIZE = TAKES_OFFERED + 1, TAKES_OFFERED + 2, TAKES_OFFERED + 3
OWN_MELD, OTHER_MELD, HIGH_END = MELD_SIZE + 1, MELD_SIZE + 2, MELD_SIZE + 3
PICKUP_DEPTH = HIGH_END + 1
NUM_FEATURES = PICKUP_DEPTH + 1
NUM_CONTEXT = CARD_CONTEXT
assert NUM_FEATURES == CARD_ACTION_FEATURES


def action_table(layout: Any) -> np.ndarray:
    """The ``(layout.num_actions, NUM_FEATURES)`` float32 table of ``layout`` (an ``ActionLayout`` or
    ``ContinentalLayout``; see the module docstring). A range this version does not know is a ``ValueError``."""
    table = np.zeros((layout.num_actions, NUM_FEATURES), dtype=np.float32)
    for name, r in layout.ranges.items():
        if name not in RANGES:
            raise ValueError(f"action range {name!r} has no static features; known ranges: {list(RANGES)}")
        table[r.start : r.stop, RANGES.index(name)] = 1.0
        ids = range(r.start, r.stop)
        if name == "draw_discard":
            table[r.start, TAKES_TOP] = 1.0
        elif name == "pickup":
            for d, a in enumerate(ids, start=2):
                table[a, TAKES_TOP] = 1.0
                table[a, PICKUP_DEPTH] = d / 10
        elif name == "buy":
            table[r.start, TAKES_OFFERED] = 1.0
        elif name in ("discard", "discard_declare"):
            for k, a in enumerate(ids):
                table[a, CARDS + k] = 1.0
        elif name == "meld":
            for i, a in enumerate(ids):
                kinds = layout.meld_kinds[i]
                for k in kinds:
                    table[a, CARDS + k] += 1.0
                table[a, MELD_GROUP if i < len(layout.groups) else MELD_RUN] = 1.0
                table[a, MELD_SIZE] = len(kinds) / 10
        elif name == "lay_off":
            for a in ids:
                kind, slot, end = layout.decode_lay_off(a)
                table[a, CARDS + kind] = 1.0
                table[a, OWN_MELD if slot < layout.max_melds else OTHER_MELD] = 1.0
                table[a, HIGH_END] = float(end)
        elif name == "swap_joker":
            for a in ids:
                suit, pos, slot = layout.decode_swap(a)
                rank = 1 if pos == 14 else pos
                table[a, CARDS + suit * NUM_RANKS + rank - 1] = 1.0
                table[a, OWN_MELD if slot < layout.max_melds else OTHER_MELD] = 1.0
        elif name == "place_joker":
            for a in ids:
                slot, end = layout.decode_place(a)
                table[a, CARDS + JOKER] = 1.0
                table[a, OWN_MELD if slot < layout.max_melds else OTHER_MELD] = 1.0
                table[a, HIGH_END] = float(end)
    return table


def context_matrix() -> np.ndarray:
    """The ``(NUM_KINDS, NUM_KINDS * NUM_CONTEXT)`` float32 map from a hand's counts to each kind's relations
    (module docstring): ``(hand @ M).reshape(-1, NUM_KINDS, NUM_CONTEXT)``."""
    m = np.zeros((NUM_KINDS, NUM_KINDS, NUM_CONTEXT), dtype=np.float32)  # [held kind, card kind, relation]
    for k in range(NUM_KINDS):
        m[JOKER, k, 6] = 1.0
        if k == JOKER:
            m[JOKER, k, 0] = 1.0
            continue
        suit, rank = divmod(k, NUM_RANKS)
        m[k, k, 0] = 1.0
        for other in range(4):
            if other != suit:
                m[other * NUM_RANKS + rank, k, 1] = 1.0
        for rel, step in ((2, -1), (3, 1), (4, -2), (5, 2)):
            r = (rank + step) % NUM_RANKS  # 0-based: the ace (0) neighbours the two (1) and the king (12)
            m[suit * NUM_RANKS + r, k, rel] = 1.0
    return m.reshape(NUM_KINDS, NUM_KINDS * NUM_CONTEXT)


def card_offsets(observer: Any) -> dict[str, int]:
    """The observation offsets the ``card_action`` network reads: ``hand_offset``, ``top_offset`` (row 0 of
    ``discard_top``) and ``offered_offset`` (-1 when the profile has no ``offered`` piece)."""
    o = observer.pieces.offsets
    return {"hand_offset": o["hand"], "top_offset": o["discard_top"], "offered_offset": o.get("offered", -1)}


__all__ = ["NUM_CONTEXT", "NUM_FEATURES", "RANGES", "action_table", "card_offsets", "context_matrix"]
