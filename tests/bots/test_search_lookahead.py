"""The ``search`` bot's exact look-ahead, its method in ``continental`` (``ContinentalHeuristic.lookahead``,
``SearchBot(method="lookahead")``): checked against a brute-force expectimax of the seat's next draw, blind to the
cards its seat cannot see, deterministic, and refusing a method it does not have.

The rule it looks ahead by (C.2-4, ``docs/rules/continental.md``): "on your turn take only the top of the stock or
the top of the discard pile, then discard one card face up" -- after the discard the seat's next draw is one of the
cards it has not seen. Its strength against ``heuristic`` is measured by the command in ``docs/guides/bots.md``.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_search_bot import _hidden_info_changes

import rummy_env
from rummy_env import bots
from rummy_env.bots.heuristic import POLICIES
from rummy_env.bots.heuristic_continental import is_wild
from rummy_env.bots.search import METHOD, SearchBot, SearchMethodError
from rummy_env.bots.view import public_view
from rummy_env.core.cards import NUM_KINDS


def _expected_distance(planner, hand: list[int], live: list[int]) -> float:
    """Brute force: the mean over every unseen card (each copy equally likely) of the least distance to going out
    after drawing it and making the best discard -- the chance node the look-ahead values in closed form."""
    total = sum(live)
    acc = 0.0
    for c in range(NUM_KINDS):
        if not live[c]:
            continue
        h = list(hand)
        h[c] += 1
        dist = planner.distances_after_discard(h, [k for k in range(NUM_KINDS) if h[k]])
        acc += live[c] * min(dist.values())
    return acc / total


def _positions(games: int, seed: int):
    """Every decision with a choice or not of ``games`` one-deal heuristic games, the heuristic's move played:
    (env, view, prior), the env at the decision."""
    for g in range(games):
        env = rummy_env.make("continental", rounds=1)
        env.reset(seed=seed + g)
        heuristic = POLICIES["continental"](np.random.default_rng(seed + g))
        for agent in env.agent_iter(max_iter=400):
            _, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            view = public_view(env, agent)
            prior = heuristic.decide(view)
            yield env, view, prior
            env.step(prior)


def test_lookahead_matches_a_brute_force_expectimax_of_the_next_draw():
    """At every tied discard of 2 heuristic deals, the look-ahead's value (outs / unseen, relative to the prior's)
    equals the brute-force drop in the expected distance after the next draw, and it plays a discard with the least
    expected distance (the prior on ties); it leaves the prior on at least one of them."""
    heuristic = POLICIES["continental"](np.random.default_rng(0))
    checked = moved = 0
    for _, view, prior in _positions(2, seed=40):
        action, values = heuristic.lookahead(view, prior)
        assert action in view.legal and values[prior] == 0.0
        if len(values) < 2:
            assert action == prior
            continue
        planner = heuristic.planner(view)
        live = view.unseen()
        lay = view.layout
        expected = {}
        for a in values:
            h = list(view.hand)
            h[a - lay.DISCARD] -= 1
            expected[a] = _expected_distance(planner, h, live)
        for a, v in values.items():
            assert v == pytest.approx(expected[prior] - expected[a], abs=1e-9), (a, v, expected)
        assert expected[action] == pytest.approx(min(expected.values()), abs=1e-9)
        if action != prior:
            assert expected[action] < expected[prior] - 1e-12
            moved += 1
        checked += 1
    assert checked >= 10 and moved >= 1


def test_lookahead_keeps_the_prior_outside_its_close_call():
    """The draw, going out (declaring or waiting with a valid hand) and a hand whose tied discards are one card keep
    the heuristic's move; only natural discards as close to going out as the prior's are ever played instead."""
    heuristic = POLICIES["continental"](np.random.default_rng(0))
    kinds_seen = set()
    for _, view, prior in _positions(2, seed=60):
        action, _ = heuristic.lookahead(view, prior)
        lay = view.layout
        kinds_seen.add(view.phase)
        if view.phase == "draw" or prior >= lay.DISCARD_DECLARE or lay.DISCARD_DECLARE + prior - lay.DISCARD in view.legal:
            assert action == prior
        elif action != prior:
            planner = heuristic.planner(view)
            k, p = action - lay.DISCARD, prior - lay.DISCARD
            assert not is_wild(k)
            dist = planner.distances_after_discard(view.hand, [k, p])
            assert dist[k] == dist[p]
    assert {"draw", "act"} <= kinds_seen


def test_continental_search_uses_the_lookahead_by_default_and_spends_no_budget():
    """``search`` and ``search:5`` play the same continental deal move for move (the look-ahead is exact: no
    rollouts to budget), and every move is the heuristic's or its look-ahead's."""
    assert METHOD["continental"] == "lookahead" and METHOD["contract"] == "rollouts"
    played = []
    for spec in ("search", "search:5"):
        env = rummy_env.make("continental", rounds=1)
        env.reset(seed=9)
        bot = bots.load(spec, seed=4)
        heuristic = bots.load("heuristic", seed=4)
        moves = []
        for agent in env.agent_iter(max_iter=400):
            _, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            if env.unwrapped.agent_name_mapping[agent] == 0:
                d = bot.choose(env, agent)
                if d.accepted:
                    assert d.action != d.prior and d.t == float("inf") and d.mean > 0
                else:
                    assert d.action == d.prior
                moves.append(d.action)
                env.step(d.action)
            else:
                env.step(heuristic.act(env, agent))
        played.append(moves)
    assert len(played[0]) > 5 and played[0] == played[1]


def test_lookahead_does_not_depend_on_the_hidden_cards():
    """Redealing the cards the seat cannot see (the stock and the opponents' hands) never changes its move."""
    make = lambda: SearchBot(9, method="lookahead")  # noqa: E731
    assert _hidden_info_changes(make, "continental", 4, positions=8, resamples=2, seed=21) == 0


def test_bad_methods_raise_a_clear_error():
    with pytest.raises(SearchMethodError, match="'rollouts', 'lookahead'") as err:
        SearchBot(0, method="mcts")
    assert isinstance(err.value, ValueError)
    env = rummy_env.make("contract", rounds=(1,))
    env.reset(seed=0)
    with pytest.raises(SearchMethodError, match="no exact look-ahead.*continental"):
        SearchBot(0, method="lookahead").act(env, env.agent_selection)


def test_the_distillation_form_uses_the_lookahead_too():
    """``SearchBot.search(root, seat, legal, prior, profile)`` (what ``rummy_env.distill`` asks) gives the
    look-ahead's move in ``continental``."""
    heuristic = POLICIES["continental"](np.random.default_rng(0))
    bot = SearchBot(0)
    found = 0
    for env, view, prior in _positions(1, seed=70):
        if view.phase == "act":
            root = bot.root_state(env, view.seat)
            move, gains = bot.search(root, view.seat, list(view.legal), prior, "continental")
            assert move == heuristic.lookahead(view, prior)[0] and prior in gains and set(gains) <= set(view.legal)
            found += 1
    assert found > 5
