"""Checkpoints: weights in safetensors plus JSON metadata, checked in full before use, never unpickled.

A checkpoint ``X`` is two files:

| file | holds |
|---|---|
| `X.safetensors` | the network's tensors (float32), and in its header a copy of the facts below (`rummy_env_checkpoint`) |
| `X.json` | metadata: format, profile, env version, players, observation and action sizes, architecture, training steps, config, evaluation figures, the sha256 of `X.safetensors` |

``load_checkpoint`` refuses, with a ``CheckpointError`` (a ``ValueError``) that says what is wrong and what was
expected: a pickle / ``torch.save`` file (recognised by name and by content, and never opened with pickle), a
missing file, malformed JSON, a weights file whose sha256 differs from the JSON (edited weights), JSON facts that
differ from the copy in the weights header (edited JSON), an unknown profile or an env version this package does not
provide, a profile or player count other than the one asked for, observation / action sizes that differ from the
env's, an unknown architecture, and tensors whose names, shapes or dtypes differ from the architecture's.

What it cannot catch: someone who edits the weights *and* rewrites both the hash and the header copy consistently.
Such a checkpoint is a different (possibly weak) policy, but still cannot run code: safetensors holds only numbers.

Only ``save_checkpoint`` / ``load_checkpoint`` of a network import torch (through ``rummy_env.policy``);
``read_metadata`` does not.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FORMAT = "rummy_env.checkpoint"
FORMAT_VERSION = 1
#: metadata facts copied into the safetensors header; the JSON must agree with the copy
HEADER_KEYS = ("profile", "env_version", "num_players", "observation_size", "num_actions", "architecture")
REQUIRED_KEYS = (
    "format",
    "format_version",
    *HEADER_KEYS,
    "weights_file",
    "weights_sha256",
    "training_steps",
    "config",
    "evaluation",
)
#: file names that are pickles (or zip-wrapped pickles, as ``torch.save`` writes): refused before opening
PICKLE_SUFFIXES = (".pt", ".pth", ".pkl", ".pickle", ".ckpt", ".bin", ".zip", ".joblib", ".npy", ".npz")


class CheckpointError(ValueError):
    """A checkpoint that is malformed, tampered with, unsafe, or made for another env."""


@dataclass
class Checkpoint:
    """A loaded checkpoint: the network (eval mode) and its metadata."""

    model: Any
    metadata: dict[str, Any]
    path: Path

    @property
    def profile(self) -> str:
        """The profile the policy was trained on."""
        return self.metadata["profile"]


def checkpoint_paths(path: str | os.PathLike[str]) -> tuple[Path, Path]:
    """(``X.safetensors``, ``X.json``) of a checkpoint named ``X``, ``X.safetensors`` or ``X.json``."""
    p = Path(path)
    _refuse_pickle_name(p)
    if p.suffix in (".safetensors", ".json"):
        p = p.with_suffix("")
    return p.with_name(p.name + ".safetensors"), p.with_name(p.name + ".json")


def env_facts(profile: str, num_players: int | None = None, **env_config: Any) -> dict[str, Any]:
    """What a checkpoint for this env must state: profile, env version, players, observation and action sizes."""
    import rummy_env

    if profile not in rummy_env.ENVS:
        raise CheckpointError(f"unknown profile {profile!r}; this rummy_env provides {sorted(rummy_env.ENVS)}")
    cfg = dict(env_config)
    if num_players is not None:
        cfg["num_players"] = num_players
    env = rummy_env.make(profile, wrapped=False, **cfg)
    return {
        "profile": profile,
        "env_version": env.metadata["name"],
        "num_players": len(env.possible_agents),
        "observation_size": int(env.observer.size),
        "num_actions": int(env.num_actions),
    }


def sha256_file(path: str | os.PathLike[str]) -> str:
    """Hex sha256 of a file."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def save_checkpoint(
    path: str | os.PathLike[str],
    model: Any,
    metadata: dict[str, Any],
    extra_tensors: dict[str, Any] | None = None,
) -> tuple[Path, Path]:
    """Write ``X.safetensors`` (weights of ``model``, a ``MaskedActorCritic``) and ``X.json`` (``metadata``).

    ``metadata`` must give ``profile`` and ``num_players``, and may give ``training_steps``, ``config``,
    ``evaluation`` and anything else JSON-able; the env facts, architecture, format and hash are filled in here.
    ``extra_tensors`` (e.g. the optimizer state for resuming) go into ``X.train.safetensors`` with their own hash.
    Returns the two paths.
    """
    from safetensors.torch import save_file

    weights_path, meta_path = checkpoint_paths(path)
    weights_path.parent.mkdir(parents=True, exist_ok=True)
    if "profile" not in metadata:
        raise CheckpointError("metadata must give 'profile'")
    env_config = dict(metadata.get("env_config") or {})
    facts = env_facts(metadata["profile"], metadata.get("num_players"), **_shape_config(env_config))
    arch = dict(model.arch)
    if (arch["obs_size"], arch["num_actions"]) != (facts["observation_size"], facts["num_actions"]):
        raise CheckpointError(
            f"the network takes observations of {arch['obs_size']} and {arch['num_actions']} actions, but "
            f"{facts['env_version']} with {facts['num_players']} players has {facts['observation_size']} and "
            f"{facts['num_actions']}"
        )
    meta: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        **facts,
        "architecture": arch,
        "training_steps": int(metadata.get("training_steps", 0)),
        "config": metadata.get("config", {}),
        "evaluation": metadata.get("evaluation", {}),
    }
    for k, v in metadata.items():
        if k not in meta and k not in ("weights_file", "weights_sha256"):
            meta[k] = v
    meta.setdefault("created", time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    header = {"rummy_env_checkpoint": json.dumps({k: meta[k] for k in HEADER_KEYS}, sort_keys=True)}
    tensors = {k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}
    save_file(tensors, str(weights_path), metadata=header)
    meta["weights_file"] = weights_path.name
    meta["weights_sha256"] = sha256_file(weights_path)
    if extra_tensors:
        train_path = weights_path.with_name(weights_path.name.replace(".safetensors", ".train.safetensors"))
        save_file({k: v.detach().cpu().contiguous() for k, v in extra_tensors.items()}, str(train_path))
        meta["train_state_file"] = train_path.name
        meta["train_state_sha256"] = sha256_file(train_path)
    tmp = meta_path.with_name(meta_path.name + ".tmp")
    tmp.write_text(json.dumps(meta, indent=2, sort_keys=False) + "\n")
    tmp.replace(meta_path)
    return weights_path, meta_path


def _shape_config(env_config: dict[str, Any]) -> dict[str, Any]:
    """The env arguments a checkpoint was trained with (JSON lists back to tuples), to rebuild its env's sizes:
    some change them (``deals`` of continental, rule overrides)."""
    skip = ("render_mode", "num_players")  # num_players is a fact of its own
    return {k: (tuple(v) if isinstance(v, list) else v) for k, v in env_config.items() if k not in skip}


def read_metadata(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The JSON metadata of checkpoint ``path`` after the checks that need no torch (safety, hash, header copy)."""
    weights_path, meta_path = checkpoint_paths(path)
    for p in (weights_path, meta_path):
        if not p.is_file():
            raise CheckpointError(f"checkpoint file {str(p)!r} is missing: a checkpoint is X.safetensors + X.json")
    _refuse_pickle_content(weights_path)
    try:
        meta = json.loads(meta_path.read_text())
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CheckpointError(f"{meta_path}: not valid JSON ({e})") from None
    if not isinstance(meta, dict):
        raise CheckpointError(f"{meta_path}: expected a JSON object, got {type(meta).__name__}")
    missing = [k for k in REQUIRED_KEYS if k not in meta]
    if missing:
        raise CheckpointError(f"{meta_path}: metadata lacks {missing}; expected keys {list(REQUIRED_KEYS)}")
    if meta["format"] != FORMAT or meta["format_version"] != FORMAT_VERSION:
        raise CheckpointError(
            f"{meta_path}: format {meta['format']!r} version {meta['format_version']!r}; expected {FORMAT!r} "
            f"version {FORMAT_VERSION}"
        )
    # weights_file is informative only: a checkpoint may be renamed or copied (X.* -> Y.*); the hash ties the pair
    digest = sha256_file(weights_path)
    if digest != meta["weights_sha256"]:
        raise CheckpointError(
            f"{weights_path}: sha256 {digest} differs from {meta['weights_sha256']!r} recorded in {meta_path.name}: "
            "the weights were modified (or belong to another checkpoint)"
        )
    header = _safetensors_header(weights_path)
    try:
        copy = json.loads(header.get("__metadata__", {}).get("rummy_env_checkpoint", ""))
    except json.JSONDecodeError:
        copy = None
    if not isinstance(copy, dict):
        raise CheckpointError(f"{weights_path}: its header lacks the rummy_env_checkpoint facts")
    for key in HEADER_KEYS:
        if meta[key] != copy.get(key):
            raise CheckpointError(
                f"{meta_path}: {key}={meta[key]!r} but the weights were saved with {key}={copy.get(key)!r}: the JSON "
                "was edited"
            )
    return meta


def load_checkpoint(
    path: str | os.PathLike[str],
    expect_profile: str | None = None,
    expect_num_players: int | None = None,
) -> Checkpoint:
    """Load checkpoint ``path`` after checking everything (see the module docstring); the network is in eval mode.

    ``expect_profile`` / ``expect_num_players``: refuse a checkpoint trained for another profile / table size.
    """
    from safetensors import safe_open

    from .policy import build_policy, check_architecture, tensor_shapes

    weights_path, meta_path = checkpoint_paths(path)
    meta = read_metadata(path)
    if expect_profile is not None and meta["profile"] != expect_profile:
        raise CheckpointError(
            f"{meta_path}: trained for profile {meta['profile']!r}; expected profile {expect_profile!r}"
        )
    if expect_num_players is not None and meta["num_players"] != expect_num_players:
        raise CheckpointError(
            f"{meta_path}: trained for {meta['num_players']} players; expected {expect_num_players} players"
        )
    try:  # also refuses an unknown profile or a player count the profile does not seat
        facts = env_facts(meta["profile"], meta["num_players"], **_shape_config(meta.get("env_config") or {}))
    except ValueError as e:
        raise CheckpointError(f"{meta_path}: {e}") from None
    for key in ("env_version", "observation_size", "num_actions"):
        if meta[key] != facts[key]:
            raise CheckpointError(
                f"{meta_path}: {key}={meta[key]!r}, but this rummy_env's {meta['profile']} env with "
                f"{meta['num_players']} players has {key}={facts[key]!r}"
            )
    arch = meta["architecture"]
    try:
        check_architecture(arch)
    except ValueError as e:
        raise CheckpointError(f"{meta_path}: {e}") from None
    if (arch["obs_size"], arch["num_actions"]) != (meta["observation_size"], meta["num_actions"]):
        raise CheckpointError(
            f"{meta_path}: architecture takes {arch['obs_size']} observations / {arch['num_actions']} actions; "
            f"expected {meta['observation_size']} / {meta['num_actions']}"
        )
    want = tensor_shapes(arch)
    header = _safetensors_header(weights_path)
    have = {k: v for k, v in header.items() if k != "__metadata__"}
    if set(have) != set(want):
        raise CheckpointError(
            f"{weights_path}: tensors {sorted(set(have) - set(want))} unexpected and {sorted(set(want) - set(have))} "
            f"missing for the architecture {arch}"
        )
    for name, shape in want.items():
        info = have[name]
        if tuple(info.get("shape", ())) != shape or info.get("dtype") != "F32":
            raise CheckpointError(
                f"{weights_path}: tensor {name} is {info.get('dtype')} {tuple(info.get('shape', ()))}; expected F32 "
                f"{shape}"
            )
    model = build_policy(arch)
    with safe_open(str(weights_path), framework="pt") as f:
        state = {k: f.get_tensor(k) for k in f.keys()}
    model.load_state_dict(state, strict=True)
    model.eval()
    return Checkpoint(model=model, metadata=meta, path=weights_path.with_suffix(""))


def load_train_state(path: str | os.PathLike[str], meta: dict[str, Any]) -> dict[str, Any]:
    """The extra tensors (optimizer state) saved beside checkpoint ``path``, after checking their hash."""
    from safetensors.torch import load_file

    weights_path, _ = checkpoint_paths(path)
    name = meta.get("train_state_file")
    if not name:
        return {}
    train_path = weights_path.with_name(Path(name).name)
    if not train_path.is_file():
        raise CheckpointError(f"{train_path} is missing (named by the checkpoint's train_state_file)")
    _refuse_pickle_content(train_path)
    if sha256_file(train_path) != meta.get("train_state_sha256"):
        raise CheckpointError(f"{train_path}: sha256 differs from the one recorded in the checkpoint JSON")
    return load_file(str(train_path))


# safety ---------------------------------------------------------------------------------------------------------
def _refuse_pickle_name(p: Path) -> None:
    if p.suffix.lower() in PICKLE_SUFFIXES:
        raise CheckpointError(
            f"refusing {str(p)!r}: {p.suffix} files are pickles (torch.save / pickle), which can run arbitrary code "
            "when loaded; rummy_env checkpoints are X.safetensors + X.json (export with rummy_env.checkpoints."
            "save_checkpoint)"
        )


def _looks_like_pickle(head: bytes) -> bool:
    """Pickle protocol 2+ starts with 0x80; ``torch.save`` writes a zip archive (``PK``)."""
    return head[:1] == b"\x80" or head[:2] == b"PK"


def _refuse_pickle_content(p: Path) -> None:
    """Refuse a file that is not a safetensors file, naming a pickle or zip archive as such (never unpickled)."""
    _safetensors_header(p)


def _safetensors_header(p: Path) -> dict[str, Any]:
    """The JSON header of a safetensors file, read and checked without loading any tensor."""
    size = p.stat().st_size
    with open(p, "rb") as f:
        raw = f.read(9)
        n = int.from_bytes(raw[:8], "little") if len(raw) >= 8 else 0
        if len(raw) < 9 or raw[8:9] != b"{" or n <= 1 or n > min(size - 8, 100 << 20):
            if _looks_like_pickle(raw):
                raise CheckpointError(
                    f"refusing {str(p)!r}: it is a pickle or zip archive (as torch.save writes), not safetensors; "
                    "pickles can run arbitrary code when loaded, so nothing was unpickled. Export the policy with "
                    "rummy_env.checkpoints.save_checkpoint"
                )
            raise CheckpointError(f"{p}: not a safetensors file (bad header)")
        f.seek(8)
        try:
            header = json.loads(f.read(n))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise CheckpointError(f"{p}: not a safetensors file (its header is not JSON)") from None
    if not isinstance(header, dict):
        raise CheckpointError(f"{p}: not a safetensors file (its header is not a JSON object)")
    return header


__all__ = [
    "Checkpoint",
    "CheckpointError",
    "checkpoint_paths",
    "env_facts",
    "load_checkpoint",
    "load_train_state",
    "read_metadata",
    "save_checkpoint",
    "sha256_file",
]
