"""The warm start of ``training/ppo.py``: behaviour cloning of a teacher bot before PPO (``bc_decisions: N``).

``cfg.bc_teacher`` plays every seat of the warm-start tables for ``cfg.bc_decisions`` decisions, all of them
recorded (with the network's values); each rollout is learned by ``update(..., imitate=True)`` (the script's
``ppo_update`` with its ``imitation_loss``: cross-entropy to the teacher's actions and value regression on the GAE
returns of its play, ``bc_epochs`` passes).
It uses the same rollout machinery as PPO (``rollouts``: a ``workers.Rollouts`` built with ``teacher``), so the
teacher's tables live in the worker processes when ``num_workers >= 1``. TensorBoard: ``warm_start/*``.

**Agreement per decision kind.** The mean probability of the teacher's action hides a policy that never takes the
discard or buys (most decisions are buy-window passes and stock draws). So each rollout, *before* it is learned
(the network has not yet trained on it), is also scored by ``teacher_agreement``: per kind of the teacher's action
(its range in the action table: ``draw_stock``, ``draw_discard``, ``buy``, ``pass``, ``meld``, ``lay_off``,
``discard``, ...), the share of those decisions where the network's most probable legal action is the teacher's.
The last quarter of the warm start's rollouts is summed up (``AgreementTally``), printed, and stored in the
checkpoint's ``warm_start.agreement`` (TensorBoard: ``warm_start/agreement/<kind>``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def action_kinds(layout: Any) -> list[str]:
    """The range name of every action id of ``layout`` (an action table: ``layout.ranges``)."""
    names = [""] * layout.num_actions
    for name, r in layout.ranges.items():
        names[r.start : r.stop] = [name] * r.size
    return names


def teacher_agreement(model: Any, obs: np.ndarray, mask: np.ndarray, action: np.ndarray, kinds: list[str],
                      prior: np.ndarray | None = None) -> dict[str, tuple[int, int]]:  # fmt: skip
    """Per kind of the teacher's action (``kinds[action]``): (decisions where the network's most probable legal
    action is the teacher's ``action``, decisions of that kind); ``prior``: each row's prior move (``card_prior``)."""
    if len(action) == 0:
        return {}
    uses_prior = "prior" in getattr(model, "arch", {}) and prior is not None

    def greedy_of(i: int) -> np.ndarray:
        if uses_prior:
            return model.act(obs[i : i + 4096], mask[i : i + 4096], greedy=True, prior=prior[i : i + 4096])[0]
        return model.act(obs[i : i + 4096], mask[i : i + 4096], greedy=True)[0]

    greedy = np.concatenate([greedy_of(i) for i in range(0, len(action), 4096)])
    out: dict[str, tuple[int, int]] = {}
    for kind in sorted({kinds[a] for a in action.tolist()}):
        rows = np.fromiter((kinds[a] == kind for a in action.tolist()), dtype=bool, count=len(action))
        out[kind] = (int((greedy[rows] == action[rows]).sum()), int(rows.sum()))
    return out


class AgreementTally:
    """Sums ``teacher_agreement`` counts; ``summary()`` is per kind the agreement share, decisions and share of all
    decisions, plus ``overall``."""

    def __init__(self) -> None:
        self.counts: dict[str, list[int]] = {}

    def add(self, agreement: dict[str, tuple[int, int]]) -> None:
        """Add one rollout's counts."""
        for kind, (agree, total) in agreement.items():
            c = self.counts.setdefault(kind, [0, 0])
            c[0] += agree
            c[1] += total

    def summary(self) -> dict[str, dict[str, float]]:
        """``{kind: {"agreement": share, "decisions": n, "share_of_decisions": share}}`` and ``overall``."""
        total = sum(t for _, t in self.counts.values())
        out = {
            kind: {"agreement": round(a / t, 4), "decisions": t, "share_of_decisions": round(t / total, 4)}
            for kind, (a, t) in sorted(self.counts.items())
            if t
        }
        if total:
            agree = sum(a for a, _ in self.counts.values())
            out["overall"] = {"agreement": round(agree / total, 4), "decisions": total, "share_of_decisions": 1.0}
        return out


def format_agreement(summary: dict[str, dict[str, float]]) -> str:
    """One line: ``kind agreement% (share of decisions%)`` per kind."""
    return ", ".join(
        f"{kind} {v['agreement']:.0%} ({v['share_of_decisions']:.0%} of decisions)" for kind, v in summary.items()
    )


def warm_start(
    model: Any,
    optimizer: Any,
    cfg: Any,
    rng: np.random.Generator,
    writer: Any,
    rollouts: Any,
    update: Callable[..., dict[str, float]],
    kinds: list[str] | None = None,
    agreement: dict[str, Any] | None = None,
) -> int:
    """Imitate ``cfg.bc_teacher`` for ``cfg.bc_decisions`` decisions collected by ``rollouts`` (closed at the end);
    returns the decisions imitated. ``kinds`` (``action_kinds`` of the layout): each rollout is first scored by
    ``teacher_agreement``; the summary of the last quarter of the decisions goes into ``agreement`` (a dict, filled
    in) and is printed."""
    done = 0
    tally = AgreementTally()
    try:
        if cfg.num_workers:
            rollouts.request(model.numpy_state(), {})
        while done < cfg.bc_decisions:
            batch = rollouts.receive() if cfg.num_workers else rollouts.collect_now(model.numpy_state(), {})
            done += batch.env_steps
            if cfg.num_workers and done < cfg.bc_decisions:
                rollouts.request(model.numpy_state(), {})
            if kinds is not None:
                counts = teacher_agreement(model, batch.obs, batch.mask, batch.action, kinds, batch.prior)
                if done >= 0.75 * cfg.bc_decisions or done >= cfg.bc_decisions:
                    tally.add(counts)
                for kind, (agree, total) in counts.items():
                    writer.add_scalar(f"warm_start/agreement/{kind}", agree / total, done)
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
    if kinds is not None:
        summary = tally.summary()
        print(f"warm start: agreement with {cfg.bc_teacher} per decision kind: {format_agreement(summary)}", flush=True)
        if agreement is not None:
            agreement.update(summary)
    return done
