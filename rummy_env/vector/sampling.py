"""Uniformly random legal actions for every table at once, drawn from a batch of masks."""

from __future__ import annotations

import numpy as np


class EmptyMaskError(ValueError):
    """A mask row without any legal action (a table with no decision to take)."""


def random_legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of the bool ``mask`` ``(num_envs, num_actions)``, as int64
    ``(num_envs,)``, from ``rng`` (one ``rng.random(num_envs)`` draw per call, so a seeded generator repeats).

    Vectorised: the legal ids of every row come from one ``flatnonzero`` over the whole batch, and each row's count
    from where the row boundaries fall among them (``searchsorted``; a row count by ``count_nonzero(axis=1)`` costs
    three times the whole draw). The draw is the same as ``starts + floor(u * counts)`` over per-row counts.
    """
    mask = np.asarray(mask)
    if mask.ndim != 2 or mask.dtype != bool:
        raise ValueError(f"mask must be a bool array (num_envs, num_actions); got shape {mask.shape}, {mask.dtype}")
    e, a = mask.shape
    flat = np.flatnonzero(mask)
    edges = np.arange(0, (e + 1) * a, a, dtype=np.int64)  # row i holds flat ids edges[i] .. edges[i + 1] - 1
    bounds = np.searchsorted(flat, edges)
    starts = bounds[:-1]
    counts = bounds[1:] - starts
    if not counts.all():
        raise EmptyMaskError(f"rows {np.flatnonzero(counts == 0)[:10].tolist()} of the mask have no legal action")
    pick = starts + (rng.random(e) * counts).astype(np.int64)
    return flat[pick] - edges[:-1]

__all__ = ["EmptyMaskError", "random_legal_actions"]
