"""Per-seat transitions of the rollouts of ``training/ppo.py``: each recorded seat's own chain of decisions.

A rummy decision is followed by other seats' decisions before the same seat decides again, so a seat's transition
runs from one of its decisions to its next one and collects exactly the rewards that seat receives in between.
``SeatChains`` keeps, for each table, the chain id of every recorded seat (one chain per seat and deal), the row of
its last (open) transition and its return so far; it builds the rollout's rows (``rummy_env.training.rollout.RolloutBuffer.ROWS``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..evaluation.match import round_scores

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
        self.rows: dict[str, list] = {key: [] for key in self.fields if key not in ("obs", "mask")}
        self.obs_chunks: list[np.ndarray] = []  # the rows' observations and masks, a 2-D chunk per recording step
        self.mask_chunks: list[np.ndarray] = []
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

    def record(self, tables: list[int], seats: list[int], obs: np.ndarray, mask: np.ndarray, **decision: Any) -> None:
        """New rows for the decisions of ``seats[k]`` at ``tables[k]`` (one step, one row each), each linked from its
        seat's previous row: ``obs`` / ``mask`` (2-D, a row per decision, kept as they are: pass copies) and
        ``decision`` (``action``, ``logp``, ``value``: one value per decision)."""
        rows = self.rows
        i = len(rows["action"])
        self.obs_chunks.append(obs)
        self.mask_chunks.append(mask)
        for key, values in decision.items():
            rows[key].extend(values.tolist() if isinstance(values, np.ndarray) else values)
        nxt, chain, open_ = rows["next"], rows["chain"], self.open
        for k, (e, seat) in enumerate(zip(tables, seats)):
            prev = open_[e].get(seat)
            if prev is not None:
                nxt[prev] = i + k
            open_[e][seat] = i + k
            chain.append(self.chain[e][seat])
        n = len(tables)
        rows["reward"].extend([0.0] * n)
        rows["done"].extend([False] * n)
        nxt.extend([-1] * n)
        rows["bootstrap"].extend([0.0] * n)

    def credit(self, rewards: np.ndarray) -> None:
        """Each recorded seat's reward of the last step (``rewards[e, seat]``: VectorEnv's ``rewards`` array) goes to
        that seat's own last transition at table ``e``."""
        tables, seats = np.nonzero(rewards)
        for e, seat in zip(tables.tolist(), seats.tolist()):
            ret = self.episode_return[e]
            if seat not in ret:
                continue  # not a recorded seat: its rewards are nobody's training data
            r = float(rewards[e, seat])
            ret[seat] += r
            i = self.open[e].get(seat)
            if i is None:
                self.reward_after_cut += abs(r)
            else:
                self.rows["reward"][i] += r

    def end_deal(self, e: int, results: dict[str, Any], roles: list[str]) -> None:
        """Table ``e``'s session ended (``results``: VectorEnv's ``final_results[e]``): close its chains (their last
        transitions are terminal) and note its episodes."""
        done = self.rows["done"]
        for i in self.open[e].values():
            done[i] = True
        rounds = results["round_results"]
        for seat, ret in self.episode_return[e].items():
            self.episodes.append(
                {
                    "chain": self.chain[e][seat],
                    "seat": seat,
                    "return": ret,
                    "round_scores": [float(round_scores(r)[seat]) for r in rounds if r],
                    "opponents": ",".join(r for s, r in enumerate(roles) if s != seat),
                }
            )

    def cut(self) -> list[tuple[int, int, int]]:
        """The end of the rollout cuts the open chains: their (table, seat, row); the next rollout starts new ones."""
        cut = [(e, seat, i) for e, open_ in enumerate(self.open) for seat, i in open_.items()]
        self.open = [{} for _ in self.open]
        return cut
