"""The canonical position of a seat: the env's JSON state with everything the seat cannot see dealt in a fixed order.

``canonical_json(data, seat)`` pools the hidden cards (the stock, the opponents' cards not publicly known to be in
their hands), sorts the pool and deals it back: each opponent keeps its known cards and takes the next cards of the
pool for its hidden ones, the rest is the stock; the engine's generator is dropped. The result depends only on what
``seat`` may know, so a bot that computes from it (the ``search`` bot, the fast rollout bot) cannot depend on the
true hidden cards. ``canonical_state(raw_env, seat, seed)`` loads it as an engine state with a generator of the
caller's seed.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..registry import game


def canonical_json(data: dict[str, Any], seat: int) -> dict[str, Any]:
    """The JSON state ``data`` with everything ``seat`` cannot see replaced by a fixed arrangement.

    The hidden cards (the stock and the opponents' cards not listed in ``known``) are pooled, sorted and dealt
    back: each opponent keeps its known cards and gets the next cards of the pool for its hidden ones, the rest
    is the stock. The engine's generator (``rng``: future shuffles and deals) is dropped. The result depends only
    on what ``seat`` may know; hand sizes and known cards are unchanged.
    """
    out = dict(data)
    out.pop("rng", None)
    hands = [list(h) for h in data["hands"]]
    known = data.get("known") or [[] for _ in hands]
    pool: list[str] = list(data.get("stock", []))
    hidden_sizes = []
    for p, hand in enumerate(hands):
        if p == seat:
            hidden_sizes.append(0)
            continue
        hidden = Counter(hand)
        hidden.subtract(Counter(known[p]))
        pool.extend(hidden.elements())
        hidden_sizes.append(len(hand) - len(known[p]))
    pool.sort()
    i = 0
    for p, size in enumerate(hidden_sizes):
        if p != seat:
            hands[p] = sorted(known[p]) + pool[i : i + size]
            i += size
    out["hands"] = hands
    out["stock"] = pool[i:]
    return out


def canonical_state(raw: Any, seat: int, seed: int | None) -> Any:
    """The canonical engine state of the unwrapped env ``raw`` for ``seat``, its generator seeded with ``seed``."""
    data = canonical_json(raw.game_state(), seat)
    return game(raw.profile).load_state(data, raw.rules, seed=seed)


__all__ = ["canonical_json", "canonical_state"]
