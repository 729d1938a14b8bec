"""Offline search labels (``python -m rummy_env.distill search-labels``) and their distillation into a
``card_prior`` network (``search-distill``): the labels are legal, reproducible and resumable, a departure is labelled only
with a positive estimated gain, bad arguments are refused with exit code 2, and distillation lowers the
cross-entropy to the labels and saves a checkpoint that loads and plays."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("safetensors")

import rummy_env  # noqa: E402
from rummy_env.distill import search_distill, search_labels  # noqa: E402
from rummy_env.models import action_features as af  # noqa: E402
from rummy_env.models.checkpoints import load_checkpoint, save_checkpoint  # noqa: E402

ROUND1 = [1]


@pytest.fixture(scope="module")
def labels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two labelled round-1 sessions (budget 4, every multi-action decision labelled)."""
    out = tmp_path_factory.mktemp("labels")
    argv = ["--out", str(out), "--sessions", "2", "--budget", "4", "--label-prob", "1.0", "--rounds", "1"]
    assert search_labels.main(argv) == 0
    return out


def test_labels_are_legal_and_departures_claim_a_gain(labels: Path) -> None:
    files = sorted(labels.glob("session_*.npz"))
    assert [f.name for f in files] == ["session_00000.npz", "session_00001.npz"]
    with np.load(files[0], allow_pickle=False) as d:
        rows = np.arange(len(d["label"]))
        assert len(rows) > 10 and d["obs"].shape == (len(rows), d["obs"].shape[1]) and d["obs"].dtype == np.float32
        assert d["mask"][rows, d["label"]].all() and d["mask"][rows, d["prior"]].all()
        assert (d["mask"].sum(1) > 1).all()  # only real choices are labelled
        depart = d["label"] != d["prior"]
        assert (d["gain"][depart] > 0).all() and (d["gain"][~depart] == 0).all()
        assert set(d["round"].tolist()) == {1}


def test_labels_are_reproducible_for_a_seed() -> None:
    a = search_labels.label_session("contract_gamerules", 4, 11, 3, 0.5, ROUND1)
    b = search_labels.label_session("contract_gamerules", 4, 11, 3, 0.5, ROUND1)
    assert len(a["label"]) > 0
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])


def test_a_session_on_disk_is_not_labelled_again(labels: Path) -> None:
    before = {f.name: f.stat().st_mtime_ns for f in labels.glob("session_*.npz")}
    assert search_labels.main(["--out", str(labels), "--sessions", "2", "--budget", "4", "--rounds", "1"]) == 0
    assert {f.name: f.stat().st_mtime_ns for f in labels.glob("session_*.npz")} == before


@pytest.mark.parametrize(
    "argv",
    [["--sessions", "0"], ["--label-prob", "0"], ["--label-prob", "1.5"], ["--budget", "0"], ["--workers", "0"]],
)
def test_bad_label_arguments_exit_2(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert search_labels.main(["--out", str(tmp_path / "x"), *argv]) == 2
    assert "must be" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--profile", "gin"], "unknown profile 'gin'"),
        (["--num-players", "9"], "num_players=9"),
        (["--profile", "continental", "--rounds", "1", "2"], "one number"),
    ],
)
def test_a_table_that_cannot_be_built_exits_2_before_any_work(
    argv: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rummy_env.distill import search_consistency

    assert search_labels.main(["--out", str(tmp_path / "x"), *argv]) == 2
    assert says in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
    if "--rounds" not in argv:
        assert search_consistency.main(argv) == 2
        assert says in capsys.readouterr().err


def test_teacher_labels_play_the_teachers_game_and_keep_the_heuristics_move_as_prior() -> None:
    """``--teacher ID --play teacher``: the session is the teacher's own game (it equals a game of four teachers),
    every label is the teacher's move and every prior the plain heuristic's move in that state."""
    import rummy_env
    from rummy_env import bots

    teacher = "heuristic:penalty_weight=1.5"
    data = search_labels.label_session("contract", 4, 11, None, 1.0, [1, 2], teacher, "teacher")
    env = rummy_env.make("contract", rounds=[1, 2])
    env.reset(seed=11)
    seats = [bots.load(teacher, seed=11 * 37 + s) for s in range(4)]
    plain = [bots.load("heuristic", seed=11 * 31 + s) for s in range(4)]
    labels, priors = [], []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.possible_agents.index(agent)
        move, prior = seats[seat].act(env, agent), plain[seat].act(env, agent)
        if obs["action_mask"].sum() > 1:
            labels.append(move)
            priors.append(prior)
        env.step(move)
    assert data["label"].tolist() == labels and data["prior"].tolist() == priors
    assert 0 < int((data["label"] != data["prior"]).sum()) < len(labels)  # the style departs, now and then
    assert not data["gain"].any()


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--play", "teacher"], "--play teacher needs --teacher"),
        (["--teacher", "heuristic:nope=1"], "unknown heuristic"),
    ],
)
def test_bad_teacher_arguments_exit_2(
    argv: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert search_labels.main(["--out", str(tmp_path / "x"), *argv]) == 2
    assert says in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_continental_labels_take_a_number_of_deals() -> None:
    data = search_labels.label_session("continental", 4, 11, 2, 0.1, [1])
    assert len(data["label"]) > 0 and set(data["round"].tolist()) <= {0, 1}


def _base(tmp_path: Path) -> Path:
    from rummy_env.models.policy import build_policy, card_architecture

    env = rummy_env.make("contract_gamerules", wrapped=False, num_players=4)
    arch = card_architecture(env.observer.size, env.num_actions, env.observer, trunk=(32,), action_embed=8,
                             prior="heuristic")  # fmt: skip
    net = build_policy(arch, seed=0).set_action_table(af.action_table(env.layout))
    save_checkpoint(tmp_path / "base", net, {"profile": "contract_gamerules", "num_players": 4})
    return tmp_path / "base"


def test_distillation_lowers_the_cross_entropy_and_saves_a_playable_checkpoint(labels: Path, tmp_path: Path) -> None:
    base = _base(tmp_path)
    out = tmp_path / "distilled"
    argv = ["--base", str(base), "--labels", str(labels), "--out", str(out), "--epochs", "6", "--lr", "3e-3",
            "--val-every", "2"]  # fmt: skip
    assert search_distill.main(argv) == 0
    ckpt = load_checkpoint(out, expect_profile="contract_gamerules")
    info = ckpt.metadata["distillation"]
    history = info["history"]
    assert history[0]["epoch"] == 0 and len(history) == 7
    assert info["held_out"]["cross_entropy"] == min(h["cross_entropy"] for h in history)
    assert info["held_out"]["cross_entropy"] < history[0]["cross_entropy"]
    assert info["training_rows"] > 0 and info["kept_epoch"] >= 1 and info["held_out_rows"] == history[0]["rows"]
    # the wall time in all is the base's training and this fit; the algorithm names both
    base_meta = load_checkpoint(base).metadata
    base_seconds = base_meta.get("training_state", {}).get("wall_seconds", base_meta.get("wall_seconds")) or 0.0
    assert ckpt.metadata["wall_seconds"] == pytest.approx(base_seconds + info["wall_seconds"], abs=0.11)
    assert ckpt.metadata["algorithm"].endswith("+ distillation (python -m rummy_env.distill search-distill)")
    # the training rows themselves are fitted better than by the base network
    train, _, _ = search_distill.load_labels([str(labels)], 2)
    data = search_distill.prepare(train, 0.0)
    assert (
        search_distill.held_out(ckpt.model, data)["cross_entropy"]
        < search_distill.held_out(load_checkpoint(base).model, data)["cross_entropy"]
    )
    # and it plays as a checkpoint bot
    from rummy_env import bots

    env = rummy_env.make("contract_gamerules", num_players=4, rounds=(1,))
    env.reset(seed=3)
    bot = bots.load(f"checkpoint:{out}", seed=0)
    agent = env.agent_selection
    assert env.observe(agent)["action_mask"][bot.act(env, agent)]


def test_teacher_labels_with_measures_teach_a_measured_network(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``search-labels --measures`` stores the heuristic's measures of every legal action (zero rows past the
    legal list); ``search-distill --measures`` trains a ``card_prior_measures`` network on them that loads and
    plays; without measures in the labels it exits 2."""
    from rummy_env import bots
    from rummy_env.bots.heuristic import HeuristicBot

    out = tmp_path / "labels"
    argv = ["--profile", "contract_gamerules", "--out", str(out), "--sessions", "2", "--label-prob", "1.0",
            "--rounds", "1", "--teacher", "heuristic:penalty_weight=1.5", "--play", "teacher"]  # fmt: skip
    assert search_labels.main([*argv, "--measures"]) == 0
    with np.load(out / "session_00000.npz") as d:
        names = [str(x) for x in d["measure_names"]]
        assert names == list(HeuristicBot(0).measure_names("contract_gamerules"))
        legal = d["mask"].sum(axis=1)
        m = d["measures"]
        assert m.shape == (len(d["label"]), int(legal.max()), len(names))
        for row, n in zip(m, legal):
            assert not row[n:].any()  # padding past the legal actions
            assert np.all(row[:n, names.index("danger")] == row[0, names.index("danger")])  # one danger a decision
    base = _base(tmp_path)
    ckpt_path = tmp_path / "measured"
    dist = ["--base", str(base), "--labels", str(out), "--out", str(ckpt_path), "--epochs", "2", "--val-every", "2"]
    assert search_distill.main([*dist, "--measures"]) == 0
    ckpt = load_checkpoint(ckpt_path, expect_profile="contract_gamerules")
    assert ckpt.metadata["architecture"]["kind"] == "card_prior_measures"
    assert ckpt.metadata["architecture"]["prior_measures"] == names
    assert ckpt.metadata["distillation"]["settings"]["measures"] is True
    env = rummy_env.make("contract_gamerules", num_players=4, rounds=(1,))
    env.reset(seed=3)
    agent = env.agent_selection
    assert env.observe(agent)["action_mask"][bots.load(f"checkpoint:{ckpt_path}", seed=0).act(env, agent)]
    plain = tmp_path / "plain"
    assert search_labels.main([*argv[:3], str(plain), *argv[4:]]) == 0
    assert search_distill.main([*dist[:3], str(plain), *dist[4:], "--measures"]) == 2
    assert "no measures" in capsys.readouterr().err


def test_a_margin_moves_only_the_prior_weight_and_lowers_departures(labels: Path, tmp_path: Path) -> None:
    """``--margin M``: the same training, then ``prior_weight`` + M; every other weight is the same, and the network
    departs from the prior no more often (held out)."""
    base = _base(tmp_path)
    saved = {}
    for margin in ("0", "5"):
        out = tmp_path / f"m{margin}"
        argv = ["--base", str(base), "--labels", str(labels), "--out", str(out), "--epochs", "3", "--lr", "3e-3",
                "--val-every", "2", "--margin", margin]  # fmt: skip
        assert search_distill.main(argv) == 0
        saved[margin] = load_checkpoint(out)
    a, b = (saved[m].model.state_dict() for m in ("0", "5"))
    assert float(b["prior_weight"] - a["prior_weight"]) == pytest.approx(5.0)
    assert all(a[k].equal(b[k]) for k in a if k != "prior_weight")
    rate = {m: c.metadata["distillation"]["held_out"]["network_departure_rate"] for m, c in saved.items()}
    assert rate["5"] <= rate["0"]
    assert saved["5"].metadata["distillation"]["settings"]["margin"] == 5.0


def test_distillation_refuses_a_missing_label_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = _base(tmp_path)
    argv = ["--base", str(base), "--labels", str(tmp_path / "none"), "--out", str(tmp_path / "o")]
    assert search_distill.main(argv) == 2
    assert "no session_*.npz" in capsys.readouterr().err
    assert not (tmp_path / "o.json").exists()


def _bad_copy(labels: Path, folder: Path, edit) -> Path:
    """The label files of ``labels`` in ``folder``, each passed through ``edit(dict) -> dict`` first."""
    folder.mkdir()
    for f in sorted(labels.glob("session_*.npz")):
        with np.load(f) as data:
            np.savez(folder / f.name, **edit({k: data[k] for k in data.files}))
    return folder


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (lambda d: {**d, "obs": d["obs"][:, :-3]}, "labels of another profile or player count"),
        (lambda d: {**d, "label": (~d["mask"]).argmax(1)}, "not legal"),  # the first illegal action of each row
        (lambda d: {k: v for k, v in d.items() if k != "gain"}, "lacks ['gain']"),
    ],
)  # fmt: skip
def test_distillation_refuses_labels_that_do_not_fit_the_base(
    edit, says: str, labels: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = _base(tmp_path)
    bad = _bad_copy(labels, tmp_path / "bad", edit)
    argv = ["--base", str(base), "--labels", str(bad), "--out", str(tmp_path / "o"), "--val-every", "2"]
    assert search_distill.main(argv) == 2
    assert says in capsys.readouterr().err
    assert not (tmp_path / "o.json").exists()


def test_distillation_refuses_bad_settings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--base", "b", "--labels", "l", "--out", str(tmp_path / "o"), "--epochs", "0"]
    assert search_distill.main(argv) == 2
    assert "--epochs must be >= 1" in capsys.readouterr().err
    assert search_distill.main([*argv[:-2], "--margin", "-1"]) == 2
    assert "--margin >= 0" in capsys.readouterr().err


def test_search_consistency_compares_two_independent_searches(capsys: pytest.CaptureFixture[str]) -> None:
    from rummy_env.distill import search_consistency

    fig = search_consistency.consistency("contract_gamerules", 4, 5, 3, 6, 1.0)
    assert fig["decisions"] == 6 and 0.0 <= fig["agreement"] <= 1.0
    assert search_consistency.consistency("contract_gamerules", 4, 5, 3, 6, 1.0) == fig  # seeded
    assert search_consistency.main(["--decisions", "0"]) == 2
    assert "--decisions and --budget must be >= 1" in capsys.readouterr().err


def test_train_kinds_keeps_only_those_training_rows(labels: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--train-kinds discard`` trains on the rows whose label or prior move is a discard, and only on those; the
    held-out rows stay all of them; an unknown kind is refused with the kinds allowed."""
    from rummy_env.training.warm_start import action_kinds

    base = _base(tmp_path)
    out = tmp_path / "d"
    argv = ["--base", str(base), "--labels", str(labels), "--out", str(out), "--epochs", "1", "--val-every", "2"]
    assert search_distill.main([*argv, "--train-kinds", "discard"]) == 0
    info = load_checkpoint(out).metadata["distillation"]
    probe = rummy_env.make("contract_gamerules", wrapped=False, num_players=4)
    kinds = np.array(action_kinds(probe.layout))
    train, val, _ = search_distill.load_labels([str(labels)], 2)
    discard = (kinds[train["label"]] == "discard") | (kinds[train["prior"]] == "discard")
    assert 0 < discard.sum() < len(discard)
    assert info["training_rows"] == int(discard.sum()) and info["held_out_rows"] == len(val["label"])
    assert info["settings"]["train_kinds"] == ["discard"]
    # --other-share P keeps each other row with probability P: all of them at 1, about half at 0.5
    for share, low, high in ((1.0, len(discard), len(discard)), (0.5, discard.sum() + 1, len(discard) - 1)):
        assert search_distill.main([*argv, "--train-kinds", "discard", "--other-share", str(share)]) == 0
        rows = load_checkpoint(out).metadata["distillation"]["training_rows"]
        assert low <= rows <= high, (share, rows)
    assert search_distill.main([*argv, "--train-kinds", "discards"]) == 2
    err = capsys.readouterr().err
    assert "--train-kinds ['discards']" in err and "'discard'" in err
    assert search_distill.main([*argv, "--other-share", "0.5"]) == 2
    assert "needs --train-kinds" in capsys.readouterr().err


def test_save_epochs_saves_each_epoch_and_the_kept_one_is_among_them(labels: Path, tmp_path: Path) -> None:
    """``--save-epochs``: OUT_epoch1..N, each recording its epoch as ``kept_epoch``; the kept network (lowest
    held-out cross-entropy) has the weights of its epoch's file; saving them changes nothing of the training."""
    base = _base(tmp_path)
    argv = ["--base", str(base), "--labels", str(labels), "--epochs", "3", "--lr", "3e-3", "--val-every", "2",
            "--margin", "1"]  # fmt: skip
    assert search_distill.main([*argv, "--out", str(tmp_path / "s"), "--save-epochs"]) == 0
    assert search_distill.main([*argv, "--out", str(tmp_path / "plain")]) == 0
    kept = load_checkpoint(tmp_path / "s")
    plain = load_checkpoint(tmp_path / "plain")
    assert kept.metadata["weights_sha256"] == plain.metadata["weights_sha256"]
    epochs = {e: load_checkpoint(tmp_path / f"s_epoch{e}") for e in (1, 2, 3)}
    assert [c.metadata["distillation"]["kept_epoch"] for c in epochs.values()] == [1, 2, 3]
    assert len({c.metadata["weights_sha256"] for c in epochs.values()}) == 3
    k = kept.metadata["distillation"]["kept_epoch"]
    assert k >= 1 and epochs[k].metadata["weights_sha256"] == kept.metadata["weights_sha256"]
    assert not (tmp_path / "plain_epoch1.json").exists()


def test_the_pipeline_runs_as_one_command_and_never_writes_over_its_input(labels: Path, tmp_path: Path) -> None:
    """``python -m rummy_env.distill`` lists its subcommands; ``search-distill --out`` equal to ``--base`` (its
    input) or inside the shipped checkpoints is refused up front, exit 2, one line."""
    run = [sys.executable, "-m", "rummy_env.distill"]
    out = subprocess.run([*run, "--help"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "search-distill" in out.stdout and "advantage-fit" in out.stdout
    bad = subprocess.run([*run, "bogus"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "unknown subcommand" in bad.stderr
    shipped = Path(__file__).resolve().parents[2] / "checkpoints"
    for base, dest, says in ((str(tmp_path / "b"), str(tmp_path / "b.json"), "is also this command's --base"),
                             (str(tmp_path / "b"), str(shipped / "contract"), "folder of the shipped checkpoints")):
        argv = ["search-distill", "--base", base, "--labels", str(labels), "--out", dest]
        out = subprocess.run([*run, *argv], capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert out.returncode == 2 and says in out.stderr and out.stderr.count("\n") == 1, out.stderr
