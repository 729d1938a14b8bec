"""The rollouts of ``training/ppo.py``: ``Collector`` steps whole tables in one ``rummy_env.vector.VectorEnv`` and
fills a ``RolloutBuffer``, one row per recorded decision.

At each step the decisions of every table whose seat to move is ``current`` are answered by one batched forward
pass of the network (those of each frozen snapshot by one more); the bots answer one by one through
``VectorEnv.table(e)``, which gives them exactly what an AEC env gives them. Each recorded seat's rewards go to its
own last transition (``seats.SeatChains``); the roles come from the opponent pool (``pool.SeatRoles``). The
rollout's rows hold the observation, **the action mask**, the action, its log-probability, the value, the seat's own
reward, ``done``, the link ``next`` to the seat's next decision, ``bootstrap``, ``chain`` and the prior bot's move.
``shape_rewards`` adds the optional potential-based shaping; ``network_architecture`` / ``with_action_table`` build
the run's network; ``vector_kwargs`` the VectorEnv arguments of a config (the AEC env's own keys refused). Torch is
imported where a network is built (an optional dependency).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .. import bots as bot_registry
from ..core.files import shorten
from ..evaluation.policy_eval import env_kwargs
from ..models.action_features import action_table
from ..shaping import potential
from ..vector import AEC_ONLY_KEYS, VectorEnv
from .config import ConfigError
from .pool import BOT_ROLES, SeatRoles
from .seats import RECORDED, SeatChains


@dataclass
class RolloutBuffer:
    """One rollout: a row per recorded decision (of a ``current`` seat, or of the warm start's teacher), in the
    order they were taken, and what the rollout saw."""

    obs: np.ndarray  # float32 [n, obs_size]: the seat's observation
    mask: np.ndarray  # int8 [n, num_actions]: its legal actions
    action: np.ndarray  # int64: the action taken
    logp: np.ndarray  # float32: its log-probability under the behaviour policy (0 for the teacher)
    value: np.ndarray  # float32: the network's value of the observation
    reward: np.ndarray  # float32: the seat's own rewards from this decision up to its next one
    done: np.ndarray  # bool: the episode ended before the seat's next decision
    next: np.ndarray  # int64: the row of the seat's next decision (-1: none in this rollout)
    bootstrap: np.ndarray  # float32: the value standing for the rest of a chain cut here by the rollout's end
    chain: np.ndarray  # int64: id of the seat's chain of decisions (one per seat and deal)
    prior: np.ndarray  # int64: the prior bot's action for the decision (card_prior networks; -1: none)
    env_steps: int  # environment steps of every seat
    episodes: list[dict[str, Any]]  # per recorded seat of each finished deal: chain, seat, return, round scores
    reward_after_cut: float  # |rewards| that reached a seat after its chain was cut (left to the bootstrap value)
    collect_seconds: float = 0.0
    collect_cpu_seconds: float = 0.0
    ROWS: ClassVar[dict[str, Any]] = {  # the per-row fields and their dtypes
        **{"obs": np.float32, "mask": np.int8, "action": np.int64, "logp": np.float32, "value": np.float32},
        **{"reward": np.float32, "done": bool, "next": np.int64, "bootstrap": np.float32, "chain": np.int64},
        "prior": np.int64,
    }

    def __len__(self) -> int:
        return len(self.action)

    @classmethod
    def from_book(cls, book: SeatChains, arch: dict[str, Any], **rest: Any) -> RolloutBuffer:
        """The buffer of the rows ``book`` (a ``SeatChains``) collected for a network of ``arch``."""
        arrays = {key: np.asarray(book.rows[key], dtype=dtype) for key, dtype in cls.ROWS.items() if key in book.rows}
        empty = {"obs": (0, arch["obs_size"]), "mask": (0, arch["num_actions"])}
        for key, chunks in (("obs", book.obs_chunks), ("mask", book.mask_chunks)):
            rows = np.concatenate(chunks) if chunks else np.zeros(empty[key], dtype=cls.ROWS[key])
            arrays[key] = rows.view(np.int8) if rows.dtype == bool else rows.astype(cls.ROWS[key], copy=False)
        return cls(**arrays, **rest)


class Collector:
    """``num_envs`` tables in one ``rummy_env.vector.VectorEnv`` and who plays their seats; ``collect(n)`` steps
    them ``n`` times in all (``n / num_envs`` calls of ``VectorEnv.step``, one decision at every table each).
    ``teacher``: a bot id that plays every seat, its decisions recorded (the warm start).

    At each step the decisions of every table whose seat to move is ``current`` are answered by one batched forward
    pass of the network (those of each frozen snapshot by one more), the bots' one by one through
    ``VectorEnv.table(e)`` (an env-like view of table ``e``); the rewards of the step (``VectorEnv.rewards``) go to
    each recorded seat's own last transition; a table whose session ended (``done``, dealt again by the VectorEnv)
    closes its chains and draws new roles."""

    def __init__(self, cfg: Any, num_envs: int, worker: int, teacher: str | None = None):
        import torch  # optional dependency: torch

        from ..models.policy import build_policy  # optional dependency: torch

        torch.set_num_threads(cfg.torch_threads)
        self.rng = np.random.default_rng([cfg.seed, worker])
        self.vec = VectorEnv(cfg.profile, num_envs, **vector_kwargs(cfg))
        # table e plays the games of seed s + e and their seeded stream (VectorEnv's seeding), s drawn from the rng
        self.vec.reset(seed=int(self.rng.integers(2**31 - num_envs)))
        self.tables = [self.vec.table(e) for e in range(num_envs)]  # what the bots read
        self.arch = network_architecture(cfg, self.vec.obs_size, self.vec.num_actions, self.vec.observer)
        self.model = with_action_table(build_policy(self.arch), self.vec.layout)
        self.seats = SeatRoles(cfg, env_kwargs(cfg.env_config, cfg.num_players), self.arch, num_envs,
                               self.vec.num_players, self.rng, teacher)
        self.teacher = teacher
        self.book = SeatChains(num_envs, worker, tuple(RolloutBuffer.ROWS))  # each recorded seat's transitions
        self.shaping, self.gamma = float(cfg.shaping), float(cfg.gamma)
        self.potentials: list[float] = []  # phi of each recorded row's decision (only with shaping)
        # card_prior: the prior bot of every seat, asked for its move at each network decision (and the teacher's)
        prior = self.arch.get("prior")
        self.prior_bots = None
        if prior is not None:
            self.prior_bots = [
                [bot_registry.load(prior, seed=0) for _ in range(self.vec.num_players)] for _ in range(num_envs)
            ]
        for e in range(num_envs):
            self._new_deal(e)

    def set_weights(self, state: dict[str, np.ndarray]) -> None:
        """Load the current network's weights."""
        self.model.load_numpy_state(state)

    def set_snapshots(self, snapshots: dict[str, dict[str, np.ndarray] | None]) -> None:
        """Add the frozen networks given with weights, keep those given as None, drop the others."""
        self.seats.set_snapshots(snapshots)

    def _new_deal(self, e: int) -> None:
        """Table ``e`` starts a session (the VectorEnv dealt it): new roles; each recorded seat starts a chain. The
        VectorEnv writes observations for the seats that a network plays (bots read the table itself)."""
        roles = self.seats.deal(e)
        self.book.new_deal(e, roles)
        if self.prior_bots is not None:
            for bot in self.prior_bots[e]:
                bot.reset(int(self.rng.integers(2**31)))
        vec = self.vec
        vec.observe_seats[e] = [role not in BOT_ROLES for role in roles]
        seat = int(vec.seat[e])
        if vec.observe_seats[e, seat]:  # the first decision was written under the last session's roles
            vec.observe(e, seat, out=vec.obs[e])

    def collect(self, num_steps: int) -> RolloutBuffer:
        """Step the tables ``num_steps`` times in all (rounded up to whole steps of every table); the recorded
        seats' transitions."""
        book, vec, steps = self.book, self.vec, 0
        book.begin()
        self.potentials = []
        while steps < num_steps:
            _, _, _, rewards, done = vec.step(self._decide())
            steps += vec.num_envs
            book.credit(rewards)  # each seat's reward goes to its own transition
            for e in np.flatnonzero(done).tolist():  # close the session's chains; the table was dealt again
                book.end_deal(e, vec.final_results[e], self.seats.roles[e])
                self._new_deal(e)
        cut = book.cut()  # chains cut by the end of the rollout: bootstrap with V(the seat's observation)
        if cut:
            o = np.stack([vec.observe(e, s) for e, s, _ in cut])
            for v, (_, _, i) in zip(self._values(o), cut):
                book.rows["bootstrap"][i] = float(v)
        if self.shaping:
            cut_phi = {i: self._potential(e, s) for e, s, i in cut}
            shape_rewards(book.rows, self.potentials, cut_phi, self.gamma, self.shaping)
        return RolloutBuffer.from_book(
            book, self.arch, env_steps=steps, episodes=book.episodes, reward_after_cut=book.reward_after_cut
        )

    def _decide(self) -> np.ndarray:
        """The action at every table: bots one by one; the current network, and each frozen snapshot, in one batched
        forward pass over the tables where it is to move (in a warm start the teacher's actions, with the current
        network's values). The decisions of recorded seats become rows."""
        vec, roles, seats = self.vec, self.seats.roles, self.vec.seat.tolist()
        actions = np.empty(vec.num_envs, dtype=np.int64)
        groups: dict[str, list[int]] = defaultdict(list)
        for e, seat in enumerate(seats):
            role = roles[e][seat]
            if role in BOT_ROLES:
                actions[e] = self.seats.bot_act(e, seat, self.tables[e])
            else:
                groups[role].append(e)
        for role, es in groups.items():
            o, m = vec.obs[es], vec.mask[es]  # copies (fancy indexing): the rows keep them
            prior = self._prior(es, seats)
            if role == "teacher":
                if prior is not None and self.teacher == self.arch["prior"]:
                    a = prior  # the teacher is the prior bot: its move is the prior's
                else:
                    a = np.array([self.seats.bot_act(e, seats[e], self.tables[e]) for e in es], dtype=np.int64)
                lp, v = np.zeros(len(es), dtype=np.float32), self._values(o)
            else:
                a, lp, v = self.seats.network(role, self.model).act(o, m, rng=self.rng, prior=prior)
            actions[es] = a
            if role in RECORDED:
                p = prior if prior is not None else np.full(len(es), -1, dtype=np.int64)
                self.book.record(es, [seats[e] for e in es], o, m, action=a, logp=lp, value=v, prior=p)
                if self.shaping:
                    self.potentials.extend(self._potential(e, seats[e]) for e in es)
        return actions

    def _prior(self, es: list[int], seats: list[int]) -> np.ndarray | None:
        """The prior bot's move for the seat to move at each table of ``es`` (None without a prior): each seat's
        own prior bot, reading that seat's view of the table only."""
        if self.prior_bots is None:
            return None
        tables, bots = self.tables, self.prior_bots
        return np.array([bots[e][seats[e]].act(tables[e], tables[e].agent_selection) for e in es], dtype=np.int64)

    def _potential(self, e: int, seat: int) -> float:
        """The shaping potential of ``seat`` at table ``e`` now, from that seat's own view."""
        return potential(self.vec.public_view(e, seat))

    def _values(self, obs: np.ndarray) -> np.ndarray:
        import torch  # optional dependency: torch

        with torch.no_grad():
            return self.model.value(torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32))).numpy()


def shape_rewards(
    rows: dict[str, list], potentials: list[float], cut_phi: dict[int, float], gamma: float, coef: float
) -> None:
    """Add potential-based shaping to the rollout's rewards in place: row ``i`` (potential ``potentials[i]``) gets
    ``coef * (gamma * phi_next - phi_i)``, where ``phi_next`` is the potential of the seat's next row, of the
    state where the rollout cut its chain (``cut_phi[i]``), or 0 after the episode's end (``done``). Summed along a
    whole episode the terms telescope to ``-coef * phi(first decision)``: which policies are best does not change."""
    reward, nxt, done = rows["reward"], rows["next"], rows["done"]
    for i, phi in enumerate(potentials):
        if done[i]:
            after = 0.0
        elif nxt[i] >= 0:
            after = potentials[nxt[i]]
        else:
            after = cut_phi[i]
        reward[i] += coef * (gamma * after - phi)


def network_architecture(cfg: Any, obs_size: int, num_actions: int, observer: Any) -> dict[str, Any]:
    """The architecture dict of the run's ``network`` (``masked_mlp``, ``card_action`` or ``card_prior``, whose prior
    is the ``heuristic``) for an env of these sizes."""
    from ..models.policy import architecture, card_architecture  # optional dependency: torch

    if cfg.network in ("card_action", "card_prior"):
        prior = "heuristic" if cfg.network == "card_prior" else None
        return card_architecture(obs_size, num_actions, observer, trunk=cfg.trunk, activation=cfg.activation,
                                 action_embed=cfg.action_embed, prior=prior)  # fmt: skip
    return architecture(obs_size, num_actions, trunk=cfg.trunk, activation=cfg.activation)


def with_action_table(model: Any, layout: Any) -> Any:
    """``model`` with the static action table of ``layout`` loaded, when it is a ``card_action`` network."""
    if hasattr(model, "set_action_table"):
        model.set_action_table(action_table(layout))
    return model


def vector_kwargs(cfg: Any) -> dict[str, Any]:
    """The ``VectorEnv`` arguments of the run's ``env_config`` and ``num_players``; a ``ConfigError`` for the AEC
    env's arguments that VectorEnv has no use for (the rollouts cannot truncate, render or meet an illegal action)."""
    kwargs = env_kwargs(cfg.env_config, cfg.num_players)
    aec_only = sorted(k for k in kwargs if k in AEC_ONLY_KEYS)
    if aec_only:
        raise ConfigError(
            f"env_config={shorten(cfg.env_config)}: {aec_only} only mean something to the AEC env; training/ppo.py collects "
            "through rummy_env.vector.VectorEnv, which takes reward, rounds, num_players and rule overrides (a "
            "round's length is bounded by the rules' turn_cap)"
        )
    return kwargs
