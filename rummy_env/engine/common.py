"""Pieces every engine shares: errors, the seeded generator's JSON form, shuffling."""

from __future__ import annotations

from typing import Any

import numpy as np


class IllegalActionError(ValueError):
    """An action the rules do not allow in this state (the state is unchanged)."""


class ScenarioError(ValueError):
    """A malformed scenario / state dict."""


def make_rng(seed: int | None) -> np.random.Generator:
    """The one seeded generator of a game."""
    return np.random.Generator(np.random.PCG64(seed))


def rng_to_json(rng: np.random.Generator) -> dict[str, Any]:
    """The generator's state as JSON-able data."""
    st = rng.bit_generator.state
    return {
        "bit_generator": st["bit_generator"],
        "state": {"state": str(st["state"]["state"]), "inc": str(st["state"]["inc"])},
        "has_uint32": st["has_uint32"],
        "uinteger": st["uinteger"],
    }


def rng_from_json(data: dict[str, Any]) -> np.random.Generator:
    """Rebuild a generator dumped by ``rng_to_json``."""
    if not isinstance(data, dict) or data.get("bit_generator") != "PCG64":
        raise ScenarioError(f"bad 'rng' entry {data!r}: expected the dict written by game_state()")
    rng = np.random.Generator(np.random.PCG64())
    try:
        rng.bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {"state": int(data["state"]["state"]), "inc": int(data["state"]["inc"])},
            "has_uint32": int(data["has_uint32"]),
            "uinteger": int(data["uinteger"]),
        }
    except (KeyError, TypeError, ValueError) as exc:
        raise ScenarioError(f"bad 'rng' entry {data!r}: {exc}") from None
    return rng


def shuffled(rng: np.random.Generator, cards: list[int]) -> list[int]:
    """A new list with ``cards`` in a random order drawn from ``rng``."""
    order = rng.permutation(len(cards))
    return [cards[i] for i in order]
