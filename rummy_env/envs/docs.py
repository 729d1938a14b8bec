"""Markdown tables of every environment's action ranges, observation pieces and spaces, generated from the code.

``python -m rummy_env.envs.docs`` prints them; tests check that the environment pages (docs/environments/) and the env modules' docstrings (their spec
sheets) hold exactly these tables, so the docs cannot drift from the action layout or the observation encoder.
"""

from __future__ import annotations

import rummy_env
from rummy_env.registry import GAMES

#: (profile, config) of every documented table
DOC_CASES = [
    ("contract", {}),
    ("contract_gamerules", {"num_players": 4}),
    ("continental", {"num_players": 4}),
]


def action_table(profile: str, **config: object) -> str:
    """The action ranges of an env as a markdown table."""
    env = rummy_env.make(profile, wrapped=False, **config)
    rows = ["| range | first id | last id | size |", "|---|---|---|---|"]
    for name, first, last, size in env.layout.table_rows():
        rows.append(f"| `{name}` | {first} | {last} | {size} |")
    return "\n".join(rows)


def observation_table(profile: str, **config: object) -> str:
    """The observation pieces of an env (name, offset, shape, meaning) as a markdown table."""
    env = rummy_env.make(profile, wrapped=False, **config)
    rows = ["| piece | offset | shape | meaning |", "|---|---|---|---|"]
    for name, offset, shape, doc in env.observer.pieces.table_rows():
        rows.append(f"| `{name}` | {offset} | {tuple(shape)} | {doc} |")
    rows.append(f"| total | | ({env.observer.size},) | |")
    return "\n".join(rows)


#: the player counts of every profile (the spaces table of its env docstring has one row per count)
PLAYER_COUNTS = {g.id: g.player_counts for g in GAMES.values()}


def spaces_table(profile: str) -> str:
    """The spaces of an env per player count (action, observation, state) as a markdown table: the table of its
    module docstring."""
    rows = [
        "| `num_players` | action space | observation (`\"observation\"`) | `\"action_mask\"` | `state_space` |",
        "|---|---|---|---|---|",
    ]
    for n in PLAYER_COUNTS[profile]:
        # a profile that seats one player count takes no num_players argument of its own
        config = {"num_players": n} if len(PLAYER_COUNTS[profile]) > 1 else {}
        env = rummy_env.make(profile, wrapped=False, **config)
        obs = env.observation_space(env.possible_agents[0])["observation"]
        rows.append(
            f"| {n} | `Discrete({env.num_actions})` | `Box(0, high, {obs.shape}, float32)` | "
            f"`Box(0, 1, ({env.num_actions},), int8)` | `Box(0, high, {env.state_space.shape}, float32)` |"
        )
    return "\n".join(rows)


def main() -> None:
    """Print every table."""
    for profile, config in DOC_CASES:
        label = ", ".join(f"{k}={v}" for k, v in config.items())
        print(f"### {profile} {label}\n\nActions:\n\n{action_table(profile, **config)}\n")
        print(f"Observation:\n\n{observation_table(profile, **config)}\n")
    for profile in PLAYER_COUNTS:
        print(f"### {profile} spaces (env docstring)\n\n{spaces_table(profile)}\n")


if __name__ == "__main__":
    main()
