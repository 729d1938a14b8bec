"""Hidden information, tested in one place: ``state.public_view(seat)`` (``rummy_env.engine.view``) is everything a
seat may know, and the observation is the encoding of that view.

For every profile and player count a session is played from the view alone (each seat's heuristic decides from
``state.public_view(seat)``, with some random moves for variety), and at every decision, for every seat:

* the view is unchanged when every card that seat cannot see is redealt (``state.resample_hidden``), in every phase
  (the seat to move at every decision, the others at every third: resampling the mover's opponents is the slow part);
* the view's legal actions are the engine's for the seat to move and empty for the others;
* the observation of ``encode(state, seat)`` and of the fast path ``encode_state(state, seat)`` is ``encode(view)``;
* a view taken earlier still equals its copy after the game has moved on (it holds nothing of the engine's).

Through the env: ``observe(agent)["observation"]`` is ``observer.encode(env.public_view(agent))``, and the bots'
``public_view(env, agent)`` is the env's.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import rummy_env
from rummy_env.bots.heuristic import POLICIES
from rummy_env.bots.view import public_view as bot_public_view
from rummy_env.engine.view import ContinentalView, PublicView, TableMeld, ViewSeatError
from rummy_env.registry import GAMES, game

#: every profile and player count, with a short session (contract: a groups round, a runs round, the final round;
#: continental: its default session, one deal per player)
CASES = [
    (profile, n, {"rounds": (1, 4, 7)} if g.family == "contract" else {"rounds": None})
    for profile, g in sorted(GAMES.items())
    for n in g.player_counts
]
IDS = [f"{p}-{n}p" for p, n, _ in CASES]
#: phases every session of the profile family is expected to show
PHASES = {
    "contract": {"draw", "buy", "act", "opening", "game_over"},
    "contract_gamerules": {"draw", "act", "opening", "game_over"},
    "continental": {"draw", "act", "game_over"},
}
#: fraction of decisions played at random (the heuristic alone would leave some positions out)
RANDOM_SHARE = 0.15


def _rules(profile: str, n: int):
    g = game(profile)
    return g.rules() if n == g.default_players and g.min_players == g.max_players else g.rules(num_players=n)


def _frozen(value) -> bool:
    """True if ``value`` holds nothing mutable (ints, strings, None, tuples of these, frozen rules / layouts)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if isinstance(value, tuple):
        return all(_frozen(v) for v in value)
    return dataclasses.is_dataclass(value) and value.__dataclass_params__.frozen


def _check_views(st, observer, rng, stats, resample_all: bool = True) -> list:
    """Every check of one position, for every seat (the hidden cards resampled for every seat, or for the seat to
    move only); returns the views (to be compared again later)."""
    views = []
    for seat in range(st.n):
        view = st.public_view(seat)
        views.append(view)
        assert isinstance(view, (PublicView, ContinentalView))
        assert view.seat == seat and view.num_players == st.n
        if stats["decisions"] % 10 == 0:
            for f in dataclasses.fields(view):
                if f.name != "layout":
                    assert _frozen(getattr(view, f.name)), (f.name, type(getattr(view, f.name)))
        assert view.legal == (tuple(st.legal_actions()) if st.current_player == seat else ())
        obs = observer.encode(view)
        assert np.array_equal(obs, observer.encode(st, seat))
        assert observer.encode_state(st, seat).tobytes() == obs.tobytes()  # the envs' fast path, without the view
        if not resample_all and seat != st.current_player:
            continue
        other = st.resample_hidden(seat, rng)
        hidden_changed = other.stock != st.stock or any(other.hands[p] != st.hands[p] for p in range(st.n) if p != seat)
        stats["resampled"] += hidden_changed
        assert other.public_view(seat) == view, f"seat {seat}'s view changed in phase {st.phase}"
        assert observer.encode(other.public_view(seat)).tobytes() == obs.tobytes()
        assert observer.encode_state(other, seat).tobytes() == obs.tobytes()
    return views


@pytest.mark.parametrize(("profile", "n", "config"), CASES, ids=IDS)
def test_view_is_unchanged_when_hidden_cards_are_resampled(profile, n, config):
    g = game(profile)
    rules = _rules(profile, n)
    rng = np.random.Generator(np.random.PCG64(7))
    observer = g.observer(rules, config["rounds"])
    st = g.new_state(rules, seed=3, **config)
    policies = [POLICIES[profile](np.random.Generator(np.random.PCG64(30 + i))) for i in range(n)]
    stats = {"resampled": 0, "decisions": 0}
    phases: set[str] = set()
    kept: list[tuple] = []
    while not st.is_terminal():
        phases.add(st.phase)
        views = _check_views(st, observer, rng, stats, resample_all=stats["decisions"] % 3 == 0)
        if stats["decisions"] % 25 == 0:
            kept.append((views, [st.clone().public_view(s) for s in range(n)]))
        view = views[st.current_player]
        if len(view.legal) == 1 or rng.random() < RANDOM_SHARE:
            action = view.legal[int(rng.integers(len(view.legal)))]
        else:
            action = policies[st.current_player].decide(view)  # a heuristic needs the view only
        st.apply(action)
        stats["decisions"] += 1
    phases.add(st.phase)
    for view in _check_views(st, observer, rng, stats):
        assert view.session_over and view.legal == ()
    # the earlier views did not follow the game: they hold copies, not the engine's lists
    for views, copies in kept:
        assert views == copies
    assert PHASES[profile] <= phases, sorted(phases)
    assert stats["decisions"] > 50
    assert stats["resampled"] > stats["decisions"]  # the resampling really redealt hidden cards


@pytest.mark.parametrize(("profile", "n", "config"), CASES, ids=IDS)
def test_observation_is_the_encoding_of_the_view(profile, n, config):
    kwargs = {} if profile == "contract" else {"num_players": n}
    env = rummy_env.make(profile, **kwargs, **config)
    raw = env.unwrapped
    env.reset(seed=5)
    rng = np.random.Generator(np.random.PCG64(5))
    steps = 0
    for agent in env.agent_iter(max_iter=400):
        obs, _, term, trunc, _ = env.last()
        view = raw.public_view(agent)
        assert np.array_equal(obs["observation"], raw.observer.encode(view))
        assert bot_public_view(env, agent) == view
        pieces = raw.observation_pieces(agent)
        assert np.array_equal(np.concatenate([p.ravel() for p in pieces.values()]), obs["observation"])
        assert np.array_equal(raw.state()[-raw.observer.size :], raw.observer.encode(raw.public_view("player_0")))
        if term or trunc:
            env.step(None)
            continue
        assert list(view.legal) == np.flatnonzero(obs["action_mask"]).tolist()
        env.step(int(view.legal[int(rng.integers(len(view.legal)))]))
        steps += 1
    assert steps > 50


def test_view_construction_and_seats():
    st = game("contract").new_state(game("contract").rules(), seed=1)
    view = st.public_view(st.current_player)
    # the builders' fast path makes the same object as the dataclass constructor
    fields = {f.name: getattr(view, f.name) for f in dataclasses.fields(view)}
    assert PublicView(**fields) == view
    assert dataclasses.replace(view) == view
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.hand = ()  # type: ignore[misc]
    for bad in (-1, 4, "0", 1.0, True):
        with pytest.raises(ViewSeatError):
            st.public_view(bad)
    assert st.public_view(np.int64(2)) == st.public_view(2)


def test_table_melds_are_frozen_copies():
    g = game("contract")
    st = g.new_state(g.rules(), seed=0, rounds=(1,))
    rng = np.random.Generator(np.random.PCG64(0))
    while not st.table and not st.is_terminal():
        legal = st.legal_actions()
        melds = [a for a in legal if st.action_info(a)["kind"] == "meld"]
        st.apply(melds[0] if melds else legal[int(rng.integers(len(legal)))])
    assert st.table, "no meld was laid"
    view = st.public_view(0)
    owner = st.table[0].owner
    snap = view.seat_melds[owner][0]
    assert isinstance(snap, TableMeld) and isinstance(snap.cards, tuple)
    assert snap.to_meld() == st.seat_melds[owner][0]
    assert view.melds[owner][0] == st.seat_melds[owner][0]
    assert view.melds[owner][0] is not st.seat_melds[owner][0]
    assert view.table() == [m for ms in st.seat_melds for m in ms]


@pytest.mark.parametrize("profile", ["contract", "contract_gamerules", "continental"])
def test_encode_into_a_given_row_equals_a_fresh_encoding(profile: str) -> None:
    """``observer.encode(view, out=row)`` writes the same float32 vector into the row (stale contents cleared) and
    refuses a row of the wrong dtype, size or layout with ``ObservationOutError`` (a ValueError)."""
    from rummy_env.encoding.observation import ObservationOutError

    env = rummy_env.make(profile, wrapped=False)
    env.reset(seed=11)
    u = env.unwrapped
    view = u.public_view(env.agent_selection)
    fresh = u.observer.encode(view)
    batch = np.full((3, u.observer.size), 7.0, dtype=np.float32)
    got = u.observer.encode(view, out=batch[1])
    assert got is batch[1] or np.shares_memory(got, batch[1])
    assert np.array_equal(batch[1], fresh) and (batch[0] == 7.0).all() and (batch[2] == 7.0).all()
    for bad in (np.zeros(u.observer.size, dtype=np.float64), np.zeros(u.observer.size + 1, dtype=np.float32),
                np.zeros((u.observer.size, 2), dtype=np.float32)[:, 0]):
        with pytest.raises(ObservationOutError):
            u.observer.encode(view, out=bad)
