"""# Contract Rummy (`contract_v0`)

```python
from rummy_env import contract_v0
env = contract_v0.env(render_mode="ansi")
```

| | |
|---|---|
| Agents | `player_0` .. `player_3` |
| Actions | `Discrete(3089)`, the same in every round (named ranges below) |
| Observations | `{"observation": Box, "action_mask": Box(int8)}`, bounded, sizes in "Spaces" (`flat_observation=True`: the `Box` alone, the mask in `infos[agent]["action_mask"]`) |
| Rules | document 000, spec A.1/A.2 (`docs/rules/contract.md`), frozen `ContractRules` |

One `step` is one atomic decision: draw, buy or pass, each meld of an opening, each lay-off, a joker swap, the
placement of the freed joker, the discard, going out. The same agent may act several times in a row; during a
buy window the eligible players are asked in priority order (nearest in future turn order first).
`agent_selection` is always the player whose decision it is.

## Spaces

| `num_players` | action space | observation (`"observation"`) | `"action_mask"` | `state_space` |
|---|---|---|---|---|
| 4 | `Discrete(3089)` | `Box(0, high, (1790,), float32)` | `Box(0, 1, (3089,), int8)` | `Box(0, high, (2059,), float32)` |

## Action table

| range | ids | meaning |
|---|---|---|
| `draw_stock` | 0 | take the stock top (declines the discard: opens the buy window) |
| `draw_discard` | 1 | take the discard top |
| `buy` | 2 | buy the offered discard top (+ penalty card from the stock) |
| `pass` | 3 | do not buy |
| `meld` | 4..1066 | declare one exact-minimum meld of the opening: 403 groups (rank x suits of the naturals x jokers), then 660 runs (suit x lowest position 1..11 x joker positions) |
| `lay_off` | 1067..2338 | (card kind 0..52) x (slot 0..11) x (end: 0 = low end or group, 1 = high end) |
| `swap_joker` | 2339..3010 | (suit x position 1..14 of the joker to replace) x slot |
| `place_joker` | 3011..3034 | slot x end for the freed joker |
| `discard` | 3035..3087 | discard a card of kind 0..52 |
| `go_out` | 3088 | round 7: lay the whole hand as three runs (the engine finds the partition) |

A *slot* is `seat_offset * 3 + meld_number`, `seat_offset = (owner - actor) % 4` (0 = own melds): actions see the
table from the actor's seat. `action_info(a)` gives absolute seats. Card kind = `suit * 13 + rank - 1` (suits C, D,
H, S; ace = 1), joker = 52.

## Observation

A float32 vector from the observer's seat (seats rotated: offset 0 = observer), built from named pieces
(`env.unwrapped.observation_pieces(agent)` returns them as shaped views); see docs/environments/contract.md, "Observation", for the table
of offsets. Never depends on an opponent's hidden cards or the stock order.

## Rewards

| `reward=` | when | value |
|---|---|---|
| `"penalty"` (default) | end of each round | -(own penalty of that round) / 100; episode return = -(session total) / 100 |
| `"relative"` | end of each round | (table mean penalty - own penalty) / 100; zero-sum |
| `"win"` | end of the session | winners share +1, the others share -1 (all tied: 0) |

## Arguments

`contract_v0.env(render_mode=None, reward="penalty", rounds=None, illegal_action="terminate", max_steps=None,
max_cycles=None, illegal_reward=-1.0, flat_observation=False, **rule_overrides)` (`raw_env` the same with
`illegal_action="raise"`): `rounds=(1,)` plays a subset of rounds; `max_steps` (decisions) or `max_cycles`
(x num_players decisions) truncates; `flat_observation=True` makes `observe` return the float32 vector alone
(`observation_space` its `Box`) and adds `"action_mask"` (int8, all zeros for an agent whose decision it is not)
to every `infos[agent]`, where AgileRL's multi-agent algorithms look for it; rule overrides are fields of
`ContractRules` (e.g. `turn_cap=200`, `forbid_rediscard=False`).
`reset(seed=..., options={"scenario": {...}})` starts from a JSON state (docs/guides/engine.md "JSON state").

## Conventions for RL clients

`env()` follows PettingZoo's classic envs: an illegal action (an integer the mask refuses, or `None` for a live
agent) ends the game with `illegal_reward=-1` for the offender and every agent terminated, and logs PettingZoo's
warning (`illegal_action="terminate"`, what `TerminateIllegalWrapper` does), so clients that sample without the
mask run. `raw_env()` keeps `illegal_action="raise"` (an `IllegalActionError` naming the legal actions, the state
unchanged) for debugging; either constructor takes either mode. Only integers (`int`, numpy integer, 0-d integer
array) are actions: anything else raises `IllegalActionError` naming its type, in both modes.
`metadata["is_parallelizable"]` is False (turn-based: use `turn_based_aec_to_parallel`). `reset(seed=s)` deals
the game of seed `s`; a later `reset()` continues that seeded stream. Every `infos[agent]` has the keys `round`,
`round_over`, `turn_cap`, `session_over`, `illegal_move` (int / bool) after every step; the round and session
results are `env.unwrapped.results()`. `state()` / `state_space` (centralised critics only: it holds every hand
and the stock as counts) is `hands (n, 53)`, `stock (53,)`, `to_move (n,)`, then the observation of seat 0.
Registered as the PettingZoo id `rummy_env/contract-v0` (`pettingzoo.make("aec", "rummy_env/contract-v0", max_cycles=N)`: truncation after
N x num_players decisions).

## Version history

* v0: first release.
"""

from __future__ import annotations

from typing import Any

from ..core.cards import SUIT_SYMBOLS, card_str
from ..rules import get_rules
from .base import RummyAECEnv, hand_text, wrap


class raw_env(RummyAECEnv):  # noqa: N801 - PettingZoo naming
    """Contract Rummy for 4 players as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": "contract_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }
    profile = "contract"

    def __init__(
        self,
        render_mode: str | None = None,
        reward: str = "penalty",
        rounds: Any = None,
        illegal_action: str = "raise",
        max_steps: int | None = None,
        max_cycles: int | None = None,
        illegal_reward: float = -1.0,
        flat_observation: bool = False,
        **rule_overrides: Any,
    ):
        super().__init__(
            get_rules(self.profile, **rule_overrides),
            rounds,
            render_mode=render_mode,
            reward=reward,
            illegal_action=illegal_action,
            max_steps=max_steps,
            illegal_reward=illegal_reward,
            max_cycles=max_cycles,
            flat_observation=flat_observation,
        )

    def table_text(self, view: Any, winners: list[int] | None = None) -> str:
        """The text of a public view: seats, melds, scores, discard top, the decision and the viewer's hand."""
        v = view
        lines = []
        g, r = v.contract
        lines.append(
            f"Round {v.round} of {len(v.rounds)} (contract: {g} group(s) + {r} run(s)), dealer P{v.dealer}, "
            f"turn {v.turn}, stock {v.stock_size}, discard {len(v.discard)}"
        )
        top = card_str(v.discard[-1], symbols=True) if v.discard else "-"
        lines.append(f"Discard top: {top}")
        for p in range(v.num_players):
            mark = "*" if p == v.current else " "
            opened = "opened" if v.opened[p] else "not opened"
            lines.append(f"{mark}P{p}: {v.hand_sizes[p]:2d} cards, {opened}, score {v.scores[p]}")
            for i, m in enumerate(v.melds[p]):
                cards = " ".join(
                    c.replace("C", SUIT_SYMBOLS[0]).replace("D", SUIT_SYMBOLS[1]).replace("H", SUIT_SYMBOLS[2])
                    .replace("S", SUIT_SYMBOLS[3]) if not c.startswith("JK") else c
                    for c in m.card_strings()
                )  # fmt: skip
                lines.append(f"      meld {i}: {m.kind} {cards}")
        if v.session_over:
            lines.append(f"Session over. Scores {list(v.scores)}; winners {winners}")
        else:
            lines.append(f"Decision: P{v.current}, phase '{v.phase}' (turn of P{v.active})")
            lines.append(hand_text(v))
        return "\n".join(lines)


def env(illegal_action: str = "terminate", **kwargs: Any) -> raw_env:
    """``raw_env`` with PettingZoo's classic conventions: an illegal action ends the game with -1 for the offender
    (``illegal_action="terminate"``, as ``TerminateIllegalWrapper``; ``"raise"`` for debugging), wrapped in
    ``OrderEnforcingWrapper``."""
    return wrap(raw_env(illegal_action=illegal_action, **kwargs))  # type: ignore[return-value]


__all__ = ["env", "raw_env"]
