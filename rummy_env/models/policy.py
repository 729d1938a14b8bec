"""The masked actor-critic network shared by training (``training/ppo.py``), SB3 export and checkpoint loading.

The architecture is a plain JSON-able dict, stored in every checkpoint, so a checkpoint can be checked before a
single weight is read::

    {"kind": "masked_mlp", "obs_size": 1790, "num_actions": 3089,
     "trunk": [256, 256], "policy_hidden": [], "value_hidden": [], "activation": "tanh"}

    observation -> trunk (shared MLP) -> policy_hidden MLP -> policy_head -> one logit per action
                                      -> value_hidden MLP  -> value_head  -> state value

CleanRL-style training uses a shared trunk (``policy_hidden = value_hidden = []``); SB3's default MlpPolicy is
``trunk = []`` with separate ``[64, 64]`` policy and value MLPs, so one class holds both.

**Masks.** Illegal actions get a logit of ``-inf`` and so probability exactly zero. The action spaces are large
(3,089 actions in ``contract``) while a decision has a handful of legal actions (7 on average, rarely over 60), so
the hot paths compute the policy head only on the legal actions: ``legal_index(mask)`` turns masks into padded
index rows and ``legal_logits`` multiplies the hidden state by just those rows of the head. The distribution is the
same as the dense ``masked_logits`` (tested), at a fraction of the cost.

torch is imported by this module only; ``import rummy_env`` never imports it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    import torch
    from torch import nn
except ImportError as exc:  # pragma: no cover - depends on what is installed
    from .spec import TRAIN_INSTALL_HINT

    raise ImportError(
        f"rummy_env.models.policy (checkpoint bots, training) needs torch, which is not installed: {TRAIN_INSTALL_HINT}"
    ) from exc

from .action_features import CARDS, NUM_FEATURES, TAKES_OFFERED, TAKES_TOP, card_offsets, context_matrix

# the architecture checks and size limits live in rummy_env.models.spec, without torch, so that a checkpoint's
# architecture is checked before torch is imported or anything is allocated; re-exported here
from .spec import (  # noqa: F401
    ARCH_KEYS,
    ARCH_KIND,
    CARD_ARCH_KEYS,
    CARD_ARCH_KIND,
    CARD_CONTEXT,
    CARD_KINDS,
    CARD_TRUNK_EXTRA,
    MEASURED_ARCH_KIND,
    PRIOR_ARCH_KEYS,
    PRIOR_ARCH_KIND,
    check_architecture,
    tensor_shapes,
)

ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}  # keys: rummy_env.checkpoints.ACTIVATION_NAMES


def architecture(
    obs_size: int,
    num_actions: int,
    trunk: list[int] | tuple[int, ...] = (256, 256),
    policy_hidden: list[int] | tuple[int, ...] = (),
    value_hidden: list[int] | tuple[int, ...] = (),
    activation: str = "tanh",
) -> dict[str, Any]:
    """The JSON-able description of a masked MLP actor-critic (checked by ``check_architecture``)."""
    arch = {
        "kind": ARCH_KIND,
        "obs_size": int(obs_size),
        "num_actions": int(num_actions),
        "trunk": [int(h) for h in trunk],
        "policy_hidden": [int(h) for h in policy_hidden],
        "value_hidden": [int(h) for h in value_hidden],
        "activation": activation,
    }
    check_architecture(arch)
    return arch


def _mlp(sizes: list[int], activation: str) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(a, b), ACTIVATIONS[activation]()]
    return nn.Sequential(*layers)


def legal_index(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Padded legal-action rows of a batch of masks: ``index`` (B, K) int64 and ``valid`` (B, K) bool, K = the
    largest number of legal actions in the batch (padding points at action 0 and is not valid)."""
    mask = np.asarray(mask)
    if mask.ndim == 1:
        mask = mask[None]
    counts = mask.sum(axis=1, dtype=np.int64)
    if (counts == 0).any():
        raise ValueError(f"a mask has no legal action (rows {np.flatnonzero(counts == 0).tolist()})")
    k = int(counts.max())
    rows, cols = np.nonzero(mask)
    pos = np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts)
    index = np.zeros((mask.shape[0], k), dtype=np.int64)
    valid = np.zeros((mask.shape[0], k), dtype=bool)
    index[rows, pos] = cols
    valid[rows, pos] = True
    return index, valid


def prior_flags(index: np.ndarray, valid: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """(B, K) float32: 1.0 where row ``b``'s legal action ``index[b, k]`` is the prior bot's move ``prior[b]``."""
    prior = np.asarray(prior, dtype=np.int64).reshape(-1)
    if len(prior) != len(index):
        raise ValueError(f"{len(prior)} prior actions for {len(index)} rows")
    return ((index == prior[:, None]) & valid).astype(np.float32)


class MaskedActorCritic(nn.Module):
    """Masked actor-critic MLP built from an architecture dict (see the module docstring)."""

    def __init__(self, arch: dict[str, Any]):
        super().__init__()
        check_architecture(arch)
        self.arch = dict(arch)
        act = arch["activation"]
        trunk = [arch["obs_size"], *arch["trunk"]]
        self.trunk = _mlp(trunk, act)
        self.policy_mlp = _mlp([trunk[-1], *arch["policy_hidden"]], act)
        self.value_mlp = _mlp([trunk[-1], *arch["value_hidden"]], act)
        self.policy_head = nn.Linear(([trunk[-1], *arch["policy_hidden"]])[-1], arch["num_actions"])
        self.value_head = nn.Linear(([trunk[-1], *arch["value_hidden"]])[-1], 1)

    def init_weights(self, seed: int) -> MaskedActorCritic:
        """CleanRL's initialisation (orthogonal, gain sqrt 2; policy head 0.01, value head 1), from ``seed``."""
        gen = torch.Generator().manual_seed(int(seed))
        with torch.no_grad():
            for mlp in (self.trunk, self.policy_mlp, self.value_mlp):
                for layer in mlp:
                    if isinstance(layer, nn.Linear):
                        _orthogonal_(layer.weight, np.sqrt(2), gen)
                        layer.bias.zero_()
            _orthogonal_(self.policy_head.weight, 0.01, gen)
            self.policy_head.bias.zero_()
            _orthogonal_(self.value_head.weight, 1.0, gen)
            self.value_head.bias.zero_()
        return self

    # building blocks -------------------------------------------------------------------------------------------
    def features(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(policy features, value features) of a batch of observations."""
        h = self.trunk(obs)
        return self.policy_mlp(h), self.value_mlp(h)

    def legal_logits(
        self,
        pi_features: torch.Tensor,
        index: torch.Tensor,
        valid: torch.Tensor,
        prior: torch.Tensor | None = None,
        measures: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Logits (B, K) of the actions ``index`` (B, K); padding (``~valid``) gets ``-inf``. ``prior``: (B, K) 1.0
        where the action is the prior bot's move (read by ``card_prior`` networks only; the others ignore it);
        ``measures``: (B, K, F) the prior bot's measures of each action (read by ``card_prior_measures`` only)."""
        w = self.policy_head.weight[index]  # (B, K, H): only the rows of the legal actions
        logits = torch.einsum("bkh,bh->bk", w, pi_features) + self.policy_head.bias[index]
        return logits.masked_fill(~valid, float("-inf"))

    def masked_logits(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Dense logits (B, num_actions) with ``-inf`` on every illegal action (the reference definition)."""
        pi, _ = self.features(obs)
        return self.policy_head(pi).masked_fill(mask == 0, float("-inf"))

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        """State values (B,)."""
        _, vf = self.features(obs)
        return self.value_head(vf).squeeze(-1)

    def evaluate(
        self,
        obs: torch.Tensor,
        index: torch.Tensor,
        valid: torch.Tensor,
        position: torch.Tensor,
        prior: torch.Tensor | None = None,
        measures: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """PPO's update pass: (log-prob of the action at ``position`` in its legal row, entropy, value); ``prior``
        as in ``legal_logits``. ``position`` (B,) gives log-probs (B,); (B, P) positions give (B, P) log-probs of
        the same pass (PPO's prior anchor reads the taken and the prior's move at once)."""
        pi, vf = self.features(obs)
        logp_all = torch.log_softmax(self.legal_logits(pi, index, valid, prior, measures), dim=-1)
        logp = logp_all.gather(1, position.reshape(len(position), -1)).reshape(position.shape)
        p = logp_all.exp()
        entropy = -(p * logp_all.masked_fill(~valid, 0.0)).sum(-1)
        return logp, entropy, self.value_head(vf).squeeze(-1)

    # acting ------------------------------------------------------------------------------------------------------
    @torch.no_grad()
    def act(
        self,
        obs: np.ndarray,
        mask: np.ndarray,
        greedy: bool = False,
        rng: np.random.Generator | None = None,
        prior: np.ndarray | None = None,
        measures: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Actions for a batch (or one) of observations and masks: (actions, log-probs, values), numpy.

        ``greedy``: the most probable legal action (lowest id on ties); otherwise a sample, drawn with ``rng``
        (Gumbel-max on the legal logits), so the same generator gives the same actions. ``prior``: the prior bot's
        action id for each row (-1: none); a ``card_prior`` network needs it, the other kinds ignore it.
        ``measures``: (B, K, F) the prior bot's measures of each row's legal actions in increasing id (K at least
        the most legal actions of a row, zero padding); a ``card_prior_measures`` network needs them.
        """
        single = np.ndim(obs) == 1
        obs2 = np.asarray(obs, dtype=np.float32).reshape(-1, self.arch["obs_size"])
        index, valid = legal_index(np.asarray(mask).reshape(len(obs2), -1))
        pi, vf = self.features(torch.from_numpy(obs2))
        flags = None if prior is None else torch.from_numpy(prior_flags(index, valid, prior))
        meas = None
        if measures is not None:
            m = np.asarray(measures, dtype=np.float32).reshape(len(obs2), -1, np.shape(measures)[-1])
            if m.shape[1] < index.shape[1]:
                raise ValueError(f"measures for {m.shape[1]} actions a row; the rows have up to {index.shape[1]}")
            meas = torch.from_numpy(np.ascontiguousarray(m[:, : index.shape[1]]))
        logits = self.legal_logits(pi, torch.from_numpy(index), torch.from_numpy(valid), flags, meas)
        logp_all = torch.log_softmax(logits, dim=-1).numpy()
        if greedy:
            pos = np.argmax(logp_all, axis=1)  # rows are in increasing action id: ties go to the lowest id
        else:
            rng = rng if rng is not None else np.random.default_rng()
            gumbel = rng.gumbel(size=logp_all.shape)
            pos = np.argmax(np.where(valid, logp_all + gumbel, -np.inf), axis=1)
        rows = np.arange(len(pos))
        actions = index[rows, pos]
        logp = logp_all[rows, pos]
        values = self.value_head(vf).squeeze(-1).numpy()
        if single:
            return actions[:1], logp[:1], values[:1]
        return actions, logp, values

    # weights as numpy (for worker processes and safetensors) -------------------------------------------------
    def numpy_state(self) -> dict[str, np.ndarray]:
        """A copy of the weights as numpy arrays, keyed like ``state_dict``."""
        return {k: v.detach().cpu().numpy().copy() for k, v in self.state_dict().items()}

    def load_numpy_state(self, state: dict[str, np.ndarray]) -> None:
        """Load weights from numpy arrays (names and shapes must match exactly)."""
        self.load_state_dict({k: torch.from_numpy(np.asarray(v)) for k, v in state.items()}, strict=True)


def _orthogonal_(w: torch.Tensor, gain: float, gen: torch.Generator) -> None:
    """``nn.init.orthogonal_`` drawing from ``gen`` (so initialisation does not touch the global torch RNG)."""
    rows, cols = w.shape
    flat = torch.randn(max(rows, cols), min(rows, cols), generator=gen)
    q, r = torch.linalg.qr(flat)
    q = q * torch.sign(torch.diagonal(r))
    if rows < cols:
        q = q.T
    w.copy_(gain * q[:rows, :cols])


def card_architecture(
    obs_size: int,
    num_actions: int,
    observer: Any,
    trunk: list[int] | tuple[int, ...] = (256, 256),
    policy_hidden: list[int] | tuple[int, ...] = (),
    value_hidden: list[int] | tuple[int, ...] = (),
    activation: str = "tanh",
    action_embed: int = 64,
    prior: str | None = None,
) -> dict[str, Any]:
    """The JSON-able description of a ``card_action`` network for an env whose observer is ``observer`` (its
    ``pieces`` give the offsets of the hand, the discard top and the offered card); with ``prior`` (a bot id of
    ``PRIOR_BOTS``) a ``card_prior`` network over that bot's moves."""
    arch = architecture(obs_size, num_actions, trunk, policy_hidden, value_hidden, activation)
    arch.update(kind=CARD_ARCH_KIND, action_features=NUM_FEATURES, action_embed=int(action_embed))
    arch.update(card_offsets(observer))
    if prior is not None:
        arch.update(kind=PRIOR_ARCH_KIND, prior=prior)
    check_architecture(arch)
    return arch


class CardActionActorCritic(MaskedActorCritic):
    """The ``card_action`` network: a masked actor-critic whose inputs and action scores see how cards relate.

    - **In the trunk**: the observation plus relational features computed from it (``action_features.
      context_matrix``): for each held kind, the copies of its rank in other suits and its same-suit neighbours at
      distance 1 and 2; for the discard top and the offered card, all ``NUM_CONTEXT`` relations to the hand.
    - **In the policy head**: each legal action's logit is its own row (as in ``masked_mlp``) plus a score shared by
      all actions, DouZero-style: ``state_proj(pi) . tanh(action_mlp([static features; relations of the cards it
      moves; relations of the discard top / offered card it takes]))``. The static features are the
      ``action_table`` (``action_features.action_table`` of the profile's layout), stored with the weights, so the
      same id means the same move to the network as to the engine (the checkpoint's layout fingerprint checks it).

    ``features`` returns the policy features packed with the per-kind relations (``legal_logits`` unpacks them), so
    the acting and update code of ``MaskedActorCritic`` works unchanged.
    """

    def __init__(self, arch: dict[str, Any]):
        check_architecture(arch)
        if arch["kind"] != CARD_ARCH_KIND:
            raise ValueError(f"CardActionActorCritic needs kind {CARD_ARCH_KIND!r}, got {arch['kind']!r}")
        super().__init__({k: arch[k] for k in ARCH_KEYS} | {"kind": ARCH_KIND})
        self.arch = dict(arch)
        self.kinds, self.ctx = CARD_KINDS, CARD_CONTEXT
        act = arch["activation"]
        self.trunk = _mlp([arch["obs_size"] + CARD_TRUNK_EXTRA, *arch["trunk"]], act)
        pi_size = self.policy_head.weight.shape[1]
        self.register_buffer("action_table", torch.zeros(arch["num_actions"], arch["action_features"]))
        self.register_buffer("context", torch.from_numpy(context_matrix()), persistent=False)
        self.action_mlp = nn.Linear(arch["action_features"] + 3 * CARD_CONTEXT, arch["action_embed"])
        self.state_proj = nn.Linear(pi_size, arch["action_embed"])
        self._pi_size = pi_size
        # the rows of the hand / top / offered pieces; the offered piece may be absent (-1)
        self._hand = slice(arch["hand_offset"], arch["hand_offset"] + CARD_KINDS)
        self._top = slice(arch["top_offset"], arch["top_offset"] + CARD_KINDS)
        off = arch["offered_offset"]
        self._offered = slice(off, off + CARD_KINDS) if off >= 0 else None

    def set_action_table(self, table: np.ndarray) -> CardActionActorCritic:
        """Load the static action table (``action_features.action_table(layout)``; its shape must match)."""
        table_t = torch.as_tensor(np.asarray(table, dtype=np.float32))
        if tuple(table_t.shape) != tuple(self.action_table.shape):
            raise ValueError(f"action table {tuple(table_t.shape)}; expected {tuple(self.action_table.shape)}")
        self.action_table.copy_(table_t)
        return self

    def init_weights(self, seed: int) -> CardActionActorCritic:
        """``MaskedActorCritic.init_weights``, then the action scorer (orthogonal; the state projection small)."""
        super().init_weights(seed)
        gen = torch.Generator().manual_seed(int(seed) + 1)
        with torch.no_grad():
            _orthogonal_(self.action_mlp.weight, 1.0, gen)
            self.action_mlp.bias.zero_()
            _orthogonal_(self.state_proj.weight, 0.1, gen)
            self.state_proj.bias.zero_()
        return self

    def _relations(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Per-kind relations to the hand (B, 53, C), and those of the discard top and the offered card (B, C)."""
        hand = obs[:, self._hand]
        rel = (hand @ self.context).view(-1, self.kinds, self.ctx)
        top = torch.einsum("bk,bkc->bc", obs[:, self._top], rel)
        if self._offered is None:
            offered = torch.zeros_like(top)
        else:
            offered = torch.einsum("bk,bkc->bc", obs[:, self._offered], rel)
        return rel, top, offered

    def features(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(policy features packed with the relations, value features) of a batch of observations."""
        rel, top, offered = self._relations(obs)
        held = (obs[:, self._hand] > 0).to(obs.dtype)
        extra = (held[:, :, None] * torch.stack([rel[..., 1], rel[..., 2] + rel[..., 3], rel[..., 4] + rel[..., 5]],
                                                -1)).flatten(1)  # fmt: skip
        h = self.trunk(torch.cat([obs, extra, top, offered], dim=1))
        pi = self.policy_mlp(h)
        return torch.cat([pi, rel.flatten(1), top, offered], dim=1), self.value_mlp(h)

    def _unpack(self, packed: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        p, n = self._pi_size, self.kinds * self.ctx
        rel = packed[:, p : p + n].view(-1, self.kinds, self.ctx)
        return packed[:, :p], rel, packed[:, p + n : p + n + self.ctx], packed[:, p + n + self.ctx :]

    def _scores(
        self,
        packed: torch.Tensor,
        index: torch.Tensor,
        prior: torch.Tensor | None = None,
        measures: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Logits (B, K) of the actions ``index`` (B, K), before masking (``prior``: see ``PriorCardActorCritic``;
        ``measures``: see ``MeasuredPriorActorCritic``)."""
        pi, rel, top, offered = self._unpack(packed)
        static = self.action_table[index]  # (B, K, F)
        moved = torch.einsum("bkj,bjc->bkc", static[..., CARDS : CARDS + self.kinds], rel)
        taken_top = static[..., TAKES_TOP : TAKES_TOP + 1] * top[:, None, :]
        taken_offered = static[..., TAKES_OFFERED : TAKES_OFFERED + 1] * offered[:, None, :]
        parts = [static, moved, taken_top, taken_offered]
        if prior is not None:
            parts.append(prior[..., None])
        if measures is not None:
            parts.append(measures)
        emb = torch.tanh(self.action_mlp(torch.cat(parts, dim=-1)))
        shared = torch.einsum("bke,be->bk", emb, self.state_proj(pi))
        rows = torch.einsum("bkh,bh->bk", self.policy_head.weight[index], pi) + self.policy_head.bias[index]
        return rows + shared

    def legal_logits(
        self,
        pi_features: torch.Tensor,
        index: torch.Tensor,
        valid: torch.Tensor,
        prior: torch.Tensor | None = None,
        measures: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Logits (B, K) of the actions ``index`` (B, K); padding (``~valid``) gets ``-inf`` (``prior`` and
        ``measures`` ignored)."""
        return self._scores(pi_features, index).masked_fill(~valid, float("-inf"))

    def masked_logits(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Dense logits (B, num_actions) with ``-inf`` on every illegal action (the reference definition)."""
        packed, _ = self.features(obs)
        index = torch.arange(self.arch["num_actions"]).expand(len(obs), -1)
        return self._scores(packed, index).masked_fill(mask == 0, float("-inf"))


class PriorCardActorCritic(CardActionActorCritic):
    """The ``card_prior`` network: ``card_action`` over a prior bot's move -- a residual policy (Silver et al.
    2018, "Residual Policy Learning") over the hand-written ``arch["prior"]`` bot.

    The caller gives, with every decision, the prior bot's action for the deciding seat (``act(..., prior=ids)``;
    in training each row's stored ``prior``), which the bot computes from that seat's own view only. Each legal
    action gets a flag, 1.0 for the prior's move: one more input of the shared action scorer, and ``prior_weight``
    (one learned scalar, initialised to ``PRIOR_INIT``) times the flag is added to its logit. With the prior's weight
    large and the rest near zero the network plays the prior bot; training learns where to depart from it.
    A ``card_prior`` network cannot act without the prior's moves (``PriorError``).
    """

    #: the prior's logit bonus at initialisation (before any warm start)
    PRIOR_INIT = 1.0

    def __init__(self, arch: dict[str, Any]):
        check_architecture(arch)
        if arch["kind"] != PRIOR_ARCH_KIND:
            raise ValueError(f"PriorCardActorCritic needs kind {PRIOR_ARCH_KIND!r}, got {arch['kind']!r}")
        super().__init__({k: arch[k] for k in CARD_ARCH_KEYS} | {"kind": CARD_ARCH_KIND})
        self.arch = dict(arch)
        self.action_mlp = nn.Linear(self.action_mlp.in_features + 1, self.action_mlp.out_features)
        self.prior_weight = nn.Parameter(torch.full((1,), self.PRIOR_INIT))

    def init_weights(self, seed: int) -> PriorCardActorCritic:
        """``CardActionActorCritic.init_weights``; the prior's weight back to ``PRIOR_INIT``."""
        super().init_weights(seed)
        with torch.no_grad():
            self.prior_weight.fill_(self.PRIOR_INIT)
        return self

    def legal_logits(
        self,
        pi_features: torch.Tensor,
        index: torch.Tensor,
        valid: torch.Tensor,
        prior: torch.Tensor | None = None,
        measures: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Logits (B, K) of the actions ``index`` (B, K), the prior's move flagged by ``prior`` (B, K); ``measures``
        (B, K, F) are read only by ``card_prior_measures`` (``MeasuredPriorActorCritic``)."""
        if prior is None:
            raise PriorError(f"a {self.arch['kind']} network needs the prior bot's move ({self.arch['prior']!r}) per row")
        scores = self._scores(pi_features, index, prior, self._measures(index, measures)) + self.prior_weight * prior
        return scores.masked_fill(~valid, float("-inf"))

    def _measures(self, index: torch.Tensor, measures: torch.Tensor | None) -> torch.Tensor | None:
        """The measures the scorer reads: none for ``card_prior``."""
        return None

    def masked_logits(
        self, obs: torch.Tensor, mask: torch.Tensor, prior: np.ndarray | None = None, measures: Any = None
    ) -> torch.Tensor:
        """Dense logits (B, num_actions) with ``-inf`` on every illegal action; ``prior``: the prior's action ids;
        ``measures`` (``card_prior_measures`` only): (B, num_actions, F), the measures of every action id (rows of
        illegal ones are ignored)."""
        packed, _ = self.features(obs)
        n = self.arch["num_actions"]
        index = torch.arange(n).expand(len(obs), -1)
        flags = None if prior is None else prior_flags(index.numpy(), np.ones((len(obs), n), dtype=bool), prior)
        meas = None if measures is None else torch.as_tensor(measures, dtype=torch.float32)
        return self.legal_logits(packed, index, mask != 0, None if flags is None else torch.from_numpy(flags), meas)


class MeasuredPriorActorCritic(PriorCardActorCritic):
    """The ``card_prior_measures`` network: ``card_prior`` whose action scorer also reads the prior bot's measures
    of each legal action (``arch["prior_measures"]`` names them: for the ``heuristic``, ``HeuristicBot.
    action_measures``, the quantities the hand-written rules decide by, e.g. the hand's cost after a discard).

    The scorer then weighs the heuristic's own yardsticks against each other and against the observation, instead of
    learning them from the raw cards: ``python -m rummy_env.distill advantage-fit`` fits it to rollout advantages. It cannot act
    without the measures (``PriorError``); a checkpoint of it plays only with a prior bot that names the same
    measures."""

    def __init__(self, arch: dict[str, Any]):
        check_architecture(arch)
        if arch["kind"] != MEASURED_ARCH_KIND:
            raise ValueError(f"MeasuredPriorActorCritic needs kind {MEASURED_ARCH_KIND!r}, got {arch['kind']!r}")
        super().__init__({k: arch[k] for k in PRIOR_ARCH_KEYS} | {"kind": PRIOR_ARCH_KIND})
        self.arch = dict(arch)
        self.num_measures = len(arch["prior_measures"])
        self.action_mlp = nn.Linear(self.action_mlp.in_features + self.num_measures, self.action_mlp.out_features)

    def _measures(self, index: torch.Tensor, measures: torch.Tensor | None) -> torch.Tensor:
        """``measures`` (B, K, F), checked against ``index`` (B, K) and the number of measures."""
        if measures is None:
            raise PriorError(
                f"a {MEASURED_ARCH_KIND} network needs the prior bot's move and its measures "
                f"{self.arch['prior_measures']} of every legal action, per row"
            )
        if measures.shape[-1] != self.num_measures or measures.shape[:2] != index.shape:
            raise PriorError(f"measures of shape {tuple(measures.shape)}; expected {(*index.shape, self.num_measures)}")
        return measures

    def expand_from(self, base: PriorCardActorCritic) -> MeasuredPriorActorCritic:
        """Copy a ``card_prior`` network's weights into this one (same architecture but the measures); the scorer's
        weights of the measures start at zero, so the copy plays exactly as ``base`` until it is trained."""
        state = base.state_dict()
        w = state["action_mlp.weight"]
        state["action_mlp.weight"] = torch.cat([w, torch.zeros(w.shape[0], self.num_measures, dtype=w.dtype)], 1)
        self.load_state_dict(state, strict=True)
        return self


class PriorError(ValueError):
    """A ``card_prior`` network was asked for logits without the prior bot's moves (or a ``card_prior_measures``
    network without its measures)."""


def build_policy(arch: dict[str, Any], seed: int | None = None) -> MaskedActorCritic:
    """A network for ``arch`` (its ``kind``: ``masked_mlp`` -> ``MaskedActorCritic``, ``card_action`` ->
    ``CardActionActorCritic``, ``card_prior`` -> ``PriorCardActorCritic``, ``card_prior_measures`` ->
    ``MeasuredPriorActorCritic``); initialised from ``seed`` when given (else torch's default initialisation). A
    ``card_action`` network's ``action_table`` starts at zero: load a checkpoint's weights or ``set_action_table``."""
    check_architecture(arch)
    kinds = {CARD_ARCH_KIND: CardActionActorCritic, PRIOR_ARCH_KIND: PriorCardActorCritic,
             MEASURED_ARCH_KIND: MeasuredPriorActorCritic}  # fmt: skip
    model = kinds.get(arch["kind"], MaskedActorCritic)(arch)
    if seed is not None:
        model.init_weights(seed)
    return model


__all__ = [
    "ARCH_KIND",
    "CARD_ARCH_KIND",
    "CardActionActorCritic",
    "MaskedActorCritic",
    "MEASURED_ARCH_KIND",
    "MeasuredPriorActorCritic",
    "PRIOR_ARCH_KIND",
    "PriorCardActorCritic",
    "PriorError",
    "prior_flags",
    "architecture",
    "card_architecture",
    "build_policy",
    "check_architecture",
    "legal_index",
    "tensor_shapes",
]
