"""Descriptions of the Contract family's actions for the player to move: ``action_info`` (the structured form,
docs/environments/, "Action space") and ``describe_action`` (the readable sentence built from it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.cards import card_str
from ..core.melds import GROUP, Meld, pos_kind
from .common import _sym_s
from .contract_phases import ACT

if TYPE_CHECKING:
    from .contract import ContractState


def meld_of_slot(st: ContractState, slot: int) -> tuple[int, int, Meld | None]:
    """(owner seat, meld index, the meld or None if that slot is empty) of a slot seen from the player to move."""
    owner, idx = st.layout.slot_target(st.current_player if st.current_player >= 0 else 0, slot)
    melds = st.seat_melds[owner]
    return owner, idx, (melds[idx] if idx < len(melds) else None)


def action_info(st: ContractState, action: int) -> dict[str, Any]:
    """Structured description of ``action`` for the player to move (schema: the action tables of docs/environments/)."""
    lay = st.layout
    name = lay.kind_of(int(action))
    actor = st.current_player if st.current_player >= 0 else 0
    if name == "draw_stock":
        return {"kind": "draw_stock"}
    if name == "draw_discard":
        return {"kind": "draw_discard", "card": card_str(st.discard[-1]) if st.discard else None}
    if name == "pickup":
        depth = action - lay.PICKUP + 2
        card = card_str(st.discard[-depth]) if len(st.discard) >= depth else None
        return {"kind": "pickup", "depth": depth, "card": card}
    if name == "buy":
        return {"kind": "buy", "card": card_str(st.discard[-1]) if st.discard else None}
    if name == "pass":
        return {"kind": "pass"}
    if name == "meld":
        m = st._catalog_meld(action, actor)
        return {"kind": "meld", "meld": m.kind, "cards": m.card_strings()}
    if name == "lay_off":
        kind, slot, end = lay.decode_lay_off(action)
        owner, idx, meld = meld_of_slot(st, slot)
        end_s = None if (meld is not None and meld.kind == GROUP) else ("low" if end == 0 else "high")
        return {"kind": "lay_off", "card": card_str(kind), "seat": owner, "meld": idx, "end": end_s}
    if name == "swap_joker":
        suit, pos, slot = lay.decode_swap(action)
        owner, idx, _ = meld_of_slot(st, slot)
        return {
            "kind": "swap_joker",
            "card": card_str(pos_kind(suit, pos)),
            "seat": owner,
            "meld": idx,
            "position": pos,
        }
    if name == "place_joker":
        slot, end = lay.decode_place(action)
        owner, idx, meld = meld_of_slot(st, slot)
        end_s = None if (meld is not None and meld.kind == GROUP) else ("low" if end == 0 else "high")
        return {"kind": "place_joker", "seat": owner, "meld": idx, "end": end_s}
    if name == "discard":
        return {"kind": "discard", "card": card_str(action - lay.DISCARD)}
    return {"kind": "go_out"}


def describe_action(st: ContractState, action: int) -> str:
    """Readable description, e.g. ``buy Q♥ (+ penalty card)`` or ``lay off 8♥ on seat 2's run 5♥–7♥ (high end)``."""
    info = action_info(st, action)
    kind = info["kind"]
    if kind == "draw_stock":
        return "draw from the stock"
    if kind == "draw_discard":
        return f"take {_sym_s(info['card'])} from the discard pile"
    if kind == "pickup":
        return f"pick up the discard pile down to {_sym_s(info['card'])} (depth {info['depth']})"
    if kind == "buy":
        return f"buy {_sym_s(info['card'])} (+ penalty card)"
    if kind == "pass":
        return "pass (do not buy)"
    if kind == "meld":
        return f"declare {info['meld']} " + " ".join(_sym_s(c) for c in info["cards"])
    if kind in ("lay_off", "swap_joker", "place_joker"):
        _, _, meld = meld_of_slot(st, st.layout.slot(st.current_player, info["seat"], info["meld"]))
        where = f"seat {info['seat']}'s " + (meld.describe() if meld else f"meld {info['meld']} (not on the table)")
        if kind == "lay_off":
            end = f" ({info['end']} end)" if info["end"] else ""
            return f"lay off {_sym_s(info['card'])} on {where}{end}"
        if kind == "swap_joker":
            return f"swap {_sym_s(info['card'])} for the joker in {where}"
        end = f" ({info['end']} end)" if info["end"] else ""
        return f"place the freed joker on {where}{end}"
    if kind == "discard":
        return f"discard {_sym_s(info['card'])}"
    layout = st._final_layout() if st.phase == ACT and st.final_round else None
    if layout is not None and layout[1] >= 0:
        return f"go out: lay the hand as runs and discard {card_str(layout[1], symbols=True)}"
    return "go out: lay the whole hand as runs"


__all__ = ["action_info", "describe_action", "meld_of_slot"]
