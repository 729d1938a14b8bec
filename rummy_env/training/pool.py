"""The opponent pool of ``training/ppo.py``: who plays each seat, and the frozen networks.

* ``SeatRoles`` (inside each rollout collector): at every deal each seat draws a role from ``pool_weights``
  (``current``, ``past``, ``heuristic``, ``random``; at least one ``current``), or every seat is the warm start's
  ``teacher``; it holds the bot objects and the frozen networks the ``past`` seats play.
* ``SnapshotPool`` (in the learner): the frozen networks' weights, from ``pool_checkpoints`` and from snapshots of
  the network taken every ``snapshot_every`` updates (saved under ``runs/<run>/pool/``, the last ``pool_size``
  kept), sent to the collectors with every rollout request.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .. import bots as bot_registry
from ..evaluation.policy_eval import bot_unavailable_reason
from ..models.checkpoints import load_checkpoint, save_checkpoint

ROLES = ("current", "past", "heuristic", "random")
BOT_ROLES = ("heuristic", "random")  # the roles played by a bot (one object per table and seat)


def pool_weights(cfg: Any, kwargs: dict[str, Any]) -> dict[str, float]:
    """The role weights, with ``heuristic`` dropped if there is no heuristic for this profile yet."""
    w = {r: float(cfg.pool_weights.get(r, 0.0)) for r in ROLES}
    unknown = set(cfg.pool_weights) - set(ROLES)
    if unknown:
        raise ValueError(f"pool_weights has unknown roles {sorted(unknown)}; allowed: {list(ROLES)}")
    if w["heuristic"] > 0 and bot_unavailable_reason(cfg.profile, "heuristic", kwargs):
        w["heuristic"] = 0.0
    if sum(w.values()) <= 0:
        raise ValueError(f"pool_weights {cfg.pool_weights} give no role a positive weight")
    return w


class SeatRoles:
    """The role of every seat of ``num_envs`` tables, drawn with ``rng`` at each deal; the bots and frozen networks
    that play the roles other than ``current``. ``teacher``: a bot id that plays every seat (the warm start)."""

    def __init__(
        self,
        cfg: Any,
        kwargs: dict[str, Any],
        arch: dict[str, Any],
        num_envs: int,
        num_seats: int,
        rng: np.random.Generator,
        teacher: str | None = None,
    ):
        self.arch, self.n, self.rng, self.teacher = arch, num_seats, rng, teacher
        self.weights = pool_weights(cfg, kwargs)
        self.snapshots: dict[str, Any] = {}  # name -> frozen network
        # one bot object per (table, seat) for the bot roles, re-seeded at every deal
        kinds = {"teacher": teacher} if teacher else {r: r for r in BOT_ROLES if self.weights[r] > 0}
        self.bots = [
            {r: [bot_registry.load(b, seed=0) for _ in range(num_seats)] for r, b in kinds.items()}
            for _ in range(num_envs)
        ]
        self.roles: list[list[str]] = [[] for _ in range(num_envs)]

    def set_snapshots(self, snapshots: dict[str, dict[str, np.ndarray] | None]) -> None:
        """Add the frozen networks given with weights, keep those given as None, drop the others."""
        from ..models.policy import build_policy  # optional dependency: torch

        for name, state in snapshots.items():
            if state is not None:
                net = build_policy(self.arch)
                net.load_numpy_state(state)
                self.snapshots[name] = net
        for name in list(self.snapshots):
            if name not in snapshots:
                del self.snapshots[name]
        newest = max(self.snapshots) if self.snapshots else None
        for roles in self.roles:  # a seat playing a dropped snapshot plays the newest one for the rest of the deal
            for s, role in enumerate(roles):
                if role.startswith("past:") and role[5:] not in self.snapshots:
                    roles[s] = f"past:{newest}"

    def deal(self, e: int) -> list[str]:
        """Draw the roles of table ``e``'s seats for a new deal (``past:<snapshot>`` names the frozen network) and
        re-seed its bots."""
        w = dict(self.weights)
        if not self.snapshots:
            w["current"] += w.pop("past")
            w["past"] = 0.0
        p = np.array([w[r] for r in ROLES], dtype=float)
        roles = list(self.rng.choice(ROLES, size=self.n, p=p / p.sum()))
        if "current" not in roles:
            roles[int(self.rng.integers(self.n))] = "current"
        if self.teacher:
            roles = ["teacher"] * self.n
        names = sorted(self.snapshots)
        for s, role in enumerate(roles):
            if role == "past":
                roles[s] = "past:" + names[int(self.rng.integers(len(names)))]
            elif role in self.bots[e]:
                self.bots[e][role][s].reset(int(self.rng.integers(2**31)))
        self.roles[e] = roles
        return roles

    def bot_act(self, e: int, seat: int, env: Any) -> int:
        """The action of the bot playing ``seat`` of table ``e`` (a bot role or the teacher); ``env``: the table as
        bots read it (``VectorEnv.table(e)``)."""
        return self.bots[e][self.roles[e][seat]][seat].act(env, env.agent_selection)

    def network(self, role: str, current: Any) -> Any:
        """The network answering ``role``: ``current`` itself, or the frozen snapshot of a ``past:`` role."""
        return current if role == "current" else self.snapshots[role[5:]]


class SnapshotPool:
    """The learner's frozen networks (``states``: name -> weights as numpy arrays): ``file:<name>`` for each
    checkpoint of ``pool_checkpoints``, ``snap_<update>`` for the snapshots of this run (or of the resumed one)."""

    def __init__(self, cfg: Any, arch: dict[str, Any], num_players: int, folder: Path):
        self.cfg, self.folder = cfg, folder
        self.states: dict[str, dict[str, np.ndarray]] = {}
        for path in cfg.pool_checkpoints:
            snap = load_checkpoint(path, expect_profile=cfg.profile, expect_num_players=num_players)
            if snap.model.arch != arch:
                raise ValueError(
                    f"pool checkpoint {path}: architecture {snap.model.arch} differs from this run's {arch}"
                )
            self.states[f"file:{Path(path).name}"] = snap.model.numpy_state()

    def own(self) -> list[str]:
        """The snapshots of the run, oldest first (what a checkpoint's ``training_state.pool`` lists)."""
        return [s for s in self.states if not s.startswith("file:")]

    def load_snapshot(self, name: str, folder: Path) -> None:
        """Add the snapshot ``folder/name`` saved by an earlier run (``--resume``)."""
        self.states[name] = load_checkpoint(folder / name, expect_profile=self.cfg.profile).model.numpy_state()

    def after_update(self, update: int, model: Any, metadata: Callable[[], dict[str, Any]]) -> None:
        """Every ``snapshot_every`` updates (if ``past`` has a weight): freeze ``model`` as ``snap_<update>``, save it
        under ``folder`` with ``metadata()``, and drop (and delete) the oldest beyond ``pool_size``."""
        cfg = self.cfg
        if not (cfg.snapshot_every and update % cfg.snapshot_every == 0 and cfg.pool_weights.get("past", 0) > 0):
            return
        name = f"snap_{update:06d}"
        self.states[name] = model.numpy_state()
        save_checkpoint(self.folder / name, model, metadata())
        own = self.own()
        for old in own[: max(0, len(own) - max(1, cfg.pool_size))]:
            del self.states[old]
            for suffix in (".safetensors", ".json"):
                (self.folder / (old + suffix)).unlink(missing_ok=True)
