"""The heuristic's per-move measures (``HeuristicBot.action_measures``) and the ``card_prior_measures`` network
that reads them: the measures follow the legal actions in increasing id, mean what their names say, change none of
the heuristic's moves, and never read a card the seat cannot see; the network starts as its ``card_prior`` base
(``expand_from``), refuses to act without the measures, refuses a prior bot whose measures have other names, and
loads back from a checkpoint with every check of the format."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import rummy_env
from rummy_env import bots
from rummy_env.bots.heuristic import HeuristicBot

pytest.importorskip("torch")
pytest.importorskip("safetensors")

from rummy_env.models import action_features as af  # noqa: E402
from rummy_env.models.checkpoints import CheckpointError, check_architecture, load_checkpoint, save_checkpoint  # noqa: E402

PROFILES = [("contract", {"rounds": [1, 7]}), ("contract_gamerules", {"num_players": 4}), ("continental", {"rounds": 1})]


def _views(profile: str, cfg: dict, seed: int):
    """Every decision of one heuristic session with more than one legal action: (env, agent, view) as it is played."""
    env = rummy_env.make(profile, **cfg)
    env.reset(seed=seed)
    players = [HeuristicBot(seed + s) for s in range(len(env.possible_agents))]
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        view = env.unwrapped.public_view(agent)
        if len(view.legal) > 1:
            yield env, agent, view
        env.step(players[env.unwrapped.agent_name_mapping[agent]].act(env, agent))


@pytest.mark.parametrize("profile,cfg", PROFILES)
def test_measures_follow_the_legal_actions_in_increasing_id(profile: str, cfg: dict) -> None:
    bot = HeuristicBot(0)
    names = bot.measure_names(profile)
    assert len(names) >= 5 and len(set(names)) == len(names)
    seen = 0
    for _, _, view in _views(profile, cfg, seed=3):
        m = bot.action_measures(view)
        assert m.shape == (len(view.legal), len(names)) and m.dtype == np.float32 and np.isfinite(m).all()
        # row i is the action of rank i among the legal ids: the same rows as rummy_env.models.policy.legal_index
        rows = bot._policy(profile).action_features(view)
        for i, a in enumerate(sorted(view.legal)):
            np.testing.assert_allclose(m[i], rows[list(view.legal).index(a)], rtol=1e-6)
        seen += 1
    assert seen > 20


def test_contract_measures_mean_what_they_say() -> None:
    """A discard's ``penalty_delta`` is minus the card's penalty / 10; a card the hand's best target holds before
    opening is ``in_target``; taking the discard top adds its penalty."""
    from rummy_env.core.cards import PENALTY

    bot = HeuristicBot(0)
    names = bot.measure_names("contract")
    col = {n: i for i, n in enumerate(names)}
    checked = {"discard": 0, "draw_discard": 0}
    for _, _, view in _views("contract", {"rounds": [1]}, seed=5):
        lay = view.layout
        m = dict(zip(sorted(view.legal), bot.action_measures(view)))
        for a, row in m.items():
            if lay.DISCARD <= a < lay.DISCARD + 53:
                assert row[col["penalty_delta"]] == pytest.approx(-PENALTY[a - lay.DISCARD] / 10)
                checked["discard"] += 1
            elif a == lay.DRAW_DISCARD:
                assert row[col["penalty_delta"]] == pytest.approx(PENALTY[view.discard_top] / 10)
                checked["draw_discard"] += 1
            elif a == lay.DRAW_STOCK:
                assert row[col["cost_delta"]] == row[col["penalty_delta"]] == 0.0
    assert min(checked.values()) > 5


def test_contract_discard_measures_rebuild_the_discard_rule() -> None:
    """``keep`` and ``penalty_down`` are the terms of the discard rule before opening ("the least useful, weighted by
    its penalty (heavier as opponents go down)"): of the cards outside the hand's best target, the heuristic discards
    one with the highest ``penalty_weight * 10 * penalty_down - keep - feed_weight * feeds_next`` -- for the default
    style and for a styled one."""
    from rummy_env.bots.heuristic_contract import ContractStyle

    checked = 0
    for style in ({}, {"penalty_weight": 0.4}):
        bot = HeuristicBot(0, style=style)
        st = ContractStyle(**style)
        col = {n: i for i, n in enumerate(bot.measure_names("contract"))}
        for env, agent, view in _views("contract", {"rounds": [1, 2]}, seed=11):
            lay = view.layout
            if view.phase != "act" or view.opened[view.seat] or view.final_round:
                continue
            m = dict(zip(sorted(view.legal), bot.action_measures(view)))
            spare = {a: row for a, row in m.items()
                     if lay.DISCARD <= a < lay.DISCARD + 52 and row[col["in_target"]] == 0.0}  # fmt: skip
            if len(spare) < 2:
                continue
            score = {a: st.penalty_weight * 10 * r[col["penalty_down"]] - r[col["keep"]]
                     - st.feed_weight * r[col["feeds_next"]] for a, r in spare.items()}  # fmt: skip
            move = HeuristicBot(7, style=style).act(env, agent)
            if not lay.DISCARD <= move < lay.DISCARD + 53:
                continue  # it melds, lays off or goes out first
            assert move in spare and score[move] == pytest.approx(max(score.values()), abs=1e-5)
            checked += 1
    assert checked > 20


def test_continental_measures_mean_what_they_say() -> None:
    """The heuristic's own discard keeps the distance lowest (``distance_delta`` 0); a wild is flagged."""
    bot = HeuristicBot(0)
    col = {n: i for i, n in enumerate(bot.measure_names("continental"))}
    seen = 0
    for env, agent, view in _views("continental", {"rounds": 1}, seed=7):
        lay = view.layout
        if view.phase != "act":
            continue
        move = HeuristicBot(1).act(env, agent)
        m = dict(zip(sorted(view.legal), bot.action_measures(view)))
        assert min(r[col["distance_delta"]] for r in m.values()) == 0.0
        if lay.DISCARD <= move < lay.DISCARD + 53:
            assert m[move][col["distance_delta"]] == 0.0
        for a, row in m.items():
            k = a - lay.DISCARD_DECLARE if a >= lay.DISCARD_DECLARE else a - lay.DISCARD
            if 0 <= k < 53:
                assert row[col["wild"]] == (1.0 if k in (1, 14, 27, 40, 52) else 0.0)
        seen += 1
    assert seen > 10


@pytest.mark.parametrize("profile,cfg", PROFILES)
def test_asking_for_measures_changes_no_move(profile: str, cfg: dict) -> None:
    """The measures draw nothing from the bot's generator and touch no memory: a bot asked for them at every
    decision plays the same session as one never asked."""

    def play(ask: bool) -> list[int]:
        env = rummy_env.make(profile, **cfg)
        env.reset(seed=11)
        players = [HeuristicBot(40 + s) for s in range(len(env.possible_agents))]
        moves = []
        for agent in env.agent_iter():
            _, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            b = players[env.unwrapped.agent_name_mapping[agent]]
            if ask:
                b.action_measures(env.unwrapped.public_view(agent))
            moves.append(b.act(env, agent))
            env.step(moves[-1])
        return moves

    assert play(True) == play(False)


@pytest.mark.parametrize("profile,cfg", PROFILES)
def test_measures_are_blind_to_hidden_cards(profile: str, cfg: dict) -> None:
    """Resampling the cards the seat cannot see (opponents' hidden cards, the stock order) leaves every measure
    unchanged."""
    from rummy_env.registry import game

    bot = HeuristicBot(0)
    rng = np.random.default_rng(0)
    checked = 0
    for i, (env, agent, view) in enumerate(_views(profile, cfg, seed=13)):
        if i % 4:
            continue
        raw = env.unwrapped
        seat = raw.agent_name_mapping[agent]
        st = game(profile).load_state(raw.game_state(), raw.rules)
        other = st.resample_hidden(seat, rng)
        np.testing.assert_array_equal(bot.action_measures(other.public_view(seat)), bot.action_measures(view))
        checked += 1
    assert checked > 5


def _measured(profile: str, cfg: dict, seed: int = 0):
    from rummy_env.models.policy import build_policy, card_architecture

    env = rummy_env.make(profile, wrapped=False, **cfg)
    arch = card_architecture(env.observer.size, env.num_actions, env.observer, trunk=(32,), action_embed=8,
                             prior="heuristic")  # fmt: skip
    base = build_policy(arch, seed=seed).set_action_table(af.action_table(env.layout))
    names = list(HeuristicBot(0).measure_names(profile))
    measured = build_policy(dict(arch, kind="card_prior_measures", prior_measures=names)).expand_from(base)
    return env, base, measured


@pytest.mark.parametrize("profile,cfg", PROFILES)
def test_a_measured_network_starts_as_its_base_and_then_reads_the_measures(
    tmp_path: Path, profile: str, cfg: dict
) -> None:
    import torch

    env, base, measured = _measured(profile, cfg, seed=2)
    n = len(env.possible_agents)
    meta = {"profile": profile, "num_players": n, "env_config": cfg}
    save_checkpoint(tmp_path / "base", base, meta)
    save_checkpoint(tmp_path / "m", measured, meta)
    loaded = load_checkpoint(tmp_path / "m")
    assert type(loaded.model).__name__ == "MeasuredPriorActorCritic"
    assert loaded.metadata["architecture"]["prior_measures"] == list(HeuristicBot(0).measure_names(profile))

    def play(spec: str) -> list[int]:
        game = rummy_env.make(profile, **cfg)
        game.reset(seed=5)
        players = [bots.load(spec, seed=1)] + [bots.load("heuristic", seed=2 + s) for s in range(n - 1)]
        moves = []
        for agent in game.agent_iter():
            _, _, term, trunc, _ = game.last()
            if term or trunc:
                game.step(None)
                continue
            moves.append(players[game.unwrapped.agent_name_mapping[agent]].act(game, agent))
            game.step(moves[-1])
        return moves

    start = play(f"checkpoint:{tmp_path / 'base'}")
    assert play(f"checkpoint:{tmp_path / 'm'}") == start
    # weights on the measures change the play
    with torch.no_grad():
        measured.action_mlp.weight[:, -len(loaded.metadata["architecture"]["prior_measures"]) :] = 3.0
        measured.prior_weight.zero_()
    save_checkpoint(tmp_path / "w", measured, meta)
    assert play(f"checkpoint:{tmp_path / 'w'}") != start


def test_a_measured_network_refuses_to_act_without_measures() -> None:
    from rummy_env.models.policy import PriorError

    env, _, net = _measured("contract", {"rounds": [1]})
    game = rummy_env.make("contract", rounds=[1])
    game.reset(seed=0)
    agent = game.agent_selection
    ob = game.observe(agent)
    move = np.array([bots.load("heuristic").act(game, agent)])
    with pytest.raises(PriorError, match="needs the prior bot's move and its measures"):
        net.act(ob["observation"], ob["action_mask"], prior=move)
    k = int(ob["action_mask"].sum())
    with pytest.raises(PriorError, match="measures of shape"):
        net.act(ob["observation"], ob["action_mask"], prior=move, measures=np.zeros((1, k, 3), np.float32))
    m = HeuristicBot(0).action_measures(game.unwrapped.public_view(agent))[None]
    actions, _, _ = net.act(ob["observation"], ob["action_mask"], prior=move, measures=m, greedy=True)
    assert ob["action_mask"][actions[0]]


@pytest.mark.parametrize(
    "names,says",
    [([], "prior_measures=\\[\\]"), (["Cost"], "lower-case"), (["a", "a"], "distinct"), ("cost", "a list")],
)
def test_bad_measure_names_are_refused(names, says: str) -> None:
    env, _, net = _measured("contract_gamerules", {"num_players": 4})
    with pytest.raises(ValueError, match=says):
        check_architecture(dict(net.arch, prior_measures=names))


def test_a_checkpoint_whose_measures_the_bot_does_not_give_is_refused(tmp_path: Path) -> None:
    """The names are the contract between the network and its prior bot: a network trained on other measures
    (here renamed) is refused when it meets an env, with both lists in the message."""
    from rummy_env.models.policy import build_policy

    env, _, net = _measured("contract_gamerules", {"num_players": 4})
    names = list(net.arch["prior_measures"])
    renamed = dict(net.arch, prior_measures=[*names[:-1], "something_else"])
    other = build_policy(renamed)
    other.load_state_dict(net.state_dict())
    save_checkpoint(tmp_path / "r", other, {"profile": "contract_gamerules", "num_players": 4})
    bot = bots.load(f"checkpoint:{tmp_path / 'r'}")
    game = rummy_env.make("contract_gamerules", num_players=4)
    game.reset(seed=0)
    with pytest.raises(ValueError, match="something_else"):
        bot.act(game, game.agent_selection)
    # and a weights file whose scorer is not as wide as the measures named is a CheckpointError
    save_checkpoint(tmp_path / "ok", net, {"profile": "contract_gamerules", "num_players": 4})
    import json

    meta = json.loads((tmp_path / "ok.json").read_text())
    meta["architecture"]["prior_measures"] = [*names, "one_more"]
    (tmp_path / "ok.json").write_text(json.dumps(meta))
    with pytest.raises(CheckpointError):
        load_checkpoint(tmp_path / "ok")


def test_a_network_reads_its_measures_by_name(tmp_path: Path) -> None:
    """A network trained on some of the bot's measures, in another order (as a network of an older version whose bot
    has since gained measures), is fed exactly those columns: it plays as when it is given them directly."""
    from rummy_env.models.policy import build_policy, legal_index

    env, _, net = _measured("contract", {"rounds": [1]}, seed=4)
    names = list(net.arch["prior_measures"])
    chosen = [names[2], names[0], names[4]]
    sub = build_policy(dict(net.arch, prior_measures=chosen))
    save_checkpoint(tmp_path / "sub", sub, {"profile": "contract", "num_players": 4, "env_config": {"rounds": [1]}})
    bot = bots.load(f"checkpoint:{tmp_path / 'sub'}", seed=0)
    heur = HeuristicBot(0)
    seen = 0
    for game, agent, view in _views("contract", {"rounds": [1]}, seed=6):
        ob = game.observe(agent)
        prior = np.array([heur.act(game, agent)])
        full = heur.action_measures(view)
        cols = [names.index(n) for n in chosen]
        want, _, _ = sub.act(ob["observation"], ob["action_mask"], prior=prior, measures=full[None][..., cols],
                             greedy=True)
        assert bot.act(game, agent) == int(want[0])
        seen += 1
        if seen >= 30:
            break
    assert seen == 30 and legal_index is not None


def test_a_measured_network_and_the_shipped_checkpoint_are_blind_to_hidden_cards(tmp_path: Path) -> None:
    """Resampling every card the deciding seat cannot see changes no decision: of a ``card_prior_measures``
    network whose measure weights are large (its moves follow the measures), and of the shipped
    ``contract_gamerules`` checkpoint (a network fitted to labels that did read hidden cards)."""
    import torch
    from scenarios import check_blind_to_hidden

    env, _, net = _measured("contract_gamerules", {"num_players": 4}, seed=4)
    with torch.no_grad():
        net.action_mlp.weight[:, -len(net.arch["prior_measures"]) :] = 2.0
        net.prior_weight.zero_()
    save_checkpoint(tmp_path / "m", net, {"profile": "contract_gamerules", "num_players": 4})
    for spec in (f"checkpoint:{tmp_path / 'm'}", f"checkpoint:{Path(__file__).resolve().parents[2] / 'checkpoints' / 'contract_gamerules'}"):
        name = bots.load(spec).name
        seen = check_blind_to_hidden("contract_gamerules", [spec, "heuristic", spec, "random"], (2,), rng_seed=3,
                                     only=name)  # fmt: skip
        assert seen["checked"] > 50 and {"draw", "act"} <= seen["phases"]


def test_continental_outs_measure_rebuilds_the_styled_discard_rule() -> None:
    """``outs`` is the tie-break of ``outs_weight`` ("the card whose loss keeps the distance lowest; among those the
    least connected", connectedness less ``outs_weight`` per out kept): among the natural discards that keep the best
    distance, the styled heuristic discards one with the lowest ``keep_value - outs_weight * 10 * outs``; the plain
    heuristic's discards ignore it."""
    styled = {"outs_weight": 1.0}
    bot = HeuristicBot(0, style=styled)
    col = {n: i for i, n in enumerate(bot.measure_names("continental"))}
    checked = differs = 0
    for env, agent, view in _views("continental", {"rounds": 1}, seed=13):
        lay = view.layout
        if view.phase != "act" or any(a >= lay.DISCARD_DECLARE for a in view.legal):
            continue
        m = dict(zip(sorted(view.legal), bot.action_measures(view)))
        tied = {a: r for a, r in m.items() if r[col["distance_delta"]] == 0.0 and r[col["wild"]] == 0.0}
        if len(tied) < 2:
            continue
        score = {a: r[col["keep_value"]] - 10 * r[col["outs"]] for a, r in tied.items()}
        move = HeuristicBot(5, style=styled).act(env, agent)
        assert move in tied and score[move] == pytest.approx(min(score.values()), abs=1e-5)
        plain = HeuristicBot(5).act(env, agent)
        keep = {a: r[col["keep_value"]] for a, r in tied.items()}
        assert keep[plain] == pytest.approx(min(keep.values()), abs=1e-5)
        differs += plain != move
        checked += 1
    assert checked > 20 and differs > 0


def test_improving_draws_counts_the_live_cards_that_lower_the_distance() -> None:
    """``RunPlanner.improving_draws`` agrees with drawing every live card and trying every discard."""
    from rummy_env.bots.heuristic_continental import RunPlanner
    from rummy_env.rules.continental_hand import RUN_LENGTH_PATTERNS

    planner = RunPlanner(RUN_LENGTH_PATTERNS)
    rng = np.random.default_rng(4)
    shoe = [k for k in range(52) for _ in range(2)] + [52, 52]
    positive = 0
    for _ in range(60):
        hand = [0] * 53
        for c in rng.permutation(shoe)[:15]:
            hand[c] += 1
        live = [2 - hand[k] for k in range(53)]
        live[int(rng.integers(53))] = 0  # a kind seen elsewhere
        now = planner.distance(hand)
        expected = 0
        for c in range(53):
            if live[c] > 0 and now > 0:
                hand[c] += 1
                after = planner.distances_after_discard(hand, [k for k in range(53) if hand[k]])
                expected += live[c] if min(after.values()) < now else 0
                hand[c] -= 1
        assert planner.improving_draws(hand, live) == expected
        positive += expected > 0
    assert positive > 30
