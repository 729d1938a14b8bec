"""The search bot's acceptance rule and budget (``rummy_env.bots.search``): the paired t-test's decisions and its
nominal false-acceptance rate, the bot's acceptance rate when its rollouts cannot tell the moves apart (and its
power when they can), budgets in rollouts and seconds, and no search where only the heuristic's move is plausible.

The false-acceptance rate against the true value of the moves is measured by
``python -m rummy_env.bots.search_audit false-acceptance`` (``docs/guides/bots.md``), not here: it takes minutes.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import rummy_env
from rummy_env import bots
from rummy_env.bots.search import (
    MIN_PAIRS,
    STEPS_PER_SECOND,
    T_CRIT,
    Budget,
    SearchBot,
    paired_test,
    parse_budget,
)
from rummy_env.bots.view import public_view


# the test itself -------------------------------------------------------------------------------------------------
def test_the_paired_test_needs_enough_pairs_and_a_t_above_two():
    clear = [3.0, 2.5, 4.0, 3.5, 2.0, 3.0, 4.5, 2.5]
    assert paired_test(clear)[0] and paired_test(clear)[2] > T_CRIT
    assert not paired_test(clear[:MIN_PAIRS - 1])[0]  # too few pairs, however clear
    noisy = [10.0, -9.0, 8.0, -7.0, 9.0, -8.0, 10.0, -9.0]  # mean 0.5, t about 0.15
    assert not paired_test(noisy)[0]
    assert paired_test([1.0] * 8) == (True, 1.0, math.inf)  # every pair the same gain
    assert not paired_test([-1.0] * 8)[0] and not paired_test([0.0] * 8)[0]
    assert not paired_test(clear, margin=3.5)[0]  # a gain below the margin is not enough


@pytest.mark.parametrize(("pairs", "low", "high"), [(8, 0.030, 0.057), (40, 0.015, 0.036)])
def test_nominal_false_acceptance_rate(pairs, low, high):
    """Under the null (paired differences of mean 0) the test accepts about P(T_{n-1} > 2): 4.3 % at 8 pairs,
    2.6 % at 40 (4,000 simulated tests; the bounds are four standard errors wide)."""
    rng = np.random.default_rng(pairs)
    rate = np.mean([paired_test(rng.normal(0.0, 10.0, pairs).tolist())[0] for _ in range(4000)])
    assert low < rate < high


# the bot under a rollout model whose values are known -----------------------------------------------------------
class ModelSearch(SearchBot):
    """A search whose rollouts are a model: noise of sd 10 plus ``gain`` for the move ``target`` (the first
    legal move other than the heuristic's of each decision, when ``gain`` is set)."""

    gain = 0.0

    def rollout(self, st: Any, seat: int, profile: str, round_index: int | None = None, seed: int = 0
                ) -> tuple[float, int]:
        noise = float(np.random.default_rng([seed, st.history[-1]]).normal(0.0, 10.0))
        return noise + (self.gain if st.history[-1] == self.target else 0.0), 10


def _positions(count: int) -> list[tuple[Any, str]]:
    """Decisions of a heuristic round-1 game with at least two legal moves, as (env copy, agent)."""
    env = rummy_env.make("contract", rounds=(1,))
    env.reset(seed=17)
    raw = env.unwrapped
    heuristic = bots.load("heuristic", seed=1)
    out = []
    for agent in env.agent_iter(max_iter=3000):
        _, _, term, trunc, _ = env.last()
        if term or trunc or len(out) == count:
            break
        if len(raw.public_view(agent).legal) > 1:
            copy = rummy_env.make("contract", rounds=(1,))
            copy.reset(options={"scenario": raw.game_state()})
            out.append((copy, agent))
        env.step(heuristic.act(env, agent))
    return out


def _acceptances(gain: float, count: int, budget: int) -> tuple[int, int]:
    """(accepted challengers, decisions) of ``ModelSearch`` with ``budget`` rollouts a decision over ``count``
    decisions, every legal move a candidate."""
    accepted = 0
    positions = _positions(count)
    for i, (env, agent) in enumerate(positions):
        bot = ModelSearch(i, budget=budget, triage=False)
        view = public_view(env, agent)
        bot.gain = gain
        bot.target = next(a for a in view.legal if a != bot._policy(view.profile).decide(view))
        decision = bot.choose(env, agent)
        accepted += decision.accepted
        if decision.accepted and gain > 0:
            assert decision.action == bot.target
    return accepted, len(positions)


def test_moves_the_rollouts_cannot_tell_apart_are_rarely_accepted():
    """Rollout values independent of the move: the bot keeps the heuristic's move at almost every decision (the
    screen's best challenger then faces the t-test on fresh pairs: at most ~4 % accepted)."""
    accepted, decisions = _acceptances(0.0, 60, 40)
    assert decisions == 60 and accepted <= 5


def test_a_clearly_better_move_is_found_and_accepted():
    """A move worth 12 points more in every rollout (noise sd 10) is screened to the top by the halving and
    accepted nearly always (150 rollouts a decision)."""
    accepted, decisions = _acceptances(12.0, 20, 150)
    assert accepted >= 17


# budgets ----------------------------------------------------------------------------------------------------------
def test_budgets_in_rollouts_and_seconds():
    assert parse_budget("200") == Budget(rollouts=200) and parse_budget(None) is None
    assert parse_budget("0.5s") == Budget(seconds=0.5) and parse_budget("2s") == Budget(seconds=2.0)
    assert Budget(seconds=0.5).limit("contract") == (0.5 * STEPS_PER_SECOND["contract"], True)
    assert Budget(rollouts=30).limit("contract") == (30.0, False)


class CountingSearch(SearchBot):
    """Counts the rollouts of each decision."""

    rollouts = 0

    def rollout(self, st: Any, seat: int, profile: str, round_index: int | None = None, seed: int = 0
                ) -> tuple[float, int]:
        CountingSearch.rollouts += 1
        return super().rollout(st, seat, profile, round_index, seed)


def test_no_search_without_a_plausible_alternative_and_budget_where_it_matters():
    """A decision whose only plausible move is the heuristic's (a lay-off, a joker placement, buying a card the
    hand cannot use, ...) plays it with no rollout; one that is searched spends at most its budget (200 rollouts),
    unless it stops early (the screen's best challenger no better than the heuristic's move, or the confirmation
    futile), and some decisions spend it all."""
    env = rummy_env.make("contract", rounds=(1,))
    env.reset(seed=2)
    raw = env.unwrapped
    heuristic = bots.load("heuristic", seed=0)
    skipped = searched = spent_all = 0
    for agent in env.agent_iter(max_iter=3000):
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        view = public_view(env, agent)
        if len(view.legal) > 1 and raw.agent_name_mapping[agent] == 0:
            bot = CountingSearch(0, budget=200)
            CountingSearch.rollouts = 0
            decision = bot.choose(env, agent)
            cands = bot.candidates(view, decision.prior)
            if len(cands) == 1:
                assert CountingSearch.rollouts == 0 and decision.action == decision.prior
                skipped += 1
            else:
                assert CountingSearch.rollouts <= 200 + 2
                spent_all += CountingSearch.rollouts >= 190
                searched += 1
        env.step(heuristic.act(env, agent))
    assert skipped >= 3 and searched >= 3 and spent_all >= 1
