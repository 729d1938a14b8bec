"""Per-seat transitions of ``training/ppo.py``'s rollouts: each recorded seat's own chain of decisions.

A rummy decision is followed by other seats' decisions before the same seat decides again, so a seat's transition
runs from one of its decisions to its next one and collects exactly the rewards that seat receives in between.
``SeatChains`` keeps, for each table, the chain id of every recorded seat (one chain per seat and deal), the row of
its last (open) transition and its return so far; it builds the rollout's rows (``ppo.RolloutBuffer.ROWS``).
"""

from __future__ import annotations

from typing import Any

from common import round_score

RECORDED = ("current", "teacher")  # roles whose decisions are training data


class SeatChains:
    """The recorded seats of ``num_envs`` tables: chain ids (``worker`` keeps them apart between workers), open
    transitions, returns; the rows and finished episodes of the rollout being collected."""

    def __init__(self, num_envs: int, worker: int, fields: tuple[str, ...]):
        self.fields = fields
        self.chain: list[dict[int, int]] = [{} for _ in range(num_envs)]  # seat -> id of its chain this deal
        self.next_chain = worker * 1_000_000_000
        self.open: list[dict[int, int]] = [{} for _ in range(num_envs)]  # seat -> row of its last transition
        self.episode_return: list[dict[int, float]] = [{} for _ in range(num_envs)]
        self.begin()

    def begin(self) -> None:
        """Start a rollout: no rows, no episodes yet."""
        self.rows: dict[str, list] = {key: [] for key in self.fields}
        self.episodes: list[dict[str, Any]] = []
        # rewards of a learner seat that arrive after its chain was cut at the end of a rollout and before its first
        # decision of the next one: the cut transition's bootstrap value stands for them, so they are not trained on
        self.reward_after_cut = 0.0

    def new_deal(self, e: int, roles: list[str]) -> None:
        """Table ``e`` is dealt afresh with ``roles``: each recorded seat starts a chain of decisions."""
        self.open[e] = {}
        self.chain[e] = {}
        for s, role in enumerate(roles):
            if role in RECORDED:
                self.chain[e][s] = self.next_chain
                self.next_chain += 1
        self.episode_return[e] = {s: 0.0 for s, r in enumerate(roles) if r in RECORDED}

    def record(self, e: int, seat: int, **decision: Any) -> None:
        """A new row for the decision of table ``e``'s ``seat``, linked from the seat's previous row."""
        rows = self.rows
        i = len(rows["action"])
        prev = self.open[e].get(seat)
        if prev is not None:
            rows["next"][prev] = i
        self.open[e][seat] = i
        row = {**decision, "reward": 0.0, "done": False, "next": -1, "bootstrap": 0.0, "chain": self.chain[e][seat]}
        for key in self.fields:
            rows[key].append(row[key])

    def credit(self, e: int, env: Any) -> None:
        """Each recorded seat's reward of the last step of table ``e`` goes to that seat's own last transition."""
        for seat in self.episode_return[e]:
            r = env.rewards[env.possible_agents[seat]]
            if r:
                self.episode_return[e][seat] += r
                i = self.open[e].get(seat)
                if i is None:
                    self.reward_after_cut += abs(r)
                else:
                    self.rows["reward"][i] += r

    def end_deal(self, e: int, env: Any, roles: list[str], truncated: bool, value: Any) -> None:
        """Table ``e``'s episode ended: close its chains (cut by max_steps: bootstrap with ``value(observation)`` of
        the seat's last observation) and note its episodes."""
        for seat, i in self.open[e].items():
            if truncated:
                o = env.observe(env.possible_agents[seat])["observation"]
                self.rows["bootstrap"][i] = float(value(o[None])[0])
            else:
                self.rows["done"][i] = True
        results = env.round_results or [{}]
        for seat, ret in self.episode_return[e].items():
            self.episodes.append(
                {
                    "chain": self.chain[e][seat],
                    "seat": seat,
                    "return": ret,
                    "round_scores": [round_score(r, seat) for r in results if r],
                    "opponents": ",".join(r for s, r in enumerate(roles) if s != seat),
                }
            )

    def cut(self) -> list[tuple[int, int, int]]:
        """The end of the rollout cuts the open chains: their (table, seat, row); the next rollout starts new ones."""
        cut = [(e, seat, i) for e, open_ in enumerate(self.open) for seat, i in open_.items()]
        self.open = [{} for _ in self.open]
        return cut
