"""Markdown tables of every environment's action ranges and observation pieces, generated from the code.

``python -m rummy_env.docs`` prints them; a test checks that the README holds exactly these tables, so the docs
cannot drift from the action layout or the observation encoder.
"""

from __future__ import annotations

import rummy_env

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
    for name, first, last, size in env.state_.layout.table_rows():
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


def main() -> None:
    """Print every table."""
    for profile, config in DOC_CASES:
        label = ", ".join(f"{k}={v}" for k, v in config.items())
        print(f"### {profile} {label}\n\nActions:\n\n{action_table(profile, **config)}\n")
        print(f"Observation:\n\n{observation_table(profile, **config)}\n")


if __name__ == "__main__":
    main()
