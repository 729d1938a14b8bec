"""The search bot's hidden-card inference (``rummy_env.bots.search_inference``): the events it reads from its seat's
views, the count model's likelihood, determinizations that follow the events, and a bot that has watched the round
still acting on its seat's knowledge only.

How much the inference places hidden cards right on heuristic games is measured by
``python -m rummy_env.bots.search_audit inference`` (``docs/guides/bots.md``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import rummy_env
from rummy_env import bots
from rummy_env.bots.search import SearchBot
from rummy_env.bots.search_inference import Event, EventLog, hidden_pool, weighted_determinization
from rummy_env.bots.view import public_view
from rummy_env.core.cards import NUM_KINDS
from rummy_env.registry import game

G = game("contract")


def _watch(seed: int, until: Any) -> tuple[Any, str, EventLog]:
    """A heuristic round-1 game; seat 0's views go to an ``EventLog`` until ``until(view, log)`` holds at one of
    them: (env, agent, log)."""
    env = rummy_env.make("contract", rounds=(1,))
    env.reset(seed=seed)
    raw = env.unwrapped
    players = [bots.load("heuristic", seed=seed * 10 + i) for i in range(4)]
    log = EventLog()
    for agent in env.agent_iter(max_iter=3000):
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        if raw.agent_name_mapping[agent] == 0:
            view = public_view(env, agent)
            log.observe(view)
            if until(view, log):
                return env, agent, log
        env.step(players[raw.agent_name_mapping[agent]].act(env, agent))
    raise AssertionError("the game ended before the condition held")


def test_a_buy_window_shows_a_discard_a_decline_and_the_passes_before_the_seat():
    """Seat 0 asked to buy card c in the first window of a turn (active seat A): A-1 threw c, A drew from the stock
    instead of taking it, and the seats asked before seat 0 passed on it (those not down)."""

    def first_window(view: Any, log: EventLog) -> bool:
        return view.phase == "buy" and view.last_buyer < 0 and view.turn > 1 and not any(view.opened)

    for seed in range(4, 40):
        try:
            env, agent, log = _watch(seed, first_window)
            break
        except AssertionError:
            continue
    view = public_view(env, agent)
    active, card, n = view.active, view.offered, view.num_players
    assert Event((active - 1) % n, "discard", card) in log.events or (active - 1) % n == 0
    assert Event(active, "decline", card) in log.events
    before = view.rules.buy_window(active, -1)
    for seat in before[: before.index(0)]:
        assert Event(seat, "pass", card) in log.events
    assert all(e.seat != 0 for e in log.events)  # the seat's own choices are not evidence


def test_the_log_starts_afresh_each_round():
    env, agent, log = _watch(4, lambda view, log: len(log.events) >= 3)
    view = public_view(env, agent)
    later = view.__class__(**{**view.__dict__, "round": view.round + 1, "turn": 1, "phase": "act"})
    log.observe(later)
    assert log.events == []


def test_the_likelihood_favours_hands_that_explain_the_events():
    """A thrown card speaks against a hand holding a pair of its rank; a refused card against a hand holding one
    of its rank; a taken card against a hand holding none (group contract of round 1)."""
    env, agent, _ = _watch(4, lambda view, log: view.phase == "draw")
    view = public_view(env, agent)
    seven_clubs, seven_hearts, seven_spades = 6, 32, 45  # kinds: suit * 13 + rank index
    empty = [[0] * NUM_KINDS for _ in range(4)]

    def with_cards(*kinds: int) -> list[list[int]]:
        hands = [list(h) for h in empty]
        for k in kinds:
            hands[1][k] += 1
        return hands

    thrown = [Event(1, "discard", seven_clubs)]
    assert EventLog.likelihood(thrown, with_cards(seven_hearts, seven_spades), empty, view) < EventLog.likelihood(
        thrown, with_cards(), empty, view)
    refused = [Event(1, "decline", seven_clubs)]
    assert EventLog.likelihood(refused, with_cards(seven_hearts), empty, view) < 1.0
    assert EventLog.likelihood(refused, with_cards(), empty, view) == 1.0
    known = [list(h) for h in empty]
    known[1][seven_clubs] = 1
    took_alone = EventLog.likelihood([], with_cards(seven_clubs), known, view)
    took_pair = EventLog.likelihood([], with_cards(seven_clubs, seven_hearts), known, view)
    assert took_alone < took_pair == 1.0


def test_weighted_determinizations_follow_the_events():
    """At a position with events, the opponents who threw or refused a card hold fewer cards of its rank in the
    weighted determinizations than in uniform ones (200 each, fixed seeds)."""
    env, agent, log = _watch(11, lambda view, log: len(log.active_events(view)) >= 4)
    view = public_view(env, agent)
    bot = SearchBot(0)
    root = bot.root_state(env, 0)
    pool = hidden_pool(root, 0)
    events = log.active_events(view)

    def rank_cards(st: Any) -> int:
        return sum(st.hands[e.seat][e.card % 13 + 13 * s] for e in events for s in range(4))

    rng = np.random.default_rng(0)
    uniform = np.mean([rank_cards(weighted_determinization(root, 0, rng, None, view, 1, pool)) for _ in range(200)])
    weighted = np.mean([rank_cards(weighted_determinization(root, 0, rng, log, view, 16, pool)) for _ in range(200)])
    assert weighted < uniform - 0.2
    det = weighted_determinization(root, 0, rng, log, view, 16, pool)
    det.check_invariants()
    assert det.public_view(0) == root.public_view(0)


def test_a_bot_that_watched_the_round_acts_on_its_seats_knowledge_only():
    """The search bot's log is made of its seat's views: a bot that has seen the round so far chooses the same
    move in the true position and in resamples of its hidden cards (every move a candidate, the best screened
    move always played, so that a dependence would show)."""
    env, agent, log = _watch(11, lambda view, log: len(log.active_events(view)) >= 4 and len(view.legal) > 2)
    raw = env.unwrapped

    def judge() -> SearchBot:
        bot = SearchBot(9, budget=24, t_crit=-float("inf"), min_pairs=0, margin=-1e9, triage=False)
        bot.log = log
        return bot

    real = judge().act(env, agent)
    rng = np.random.default_rng(1)
    for _ in range(2):
        other = rummy_env.make("contract", rounds=(1,))
        st = G.load_state(raw.game_state(), raw.rules).resample_hidden(0, rng)
        other.reset(options={"scenario": st.to_json()})
        assert other.unwrapped.public_view(agent) == raw.public_view(agent)
        assert other.unwrapped.game_state() != raw.game_state()
        assert judge().act(other, agent) == real
