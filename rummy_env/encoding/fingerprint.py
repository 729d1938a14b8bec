"""The layout fingerprint: a sha256 of what every action id and every observation entry means.

A checkpoint's sizes (``observation_size``, ``num_actions``) do not notice a table whose ids were reordered or
re-assigned at the same size; the fingerprint does. It hashes a canonical text (``layout_lines``), one line per
fact, in order:

* a version line (``FINGERPRINT_VERSION``);
* the action table: each named range with its first id and size, then one line per id with its range and what it
  stands for independently of the seat: the meld catalog entry (spec and card kinds) of a ``meld`` id, the card
  kind and its name of a ``discard`` / ``discard_declare`` id, the depth of a ``pickup`` id, (card kind, seat
  offset, meld number, end) of a ``lay_off`` id, (suit, position, seat offset, meld number) of a ``swap_joker`` id,
  (seat offset, meld number, end) of a ``place_joker`` id; a one-id range is its name; another range its index;
* the observation: its size, then each piece with its offset, shape and the sha256 of its bounds (float32,
  little-endian), then the sha256 of the whole lower bound.

Only integers and fixed strings enter the text (no ``hash()``, no set order), so the value is the same in every
process and on every machine. Piece descriptions do not enter it: rewording the documentation changes nothing.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np

from ..core.cards import card_str

FINGERPRINT_VERSION = "rummy_env.layout_fingerprint v1"


def _canon(x: Any) -> str:
    """Canonical JSON of a nest of ints / tuples / lists (numpy integers included)."""

    def conv(v: Any) -> Any:
        if isinstance(v, (tuple, list)):
            return [conv(e) for e in v]
        return int(v)

    return json.dumps(conv(x), separators=(",", ":"))


def _slot_text(layout: Any, slot: int) -> str:
    offset, meld = divmod(int(slot), int(layout.max_melds))
    return f"seat_offset={offset} meld={meld}"


def _meaning(layout: Any, name: str, start: int, size: int, action: int) -> str:
    """What ``action`` of range ``name`` stands for, as text (see the module docstring)."""
    i = action - start
    if size == 1:
        return ""
    if name in ("discard", "discard_declare"):
        return f"kind={i} card={card_str(i)}"
    if name == "pickup":
        return f"depth={i + 2}"
    if name == "meld":
        groups = layout.groups
        spec = groups[i] if i < len(groups) else layout.runs[i - len(groups)]
        return f"{type(spec).__name__}={_canon(tuple(spec))} kinds={_canon(layout.meld_kinds[i])}"
    if name == "lay_off":
        kind, slot, end = layout.decode_lay_off(action)
        return f"kind={kind} {_slot_text(layout, slot)} end={end}"
    if name == "swap_joker":
        suit, pos, slot = layout.decode_swap(action)
        return f"suit={suit} position={pos} {_slot_text(layout, slot)}"
    if name == "place_joker":
        slot, end = layout.decode_place(action)
        return f"{_slot_text(layout, slot)} end={end}"
    return f"index={i}"


def _array_sha(a: Any) -> str:
    return hashlib.sha256(np.ascontiguousarray(a, dtype="<f4").tobytes()).hexdigest()


def layout_lines(layout: Any, observer: Any) -> list[str]:
    """The canonical text the fingerprint hashes, one fact per line: ``layout`` is a profile's action table (a
    ``RangeTable``), ``observer`` its observation encoder (with ``pieces``, ``low``, ``high``)."""
    lines = [FINGERPRINT_VERSION, f"actions {int(layout.num_actions)}"]
    ranges = list(layout.ranges.values())
    for rng in ranges:
        lines.append(f"range {rng.name} start={int(rng.start)} size={int(rng.size)}")
    for rng in ranges:
        for a in range(rng.start, rng.stop):
            lines.append(f"id {a} {rng.name} {_meaning(layout, rng.name, rng.start, rng.size, a)}".rstrip())
    pieces = observer.pieces
    lines.append(f"observation {int(observer.size)}")
    for name, shape in pieces.shapes.items():
        lines.append(
            f"piece {name} offset={int(pieces.offsets[name])} shape={_canon(tuple(shape))} "
            f"high_sha256={_array_sha(pieces.highs[name])}"
        )
    lines.append(f"low_sha256={_array_sha(observer.low)} high_sha256={_array_sha(observer.high)}")
    return lines


def layout_fingerprint(layout: Any, observer: Any) -> str:
    """The sha256 (64 lower-case hex digits) of ``layout_lines(layout, observer)``."""
    return hashlib.sha256("\n".join(layout_lines(layout, observer)).encode("utf-8")).hexdigest()


__all__ = ["FINGERPRINT_VERSION", "layout_fingerprint", "layout_lines"]
