"""Checkpoints: round trip (same actions), and refusal of every mismatched, tampered or unsafe file, with a message
that says what is wrong. Nothing is ever unpickled: a malicious pickle fixture must not run."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("safetensors")

import rummy_env  # noqa: E402
from rummy_env.models.checkpoints import (  # noqa: E402
    CheckpointError,
    load_checkpoint,
    read_metadata,
    save_checkpoint,
    sha256_file,
)

FINGERPRINT = "layout_fingerprint"
ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
MARKER = "PWNED_BY_PICKLE"


def _net(profile: str = "contract", seed: int = 0, trunk=(32,), **env_config):
    from rummy_env.models.policy import architecture, build_policy

    env = rummy_env.make(profile, wrapped=False, **env_config)
    return build_policy(architecture(env.observer.size, env.num_actions, trunk=trunk), seed=seed)


@pytest.fixture
def ckpt(tmp_path: Path) -> Path:
    save_checkpoint(
        tmp_path / "pol",
        _net(),
        {
            "profile": "contract",
            "num_players": 4,
            "training_steps": 123,
            "config": {"seed": 0},
            "evaluation": {"random": {"policy": 1.0}},
            "env_config": {"rounds": [1]},
        },
    )
    return tmp_path / "pol"


def _play(bots, seed: int = 5, rounds=(1,)) -> list[int]:
    env = rummy_env.make("contract", rounds=rounds)
    env.reset(seed=seed)
    actions = []
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        a = bots[env.unwrapped.agent_name_mapping[agent]].act(env, agent)
        actions.append(a)
        env.step(a)
    return actions


# ---- round trip ----------------------------------------------------------------------------------------------------
def test_metadata_holds_what_the_issue_lists(ckpt: Path) -> None:
    meta = read_metadata(ckpt)
    assert meta["profile"] == "contract" and meta["env_version"] == "contract_v0" and meta["num_players"] == 4
    assert meta["observation_size"] == 1790 and meta["num_actions"] == 3089
    assert meta["architecture"]["trunk"] == [32] and meta["training_steps"] == 123
    assert meta["config"] == {"seed": 0} and meta["evaluation"]["random"]["policy"] == 1.0
    assert meta["weights_sha256"] == sha256_file(ckpt.with_suffix(".safetensors"))


@pytest.mark.parametrize("greedy", [True, False])
def test_round_trip_plays_identical_actions(ckpt: Path, greedy: bool) -> None:
    from rummy_env.bots.checkpoint_bot import CheckpointBot, PolicyBot

    net = _net()
    loaded = load_checkpoint(str(ckpt) + ".json", expect_profile="contract", expect_num_players=4)
    for a, b in zip(net.state_dict().values(), loaded.model.state_dict().values()):
        assert (a == b).all()
    orig = _play([PolicyBot(net, seed=s, greedy=greedy) for s in range(4)])
    back = _play([CheckpointBot(ckpt, seed=s, greedy=greedy) for s in range(4)])
    assert orig == back and len(orig) > 50
    again = _play([CheckpointBot(ckpt.with_suffix(".safetensors"), seed=s, greedy=greedy) for s in range(4)])
    assert again == orig  # deterministic for a seed


def test_checkpoint_factory_ids(ckpt: Path) -> None:
    from rummy_env.bots.checkpoint_bot import checkpoint_factory

    assert checkpoint_factory(str(ckpt), 0).greedy
    assert not checkpoint_factory(f"{ckpt}@sample", 0).greedy
    with pytest.raises(ValueError, match="needs a path"):
        checkpoint_factory(None, 0)


def test_bot_refuses_another_env(ckpt: Path) -> None:
    from rummy_env.bots.checkpoint_bot import CheckpointBot

    env = rummy_env.make("continental", num_players=4)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="trained for profile 'contract'"):
        CheckpointBot(ckpt).act(env, env.agent_selection)


def test_import_rummy_env_stays_light() -> None:
    code = (
        "import sys, rummy_env; rummy_env.make('contract'); import rummy_env.checkpoints, rummy_env.wrappers, "
        "rummy_env.bots.checkpoint_bot; print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False", out.stderr


# ---- refusals -------------------------------------------------------------------------------------------------
def _edit_json(ckpt: Path, **changes) -> None:
    p = ckpt.with_suffix(".json")
    meta = json.loads(p.read_text())
    meta.update(changes)
    p.write_text(json.dumps(meta))


def _resave_weights(ckpt: Path, net, header_changes: dict) -> None:
    """Rewrite the weights (with a changed header copy) and the JSON hash, as a careful forger would."""
    from safetensors.torch import save_file

    meta = json.loads(ckpt.with_suffix(".json").read_text())
    keys = ("profile", "env_version", "num_players", "observation_size", "num_actions", "architecture", FINGERPRINT)
    facts = {k: meta[k] for k in keys if k in meta}
    facts.update(header_changes)
    w = ckpt.with_suffix(".safetensors")
    save_file(dict(net.state_dict()), str(w), metadata={"rummy_env_checkpoint": json.dumps(facts)})
    _edit_json(ckpt, weights_sha256=sha256_file(w), **header_changes)


def test_refuses_wrong_profile_and_player_count(ckpt: Path) -> None:
    with pytest.raises(CheckpointError, match="trained for profile 'contract'; expected profile 'continental'"):
        load_checkpoint(ckpt, expect_profile="continental")
    with pytest.raises(CheckpointError, match="trained for 4 players; expected 5 players"):
        load_checkpoint(ckpt, expect_num_players=5)


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"profile": "continental"}, "profile='continental' but the weights were saved with profile='contract'"),
        ({"observation_size": 999}, "observation_size=999 but the weights were saved with observation_size=1790"),
        ({"num_players": 5}, "num_players=5 but the weights were saved"),
        ({"weights_sha256": "0" * 64}, "differs from '0000"),
        ({"format_version": 99}, "expected 'rummy_env.checkpoint' version 1"),
    ],
)
def test_refuses_edited_json(ckpt: Path, changes: dict, message: str) -> None:
    _edit_json(ckpt, **changes)
    with pytest.raises(CheckpointError, match=message):
        load_checkpoint(ckpt)


def test_refuses_edited_weights(ckpt: Path) -> None:
    w = ckpt.with_suffix(".safetensors")
    data = bytearray(w.read_bytes())
    data[-5] ^= 0xFF
    w.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="sha256 .* differs .* the weights were modified"):
        load_checkpoint(ckpt)


def test_refuses_malformed_json_and_missing_files(ckpt: Path, tmp_path: Path) -> None:
    ckpt.with_suffix(".json").write_text("{not json")
    with pytest.raises(CheckpointError, match="not valid JSON"):
        load_checkpoint(ckpt)
    with pytest.raises(CheckpointError, match="missing"):
        load_checkpoint(tmp_path / "nothing")


def test_refuses_env_version_this_package_lacks(ckpt: Path) -> None:
    _resave_weights(ckpt, _net(), {"env_version": "contract_v9"})
    with pytest.raises(
        CheckpointError, match="env_version='contract_v9', but this rummy_env's contract env .*'contract_v0'"
    ):
        load_checkpoint(ckpt)


def test_refuses_tensors_that_do_not_fit_the_architecture(ckpt: Path) -> None:
    _resave_weights(ckpt, _net(trunk=(48,)), {})  # header and JSON still claim trunk [32]
    with pytest.raises(CheckpointError, match=r"tensor trunk.0.weight is F32 \(48, 1790\); expected F32 \(32, 1790\)"):
        load_checkpoint(ckpt)


def test_refuses_sizes_of_another_env(ckpt: Path) -> None:
    net = _net("continental", num_players=4)
    size = net.arch["obs_size"]
    _resave_weights(ckpt, net, {"observation_size": size, "num_actions": 57, "architecture": net.arch})
    with pytest.raises(CheckpointError, match=f"observation_size={size}, but this rummy_env's contract env .*=1790"):
        load_checkpoint(ckpt)


def test_refuses_unknown_architecture(ckpt: Path) -> None:
    arch = dict(_net().arch, kind="transformer")
    _resave_weights(ckpt, _net(), {"architecture": arch})
    with pytest.raises(CheckpointError, match="architecture kind 'transformer'; this version knows only 'card_action', 'card_prior', 'card_prior_measures', 'masked_mlp'"):
        load_checkpoint(ckpt)


# ---- pickles are never opened ------------------------------------------------------------------------------------
def test_fixture_really_is_malicious(tmp_path: Path) -> None:
    """Control: unpickling the fixture (in a subprocess, in a temporary folder) does create the marker file."""
    shutil.copy(FIXTURES / "malicious_checkpoint.pt", tmp_path / "m.pt")
    subprocess.run([sys.executable, "-c", "import pickle; pickle.load(open('m.pt', 'rb'))"], cwd=tmp_path, timeout=60)
    assert (tmp_path / MARKER).exists()


def test_refuses_pickle_files_without_unpickling(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rummy_env.bots.checkpoint_bot import CheckpointBot

    monkeypatch.chdir(tmp_path)
    shutil.copy(FIXTURES / "malicious_checkpoint.pt", tmp_path / "evil.pt")
    with pytest.raises(CheckpointError, match=r"refusing .*evil.pt.*pickles"):
        load_checkpoint(tmp_path / "evil.pt")
    with pytest.raises(CheckpointError, match="refusing"):
        CheckpointBot(tmp_path / "evil.pt")
    # the same bytes named like a checkpoint, with plausible JSON: refused by content
    shutil.copy(FIXTURES / "malicious_checkpoint.safetensors", tmp_path / "disguised.safetensors")
    (tmp_path / "disguised.json").write_text(json.dumps({"format": "rummy_env.checkpoint"}))
    with pytest.raises(CheckpointError, match="is a pickle or zip archive .* nothing was unpickled"):
        load_checkpoint(tmp_path / "disguised")
    # a torch.save file (zip archive around a pickle)
    import torch

    torch.save({"w": torch.zeros(2)}, tmp_path / "zipped.safetensors")
    (tmp_path / "zipped.json").write_text("{}")
    with pytest.raises(CheckpointError, match="pickle or zip archive"):
        load_checkpoint(tmp_path / "zipped")
    assert not (tmp_path / MARKER).exists()
    assert not (Path.cwd() / MARKER).exists()


def test_save_refuses_a_network_for_another_env(tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match=r"the network takes observations of \d+ and 109 actions, but contract_v0"):
        save_checkpoint(tmp_path / "x", _net("continental", num_players=4), {"profile": "contract", "num_players": 4})


def test_act_masks_illegal_actions() -> None:
    import torch

    net = _net()
    obs = np.random.default_rng(0).random((6, 1790)).astype(np.float32)
    mask = np.zeros((6, 3089), dtype=np.int8)
    for i, legal in enumerate([[0], [0, 1], [5, 3000], [3088], [2, 3, 4], list(range(0, 3089, 7))]):
        mask[i, legal] = 1
    for greedy in (True, False):
        a, logp, _ = net.act(obs, mask, greedy=greedy, rng=np.random.default_rng(1))
        assert mask[np.arange(6), a].all() and (logp <= 0).all()
    probs = torch.softmax(net.masked_logits(torch.as_tensor(obs), torch.as_tensor(mask)), -1).detach().numpy()
    assert (probs[mask == 0] == 0).all()
    np.testing.assert_allclose(probs.sum(1), 1, rtol=1e-5)


def test_a_renamed_copy_loads(ckpt: Path, tmp_path: Path) -> None:
    for suffix in (".safetensors", ".json"):
        shutil.copy(ckpt.with_suffix(suffix), tmp_path / f"renamed{suffix}")
    assert load_checkpoint(tmp_path / "renamed").metadata["weights_file"] == "pol.safetensors"


# ---- untrusted files: sizes checked before anything is allocated, every failure a CheckpointError (issue 13) ------
def test_shipped_checkpoints_load_and_play() -> None:
    from rummy_env.bots.checkpoint_bot import CheckpointBot

    for name in ("contract", "contract_gamerules", "continental"):
        ckpt = load_checkpoint(Path(__file__).resolve().parents[2] / "checkpoints" / name)
        # trained: PPO steps, or (contract: the warm start alone) imitated decisions
        trained = ckpt.metadata["training_steps"] + ckpt.metadata.get("warm_start", {}).get("decisions", 0)
        assert ckpt.profile == name and trained > 0
        env = rummy_env.make(name, **ckpt.metadata.get("env_config", {}))
        env.reset(seed=0)
        agent = env.agent_selection
        assert env.observe(agent)["action_mask"][CheckpointBot(ckpt.path).act(env, agent)] == 1


def _write_safetensors(path: Path, tensors: dict, data: bytes, facts: dict | None) -> None:
    """A safetensors file written by hand: ``tensors`` maps names to (dtype, shape, [begin, end])."""
    header: dict = {k: {"dtype": d, "shape": list(s), "data_offsets": list(o)} for k, (d, s, o) in tensors.items()}
    if facts is not None:
        header["__metadata__"] = {"rummy_env_checkpoint": json.dumps(facts, sort_keys=True)}
    raw = json.dumps(header).encode()
    path.write_bytes(len(raw).to_bytes(8, "little") + raw + data)


def _forge(ckpt: Path, arch: dict, tensors: dict, data: bytes) -> None:
    """Rewrite the weights with a hand-made header for ``arch``, and the JSON's architecture and hash to match it:
    what a careful forger does (the hash and the header copy agree with the file)."""
    meta = json.loads(ckpt.with_suffix(".json").read_text())
    meta["architecture"] = arch
    keys = ("profile", "env_version", "num_players", "observation_size", "num_actions", FINGERPRINT)
    facts = {k: meta[k] for k in keys if k in meta}
    facts["architecture"] = arch
    w = ckpt.with_suffix(".safetensors")
    _write_safetensors(w, tensors, data, facts)
    meta["weights_sha256"] = sha256_file(w)
    ckpt.with_suffix(".json").write_text(json.dumps(meta))


def _big_arch() -> dict:
    from rummy_env.models.policy import tensor_shapes

    arch = dict(_net().arch, trunk=[4096, 4096])
    assert sum(int(np.prod(s)) for s in tensor_shapes(arch).values()) > 30_000_000  # ~147 MB of float32 if it were built
    return arch


def _all_at_same_four_bytes(arch: dict) -> dict:
    from rummy_env.models.policy import tensor_shapes

    return {name: ("F32", shape, (0, 4)) for name, shape in tensor_shapes(arch).items()}


def test_crafted_header_pointing_every_tensor_at_four_bytes_is_refused_before_allocating(
    ckpt: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 13: a ~1 KB file whose header declares a large architecture (names and shapes consistent) but points
    every tensor at the same 4 bytes, hash and header facts rewritten: refused from the header alone."""
    import time
    import tracemalloc

    import rummy_env.models.policy

    arch = _big_arch()
    _forge(ckpt, arch, _all_at_same_four_bytes(arch), b"\0\0\0\0")
    assert ckpt.with_suffix(".safetensors").stat().st_size < 2500

    def built(*args, **kwargs):
        raise AssertionError("the network was built for a file that cannot hold its weights")

    monkeypatch.setattr(rummy_env.models.policy, "build_policy", built)
    tracemalloc.start()
    t = time.perf_counter()
    with pytest.raises(CheckpointError, match=r"is F32 \(\d+, \d+\) \(\d+ bytes\) but its data_offsets \[0, 4\] span 4 bytes"):
        load_checkpoint(ckpt)
    elapsed = time.perf_counter() - t
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert elapsed < 2.0 and peak < 5 << 20, (elapsed, peak)


def test_crafted_header_costs_no_memory_in_a_fresh_process(ckpt: Path) -> None:
    """The same forged file in a fresh process: the peak resident memory does not grow while it is refused."""
    arch = _big_arch()
    _forge(ckpt, arch, _all_at_same_four_bytes(arch), b"\0\0\0\0")
    code = (
        "import resource, sys, time, rummy_env.models.policy\n"
        "from rummy_env.checkpoints import CheckpointError, load_checkpoint\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "t = time.perf_counter()\n"
        "try:\n    load_checkpoint(sys.argv[1])\nexcept CheckpointError as e:\n    print('refused', e)\n"
        "print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024, time.perf_counter() - t)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(ckpt)], capture_output=True, text=True, timeout=120)
    assert out.stdout.startswith("refused"), out.stdout + out.stderr
    grown_mb, seconds = out.stdout.split()[-2:]
    assert int(grown_mb) < 32 and float(seconds) < 2.0, out.stdout


def test_refuses_an_architecture_over_the_size_limits(ckpt: Path) -> None:
    """The issue's 16 layers of 65,536 (hundreds of GiB) and a layer set over the parameter bound: refused from the
    metadata, whatever the file holds."""
    for arch, message in [
        (dict(_net().arch, trunk=[65536] * 16), r"trunk=\[65536, .*at most 8 sizes in 1..4096"),
        (dict(_net().arch, trunk=[4096] * 4), r"has [0-9,]+ parameters; at most 50,000,000 are allowed"),
    ]:
        _forge(ckpt, arch, {}, b"")
        with pytest.raises(CheckpointError, match=message):
            load_checkpoint(ckpt)


def _layout_of(w: Path) -> tuple[dict, bytes]:
    raw = w.read_bytes()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8 : 8 + n])
    facts = json.loads(header.pop("__metadata__")["rummy_env_checkpoint"])
    tensors = {k: (v["dtype"], v["shape"], v["data_offsets"]) for k, v in header.items()}
    return {"tensors": tensors, "facts": facts}, raw[8 + n :]


@pytest.mark.parametrize(
    "damage, message",
    [
        ("truncate", r"end at \d+ bytes but the file holds \d+ bytes of data \(truncated or padded\)"),
        ("overlap", r"starts at data offset \d+: it overlaps the previous tensor"),
        ("past_end", r"span \d+ bytes"),
        ("dtype", r"has dtype 'F99'"),
        ("offsets", r"has data_offsets \[-4, 0\]"),
    ],
)
def test_refuses_bad_offsets_and_truncated_weights(ckpt: Path, damage: str, message: str) -> None:
    """Truncated weights and bad offsets (hash rewritten to match): a CheckpointError, not a SafetensorError."""
    w = ckpt.with_suffix(".safetensors")
    layout, data = _layout_of(w)
    tensors = layout["tensors"]
    first = min(tensors, key=lambda k: tensors[k][2][0])
    second = sorted(tensors, key=lambda k: tensors[k][2][0])[1]
    if damage == "truncate":
        data = data[:-100]
    elif damage == "overlap":
        d, s, (b, e) = tensors[second]
        tensors[second] = (d, s, (b - 4, e - 4))
    elif damage == "past_end":
        d, s, (b, e) = tensors[first]
        tensors[first] = (d, s, (b, e + 10**9))
    elif damage == "dtype":
        tensors[first] = ("F99", *tensors[first][1:])
    else:
        tensors[first] = (tensors[first][0], tensors[first][1], (-4, 0))
    _write_safetensors(w, tensors, data, layout["facts"])
    _edit_json(ckpt, weights_sha256=sha256_file(w))
    with pytest.raises(CheckpointError, match=message):
        load_checkpoint(ckpt)


def test_every_malformed_metadata_is_a_checkpoint_error(ckpt: Path) -> None:
    p = ckpt.with_suffix(".json")
    good = p.read_text()
    meta = json.loads(good)
    cases = [
        (good.replace('"training_steps": 123', '"training_steps": 1' + "0" * 5000), "an integer of 5001 digits"),
        (good.replace('"config": {', '"config": ' + "[" * 100_000 + "]" * 100_000 + ', "x": {'), "nested too deep"),
        (json.dumps(dict(meta, env_config="str")), r"env_config='str'; expected an object"),
        (json.dumps(dict(meta, env_config={"rounds": "x"})), "does not make an env"),
        (json.dumps(dict(meta, env_config={"no_such_argument": 1})), "does not make an env"),
        (json.dumps(dict(meta, training_steps=-1)), "training_steps=-1; expected a non-negative integer"),
        (json.dumps(dict(meta, config=[])), r"config=\[\]; expected an object"),
        (json.dumps(dict(meta, format_version=True)), "version True; expected 'rummy_env.checkpoint' version 1"),
        (good.replace('"profile": "contract",', '"profile": "contract", "profile": "contract",', 1), "appears twice"),
        ("x" * (2 << 20), "metadata; at most 1048576 are allowed"),
    ]
    for text, message in cases:
        p.write_text(text)
        with pytest.raises(CheckpointError, match=message):
            load_checkpoint(ckpt)
    p.write_text(good)
    assert load_checkpoint(ckpt).metadata["training_steps"] == 123


@pytest.mark.parametrize("path", ["", ".", 5])
def test_refuses_a_path_that_names_no_file(path) -> None:
    with pytest.raises(CheckpointError, match="names no file|must be a string or path"):
        load_checkpoint(path)


def test_refuses_a_train_state_that_does_not_tile_its_file(tmp_path: Path) -> None:
    import torch

    from rummy_env.models.checkpoints import load_train_state

    save_checkpoint(tmp_path / "t", _net(), {"profile": "contract", "num_players": 4}, {"s": torch.zeros(8)})
    meta = read_metadata(tmp_path / "t")
    assert load_train_state(tmp_path / "t", meta)["s"].shape == (8,)
    train = tmp_path / meta["train_state_file"]
    train.write_bytes(train.read_bytes()[:-4])
    meta["train_state_sha256"] = sha256_file(train)
    with pytest.raises(CheckpointError, match="truncated or padded"):
        load_train_state(tmp_path / "t", meta)


# ---- layout fingerprint (issue 14 point 6) --------------------------------------------------------------------------
def _fingerprint(profile: str = "contract", **env_config) -> str:
    return rummy_env.make(profile, wrapped=False, **env_config).layout_fingerprint


def test_metadata_and_header_record_the_layout_fingerprint(ckpt: Path) -> None:
    meta = read_metadata(ckpt)
    want = _fingerprint("contract", rounds=(1,))
    assert meta[FINGERPRINT] == want and len(want) == 64 and int(want, 16) >= 0
    header = json.loads(
        __import__("safetensors").safe_open(str(ckpt.with_suffix(".safetensors")), "np").metadata()[
            "rummy_env_checkpoint"
        ]
    )
    assert header[FINGERPRINT] == want


def test_refuses_a_checkpoint_whose_layout_fingerprint_differs(ckpt: Path) -> None:
    # a careful forger (or an older table of the same size): JSON, header copy and hash all agree with each other
    other = "ab" * 32
    _resave_weights(ckpt, _net(), {FINGERPRINT: other})
    assert read_metadata(ckpt)[FINGERPRINT] == other  # consistent files: only the env comparison can catch it
    with pytest.raises(CheckpointError) as e:
        load_checkpoint(ckpt)
    msg = str(e.value)
    assert other in msg and _fingerprint("contract", rounds=(1,)) in msg
    assert "the action table or the observation changed" in msg


def test_refuses_a_reordered_action_table_of_the_same_size(ckpt: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rummy_env.engine import actions

    assert load_checkpoint(ckpt).metadata[FINGERPRINT]
    real_init = actions.ActionLayout.__init__

    def swapped(self, *args, **kwargs):  # two set catalog entries exchange their ids: same sizes, other meanings
        real_init(self, *args, **kwargs)
        self.groups[0], self.groups[1] = self.groups[1], self.groups[0]
        self.meld_kinds[0], self.meld_kinds[1] = self.meld_kinds[1], self.meld_kinds[0]

    monkeypatch.setattr(actions.ActionLayout, "__init__", swapped)
    monkeypatch.setattr("rummy_env.engine.contract._LAYOUTS", {})  # the layout cache holds the real table
    with pytest.raises(CheckpointError, match="the action table or the observation changed"):
        load_checkpoint(ckpt)


def test_edited_or_removed_fingerprint_in_the_json_is_refused(ckpt: Path) -> None:
    p = ckpt.with_suffix(".json")
    good = json.loads(p.read_text())
    for bad, message in [
        ("AB" * 32, "64 lower-case hex digits"),
        ("ab" * 31, "64 lower-case hex digits"),
        (7, "64 lower-case hex digits"),
        (None, "64 lower-case hex digits"),
        ("ab" * 32, "but the weights were saved with layout_fingerprint='"),
    ]:
        p.write_text(json.dumps(dict(good, **{FINGERPRINT: bad})))
        with pytest.raises(CheckpointError, match=message):
            load_checkpoint(ckpt)
    removed = {k: v for k, v in good.items() if k != FINGERPRINT}  # the header copy still has it
    p.write_text(json.dumps(removed))
    with pytest.raises(CheckpointError, match="layout_fingerprint=None but the weights were saved with"):
        load_checkpoint(ckpt)


def _layout_lines(profile: str = "contract", **env_config) -> list[str]:
    from rummy_env.encoding.fingerprint import layout_lines

    env = rummy_env.make(profile, wrapped=False, **env_config)
    return layout_lines(env.layout, env.observer)


def test_fingerprint_changes_when_one_action_id_changes_meaning_at_the_same_size() -> None:
    from rummy_env.encoding.fingerprint import layout_fingerprint

    env = rummy_env.make("contract", wrapped=False)
    lay, obs = env.layout, env.observer
    base = layout_fingerprint(lay, obs)
    assert base == env.layout_fingerprint
    saved = list(lay.groups), list(lay.meld_kinds), list(lay.runs)
    try:
        lay.groups[3], lay.groups[4] = lay.groups[4], lay.groups[3]  # two set entries swap ids
        lay.meld_kinds[3], lay.meld_kinds[4] = lay.meld_kinds[4], lay.meld_kinds[3]
        assert lay.num_actions == env.num_actions and layout_fingerprint(lay, obs) != base
        lay.groups[:], lay.meld_kinds[:] = saved[0], saved[1]
        assert layout_fingerprint(lay, obs) == base
        lay.runs[0], lay.runs[-1] = lay.runs[-1], lay.runs[0]  # one run entry moves
        assert layout_fingerprint(lay, obs) != base
    finally:
        lay.groups[:], lay.meld_kinds[:], lay.runs[:] = saved
    # the lay-off ids encoded slot-major instead of kind-major: same range, same size, other meanings
    real = lay.decode_lay_off

    def slot_major(action: int) -> tuple[int, int, int]:
        x, end = divmod(action - lay.LAY_OFF, 2)
        slot, kind = divmod(x, 53)
        return kind, slot, end

    lay.decode_lay_off = slot_major
    try:
        assert layout_fingerprint(lay, obs) != base
    finally:
        lay.decode_lay_off = real
    assert layout_fingerprint(lay, obs) == base


def test_fingerprint_changes_when_an_observation_piece_changes() -> None:
    from rummy_env.encoding.fingerprint import layout_fingerprint
    from rummy_env.encoding.observation import Pieces

    env = rummy_env.make("continental", wrapped=False)
    lay, obs = env.layout, env.observer
    base = layout_fingerprint(lay, obs)
    rows = [(n, s, obs.pieces.docs[n]) for n, s in obs.pieces.shapes.items()]
    highs = {n: h for n, h in obs.pieces.highs.items()}

    class Obs:
        def __init__(self, pieces: Pieces):
            self.pieces, self.size, self.low, self.high = pieces, pieces.size, pieces.low(), pieces.high()

    assert layout_fingerprint(lay, Obs(Pieces(rows, highs))) == base  # rebuilt as is: same value
    # one piece reshaped with the same number of entries ("balances" (4, 2) read as (2, 4)): same size
    i = next(i for i, r in enumerate(rows) if r[0] == "balances")
    reshaped = rows[:i] + [("balances", (2, 4), rows[i][2])] + rows[i + 1 :]
    other = Obs(Pieces(reshaped, dict(highs, balances=float(highs["balances"].max()))))
    assert other.size == obs.size and layout_fingerprint(lay, other) != base
    # two pieces of one shape exchange places
    j = next(i for i, r in enumerate(rows) if r[0] == "discard_counts")
    swapped = list(rows)
    swapped[0], swapped[j] = swapped[j], swapped[0]
    assert layout_fingerprint(lay, Obs(Pieces(swapped, highs))) != base
    # one bound changes
    assert layout_fingerprint(lay, Obs(Pieces(rows, dict(highs, turn=2.0)))) != base
    # a description is reworded: nothing changes
    reworded = [(n, s, d + " (reworded)") for n, s, d in rows]
    assert layout_fingerprint(lay, Obs(Pieces(reworded, highs))) == base


def test_fingerprint_covers_every_id_and_differs_between_profiles_and_tables() -> None:
    lines = _layout_lines("contract")
    ids = [ln for ln in lines if ln.startswith("id ")]
    assert len(ids) == rummy_env.make("contract", wrapped=False).num_actions == 3089
    assert "id 4 meld GroupSpec=[1,[0,0,1],0,[]] kinds=[0,0,13]" in ids
    assert any(ln.startswith("id 1067 lay_off kind=0 seat_offset=0 meld=0 end=0") for ln in ids)
    values = {
        _fingerprint("contract"),
        _fingerprint("contract_gamerules"),
        _fingerprint("contract_gamerules", num_players=5),
        _fingerprint("continental"),
        _fingerprint("continental", num_players=5),
        _fingerprint("continental", deals=2),
    }
    assert len(values) == 6
    assert _fingerprint("contract", rounds=(1,)) == _fingerprint("contract")  # rounds do not change the table


def test_fingerprint_is_the_same_in_another_process() -> None:
    code = (
        "import rummy_env\n"
        "for p in ('contract', 'contract_gamerules', 'continental'):\n"
        "    print(rummy_env.make(p, wrapped=False).layout_fingerprint)\n"
    )
    for seed in ("0", "12345"):  # another hash() randomisation
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
            env={**__import__("os").environ, "PYTHONHASHSEED": seed},
        )  # fmt: skip
        assert out.stdout.split() == [_fingerprint(p) for p in ("contract", "contract_gamerules", "continental")]


def test_shipped_checkpoints_carry_the_fingerprint_and_load_without_warning() -> None:
    import warnings

    from rummy_env.models.checkpoints import CheckpointFormatWarning

    manifest = json.loads((ROOT / "checkpoints" / "manifest.json").read_text())["checkpoints"]
    for name in ("contract", "contract_gamerules", "continental"):
        base = ROOT / "checkpoints" / name
        with warnings.catch_warnings():
            warnings.simplefilter("error", CheckpointFormatWarning)
            ckpt = load_checkpoint(base)
        fp = ckpt.metadata[FINGERPRINT]
        assert fp == _fingerprint(name, **ckpt.metadata.get("env_config", {}))
        assert manifest[name][FINGERPRINT] == fp
        assert manifest[name]["weights_sha256"] == ckpt.metadata["weights_sha256"] == sha256_file(
            base.with_suffix(".safetensors")
        )


def _old_format(ckpt: Path) -> None:
    """Rewrite ``ckpt`` as a checkpoint of the format before the fingerprint (neither JSON nor header has it)."""
    p = ckpt.with_suffix(".json")
    meta = json.loads(p.read_text())
    del meta[FINGERPRINT]
    p.write_text(json.dumps(meta))
    _resave_weights(ckpt, load_checkpoint(ckpt.parent / "copy").model, {})


def test_an_old_format_checkpoint_loads_with_one_warning_and_can_be_reexported(ckpt: Path, tmp_path: Path) -> None:
    from safetensors import safe_open

    from rummy_env.models.checkpoints import CheckpointFormatWarning, reexport_checkpoint

    for suffix in (".safetensors", ".json"):
        shutil.copy(ckpt.with_suffix(suffix), tmp_path / f"copy{suffix}")
    _old_format(ckpt)
    assert FINGERPRINT not in read_metadata(ckpt)
    with pytest.warns(CheckpointFormatWarning) as record:
        old = load_checkpoint(ckpt)
        load_checkpoint(ckpt)  # the same file again: no second warning
    assert len(record) == 1, [(w.category.__name__, str(w.message)[:200]) for w in record]
    msg = str(record[0].message)
    assert str(ckpt.with_suffix(".json")) in msg and "without layout_fingerprint" in msg and "reexport_checkpoint" in msg
    reexport_checkpoint(ckpt, tmp_path / "new")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", CheckpointFormatWarning)
        new = load_checkpoint(tmp_path / "new")
    assert new.metadata[FINGERPRINT] == _fingerprint("contract", rounds=(1,))
    for key in ("training_steps", "config", "evaluation", "env_config", "created"):
        assert new.metadata[key] == old.metadata[key]
    with safe_open(str(ckpt.with_suffix(".safetensors")), "pt") as a, safe_open(
        str(tmp_path / "new.safetensors"), "pt"
    ) as b:
        assert set(a.keys()) == set(b.keys()) and all(a.get_tensor(k).equal(b.get_tensor(k)) for k in a.keys())


def test_reexport_refuses_a_changed_layout_unless_told(ckpt: Path, tmp_path: Path) -> None:
    from rummy_env.models.checkpoints import reexport_checkpoint

    _resave_weights(ckpt, _net(), {FINGERPRINT: "cd" * 32})
    with pytest.raises(CheckpointError, match="the action table or the observation changed"):
        reexport_checkpoint(ckpt, tmp_path / "r")
    assert not (tmp_path / "r.json").exists()
    reexport_checkpoint(ckpt, tmp_path / "r", layout_changed=True)
    assert load_checkpoint(tmp_path / "r").metadata[FINGERPRINT] == _fingerprint("contract", rounds=(1,))
