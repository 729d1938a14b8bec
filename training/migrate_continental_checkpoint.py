"""Migrate a ``continental`` checkpoint of the first action table (57 actions) to the current one (109 actions).

Issue 13 made declaring part of the discard: the old table was ``draw_stock`` 0, ``draw_discard`` 1, ``discard``
2..54, ``declare`` 55, ``pass`` 56 (declare / pass were asked in a phase of their own after a discard that left a
valid 15); the new one is ``draw_stock`` 0, ``draw_discard`` 1, ``discard`` 2..54, ``declare`` 55 (the first-turn
declaration without drawing), ``discard_declare`` 56..108 ("discard X and declare"). The observation keeps its size.

Mapping of the policy head (rows = actions; the trunk and the value head are copied as they are):

| new row | from |
|---|---|
| 0..55 | the same old rows (draws, plain discards, the first-turn declaration) |
| 56 + X (discard X and declare) | old row 2 + X (discard X) with ``--declare-bias`` added to its bias |
| old row 56 (pass) | dropped: no decision of the new table corresponds to it |

Why: the old policy chose "discard X" and then, in the declare phase, declare or pass, so P(discard X and declare)
= P(discard X) * P(declare | declare phase). With the new row's logit = the old discard-X logit + b, the softmax
gives P(discard X and declare) / P(discard X) = exp(b), the old odds of declaring when b is the old declare - pass
logit gap. The default b = 7.8 is the median of that gap for the shipped checkpoint (159 declare decisions in 40
sessions with heuristic opponents: min 4.7, quartiles 7.1 / 8.7, never below 0: it declared whenever asked). The
old policy was asked only when its favourite discard happened to leave a valid 15; with b = 7.8 the greedy policy
goes out whenever some discard allows it (the one it rates highest among those), which plays a little better
(20 sessions against heuristic, seed 2024: rounds won 6.2 % instead of 3.8 %). A tiny b (``--declare-bias 0.001``)
reproduces the old greedy play exactly (the same 20 sessions give the old figures to the last digit).

    python training/migrate_continental_checkpoint.py checkpoints/continental --sessions 200 --workers 2

writes the migrated checkpoint (in place unless ``--out``) with ``rummy_env.checkpoints.save_checkpoint``, records
the migration in its metadata (``migration``), re-evaluates it against ``random`` and ``heuristic`` (``--sessions
0``: no evaluation, the old figures are dropped as they belong to the old env) and updates the checkpoint's entry of
``manifest.json`` beside it, if there is one.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rummy_env.engine.continental import LAYOUT  # noqa: E402
from rummy_env.models.checkpoints import CheckpointError, checkpoint_paths, read_metadata, save_checkpoint, sha256_file  # noqa: E402

#: the one profile whose checkpoints this script migrates
MIGRATES = "continental"
OLD_NUM_ACTIONS = 57
OLD_DISCARD, OLD_DECLARE, OLD_PASS = 2, 55, 56
#: median declare - pass logit gap of the shipped checkpoint in the old declare phase (see the module docstring)
DEFAULT_DECLARE_BIAS = 7.8
#: metadata keys ``save_checkpoint`` fills in itself
_DERIVED = ("format", "format_version", "env_version", "observation_size", "num_actions", "architecture",
            "weights_file", "weights_sha256", "created")  # fmt: skip


def map_policy_head(weight: Any, bias: Any, declare_bias: float) -> tuple[Any, Any]:
    """The (109, H) weight and (109,) bias of the new policy head from the old (57, H) / (57,) ones."""
    import torch

    if weight.shape[0] != OLD_NUM_ACTIONS or bias.shape[0] != OLD_NUM_ACTIONS:
        raise CheckpointError(f"policy head has {weight.shape[0]} rows; the old continental table has 57")
    kinds = LAYOUT.ranges["discard"].size
    w = torch.zeros(LAYOUT.num_actions, weight.shape[1], dtype=weight.dtype)
    b = torch.zeros(LAYOUT.num_actions, dtype=bias.dtype)
    w[: OLD_DECLARE + 1] = weight[: OLD_DECLARE + 1]
    b[: OLD_DECLARE + 1] = bias[: OLD_DECLARE + 1]
    dd = LAYOUT.DISCARD_DECLARE
    w[dd : dd + kinds] = weight[OLD_DISCARD : OLD_DISCARD + kinds]
    b[dd : dd + kinds] = bias[OLD_DISCARD : OLD_DISCARD + kinds] + declare_bias
    return w, b


def migrate(src: str, out: str | None = None, declare_bias: float = DEFAULT_DECLARE_BIAS) -> dict[str, Any]:
    """Write the migrated checkpoint; returns its metadata. Refuses anything but an old-table continental one."""
    from safetensors import safe_open

    from rummy_env.models.policy import build_policy

    meta = read_metadata(src)  # hash and header checks; no env checks (the env is the new one)
    if meta["profile"] != MIGRATES:
        raise CheckpointError(f"{src}: profile {meta['profile']!r}; this script migrates {MIGRATES} checkpoints")
    if meta["num_actions"] != OLD_NUM_ACTIONS:
        raise CheckpointError(
            f"{src}: {meta['num_actions']} actions; expected the old table's {OLD_NUM_ACTIONS} "
            f"(the current table has {LAYOUT.num_actions}: already migrated?)"
        )
    weights_path, _ = checkpoint_paths(src)
    with safe_open(str(weights_path), framework="pt") as f:
        state = {k: f.get_tensor(k) for k in f.keys()}
    arch = dict(meta["architecture"], num_actions=LAYOUT.num_actions)
    # the head is the network's last Linear layer: its rows are the actions whatever the MLPs before it
    state["policy_head.weight"], state["policy_head.bias"] = map_policy_head(
        state["policy_head.weight"], state["policy_head.bias"], declare_bias
    )
    model = build_policy(arch)
    model.load_state_dict(state, strict=True)
    new_meta = {k: v for k, v in meta.items() if k not in _DERIVED}
    new_meta["evaluation"] = {}
    new_meta["migration"] = {
        "script": "training/migrate_continental_checkpoint.py",
        "from": {"num_actions": OLD_NUM_ACTIONS, "weights_sha256": meta["weights_sha256"], "created": meta.get("created")},
        "policy_head": "rows 0..55 kept; discard_declare 56+X = old discard row 2+X, bias + declare_bias; old pass row 56 dropped",
        "declare_bias": declare_bias,
    }
    save_checkpoint(out or src, model, new_meta)
    return read_metadata(out or src)


def update_manifest(path: str, evaluation: dict[str, Any]) -> Path | None:
    """Refresh the checkpoint's entry of ``manifest.json`` beside it (hash, architecture, evaluation)."""
    weights_path, meta_path = checkpoint_paths(path)
    manifest_path = weights_path.parent / "manifest.json"
    if not manifest_path.is_file():
        return None
    manifest = json.loads(manifest_path.read_text())
    meta = json.loads(meta_path.read_text())
    entry = manifest.get("checkpoints", {}).get(weights_path.with_suffix("").name)
    if entry is None:
        return None
    entry["weights_sha256"] = sha256_file(weights_path)
    entry["layout_fingerprint"] = meta.get("layout_fingerprint")
    entry["architecture"] = meta["architecture"]
    entry["evaluation"] = evaluation
    entry["migration"] = meta["migration"]
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest_path


def main(argv: list[str] | None = None) -> None:
    """Command line: see the module docstring."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("checkpoint", help="old continental checkpoint (X, X.safetensors or X.json)")
    p.add_argument("--out", default=None, help="where to write the migrated checkpoint (default: in place)")
    p.add_argument("--declare-bias", type=float, default=DEFAULT_DECLARE_BIAS, help="logit added to discard_declare")
    p.add_argument("--sessions", type=int, default=200, help="evaluation sessions per opponent (0: none)")
    p.add_argument("--opponents", nargs="+", default=["random", "heuristic"])
    p.add_argument("--seed", type=int, default=2024, help="evaluation seed (the manifest's)")
    p.add_argument("--workers", type=int, default=1)
    args = p.parse_args(argv)
    meta = migrate(args.checkpoint, args.out, args.declare_bias)
    target = args.out or args.checkpoint
    print(f"migrated {args.checkpoint} -> {target}: {meta['num_actions']} actions, sha256 {meta['weights_sha256']}")
    evaluation: dict[str, Any] = {}
    if args.sessions > 0:
        from evaluate import evaluate

        evaluation = evaluate(target, args.opponents, args.sessions, args.seed, args.workers)
        _, meta_path = checkpoint_paths(target)
        data = json.loads(meta_path.read_text())
        data["evaluation"] = evaluation  # not part of the weights' header (as training/evaluate.py does)
        meta_path.write_text(json.dumps(data, indent=2) + "\n")
    manifest = update_manifest(target, evaluation)
    if manifest is not None:
        print(f"updated {manifest}")


if __name__ == "__main__":
    main()
