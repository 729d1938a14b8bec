"""Rollout advantages (``training/advantage_labels.py``) and their fit into a ``card_prior`` network
(``training/advantage_fit.py``): the rollout of the heuristic's own move is the game that was played, labels are
legal, reproducible and resumable, forked heuristics play as the originals, bad arguments exit 2, the held-out gain
is computed from the labels exactly, and the fit lowers its loss and saves a checkpoint that loads and plays."""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import numpy as np
import pytest

import rummy_env
from rummy_env.bots.heuristic import HeuristicBot

TRAINING = Path(__file__).resolve().parents[1] / "training"
sys.path.insert(0, str(TRAINING))

import advantage_labels  # noqa: E402

ROUND1 = [1]


def heuristic_game(profile: str, seed: int, rounds: list[int] | None = None) -> list[dict]:
    """The round results of the heuristic session that ``label_session`` plays for ``seed``."""
    from rummy_env.evaluation.tournament import env_config_from_args

    env = rummy_env.make(profile, num_players=4, **env_config_from_args(profile, rounds, None))
    env.reset(seed=seed)
    bots = [HeuristicBot(seed * 31 + s) for s in range(4)]
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        seat = env.unwrapped.agent_name_mapping[agent]
        env.step(None if term or trunc else bots[seat].act(env, agent))
    return env.unwrapped.round_results


@pytest.mark.parametrize(
    ("profile", "rounds", "prob"),
    [("contract", ROUND1, 0.3), ("contract_gamerules", ROUND1, 0.3), ("continental", [1], 0.5)],
)
def test_the_heuristic_moves_rollout_is_the_game_played(profile: str, rounds: list[int], prob: float) -> None:
    """Every candidate is rolled out from the true position with copies of the heuristics as they stand, so the
    heuristic's own move must reproduce the real round result exactly (common random numbers)."""
    seed = 5
    data = advantage_labels.label_session(profile, 4, seed, prob, 24, rounds)
    results = heuristic_game(profile, seed, rounds)
    n = len(data["prior"])
    assert n >= 5
    for i in range(n):
        k = list(data["cand"][i]).index(int(data["prior"][i]))
        res = results[int(data["round"][i])]
        real = res.get("penalties", res.get("payments"))
        np.testing.assert_array_equal(data["scores"][i, k], np.asarray(real, dtype=np.float32))
    assert int(data["rounds_played"]) == len(results)
    assert int(data["choices"]) >= n


def test_labels_are_legal_padded_and_reproducible() -> None:
    a = advantage_labels.label_session("contract", 4, 3, 0.5, 6, ROUND1)
    b = advantage_labels.label_session("contract", 4, 3, 0.5, 6, ROUND1)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
    n = len(a["prior"])
    cand = a["cand"]
    assert cand.shape == (n, 6) and a["scores"].shape == (n, 6, 4) and a["obs"].dtype == np.float32
    used = cand >= 0
    rows = np.nonzero(used)[0]
    assert a["mask"][rows, cand[used]].all()
    assert (cand == a["prior"][:, None]).any(axis=1).all()
    assert (a["mask"].sum(1) > 1).all()  # only real choices are labelled
    # more legal actions than --max-candidates: a sample, sorted, the heuristic's move in it
    wide = a["mask"].sum(1) > 6
    assert wide.any() and used[wide].all()
    assert all(list(c) == sorted(c) for c in cand[wide])
    assert (a["scores"][~used] == 0).all()


def test_candidates_keep_the_prior_and_sample_the_rest() -> None:
    rng = np.random.default_rng(0)
    assert advantage_labels.candidates([4, 9, 12], 9, 5, rng) == [4, 9, 12]
    picked = advantage_labels.candidates(list(range(30)), 17, 5, rng)
    assert len(picked) == 5 and 17 in picked and picked == sorted(set(picked))


@pytest.mark.parametrize("profile", ["contract", "contract_gamerules", "continental"])
def test_a_forked_heuristic_plays_as_a_deep_copy(profile: str) -> None:
    """``HeuristicBot.fork`` shares only pure caches: the fork and a deep copy make the same moves from a position
    deep in a game, for a whole round (generator and the gamerules memory included)."""
    from rummy_env.registry import game

    env = rummy_env.make(profile, num_players=4)
    env.reset(seed=21)
    bots = [HeuristicBot(100 + s) for s in range(4)]
    for _ in range(25):  # into the round, so that the bots have drawn from their generators and remembered
        agent = env.agent_selection
        env.step(bots[env.unwrapped.agent_name_mapping[agent]].act(env, agent))
    raw = env.unwrapped
    moves = []
    for make in (lambda b: b.fork(), copy.deepcopy):
        st = game(profile).load_state(raw.game_state(), raw.rules)
        copies = [make(b) for b in bots]
        seq = []
        while not st.is_terminal() and len(seq) < 150:
            seat = st.current_player
            a = copies[seat].act_view(st.public_view(seat))
            seq.append(a)
            st.apply(a)
        moves.append(seq)
    assert len(moves[0]) == 150 and moves[0] == moves[1]


def test_resumed_labelling_skips_sessions_on_disk(tmp_path: Path) -> None:
    argv = ["--profile", "contract", "--out", str(tmp_path), "--sessions", "2", "--rounds", "1", "--quiet",
            "--label-prob", "0.2"]  # fmt: skip
    assert advantage_labels.main(argv) == 0
    files = sorted(tmp_path.glob("session_*.npz"))
    assert [f.name for f in files] == ["session_00000.npz", "session_00001.npz"]
    before = {f.name: f.stat().st_mtime_ns for f in files}
    assert advantage_labels.main(argv) == 0
    assert {f.name: f.stat().st_mtime_ns for f in tmp_path.glob("session_*.npz")} == before


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--sessions", "0"], "--sessions"),
        (["--label-prob", "0"], "--label-prob"),
        (["--label-prob", "2"], "--label-prob"),
        (["--max-candidates", "1"], "--max-candidates"),
        (["--seed", "-1"], "--seed"),
        (["--max-minutes", "-1"], "--max-minutes"),
        (["--profile", "gin"], "unknown profile 'gin'"),
        (["--num-players", "9"], "allowed 4..4"),
    ],
)
def test_bad_label_arguments_exit_2(
    argv: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert advantage_labels.main(["--out", str(tmp_path / "x"), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and says in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()
