"""``search-distill``: offline distillation of a teacher's labels (``search-labels``) into a ``card_prior`` network.

A ``card_prior`` checkpoint (``--base``: a residual policy over the heuristic, its prior) is trained by
cross-entropy towards the search's choice on every labelled decision -- the heuristic's move where the search kept
it, the search's departure where it found one -- for ``--epochs`` passes, with Adam (``--lr``, minibatches of
``--batch``, seeded by ``--seed``). ``--depart-weight`` scales the loss of the departures; a departure whose
estimated gain is below ``--min-gain`` points is relabelled as the heuristic's move.

``--margin M`` (logits, default 0) is added to the prior's move (its ``prior_weight``) of the kept epoch before it is
saved and its final held-out figures are measured: the network then departs only where it prefers another move by
more than ``M``, fewer departures and fewer wrong ones.

``--train-kinds KIND ...`` trains only on the rows whose label or prior move is of those action kinds (e.g.
``discard``, where a styled heuristic's departures are): a fifth of the rows, so more sessions fit in memory; the
held-out figures stay over every row, so they show what the other kinds lose. ``--other-share P`` keeps each
other training row with probability P (seeded), so that the network still sees the moves it must keep.

``--measures`` trains a ``card_prior_measures`` network instead (the base's weights, its action scorer widened to
read the heuristic's measures of each legal action, ``MeasuredPriorActorCritic.expand_from``): the label files must
carry ``measures`` (``search-labels --measures``), all with the same ``measure_names``.

Label files are checked before training: each needs the arrays of ``search-labels``, rows that fit the base
network (its observation size and action count) and legal ``label`` / ``prior`` actions; otherwise the exit code
is 2 with one ``error:`` line.

The sessions whose index is a multiple of ``--val-every`` are held out. After each epoch the held-out figures are
printed: the share of the search's departures the network reproduces (its greedy move is the search's choice), the
share of the kept moves it keeps, its own departure rate, and the held-out cross-entropy; per decision kind as well
at the end. The epoch with the lowest held-out cross-entropy is saved to ``--out`` (a checkpoint with the base's
metadata and a ``distillation`` entry: the label folders, sizes, settings and held-out figures). ``--save-epochs``
also saves each epoch's network, the margin added, as ``OUT_epochN`` (its ``kept_epoch`` is N): the points of a
learning curve (``checkpoint-curve --x epoch``). ``--out`` may not be ``--base`` (its input) nor lie in the
shipped checkpoints' folder unless ``--overwrite-shipped``; every file is written atomically.

Usage::

    python -m rummy_env.distill search-distill --base runs/candidates/contract_gamerules_anchored \\
        --labels runs/labels/cg --out runs/candidates/distilled --epochs 20
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from typing import Any

import numpy as np

from .. import make as make_env
from ..models.checkpoints import CheckpointError, save_checkpoint
from ..training.config import ConfigError, cli_args
from ..training.warm_start import action_kinds
from .shards import add_output_flags, fitted_metadata, label_files, load_card_prior, output_checkpoint_problem

LABEL_KEYS = ("obs", "mask", "prior", "label", "gain")


def load_labels(
    folders: list[str], val_every: int, measures: bool = False, keep: np.ndarray | None = None,
    others: float = 0.0, seed: int = 0,
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], int]:
    """(training rows, held-out rows, sessions read) from every ``session_*.npz`` of ``folders``; with ``measures``
    the rows' ``measures`` (padded to the widest file) and their ``measure_names``. ``keep``: a bool per action id;
    the training rows whose label or prior move is such an action are kept, the others each with probability
    ``others`` (drawn from ``seed`` and the session index); the held-out rows all are."""
    train: dict[str, list[np.ndarray]] = {}
    val: dict[str, list[np.ndarray]] = {}
    sessions = 0
    names: tuple[str, ...] | None = None
    for f, i, data in label_files(folders, LABEL_KEYS, "search-labels"):
        if measures:
            if "measures" not in data.files:
                raise ConfigError(f"{f}: no measures; --measures needs labels of search-labels --measures")
            these = tuple(str(x) for x in data["measure_names"])
            if names is None:
                names = these
            elif these != names:
                raise ConfigError(f"{f}: measures {list(these)}, other files {list(names)}")
        if len(data["label"]) == 0:
            continue
        held = i % val_every == 0
        target = val if held else train
        rows = slice(None)
        if keep is not None and not held:
            ids = np.concatenate([data["label"], data["prior"]])
            if ids.min() < 0 or ids.max() >= len(keep):
                raise ConfigError(f"{f}: action ids outside 0..{len(keep) - 1}")
            rows = keep[data["label"]] | keep[data["prior"]]
            if others > 0:
                rows |= np.random.default_rng([seed, i]).random(len(rows)) < others
        if held or keep is None or rows.any():  # a session none of whose rows is kept still counts as read
            for k in (*LABEL_KEYS, *(("measures",) if measures else ())):
                target.setdefault(k, []).append(data[k][rows])
        sessions += 1
    cat = {k: _cat(v) for k, v in train.items()}
    vcat = {k: _cat(v) for k, v in val.items()}
    if measures and names is not None:
        for rows in (cat, vcat):
            if rows:
                rows["measure_names"] = np.array(names)
    return cat, vcat, sessions


def _cat(parts: list[np.ndarray]) -> np.ndarray:
    """Concatenate along rows; 3-d parts (measures) are zero-padded to the widest second axis first."""
    if parts[0].ndim == 3:
        width = max(p.shape[1] for p in parts)
        parts = [np.pad(p, ((0, 0), (0, width - p.shape[1]), (0, 0))) for p in parts]
    return np.concatenate(parts)


def check_labels(rows: dict[str, np.ndarray], obs_size: int, num_actions: int) -> None:
    """``ConfigError`` unless the label rows fit a network of ``obs_size`` inputs and ``num_actions`` actions (the
    labels were collected for the base's profile and table) and every ``label`` and ``prior`` is a legal action."""
    n = len(rows["label"])
    want = {"obs": (n, obs_size), "mask": (n, num_actions), "prior": (n,), "gain": (n,)}
    for k, shape in want.items():
        if rows[k].shape != shape:
            raise ConfigError(
                f"label rows {k!r} have shape {rows[k].shape}, the base checkpoint needs {shape}: labels of another "
                "profile or player count?"
            )
    for k in ("label", "prior"):
        a = rows[k]
        if a.min() < 0 or a.max() >= num_actions or not rows["mask"][np.arange(n), a].all():
            raise ConfigError(f"label rows {k!r} hold an action that is not legal in its row's mask")


def prepare(rows: dict[str, np.ndarray], min_gain: float) -> dict[str, Any]:
    """Tensors of the rows: observations, legal index, validity, prior flags, the label's and the prior's
    positions in the legal row."""
    import torch  # optional dependency: torch

    from ..models.policy import legal_index, prior_flags  # optional dependency: torch

    label = rows["label"].copy()
    small = (label != rows["prior"]) & (rows["gain"] < min_gain)
    label[small] = rows["prior"][small]
    index, valid = legal_index(rows["mask"])
    flags = prior_flags(index, valid, rows["prior"])
    pos = np.argmax(index == label[:, None], axis=1)
    ppos = np.argmax(index == rows["prior"][:, None], axis=1)
    measures = None
    if "measures" in rows:  # rows in increasing action id, as legal_index: pad or cut to its width
        m = rows["measures"]
        width = index.shape[1]
        m = np.pad(m, ((0, 0), (0, max(0, width - m.shape[1])), (0, 0)))[:, :width]
        measures = torch.from_numpy(np.ascontiguousarray(m, dtype=np.float32))
    return {
        "measures": measures,
        "obs": torch.from_numpy(rows["obs"].astype(np.float32)),
        "index": torch.from_numpy(index),
        "valid": torch.from_numpy(valid),
        "flags": torch.from_numpy(flags),
        "pos": torch.from_numpy(pos),
        "ppos": torch.from_numpy(ppos),
        "depart": torch.from_numpy(label != rows["prior"]),
        "label": label,
        "prior": rows["prior"],
    }


def held_out(model: Any, data: dict[str, Any], kinds: list[str] | None = None) -> dict[str, Any]:
    """Held-out figures of ``model`` on prepared ``data`` (module docstring); per kind of the search's choice too
    when ``kinds`` is given."""
    import torch  # optional dependency: torch

    with torch.no_grad():
        pi, _ = model.features(data["obs"])
        logits = model.legal_logits(pi, data["index"], data["valid"], data["flags"], data["measures"])
        logp = torch.log_softmax(logits, dim=-1)
        ce = -logp.gather(1, data["pos"][:, None]).mean().item()
        greedy = logits.argmax(-1)
    hit = (greedy == data["pos"]).numpy()
    keeps = (greedy == data["ppos"]).numpy()
    depart = data["depart"].numpy()
    out: dict[str, Any] = {
        "rows": int(len(hit)),
        "search_departures": int(depart.sum()),
        "departures_reproduced": round(float(hit[depart].mean()), 4) if depart.any() else None,
        "kept_moves_kept": round(float(keeps[~depart].mean()), 4) if (~depart).any() else None,
        "network_departure_rate": round(float(1.0 - keeps.mean()), 4),
        "cross_entropy": round(ce, 4),
    }
    if kinds is not None:
        per: dict[str, Any] = {}
        names = np.array([kinds[a] for a in data["label"].tolist()])
        for kind in sorted(set(names.tolist())):
            rows = names == kind
            d = rows & depart
            per[kind] = {
                "rows": int(rows.sum()),
                "search_departures": int(d.sum()),
                "departures_reproduced": round(float(hit[d].mean()), 4) if d.any() else None,
                "kept_moves_kept": round(float(keeps[rows & ~depart].mean()), 4) if (rows & ~depart).any() else None,
            }
        out["per_kind"] = per
    return out


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (module docstring); bad values raise ``ConfigError``."""
    p = argparse.ArgumentParser(prog="python -m rummy_env.distill search-distill", description=__doc__.split("\n\n")[0])
    p.add_argument("--base", required=True, help="a card_prior checkpoint to start from")
    p.add_argument("--labels", required=True, nargs="+", help="folders of session_*.npz label files")
    p.add_argument("--out", required=True, help="the checkpoint to write (X -> X.safetensors, X.json)")
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--depart-weight", type=float, default=1.0)
    p.add_argument("--min-gain", type=float, default=0.0)
    p.add_argument("--val-every", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--margin", type=float, default=0.0, help="logits added to the prior's move before saving (>= 0)")
    p.add_argument("--measures", action="store_true",
                   help="train a card_prior_measures network on the labels' heuristic measures")  # fmt: skip
    p.add_argument("--train-kinds", nargs="+", metavar="KIND",
                   help="train only on the rows whose label or prior move is of these action kinds (e.g. discard); "
                        "the held-out figures stay over every row")  # fmt: skip
    p.add_argument("--save-epochs", action="store_true",
                   help="also save each epoch's network (margin added) as OUT_epochN, for a learning curve")
    p.add_argument("--other-share", type=float, default=0.0,
                   help="with --train-kinds: keep each other training row with this probability (0..1)")  # fmt: skip
    add_output_flags(p)
    args = p.parse_args(argv)
    problem = output_checkpoint_problem(args.out, [("--base", args.base)], args.overwrite_shipped)
    if problem:
        raise ConfigError(f"--out {args.out!r} {problem}")
    for name in ("epochs", "batch", "val_every"):
        if getattr(args, name) < 1:
            raise ConfigError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    if args.lr <= 0 or args.depart_weight < 0 or args.min_gain < 0 or args.margin < 0:
        raise ConfigError("--lr must be > 0, --depart-weight, --min-gain and --margin >= 0")
    if not 0.0 <= args.other_share <= 1.0 or (args.other_share and not args.train_kinds):
        raise ConfigError(f"--other-share must be in 0..1 and needs --train-kinds, got {args.other_share}")
    return args


def _inputs(args: argparse.Namespace) -> tuple[Any, list[str], dict, dict, int]:
    """The base checkpoint, the action kinds of its table, the training and held-out label rows (checked) and the
    sessions read; ``ConfigError`` / ``CheckpointError`` for what does not fit."""
    ckpt = load_card_prior(args.base)
    meta = ckpt.metadata
    kinds = action_kinds(make_env(meta["profile"], wrapped=False, num_players=meta["num_players"]).layout)
    keep = None
    if args.train_kinds:
        unknown = sorted(set(args.train_kinds) - set(kinds))
        if unknown:
            raise ConfigError(f"--train-kinds {unknown}: not action kinds of {meta['profile']!r}; the kinds are "
                              f"{sorted(set(kinds))}")  # fmt: skip
        keep = np.isin(np.array(kinds), args.train_kinds)
    train_rows, val_rows, sessions = load_labels(args.labels, args.val_every, args.measures, keep,
                                                 args.other_share, args.seed)  # fmt: skip
    for rows in (train_rows, val_rows):
        if rows:
            check_labels(rows, int(ckpt.model.arch["obs_size"]), int(ckpt.model.arch["num_actions"]))
    if not train_rows or not val_rows:
        raise ConfigError("need labelled sessions both for training and held out (see --val-every)")
    return ckpt, kinds, train_rows, val_rows, sessions


def _network(args: argparse.Namespace, ckpt: Any, train_rows: dict, val_rows: dict) -> tuple[Any, dict[str, Any]]:
    """The network to train (the base's, or with ``--measures`` widened to read the measures) and its metadata."""
    model, meta = ckpt.model, ckpt.metadata
    if args.measures:
        from ..models.policy import build_policy  # optional dependency: torch

        names = [str(x) for x in train_rows.pop("measure_names")]
        val_rows.pop("measure_names", None)
        arch = dict(model.arch, kind="card_prior_measures", prior_measures=names)
        model = build_policy(arch).expand_from(model)
        meta = dict(meta, architecture=arch)
    return model, meta


SETTINGS = ("epochs", "lr", "batch", "depart_weight", "min_gain", "val_every", "seed", "measures", "margin",
            "train_kinds", "other_share")  # fmt: skip


def _save(args: argparse.Namespace, path: str, model: Any, meta: dict[str, Any], state: dict[str, Any], epoch: int,
          fit: dict[str, Any], by_kind: list[str] | None) -> dict[str, Any]:  # fmt: skip
    """Save the network of ``state`` with the margin added, as the epoch ``epoch`` kept (``fit``: the sizes, the
    validation rows, the history, the start time); its held-out figures."""
    import torch  # optional dependency: torch

    model.load_state_dict(state)
    model.eval()
    with torch.no_grad():
        model.prior_weight += args.margin
    final = held_out(model, fit["val"], by_kind)
    fit_seconds = round(time.time() - fit["t0"], 1)
    step = "distillation (python -m rummy_env.distill search-distill)"
    out_meta, head = fitted_metadata(meta, step, fit_seconds, args.base, args.labels)
    out_meta["distillation"] = {
        **head,
        "sessions": fit["sessions"],
        "training_rows": fit["n"],
        "held_out_rows": int(len(fit["val"]["pos"])),
        "settings": {k: getattr(args, k) for k in SETTINGS},
        "kept_epoch": epoch,
        "held_out": final,
        "history": list(fit["history"]),
        "wall_seconds": fit_seconds,
    }
    save_checkpoint(path, model, out_meta)
    return final


def _epoch(args: argparse.Namespace, model: Any, opt: Any, train: dict[str, Any], weight: Any, gen: Any) -> None:
    """One pass over the training rows: cross-entropy towards each row's label, departures weighted."""
    import torch  # optional dependency: torch

    model.train()
    n = len(train["pos"])
    perm = torch.randperm(n, generator=gen)
    for s in range(0, n, args.batch):
        b = perm[s : s + args.batch]
        pi, _ = model.features(train["obs"][b])
        meas = None if train["measures"] is None else train["measures"][b]
        logits = model.legal_logits(pi, train["index"][b], train["valid"][b], train["flags"][b], meas)
        logp = torch.log_softmax(logits, dim=-1).gather(1, train["pos"][b][:, None]).squeeze(1)
        loss = -(weight[b] * logp).sum() / weight[b].sum()
        opt.zero_grad()
        loss.backward()
        opt.step()


def main(argv: list[str] | None = None) -> int:
    """Distil, print the held-out figures per epoch, save the best epoch."""
    args = cli_args(parse_args, argv)
    if args is None:
        return 2
    import torch  # optional dependency: torch

    torch.manual_seed(args.seed)
    try:
        ckpt, kinds, train_rows, val_rows, sessions = _inputs(args)
    except (CheckpointError, ConfigError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    model, meta = _network(args, ckpt, train_rows, val_rows)
    train, val = prepare(train_rows, args.min_gain), prepare(val_rows, args.min_gain)
    n = len(train["pos"])
    print(f"{sessions} sessions: {n} training rows ({int(train['depart'].sum())} departures), "
          f"{len(val['pos'])} held out ({int(val['depart'].sum())} departures)", flush=True)  # fmt: skip
    base_fig = held_out(model, val)
    print(f"base: {base_fig}", flush=True)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    gen = torch.Generator().manual_seed(args.seed)
    weight = torch.where(train["depart"], args.depart_weight, 1.0)
    best, best_ce, best_epoch = copy.deepcopy(model.state_dict()), base_fig["cross_entropy"], 0
    fit = {"val": val, "n": n, "sessions": sessions, "history": [{"epoch": 0, **base_fig}], "t0": time.time()}
    for epoch in range(1, args.epochs + 1):
        _epoch(args, model, opt, train, weight, gen)
        model.eval()
        fig = held_out(model, val)
        fit["history"].append({"epoch": epoch, **fig})
        print(f"epoch {epoch} ({time.time() - fit['t0']:.0f} s): {fig}", flush=True)
        state = copy.deepcopy(model.state_dict())
        if fig["cross_entropy"] < best_ce:
            best, best_ce, best_epoch = state, fig["cross_entropy"], epoch
        if args.save_epochs:  # this epoch's network too (a learning curve's point), then training goes on from it
            _save(args, f"{args.out}_epoch{epoch}", model, meta, state, epoch, fit, None)
            model.load_state_dict(state)
    final = _save(args, args.out, model, meta, best, best_epoch, fit, kinds)
    print(f"kept epoch {best_epoch}: {final}", flush=True)
    print(f"saved {args.out}", flush=True)
    return 0
