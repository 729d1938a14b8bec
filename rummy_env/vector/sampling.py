"""Uniformly random legal actions for every table at once, drawn from a batch of masks."""

from __future__ import annotations

import numpy as np


class EmptyMaskError(ValueError):
    """A mask row without any legal action (a table with no decision to take)."""


def random_legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of the bool ``mask`` ``(num_envs, num_actions)``, as int64
    ``(num_envs,)``, from ``rng`` (one ``rng.random(num_envs)`` draw per call, so a seeded generator repeats).

    Vectorised: the legal ids of every row come from one ``flatnonzero`` over the whole batch.
    """
    mask = np.asarray(mask)
    if mask.ndim != 2 or mask.dtype != bool:
        raise ValueError(f"mask must be a bool array (num_envs, num_actions); got shape {mask.shape}, {mask.dtype}")
    e, a = mask.shape
    flat = np.flatnonzero(mask)
    counts = np.count_nonzero(mask, axis=1)
    if not counts.all():
        raise EmptyMaskError(f"rows {np.flatnonzero(counts == 0)[:10].tolist()} of the mask have no legal action")
    starts = np.cumsum(counts) - counts
    pick = starts + (rng.random(e) * counts).astype(np.int64)
    return flat[pick] - np.arange(e, dtype=np.int64) * a


__all__ = ["EmptyMaskError", "random_legal_actions"]
