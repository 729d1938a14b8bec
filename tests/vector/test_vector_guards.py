"""``VectorEnv`` refuses misuse before any work, leaving every table as it was (issue 40, point 10).

* ``observe_seats`` replaced by an array of another shape (or a non-integer dtype): ``step`` and ``reset`` raise
  ``VectorConfigError`` before a table moves; the arrays and the tables are unchanged, and the same step goes
  through once a well-shaped array is back.
* ``public_view(i, seat)`` refuses the seats ``observe(i, seat)`` refuses (``1.5``, ``True``, ``"1"``, ...), instead
  of reading ``int(1.5)``'s view.
"""

from __future__ import annotations

import numpy as np
import pytest

from rummy_env.registry import GAMES
from rummy_env.vector import VectorConfigError, VectorEnv, random_legal_actions

PROFILES = sorted(GAMES)


def _snapshot(vec: VectorEnv) -> tuple:
    """Every array the caller reads and every table's JSON state."""
    arrays = tuple(a.copy() for a in (vec.obs, vec.mask, vec.seat, vec.rewards, vec.done))
    return arrays, [vec.game_state(i) for i in range(vec.num_envs)]


def _same(a: tuple, b: tuple) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a[0], b[0])) and a[1] == b[1]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(
    "bad",
    [
        lambda e, n: np.ones((e, n + 1), dtype=bool),  # a seat too many
        lambda e, n: np.ones((e + 1, n), dtype=bool),  # a table too many
        lambda e, n: np.ones(e, dtype=bool),  # one flag per table
        lambda e, n: np.ones((n, e), dtype=bool),  # transposed (e != n below)
        lambda e, n: np.ones((e, n), dtype=np.float32),  # not bool or integer
        lambda e, n: [[True] * n] * e,  # a list, not an array
    ],
    ids=["extra-seat", "extra-table", "1-d", "transposed", "float", "list"],
)
def test_a_misshaped_observe_seats_is_refused_before_any_table_moves(profile, bad) -> None:
    vec = VectorEnv(profile, 3, seed=5, rounds=1)
    vec.reset()
    rng = np.random.default_rng(0)
    for _ in range(5):
        vec.step(random_legal_actions(vec.mask, rng))
    actions = random_legal_actions(vec.mask, rng)
    before = _snapshot(vec)
    good = vec.observe_seats
    vec.observe_seats = bad(vec.num_envs, vec.num_players)
    with pytest.raises(VectorConfigError, match="observe_seats"):
        vec.step(actions)
    assert _same(_snapshot(vec), before), "a refused step changed a table or an array"
    with pytest.raises(VectorConfigError, match="observe_seats"):
        vec.reset()
    assert _same(_snapshot(vec), before), "a refused reset changed a table or an array"
    vec.observe_seats = good
    vec.step(actions)  # the same step, now accepted
    assert vec.game_state(0) != before[1][0] or vec.game_state(1) != before[1][1]


@pytest.mark.parametrize("profile", PROFILES)
def test_public_view_refuses_the_seats_observe_refuses(profile) -> None:
    vec = VectorEnv(profile, 2, seed=1, rounds=1)
    vec.reset()
    n = vec.num_players
    for seat in (1.5, 1.0, True, False, np.bool_(True), "1", None, -1, n, np.int64(n)):
        with pytest.raises(VectorConfigError, match="seat"):
            vec.observe(0, seat)
        with pytest.raises(VectorConfigError, match="seat"):
            vec.public_view(0, seat)
    for seat in (0, n - 1, np.int64(1), np.int8(1)):
        view = vec.public_view(1, seat)
        assert view.seat == int(seat)
        assert np.array_equal(vec.observe(1, seat), vec.observe(1, int(seat)))
