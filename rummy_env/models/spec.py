"""The architecture schema of the trained policies, without torch: the kinds of network and their keys, the sizes of
the ``card_action`` inputs, the limits an architecture must keep and ``check_architecture`` / ``tensor_shapes``.
``checkpoints`` (validating a file before anything is allocated), ``policy`` (building the network) and
``action_features`` import it; ``rummy_env.models.checkpoints`` and ``rummy_env.models.policy`` re-export its names."""

from __future__ import annotations

import math
import re
from typing import Any

ARCH_KIND = "masked_mlp"
ARCH_KEYS = ("kind", "obs_size", "num_actions", "trunk", "policy_hidden", "value_hidden", "activation")
#: the card-relational action-scoring network (``rummy_env.models.policy.CardActionActorCritic``): the keys of
#: ``masked_mlp`` plus the observation offsets it reads and the size of its action embedding
CARD_ARCH_KIND = "card_action"
CARD_ARCH_KEYS = (*ARCH_KEYS, "action_features", "action_embed", "hand_offset", "top_offset", "offered_offset")
#: ``card_action`` with a prior (``rummy_env.models.policy.PriorCardActorCritic``): one more key, ``prior``, the bot
#: id whose move for the deciding seat (from that seat's own view) is one more input of the action scorer and adds
#: the learned ``prior_weight`` to that action's logit -- a residual policy over a hand-written bot
PRIOR_ARCH_KIND = "card_prior"
PRIOR_ARCH_KEYS = (*CARD_ARCH_KEYS, "prior")
#: the bot ids a ``card_prior`` network may name as its prior
PRIOR_BOTS = ("heuristic",)
#: ``card_prior`` that also reads the prior bot's measures of every legal action
#: (``rummy_env.models.policy.MeasuredPriorActorCritic``): one more key, ``prior_measures``, the names of the
#: measures (the bot's ``measure_names(profile)``, checked when the bot plays), one more action-scorer input each
MEASURED_ARCH_KIND = "card_prior_measures"
MEASURED_ARCH_KEYS = (*PRIOR_ARCH_KEYS, "prior_measures")
#: at most this many measures, each name at most this long (lower-case letters, digits, underscores)
MAX_MEASURES = 64
MAX_MEASURE_NAME = 40
#: every architecture kind this version builds, and the keys of each
ARCH_KINDS = {ARCH_KIND: ARCH_KEYS, CARD_ARCH_KIND: CARD_ARCH_KEYS, PRIOR_ARCH_KIND: PRIOR_ARCH_KEYS,
              MEASURED_ARCH_KIND: MEASURED_ARCH_KEYS}  # fmt: skip
#: ``card_action``: columns of the static action table (``rummy_env.models.action_features.NUM_FEATURES``), card
#: kinds (53), relational features per card kind (``CONTEXT``) and the extra trunk inputs they make
CARD_KINDS = 53
CARD_ACTION_FEATURES = 75
CARD_CONTEXT = 7
CARD_TRUNK_EXTRA = 3 * CARD_KINDS + 2 * CARD_CONTEXT
ACTIVATION_NAMES = ("relu", "tanh")
# size limits (``checkpoints`` module docstring): a real policy never reaches them
MAX_LAYERS = 8
MAX_WIDTH = 4096
MAX_IO_SIZE = 1 << 20
MAX_PARAMETERS = 50_000_000

#: how to install what loading a network needs (torch, safetensors): the CPU build of torch first, so that the
#: extra does not pull a CUDA build
TRAIN_INSTALL_HINT = (
    'pip install torch==2.13.0 (the CPU build), then pip install "rummy_env[train]" (from a source checkout: '
    'pip install -e ".[train]")'
)


def check_architecture(arch: Any) -> None:
    """Raise ``ValueError`` saying what is wrong if ``arch`` is not a valid architecture dict within the limits
    (kinds: ``ARCH_KINDS``; ``masked_mlp`` and ``card_action``, see docs/guides/training.md)."""
    if not isinstance(arch, dict):
        raise ValueError(f"architecture must be a dict, got {type(arch).__name__}")
    kind = arch.get("kind")
    if not isinstance(kind, str) or kind not in ARCH_KINDS:
        known = ", ".join(repr(k) for k in sorted(ARCH_KINDS))
        raise ValueError(f"architecture kind {kind!r}; this version knows only {known}")
    keys = ARCH_KINDS[kind]
    if set(arch) != set(keys):
        raise ValueError(f"architecture keys {sorted(arch)}; expected exactly {sorted(keys)} for kind {kind!r}")
    for key in ("obs_size", "num_actions"):
        if type(arch[key]) is not int or not 1 <= arch[key] <= MAX_IO_SIZE:
            raise ValueError(f"architecture {key}={arch[key]!r}; expected an integer in 1..{MAX_IO_SIZE}")
    for key in ("trunk", "policy_hidden", "value_hidden"):
        sizes = arch[key]
        if not isinstance(sizes, list) or not all(type(h) is int for h in sizes):
            raise ValueError(f"architecture {key}={sizes!r}; expected a list of layer sizes")
        if len(sizes) > MAX_LAYERS or any(not 1 <= h <= MAX_WIDTH for h in sizes):
            raise ValueError(f"architecture {key}={sizes!r}; expected at most {MAX_LAYERS} sizes in 1..{MAX_WIDTH}")
    if arch["activation"] not in ACTIVATION_NAMES:
        raise ValueError(f"architecture activation {arch['activation']!r}; allowed: {list(ACTIVATION_NAMES)}")
    if kind in (CARD_ARCH_KIND, PRIOR_ARCH_KIND, MEASURED_ARCH_KIND):
        _check_card_architecture(arch)
    if kind in (PRIOR_ARCH_KIND, MEASURED_ARCH_KIND) and (
        not isinstance(arch["prior"], str) or arch["prior"] not in PRIOR_BOTS
    ):
        raise ValueError(f"architecture prior={arch['prior']!r}; allowed: {list(PRIOR_BOTS)}")
    if kind == MEASURED_ARCH_KIND:
        names = arch["prior_measures"]
        if (
            not isinstance(names, list)
            or not 1 <= len(names) <= MAX_MEASURES
            or not all(isinstance(x, str) and _MEASURE_NAME.fullmatch(x) for x in names)
            or len(set(names)) != len(names)
        ):
            raise ValueError(
                f"architecture prior_measures={names!r}; expected a list of 1..{MAX_MEASURES} distinct names of "
                f"lower-case letters, digits and underscores, at most {MAX_MEASURE_NAME} characters each"
            )
    n = parameter_count(arch)
    if n > MAX_PARAMETERS:
        raise ValueError(f"architecture has {n:,} parameters; at most {MAX_PARAMETERS:,} are allowed")


_MEASURE_NAME = re.compile(rf"[a-z][a-z0-9_]{{0,{MAX_MEASURE_NAME - 1}}}")


def _check_card_architecture(arch: dict[str, Any]) -> None:
    """The keys that only ``card_action`` has: the table width this version builds, the embedding size, and
    observation offsets whose 53-entry pieces lie inside the observation (``offered_offset`` -1: no offered card)."""
    if arch["action_features"] != CARD_ACTION_FEATURES or type(arch["action_features"]) is not int:
        raise ValueError(
            f"architecture action_features={arch['action_features']!r}; this version's action table has "
            f"{CARD_ACTION_FEATURES} columns"
        )
    if type(arch["action_embed"]) is not int or not 1 <= arch["action_embed"] <= MAX_WIDTH:
        raise ValueError(f"architecture action_embed={arch['action_embed']!r}; expected an integer in 1..{MAX_WIDTH}")
    top = arch["obs_size"] - CARD_KINDS
    for key in ("hand_offset", "top_offset", "offered_offset"):
        low = -1 if key == "offered_offset" else 0
        value = arch[key]
        if type(value) is not int or not low <= value <= top:
            raise ValueError(
                f"architecture {key}={value!r}; expected an integer in {low}..{top} (the offset of a {CARD_KINDS}-entry "
                f"piece of an observation of {arch['obs_size']}{'; -1: none' if low < 0 else ''})"
            )


def _shapes(arch: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    shapes: dict[str, tuple[int, ...]] = {}
    card = arch["kind"] in (CARD_ARCH_KIND, PRIOR_ARCH_KIND, MEASURED_ARCH_KIND)
    prior = arch["kind"] in (PRIOR_ARCH_KIND, MEASURED_ARCH_KIND)
    measures = len(arch["prior_measures"]) if arch["kind"] == MEASURED_ARCH_KIND else 0

    def mlp(prefix: str, sizes: list[int]) -> None:
        for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
            shapes[f"{prefix}.{2 * i}.weight"] = (b, a)
            shapes[f"{prefix}.{2 * i}.bias"] = (b,)

    trunk = [arch["obs_size"] + (CARD_TRUNK_EXTRA if card else 0), *arch["trunk"]]
    mlp("trunk", trunk)
    pi = [trunk[-1], *arch["policy_hidden"]]
    vf = [trunk[-1], *arch["value_hidden"]]
    mlp("policy_mlp", pi)
    mlp("value_mlp", vf)
    shapes["policy_head.weight"] = (arch["num_actions"], pi[-1])
    shapes["policy_head.bias"] = (arch["num_actions"],)
    shapes["value_head.weight"] = (1, vf[-1])
    shapes["value_head.bias"] = (1,)
    if card:
        e = arch["action_embed"]
        shapes["action_table"] = (arch["num_actions"], arch["action_features"])
        shapes["action_mlp.weight"] = (e, arch["action_features"] + 3 * CARD_CONTEXT + int(prior) + measures)
        shapes["action_mlp.bias"] = (e,)
        shapes["state_proj.weight"] = (e, pi[-1])
        shapes["state_proj.bias"] = (e,)
    if prior:
        shapes["prior_weight"] = (1,)
    return shapes


def parameter_count(arch: dict[str, Any]) -> int:
    """Number of parameters of a (structurally valid) architecture dict."""
    return sum(math.prod(shape) for shape in _shapes(arch).values())


def tensor_shapes(arch: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    """The name and shape of every weight tensor of ``arch`` (what a checkpoint file must hold, exactly)."""
    check_architecture(arch)
    return _shapes(arch)


__all__ = [
    "ACTIVATION_NAMES",
    "ARCH_KEYS",
    "ARCH_KIND",
    "ARCH_KINDS",
    "CARD_ACTION_FEATURES",
    "CARD_ARCH_KEYS",
    "CARD_ARCH_KIND",
    "CARD_CONTEXT",
    "CARD_KINDS",
    "CARD_TRUNK_EXTRA",
    "MAX_IO_SIZE",
    "MAX_LAYERS",
    "MAX_MEASURES",
    "MAX_MEASURE_NAME",
    "MAX_PARAMETERS",
    "MAX_WIDTH",
    "MEASURED_ARCH_KEYS",
    "MEASURED_ARCH_KIND",
    "PRIOR_ARCH_KEYS",
    "PRIOR_ARCH_KIND",
    "PRIOR_BOTS",
    "TRAIN_INSTALL_HINT",
    "check_architecture",
    "parameter_count",
    "tensor_shapes",
]
