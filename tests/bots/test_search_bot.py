"""The ``search`` bot (``rummy_env.bots.search``): loading by id and its budget, determinism, legal play in every
profile and player count, and hidden information -- its action does not change when the cards its seat cannot see
are redealt (while a variant that reads the true hidden cards is caught by the same check).

The searches here are tiny (a few rollouts): the tests check behaviour, not strength; strength, decision time and the
false-acceptance rate are measured by the commands in ``docs/guides/bots.md``. The acceptance test, the budget and
the inference have their own files (``tests/bots/test_search_acceptance.py``, ``tests/bots/test_search_inference.py``), the
fast rollout policy too (``tests/bots/test_search_rollout.py``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import rummy_env
from rummy_env import bots
from rummy_env.bots.search import MAX_BUDGET, MAX_SECONDS, Budget, SearchBot, SearchBudgetError, canonical_json
from rummy_env.registry import GAMES, game

#: every profile and player count, one short session each (contract: round 1; continental: one deal)
CASES = [(profile, n) for profile, g in sorted(GAMES.items()) for n in g.player_counts]
IDS = [f"{p}-{n}p" for p, n in CASES]


def _env(profile: str, n: int, seed: int) -> Any:
    g = game(profile)
    kwargs: dict[str, Any] = {"rounds": (1,)} if g.family == "contract" else {"rounds": 1}
    if n != g.default_players:
        kwargs["num_players"] = n
    env = rummy_env.make(profile, **kwargs)
    env.reset(seed=seed)
    return env


def _tiny(seed: int, profile: str) -> SearchBot:
    """A search small enough for a test: 12 rollouts a decision, in ``contract`` to the end of the round with the
    fast policy, in ``contract_gamerules`` 4 decisions of its heuristic, in ``continental`` (whose default method is
    the look-ahead, ``test_search_lookahead.py``) rollouts of none (the static value right after the move)."""
    if profile == "continental":
        return SearchBot(seed, budget=12, horizon=0, method="rollouts")
    if profile == "contract_gamerules":
        return SearchBot(seed, budget=12, horizon=4)
    return SearchBot(seed, budget=12)


# loading -------------------------------------------------------------------------------------------------------
def test_loads_by_id_with_and_without_a_budget():
    plain = bots.load("search", seed=3)
    assert isinstance(plain, SearchBot) and plain.budget is None and plain.name == "search"
    sized = bots.load("search:200", seed=3)
    assert isinstance(sized, SearchBot) and sized.budget == Budget(rollouts=200) and sized.name == "search:200"
    assert bots.load(f"search:{MAX_BUDGET}").budget == Budget(rollouts=MAX_BUDGET)
    timed = bots.load("search:0.5s", seed=3)
    assert timed.budget == Budget(seconds=0.5) and timed.name == "search:0.5s"
    assert bots.load("search:1s").name == "search:1s" and bots.load("search:2.5s").budget == Budget(seconds=2.5)
    assert "search" in bots.known_ids()
    assert isinstance(sized, bots.Bot)


@pytest.mark.parametrize("spec", ["search:0", "search:-5", "search:abc", "search:1.5", "search:", "search:1e3",
                                  f"search:{MAX_BUDGET + 1}", "search:0s", "search:-1", "search:-1s", "search:0.0s",
                                  "search:abcs", "search:s", f"search:{MAX_SECONDS + 1:g}s", "search:infs",
                                  "search:nans", "search:1 s", "search:1ms"])
def test_bad_budgets_raise_a_clear_error(spec):
    with pytest.raises(SearchBudgetError) as err:
        bots.load(spec)
    assert isinstance(err.value, ValueError)
    message = str(err.value)
    assert repr(spec.partition(":")[2]) in message and f"1 to {MAX_BUDGET}" in message and "'search'" in message
    assert "'search:1s'" in message and "'search:0.5s'" in message


def test_no_decision_for_an_agent_not_to_move():
    env = _env("contract", 4, seed=0)
    idle = next(a for a in env.possible_agents if a != env.agent_selection)
    with pytest.raises(ValueError, match="no legal action"):
        _tiny(0, "contract").act(env, idle)


# determinism and legality ------------------------------------------------------------------------------------
def _play(profile: str, n: int, deal_seed: int, bot_seed: int, search_seats: tuple[int, ...], max_search: int):
    """Play one short session: the search bot at ``search_seats`` (until it has made ``max_search`` searched
    decisions), heuristics elsewhere; every action is checked against the mask. Returns the searched actions."""
    env = _env(profile, n, deal_seed)
    raw = env.unwrapped
    searchers = {s: _tiny(bot_seed + s, profile) for s in search_seats}
    others = {s: bots.load("heuristic", seed=100 + s) for s in range(n)}
    chosen: list[int] = []
    for agent in env.agent_iter(max_iter=2000):
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = raw.agent_name_mapping[agent]
        legal = np.flatnonzero(raw.action_mask(agent)).tolist()
        if seat in searchers and (max_search < 0 or len(chosen) < max_search):
            action = searchers[seat].act(env, agent)
            if len(legal) > 1:
                chosen.append(action)
        else:
            action = others[seat].act(env, agent)
        assert action in legal, (agent, action, legal)
        env.step(action)
    return chosen, raw.session_over


def test_same_seed_same_actions():
    first, _ = _play("contract", 4, deal_seed=5, bot_seed=1, search_seats=(0, 2), max_search=30)
    again, _ = _play("contract", 4, deal_seed=5, bot_seed=1, search_seats=(0, 2), max_search=30)
    assert len(first) == 30 and first == again


@pytest.mark.parametrize(("profile", "n"), CASES, ids=IDS)
def test_legal_actions_over_a_whole_short_game(profile, n):
    chosen, over = _play(profile, n, deal_seed=11, bot_seed=2, search_seats=(0,), max_search=-1)
    assert over, "the session did not end"
    assert len(chosen) >= 5  # it really made searched decisions


def test_default_search_makes_a_legal_decision_in_every_profile():
    """The plain id with its profile's default budget and horizons (one decision each: they are the slow ones):
    ``contract`` searches in two stages, ``continental`` in one."""
    for profile, n in [("contract", 4), ("continental", 5)]:
        env = _env(profile, n, seed=4)
        agent = env.agent_selection
        legal = np.flatnonzero(env.unwrapped.action_mask(agent)).tolist()
        if len(legal) == 1:
            env.step(legal[0])
            agent = env.agent_selection
            legal = np.flatnonzero(env.unwrapped.action_mask(agent)).tolist()
        assert bots.load("search", seed=0).act(env, agent) in legal


# hidden information --------------------------------------------------------------------------------------------
class LeakySearch(SearchBot):
    """A deliberately cheating variant: it searches the true position (the real hidden cards, no resampling)."""

    def root_state(self, env: Any, seat: int) -> Any:
        raw = env.unwrapped
        return raw.game.load_state(raw.game_state(), raw.rules)

    def determinize(self, root: Any, seat: int, rng: np.random.Generator, view: Any = None, pool: Any = None) -> Any:
        return root.clone()


def _hidden_info_changes(make_bot, profile: str, n: int, positions: int, resamples: int, seed: int) -> int:
    """At ``positions`` decisions of a heuristic game (each with more than one legal action), the number of
    resamples of the hidden cards (``state.resample_hidden(seat, rng)``: the stock order and the opponents' unknown
    cards, consistently with the mover's knowledge) after which a fresh bot of the same seed chooses otherwise."""
    env = _env(profile, n, seed)
    raw = env.unwrapped
    heuristic = bots.load("heuristic", seed=seed)
    rng = np.random.Generator(np.random.PCG64(seed))
    changed = checked = 0
    for agent in env.agent_iter(max_iter=2000):
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        seat = raw.agent_name_mapping[agent]
        if len(raw.public_view(agent).legal) > 1 and rng.random() < 0.5:
            real = make_bot().act(env, agent)
            truth = raw.game_state()
            view = raw.public_view(agent)
            for _ in range(resamples):
                other = rummy_env.make(profile, **({"num_players": n} if n != game(profile).default_players else {}))
                st = raw.game.load_state(truth, raw.rules).resample_hidden(seat, rng)  # the test may see the truth
                other.reset(options={"scenario": st.to_json()})
                assert other.unwrapped.public_view(agent) == view  # the same knowledge ...
                assert other.unwrapped.game_state() != truth  # ... other hidden cards
                changed += make_bot().act(other, agent) != real
            checked += 1
            if checked == positions:
                break
        env.step(heuristic.act(env, agent))
    assert checked == positions
    return changed


def _judge(bot_class: type, profile: str) -> Any:
    """Bots of the hidden-information checks: every legal move a candidate, and the best screened move always
    played (no test, no deference to the heuristic), so that any dependence on the hidden cards shows; short
    rollouts outside ``contract`` (rollouts in ``continental`` too, not its default look-ahead)."""
    horizon = {"continental": 1, "contract_gamerules": 6}.get(profile)
    return lambda: bot_class(9, budget=24, horizon=horizon, t_crit=-math.inf, min_pairs=0, margin=-1e9, triage=False,
                             method="rollouts")


@pytest.mark.parametrize(("profile", "n"), [("contract", 4), ("contract_gamerules", 3), ("continental", 4)])
def test_action_does_not_depend_on_the_hidden_cards(profile, n):
    positions = 4 if profile == "contract_gamerules" else 6  # its heuristic is the slow one
    assert _hidden_info_changes(_judge(SearchBot, profile), profile, n, positions=positions, resamples=2, seed=21) == 0


def test_a_leaking_variant_is_caught():
    """The same check with the same settings catches a bot that searches the true hidden cards (in
    ``contract_gamerules``, where 6 decisions reach the seat's next draw: no buy windows in between)."""
    judge = _judge(LeakySearch, "contract_gamerules")
    assert _hidden_info_changes(judge, "contract_gamerules", 3, positions=6, resamples=2, seed=21) > 0


def test_canonical_position_forgets_the_hidden_cards():
    """``canonical_json`` is the same for the true state and for any resample of it (for the seat it is made
    for), keeps what the seat sees, and drops the engine's generator."""
    g = game("contract")
    st = g.new_state(g.rules(), seed=8, rounds=(1,))
    rng = np.random.Generator(np.random.PCG64(8))
    for _ in range(40):
        st.apply(st.legal_actions()[int(rng.integers(len(st.legal_actions())))])
    seat = st.current_player
    base = canonical_json(st.to_json(), seat)
    assert "rng" not in base
    for _ in range(3):
        other = st.resample_hidden(seat, rng)
        assert other.to_json() != st.to_json()
        assert canonical_json(other.to_json(), seat) == base
    assert base["hands"][seat] == st.to_json()["hands"][seat]
    assert [len(h) for h in base["hands"]] == [len(h) for h in st.to_json()["hands"]]
    assert len(base["stock"]) == len(st.stock)
    loaded = g.load_state(base, g.rules())
    assert loaded.public_view(seat) == st.public_view(seat)


# an action that ends a round which is not the session's last ------------------------------------------------------
def _round_ending_position(profile: str, kwargs: dict[str, Any], seed: int) -> tuple[Any, int, int]:
    """Heuristic play until the seat to move, in the session's first round of several, has a legal action that
    ends the round: (env, seat, that action)."""
    env = rummy_env.make(profile, wrapped=False, **kwargs)
    env.reset(seed=seed)
    players = [bots.load("heuristic", seed=seed + i) for i in range(len(env.possible_agents))]
    while not env.round_results:
        agent = env.agent_selection
        state = env.unwrapped._state
        for a in np.flatnonzero(env.action_mask(agent)).tolist():
            after = state.clone()
            after.apply(a)
            if after.round_results:
                return env, env.current_seat, a
        env.step(players[env.current_seat].act(env, agent))
    raise AssertionError("no round-ending decision found in round 1")


@pytest.mark.parametrize(("profile", "kwargs"), [("continental", {}), ("contract", {"rounds": (1, 2)})])
def test_going_out_before_the_last_round_is_valued_by_that_rounds_result(profile, kwargs):
    """The value of a candidate that ends a round is the seat's result of that round, not the static measure of the
    next round's fresh hand (the search once never went out before the last deal of a continental session)."""
    for seed in range(40):
        try:
            env, seat, action = _round_ending_position(profile, kwargs, seed)
            break
        except AssertionError:
            continue
    bot = SearchBot(0, budget=4, horizon=3)
    root = bot.root_state(env, seat)
    view = env.unwrapped.public_view(env.agent_selection)
    det = bot.determinize(root, seat, np.random.default_rng(0), view)
    st = det.clone()
    st.apply(action)
    result = st.round_results[0]
    amounts = result.get("penalties", result.get("payments"))
    want = -float(amounts[seat]) if game(profile).lower_is_better else float(amounts[seat])
    assert bot.rollout(st.clone(), seat, profile, round_index=0) == (want, 0)
    others = [a for a in view.legal if a != action][:1]
    values = bot.screen(root, view, [action, *others], dets=3)
    assert values[action] == [want] * 3  # every determinization ends the round with the same result for the seat
