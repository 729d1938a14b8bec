"""# Continental rummy (`continental_v0`)

```python
from rummy_env import continental_v0
env = continental_v0.env(num_players=4)
```

| | |
|---|---|
| Agents | `player_0` .. `player_{n-1}`, `num_players` 4 or 5 |
| Actions | `Discrete(109)`: `draw_stock` 0, `draw_discard` 1, `discard` 2..54 (card kind), `declare` 55, `discard_declare` 56..108 (card kind) |
| Observations | `{"observation": Box, "action_mask": Box(int8)}`, bounded, sizes in "Spaces", pieces in docs/environments/continental.md |
| Rules | document 004, spec C.1/C.2 (`docs/rules/continental.md`), frozen `ContinentalRules` |

One `step` is one decision: draw (stock or discard top), then discard — "discard X" (the turn passes) or, legal
only when the 15 cards left form a valid hand, "discard X and declare" (`discard_declare`: go out). The turn order
and the other seats' observations never depend on whether a hidden hand is valid. At the start of his own first
turn a player whose dealt 15 are valid may declare without drawing (`declare`). With `declare_mandatory=True` a
discard that leaves a valid hand must declare. The going-out check is exact (runs only, 2s and jokers wild).

## Spaces

Default session (one deal per player):

| `num_players` | action space | observation (`"observation"`) | `"action_mask"` | `state_space` |
|---|---|---|---|---|
| 4 | `Discrete(109)` | `Box(0, high, (556,), float32)` | `Box(0, 1, (109,), int8)` | `Box(0, high, (825,), float32)` |
| 5 | `Discrete(109)` | `Box(0, high, (614,), float32)` | `Box(0, 1, (109,), int8)` | `Box(0, high, (937,), float32)` |

## Rewards

| `reward=` | when | value |
|---|---|---|
| `"payment"` (default) | end of each deal | the deal's balance change / 100 (zero-sum) |
| `"win"` | end of the session | the leaders share +1, the others share -1 |

## Arguments

`continental_v0.env(num_players=4, render_mode=None, reward="payment", deals=None, illegal_action="terminate",
max_steps=None, max_cycles=None, illegal_reward=-1.0, flat_observation=False, **rule_overrides)` (`raw_env` the
same with `illegal_action="raise"`); `deals=1` plays one deal (default: one per player); `flat_observation=True`:
the observation is the `Box` alone and the mask `infos[agent]["action_mask"]`, as `contract_v0`.

## Conventions for RL clients

Illegal actions, seeding, infos, `results()` and `state()` as `contract_v0` (its "Conventions for RL clients").
Registered as the PettingZoo id `rummy_env/continental-v0` (`pettingzoo.make("aec", "rummy_env/continental-v0", max_cycles=N)`: truncation after
N x num_players decisions).

## Version history

* v0: first release.
* v0, issue 13: the declare / pass decision after the discard (phase `declare`, which showed every seat that the
  mover held a valid hand) became part of the discard: `pass` 56 was removed, `discard_declare` 56..108 added
  (57 -> 109 actions); the observation keeps its size (the phase piece's third slot stays 0).
"""

from __future__ import annotations

from typing import Any

from ..core.cards import card_str
from ..engine.continental import deprecated_deals
from ..rules import get_rules
from .base import RummyAECEnv, hand_text, wrap
from .session import REWARD_MODES_BY_SCORE


class raw_env(RummyAECEnv):  # noqa: N801 - PettingZoo naming
    """Continental rummy for 4-5 players as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": "continental_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }
    profile = "continental"
    reward_modes = REWARD_MODES_BY_SCORE["payment"]

    def __init__(
        self,
        num_players: int = 4,
        render_mode: str | None = None,
        reward: str | None = None,
        rounds: int | None = None,
        illegal_action: str = "raise",
        max_steps: int | None = None,
        max_cycles: int | None = None,
        illegal_reward: float = -1.0,
        deals: int | None = None,
        flat_observation: bool = False,
        **rule_overrides: Any,
    ):
        super().__init__(
            get_rules(self.profile, num_players=num_players, **rule_overrides),
            deprecated_deals(rounds, deals),
            render_mode=render_mode,
            reward=reward,
            illegal_action=illegal_action,
            max_steps=max_steps,
            illegal_reward=illegal_reward,
            max_cycles=max_cycles,
            flat_observation=flat_observation,
        )

    def table_text(self, view: Any, winners: list[int] | None = None) -> str:
        """The text of a public view: seats, balances, first turns, the decision and the viewer's hand."""
        v = view
        top = card_str(v.discard[-1], symbols=True) if v.discard else "-"
        lines = [
            f"Deal {v.round} of {v.num_deals}, dealer P{v.dealer}, turn {v.turn}, stock {v.stock_size}, "
            f"discard {len(v.discard)}, discard top {top}"
        ]
        for p in range(v.num_players):
            mark = "*" if p == v.current else " "
            first = ", first turn to come" if v.turns_taken[p] == 0 else ""
            lines.append(f"{mark}P{p}: {v.hand_sizes[p]} cards, balance {v.scores[p]}{first}")
        if v.session_over:
            lines.append(f"Session over. Balances {list(v.scores)}; winners {winners}")
        else:
            lines.append(f"Decision: P{v.current}, phase '{v.phase}'")
            lines.append(hand_text(v))
        return "\n".join(lines)


def env(illegal_action: str = "terminate", **kwargs: Any) -> raw_env:
    """``raw_env`` with PettingZoo's classic conventions: an illegal action ends the game with -1 for the offender
    (``illegal_action="terminate"``, as ``TerminateIllegalWrapper``; ``"raise"`` for debugging), wrapped in
    ``OrderEnforcingWrapper``."""
    return wrap(raw_env(illegal_action=illegal_action, **kwargs))  # type: ignore[return-value]


__all__ = ["env", "raw_env"]
