"""training/migrate_checkpoint.py: old (rank-only set joker) action ids onto the current table, and the shipped
contract_gamerules checkpoint loads at the current size (trained on it since 2026-12-04)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from training_scripts import load_training_module

from rummy_env.core.melds import group_spec_cards
from rummy_env.engine.contract import layout_for
from rummy_env.rules import get_rules

ROOT = Path(__file__).resolve().parents[1]
action_map = load_training_module("migrate_checkpoint").action_map


# the table sizes before the set joker named its suit (README history of contract_gamerules_v0)
@pytest.mark.parametrize("n,old_size", [(3, 1906), (4, 2398), (5, 3139)])
def test_every_new_id_takes_the_row_of_the_old_id_it_refines(n, old_size):
    rules = get_rules("contract_gamerules", num_players=n)
    lay = layout_for(rules)
    mapping, size = action_map(rules)
    assert size == old_size and len(mapping) == lay.num_actions
    assert sorted(set(mapping.tolist())) == list(range(old_size))  # every old id lives on
    # outside the set melds the ids only move; a set with jokers splits into one id per joker suit choice
    for name, rng in lay.ranges.items():
        if name == "meld":
            continue
        moved = mapping[rng.start : rng.stop] - np.arange(rng.size)
        assert len(set(moved.tolist())) == 1
    counts = np.bincount(mapping, minlength=old_size)
    for i, spec in enumerate(lay.groups):
        a = lay.MELD + i
        same = [lay.MELD + j for j, g in enumerate(lay.groups) if mapping[lay.MELD + j] == mapping[a]]
        assert all(lay.groups[j - lay.MELD][:3] == spec[:3] for j in same)
        assert counts[mapping[a]] == len(same) == (1 if not spec.jokers else len(lay.group_ids[spec[:3]]))
        assert group_spec_cards(spec).count(52) == spec.jokers


def test_shipped_checkpoint_loads_at_the_current_size():
    from rummy_env.models.checkpoints import env_facts, load_checkpoint

    ck = load_checkpoint(ROOT / "checkpoints" / "contract_gamerules", expect_profile="contract_gamerules")
    assert ck.metadata["num_actions"] == env_facts("contract_gamerules", 4)["num_actions"] == 2476
    # the checkpoint shipped since 2026-12-04 was trained on the current table (the migrated PPO network it replaced
    # recorded "migration": {"from_num_actions": 2398, ...}); either way it loads at the current size
    migration = ck.metadata.get("migration")
    assert migration is None or migration["from_num_actions"] == 2398
