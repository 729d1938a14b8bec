"""Small helpers shared by the training scripts: config from YAML + command line, run names, evaluation matches.

Kept apart from the scripts only because both scripts (and ``training/evaluate.py``) use them; each is short.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import functools
import inspect
import math
import os
import platform
import re
import sys
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as `python training/ppo.py` from a fresh clone without installing
    sys.path.insert(0, str(ROOT))

import rummy_env  # noqa: E402
from rummy_env import bots as bot_registry  # noqa: E402
from rummy_env.evaluation import match  # noqa: E402
from rummy_env.evaluation.arguments import output_problem  # noqa: E402
from rummy_env.models.checkpoints import ACTIVATION_NAMES, MAX_LAYERS, MAX_WIDTH  # noqa: E402
from rummy_env.registry import GAMES, game  # noqa: E402

# ----------------------------------------------------------------------------------------------------------------
# Config: dataclass <- YAML file <- --set key=value / --key value
# ----------------------------------------------------------------------------------------------------------------


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
            raise ConfigError(f"{name}={_show(value)}: expected {self.describe()}")
        if self.kind == "list":
            if (self.max_len is not None and len(v) > self.max_len) or len(v) < self.min_len:
                raise ConfigError(f"{name}={_show(value)}: expected {self.describe()}")
            if self.item is not None:
                v = [self.item.check(f"{name}[{i}]", x) for i, x in enumerate(v)]
        if self.kind == "dict":
            if not all(isinstance(k, str) for k in v) or (self.choices and set(v) - set(self.choices)):
                raise ConfigError(f"{name}={_show(value)}: expected {self.describe()}")
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


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


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
    "profile": Spec("str", choices=tuple(sorted(rummy_env.ENVS))),
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
    "runs_dir": Spec("str", nonempty=True, note="a folder that exists or can be created"),
    "save_path": Spec("str", note="empty, or a checkpoint name whose folder exists or can be created"),
    "resume": Spec("str", note="empty, or a checkpoint path (checked up front)"),
    "save_sb3_zip": _BOOL,
    "rllib_checkpoint": _BOOL,
    "tensorboard": _BOOL,
    "progress_bar": _BOOL,
    "progress": _BOOL,
    "config_file": Spec("str", optional=True),
}


TRAINING_SCRIPTS = ("ppo", "sb3_maskable_ppo", "rllib_ppo", "tianshou_dqn")


def ranges_markdown() -> str:
    """The table of ``FIELD_RANGES`` for configs/README.md: field, allowed values, the scripts that have it."""
    import importlib.util

    users: dict[str, list[str]] = {name: [] for name in FIELD_RANGES}
    for script in TRAINING_SCRIPTS:
        module = sys.modules.get(script)
        if module is None:
            spec = importlib.util.spec_from_file_location(script, Path(__file__).with_name(f"{script}.py"))
            module = importlib.util.module_from_spec(spec)
            sys.modules[script] = module  # dataclasses look their module up
            spec.loader.exec_module(module)  # type: ignore[union-attr]
        for f in dataclasses.fields(module.Config):
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
        raise ConfigError(f"pool_weights={_show(v['pool_weights'])}: expected at least one positive weight")
    if "minibatch_size" in v and "train_batch_size" in v and v["minibatch_size"] > v["train_batch_size"]:
        raise ConfigError(
            f"minibatch_size={v['minibatch_size']}: expected an integer in 1..train_batch_size ({v['train_batch_size']})"
        )
    if "n_steps" in v and "n_envs" in v and v["n_steps"] * v["n_envs"] < 2:
        raise ConfigError(f"n_steps={v['n_steps']}: expected n_steps * n_envs >= 2 (SB3 normalises advantages)")
    if "profile" not in v:
        return
    kwargs = env_kwargs(v.get("env_config") or {}, v.get("num_players"))
    try:
        env = rummy_env.make(v["profile"], wrapped=False, **kwargs)
    except Exception as e:  # noqa: BLE001 - whatever make() refuses is a config error
        raise ConfigError(
            f"env_config={_show(v.get('env_config'))}, num_players={v.get('num_players')!r}: {v['profile']} refuses "
            f"them ({' '.join(str(e).split())})"
        ) from None
    n = len(env.possible_agents)
    seat = v.get("learner_seat")
    if seat is not None and seat != "random" and not (re.fullmatch(r"[0-9]+", seat) and int(seat) < n):
        raise ConfigError(f"learner_seat={seat!r}: expected 'random' or a seat number in 0..{n - 1}")
    for field_name in ("opponents",) + (("bc_teacher",) if v.get("bc_decisions") else ()):
        ids = v.get(field_name)
        for bot_id in [ids] if isinstance(ids, str) else ids or []:
            reason = bot_unavailable_reason(v["profile"], bot_id, kwargs)  # checkpoint:PATH ids are loaded and checked too
            if reason:
                raise ConfigError(f"{field_name}: {bot_id!r} cannot play {v['profile']}: {reason}")
    paths = [("resume", v["resume"])] if v.get("resume") else []
    paths += [("pool_checkpoints", p) for p in v.get("pool_checkpoints", [])]
    for field_name, path in paths:
        from rummy_env.models.checkpoints import read_metadata

        try:
            meta = read_metadata(path)
        except ValueError as e:
            raise ConfigError(f"{field_name}: {e}") from None
        if (meta["profile"], meta["num_players"]) != (v["profile"], n):
            raise ConfigError(
                f"{field_name}: {path!r} was trained for {meta['profile']} with {meta['num_players']} players; this "
                f"run is {v['profile']} with {n}"
            )
    for field_name in ("runs_dir", "save_path"):
        problem = output_problem(v[field_name], folder=field_name == "runs_dir") if v.get(field_name) else None
        if problem:
            raise ConfigError(f"{field_name}={v[field_name]!r}: {problem}")


class _YAMLLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that also reads ``1e-3`` / ``3e6`` as numbers (YAML 1.2; YAML 1.1 wants ``1.0e-3``)."""


_YAMLLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$"),
    list("-+0123456789."),
)


def load_yaml(text: str) -> Any:
    """YAML (safe: plain data only) with YAML 1.2 numbers."""
    return yaml.load(text, Loader=_YAMLLoader)  # noqa: S506 - a SafeLoader subclass


def _parse_value(text: str) -> Any:
    """A command-line value read as YAML (``1e-4``, ``[1]``, ``null``, ``{rounds: [1]}``), else the string."""
    try:
        return load_yaml(text)
    except yaml.YAMLError:
        return text


def read_config_file(path: str, names: set[str]) -> dict[str, Any]:
    """The mapping of a YAML config file; a one-line ``ConfigError`` if it is missing, malformed or has unknown keys."""
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"--config {path}: cannot read it ({getattr(e, 'strerror', None) or e})") from None
    try:
        loaded = load_yaml(text)
    except yaml.YAMLError as e:
        raise ConfigError(f"--config {path}: not valid YAML ({' '.join(str(e).split())})") from None
    loaded = {} if loaded is None else loaded
    if not isinstance(loaded, dict):
        raise ConfigError(f"--config {path}: expected a mapping of config fields, got {type(loaded).__name__}")
    unknown = sorted(str(k) for k in set(loaded) - names)
    if unknown:
        raise ConfigError(f"--config {path}: unknown keys {unknown}; allowed: {sorted(names)}")
    return loaded


def load_config(cls: type, argv: list[str] | None = None, description: str = "") -> Any:
    """Fill dataclass ``cls`` from defaults, then ``--config FILE``, then ``--set k=v`` / ``--k v``, and check it
    (``validate_config``); raises ``ConfigError``. ``parse_config`` is the command-line form."""
    return _load(cls, argv, description)[0]


def _load(cls: type, argv: list[str] | None, description: str) -> tuple[Any, argparse.ArgumentParser]:
    defaults = cls()
    docs = field_docs(cls)
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--config", help="YAML file whose keys are fields below (configs/*.yaml)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a field")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for f in fields.values():
        spec = _spec(f.name, getattr(defaults, f.name))
        parser.add_argument(
            "--" + f.name.replace("_", "-"),
            dest=f.name,
            default=None,
            metavar="V",
            help=f"{docs.get(f.name, '')} ({spec.describe()}; default: {getattr(defaults, f.name)!r})".replace(
                "%", "%%"
            ),
        )
    args = parser.parse_args(argv)
    values: dict[str, Any] = {}
    names = set(fields)
    if args.config:
        values.update(read_config_file(args.config, names))
    overrides: list[tuple[str, str]] = []
    for item in args.set:
        key, sep, text = item.partition("=")
        if not sep or key not in names:
            raise ConfigError(f"--set {item!r}: expected KEY=VALUE with KEY one of {sorted(names)}")
        overrides.append((key, text))
    overrides += [(name, getattr(args, name)) for name in names if getattr(args, name) is not None]
    for key, text in overrides:
        # a string field takes the text as typed (--learner-seat 2, --save-path 1e3); others read it as YAML
        values[key] = text if _spec(key, getattr(defaults, key)).kind == "str" and text != "null" else _parse_value(text)
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
    """``parse(argv)`` (a script's argument parser that raises ``ConfigError`` on a bad value), or None after
    printing ``error: <what is wrong>`` to stderr: the caller exits with code 2."""
    try:
        return parse(argv)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None


def check_table(profile: str, num_players: int, rounds: list[int] | None = None) -> None:
    """``ConfigError`` (what is wrong and what is allowed) unless a script's ``--profile`` / ``--num-players`` /
    ``--rounds`` build a table: round numbers for the contract profiles, one number of deals for continental, as
    ``rummy tournament --rounds``."""
    import rummy_env
    from rummy_env.evaluation.tournament import env_config_from_args

    try:
        rummy_env.make(profile, num_players=num_players, **env_config_from_args(profile, rounds, None))
    except ValueError as exc:
        raise ConfigError(f"--profile {profile!r} --num-players {num_players} --rounds {rounds}: {exc}") from None


def run_name(profile: str, algo: str, seed: int) -> str:
    """``profile__algo__seed__time`` (CleanRL's run names)."""
    return f"{profile}__{algo}__{seed}__{int(time.time())}"


def env_kwargs(env_config: dict[str, Any], num_players: int | None) -> dict[str, Any]:
    """``rummy_env.make`` keyword arguments: YAML lists become tuples (``rounds``), ``num_players`` if given."""
    out = {k: (tuple(v) if isinstance(v, list) else v) for k, v in (env_config or {}).items()}
    if num_players is not None:
        out["num_players"] = num_players
    return out


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
        import torch

        info["torch"] = torch.__version__
    except ImportError:
        pass
    info["rummy_env"] = rummy_env.__version__
    try:
        info["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        pass
    return info


# ----------------------------------------------------------------------------------------------------------------
# Evaluation: the policy at one seat (rotated) against n-1 copies of one opponent
# ----------------------------------------------------------------------------------------------------------------


def bot_unavailable_reason(profile: str, bot_id: str, env_config: dict[str, Any]) -> str | None:
    """Why ``bot_id`` cannot play ``profile`` (e.g. no heuristic for this profile yet), or None when it can."""
    try:
        env = rummy_env.make(profile, wrapped=False, **env_config)
        env.reset(seed=0)
        bot_registry.load(bot_id, seed=0).act(env, env.agent_selection)
    except ValueError as e:
        return str(e)
    return None


def bot_available(profile: str, bot_id: str, env_config: dict[str, Any]) -> str | None:
    """Deprecated name of ``bot_unavailable_reason`` (it returns the reason a bot is *un*available, or None)."""
    import warnings

    warnings.warn("bot_available() is deprecated: use bot_unavailable_reason()", DeprecationWarning, stacklevel=2)
    return bot_unavailable_reason(profile, bot_id, env_config)


def mean_ci(samples: list[float]) -> tuple[float, float]:
    """Mean and half-width of the 95 % confidence interval of independent samples (``match.mean_ci``, one
    sample per cluster: a Student-t interval; NaN half-width with fewer than two samples)."""
    ci = match.mean_ci((x, 1) for x in samples)
    return (float("nan") if ci["mean"] is None else ci["mean"]), match.half_width(ci)


def round_score(res: dict[str, Any], seat: int) -> float:
    """A seat's score of one round: its penalty (contract family, lower is better) or its payment (continental,
    the balance change, higher is better)."""
    return float(match.round_scores(res)[seat])


def score_name(profile: str) -> str:
    """What ``round_score`` measures for a profile: the registry's ``score_per_unit`` (``penalty_per_round``,
    ``payment_per_deal``)."""
    return game(profile).score_per_unit


def _num_players(profile: str, env_config: dict[str, Any]) -> int:
    return int(env_config.get("num_players") or game(profile).default_players)


def match_record(rec: dict[str, Any]) -> dict[str, Any]:
    """A session record of the match runner as the policy's figures: the policy is entrant 0, the opponents the
    others. The policy's and the opponents' mean score per round, the rounds the policy won (went out), the
    rounds an opponent won per opponent seat, and the rounds played."""
    seats = rec["seats"]
    n = len(seats)
    me = seats.index(0)
    scores = rec["round_scores"]
    k = len(scores)
    out = rec["went_out"]
    return {
        "policy": sum(float(r[me]) for r in scores) / k,
        "opponents": sum(float(r[s]) for r in scores for s in range(n) if s != me) / (k * (n - 1)),
        "won": sum(1 for w in out if w == me),
        "opponents_won": sum(1 for w in out if w is not None and w != me) / (n - 1),
        "rounds": k,
    }


def play_match(
    make_policy: Any,
    profile: str,
    opponent: str,
    sessions: int,
    seed: int,
    env_config: dict[str, Any],
    first_session: int = 0,
) -> list[dict[str, Any]]:
    """Sessions ``first_session ..`` of a match: the policy bot at seat ``i % n``, ``opponent`` at the others.

    Session ``i`` is dealt with seed ``seed * 100_000 + i``; every bot is re-seeded per session (the match runner's
    ``rotation_plans``: the policy is entrant 0, the opponents 1..n-1). Returns per session the policy's and the
    opponents' mean score per round, the rounds the policy won and the rounds played (``match_record``).
    """
    return _play(make_policy, profile, opponent, sessions, seed, env_config, first_session, workers=1)


def _play(
    policy: Any,
    profile: str,
    opponent: str,
    sessions: int,
    seed: int,
    env_config: dict[str, Any],
    first_session: int = 0,
    workers: int = 1,
    progress: Any = None,
) -> list[dict[str, Any]]:
    n = _num_players(profile, env_config)
    plans = match.rotation_plans(n, sessions, seed, first_session=first_session)
    entrants = [policy] + [opponent] * (n - 1)
    # spawn: a forked process would inherit the trainer's torch (OpenMP) state
    records = match.play_sessions(
        profile, None, entrants, env_config, plans, workers=workers, start_method="spawn", progress=progress
    )
    return [match_record(rec) for rec in records]


def summarise_match(profile: str, opponent: str, records: list[dict[str, Any]]) -> dict[str, Any]:
    """Means and 95 % CIs of a match: the policy's score, the opponents', and the paired difference per session."""
    pol, pci = mean_ci([r["policy"] for r in records])
    opp, oci = mean_ci([r["opponents"] for r in records])
    diff, dci = mean_ci([r["policy"] - r["opponents"] for r in records])
    rounds = sum(r["rounds"] for r in records)
    return {
        "opponent": opponent,
        "metric": score_name(profile),
        "sessions": len(records),
        "rounds": rounds,
        "policy": round(pol, 3),
        "policy_ci95": round(pci, 3),
        "opponents": round(opp, 3),
        "opponents_ci95": round(oci, 3),
        "difference": round(diff, 3),
        "difference_ci95": round(dci, 3),
        "policy_rounds_won_share": round(sum(r["won"] for r in records) / rounds, 4),
        "opponent_rounds_won_share": round(sum(r["opponents_won"] for r in records) / rounds, 4),
    }


def evaluate_checkpoint(
    path: str,
    opponent: str,
    sessions: int,
    seed: int = 0,
    workers: int = 1,
    greedy: bool = True,
    env_config: dict[str, Any] | None = None,
    progress: Any = None,
) -> dict[str, Any]:
    """A checkpoint against ``opponent`` over ``sessions`` sessions (seats rotated), in ``workers`` processes;
    ``progress(k)``, if given, is called as ``k`` more sessions are done (a progress bar's ``update``)."""
    from rummy_env.bots.checkpoint_bot import CheckpointBot
    from rummy_env.models.checkpoints import read_metadata

    meta = read_metadata(path)
    profile = meta["profile"]
    cfg = dict(env_config if env_config is not None else meta.get("env_config") or {})
    cfg = env_kwargs(cfg, meta["num_players"])
    reason = bot_unavailable_reason(profile, opponent, cfg)
    if reason:
        return {"opponent": opponent, "skipped": reason}
    start = time.perf_counter()
    policy = functools.partial(CheckpointBot, path, greedy=greedy)  # picklable: built in each worker
    records = _play(policy, profile, opponent, sessions, seed, cfg, workers=workers, progress=progress)
    out = summarise_match(profile, opponent, records)
    out["env_config"] = {k: list(v) if isinstance(v, tuple) else v for k, v in cfg.items()}
    out["greedy"] = greedy
    out["seed"] = seed
    out["wall_seconds"] = round(time.perf_counter() - start, 1)
    return out


def _lower_is_better(metric: str) -> bool:
    """Whether a ``score_name`` metric is better lower, from the registry (the profile whose metric it is)."""
    for g in GAMES.values():
        if g.score_per_unit == metric:
            return g.lower_is_better
    known = sorted(g.score_per_unit for g in GAMES.values())
    raise ValueError(f"metric {metric!r}: not the score of any profile; known: {known}")


def format_match(m: dict[str, Any]) -> str:
    """One line of a match summary."""
    if "skipped" in m:
        return f"vs {m['opponent']:<10} skipped: {m['skipped']}"
    better = "lower" if _lower_is_better(m["metric"]) else "higher"
    return (
        f"vs {m['opponent']:<10} {m['metric']} ({better} is better): policy {m['policy']:.2f} ± {m['policy_ci95']:.2f}"
        f", {m['opponent']} {m['opponents']:.2f} ± {m['opponents_ci95']:.2f}, difference {m['difference']:+.2f} ± "
        f"{m['difference_ci95']:.2f}; rounds won {m['policy_rounds_won_share']:.1%} vs "
        f"{m['opponent_rounds_won_share']:.1%} per {m['opponent']} seat ({m['sessions']} sessions)"
    )

# ----------------------------------------------------------------------------------------------------------------
# Label shards: one file per session, resumable, shared by worker processes (search_labels.py, advantage_labels.py)
# ----------------------------------------------------------------------------------------------------------------


def write_sessions(
    out: Path, indices: Any, deadline: float, make: Any, report: Any = None
) -> None:
    """For each session index of ``indices`` whose ``out/session_{i:05d}.npz`` is not on disk yet: stop if
    ``deadline`` (a ``time.time()``) has passed, else ``make(i)`` its arrays and write them (through a temporary
    file, so an interrupted write leaves no file behind); ``report(i, data, seconds)``, if given, returns a line to
    print."""
    import numpy as np

    for i in indices:
        path = out / f"session_{i:05d}.npz"
        if path.exists():
            continue
        if time.time() > deadline:
            return
        t0 = time.time()
        data = make(i)
        tmp = out / f".session_{i:05d}.tmp.npz"
        np.savez_compressed(tmp, **data)
        os.replace(tmp, path)
        if report is not None:
            print(report(i, data, time.time() - t0), flush=True)


def run_shard_workers(worker: Any, args: argparse.Namespace) -> int:
    """``worker(args, w, deadline)`` for ``w`` in ``range(args.workers)``: in this process for one worker, else in
    spawned processes (``worker`` must be a module-level function); the deadline is ``args.max_minutes`` from now (0:
    none). Exit code 0, or 1 if a worker process failed."""
    import multiprocessing as mp

    Path(args.out).mkdir(parents=True, exist_ok=True)
    deadline = time.time() + args.max_minutes * 60 if args.max_minutes > 0 else float("inf")
    if args.workers == 1:
        worker(args, 0, deadline)
        return 0
    procs = [mp.get_context("spawn").Process(target=worker, args=(args, w, deadline)) for w in range(args.workers)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join()
    return 1 if any(proc.exitcode for proc in procs) else 0


def measure_arrays(tables: list[Any], names: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """The label files' ``measures`` (N, L, F) float32 -- each decision's (legal actions, F) table of the heuristic's
    measures, zero-padded to the longest legal list L -- and ``measure_names`` (F,) str."""
    import numpy as np

    width = max([1, *(len(m) for m in tables)])
    measures = np.zeros((len(tables), width, len(names)), dtype=np.float32)
    for i, m in enumerate(tables):
        measures[i, : len(m)] = m
    return {"measures": measures, "measure_names": np.array(names, dtype=f"U{max([1, *map(len, names)])}")}


def fitted_metadata(
    meta: dict[str, Any], step: str, fit_seconds: float, base: str, labels: list[str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The metadata of a network made from the checkpoint ``base`` (whose metadata is ``meta``) by an offline
    ``step`` on the label folders ``labels`` (e.g. ``"distillation (training/search_distill.py)"``), taking
    ``fit_seconds``: the base's metadata without its PPO state, ``algorithm`` naming the base's and the step,
    ``wall_seconds`` the base's training and this fit; and the opening of the step's record (``base``,
    ``base_training_steps``, ``base_updates``, ``base_wall_seconds``, ``labels``)."""
    out = {k: v for k, v in meta.items() if k != "training_state"}
    state = meta.get("training_state", {})
    seconds = state.get("wall_seconds", meta.get("wall_seconds")) or 0.0
    out["algorithm"] = f"{meta.get('algorithm') or 'unknown'} + {step}"
    out["wall_seconds"] = round(float(seconds) + fit_seconds, 1)
    head = {"base": str(base), "base_training_steps": meta.get("training_steps", 0), "base_updates": state.get("update"),
            "base_wall_seconds": seconds, "labels": [str(x) for x in labels]}  # fmt: skip
    return out, head


def load_card_prior(path: str) -> Any:
    """The ``card_prior`` checkpoint at ``path`` (``load_checkpoint``'s ``Checkpoint``), the base of an offline fit
    (``search_distill.py``, ``advantage_fit.py``); ``ConfigError`` for another kind of network, ``CheckpointError`` for
    a file that does not load."""
    from rummy_env.models.checkpoints import load_checkpoint

    ckpt = load_checkpoint(path)
    kind = ckpt.model.arch.get("kind")
    if kind != "card_prior":
        raise ConfigError(f"--base must be a card_prior checkpoint, {path!r} is {kind!r}")
    return ckpt

