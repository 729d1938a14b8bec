"""What a session means above the engine, as pure functions: rewards per step, the seed stream of unseeded
resets, the results dict of a session.

The AEC env (``rummy_env.envs.base.RummyAECEnv``) and the batched ``rummy_env.vector.VectorEnv`` must give the
same rewards and deal the same games for the same seed; these functions are the one statement of both rules.
They import no engine, env or PettingZoo.

* Rewards (``reward=``): contract profiles ``penalty`` (default), ``relative``, ``win``; continental ``payment``
  (default), ``win``. Round / deal rewards are divided by ``REWARD_SCALE``; ``win`` pays only at the session's
  end (winners share +1, the others share -1; all tied: 0).
* Seeds: ``reset(seed=s)`` plays the game of seed ``s``; each later ``reset()`` without a seed plays the game of
  the next draw of ``seed_stream(s)`` (``next_seed``), a generator of its own (not the game's PCG64(s) stream).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

#: penalties (contract) or payments (continental) are divided by this in the rewards
REWARD_SCALE = 100.0
#: the reward modes by the profile's score (``Game.score_name``); the first is the default
REWARD_MODES_BY_SCORE: dict[str, tuple[str, ...]] = {
    "penalty": ("penalty", "relative", "win"),
    "payment": ("payment", "win"),
}
#: the second word of the seed-stream generator's seed (``np.random.default_rng([seed, SEED_STREAM_TAG])``)
SEED_STREAM_TAG = 0x5EED


class RewardModeError(ValueError):
    """A ``reward=`` mode the profile does not offer."""


def reward_modes(score_name: str) -> tuple[str, ...]:
    """The reward modes of a profile whose score is ``score_name`` (``"penalty"`` / ``"payment"``), default first."""
    return REWARD_MODES_BY_SCORE[score_name]


def check_reward_mode(reward: str | None, modes: Sequence[str]) -> str:
    """``reward`` (None: the default, ``modes[0]``) if it is one of ``modes``; else ``RewardModeError``."""
    if reward is None:
        return modes[0]
    if not isinstance(reward, str) or reward not in modes:
        raise RewardModeError(f"reward={reward!r}; allowed: {list(modes)}")
    return reward


def round_rewards(result: dict[str, Any], mode: str, scale: float = REWARD_SCALE) -> list[float]:
    """What each seat receives when the round / deal of ``result`` (a ``round_results`` entry) ends.

    ``payments`` (continental): mode ``payment`` gives the deal's balance change / ``scale``; ``penalties``
    (contract): ``penalty`` gives -penalty / ``scale``, ``relative`` (table mean - own penalty) / ``scale``; every
    other mode (``win``) gives zeros. The values are the increments the AEC env adds to ``rewards`` (same floats).
    """
    if "payments" in result:
        pays = result["payments"]
        if mode == "payment":
            return [0.0 + p / scale for p in pays]
        return [0.0] * len(pays)
    pens = result["penalties"]
    n = len(pens)
    if mode == "penalty":
        return [0.0 - p / scale for p in pens]
    if mode == "relative":
        mean = sum(pens) / n
        return [0.0 + (mean - p) / scale for p in pens]
    return [0.0] * n


def win_rewards(winners: Iterable[int], num_players: int) -> list[float]:
    """Mode ``win`` at the session's end: the ``winners`` share +1, the others share -1 (all seats winning: 0)."""
    win = set(winners)
    n = num_players
    k = len(win)
    if k == n:
        return [0.0] * n
    return [1.0 / k if i in win else -1.0 / (n - k) for i in range(n)]


def add_step_rewards(
    out: Any, new_results: Iterable[dict[str, Any]], winners: Iterable[int] | None, mode: str,
    scale: float = REWARD_SCALE,
) -> None:
    """Add what each seat received from one step to ``out`` (a per-seat mutable sequence, e.g. a list of 0.0):
    the rewards of every round / deal that ended with it (``new_results``, in order), then, when the session ended
    (``winners`` not None) and ``mode`` is ``win``, the win rewards. The AEC env's order of additions."""
    for res in new_results:
        for i, r in enumerate(round_rewards(res, mode, scale)):
            out[i] += r
    if winners is not None and mode == "win":
        for i, r in enumerate(win_rewards(winners, len(out))):
            out[i] += r


def seed_stream(seed: int) -> np.random.Generator:
    """The generator of the game seeds of the unseeded resets that follow ``reset(seed=seed)``."""
    return np.random.default_rng([int(seed), SEED_STREAM_TAG])


def next_seed(stream: np.random.Generator) -> int:
    """The game seed of the next unseeded reset (one draw of ``stream``, in ``0..2**63-1``)."""
    return int(stream.integers(2**63))


def session_results(state: Any) -> dict[str, Any]:
    """The ``results()`` dict of an engine state: ``round_results`` (copies of each finished round's / deal's
    dict), ``scores`` (cumulative, per seat), ``session_over`` and ``winners`` (seats once over; else None)."""
    over = state.is_terminal()
    return {
        "round_results": [dict(r) for r in state.round_results],
        "scores": list(state.scores),
        "session_over": over,
        "winners": list(state.winners()) if over else None,
    }


__all__ = [
    "REWARD_MODES_BY_SCORE",
    "REWARD_SCALE",
    "RewardModeError",
    "SEED_STREAM_TAG",
    "add_step_rewards",
    "check_reward_mode",
    "next_seed",
    "reward_modes",
    "round_rewards",
    "seed_stream",
    "session_results",
    "win_rewards",
]
