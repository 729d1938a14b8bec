"""Checkpoints: weights in safetensors plus JSON metadata, checked in full before use, never unpickled.

A checkpoint ``X`` is two files:

| file | holds |
|---|---|
| `X.safetensors` | the network's tensors (float32), and in its header a copy of the facts below (`rummy_env_checkpoint`) |
| `X.json` | metadata: format, profile, env version, players, observation and action sizes, the layout fingerprint, architecture, training steps, config, evaluation figures, the sha256 of `X.safetensors` |

``load_checkpoint`` refuses, with a ``CheckpointError`` (a ``ValueError``) that says what is wrong and what was
expected: a pickle / ``torch.save`` file (recognised by name and by content, and never opened with pickle), a
missing file, malformed JSON, a weights file whose sha256 differs from the JSON (edited weights), JSON facts that
differ from the copy in the weights header (edited JSON), an unknown profile or an env version this package does not
provide, a profile or player count other than the one asked for, observation / action sizes that differ from the
env's, a ``layout_fingerprint`` that differs from the env's (the action table or the observation changed meaning at
the same sizes: see ``rummy_env.encoding.fingerprint``), an unknown architecture, an architecture over the size
limits below, a safetensors header whose data offsets and sizes do not tile the file exactly, and tensors whose
names, shapes or dtypes differ from the architecture's. Every failure to load is a ``CheckpointError``; the files are
treated as untrusted input: nothing is allocated for the network before the header has been checked against the file
length and the declared architecture.

Size limits (far above any real policy: the shipped checkpoints have about 0.1-0.65 M parameters, 0.4-2.6 MB of
weights and under 4 KB of JSON):

| limit | value |
|---|---|
| `MAX_METADATA_BYTES` | 1 MiB of JSON metadata |
| `MAX_HEADER_BYTES` | 1 MiB of safetensors header |
| `MAX_JSON_DIGITS` | 64 digits in one JSON integer |
| `MAX_LAYERS` | 8 hidden layers in each of `trunk`, `policy_hidden`, `value_hidden` |
| `MAX_WIDTH` | 4,096 units in one hidden layer |
| `MAX_IO_SIZE` | 1,048,576 observation entries or actions |
| `MAX_PARAMETERS` | 50,000,000 parameters (200 MB of float32) |
| `MAX_WEIGHTS_BYTES` | 4 bytes per allowed parameter plus the header: the weights file; twice that for `X.train.safetensors` |

The env a checkpoint was trained in (``env_config``: ``rummy_env.make`` arguments and rules overrides) is checked
before any env is built from it: only the arguments ``ENV_ARGS`` and the fields of the profile's rules object, at most
``MAX_ENV_CONFIG_KEYS`` of them, every rules field within its bounds (``rummy_env.rules.bounds``: e.g. at most 8
decks), a session length of at most ``MAX_ENV_ROUNDS`` entries, plain values for the rest; anything else is a
``CheckpointError`` saying the ``env_config`` "does not make an env" and why (``rummy_env.models.env_config``). ``save_checkpoint`` also copies the
``env_config`` into the weights header, and a checkpoint that has the copy must have the same ``env_config`` in its
JSON (an edited ``env_config`` is refused like any edited fact). Checkpoints saved before the copy existed still
load, their ``env_config`` bound-checked: the shipped ones (saved before it) are compared with the ``env_config`` that
``manifest.json`` records for their weights' sha256; any other whose ``env_config`` changes the env (anything beyond
``num_players``) gets a ``CheckpointFormatWarning`` suggesting ``reexport_checkpoint``, which adds the copy.

What it cannot catch: someone who edits the weights *and* rewrites both the hash and the header copy consistently.
Such a checkpoint is a different (possibly weak) policy, but still cannot run code: safetensors holds only numbers.

Older checkpoints, saved before the fingerprint existed, have no ``layout_fingerprint``: they load (their sizes
still checked) with one ``CheckpointFormatWarning`` per file, which says how to re-export them
(``reexport_checkpoint``). When present, the field must be 64 lower-case hex digits and agree with the header copy.

Architecture kinds (``ARCH_KINDS``; docs/guides/training.md, "Networks"): ``masked_mlp`` (``MaskedActorCritic``: one logit
row per action id) and ``card_action`` (``CardActionActorCritic``: relational card features and a shared scorer of
each action's static features, whose ``(num_actions, 75)`` table is the tensor ``action_table`` of the weights
file). A ``card_action`` architecture also names ``action_features`` (75), ``action_embed`` and the observation
offsets it reads (``hand_offset``, ``top_offset``, ``offered_offset``; -1: none), each checked to lie inside the
observation before anything is built. ``card_prior`` is ``card_action`` with one more key, ``prior`` (a bot id of
``PRIOR_BOTS``): that bot's move for the deciding seat is one more action feature and adds the scalar tensor
``prior_weight`` to its logit. ``card_prior_measures`` is ``card_prior`` with one more key, ``prior_measures``: the
names of the prior bot's per-action measures (``HeuristicBot.action_measures``), each one more input of the
action scorer; the bot must name the same measures when it plays.

Only ``save_checkpoint`` / ``load_checkpoint`` of a network import torch (through ``rummy_env.models.policy``);
``read_metadata`` does not.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.files import InputFileError, read_json, shorten, write_atomic
from ..registry import GAMES, game

# what an env_config may hold lives in ``env_config`` (re-exported here)
from .env_config import (  # noqa: F401
    ENV_ARGS,
    MAX_ENV_CONFIG_KEYS,
    MAX_ENV_ROUNDS,
    PLAIN_ENV_KEYS,
    env_config_problem,
    tuples,
)

# the architecture schema and its limits live in ``spec`` (torch-free, shared with ``policy``); re-exported here
from .spec import (  # noqa: F401
    _MEASURE_NAME,
    ACTIVATION_NAMES,
    ARCH_KEYS,
    ARCH_KIND,
    ARCH_KINDS,
    CARD_ACTION_FEATURES,
    CARD_ARCH_KEYS,
    CARD_ARCH_KIND,
    CARD_CONTEXT,
    CARD_KINDS,
    CARD_TRUNK_EXTRA,
    MAX_IO_SIZE,
    MAX_LAYERS,
    MAX_MEASURE_NAME,
    MAX_MEASURES,
    MAX_PARAMETERS,
    MAX_WIDTH,
    MEASURED_ARCH_KEYS,
    MEASURED_ARCH_KIND,
    PRIOR_ARCH_KEYS,
    PRIOR_ARCH_KIND,
    PRIOR_BOTS,
    TRAIN_INSTALL_HINT,
    _check_card_architecture,
    _shapes,
    check_architecture,
    parameter_count,
    tensor_shapes,
)

FORMAT = "rummy_env.checkpoint"
# size limits (module docstring): a real policy never reaches them; a crafted file cannot make us allocate more
MAX_METADATA_BYTES = 1 << 20
MAX_HEADER_BYTES = 1 << 20
MAX_JSON_DIGITS = 64
MAX_WEIGHTS_BYTES = 8 + MAX_HEADER_BYTES + 4 * MAX_PARAMETERS
#: bytes per element of the safetensors dtypes (a header naming another dtype is refused)
DTYPE_BYTES = {"BOOL": 1, "U8": 1, "I8": 1, "F8_E4M3": 1, "F8_E5M2": 1, "I16": 2, "U16": 2, "F16": 2, "BF16": 2,
               "I32": 4, "U32": 4, "F32": 4, "I64": 8, "U64": 8, "F64": 8}  # fmt: skip
FORMAT_VERSION = 1
#: the metadata key of the layout fingerprint (``env.unwrapped.layout_fingerprint``); optional in older files
FINGERPRINT_KEY = "layout_fingerprint"
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
#: the header key of the copy of ``env_config`` (optional in older files, compared when present)
ENV_CONFIG_KEY = "env_config"
#: file names that are pickles (or zip-wrapped pickles, as ``torch.save`` writes): refused before opening
PICKLE_SUFFIXES = (".pt", ".pth", ".pkl", ".pickle", ".ckpt", ".bin", ".zip", ".joblib", ".npy", ".npz")


class CheckpointError(ValueError):
    """A checkpoint that is malformed, tampered with, unsafe, or made for another env."""


class CheckpointFormatWarning(UserWarning):
    """A checkpoint of an older format that still loads (e.g. without ``layout_fingerprint``)."""


#: checkpoint JSON files already warned about (one warning per file and process)
_WARNED: set[str] = set()


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


#: package data of an installed wheel: the shipped checkpoints, copied there by ``setup.py`` when the wheel is built
_PACKAGED = Path(__file__).resolve().parents[1] / "_shipped"
#: a source checkout (an editable install): the repository's ``checkpoints/`` beside the package
_CHECKOUT = Path(__file__).resolve().parents[2] / "checkpoints"


def shipped_dir() -> Path | None:
    """The folder of the shipped checkpoints: ``rummy_env/_shipped/`` inside an installed wheel, else the source
    checkout's ``checkpoints/`` (an editable install); ``None`` when neither holds a ``manifest.json``."""
    for folder in (_PACKAGED, _CHECKOUT):
        if (folder / "manifest.json").is_file():
            return folder
    return None


def shipped_names() -> tuple[str, ...]:
    """The names of the shipped checkpoints (``contract``, ``contract_gamerules``, ``continental``): each loads by
    name, ``load_checkpoint("contract")`` or the bot id ``checkpoint:contract``."""
    folder = shipped_dir()
    if folder is None:
        return ()
    return tuple(sorted(p.stem for p in folder.glob("*.safetensors") if p.with_suffix(".json").is_file()))


def resolve_checkpoint(path: str | os.PathLike[str]) -> str | os.PathLike[str]:
    """``path`` itself, or the shipped checkpoint it names.

    A bare shipped name (``"contract"``, ``"contract_gamerules"``, ``"continental"``: no folder, no suffix) is the
    shipped checkpoint of that name unless a local checkpoint of that name exists (``contract.safetensors`` or
    ``contract.json`` in the working directory), which takes precedence; ``./contract`` always means the local file.
    Anything else is returned unchanged (a path, relative or absolute)."""
    if not isinstance(path, str) or not path or os.sep in path or (os.altsep and os.altsep in path):
        return path
    if Path(path + ".safetensors").exists() or Path(path + ".json").exists():
        return path
    folder = shipped_dir()
    if folder is not None and path in shipped_names():
        return str(folder / path)
    return path


def checkpoint_paths(path: str | os.PathLike[str]) -> tuple[Path, Path]:
    """(``X.safetensors``, ``X.json``) of a checkpoint named ``X``, ``X.safetensors`` or ``X.json``."""
    if not isinstance(path, str | os.PathLike):
        raise CheckpointError(f"a checkpoint path must be a string or path, got {type(path).__name__}")
    p = Path(path)
    if not str(path) or not p.name or p.name in (".", ".."):
        raise CheckpointError(
            f"checkpoint path {str(path)!r} names no file: give X, X.safetensors or X.json (a checkpoint is "
            "X.safetensors + X.json)"
        )
    _refuse_pickle_name(p)
    if p.suffix in (".safetensors", ".json"):
        p = p.with_suffix("")
    return p.with_name(p.name + ".safetensors"), p.with_name(p.name + ".json")


def env_facts(profile: str, num_players: int | None = None, **env_config: Any) -> dict[str, Any]:
    """What a checkpoint for this env must state: profile, env version, players, observation and action sizes,
    and the layout fingerprint (``FINGERPRINT_KEY``)."""
    if profile not in GAMES:  # ``rummy_env.ENVS`` has the same ids
        raise CheckpointError(f"unknown profile {profile!r}; this rummy_env provides {sorted(GAMES)}")
    cfg = dict(env_config)
    if num_players is not None:
        cfg["num_players"] = num_players
    env = game(profile).make_env(wrapped=False, **cfg)  # ``rummy_env.make``
    return {
        "profile": profile,
        "env_version": env.metadata["name"],
        "num_players": len(env.possible_agents),
        "observation_size": int(env.observer.size),
        "num_actions": int(env.num_actions),
        FINGERPRINT_KEY: env.layout_fingerprint,
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
    try:
        check_env_config(metadata["profile"], metadata.get("num_players"), env_config)
    except CheckpointError as e:
        raise CheckpointError(f"metadata: {e}") from None
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
    copy = {k: meta[k] for k in (*HEADER_KEYS, FINGERPRINT_KEY)}
    copy[ENV_CONFIG_KEY] = json.loads(json.dumps(env_config))  # as the JSON will hold it (tuples as lists)
    header = {"rummy_env_checkpoint": json.dumps(copy, sort_keys=True)}
    tensors = {k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}
    # every file is written whole or not at all (a temporary file renamed over it): no half-written checkpoint
    write_atomic(weights_path, lambda tmp: save_file(tensors, str(tmp), metadata=header))
    meta["weights_file"] = weights_path.name
    meta["weights_sha256"] = sha256_file(weights_path)
    if extra_tensors:
        train_path = weights_path.with_name(weights_path.name.replace(".safetensors", ".train.safetensors"))
        extra = {k: v.detach().cpu().contiguous() for k, v in extra_tensors.items()}
        write_atomic(train_path, lambda tmp: save_file(extra, str(tmp)))
        meta["train_state_file"] = train_path.name
        meta["train_state_sha256"] = sha256_file(train_path)
    text = json.dumps(meta, indent=2, sort_keys=False) + "\n"
    write_atomic(meta_path, lambda tmp: tmp.write_text(text))
    return weights_path, meta_path


def check_env_config(profile: str, num_players: Any, env_config: Any) -> None:
    """Refuse an ``env_config`` that would not make a small env, before anything is built: a ``CheckpointError``
    saying it "does not make an env" and why (``rummy_env.models.env_config.env_config_problem``: an unknown argument,
    too many keys, a rules field out of its bounds, a session length that is not one). Only a rules object is made
    (microseconds); ``save_checkpoint`` and every load run it."""
    if profile not in GAMES:
        raise CheckpointError(f"unknown profile {shorten(profile)}; this rummy_env provides {sorted(GAMES)}")
    why = env_config_problem(profile, num_players, env_config)
    if why:
        raise CheckpointError(f"env_config {shorten(env_config, 120)} does not make an env ({why})")


def _shape_config(env_config: dict[str, Any]) -> dict[str, Any]:
    """The env arguments a checkpoint was trained with (JSON lists back to tuples), to rebuild its env's sizes:
    some change them (``deals`` of continental, rule overrides)."""
    skip = ("render_mode", "num_players")  # num_players is a fact of its own
    return {k: tuples(v) for k, v in env_config.items() if k not in skip}


def read_metadata(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The JSON metadata of checkpoint ``path`` after the checks that need no torch: safety, sizes, the tensor layout
    of the weights file, the type of every field, the architecture, the hash and the header copy. ``path`` may be a
    shipped checkpoint's name (``resolve_checkpoint``)."""
    weights_path, meta_path = checkpoint_paths(resolve_checkpoint(path))
    for p in (weights_path, meta_path):
        if not p.is_file():
            raise CheckpointError(f"checkpoint file {str(p)!r} is missing: a checkpoint is X.safetensors + X.json")
    header = _safetensors_header(weights_path, MAX_WEIGHTS_BYTES)  # refuses pickles by content, checks the layout
    size = meta_path.stat().st_size
    if size > MAX_METADATA_BYTES:
        raise CheckpointError(f"{meta_path}: {size} bytes of metadata; at most {MAX_METADATA_BYTES} are allowed")
    meta = _parse_json(meta_path.read_bytes(), str(meta_path))
    if not isinstance(meta, dict):
        raise CheckpointError(f"{meta_path}: expected a JSON object, got {type(meta).__name__}")
    missing = [k for k in REQUIRED_KEYS if k not in meta]
    if missing:
        raise CheckpointError(f"{meta_path}: metadata lacks {missing}; expected keys {list(REQUIRED_KEYS)}")
    if meta["format"] != FORMAT or type(meta["format_version"]) is not int or meta["format_version"] != FORMAT_VERSION:
        raise CheckpointError(
            f"{meta_path}: format {meta['format']!r} version {meta['format_version']!r}; expected {FORMAT!r} "
            f"version {FORMAT_VERSION}"
        )
    _check_field_types(meta, meta_path)
    try:
        check_architecture(meta["architecture"])
    except ValueError as e:
        raise CheckpointError(f"{meta_path}: {e}") from None
    # weights_file is informative only: a checkpoint may be renamed or copied (X.* -> Y.*); the hash ties the pair
    digest = sha256_file(weights_path)
    if digest != meta["weights_sha256"]:
        raise CheckpointError(
            f"{weights_path}: sha256 {digest} differs from {meta['weights_sha256']!r} recorded in {meta_path.name}: "
            "the weights were modified (or belong to another checkpoint)"
        )
    text = header.get("__metadata__", {}).get("rummy_env_checkpoint")
    copy = _parse_json(text.encode(), f"{weights_path} (header facts)") if isinstance(text, str) else None
    if not isinstance(copy, dict):
        raise CheckpointError(f"{weights_path}: its header lacks the rummy_env_checkpoint facts")
    for key in (*HEADER_KEYS, FINGERPRINT_KEY):  # an older file has the fingerprint in neither or both
        if meta.get(key) != copy.get(key):
            raise CheckpointError(
                f"{meta_path}: {key}={shorten(meta.get(key), 200)} but the weights were saved with "
                f"{key}={shorten(copy.get(key), 200)}: the JSON was edited"
            )
    _check_meta_env_config(meta, meta_path, copy)
    return meta


def _check_meta_env_config(meta: dict[str, Any], meta_path: Path, copy: dict[str, Any]) -> None:
    """The checkpoint's ``env_config`` within bounds (``check_env_config``), and equal to the copy in the weights
    header when the file has one; an older file without the copy is warned about (once) if its ``env_config``
    changes the env."""
    env_config = meta.get("env_config") or {}
    try:
        check_env_config(meta["profile"], meta["num_players"], env_config)
    except CheckpointError as e:
        raise CheckpointError(f"{meta_path}: {e}") from None
    saved = copy.get(ENV_CONFIG_KEY, _shipped_env_configs().get(meta["weights_sha256"]))
    if saved is not None:  # the header's copy, or (older files) the manifest's entry for shipped weights
        if saved != env_config:
            where = "the weights were saved with" if ENV_CONFIG_KEY in copy else "the shipped checkpoint has"
            raise CheckpointError(
                f"{meta_path}: env_config={shorten(env_config, 200)} but {where} env_config={shorten(saved, 200)}: "
                "the JSON was edited"
            )
        return
    if any(k not in PLAIN_ENV_KEYS for k in env_config):
        key = str(meta_path.resolve()) + "#env_config"
        if key not in _WARNED:
            _WARNED.add(key)
            warnings.warn(
                f"{meta_path}: an older checkpoint whose env_config {shorten(env_config, 120)} is not copied in its "
                "weights header, so an edit of it cannot be told (it was checked against the rules bounds). Re-export "
                f"it once with rummy_env.checkpoints.reexport_checkpoint({str(meta_path.with_suffix(''))!r}) to add "
                "the copy (weights unchanged)",
                CheckpointFormatWarning,
                stacklevel=4,
            )


@functools.cache
def _shipped_env_configs() -> dict[str, Any]:
    """``weights_sha256 -> env_config`` of the shipped checkpoints (their ``manifest.json``): the integrity check of
    the ``env_config`` of shipped weights saved before the header copy existed, wherever a copy of them is loaded
    from. Empty without a manifest (or with one that cannot be read)."""
    folder = shipped_dir()
    found: dict[str, Any] = {}
    try:
        manifest = read_json(folder / "manifest.json", limit=MAX_METADATA_BYTES, what="manifest") if folder else {}
        for entry in (manifest.get("checkpoints") or {}).values():
            if isinstance(entry.get("weights_sha256"), str) and isinstance(entry.get("env_config"), dict):
                found[entry["weights_sha256"]] = entry["env_config"]
    except (InputFileError, AttributeError):
        return {}
    return found


def load_checkpoint(
    path: str | os.PathLike[str],
    expect_profile: str | None = None,
    expect_num_players: int | None = None,
) -> Checkpoint:
    """Load checkpoint ``path`` after checking everything (see the module docstring); the network is in eval mode.

    ``path`` is ``X``, ``X.safetensors`` or ``X.json``, or the name of a shipped checkpoint (``"contract"``,
    ``"contract_gamerules"``, ``"continental"``: ``resolve_checkpoint`` says how a name is found).
    ``expect_profile`` / ``expect_num_players``: refuse a checkpoint trained for another profile / table size.
    Every failure is a ``CheckpointError``.
    """
    return _load(path, expect_profile, expect_num_players, check_layout=True)


def _load(
    path: str | os.PathLike[str], expect_profile: str | None, expect_num_players: int | None, check_layout: bool
) -> Checkpoint:
    """``load_checkpoint``; ``check_layout=False`` (``reexport_checkpoint(..., layout_changed=True)`` only) skips
    the fingerprint comparison and its warning."""
    path = resolve_checkpoint(path)
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
    env_config = meta.get("env_config") or {}
    try:  # also refuses an unknown profile or a player count the profile does not seat
        facts = env_facts(meta["profile"], meta["num_players"], **_shape_config(env_config))
    except CheckpointError as e:
        raise CheckpointError(f"{meta_path}: {e}") from None
    except Exception as e:  # noqa: BLE001 - untrusted env_config: whatever make() raises, it is a bad checkpoint
        raise CheckpointError(
            f"{meta_path}: profile {meta['profile']!r} with {meta['num_players']} players and env_config "
            f"{shorten(env_config, 200)} does not make an env ({type(e).__name__}: {str(e)[:600]})"
        ) from None
    for key in ("env_version", "observation_size", "num_actions"):
        if meta[key] != facts[key]:
            raise CheckpointError(
                f"{meta_path}: {key}={meta[key]!r}, but this rummy_env's {meta['profile']} env with "
                f"{meta['num_players']} players has {key}={facts[key]!r}"
            )
    if check_layout:
        _check_fingerprint(meta, facts, meta_path, env_config)
    arch = meta["architecture"]
    if (arch["obs_size"], arch["num_actions"]) != (meta["observation_size"], meta["num_actions"]):
        raise CheckpointError(
            f"{meta_path}: architecture takes {arch['obs_size']} observations / {arch['num_actions']} actions; "
            f"expected {meta['observation_size']} / {meta['num_actions']}"
        )
    want = tensor_shapes(arch)
    header = _safetensors_header(weights_path, MAX_WEIGHTS_BYTES)
    have = {k: v for k, v in header.items() if k != "__metadata__"}
    if set(have) != set(want):
        raise CheckpointError(
            f"{weights_path}: tensors {sorted(set(have) - set(want))} unexpected and {sorted(set(want) - set(have))} "
            f"missing for the architecture {arch}"
        )
    for name, shape in want.items():
        info = have[name]
        if tuple(info["shape"]) != shape or info["dtype"] != "F32":
            raise CheckpointError(
                f"{weights_path}: tensor {name} is {info['dtype']} {tuple(info['shape'])}; expected F32 {shape}"
            )
    # only now, with every size known to match the file, is the network built and filled
    from .policy import build_policy  # optional dependency: torch (ImportError with the install line without it)

    try:
        from safetensors import safe_open
    except ImportError as exc:
        raise ImportError(f"loading a checkpoint's weights needs safetensors, which is not installed: {TRAIN_INSTALL_HINT}") from exc

    try:
        model = build_policy(arch)
        with safe_open(str(weights_path), framework="pt") as f:
            state = {k: f.get_tensor(k) for k in f.keys()}
        model.load_state_dict(state, strict=True)
    except Exception as e:  # noqa: BLE001 - e.g. the file changed after the checks
        raise CheckpointError(f"{weights_path}: the weights could not be read ({type(e).__name__}: {e})") from None
    model.eval()
    return Checkpoint(model=model, metadata=meta, path=weights_path.with_suffix(""))


def _check_fingerprint(meta: dict[str, Any], facts: dict[str, Any], meta_path: Path, env_config: Any) -> None:
    """Refuse a fingerprint other than the env's; warn (once per file) about a checkpoint without one."""
    have, want = meta.get(FINGERPRINT_KEY), facts[FINGERPRINT_KEY]
    if have is None:
        key = str(meta_path.resolve())
        if key not in _WARNED:
            _WARNED.add(key)
            warnings.warn(
                f"{meta_path}: an older checkpoint without {FINGERPRINT_KEY}: only its sizes could be checked, not "
                "what each action id and observation entry means. If it was trained on this rummy_env's action table "
                "and observation, re-export it once with rummy_env.checkpoints.reexport_checkpoint("
                f"{str(meta_path.with_suffix(''))!r}) (weights unchanged; the fingerprint is added)",
                CheckpointFormatWarning,
                stacklevel=4,
            )
        return
    if have != want:
        raise CheckpointError(
            f"{meta_path}: {FINGERPRINT_KEY} {have} but this rummy_env's {meta['profile']} env with "
            f"{meta['num_players']} players (env_config {shorten(env_config, 200)}) has {want}: the action table or the "
            "observation changed since the checkpoint was saved (same sizes, different meanings), so its policy would "
            "pick the wrong actions; retrain it, or migrate it to the current table"
        )


def reexport_checkpoint(
    path: str | os.PathLike[str], out: str | os.PathLike[str] | None = None, layout_changed: bool = False
) -> tuple[Path, Path]:
    """Load checkpoint ``path`` (every check) and save it again to ``out`` (default: in place) with the current
    format: the same tensors and every metadata field kept, the env facts (``layout_fingerprint`` included) and the
    hash written afresh; the optimizer state, if any, goes along. Returns the two new paths.

    Only re-export an older checkpoint that was trained on this rummy_env's action table and observation: the
    fingerprint then vouches for that. ``layout_changed=True`` also accepts a fingerprint that differs from the
    env's (sizes are still checked): only for a change known to keep what every id and entry means to the policy
    (e.g. a bound that play never reaches); a reordered table needs a migration of the weights instead."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CheckpointFormatWarning)
        ckpt = _load(path, None, None, check_layout=not layout_changed)
    meta = dict(ckpt.metadata)
    extra = load_train_state(path, meta) if meta.get("train_state_file") else None
    for key in ("train_state_file", "train_state_sha256", FINGERPRINT_KEY):
        meta.pop(key, None)
    return save_checkpoint(path if out is None else out, ckpt.model, meta, extra)


def load_train_state(path: str | os.PathLike[str], meta: dict[str, Any]) -> dict[str, Any]:
    """The extra tensors (optimizer state) saved beside checkpoint ``path``, after checking their hash."""
    from safetensors.torch import load_file

    weights_path, _ = checkpoint_paths(resolve_checkpoint(path))
    name = meta.get("train_state_file")
    if not name:
        return {}
    if not isinstance(name, str) or not isinstance(meta.get("train_state_sha256"), str):
        raise CheckpointError(f"{weights_path}: train_state_file / train_state_sha256 must be strings")
    train_path = weights_path.with_name(Path(name).name)
    if not train_path.is_file():
        raise CheckpointError(f"{train_path} is missing (named by the checkpoint's train_state_file)")
    _refuse_pickle_name(train_path)
    _safetensors_header(train_path, 2 * MAX_WEIGHTS_BYTES)
    if sha256_file(train_path) != meta.get("train_state_sha256"):
        raise CheckpointError(f"{train_path}: sha256 differs from the one recorded in the checkpoint JSON")
    try:
        return load_file(str(train_path))
    except Exception as e:  # noqa: BLE001
        raise CheckpointError(f"{train_path}: could not be read ({type(e).__name__}: {e})") from None


# architecture (no torch: checked before anything is built) ----------------------------------------------------
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


class _JSONLimit(ValueError):
    pass


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_JSON_DIGITS:
        raise _JSONLimit(f"an integer of {len(text)} digits (at most {MAX_JSON_DIGITS} are allowed)")
    return int(text)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        dup = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise _JSONLimit(f"the key {dup!r} appears twice in one object")
    return out


def _parse_json(data: bytes, what: str) -> Any:
    """JSON from an untrusted file: bounded integers, no duplicate keys, bounded nesting; a ``CheckpointError``."""
    try:
        return json.loads(data, parse_int=_bounded_int, object_pairs_hook=_unique_keys)
    except RecursionError:
        raise CheckpointError(f"{what}: not valid JSON (nested too deeply)") from None
    except _JSONLimit as e:
        raise CheckpointError(f"{what}: not valid JSON ({e})") from None
    except (UnicodeDecodeError, ValueError) as e:  # JSONDecodeError is a ValueError
        raise CheckpointError(f"{what}: not valid JSON ({e})") from None


def _is_int(x: Any, low: int = 0) -> bool:
    return type(x) is int and x >= low


def _check_field_types(meta: dict[str, Any], meta_path: Path) -> None:
    """The type of every field the loader and its callers read; a ``CheckpointError`` naming the first bad one."""
    checks: list[tuple[str, bool, str]] = [
        ("profile", isinstance(meta["profile"], str), "a string"),
        ("env_version", isinstance(meta["env_version"], str), "a string"),
        ("num_players", _is_int(meta["num_players"], 1), "a positive integer"),
        ("observation_size", _is_int(meta["observation_size"], 1), "a positive integer"),
        ("num_actions", _is_int(meta["num_actions"], 1), "a positive integer"),
        ("architecture", isinstance(meta["architecture"], dict), "an object"),
        ("weights_file", isinstance(meta["weights_file"], str), "a string"),
        (
            "weights_sha256",
            isinstance(meta["weights_sha256"], str) and re.fullmatch(r"[0-9a-f]{64}", meta["weights_sha256"]),
            "64 lower-case hex digits",
        ),
        ("training_steps", _is_int(meta["training_steps"]), "a non-negative integer"),
        ("config", isinstance(meta["config"], dict), "an object"),
        ("evaluation", isinstance(meta["evaluation"], dict), "an object"),
    ]
    if FINGERPRINT_KEY in meta:
        fp = meta[FINGERPRINT_KEY]
        checks.append((FINGERPRINT_KEY, isinstance(fp, str) and re.fullmatch(r"[0-9a-f]{64}", fp) is not None,
                       "64 lower-case hex digits (sha256 of the action table and observation layout)"))  # fmt: skip
    optional = {"env_config": dict, "training_state": dict, "warm_start": dict, "train_state_file": str,
                "train_state_sha256": str}  # fmt: skip
    for key, kind in optional.items():
        if key in meta and meta[key] is not None:
            checks.append((key, isinstance(meta[key], kind), "an object" if kind is dict else "a string"))
    for key, ok, expected in checks:
        if not ok:
            shown = repr(meta[key])
            shown = shown if len(shown) <= 80 else shown[:77] + "..."
            raise CheckpointError(f"{meta_path}: {key}={shown}; expected {expected}")


def _safetensors_header(p: Path, max_file_bytes: int) -> dict[str, Any]:
    """The JSON header of a safetensors file, read and checked without loading any tensor: its length, every entry's
    dtype, shape and data offsets, and that the tensors tile the data region of the file exactly (no overlap, no
    gap, nothing past the end): what a tensor claims is what the file holds."""
    size = p.stat().st_size
    with open(p, "rb") as f:
        raw = f.read(9)
        n = int.from_bytes(raw[:8], "little") if len(raw) >= 8 else 0
        if len(raw) < 9 or raw[8:9] != b"{" or n <= 1 or n > min(size - 8, MAX_HEADER_BYTES):
            if _looks_like_pickle(raw):
                raise CheckpointError(
                    f"refusing {str(p)!r}: it is a pickle or zip archive (as torch.save writes), not safetensors; "
                    "pickles can run arbitrary code when loaded, so nothing was unpickled. Export the policy with "
                    "rummy_env.checkpoints.save_checkpoint"
                )
            if len(raw) >= 9 and raw[8:9] == b"{" and n > MAX_HEADER_BYTES:
                raise CheckpointError(f"{p}: a safetensors header of {n} bytes; at most {MAX_HEADER_BYTES} allowed")
            raise CheckpointError(f"{p}: not a safetensors file (bad header)")
        if size > max_file_bytes:
            raise CheckpointError(f"{p}: {size} bytes; a checkpoint file may have at most {max_file_bytes}")
        f.seek(8)
        header = _parse_json(f.read(n), f"{p}: safetensors header")
    if not isinstance(header, dict):
        raise CheckpointError(f"{p}: not a safetensors file (its header is not a JSON object)")
    _check_layout(p, header, size - 8 - n)
    return header


def _check_layout(p: Path, header: dict[str, Any], data_bytes: int) -> None:
    meta = header.get("__metadata__", {})
    if not isinstance(meta, dict) or not all(isinstance(v, str) for v in meta.values()):
        raise CheckpointError(f"{p}: safetensors __metadata__ must map strings to strings")
    spans = []
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if not isinstance(info, dict) or set(info) != {"dtype", "shape", "data_offsets"}:
            raise CheckpointError(f"{p}: tensor {name!r}: expected exactly dtype, shape and data_offsets")
        dtype, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
        if dtype not in DTYPE_BYTES:
            raise CheckpointError(f"{p}: tensor {name!r} has dtype {dtype!r}; known: {sorted(DTYPE_BYTES)}")
        if not isinstance(shape, list) or len(shape) > 8 or not all(_is_int(d) for d in shape):
            raise CheckpointError(f"{p}: tensor {name!r} has shape {shape!r}; expected up to 8 sizes >= 0")
        if not isinstance(offsets, list) or len(offsets) != 2 or not all(_is_int(o) for o in offsets):
            raise CheckpointError(f"{p}: tensor {name!r} has data_offsets {offsets!r}; expected [begin, end]")
        begin, end = offsets
        nbytes = math.prod(shape) * DTYPE_BYTES[dtype]
        if end - begin != nbytes:
            raise CheckpointError(
                f"{p}: tensor {name!r} is {dtype} {tuple(shape)} ({nbytes} bytes) but its data_offsets "
                f"[{begin}, {end}] span {end - begin} bytes"
            )
        spans.append((begin, end, name))
    spans.sort()
    at = 0
    for begin, end, name in spans:
        if begin != at:
            what = "overlaps the previous tensor" if begin < at else f"leaves a gap of {begin - at} bytes"
            raise CheckpointError(f"{p}: tensor {name!r} starts at data offset {begin}: it {what}")
        at = end
    if at != data_bytes:
        raise CheckpointError(
            f"{p}: the tensors' data_offsets end at {at} bytes but the file holds {data_bytes} bytes of data "
            "(truncated or padded)"
        )


__all__ = [
    "ARCH_KIND",
    "ARCH_KINDS",
    "CARD_ARCH_KIND",
    "PRIOR_ARCH_KIND",
    "PRIOR_BOTS",
    "Checkpoint",
    "CheckpointError",
    "CheckpointFormatWarning",
    "ENV_ARGS",
    "ENV_CONFIG_KEY",
    "FINGERPRINT_KEY",
    "check_architecture",
    "check_env_config",
    "checkpoint_paths",
    "resolve_checkpoint",
    "shipped_dir",
    "shipped_names",
    "env_facts",
    "load_checkpoint",
    "load_train_state",
    "parameter_count",
    "read_metadata",
    "reexport_checkpoint",
    "save_checkpoint",
    "sha256_file",
    "tensor_shapes",
]
