"""Migrate a ``contract_gamerules`` checkpoint to the action table in which a set's joker names its suit.

Document 003 (B.1-3) has the player name the suit a joker in a set stands for, so the set meld actions now carry
that suit: where the table had one id for "the set of rank r with the naturals of suits S and one joker", it now has
one id per suit the joker may stand for (two with one joker, three with two jokers in the 5-player pack). The other
ranges only move. This script maps the policy head of an older checkpoint onto the new ids:

* every new id takes the row (weights and bias) of the old id it refines;
* the ``k`` ids that refine one old id each get ``log(k)`` less bias, so together they keep exactly the old
  probability under the masked softmax (they are legal together: the suit changes nothing else);
* the trunk, the value head and everything else are copied unchanged; the observation has not changed (a
  checkpoint whose observation size differs is refused, since this maps action ids only).

The result is re-saved with ``rummy_env.checkpoints.save_checkpoint`` (fresh hash and header facts, the old
metadata kept, a ``migration`` record added) and the entry of ``manifest.json`` beside it is updated.

    python training/migrate_checkpoint.py checkpoints/contract_gamerules          # in place
    python training/migrate_checkpoint.py OLD --out NEW                            # to another name
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path
from typing import Any

import numpy as np

from rummy_env.core.melds import GroupSpec
from rummy_env.engine.actions import ActionLayout
from rummy_env.engine.contract import layout_for
from rummy_env.models.checkpoints import (
    CheckpointError,
    checkpoint_paths,
    env_facts,
    read_metadata,
    save_checkpoint,
)
from rummy_env.rules import get_rules

#: the one profile whose checkpoints this migration maps (its set melds gained the joker's suit)
MIGRATES = "contract_gamerules"


def action_map(rules: Any) -> tuple[np.ndarray, int]:
    """(old id of every new action id, size of the old table) for ``rules`` (a Contract-family rules object)."""
    new = layout_for(rules)
    depths = new.ranges["pickup"].size if "pickup" in new.ranges else 0
    old = ActionLayout(rules, pickup_depths=depths, joker_suits=False)
    out = np.empty(new.num_actions, dtype=np.int64)
    for name, rng in new.ranges.items():
        start = old.ranges[name].start
        if name != "meld":
            out[rng.start : rng.stop] = np.arange(start, start + rng.size)
            continue
        for i, spec in enumerate(new.groups):
            out[rng.start + i] = start + old.group_index[GroupSpec(spec.rank, spec.suits, spec.jokers)]
        for i, spec in enumerate(new.runs):
            out[new.MELD_RUN + i] = old.MELD_RUN + old.run_index[spec]
    return out, old.num_actions


def migrate(src: str | Path, dst: str | Path | None = None) -> dict[str, Any]:
    """Migrate checkpoint ``src`` (written to ``dst``, default in place); returns the migration record."""
    import torch
    from safetensors import safe_open

    from rummy_env.models.policy import build_policy

    meta = read_metadata(src)  # hash and header checks
    profile, players = meta["profile"], meta["num_players"]
    if profile != MIGRATES:
        raise CheckpointError(f"{src}: profile {profile!r}; only {MIGRATES} checkpoints need this migration")
    env_config = {k: v for k, v in (meta.get("env_config") or {}).items() if k not in ("num_players", "render_mode")}
    facts = env_facts(profile, players, **env_config)
    arch = dict(meta["architecture"])
    if arch["num_actions"] == facts["num_actions"]:
        raise CheckpointError(f"{src}: already has the current {facts['num_actions']} actions; nothing to migrate")
    if arch["obs_size"] != facts["observation_size"]:
        raise CheckpointError(
            f"{src}: observation size {arch['obs_size']} differs from the env's {facts['observation_size']}; this "
            "migration maps action ids only"
        )
    rules = get_rules(profile, num_players=players, **env_config)
    mapping, old_size = action_map(rules)
    if old_size != arch["num_actions"]:
        raise CheckpointError(
            f"{src}: {arch['num_actions']} actions, but the rank-only table of {profile} with {players} players has "
            f"{old_size}; not a checkpoint of the earlier table"
        )
    weights_path, _ = checkpoint_paths(src)
    with safe_open(str(weights_path), framework="pt") as f:
        state = {k: f.get_tensor(k) for k in f.keys()}
    idx = torch.as_tensor(mapping)
    copies = np.bincount(mapping, minlength=old_size)[mapping]
    state["policy_head.weight"] = state["policy_head.weight"][idx].clone()
    state["policy_head.bias"] = state["policy_head.bias"][idx].clone() - torch.as_tensor(
        np.log(copies), dtype=torch.float32
    )
    arch["num_actions"] = int(facts["num_actions"])
    model = build_policy(arch)
    model.load_state_dict(state, strict=True)
    record = {
        "what": "set joker suits in the meld actions (B.1-3): policy head rows mapped to the new action ids",
        "script": "training/migrate_checkpoint.py",
        "from_num_actions": old_size,
        "to_num_actions": int(facts["num_actions"]),
        "refined_ids": int((np.bincount(mapping, minlength=old_size) > 1).sum()),
        "bias_shift": f"-log(k) for the k new ids of one old id (k <= {int(copies.max())}, log {math.log(copies.max()):.3f})",
        "from_weights_sha256": meta["weights_sha256"],
        "date": time.strftime("%Y-%m-%d"),
    }
    facts_keys = {"env_version", "observation_size", "num_actions", "architecture", "format", "format_version"}
    keep = {k: v for k, v in meta.items() if k not in facts_keys}
    keep["migration"] = record
    out = Path(dst) if dst is not None else Path(src)
    _, new_meta = save_checkpoint(out, model, keep)
    _update_manifest(new_meta)
    return record


def _update_manifest(meta_path: Path) -> None:
    """Refresh the weights hash and architecture of this checkpoint's entry in the ``manifest.json`` beside it."""
    manifest = meta_path.parent / "manifest.json"
    if not manifest.is_file():
        return
    data = json.loads(manifest.read_text())
    name = meta_path.name[: -len(".json")]
    entry = data.get("checkpoints", {}).get(name)
    if entry is None:
        return
    meta = json.loads(meta_path.read_text())
    entry["weights_sha256"] = meta["weights_sha256"]
    entry["layout_fingerprint"] = meta.get("layout_fingerprint")
    entry["architecture"] = meta["architecture"]
    entry["migration"] = meta["migration"]
    manifest.write_text(json.dumps(data, indent=2) + "\n")


def main() -> None:
    """Command line."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("checkpoint", help="checkpoint X (X.safetensors + X.json)")
    p.add_argument("--out", default=None, help="write the migrated checkpoint to this name (default: in place)")
    args = p.parse_args()
    print(json.dumps(migrate(args.checkpoint, args.out), indent=2))


if __name__ == "__main__":
    main()
