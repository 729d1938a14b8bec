"""The warm start of ``training/ppo.py``: behaviour cloning of a teacher bot before PPO (``bc_decisions: N``).

``cfg.bc_teacher`` plays every seat of the warm-start tables for ``cfg.bc_decisions`` decisions, all of them
recorded (with the network's values); each rollout is learned by ``update(..., imitate=True)`` (``ppo.ppo_update``
with ``imitation_loss``: cross-entropy to the teacher's actions and value regression on the GAE returns of its play,
``bc_epochs`` passes).
It uses the same rollout machinery as PPO (``rollouts``: a ``ppo_workers.Rollouts`` built with ``teacher``), so the
teacher's tables live in the worker processes when ``num_workers >= 1``. TensorBoard: ``warm_start/*``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def imitation_loss(logp: Any, value: Any, returns: Any, cfg: Any, stats: dict[str, list[float]]) -> Any:
    """The behaviour-cloning loss of a minibatch (``logp``: of the teacher's actions; ``value`` regressed on
    ``returns``); its figures appended to ``stats``."""
    v_loss = 0.5 * ((value - returns) ** 2).mean()
    loss = -logp.mean() + cfg.vf_coef * v_loss
    stats["imitation_loss"].append(-logp.mean().item())
    stats["value_loss"].append(v_loss.item())
    stats["teacher_action_prob"].append(logp.exp().mean().item())
    return loss


def warm_start(
    model: Any,
    optimizer: Any,
    cfg: Any,
    rng: np.random.Generator,
    writer: Any,
    rollouts: Any,
    update: Callable[..., dict[str, float]],
) -> int:
    """Imitate ``cfg.bc_teacher`` for ``cfg.bc_decisions`` decisions collected by ``rollouts`` (closed at the end);
    returns the decisions imitated."""
    done = 0
    try:
        if cfg.num_workers:
            rollouts.request(model.numpy_state(), {})
        while done < cfg.bc_decisions:
            batch = rollouts.receive() if cfg.num_workers else rollouts.collect_now(model.numpy_state(), {})
            done += batch.env_steps
            if cfg.num_workers and done < cfg.bc_decisions:
                rollouts.request(model.numpy_state(), {})
            stats = update(model, optimizer, batch, cfg, rng, imitate=True)
            for k, v in stats.items():
                writer.add_scalar(f"warm_start/{k}", v, done)
            if cfg.progress_bar or done >= cfg.bc_decisions:
                print(
                    f"warm start: {done} {cfg.bc_teacher} decisions imitated, its action's probability "
                    f"{stats['teacher_action_prob']:.3f}",
                    flush=True,
                )
    finally:
        rollouts.close()
    return done
