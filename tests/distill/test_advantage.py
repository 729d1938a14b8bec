"""Rollout advantages (``python -m rummy_env.distill advantage-labels``) and their fit into a ``card_prior`` network
(``advantage-fit``): the rollout of the heuristic's own move is the game that was played, labels are
legal, reproducible and resumable, forked heuristics play as the originals, bad arguments exit 2, the held-out gain
is computed from the labels exactly, and the fit lowers its loss and saves a checkpoint that loads and plays."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest

import rummy_env
from rummy_env import bots
from rummy_env.bots.heuristic import HeuristicBot
from rummy_env.distill import advantage_labels

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
        (["--num-players", "9"], "num_players=9"),
    ],
)
def test_bad_label_arguments_exit_2(
    argv: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert advantage_labels.main(["--out", str(tmp_path / "x"), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and says in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


# ---- truncated rollouts and the seat-coupled stock ------------------------------------------------------------------
def test_a_horizon_longer_than_the_round_changes_nothing_and_a_short_one_scores_hands() -> None:
    full = advantage_labels.label_session("contract_gamerules", 4, 8, 0.3, 24, ROUND1)
    long = advantage_labels.label_session("contract_gamerules", 4, 8, 0.3, 24, ROUND1, horizon=10_000)
    np.testing.assert_array_equal(full["scores"], long["scores"])
    short = advantage_labels.label_session("contract_gamerules", 4, 8, 0.3, 24, ROUND1, horizon=1)
    np.testing.assert_array_equal(full["cand"], short["cand"])
    used = short["cand"] >= 0
    assert not np.array_equal(full["scores"][used], short["scores"][used])
    # a hand's penalty after one more decision: at least the dealt hand's cheapest cards, at most a handful of aces
    assert (short["scores"][used] > 0).all() and (short["scores"][used] < 250).all()


class _FakeState:
    """A stock and the draws made from it: ``apply("draw")`` pops the top (the end of the list) for the seat
    whose turn it is."""

    def __init__(self, stock: list[int], order: list[int]):
        self.stock = list(stock)
        self.order = list(order)
        self.drawn: dict[int, list[int]] = {}
        self.active = self.order[0]
        self.current_player = self.active

    def apply(self, action: str) -> None:
        seat = self.order.pop(0)
        if action == "draw":
            self.drawn.setdefault(seat, []).append(self.stock.pop())
        if self.order:
            self.active = self.current_player = self.order[0]


def test_seat_coupling_keeps_each_seats_draws_when_another_seat_draws_once_less() -> None:
    stock = list(range(40))
    coupling = advantage_labels.SeatStocks(stock, 4, np.random.default_rng(3))
    a = _FakeState(stock, [0, 1, 2, 3, 0, 1, 2, 3])
    b = _FakeState(stock, [0, 1, 2, 3, 0, 1, 2, 3])
    ca, cb = coupling.copy(), coupling.copy()
    for i in range(8):
        ca.apply(a, "draw", a.active)
        cb.apply(b, "pass" if i == 0 else "draw", b.active)  # seat 0 takes the discard pile instead, once
    assert a.drawn[1] == b.drawn[1] and a.drawn[2] == b.drawn[2] and a.drawn[3] == b.drawn[3]
    assert b.drawn[0] == a.drawn[0][:1]  # seat 0 draws the first card of its own queue, later
    # the true stock order would have shifted every later draw by one card
    plain_a = _FakeState(stock, [0, 1, 2, 3])
    plain_b = _FakeState(stock, [0, 1, 2, 3])
    for i in range(4):
        plain_a.apply("draw")
        plain_b.apply("pass" if i == 0 else "draw")
    assert plain_a.drawn[1] != plain_b.drawn[1]


def test_seat_coupling_draws_uniformly() -> None:
    """Reading a fresh shuffle in an order chosen from what was read keeps every draw uniform over the stock."""
    stock = [0, 0, 1, 2, 3, 4, 5, 6]
    firsts = np.zeros(7)
    seconds = np.zeros(7)
    for s in range(4000):
        c = advantage_labels.SeatStocks(stock, 3, np.random.default_rng(s))
        st = _FakeState(stock, [2, 2, 0])
        c.apply(st, "draw", 2)
        c.apply(st, "draw", 2)
        firsts[st.drawn[2][0]] += 1
        seconds[st.drawn[2][1]] += 1
    want = np.array([2, 1, 1, 1, 1, 1, 1]) / 8 * 4000
    assert np.abs(firsts - want).max() < 90 and np.abs(seconds - want).max() < 90


def test_seat_coupled_labels_are_legal_games() -> None:
    data = advantage_labels.label_session("contract", 4, 6, 0.3, 24, ROUND1, coupling="seat")
    used = data["cand"] >= 0
    assert len(data["prior"]) > 5 and (data["scores"][used] >= 0).all()
    # each row has a winner (a zero penalty) in most rollouts: the rounds were played to their end
    zero = (data["scores"][used] == 0).any(axis=-1)
    assert zero.mean() > 0.5


def test_labels_hold_the_heuristics_measures_of_every_legal_action() -> None:
    data = advantage_labels.label_session("contract", 4, 3, 0.3, 24, ROUND1)
    names = list(data["measure_names"])
    assert names == list(HeuristicBot(0).measure_names("contract"))
    n, width, f = data["measures"].shape
    assert n == len(data["prior"]) and f == len(names) and width == data["mask"].sum(1).max()
    # padding beyond each row's legal actions is zero
    for i, count in enumerate(data["mask"].sum(1)):
        assert not data["measures"][i, count:].any()


# ---- the fit ----------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def fit_inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Round-1 contract labels of 6 sessions and a small card_prior network over the heuristic (its prior weight
    large: it plays the heuristic)."""
    pytest.importorskip("torch")
    pytest.importorskip("safetensors")
    import torch

    from rummy_env.models import action_features as af
    from rummy_env.models.checkpoints import save_checkpoint
    from rummy_env.models.policy import build_policy, card_architecture

    root = tmp_path_factory.mktemp("fit")
    labels = root / "labels"
    argv = ["--profile", "contract", "--out", str(labels), "--sessions", "6", "--rounds", "1", "--quiet",
            "--label-prob", "0.5", "--seed", "4"]  # fmt: skip
    assert advantage_labels.main(argv) == 0
    env = rummy_env.make("contract", wrapped=False, rounds=[1])
    arch = card_architecture(env.observer.size, env.num_actions, env.observer, trunk=(32,), action_embed=8,
                             prior="heuristic")  # fmt: skip
    net = build_policy(arch, seed=0).set_action_table(af.action_table(env.layout))
    with torch.no_grad():
        net.prior_weight.fill_(50.0)
    save_checkpoint(root / "base", net, {"profile": "contract", "num_players": 4, "env_config": {"rounds": [1]}})
    return labels, root / "base"


@pytest.mark.parametrize("extra", [[], ["--measures"], ["--prior-input", "keep"]])
def test_the_fit_lowers_its_loss_and_saves_a_playable_checkpoint(
    fit_inputs: tuple[Path, Path], tmp_path: Path, extra: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    from rummy_env.distill import advantage_fit

    labels, base = fit_inputs
    out = tmp_path / "fit"
    argv = ["--base", str(base), "--labels", str(labels), "--out", str(out), "--epochs", "3", "--val-every", "3",
            "--lr", "3e-3", "--select", "loss", *extra]  # fmt: skip
    assert advantage_fit.main(argv) == 0
    printed = capsys.readouterr().out
    losses = [float(line.split(" loss ")[1].split()[0]) for line in printed.splitlines() if line.startswith("epoch")]
    assert len(losses) == 3 and losses[-1] < losses[0]
    from rummy_env.models.checkpoints import load_checkpoint

    ckpt = load_checkpoint(out)
    fit = ckpt.metadata["advantage_fit"]
    assert fit["sessions"] == 6 and fit["training_rows"] > 0 and fit["held_out_rows"] > 0
    kind = "card_prior_measures" if "--measures" in extra else "card_prior"
    assert ckpt.model.arch["kind"] == kind
    game = rummy_env.make("contract", rounds=[1])
    game.reset(seed=1)
    players = [bots.load(f"checkpoint:{out}", seed=0)] + [bots.load("heuristic", seed=s) for s in range(3)]
    for agent in game.agent_iter():
        _, _, term, trunc, _ = game.last()
        game.step(None if term or trunc else players[game.unwrapped.agent_name_mapping[agent]].act(game, agent))
    assert game.unwrapped.session_over


def test_the_held_out_gain_is_read_off_the_labels_exactly() -> None:
    """``greedy_gain``: where the greedy move is a candidate, its gain is that candidate's advantage; a departure
    to an action that was not rolled out counts 0 and is reported as unknown; the margin keeps the heuristic's
    move unless another beats it by more."""
    torch = pytest.importorskip("torch")
    from rummy_env.distill import advantage_fit

    class Fixed:
        def __init__(self, logits):
            self.logits = torch.tensor(logits, dtype=torch.float32)

        def features(self, obs):
            return obs, None

        def legal_logits(self, pi, index, valid, flags, measures=None):
            return self.logits[: len(pi)]

    data = {
        "obs": torch.zeros(3, 1),
        "index": torch.zeros(3, 3, dtype=torch.int64),
        "valid": torch.ones(3, 3, dtype=torch.bool),
        # the heuristic's move is legal position 0 in every row
        "flags": torch.tensor([[1.0, 0, 0]] * 3),
        "measures": None,
        "legal": np.array([[10, 11, 12], [10, 11, 12], [10, 11, 12]]),
        "ppos": torch.tensor([0, 0, 0]),
        "cand": np.array([[10, 11, -1], [10, 11, 12], [10, 12, -1]]),
        "d": torch.tensor([[0.0, 4.0, 0.0], [0.0, -2.0, 6.0], [0.0, 1.0, 0.0]]),
        "session": np.array([0, 1, 2]),
    }
    # row 0 departs to 11 (+4), row 1 to 12 (+6), row 2 to 11, which was not rolled out there
    model = Fixed([[0.0, 1.0, -1.0], [0.0, 0.5, 2.0], [0.0, 3.0, 1.0]])
    fig = advantage_fit.greedy_gain(model, data, [0.0, 5.0], scale=5.0, per_round=10.0)
    assert fig["0"]["departures"] == 1.0 and fig["0"]["unknown"] == pytest.approx(1 / 3, abs=1e-4)
    assert fig["0"]["gain_per_decision"] == pytest.approx((4 + 6 + 0) / 3, abs=1e-4)
    assert fig["0"]["gain_per_round"] == pytest.approx(10 * 10 / 3, abs=1e-2)
    # a margin of 5 points (1 logit at scale 5) keeps the heuristic's move in row 0 (a tie goes to the lower
    # position); rows 1 and 2 still depart
    assert fig["5"]["departures"] == pytest.approx(2 / 3, abs=1e-4)
    assert fig["5"]["gain_per_decision"] == pytest.approx(6 / 3, abs=1e-4)


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--epochs", "0"], "--epochs"),
        (["--lr", "0"], "--lr"),
        (["--margin", "-1"], "--margin"),
    ],
)
def test_bad_fit_arguments_exit_2(argv: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    from rummy_env.distill import advantage_fit

    base = ["--base", "x", "--labels", str(tmp_path), "--out", str(tmp_path / "o")]
    assert advantage_fit.main([*base, *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and says in err


def test_fit_refuses_labels_without_measures_when_asked_for_them(
    fit_inputs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rummy_env.distill import advantage_fit

    labels, base = fit_inputs
    stripped = tmp_path / "old"
    stripped.mkdir()
    for f in labels.glob("session_*.npz"):
        with np.load(f) as d:
            np.savez(stripped / f.name, **{k: d[k] for k in d.files if k not in ("measures", "measure_names")})
    argv = ["--base", str(base), "--labels", str(stripped), "--out", str(tmp_path / "o"), "--measures", "--val-every", "3"]
    assert advantage_fit.main(argv) == 2
    assert "needs label files with measures" in capsys.readouterr().err


def test_the_learning_curve_fits_on_more_folders_reuses_what_is_done_and_draws(
    fit_inputs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``advantage-curve``: point k is the fit on the first k folders (k = 0 the base), each evaluated once; a
    second run reuses the fits and evaluations on disk; the figure is written."""
    from rummy_env.distill import advantage_curve

    labels, base = fit_inputs
    halves = [tmp_path / "a", tmp_path / "b"]
    for h in halves:
        h.mkdir()
    for i, f in enumerate(sorted(labels.glob("session_*.npz"))):
        (halves[i % 2] / f.name).write_bytes(f.read_bytes())
    calls: list[str] = []

    def fake(path: str, opponents: list[str], sessions: int, seed: int, workers: int, quiet: bool = False) -> dict:
        calls.append(path)
        return {o: {"difference": -float(len(calls)), "difference_ci95": 0.5, "metric": "penalty_per_round"}
                for o in opponents}  # fmt: skip

    monkeypatch.setattr(advantage_curve, "evaluate_against", fake)
    work = tmp_path / "work"
    argv = ["--base", str(base), "--labels", *map(str, halves), "--work", str(work), "--out", str(tmp_path / "c.png"),
            "--fit-args", "--epochs 1 --val-every 3 --threads 1", "--sessions", "2", "--workers", "1"]  # fmt: skip
    assert advantage_curve.main(argv) == 0
    assert calls == [str(base), str(work / "fit_1"), str(work / "fit_2")]
    curve = json.loads((work / "curve.json").read_text())
    assert [p["labelled_sessions"] for p in curve] == [0, 3, 6]
    assert (tmp_path / "c.png").stat().st_size > 1000
    calls.clear()
    assert advantage_curve.main(argv) == 0
    assert calls == []  # everything reused


@pytest.mark.parametrize(
    ("extra", "says"),
    [(["--fit-args", "--labels x"], "may not set"), (["--sessions", "0"], "--sessions"), (["--fit-args", "'"], "--fit-args")],
)
def test_bad_curve_arguments_exit_2(
    fit_inputs: tuple[Path, Path], tmp_path: Path, extra: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from rummy_env.distill import advantage_curve

    labels, base = fit_inputs
    argv = ["--base", str(base), "--labels", str(labels), "--work", str(tmp_path / "w"), "--out", str(tmp_path / "c.png")]
    assert advantage_curve.main([*argv, *extra]) == 2
    assert says in capsys.readouterr().err


def test_add_measures_replays_a_session_and_refuses_other_settings(
    fit_inputs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A label file written before labels carried measures gets exactly the measures the labelling would have
    written; replaying with other settings (another seed) is refused, the file unchanged."""
    labels, _ = fit_inputs
    src = labels / "session_00001.npz"
    old = tmp_path / "old"
    old.mkdir()
    with np.load(src) as d:
        full = {k: d[k] for k in d.files}
    np.savez(old / src.name, **{k: v for k, v in full.items() if k not in ("measures", "measure_names", "step")})
    argv = ["--profile", "contract", "--rounds", "1", "--label-prob", "0.5", "--quiet", "--add-measures"]
    assert advantage_labels.main([*argv, "--out", str(old), "--seed", "5"]) == 2
    assert "does not give the file's" in capsys.readouterr().err
    with np.load(old / src.name) as d:
        assert "measures" not in d.files
    assert advantage_labels.main([*argv, "--out", str(old), "--seed", "4"]) == 0
    with np.load(old / src.name) as d:
        for k in ("measures", "measure_names", "step", "scores", "obs"):
            np.testing.assert_array_equal(d[k], full[k])
