"""The ``card_action`` network (``rummy_env.models.policy.CardActionActorCritic``): its static action table and card
relations, the same distribution from its dense and legal-only logits, the checkpoint round trip, the checkpoint
bot playing legal actions, refusal of a bad architecture; and the warm start's agreement per decision kind."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("safetensors")

import rummy_env  # noqa: E402
from rummy_env.core.cards import JOKER, kind_of  # noqa: E402
from rummy_env.models import action_features as af  # noqa: E402
from rummy_env.models.checkpoints import CheckpointError, check_architecture, load_checkpoint, save_checkpoint  # noqa: E402

PROFILES = [("contract", {}), ("contract_gamerules", {}), ("continental", {"rounds": 1})]


def _net(profile: str = "contract", seed: int = 0, **env_config):
    from rummy_env.models.policy import build_policy, card_architecture

    env = rummy_env.make(profile, wrapped=False, **env_config)
    arch = card_architecture(env.observer.size, env.num_actions, env.observer, trunk=(32,), action_embed=8)
    return env, build_policy(arch, seed=seed).set_action_table(af.action_table(env.layout))


# ---- the static action table and the relations -------------------------------------------------------------------
def test_action_table_says_which_cards_each_contract_action_moves() -> None:
    env = rummy_env.make("contract", wrapped=False)
    lay, table = env.layout, af.action_table(env.layout)
    assert table.shape == (env.num_actions, af.NUM_FEATURES)
    assert (table[:, : len(af.RANGES)].sum(axis=1) == 1).all()  # every id has exactly one range
    seven_hearts = kind_of(2, 7)
    assert (
        table[lay.DISCARD + seven_hearts, af.CARDS + seven_hearts] == 1 and table[lay.DISCARD + seven_hearts].sum() == 2
    )
    assert table[lay.DRAW_DISCARD, af.TAKES_TOP] == 1 and table[lay.DRAW_STOCK, af.TAKES_TOP] == 0
    assert table[lay.BUY, af.TAKES_OFFERED] == 1 and table[lay.PASS, af.TAKES_OFFERED] == 0
    for i in (0, len(lay.groups) - 1, len(lay.groups), len(lay.groups) + len(lay.runs) - 1):
        row = table[lay.MELD + i]
        kinds = lay.meld_kinds[i]
        assert row[af.CARDS : af.CARDS + 53].sum() == len(kinds)
        assert all(row[af.CARDS + k] == kinds.count(k) for k in kinds)
        assert row[af.MELD_GROUP if i < len(lay.groups) else af.MELD_RUN] == 1
    a = lay.lay_off(seven_hearts, lay.slot(1, 2, 0), 1)  # seat 1 lays the 7 of hearts off on seat 2's first meld
    assert table[a, af.CARDS + seven_hearts] == 1 and table[a, af.OTHER_MELD] == 1 and table[a, af.HIGH_END] == 1
    assert table[lay.place(0, 0), af.CARDS + JOKER] == 1 and table[lay.place(0, 0), af.OWN_MELD] == 1


def test_continental_table_has_its_own_ranges() -> None:
    env = rummy_env.make("continental", wrapped=False)
    table = af.action_table(env.layout)
    lay = env.layout
    assert table[lay.DISCARD_DECLARE + 5, af.CARDS + 5] == 1
    assert (
        table[lay.DECLARE, af.RANGES.index("declare")] == 1 and table[lay.DECLARE, af.CARDS : af.CARDS + 53].sum() == 0
    )


def test_context_relations_of_a_hand() -> None:
    hand = np.zeros(53, dtype=np.float32)
    five_c, six_c, five_d = kind_of(0, 5), kind_of(0, 6), kind_of(1, 5)
    hand[[five_c, six_c, five_d, JOKER]] = 1
    hand[six_c] = 2
    rel = (hand @ af.context_matrix()).reshape(53, af.NUM_CONTEXT)
    four_c, seven_c, five_h = kind_of(0, 4), kind_of(0, 7), kind_of(2, 5)
    assert rel[five_c, 0] == 1 and rel[five_c, 1] == 1 and rel[five_c, 3] == 2  # itself; the 5d; 6c above it
    assert rel[four_c, 3] == 1 and rel[four_c, 5] == 2  # 5c at +1, two 6c at +2
    assert rel[seven_c, 2] == 2 and rel[seven_c, 4] == 1  # 6c at -1, 5c at -2
    assert rel[five_h, 1] == 2 and rel[five_h, 0] == 0  # 5c and 5d, none of its own
    assert (rel[:, 6] == 1).all() and rel[JOKER, 0] == 1  # one joker, seen by every kind
    ace_c, king_c = kind_of(0, 1), kind_of(0, 13)
    hand2 = np.zeros(53, dtype=np.float32)
    hand2[king_c] = 1
    rel2 = (hand2 @ af.context_matrix()).reshape(53, af.NUM_CONTEXT)
    assert rel2[ace_c, 2] == 1  # the ace neighbours the king (ace high)


# ---- the network -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("profile,cfg", PROFILES)
def test_legal_logits_give_the_dense_distribution(profile: str, cfg: dict) -> None:
    import torch

    from rummy_env.models.policy import legal_index

    env, net = _net(profile, **cfg)
    env.reset(seed=3)
    obs, masks = [], []
    for _ in range(40):
        ob = env.observe(env.agent_selection)
        obs.append(ob["observation"])
        masks.append(ob["action_mask"])
        env.step(int(np.flatnonzero(ob["action_mask"])[-1]))
    o = torch.from_numpy(np.stack(obs).astype(np.float32))
    m = torch.from_numpy(np.stack(masks).astype(np.int8))
    dense = torch.log_softmax(net.masked_logits(o, m), -1)
    index, valid = legal_index(m.numpy())
    pi, _ = net.features(o)
    legal = torch.log_softmax(net.legal_logits(pi, torch.from_numpy(index), torch.from_numpy(valid)), -1)
    want = dense.gather(1, torch.from_numpy(index)).masked_fill(~torch.from_numpy(valid), float("-inf"))
    assert torch.allclose(legal[torch.from_numpy(valid)], want[torch.from_numpy(valid)], atol=1e-5)


def test_the_discard_tops_fit_with_the_hand_moves_the_take_logit() -> None:
    """The score of draw_discard depends on how the discard top relates to the hand, through the shared scorer
    alone: the trunk is frozen at zero so that only the relations reach the logit."""
    import torch

    env, net = _net("contract", seed=2)
    with torch.no_grad():
        net.policy_head.weight.zero_()
        net.state_proj.bias.fill_(1.0)
    env.reset(seed=3)
    ob = env.observe(env.agent_selection)["observation"].astype(np.float32)
    o = env.observer.pieces.offsets
    hand = ob[o["hand"] : o["hand"] + 53]
    held = int(np.flatnonzero(hand[:52])[0])
    same_rank = next(k for k in range(52) if k % 13 == held % 13 and k != held)
    lonely = next(
        k for k in range(52) if hand[k] == 0 and (hand @ af.context_matrix()).reshape(53, -1)[k, :6].sum() == 0
    )
    logits = []
    torch.set_grad_enabled(False)
    for top in (same_rank, lonely):
        x = ob.copy()
        x[o["discard_top"] : o["discard_top"] + 53] = 0
        x[o["discard_top"] + top] = 1
        packed, _ = net.features(torch.from_numpy(x[None]))
        logits.append(float(net.legal_logits(packed, torch.tensor([[env.layout.DRAW_DISCARD]]),
                                              torch.tensor([[True]]))[0, 0]))  # fmt: skip
    torch.set_grad_enabled(True)
    assert abs(logits[0] - logits[1]) > 1e-4


def test_checkpoint_round_trip_and_bot_plays_legal_actions(tmp_path: Path) -> None:
    import torch

    from rummy_env.bots.checkpoint_bot import CheckpointBot

    env, net = _net("contract", seed=4)
    save_checkpoint(tmp_path / "card", net, {"profile": "contract", "num_players": 4, "env_config": {"rounds": [1]}})
    meta = json.loads((tmp_path / "card.json").read_text())
    assert meta["architecture"]["kind"] == "card_action"
    loaded = load_checkpoint(tmp_path / "card")
    assert type(loaded.model).__name__ == "CardActionActorCritic"
    for k, v in net.state_dict().items():
        assert torch.equal(v, loaded.model.state_dict()[k]), k
    assert loaded.model.action_table.abs().sum() > 0
    bots = [CheckpointBot(tmp_path / "card", seed=s, greedy=s % 2 == 0) for s in range(4)]
    play = rummy_env.make("contract", rounds=(1,))
    play.reset(seed=11)
    steps = 0
    for agent in play.agent_iter():
        ob, _, term, trunc, _ = play.last()
        if term or trunc:
            play.step(None)
            continue
        a = bots[play.unwrapped.agent_name_mapping[agent]].act(play, agent)
        assert ob["action_mask"][a] == 1
        play.step(a)
        steps += 1
    assert steps > 20 and play.unwrapped.session_over


@pytest.mark.parametrize(
    "change,message",
    [
        ({"kind": "card_actions"}, "architecture kind 'card_actions'; this version knows only"),
        ({"action_features": 74}, "action_features=74; this version's action table has 75 columns"),
        ({"action_embed": 0}, "action_embed=0; expected an integer in 1..4096"),
        ({"hand_offset": 10**6}, "hand_offset=1000000; expected an integer in 0.."),
        ({"offered_offset": -2}, "offered_offset=-2; expected an integer in -1.."),
        ({"top_offset": "5"}, "top_offset='5'; expected an integer"),
        ({"action_embed": None, "drop": "action_embed"}, "expected exactly"),
    ],
)
def test_bad_architecture_is_our_value_error(tmp_path: Path, change: dict, message: str) -> None:
    _, net = _net("contract")
    arch = dict(net.arch)
    drop = change.pop("drop", None)
    arch.update(change)
    if drop:
        arch.pop(drop)
    with pytest.raises(ValueError, match=message):
        check_architecture(arch)
    # in a checkpoint (JSON and the header copy edited alike): a CheckpointError naming the file, before any allocation
    save_checkpoint(tmp_path / "c", net, {"profile": "contract", "num_players": 4})
    _rewrite(tmp_path / "c", net, arch)
    with pytest.raises(CheckpointError, match=message):
        load_checkpoint(tmp_path / "c")


def _rewrite(ckpt: Path, net, arch: dict) -> None:
    from safetensors.torch import save_file

    from rummy_env.models.checkpoints import HEADER_KEYS, sha256_file

    meta = json.loads(ckpt.with_suffix(".json").read_text())
    meta["architecture"] = arch
    facts = {k: meta[k] for k in (*HEADER_KEYS, "layout_fingerprint")}
    w = ckpt.with_suffix(".safetensors")
    save_file(dict(net.state_dict()), str(w), metadata={"rummy_env_checkpoint": json.dumps(facts, sort_keys=True)})
    meta["weights_sha256"] = sha256_file(w)
    ckpt.with_suffix(".json").write_text(json.dumps(meta))


def test_a_table_of_the_wrong_shape_is_refused() -> None:
    _, net = _net("contract")
    with pytest.raises(ValueError, match="action table"):
        net.set_action_table(np.zeros((3, af.NUM_FEATURES)))


# ---- the warm start's agreement per decision kind ---------------------------------------------------------------
def _warm_start_module():
    from rummy_env.training import warm_start

    return warm_start


class _FixedPolicy:
    """A stand-in network whose greedy action is given per row."""

    def __init__(self, actions: np.ndarray):
        self.actions = actions
        self.at = 0

    def act(self, obs, mask, greedy=True):
        out = self.actions[self.at : self.at + len(obs)]
        self.at += len(obs)
        return out, None, None


def test_teacher_agreement_counts_per_kind_of_the_teachers_action() -> None:
    ws = _warm_start_module()
    lay = rummy_env.make("contract", wrapped=False).layout
    kinds = ws.action_kinds(lay)
    assert kinds[lay.BUY] == "buy" and kinds[lay.DISCARD + 3] == "discard" and len(kinds) == lay.num_actions
    teacher = np.array([lay.PASS, lay.PASS, lay.PASS, lay.BUY, lay.BUY, lay.DRAW_DISCARD, lay.DISCARD + 1])
    network = np.array([lay.PASS, lay.PASS, lay.BUY, lay.PASS, lay.PASS, lay.DRAW_DISCARD, lay.DISCARD + 2])
    obs = np.zeros((len(teacher), 3), dtype=np.float32)
    got = ws.teacher_agreement(_FixedPolicy(network), obs, obs, teacher, kinds)
    assert got == {"pass": (2, 3), "buy": (0, 2), "draw_discard": (1, 1), "discard": (0, 1)}
    tally = ws.AgreementTally()
    tally.add(got)
    tally.add({"buy": (2, 2)})
    s = tally.summary()
    assert s["buy"] == {"agreement": 0.5, "decisions": 4, "share_of_decisions": round(4 / 9, 4)}
    assert s["overall"]["agreement"] == round(5 / 9, 4) and s["overall"]["decisions"] == 9
    assert "buy 50% (44% of decisions)" in ws.format_agreement(s)


@pytest.mark.parametrize("name", ["card_contract_r1.yaml", "card_contract.yaml"])
def test_card_action_configs_are_valid(name: str) -> None:
    from training_scripts import load_training_module

    from rummy_env.training.config import load_config

    ppo = load_training_module("ppo")
    cfg = load_config(ppo.Config, ["--config", str(Path(__file__).resolve().parents[2] / "configs" / name)])
    assert cfg.network == "card_action" and cfg.pool_weights["heuristic"] > 0.5
