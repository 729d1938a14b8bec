"""Golden playthroughs: each recorded seeded session under tests/playthroughs/ replays decision by decision.

A refactor that changes no behaviour keeps every observation piece, legal action (id and description), chosen
action and its ``action_info``, reward and termination of these sessions. An intended change is re-recorded with
``python tests/playthroughs/record.py`` (see tests/playthroughs/README.md) and the diff reviewed.
"""

from __future__ import annotations

import gzip
import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rummy_env import bots

HERE = Path(__file__).resolve().parents[1]  # tests/
_spec = importlib.util.spec_from_file_location("playthrough_record", HERE / "playthroughs" / "record.py")
record = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = record
_spec.loader.exec_module(record)

NAMES = [c.name for c in record.CONFIGS]
SMALL = "continental-4p"  # the cheapest session, for the tests of the test
# the classes patched by the tests of the test, found through the public API (robust to modules moving)
RawEnv = type(record.config(SMALL).make_env().unwrapped)
HeuristicBot = type(bots.load(record.BOT))


@pytest.mark.parametrize("name", NAMES)
def test_playthrough_replays_identically(name):
    cfg = record.config(name)
    problem = record.compare(cfg)
    assert problem is None, problem


@pytest.mark.parametrize("name", NAMES)
def test_recording_is_canonical(name):
    """The file is what the documented command writes: canonical JSON lines, gzip mtime 0, below 1.5 MB."""
    path = record.config(name).path
    data = path.read_bytes()
    assert len(data) < 1_500_000
    assert data[4:8] == b"\0\0\0\0"  # gzip MTIME field
    records = record.load(path)
    assert record.dumps(records) == data
    header, decisions, end = records[0], records[1:-1], records[-1]
    assert header["type"] == "header" and header["format"] == record.FORMAT and end["type"] == "end"
    assert [d["step"] for d in decisions] == list(range(len(decisions))) == list(range(end["decisions"]))
    for d in decisions:  # the chosen action is one of the recorded legal ones
        assert d["action"] in {a for a, _ in d["legal"]}


def test_configurations_cover_every_profile_and_player_count():
    assert set(NAMES) == {
        "contract-4p",
        "contract_gamerules-3p",
        "contract_gamerules-4p",
        "contract_gamerules-5p",
        "continental-4p",
        "continental-5p",
    }
    kinds = set()
    for name in ("contract-4p", "contract_gamerules-4p", "continental-4p"):
        kinds |= {d["action_info"]["kind"] for d in record.load(record.config(name).path)[1:-1]}
    # the sessions exercise openings, buys, lay-offs, joker swaps, pickups, going out and declaring discards
    assert {"meld", "buy", "pass", "lay_off", "swap_joker", "place_joker", "pickup", "go_out", "discard_declare"} <= kinds


# --- the test can fail ---------------------------------------------------------------------------------------


def test_detects_a_changed_description(monkeypatch):
    original = RawEnv.describe_action
    monkeypatch.setattr(RawEnv, "describe_action", lambda self, a: original(self, a) + " ")
    problem = record.compare(record.config(SMALL))
    assert problem is not None
    assert "at decision step 0 (player_" in problem and "field:    decision.legal[0][1]" in problem
    assert "re-record with: python tests/playthroughs/record.py --only continental-4p" in problem


def test_detects_a_changed_observation_value(monkeypatch):
    original = RawEnv.observation_pieces
    nudged_piece = []

    def nudged(self, agent):
        pieces = original(self, agent)
        name = next(k for k, v in pieces.items() if np.any(v))
        nudged_piece.append(name)
        pieces[name] = pieces[name] * np.float32(1 + 2**-20)  # a few float32 ulps on the nonzero values
        return pieces

    original_observe = RawEnv.observe

    def observe(self, agent):  # the observation vector changes with its pieces
        flat = np.concatenate([v.reshape(-1) for v in nudged(self, agent).values()])
        return {**original_observe(self, agent), "observation": flat.astype(np.float32)}

    monkeypatch.setattr(RawEnv, "observation_pieces", nudged)
    monkeypatch.setattr(RawEnv, "observe", observe)
    problem = record.compare(record.config(SMALL))
    assert problem is not None and f"field:    decision.obs.{nudged_piece[0]}" in problem
    assert "at decision step 0" in problem


def test_detects_an_observation_that_disagrees_with_its_pieces(monkeypatch):
    original = RawEnv.observe

    def shifted(self, agent):
        obs = original(self, agent)
        return {**obs, "observation": np.roll(obs["observation"], 1)}

    monkeypatch.setattr(RawEnv, "observe", shifted)
    problem = record.compare(record.config(SMALL))
    assert problem is not None and "field:    the replay raised" in problem
    assert "do not make up last()'s observation" in problem


def test_detects_a_changed_reward(monkeypatch):
    monkeypatch.setattr(RawEnv, "reward_scale", 99.0)
    recorded = record.load(record.config(SMALL).path)
    first_reward = next(d for d in recorded[1:-1] if d["rewards"])
    problem = record.compare(record.config(SMALL), recorded)
    assert problem is not None
    assert f"at decision step {first_reward['step']} " in problem and "field:    decision.rewards." in problem


def test_reports_a_replay_that_raises(monkeypatch):
    def illegal(self, env, agent):
        mask = env.unwrapped.action_mask(agent)
        return int(np.flatnonzero(mask == 0)[0])

    monkeypatch.setattr(HeuristicBot, "act", illegal)
    problem = record.compare(record.config(SMALL))
    assert problem is not None and "at decision step 0 " in problem and "field:    the replay raised" in problem
    assert "IllegalActionError" in problem


def test_detects_a_changed_recorded_action_and_a_length_change():
    cfg = record.config(SMALL)
    recorded = record.load(cfg.path)
    edited = [dict(r) for r in recorded]
    edited[11] = dict(edited[11], action_info={**edited[11]["action_info"], "kind": "teleport"})
    problem = record.compare(cfg, edited)
    assert problem is not None and "at decision step 10 " in problem and "decision.action_info.kind" in problem
    assert '"teleport"' in problem  # recorded value shown next to the value now
    assert "longer than recorded" in record.compare(cfg, recorded[:-1])
    assert "ended earlier than recorded" in record.compare(cfg, recorded + [recorded[-1]])


def test_command_line_check_and_errors():
    script = HERE / "playthroughs" / "record.py"
    done = subprocess.run(
        [sys.executable, str(script), "--check", "--only", SMALL], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0 and f"{SMALL}: identical" in done.stdout, done.stdout + done.stderr
    bad = subprocess.run([sys.executable, str(script), "--only", "contract-9p"], capture_output=True, text=True)
    assert bad.returncode == 2 and "unknown playthrough 'contract-9p'" in bad.stderr


def test_written_bytes_do_not_depend_on_time(monkeypatch):
    records = record.load(record.config(SMALL).path)
    before = record.dumps(records)
    monkeypatch.setattr("time.time", lambda: 1234567890.0)
    assert record.dumps(records) == before
    assert gzip.decompress(before).decode("utf-8").count("\n") == len(records)
