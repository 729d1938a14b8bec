"""``advantage-fit``: fit a ``card_prior`` network to rollout advantages (``advantage-labels``): one step of policy
improvement over the heuristic, learnt by regression.

For every labelled decision and candidate action ``a`` the label files give every seat's round score after ``a``.
The *value* of ``a`` to the deciding seat is, in the profile's direction (higher is better), its own score minus the
mean of the other seats' scores (``--objective zero_sum``, the default: what a seat-rotated tournament measures) or
its own score alone (``own``); its *advantage* ``d(a)`` is that value minus the value of the heuristic's move, in the
same deal. A ``card_prior`` network (``--base``) is trained so that each candidate's logit minus the heuristic's
move's logit predicts ``d(a) / --scale`` (Huber loss, ``--huber`` in those units), Adam (``--lr``, minibatches of
``--batch``, ``--epochs`` passes, seeded by ``--seed``). The network sees only the deciding seat's observation and
the heuristic's move, so what it learns is the expected advantage given what that seat knows.

Greedy play on the fitted logits departs from the heuristic wherever some action's predicted advantage is positive;
``--margin`` (points) is added to the heuristic's move's logit (its ``prior_weight``) before saving, so the saved
network departs only where the predicted advantage exceeds the margin. ``--set-margin`` changes the margin of a
fitted checkpoint (``--base``) without fitting again (to another ``--out``: a command never writes over its input).

The sessions whose index is a multiple of ``--val-every`` are held out. On them the greedy policy is evaluated
*exactly* on the labels: where its move is among the candidates, the label says what it gains over the heuristic
in that deal (the other candidates' rollouts are the same deal played the other way). The figures: the departure
rate, the mean gain per labelled decision with its 95 % interval (clustered by session), and that gain scaled to a
seat's round (times the decisions with a choice per seat and round of the label files), for each margin of
``--margins``; the epoch with the lowest held-out loss (``--select loss``, the default) or the highest held-out
gain at ``--margin`` (``--select gain``) is saved to ``--out``, with the base's
metadata and an ``advantage_fit`` entry (label folders, sizes, settings, held-out figures).

Usage::

    python -m rummy_env.distill advantage-fit --base runs/candidates/contract_prior --labels runs/adv/contract \\
        --out runs/adv/contract_fit --epochs 10
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from typing import Any

import numpy as np

from ..evaluation.match import half_width, mean_ci
from ..models.checkpoints import CheckpointError, load_checkpoint, save_checkpoint
from ..registry import game
from ..training.config import ConfigError, cli_args
from .shards import add_output_flags, fitted_metadata, label_files, load_card_prior, output_checkpoint_problem

LABEL_KEYS = ("obs", "mask", "prior", "cand", "scores", "seat", "round", "choices", "rounds_played")


def load_labels(folders: list[str], val_every: int) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], dict]:
    """(training rows, held-out rows, totals) from every ``session_*.npz`` of ``folders``; each row also gets the
    index of its session (``session``), unique over the folders. Totals: sessions, choices, rounds, labels."""
    parts: tuple[dict[str, list[np.ndarray]], dict[str, list[np.ndarray]]] = ({}, {})
    totals = {"sessions": 0, "choices": 0, "rounds_played": 0, "labels": 0}
    sid = 0
    for f, i, data in label_files(folders, LABEL_KEYS, "advantage-labels"):
        totals["sessions"] += 1
        totals["choices"] += int(data["choices"])
        totals["rounds_played"] += int(data["rounds_played"])
        n = len(data["prior"])
        totals["labels"] += n
        if n == 0:
            continue
        target = parts[1] if i % val_every == 0 else parts[0]
        for k in ("obs", "mask", "prior", "cand", "scores", "seat", "round"):
            target.setdefault(k, []).append(data[k])
        if "measures" in data.files:
            names = tuple(str(x) for x in data["measure_names"])
            if totals.setdefault("measure_names", names) != names:
                raise ConfigError(f"{f}: measures {list(names)}, other files {list(totals['measure_names'])}")
            target.setdefault("measures", []).append(data["measures"])
        target.setdefault("session", []).append(np.full(n, sid, dtype=np.int64))
        sid += 1
    train, val = ({k: _cat(v) for k, v in p.items()} for p in parts)
    return train, val, totals


def _cat(arrays: list[np.ndarray]) -> np.ndarray:
    """Concatenate, padding the candidate axis (``cand`` with -1, ``scores`` and ``measures`` with 0) to the widest
    file."""
    if arrays[0].ndim >= 2 and len({a.shape[1] for a in arrays}) > 1 and arrays[0].dtype != bool:
        width = max(a.shape[1] for a in arrays)
        fill = -1 if arrays[0].dtype == np.int64 else 0
        arrays = [np.pad(a, [(0, 0), (0, width - a.shape[1])] + [(0, 0)] * (a.ndim - 2), constant_values=fill)
                  for a in arrays]  # fmt: skip
    return np.concatenate(arrays)


def check_labels(rows: dict[str, np.ndarray], obs_size: int, num_actions: int, num_players: int) -> None:
    """``ConfigError`` unless the rows fit a network of ``obs_size`` inputs, ``num_actions`` actions and a table of
    ``num_players`` seats, and every candidate and heuristic move is legal (the heuristic's move a candidate)."""
    n, k = rows["cand"].shape
    want = {"obs": (n, obs_size), "mask": (n, num_actions), "prior": (n,), "scores": (n, k, num_players)}
    for key, shape in want.items():
        if rows[key].shape != shape:
            raise ConfigError(
                f"label rows {key!r} have shape {rows[key].shape}, the base checkpoint needs {shape}: labels of "
                "another profile or player count?"
            )
    cand = rows["cand"]
    used = cand >= 0
    if cand.max() >= num_actions or not rows["mask"][np.nonzero(used)[0], cand[used]].all():
        raise ConfigError("label rows hold a candidate action that is not legal in its row's mask")
    if not (cand == rows["prior"][:, None]).any(axis=1).all():
        raise ConfigError("label rows whose heuristic move is not among the candidates")


def advantages(rows: dict[str, np.ndarray], lower_is_better: bool, objective: str) -> np.ndarray:
    """(N, K) float32: each candidate's value minus the heuristic move's value for the deciding seat (module
    docstring), 0 on padding."""
    scores = rows["scores"].astype(np.float64)
    n, k, p = scores.shape
    own = scores[np.arange(n), :, rows["seat"].astype(np.int64)]
    value = own - (scores.sum(-1) - own) / (p - 1) if objective == "zero_sum" else own
    if lower_is_better:
        value = -value
    ppos = np.argmax(rows["cand"] == rows["prior"][:, None], axis=1)
    d = value - value[np.arange(n), ppos][:, None]
    d[rows["cand"] < 0] = 0.0
    return d.astype(np.float32)


def prepare(rows: dict[str, np.ndarray], d: np.ndarray) -> dict[str, Any]:
    """Tensors of the rows: observations, the legal index and validity, prior flags, each candidate's position in
    its legal row (``cpos``; 0 on padding), which candidates are real and not the heuristic's move (``train``), the
    heuristic's move's position (``ppos``), and the advantages."""
    import torch  # optional dependency: torch

    from ..models.policy import legal_index, prior_flags  # optional dependency: torch

    index, valid = legal_index(rows["mask"])
    flags = prior_flags(index, valid, rows["prior"])
    cand = rows["cand"]
    match = index[:, None, :] == cand[:, :, None]  # (N, K, L)
    cpos = np.argmax(match, axis=2)
    real = cand >= 0
    ppos = np.argmax(index == rows["prior"][:, None], axis=1)
    measures = None
    if "measures" in rows:
        m = rows["measures"]
        if m.shape[1] < index.shape[1]:
            m = np.pad(m, [(0, 0), (0, index.shape[1] - m.shape[1]), (0, 0)])
        measures = torch.from_numpy(np.ascontiguousarray(m[:, : index.shape[1]], dtype=np.float32))
    return {
        "measures": measures,
        "obs": torch.from_numpy(rows["obs"].astype(np.float32)),
        "index": torch.from_numpy(index),
        "valid": torch.from_numpy(valid),
        "flags": torch.from_numpy(flags),
        "cpos": torch.from_numpy(np.where(real, cpos, 0)),
        "train": torch.from_numpy(real & (cand != rows["prior"][:, None])),
        "ppos": torch.from_numpy(ppos),
        "d": torch.from_numpy(d),
        "cand": cand,
        "legal": index,
        "session": rows["session"],
    }


def logits_of(model: Any, data: dict[str, Any], rows: Any = slice(None)) -> Any:
    """The network's legal logits (B, L) of the rows."""
    pi, _ = model.features(data["obs"][rows])
    measures = data["measures"]
    return model.legal_logits(pi, data["index"][rows], data["valid"][rows], data["flags"][rows],
                              None if measures is None else measures[rows])  # fmt: skip


def regression_loss(model: Any, data: dict[str, Any], rows: Any, scale: float, huber: float) -> Any:
    """Mean Huber loss of (candidate logit - heuristic move's logit) against advantage / scale."""
    import torch  # optional dependency: torch

    logits = logits_of(model, data, rows)
    z = logits.gather(1, data["cpos"][rows]) - logits.gather(1, data["ppos"][rows][:, None])
    mask = data["train"][rows]
    err = torch.nn.functional.huber_loss(z, data["d"][rows] / scale, reduction="none", delta=huber)
    return (err * mask).sum() / mask.sum().clamp(min=1)


def greedy_gain(
    model: Any, data: dict[str, Any], margins: list[float], scale: float, per_round: float
) -> dict[str, dict[str, Any]]:
    """Held-out figures of the greedy policy with each margin (points added to the heuristic's move): departure
    rate, share of departures not among the candidates (not evaluable, counted as 0 gain), mean gain per labelled
    decision with its 95 % interval clustered by session, and per seat and round."""
    import torch  # optional dependency: torch

    with torch.no_grad():
        logits = logits_of(model, data)
    flags = data["flags"].numpy()
    legal = data["legal"]
    cand = data["cand"]
    d = data["d"].numpy()
    sessions = data["session"]
    out = {}
    for m in margins:
        lg = logits.numpy() + flags * (m / scale)
        choice = legal[np.arange(len(legal)), lg.argmax(1)]
        depart = choice != legal[np.arange(len(legal)), data["ppos"].numpy()]
        hit = cand == choice[:, None]
        known = hit.any(1)
        gain = np.where(known, (d * hit).sum(1), 0.0)
        _, cluster = np.unique(sessions, return_inverse=True)  # rows clustered by session
        ci = mean_ci(zip(np.bincount(cluster, weights=gain).tolist(), np.bincount(cluster).tolist(), strict=True))
        mean, half = float(ci["mean"]), half_width(ci)
        out[f"{m:g}"] = {
            "departures": round(float(depart.mean()), 4),
            "unknown": round(float((depart & ~known).mean()), 4),
            "gain_per_decision": round(mean, 4),
            "ci95": round(half, 4),
            "gain_per_round": round(mean * per_round, 3),
            "ci95_per_round": round(half * per_round, 3),
        }
    return out


def drop_prior_input(model: Any) -> None:
    """Make the network one action-value function: the action scorer's input flag of the heuristic's move gets a
    zero weight that stays zero, and ``prior_weight`` is 0 and frozen while fitting (the margin is added at the end).
    Then logit(a) - logit(b) predicts the advantage of ``a`` over ``b`` whichever move the heuristic made, so the
    rare decisions where the heuristic takes an action learn from the common ones where it does not, and back."""
    import torch  # optional dependency: torch

    col = model.action_mlp.in_features - getattr(model, "num_measures", 0) - 1  # the flag's input column
    with torch.no_grad():
        model.action_mlp.weight[:, col] = 0.0
        model.prior_weight.zero_()
    keep = torch.ones_like(model.action_mlp.weight)
    keep[:, col] = 0.0
    model.action_mlp.weight.register_hook(lambda grad: grad * keep)
    model.prior_weight.requires_grad_(False)


def set_margin(base: str, out: str, margin: float) -> int:
    """``--set-margin``: the advantage-fit checkpoint ``base`` with its margin changed to ``margin`` points (its
    ``prior_weight`` moved by the difference / scale), saved as ``out``; the rest of the weights unchanged."""
    import torch  # optional dependency: torch

    try:
        ckpt = load_checkpoint(base)
        fit = ckpt.metadata.get("advantage_fit")
        if not isinstance(fit, dict) or "settings" not in fit:
            raise ConfigError(f"--base {base!r} was not made by advantage-fit (no 'advantage_fit' entry)")
    except (CheckpointError, ConfigError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    settings = dict(fit["settings"])
    old = float(settings["margin"])
    with torch.no_grad():
        ckpt.model.prior_weight += (margin - old) / float(settings["scale"])
    meta = {k: v for k, v in ckpt.metadata.items() if k != "training_state"}
    meta["advantage_fit"] = dict(fit, settings=dict(settings, margin=margin), margin_changed_from=old)
    save_checkpoint(out, ckpt.model, meta)
    print(f"saved {out}: margin {old:g} -> {margin:g} points", flush=True)
    return 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (module docstring); bad values raise ``ConfigError``."""
    p = argparse.ArgumentParser(prog="python -m rummy_env.distill advantage-fit", description=__doc__.split("\n\n")[0])
    p.add_argument("--base", required=True, help="a card_prior checkpoint to start from")
    p.add_argument("--labels", nargs="+", help="folders of session_*.npz label files (not with --set-margin)")
    p.add_argument("--out", required=True, help="the checkpoint to write (X -> X.safetensors, X.json)")
    p.add_argument("--objective", choices=("zero_sum", "own"), default="zero_sum")
    p.add_argument("--scale", type=float, default=None, help="points per logit (default: 5 contract family, 2 else)")
    p.add_argument("--huber", type=float, default=1.0)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--margin", type=float, default=1.0, help="points; the saved network's margin")
    p.add_argument("--margins", type=float, nargs="+", default=[0.0, 0.5, 1.0, 2.0, 4.0])
    p.add_argument("--val-every", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--prior-input", choices=("drop", "keep"), default="drop",
                   help="drop: the scorer ignores which move is the heuristic's (one action-value function)")
    p.add_argument("--weight-decay", type=float, default=0.0)
    p.add_argument("--measures", action="store_true",
                   help="fit a card_prior_measures network: the base's scorer also reads the labels' heuristic measures")
    p.add_argument("--threads", type=int, default=1, help="torch threads (1: the same run gives the same weights)")
    p.add_argument("--set-margin", action="store_true",
                   help="no fit: copy the advantage-fit checkpoint --base to --out with its margin changed to --margin")
    p.add_argument("--select", choices=("loss", "gain"), default="loss",
                   help="keep the epoch with the lowest held-out loss, or the highest held-out gain at --margin")
    add_output_flags(p)
    args = p.parse_args(argv)
    problem = output_checkpoint_problem(args.out, [("--base", args.base)], args.overwrite_shipped)
    if problem:
        raise ConfigError(f"--out {args.out!r} {problem}")
    for name in ("epochs", "batch", "val_every"):
        if getattr(args, name) < 1:
            raise ConfigError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    if args.lr <= 0 or args.huber <= 0 or (args.scale is not None and args.scale <= 0):
        raise ConfigError("--lr, --huber and --scale must be > 0")
    if args.margin < 0 or min(args.margins) < 0:
        raise ConfigError("--margin and --margins must be >= 0")
    if args.threads < 1:
        raise ConfigError(f"--threads must be >= 1, got {args.threads}")
    if not args.set_margin and not args.labels:
        raise ConfigError("--labels is required (folders of advantage-labels files), unless --set-margin")
    if args.margin not in args.margins:
        args.margins = sorted([*args.margins, args.margin])
    return args


def _inputs(args: argparse.Namespace) -> tuple[Any, dict, dict, dict]:
    """The base checkpoint and the training and held-out label rows (checked), the label totals."""
    ckpt = load_card_prior(args.base)
    train_rows, val_rows, totals = load_labels(args.labels, args.val_every)
    if not train_rows or not val_rows:
        raise ConfigError("need labelled sessions both for training and held out (see --val-every)")
    for rows in (train_rows, val_rows):
        check_labels(rows, int(ckpt.model.arch["obs_size"]), int(ckpt.model.arch["num_actions"]),
                     int(ckpt.metadata["num_players"]))  # fmt: skip
    return ckpt, train_rows, val_rows, totals


SETTINGS = ("objective", "huber", "epochs", "lr", "batch", "margin", "val_every", "seed", "select", "prior_input",
            "weight_decay", "measures")  # fmt: skip


def _network(args: argparse.Namespace, ckpt: Any, rows: tuple[dict, dict], totals: dict) -> tuple[Any, dict]:
    """The network to fit (``--measures``: widened to read the labels' measures) and its metadata; ``ConfigError``
    when ``--measures`` has no measures to read."""
    model, meta = ckpt.model, ckpt.metadata
    if not args.measures:
        for r in rows:
            r.pop("measures", None)
        return model, meta
    if "measure_names" not in totals:
        raise ConfigError("--measures needs label files with measures (python -m rummy_env.distill advantage-labels "
                          "writes them)")  # fmt: skip
    from ..models.policy import build_policy  # optional dependency: torch

    arch = dict(model.arch, kind="card_prior_measures", prior_measures=list(totals["measure_names"]))
    return build_policy(arch).expand_from(model), dict(meta, architecture=arch)


def _fit(args: argparse.Namespace, model: Any, train: dict, val: dict, fig0: dict, scale: float,
         per_round: float) -> tuple[int, list[dict[str, Any]]]:  # fmt: skip
    """``--epochs`` passes of the regression; the model is left with the kept epoch's weights. The kept epoch and
    the history (``fig0``: the base's held-out figures)."""
    import torch  # optional dependency: torch

    if args.prior_input == "drop":
        drop_prior_input(model)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=args.lr,
                            weight_decay=args.weight_decay)  # fmt: skip
    gen = torch.Generator().manual_seed(args.seed)
    key, n = f"{args.margin:g}", len(train["ppos"])
    with torch.no_grad():
        base_loss = float(regression_loss(model, val, slice(None), scale, args.huber))
    best, best_epoch = copy.deepcopy(model.state_dict()), 0
    best_score = -base_loss if args.select == "loss" else fig0[key]["gain_per_decision"]
    history, t0 = [{"epoch": 0, "held_out": fig0}], time.time()
    for epoch in range(1, args.epochs + 1):
        model.train()
        perm = torch.randperm(n, generator=gen)
        total = 0.0
        for s in range(0, n, args.batch):
            b = perm[s : s + args.batch]
            loss = regression_loss(model, train, b, scale, args.huber)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(b)
        model.eval()
        with torch.no_grad():
            val_loss = float(regression_loss(model, val, slice(None), scale, args.huber))
        fig = greedy_gain(model, val, args.margins, scale, per_round)
        history.append({"epoch": epoch, "train_loss": total / n, "val_loss": val_loss, "held_out": fig})
        print(f"epoch {epoch} ({time.time() - t0:.0f} s) loss {total / n:.4f} held-out {val_loss:.4f}", flush=True)
        for m, f in fig.items():
            print(f"  margin {m}: {f}", flush=True)
        score = -val_loss if args.select == "loss" else fig[key]["gain_per_decision"]
        if score > best_score:
            best, best_score, best_epoch = copy.deepcopy(model.state_dict()), score, epoch
    model.load_state_dict(best)
    return best_epoch, history


def main(argv: list[str] | None = None) -> int:
    """Fit, print the held-out figures per epoch, save the best epoch with its margin."""
    args = cli_args(parse_args, argv)
    if args is None:
        return 2
    import torch  # optional dependency: torch

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    if args.set_margin:
        return set_margin(args.base, args.out, args.margin)
    try:
        ckpt, train_rows, val_rows, totals = _inputs(args)
        model, meta = _network(args, ckpt, (train_rows, val_rows), totals)
    except (CheckpointError, ConfigError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    g = game(meta["profile"])
    scale = args.scale if args.scale is not None else (5.0 if g.lower_is_better else 2.0)
    per_round = totals["choices"] / (totals["rounds_played"] * int(meta["num_players"]))
    train = prepare(train_rows, advantages(train_rows, g.lower_is_better, args.objective))
    val = prepare(val_rows, advantages(val_rows, g.lower_is_better, args.objective))
    n = len(train["ppos"])
    print(f"{totals['sessions']} sessions, {per_round:.1f} decisions with a choice per seat and round: {n} training "
          f"rows, {len(val['ppos'])} held out; scale {scale:g} points per logit", flush=True)  # fmt: skip
    model.eval()
    base_fig = greedy_gain(model, val, args.margins, scale, per_round)
    print(f"base: {base_fig[f'{args.margin:g}']}", flush=True)
    t0 = time.time()
    best_epoch, history = _fit(args, model, train, val, base_fig, scale, per_round)
    model.prior_weight.requires_grad_(True)
    with torch.no_grad():
        model.prior_weight += args.margin / scale
    model.eval()
    final = greedy_gain(model, val, [0.0], scale, per_round)["0"]
    print(f"kept epoch {best_epoch} with margin {args.margin:g}: {final}", flush=True)
    fit_seconds = round(time.time() - t0, 1)
    step = "advantage fit (python -m rummy_env.distill advantage-fit)"
    out_meta, head = fitted_metadata(meta, step, fit_seconds, args.base, args.labels)
    out_meta["advantage_fit"] = {
        **head, **totals, "training_rows": n, "held_out_rows": int(len(val["ppos"])),
        "settings": {k: getattr(args, k) for k in SETTINGS} | {"scale": scale}, "kept_epoch": best_epoch,
        "held_out": final, "history": history, "wall_seconds": fit_seconds,
    }  # fmt: skip
    save_checkpoint(args.out, model, out_meta)
    print(f"saved {args.out}", flush=True)
    return 0
