"""The config of a training script: a dataclass filled from its defaults, a YAML file and the command line, every
field checked against ``FIELD_RANGES`` before the run starts.

    cfg = parse_config(Config, description=...)   # in a script: --config FILE, --set key=value, --key value

``load_config`` fills ``cls`` from its defaults, then ``--config FILE`` (read through ``rummy_env.core.files``: a
regular file of at most 1 MiB, plain-data YAML with YAML 1.2 numbers such as ``1e-3``, no anchors or aliases, at most
64 levels deep), then ``--set key=value`` / ``--key value`` (each value read as YAML the same way; a string field
takes the text as typed), and checks every field (``validate_config``); a bad value is a ``ConfigError``: one line
naming the field and what is allowed, cut before it is built (``rummy_env.core.files.shorten``), exit code 2 from
``parse_config``. ``FIELD_RANGES`` is documented in configs/README.md (``ranges_markdown``).
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import math
import os
import platform
import re
import sys
import time
from pathlib import Path
from typing import Any

from .. import __version__, make
from ..core.files import InputFileError, parse_yaml, read_text, shorten
from ..evaluation.arguments import output_problem
from ..evaluation.policy_eval import bot_unavailable_reason, env_kwargs
from ..evaluation.tournament import env_config_from_args
from ..models.checkpoints import ACTIVATION_NAMES, MAX_LAYERS, MAX_WIDTH, read_metadata
from ..registry import GAMES
from .outputs import input_problem, shipped_problem

#: the largest config file read (bytes)
CONFIG_FILE_LIMIT = 1 << 20


def field_docs(cls: type) -> dict[str, str]:
    """The docstring under each field of a dataclass (CleanRL's style), read from its source."""
    try:
        tree = ast.parse(inspect.getsource(cls))
    except (OSError, TypeError):
        return {}
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs: dict[str, str] = {}
    for a, b in zip(body, body[1:]):
        if (
            isinstance(a, ast.AnnAssign)
            and isinstance(a.target, ast.Name)
            and isinstance(b, ast.Expr)
            and isinstance(b.value, ast.Constant)
            and isinstance(b.value.value, str)
        ):
            docs[a.target.id] = " ".join(b.value.value.split())
    return docs


class ConfigError(ValueError):
    """A training config that cannot run: a value of the wrong type or outside its field's range (``FIELD_RANGES``),
    fields that contradict each other, or an unreadable config file. The scripts print it on one line, exit code 2."""


@dataclasses.dataclass(frozen=True)
class Spec:
    """The allowed values of one config field: its kind and range (bounds included unless ``low_open``)."""

    kind: str
    """int, float, bool, str, list or dict"""
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    """the lower bound itself is not allowed: (low, high]"""
    optional: bool = False
    """null is allowed too"""
    choices: tuple = ()
    """the only allowed values (str) or keys (dict)"""
    item: Spec | None = None
    """the spec of each list item or mapping value"""
    max_len: int | None = None
    min_len: int = 0
    nonempty: bool = False
    """a string that may not be empty"""
    note: str = ""
    """the allowed values in words, when the kind and range do not say it all (checked by ``validate_config``)"""

    def describe(self) -> str:
        """The allowed values in words, e.g. ``an integer >= 1``, ``a number in (0, 1]``."""
        if self.note:
            return self.note + (" or null" if self.optional else "")
        if self.kind in ("int", "float"):
            noun = "an integer" if self.kind == "int" else "a number"
            fmt = "{:d}" if self.kind == "int" else "{:g}"
            lo = "" if self.low is None else fmt.format(self.low)
            hi = "" if self.high is None else fmt.format(self.high)
            if self.low is not None and self.high is not None:
                if self.kind == "int":
                    text = f"{noun} in {lo}..{hi}"
                else:
                    text = f"{noun} in {'(' if self.low_open else '['}{lo}, {hi}]"
            elif self.low is not None:
                text = f"{noun} {'>' if self.low_open else '>='} {lo}"
            else:
                text = noun
        elif self.kind == "bool":
            text = "true or false"
        elif self.kind == "str":
            if self.choices:
                text = "one of " + ", ".join(repr(c) for c in self.choices)
            else:
                text = "a non-empty string" if self.nonempty else "a string"
        elif self.kind == "list":
            size = f"at most {self.max_len} " if self.max_len is not None else ""
            size = f"{self.min_len} or more " if self.min_len and not size else size
            item = self.item.describe() if self.item else "values"
            text = f"a list of {size}items, each {item}"
        else:
            keys = f" with keys from {', '.join(self.choices)}" if self.choices else ""
            value = f" and values each {self.item.describe()}" if self.item else ""
            text = f"a mapping{keys}{value}"
        return text + (" or null" if self.optional else "")

    def check(self, name: str, value: Any) -> Any:
        """``value`` converted to the field's kind (``1e6`` -> 1000000 for an integer, 3 -> 3.0 for a number, 2 -> "2"
        for a string); a ``ConfigError`` naming the field and its range if it is not allowed."""
        if value is None:
            if self.optional:
                return None
            raise ConfigError(f"{name}=null: expected {self.describe()}")
        v = self._convert(value)
        if v is _BAD:
            raise ConfigError(f"{name}={shorten(value)}: expected {self.describe()}")
        if self.kind == "list":
            if (self.max_len is not None and len(v) > self.max_len) or len(v) < self.min_len:
                raise ConfigError(f"{name}={shorten(value)}: expected {self.describe()}")
            if self.item is not None:
                v = [self.item.check(f"{name}[{i}]", x) for i, x in enumerate(v)]
        if self.kind == "dict":
            if not all(isinstance(k, str) for k in v) or (self.choices and set(v) - set(self.choices)):
                raise ConfigError(f"{name}={shorten(value)}: expected {self.describe()}")
            if self.item is not None:
                v = {k: self.item.check(f"{name}.{k}", x) for k, x in v.items()}
        return v

    def _convert(self, value: Any) -> Any:
        kind = self.kind
        if kind == "bool":
            return value if isinstance(value, bool) else _BAD
        if isinstance(value, bool) and kind != "str":
            return _BAD
        if kind == "int":
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            if not isinstance(value, int):
                return _BAD
        elif kind == "float":
            if not isinstance(value, int | float) or not math.isfinite(value):
                return _BAD
            value = float(value)
        elif kind == "str":
            if isinstance(value, int) and not isinstance(value, bool):
                value = str(value)
            if not isinstance(value, str) or (self.nonempty and not value) or (self.choices and value not in self.choices):
                return _BAD
            return value
        elif kind == "list":
            return list(value) if isinstance(value, list | tuple) else _BAD
        elif kind == "dict":
            return dict(value) if isinstance(value, dict) else _BAD
        if self.low is not None and (value < self.low or (self.low_open and value == self.low)):
            return _BAD
        if self.high is not None and value > self.high:
            return _BAD
        return value


_BAD = object()


def _int(low: int | None = None, high: int | None = None, optional: bool = False) -> Spec:
    return Spec("int", low, high, optional=optional)


def _num(low: float | None = None, high: float | None = None, low_open: bool = False) -> Spec:
    return Spec("float", low, high, low_open=low_open)


_BOOL = Spec("bool")
_STR = Spec("str")
_NAME = Spec("str", nonempty=True)
_LAYERS = Spec("list", item=_int(1, MAX_WIDTH), max_len=MAX_LAYERS)
MAX_PROCESSES = 256

#: every field of every training script's Config: its kind and allowed range (documented in configs/README.md; a
#: field with the same name means the same thing in every script). Cross-field checks: ``validate_config``.
FIELD_RANGES: dict[str, Spec] = {
    # the game
    "profile": Spec("str", choices=tuple(sorted(GAMES))),
    "num_players": Spec("int", 2, 16, optional=True, note="an integer in 2..16 that the profile seats"),
    "env_config": Spec("dict", note="a mapping of rummy_env.make arguments that the profile accepts"),
    "opponents": Spec("list", item=_NAME, min_len=1, note="a list of 1 or more bot ids that can play the profile"),
    "learner_seat": Spec("str", nonempty=True, note="'random' or a seat number in 0..players-1"),
    # the run
    "seed": _int(0, 2**32 - 1),
    "total_steps": _int(0),
    "total_timesteps": _int(1),
    "iterations": _int(1),
    "epochs": _int(1),
    "epoch_steps": _int(1),
    "max_minutes": _num(0),
    "num_envs": _int(1, 4096),
    "n_envs": _int(1, 4096),
    "steps_per_update": _int(1),
    "n_steps": _int(1),
    "collect_steps": _int(1),
    "train_batch_size": _int(1),
    "num_workers": _int(0, MAX_PROCESSES),
    "num_env_runners": _int(0, MAX_PROCESSES),
    "num_envs_per_env_runner": _int(1, 4096),
    "num_learners": _int(0, MAX_PROCESSES),
    "num_cpus": _int(1, 4096, optional=True),
    "address": _STR,
    "ship_package": _BOOL,
    "torch_threads": _int(1, MAX_PROCESSES),
    # the network
    "trunk": _LAYERS,
    "net_arch": _LAYERS,
    "hidden": _LAYERS,
    "activation": Spec("str", choices=ACTIVATION_NAMES),
    "vf_share_layers": _BOOL,
    "network": Spec("str", choices=("card_action", "card_prior", "masked_mlp")),
    "action_embed": _int(1, MAX_WIDTH),
    # the algorithm
    "learning_rate": _num(0, 1, low_open=True),
    "anneal_lr": _BOOL,
    "gamma": _num(0, 1),
    "gae_lambda": _num(0, 1),
    "num_minibatches": _int(1),
    "minibatch_size": _int(1),
    "batch_size": _int(2),
    "update_epochs": _int(1),
    "n_epochs": _int(1),
    "num_epochs": _int(1),
    "norm_adv": _BOOL,
    "clip_coef": _num(0, low_open=True),
    "clip_range": _num(0, low_open=True),
    "clip_param": _num(0, low_open=True),
    "clip_vloss": _BOOL,
    "ent_coef": _num(0),
    "entropy_coeff": _num(0),
    "vf_coef": _num(0),
    "vf_loss_coeff": _num(0),
    "max_grad_norm": _num(0, low_open=True),
    "target_kl": _num(0),
    "shaping": _num(0),
    "prior_coef": _num(0),
    "updates_per_step": _num(0, low_open=True),
    "buffer_size": _int(1),
    "n_step": _int(1),
    "target_update_freq": _int(0),
    "eps_start": _num(0, 1),
    "eps_end": _num(0, 1),
    "eps_decay_steps": _int(0),
    # self-play pool
    "pool_weights": Spec("dict", choices=("current", "past", "heuristic", "random"), item=_num(0)),
    "snapshot_every": _int(0),
    "pool_size": _int(1),
    "max_opponents": _int(1),
    "self_play_share": _num(0, 1),
    "pool_checkpoints": Spec("list", item=_NAME, note="a list of checkpoint paths (each checked up front)"),
    # warm start
    "bc_decisions": _int(0),
    "bc_teacher": Spec("str", nonempty=True, note="a bot id that can play the profile"),
    "bc_epochs": _int(1),
    # evaluation, logging, checkpoints
    "eval_every": _int(0),
    "eval_sessions": _int(1),
    "eval_opponents": Spec("list", item=_NAME, note="a list of bot ids (one that cannot play the profile is skipped)"),
    "final_eval_sessions": _int(0),
    "eval_workers": _int(1, MAX_PROCESSES),
    "save_every": _int(0),
    "runs_dir": Spec("str", nonempty=True, note="a folder that exists or can be created, outside the shipped "
                     "checkpoints' folder unless overwrite_shipped"),
    "save_path": Spec("str", note="empty, or a checkpoint name whose folder exists or can be created, not an input "
                      "of the run (resume, pool_checkpoints), outside the shipped checkpoints' folder unless "
                      "overwrite_shipped"),
    "overwrite_shipped": _BOOL,
    "resume": Spec("str", note="empty, or a checkpoint path (checked up front)"),
    "save_sb3_zip": _BOOL,
    "rllib_checkpoint": _BOOL,
    "tensorboard": _BOOL,
    "progress_bar": _BOOL,
    "progress": _BOOL,
    "config_file": Spec("str", optional=True),
}


def ranges_markdown(scripts: dict[str, type]) -> str:
    """The table of ``FIELD_RANGES`` for configs/README.md: field, allowed values, and which of ``scripts`` (script
    name -> its ``Config`` dataclass, e.g. the four of ``training/``) have it."""
    users: dict[str, list[str]] = {name: [] for name in FIELD_RANGES}
    for script, config in scripts.items():
        for f in dataclasses.fields(config):
            users.setdefault(f.name, []).append(script)
    lines = ["| field | allowed values | scripts |", "|---|---|---|"]
    for name, spec in FIELD_RANGES.items():
        lines.append(f"| `{name}` | {spec.describe()} | {', '.join(users[name])} |")
    return "\n".join(lines) + "\n"


def _spec(name: str, default: Any) -> Spec:
    """The field's spec; a field missing from the table gets its default's kind (tests keep the table complete)."""
    if name in FIELD_RANGES:
        return FIELD_RANGES[name]
    kinds = {bool: "bool", int: "int", float: "float", str: "str", list: "list", dict: "dict"}
    return Spec(kinds.get(type(default), "str"), optional=default is None)


def validate_config(cfg: Any) -> Any:
    """Check every field of dataclass ``cfg`` against ``FIELD_RANGES`` and the fields against each other; returns
    ``cfg`` with values converted to their kinds, or raises ``ConfigError`` (one line naming the field and range)."""
    values = {}
    for f in dataclasses.fields(cfg):
        values[f.name] = _spec(f.name, f.default).check(f.name, getattr(cfg, f.name))
    cfg = dataclasses.replace(cfg, **values)
    _cross_checks(values)
    return cfg


def _cross_checks(v: dict[str, Any]) -> None:
    workers = v.get("num_workers")
    for field_name in ("num_envs", "steps_per_update"):
        if workers and field_name in v and v[field_name] < workers:
            raise ConfigError(
                f"{field_name}={v[field_name]}: expected an integer >= num_workers ({workers}): every worker needs "
                "at least one"
            )
    if "pool_weights" in v and sum(v["pool_weights"].values()) <= 0:
        raise ConfigError(f"pool_weights={shorten(v['pool_weights'])}: expected at least one positive weight")
    if "minibatch_size" in v and "train_batch_size" in v and v["minibatch_size"] > v["train_batch_size"]:
        raise ConfigError(
            f"minibatch_size={v['minibatch_size']}: expected an integer in 1..train_batch_size ({v['train_batch_size']})"
        )
    if "n_steps" in v and "n_envs" in v and v["n_steps"] * v["n_envs"] < 2:
        raise ConfigError(f"n_steps={v['n_steps']}: expected n_steps * n_envs >= 2 (SB3 normalises advantages)")
    _output_checks(v)
    if "profile" in v:
        _table_checks(v)


def _output_checks(v: dict[str, Any]) -> None:
    """``runs_dir`` and ``save_path`` can be written, lie outside the shipped checkpoints (unless
    ``overwrite_shipped``), and ``save_path`` is none of the run's input checkpoints."""
    inputs = [("resume", v.get("resume"))] + [("pool_checkpoints", p) for p in v.get("pool_checkpoints", [])]
    for field_name in ("runs_dir", "save_path"):
        value = v.get(field_name)
        if not value:
            continue
        problem = output_problem(value, folder=field_name == "runs_dir")
        problem = problem or shipped_problem(value, bool(v.get("overwrite_shipped")))
        if field_name == "save_path":
            problem = problem or input_problem(value, inputs)
        if problem:
            raise ConfigError(f"{field_name}={shorten(value)}: {problem}")


def _table_checks(v: dict[str, Any]) -> None:
    """The profile takes ``env_config`` and ``num_players``; the learner seat, the bots and the input checkpoints
    fit its table."""
    kwargs = env_kwargs(v.get("env_config") or {}, v.get("num_players"))
    try:
        env = make(v["profile"], wrapped=False, **kwargs)
    except Exception as e:  # noqa: BLE001 - whatever make() refuses is a config error
        raise ConfigError(
            f"env_config={shorten(v.get('env_config'))}, num_players={v.get('num_players')!r}: {v['profile']} refuses "
            f"them ({shorten(' '.join(str(e).split()), 300)})"
        ) from None
    n = len(env.possible_agents)
    seat = v.get("learner_seat")
    if seat is not None and seat != "random" and not (re.fullmatch(r"[0-9]+", seat) and int(seat) < n):
        raise ConfigError(f"learner_seat={shorten(seat)}: expected 'random' or a seat number in 0..{n - 1}")
    for field_name in ("opponents",) + (("bc_teacher",) if v.get("bc_decisions") else ()):
        ids = v.get(field_name)
        for bot_id in [ids] if isinstance(ids, str) else ids or []:
            reason = bot_unavailable_reason(v["profile"], bot_id, kwargs)  # checkpoint:PATH ids are loaded and checked too
            if reason:
                raise ConfigError(f"{field_name}: {shorten(bot_id)} cannot play {v['profile']}: {reason}")
    paths = [("resume", v["resume"])] if v.get("resume") else []
    paths += [("pool_checkpoints", p) for p in v.get("pool_checkpoints", [])]
    for field_name, path in paths:
        try:
            meta = read_metadata(path)
        except ValueError as e:
            raise ConfigError(f"{field_name}: {e}") from None
        if (meta["profile"], meta["num_players"]) != (v["profile"], n):
            raise ConfigError(
                f"{field_name}: {path!r} was trained for {meta['profile']} with {meta['num_players']} players; this "
                f"run is {v['profile']} with {n}"
            )


def parse_value(key: str, text: str) -> Any:
    """A command-line value of field ``key`` read as YAML (``1e-4``, ``[1]``, ``null``, ``{rounds: [1]}``) through
    ``rummy_env.core.files.parse_yaml`` (no aliases, bounded depth), or the text itself when it is not YAML; a
    ``ConfigError`` for a YAML alias or nesting beyond the limit (a small value that would expand without end)."""
    try:
        return parse_yaml(text, what=f"{key}={shorten(text)}")
    except InputFileError as e:
        if "not valid YAML" in str(e):
            return text
        raise ConfigError(str(e)) from None


def read_config_file(path: str, names: set[str]) -> dict[str, Any]:
    """The mapping of a YAML config file, read through ``rummy_env.core.files`` (a regular file of at most
    ``CONFIG_FILE_LIMIT`` bytes, no aliases, bounded depth); a one-line ``ConfigError`` if it is missing,
    unreadable, malformed, not a mapping or has unknown keys."""
    try:
        loaded = parse_yaml(read_text(path, limit=CONFIG_FILE_LIMIT, what="--config"), what=f"--config {path}")
    except InputFileError as e:
        raise ConfigError(str(e)) from None
    loaded = {} if loaded is None else loaded
    if not isinstance(loaded, dict):
        raise ConfigError(f"--config {path}: expected a mapping of config fields, got {type(loaded).__name__}")
    unknown = sorted(str(k)[:60] for k in set(loaded) - names)
    if unknown:
        shown = str(unknown[:10]) if len(unknown) <= 10 else str(unknown[:10])[:-1] + f", ... {len(unknown)} in all]"
        raise ConfigError(f"--config {path}: unknown keys {shown}; allowed: {sorted(names)}")
    return loaded


def load_config(cls: type, argv: list[str] | None = None, description: str = "") -> Any:
    """Fill dataclass ``cls`` from defaults, then ``--config FILE``, then ``--set k=v`` / ``--k v``, and check it
    (``validate_config``); raises ``ConfigError``. ``parse_config`` is the command-line form."""
    return _load(cls, argv, description)[0]


def _parser(cls: type, description: str) -> argparse.ArgumentParser:
    """The argument parser of ``cls``: ``--config``, ``--set`` and one ``--field`` per field, its docstring the help."""
    defaults = cls()
    docs = field_docs(cls)
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--config", help="YAML file whose keys are fields below (configs/*.yaml)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a field")
    for f in dataclasses.fields(cls):
        spec = _spec(f.name, getattr(defaults, f.name))
        help_text = f"{docs.get(f.name, '')} ({spec.describe()}; default: {getattr(defaults, f.name)!r})"
        parser.add_argument("--" + f.name.replace("_", "-"), dest=f.name, default=None, metavar="V",
                            help=help_text.replace("%", "%%"))  # fmt: skip
    return parser


def _load(cls: type, argv: list[str] | None, description: str) -> tuple[Any, argparse.ArgumentParser]:
    defaults = cls()
    parser = _parser(cls, description)
    args = parser.parse_args(argv)
    values: dict[str, Any] = {}
    names = {f.name for f in dataclasses.fields(cls)}
    if args.config:
        values.update(read_config_file(args.config, names))
    overrides: list[tuple[str, str]] = []
    for item in args.set:
        key, sep, text = item.partition("=")
        if not sep or key not in names:
            raise ConfigError(f"--set {shorten(item)}: expected KEY=VALUE with KEY one of {sorted(names)}")
        overrides.append((key, text))
    overrides += [(name, getattr(args, name)) for name in sorted(names) if getattr(args, name) is not None]
    for key, text in overrides:
        # a string field takes the text as typed (--learner-seat 2, --save-path 1e3); others read it as YAML
        string = _spec(key, getattr(defaults, key)).kind == "str" and text != "null"
        values[key] = text if string else parse_value(key, text)
    for k, v in values.items():
        values[k] = _spec(k, getattr(defaults, k)).check(k, v)
    cfg = dataclasses.replace(defaults, **values)
    if args.config and hasattr(cfg, "config_file"):
        cfg.config_file = str(args.config)
    return validate_config(cfg), parser


def parse_config(cls: type, argv: list[str] | None = None, description: str = "") -> Any:
    """``load_config`` for a script's command line: a ``ConfigError`` is printed on one line (``PROG: error: ...``)
    and the process exits with code 2, like a command-line usage error."""
    try:
        return _load(cls, argv, description)[0]
    except ConfigError as e:
        print(f"{Path(sys.argv[0]).name or 'config'}: error: {e}", file=sys.stderr)
        raise SystemExit(2) from None


def cli_args(parse: Any, argv: list[str] | None) -> Any:
    """``parse(argv)`` (a command's argument parser that raises ``ConfigError`` on a bad value), or None after
    printing ``error: <what is wrong>`` to stderr: the caller exits with code 2."""
    try:
        return parse(argv)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None


def check_table(profile: str, num_players: int, rounds: list[int] | None = None) -> None:
    """``ConfigError`` (what is wrong and what is allowed) unless a command's ``--profile`` / ``--num-players`` /
    ``--rounds`` build a table: round numbers for the contract profiles, one number of deals for continental, as
    ``rummy tournament --rounds``."""
    try:
        make(profile, num_players=num_players, **env_config_from_args(profile, rounds, None))
    except ValueError as exc:
        raise ConfigError(f"--profile {profile!r} --num-players {num_players} --rounds {rounds}: {exc}") from None


def run_name(profile: str, algo: str, seed: int) -> str:
    """``profile__algo__seed__time`` (CleanRL's run names)."""
    return f"{profile}__{algo}__{seed}__{int(time.time())}"


def machine() -> dict[str, Any]:
    """Where a run happened: CPU model, cores, Python, torch and rummy_env versions."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    info = {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(), "os": platform.platform()}
    try:
        import torch  # optional dependency: torch

        info["torch"] = torch.__version__
    except ImportError:
        pass
    info["rummy_env"] = __version__
    try:
        info["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        pass
    return info


__all__ = [
    "FIELD_RANGES",
    "ConfigError",
    "Spec",
    "check_table",
    "cli_args",
    "env_kwargs",
    "field_docs",
    "load_config",
    "machine",
    "parse_config",
    "parse_value",
    "ranges_markdown",
    "read_config_file",
    "run_name",
    "validate_config",
]
