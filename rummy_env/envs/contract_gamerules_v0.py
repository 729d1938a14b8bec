"""# Contract Rummy, gamerules family rules (`contract_gamerules_v0`)

```python
from rummy_env import contract_gamerules_v0
env = contract_gamerules_v0.env(num_players=3)
```

| | |
|---|---|
| Agents | `player_0` .. `player_{n-1}`, `num_players` 3, 4 (53 cards) or 5 (106 cards, B.2-1) |
| Actions | `Discrete(N)` for the player count, the same in every round (sizes in "Spaces") |
| Observations | as `contract_v0`, plus the piece `must_place` (the deep-pickup card that must reach the table) |
| Rules | document 003, spec B.1/B.2 (`docs/rules/contract_gamerules.md`), frozen `ContractRules` profile `contract_gamerules` |

Same conventions as `contract_v0` (one atomic decision per `step`, exact masks, rewards, scenarios,
`illegal_action`, `rounds`, `max_steps`). Differences: no buy window (no `buy`/`pass` range); the `pickup` range
holds one action per depth d >= 2 (take the card at depth d and every card above it; legal only when that card can
really be put on the table this turn, and no discard is legal until it is); sets of 3-4 distinct suits, runs of 3+;
melds longer than the minimum are built as a minimum meld plus same-turn lay-offs; a hand emptied by melding or
laying off goes out without a discard; round 7 goes out at once as three runs of different suits.

## Spaces

| `num_players` | action space | observation (`"observation"`) | `"action_mask"` | `state_space` |
|---|---|---|---|---|
| 3 | `Discrete(1984)` | `Box(0, high, (1437,), float32)` | `Box(0, 1, (1984,), int8)` | `Box(0, high, (1652,), float32)` |
| 4 | `Discrete(2476)` | `Box(0, high, (1786,), float32)` | `Box(0, 1, (2476,), int8)` | `Box(0, high, (2055,), float32)` |
| 5 | `Discrete(3321)` | `Box(0, high, (2135,), float32)` | `Box(0, 1, (3321,), int8)` | `Box(0, high, (2458,), float32)` |

Conventions for RL clients (illegal actions, seeding, infos, `state()`) as `contract_v0`; PettingZoo id
`rummy_env/contract_gamerules-v0`.

## Version history

* v0: first release. A set's joker now names its suit (B.1-3): the set meld actions carry it, which enlarged the
  action table (it was 1906 / 2398 / 3139 actions); the shipped checkpoint was migrated to the new ids.
"""

from __future__ import annotations

from typing import Any

from .base import wrap
from .contract_v0 import raw_env as _contract_raw_env


class raw_env(_contract_raw_env):  # noqa: N801 - PettingZoo naming
    """Contract Rummy (gamerules family rules) for 3-5 players as a PettingZoo AEC environment."""

    metadata = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": "contract_gamerules_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }
    profile = "contract_gamerules"

    def __init__(self, num_players: int = 4, **kwargs: Any):
        super().__init__(num_players=num_players, **kwargs)


def env(illegal_action: str = "terminate", **kwargs: Any) -> raw_env:
    """``raw_env`` with PettingZoo's classic conventions: an illegal action ends the game with -1 for the offender
    (``illegal_action="terminate"``, as ``TerminateIllegalWrapper``; ``"raise"`` for debugging), wrapped in
    ``OrderEnforcingWrapper``."""
    return wrap(raw_env(illegal_action=illegal_action, **kwargs))  # type: ignore[return-value]


__all__ = ["env", "raw_env"]
