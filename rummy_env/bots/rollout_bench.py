"""Rollouts a second: full rounds played by the heuristic (the search bot's rollouts before issue 42) and by the fast
rollout policy (``rollout.FastContractPolicy``), measured in one run.

``bench_rollouts(profile, seconds)`` deals fresh rounds (round 1 of the contract family, one deal of continental) from
seeds 0, 1, 2, ... and plays each to its end with the heuristic at every seat (one instance per seat, deciding from
the engine's public view, as ``SearchBot.rollout`` does) and, on the same deal right after, with the fast policy
(where the profile has one): the two interleaved round by round, so a change in the machine's load touches both
alike; CPU seconds (``time.process_time``).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..registry import game
from .heuristic import POLICIES
from .rollout import FAST_POLICIES, play_out


def _heuristic_round(g: Any, rules: Any, seed: int, policies: list[Any]) -> int:
    """One fresh round played to its end by the heuristic at every seat: the decisions played."""
    st = g.new_state(rules, seed=seed, rounds=1)
    steps = 0
    while not st.is_terminal() and not st.round_results:
        legal = st.legal_actions()
        mover = st.current_player
        st.apply(legal[0] if len(legal) == 1 else policies[mover].decide(st.public_view(mover)))
        steps += 1
    return steps


def _fast_round(g: Any, rules: Any, seed: int, policy: Any) -> int:
    """One fresh round played to its end by the fast policy at every seat: the decisions played."""
    st = g.new_state(rules, seed=seed, rounds=1)
    return play_out(st, policy, 0)


def _interleaved(plays: list[Any], seconds: float) -> list[tuple[int, int, float]]:
    """(rounds, decisions, CPU seconds) of each ``play(seed)`` of ``plays``, called in turn on seeds 0, 1, ... (the
    same deals for every player, their rounds interleaved so that a change in the machine's load touches all
    alike) until they have used about ``seconds`` together."""
    out = [[0, 0, 0.0] for _ in plays]
    seed = 0
    while sum(o[2] for o in out) < seconds:
        for play, o in zip(plays, out):
            start = time.process_time()
            o[1] += play(seed)
            o[2] += time.process_time() - start
            o[0] += 1
        seed += 1
    return [(o[0], o[1], o[2]) for o in out]


def bench_rollouts(profile: str = "contract", seconds: float = 4.0) -> dict[str, Any]:
    """Full-round rollouts a second of the heuristic and of the fast policy (None where the profile has none),
    measured in one run on the same deals, rounds interleaved, and their ratio: ``{"profile", "seconds",
    "heuristic": {...}, "fast": {...} | None, "speedup"}``, each side ``{"rollouts_per_s", "decisions_per_rollout",
    "rollouts"}``."""
    g = game(profile)
    rules = g.rules()
    factory = FAST_POLICIES.get(profile)
    policies = [POLICIES[profile](np.random.Generator(np.random.PCG64(i))) for i in range(rules.num_players)]
    plays = [lambda s: _heuristic_round(g, rules, s, policies)]
    if factory is not None:
        policy = factory()
        plays.append(lambda s: _fast_round(g, rules, s, policy))
    sides = [{"rollouts_per_s": r / t, "decisions_per_rollout": d / r, "rollouts": r}
             for r, d, t in _interleaved(plays, seconds)]
    fast = sides[1] if factory is not None else None
    speedup = fast["rollouts_per_s"] / sides[0]["rollouts_per_s"] if fast is not None else None
    return {"profile": profile, "seconds": seconds, "heuristic": sides[0], "fast": fast, "speedup": speedup}


__all__ = ["bench_rollouts"]
