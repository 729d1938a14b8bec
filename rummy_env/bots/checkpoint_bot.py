"""Bots that play a trained network: ``PolicyBot`` (a live ``MaskedActorCritic``) and ``CheckpointBot`` (loaded from
a checked safetensors checkpoint, see ``rummy_env.checkpoints``).

Both read only ``env.observe(agent)`` -- the agent's observation vector and action mask -- (a ``card_prior`` network
also the move of its prior bot, which reads only the same agent's ``public_view``, and a ``card_prior_measures``
network that bot's measures of each legal action, from the same view) and play greedy (the most
probable legal action) or sampled (from the masked distribution, with the bot's seeded generator), so a bot plays
the same actions for the same seed. ``checkpoint_factory`` is the registry factory for ``"checkpoint:PATH"``
(greedy) and ``"checkpoint:PATH@sample"`` (sampled).
"""

from __future__ import annotations

import copy
import os
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from ..models.checkpoints import load_checkpoint
from .view import public_view

#: how a ``card_prior`` network's prior bot id becomes a bot: ``rummy_env.bots.load``, which the package sets
#: (``set_bot_loader``) when it imports this module, so that this module need not import the package back
_load_bot: Callable[..., Any] | None = None


def set_bot_loader(load: Callable[..., Any]) -> None:
    """Use ``load(bot_id, seed=...)`` for the prior bots of ``card_prior`` networks (``rummy_env.bots`` sets it)."""
    global _load_bot
    _load_bot = load


class PolicyBot:
    """Plays ``model`` (a ``rummy_env.models.policy.MaskedActorCritic``) from the agent's observation and mask."""

    def __init__(
        self,
        model: Any,
        seed: int | None = 0,
        greedy: bool = True,
        name: str = "policy",
        profile: str | None = None,
        num_players: int | None = None,
    ):
        self.model = model
        self.greedy = greedy
        self.name = name
        self.profile = profile
        self.num_players = num_players
        # the envs already checked, held weakly: keyed by the env object itself, not id(), whose number a new env
        # can reuse once the checked one is freed (and would then skip its check)
        self._checked: weakref.WeakSet[Any] = weakref.WeakSet()
        # a card_prior network plays over a bot's moves (its arch names the bot): that bot reads the same seat's view
        prior = model.arch.get("prior")
        self.prior_bot = None
        if prior is not None:
            if _load_bot is None:  # pragma: no cover - the package sets it before this module can be used
                raise RuntimeError("rummy_env.bots did not set the bot loader (set_bot_loader)")
            self.prior_bot = _load_bot(prior, seed=seed)
        # a card_prior_measures network also reads the prior bot's measures of every legal action
        self._measures = tuple(model.arch.get("prior_measures", ()))
        self._columns: np.ndarray | None = None  # the bot's measure columns the network reads, by name
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the generator used for sampled play (and the prior bot of a ``card_prior`` network)."""
        self.seed = seed
        self.rng = np.random.Generator(np.random.PCG64(seed))
        if self.prior_bot is not None:
            self.prior_bot.reset(seed)

    def __deepcopy__(self, memo: dict[int, Any]) -> PolicyBot:
        """A copy that plays on from the same point (its generator and prior bot copied) with the same network (not
        copied: the weights are read only) and no memory of the envs already checked."""
        new = copy.copy(self)
        new.rng = copy.deepcopy(self.rng, memo)
        new.prior_bot = copy.deepcopy(self.prior_bot, memo)
        new._checked = weakref.WeakSet()
        return new

    def _check_env(self, env: Any) -> None:
        """Refuse an env whose profile, table size or observation / action sizes differ from the network's."""
        raw = env.unwrapped
        if raw in self._checked:  # False for an env that takes no weak reference: checked at every call
            return
        arch = self.model.arch
        profile = getattr(raw, "profile", None)
        if self.profile is not None and profile != self.profile:
            raise ValueError(f"bot {self.name!r} was trained for profile {self.profile!r}; this env is {profile!r}")
        n = len(raw.possible_agents)
        if self.num_players is not None and n != self.num_players:
            raise ValueError(f"bot {self.name!r} was trained for {self.num_players} players; this env seats {n}")
        if (raw.observer.size, raw.num_actions) != (arch["obs_size"], arch["num_actions"]):
            raise ValueError(
                f"bot {self.name!r} takes {arch['obs_size']} observations / {arch['num_actions']} actions; this env "
                f"has {raw.observer.size} / {raw.num_actions}"
            )
        if self._measures:
            # the network reads its measures by name: a version whose bot adds measures still feeds older networks
            have = tuple(self.prior_bot.measure_names(profile))
            missing = [m for m in self._measures if m not in have]
            if missing:
                raise ValueError(
                    f"bot {self.name!r} reads the measures {list(self._measures)} of its prior bot; the "
                    f"{arch['prior']!r} bot of this version gives {list(have)} for profile {profile!r} (missing: "
                    f"{missing})"
                )
            columns = [have.index(m) for m in self._measures]
            self._columns = None if columns == list(range(len(have))) else np.array(columns, dtype=np.int64)
        try:
            self._checked.add(raw)
        except TypeError:
            pass

    def act(self, env: Any, agent: str) -> int:
        """The network's legal action for ``agent``, from ``env.observe(agent)`` only."""
        self._check_env(env)
        obs = env.observe(agent)
        mask = obs["action_mask"]
        if not mask.any():
            raise ValueError(f"{agent} has no legal action: it is not its decision")
        prior = None if self.prior_bot is None else np.array([self.prior_bot.act(env, agent)], dtype=np.int64)
        measures = None
        if self._measures:
            measures = self.prior_bot.action_measures(public_view(env, agent))[None]
            if self._columns is not None:
                measures = measures[..., self._columns]
        actions, _, _ = self.model.act(
            obs["observation"], mask, greedy=self.greedy, rng=self.rng, prior=prior, measures=measures
        )
        return int(actions[0])


class CheckpointBot(PolicyBot):
    """A checkpoint (``X.safetensors`` + ``X.json``) as a bot; every check of ``load_checkpoint`` runs first."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        seed: int | None = 0,
        greedy: bool = True,
        expect_profile: str | None = None,
        expect_num_players: int | None = None,
    ):
        ckpt = load_checkpoint(path, expect_profile=expect_profile, expect_num_players=expect_num_players)
        self.checkpoint = ckpt
        self.metadata = ckpt.metadata
        mode = "greedy" if greedy else "sample"
        super().__init__(
            ckpt.model,
            seed=seed,
            greedy=greedy,
            name=f"checkpoint:{ckpt.path}@{mode}",
            profile=ckpt.metadata["profile"],
            num_players=ckpt.metadata["num_players"],
        )


def checkpoint_factory(arg: str | None, seed: int | None) -> CheckpointBot:
    """Registry factory: ``arg`` is ``PATH`` (greedy), ``PATH@sample`` or ``PATH@greedy``."""
    if not arg:
        raise ValueError("bot id 'checkpoint' needs a path: checkpoint:PATH or checkpoint:PATH@sample")
    path, mode = arg, "greedy"
    if "@" in arg:
        head, _, tail = arg.rpartition("@")
        if tail in ("sample", "greedy"):
            path, mode = head, tail
    return CheckpointBot(path, seed=seed, greedy=mode == "greedy")


__all__ = ["CheckpointBot", "PolicyBot", "checkpoint_factory", "set_bot_loader"]
