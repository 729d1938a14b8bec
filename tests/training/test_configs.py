"""Training configs (issue 13, point 2; issue 40, points 5 and 6): every field of every training script has its
allowed range checked up front (``rummy_env.training.config: FIELD_RANGES``), a bad value is one line naming the
field and the range with exit code 2, YAML 1.2 numbers (``1e-3``) are read as numbers, a missing or malformed config
file is one line too, and a hostile config (a YAML alias bomb, a device, a FIFO, deep nesting) is refused at once, in
little memory, through ``rummy_env.core.files``."""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest
from training_scripts import load_training_module, script_configs

pytest.importorskip("yaml")

from rummy_env.training import config as common  # noqa: E402 - the config schema the scripts share

ROOT = Path(__file__).resolve().parents[2]
TRAINING = ROOT / "training"
SCRIPTS = ("ppo", "sb3_maskable_ppo", "rllib_ppo", "tianshou_dqn")
SHIPPED = {
    "quickstart.yaml": "ppo",
    "ppo_contract.yaml": "ppo",
    "ppo_contract_gamerules.yaml": "ppo",
    "ppo_continental.yaml": "ppo",
    "sb3_contract.yaml": "sb3_maskable_ppo",
    "card_contract_r1.yaml": "ppo",
    "card_contract.yaml": "ppo",
    "scratch_continental.yaml": "ppo",
    "scratch_contract_gamerules.yaml": "ppo",
    "scratch_contract_r1.yaml": "ppo",
    "card_continental.yaml": "ppo",
    "prior_contract_gamerules.yaml": "ppo",
    "search_bc_contract_gamerules.yaml": "ppo",
    "anchored_prior_contract_gamerules.yaml": "ppo",
    "prior_continental.yaml": "ppo",
    "prior_contract.yaml": "ppo",
}


_load = load_training_module


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_field_of_every_script_has_a_range(script: str) -> None:
    cls = _load(script).Config
    missing = [f.name for f in dataclasses.fields(cls) if f.name not in common.FIELD_RANGES]
    assert not missing, f"{script}.Config fields without a range in FIELD_RANGES: {missing}"
    cfg = common.validate_config(cls())  # the defaults are allowed
    assert dataclasses.asdict(cfg) == dataclasses.asdict(cls())


def test_every_field_is_documented_in_configs_readme() -> None:
    """configs/README.md holds the table generated from FIELD_RANGES (regenerate:
    ``rummy_env.training.config.ranges_markdown(training_scripts.script_configs())``)."""
    table = common.ranges_markdown(script_configs())
    assert table in (ROOT / "configs" / "README.md").read_text()
    for name, spec in common.FIELD_RANGES.items():
        assert f"| `{name}` | {spec.describe()} |" in table


@pytest.mark.parametrize("file", sorted(SHIPPED))
def test_shipped_configs_are_valid(file: str) -> None:
    cfg = common.load_config(_load(SHIPPED[file]).Config, ["--config", str(ROOT / "configs" / file)])
    assert cfg.config_file.endswith(file)


# the list: each value used to loop forever, crash deep in the run, or be accepted
@pytest.mark.parametrize(
    "args, message",
    [
        ("--steps-per-update -1", r"steps_per_update=-1: expected an integer >= 1"),
        ("--steps-per-update 0", r"steps_per_update=0: expected an integer >= 1"),
        ("--num-minibatches 0", r"num_minibatches=0: expected an integer >= 1"),
        ("--final-eval-sessions -1", r"final_eval_sessions=-1: expected an integer >= 0"),
        ("--num-envs 0", r"num_envs=0: expected an integer in 1..4096"),
        ("--torch-threads 0", r"torch_threads=0: expected an integer in 1..256"),
        ("--total-steps -1", r"total_steps=-1: expected an integer >= 0"),
        ("--max-minutes -1", r"max_minutes=-1: expected a number >= 0"),
        ("--update-epochs -1", r"update_epochs=-1: expected an integer >= 1"),
        ("--gamma 2", r"gamma=2: expected a number in \[0, 1\]"),
        ("--num-workers -1", r"num_workers=-1: expected an integer in 0..256"),
        ("--learning-rate 0", r"learning_rate=0: expected a number in \(0, 1\]"),
        ("--learning-rate .nan", r"learning_rate=nan: expected a number in \(0, 1\]"),
        ("--trunk [0]", r"trunk\[0\]=0: expected an integer in 1..4096"),
        ("--trunk [8,8,8,8,8,8,8,8,8]", r"expected a list of at most 8 items"),
        ("--profile bogus", r"profile='bogus': expected one of 'continental', 'contract', 'contract_gamerules'"),
        ("--num-players 7", r"num_players=7: contract refuses them"),
        ("--num-workers 3 --num-envs 2", r"num_envs=2: expected an integer >= num_workers \(3\)"),
        ("--set pool_weights={random: 0}", r"pool_weights=.*expected at least one positive weight"),
        ("--set pool_weights={nobody: 1}", r"keys from current, past, heuristic, random"),
        ("--bc-decisions 10 --bc-teacher nobody", r"bc_teacher: 'nobody' cannot play contract"),
        ("--resume no/such/checkpoint", r"resume: checkpoint file .* is missing"),
        ("--anneal-lr 3", r"anneal_lr=3: expected true or false"),
        ("--resume " + str(ROOT / "checkpoints" / "continental"), r"resume: .* trained for continental with 4 players"),
        ("--set seed=-1", r"seed=-1: expected an integer in 0..4294967295"),
    ],
)
def test_ppo_ranges(args: str, message: str) -> None:
    with pytest.raises(common.ConfigError, match=message):
        common.load_config(_load("ppo").Config, args.split(" ") if "{" not in args else ["--set", args[6:]])


@pytest.mark.parametrize(
    "script, args, message",
    [
        ("sb3_maskable_ppo", "--n-steps 0", r"n_steps=0: expected an integer >= 1"),
        ("sb3_maskable_ppo", "--batch-size 1", r"batch_size=1: expected an integer >= 2"),
        ("sb3_maskable_ppo", "--learner-seat 4", r"learner_seat='4': expected 'random' or a seat number in 0..3"),
        ("sb3_maskable_ppo", "--opponents []", r"opponents=\[\]: expected a list of 1 or more bot ids"),
        ("sb3_maskable_ppo", "--opponents [nobody]", r"opponents: 'nobody' cannot play contract"),
        ("sb3_maskable_ppo", "--opponents [checkpoint:nothere]", r"opponents: 'checkpoint:nothere' cannot play"),
        ("sb3_maskable_ppo", "--learner-seat -1", r"learner_seat='-1': expected 'random' or a seat number in 0..3"),
        ("rllib_ppo", "--iterations 0", r"iterations=0: expected an integer >= 1"),
        ("rllib_ppo", "--minibatch-size 5000", r"minibatch_size=5000: expected an integer in 1..train_batch_size"),
        ("rllib_ppo", "--self-play-share 1.5", r"self_play_share=1.5: expected a number in \[0, 1\]"),
        ("rllib_ppo", "--num-cpus 0", r"num_cpus=0: expected an integer in 1..4096 or null"),
        ("tianshou_dqn", "--eps-end -0.1", r"eps_end=-0.1: expected a number in \[0, 1\]"),
        ("tianshou_dqn", "--updates-per-step 0", r"updates_per_step=0: expected a number > 0"),
        ("tianshou_dqn", "--hidden [64,abc]", r"hidden\[1\]='abc': expected an integer in 1..4096"),
    ],
)
def test_other_scripts_ranges(script: str, args: str, message: str) -> None:
    with pytest.raises(common.ConfigError, match=message):
        common.load_config(_load(script).Config, args.split(" "))


def test_yaml_reads_1e_minus_3_as_a_number(tmp_path: Path) -> None:
    """YAML 1.1 (PyYAML's) reads ``1e-3`` as a string; the config loader reads it as a number (YAML 1.2)."""
    import yaml

    assert yaml.safe_load("learning_rate: 1e-3") == {"learning_rate": "1e-3"}  # why the loader needs its resolver
    f = tmp_path / "c.yaml"
    f.write_text("learning_rate: 1e-3\ntotal_steps: 2e5\nmax_minutes: 1E1\nseed: 7\ngamma: 1.0e-1\n")
    cfg = common.load_config(_load("ppo").Config, ["--config", str(f)])
    assert (cfg.learning_rate, cfg.total_steps, cfg.max_minutes, cfg.seed, cfg.gamma) == (1e-3, 200000, 10.0, 7, 0.1)
    cfg = common.load_config(_load("ppo").Config, ["--learning-rate", "5e-4", "--save-path", "1e3"])
    assert cfg.learning_rate == 5e-4 and cfg.save_path == "1e3"
    # a string field keeps the text as typed: --learner-seat 2 was refused as "expected a string"
    assert common.load_config(_load("sb3_maskable_ppo").Config, ["--learner-seat", "2"]).learner_seat == "2"


def _ppo(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(TRAINING / "ppo.py"), *args], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )


@pytest.mark.parametrize(
    "setup, message",
    [
        ("steps", "ppo.py: error: steps_per_update=-1: expected an integer >= 1"),
        ("missing", "ppo.py: error: --config nothere.yaml: cannot read it (No such file or directory)"),
        ("malformed", "ppo.py: error: --config bad.yaml: not valid YAML (while parsing a flow sequence"),
        ("not_a_mapping", "ppo.py: error: --config list.yaml: expected a mapping of config fields, got list"),
        ("unknown_key", "ppo.py: error: --config extra.yaml: unknown keys ['1', 'bogus']"),
    ],
)
def test_command_line_errors_are_one_line_with_exit_code_2(tmp_path: Path, setup: str, message: str) -> None:
    (tmp_path / "bad.yaml").write_text("trunk: [1\nseed: 2\n")
    (tmp_path / "list.yaml").write_text("- 1\n- 2\n")
    (tmp_path / "extra.yaml").write_text("bogus: 1\n1: 2\n")
    args = {
        "steps": ["--steps-per-update", "-1"],
        "missing": ["--config", "nothere.yaml"],
        "malformed": ["--config", "bad.yaml"],
        "not_a_mapping": ["--config", "list.yaml"],
        "unknown_key": ["--config", "extra.yaml"],
    }[setup]
    out = _ppo(tmp_path, *args)
    assert out.returncode == 2, out.stderr
    assert out.stderr.count("\n") == 1 and out.stderr.startswith(message), out.stderr
    assert out.stdout == "" and not (tmp_path / "runs").exists()


# ---- hostile configs (issue 40, points 5 and 6): refused at once, in little memory, one line, exit code 2 ----------
#: 321 bytes that expand to 9**10 leaves (a "billion laughs"): the old error message built their whole repr
ALIAS_BOMB = "[" + ", ".join(
    ["&a [x,x,x,x,x,x,x,x,x]"] + [f"&{b} [" + ",".join([f"*{a}"] * 9) + "]" for a, b in zip("abcdefghi", "bcdefghij")]
) + "]"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--set", f"seed={ALIAS_BOMB}"], "a YAML alias (line 1); anchors and aliases are not allowed"),
        (["--trunk", ALIAS_BOMB], "a YAML alias"),
        (["--set", "env_config=" + "{a: " * 100 + "1" + "}" * 100], "nested more than 64 levels deep"),
        (["--set", "trunk=" + "[" * 5000 + "]" * 5000], "nested more than 64 levels deep"),
        (["--set", "pool_weights={current: " + "[" * 70 + "]" * 70 + "}"], "nested more than 64 levels deep"),
    ],
    ids=["alias-bomb-set", "alias-bomb-flag", "deep-mapping", "deep-list", "deep-value"],
)
def test_a_hostile_value_is_refused_at_once_in_little_memory(argv: list[str], message: str) -> None:
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with pytest.raises(common.ConfigError, match=re.escape(message)) as err:
            common.load_config(_load("ppo").Config, argv)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - start < 5 and peak < 20 << 20, (time.perf_counter() - start, peak)
    assert "\n" not in str(err.value) and len(str(err.value)) < 400


def test_an_alias_in_a_config_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "bomb.yaml").write_text(f"seed: {ALIAS_BOMB}\n")
    with pytest.raises(common.ConfigError, match=r"--config .*bomb.yaml: a YAML alias"):
        common.load_config(_load("ppo").Config, ["--config", str(tmp_path / "bomb.yaml")])


def test_an_oversized_config_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    with open(big, "w") as f:
        f.seek(common.CONFIG_FILE_LIMIT + 10)
        f.write("\n")
    with pytest.raises(common.ConfigError, match=r"bytes; at most 1048576 are allowed"):
        common.load_config(_load("ppo").Config, ["--config", str(big)])


@pytest.mark.parametrize("target", ["zero", "fifo", "folder", "alias"])
def test_the_command_line_refuses_a_device_a_fifo_a_folder_and_a_bomb(tmp_path: Path, target: str) -> None:
    """``--config /dev/zero`` read for ever and ``--set seed=<bomb>`` ran past 120 s at 1.6 GB; now each is one line
    with exit code 2 within seconds (a FIFO nobody writes to would block a plain open)."""
    if target == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no FIFOs here")
        os.mkfifo(tmp_path / "pipe")
    args = {
        "zero": ["--config", "/dev/zero"],
        "fifo": ["--config", str(tmp_path / "pipe")],
        "folder": ["--config", str(tmp_path)],
        "alias": ["--set", f"seed={ALIAS_BOMB}"],
    }[target]
    if target == "zero" and not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero here")
    start = time.perf_counter()
    out = _ppo(tmp_path, *args)
    assert time.perf_counter() - start < 60
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr[-500:]
    assert out.stderr.startswith("ppo.py: error: ") and len(out.stderr) < 400
    expected = "a YAML alias" if target == "alias" else "not a regular file"
    assert expected in out.stderr
