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
    raise ImportError(
        "rummy_env.models.policy (checkpoint bots, training) needs torch, which is not installed: "
        'pip install torch==2.13.0 (the CPU build; see the README), then pip install -e ".[train]" for safetensors'
    ) from exc

# the architecture checks and size limits live in rummy_env.checkpoints, without torch, so that a checkpoint's
# architecture is checked before torch is imported or anything is allocated; re-exported here
from .checkpoints import ARCH_KEYS, ARCH_KIND, check_architecture, tensor_shapes  # noqa: F401

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

    def legal_logits(self, pi_features: torch.Tensor, index: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
        """Logits (B, K) of the actions ``index`` (B, K); padding (``~valid``) gets ``-inf``."""
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
        self, obs: torch.Tensor, index: torch.Tensor, valid: torch.Tensor, position: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """PPO's update pass: (log-prob of the action at ``position`` in its legal row, entropy, value)."""
        pi, vf = self.features(obs)
        logp_all = torch.log_softmax(self.legal_logits(pi, index, valid), dim=-1)
        logp = logp_all.gather(1, position[:, None]).squeeze(1)
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
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Actions for a batch (or one) of observations and masks: (actions, log-probs, values), numpy.

        ``greedy``: the most probable legal action (lowest id on ties); otherwise a sample, drawn with ``rng``
        (Gumbel-max on the legal logits), so the same generator gives the same actions.
        """
        single = np.ndim(obs) == 1
        obs2 = np.asarray(obs, dtype=np.float32).reshape(-1, self.arch["obs_size"])
        index, valid = legal_index(np.asarray(mask).reshape(len(obs2), -1))
        pi, vf = self.features(torch.from_numpy(obs2))
        logits = self.legal_logits(pi, torch.from_numpy(index), torch.from_numpy(valid))
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


def build_policy(arch: dict[str, Any], seed: int | None = None) -> MaskedActorCritic:
    """A network for ``arch``; initialised from ``seed`` when given (else torch's default initialisation)."""
    model = MaskedActorCritic(arch)
    if seed is not None:
        model.init_weights(seed)
    return model


__all__ = [
    "ARCH_KIND",
    "MaskedActorCritic",
    "architecture",
    "build_policy",
    "check_architecture",
    "legal_index",
    "tensor_shapes",
]
