"""The ``search`` bot: determinized Monte-Carlo search over the engine's ``clone()``, with heuristic rollouts.

At every decision with more than one legal action the bot

1. builds a *canonical* position from what its seat may know: the env's JSON state (``game_state()``) with every
   card the seat cannot see (the stock order, the opponents' cards not publicly known to be in their hands) pooled,
   sorted and dealt back in a fixed order, and the engine's generator replaced by one of the bot's own; nothing of
   the true hidden cards survives this step, so everything after it depends on the seat's knowledge only;
2. samples *determinizations* of it with ``state.resample_hidden(seat, rng)`` (hidden cards redealt at random,
   consistently with the seat's view: hand sizes, publicly known cards, the table and the piles stay);
3. scores each candidate action by *rollouts*: on a determinization the action is applied and the game is played
   on by the profile's heuristic (every seat) for at most ``horizon`` decisions or to the end of the round; the
   rollout's value is the seat's round score if the round ended (its penalty or payment, in the profile's score
   direction: ``game(profile).lower_is_better``), else a static evaluation (contract: minus the penalty of the
   cards left in hand; continental: minus the hand's distance to going out);
4. spreads the budget over the candidates by *sequential halving* (every surviving candidate gets the same
   determinizations, so differences are paired; the worse half is dropped each round), always keeping the
   heuristic's own choice, and plays the best mean -- but the heuristic's choice unless the best beats it, paired
   over the same determinizations, by more than ``margin`` points plus one standard error. Where a profile has a
   longer ``FINAL_HORIZON`` (``contract``: to the end of the round), half the budget screens the candidates with
   the short rollouts and the best two and the heuristic's choice are then compared on the other half with
   rollouts played to the end of the round (the short rollouts' static evaluation is too myopic to decide there:
   it would dump high cards and never buy).

The bot may read the true engine state only through the env's JSON state, and only to build the canonical
position (its own hand and public facts are kept, the rest is overwritten before anything is computed).

Bot ids: ``search`` (the profile's default budget, 0.2-0.3 CPU-s a decision measured on 2026-12-01 on a 2-core AMD EPYC; see
``DEFAULT_BUDGET``) and ``search:N`` (``N`` rollouts a decision, ``1 <= N <= MAX_BUDGET``). A bad budget raises
``SearchBudgetError`` (a ``ValueError``). The bot is deterministic for a seed: the same seed and the same game give
the same actions, whatever the hidden cards are (``tests/test_search_bot.py``).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np

from ..registry import game
from .heuristic import POLICIES
from .view import public_view

#: rollouts a decision for the plain id ``search``, per profile (about 0.1-0.5 s a decision on the 2-core machine)
DEFAULT_BUDGET: dict[str, int] = {"contract": 16, "contract_gamerules": 32, "continental": 12}
#: rollouts a decision when the profile has no entry in ``DEFAULT_BUDGET``
FALLBACK_BUDGET = 32
#: rollout length in decisions (after the candidate action) of the screening, per profile
HORIZON: dict[str, int] = {"contract": 24, "contract_gamerules": 24, "continental": 3}
FALLBACK_HORIZON = 16
#: rollout length of the final comparison where it is longer than ``HORIZON`` (else one stage): contract plays
#: the finalists to the end of the round (400 decisions is more than any round takes)
FINAL_HORIZON: dict[str, int] = {"contract": 400}
#: the largest budget an id may ask for
MAX_BUDGET = 100_000
#: points by which another action must beat the heuristic's choice (mean rollout value) to be played instead
MARGIN = 0.5


class SearchBudgetError(ValueError):
    """A ``search:N`` id whose budget is not a whole number of rollouts in the allowed range."""


def parse_budget(arg: str | None) -> int | None:
    """The budget of the id ``search:ARG`` (None for the plain ``search``: the profile's default)."""
    if arg is None:
        return None
    text = arg.strip()
    if not text.isdigit() or not 1 <= int(text) <= MAX_BUDGET:
        raise SearchBudgetError(
            f"bad search budget {arg!r} in 'search:{arg}': allowed is a whole number of rollouts per decision, "
            f"1 to {MAX_BUDGET} (e.g. 'search:200'), or plain 'search' for the profile's default {DEFAULT_BUDGET}"
        )
    return int(text)


def canonical_json(data: dict[str, Any], seat: int) -> dict[str, Any]:
    """The JSON state ``data`` with everything ``seat`` cannot see replaced by a fixed arrangement.

    The hidden cards (the stock and the opponents' cards not listed in ``known``) are pooled, sorted and dealt
    back: each opponent keeps its known cards and gets the next cards of the pool for its hidden ones, the rest
    is the stock. The engine's generator (``rng``: future shuffles and deals) is dropped. The result depends only
    on what ``seat`` may know; hand sizes and known cards are unchanged.
    """
    out = dict(data)
    out.pop("rng", None)
    hands = [list(h) for h in data["hands"]]
    known = data.get("known") or [[] for _ in hands]
    pool: list[str] = list(data.get("stock", []))
    hidden_sizes = []
    for p, hand in enumerate(hands):
        if p == seat:
            hidden_sizes.append(0)
            continue
        hidden = Counter(hand)
        hidden.subtract(Counter(known[p]))
        pool.extend(hidden.elements())
        hidden_sizes.append(len(hand) - len(known[p]))
    pool.sort()
    i = 0
    for p, size in enumerate(hidden_sizes):
        if p != seat:
            hands[p] = sorted(known[p]) + pool[i : i + size]
            i += size
    out["hands"] = hands
    out["stock"] = pool[i:]
    return out


class SearchBot:
    """Determinized Monte-Carlo search with heuristic rollouts (module docstring); deterministic for a seed.

    ``budget``: rollouts a decision (None: ``DEFAULT_BUDGET`` of the profile); ``horizon``: rollout length in
    decisions (None: ``HORIZON`` of the profile); ``margin``: how much better (points) another action must look
    than the heuristic's choice to be played.
    """

    name = "search"

    def __init__(
        self,
        seed: int | None = 0,
        budget: int | None = None,
        horizon: int | None = None,
        margin: float = MARGIN,
        final_horizon: int | None = None,
    ):
        self.budget = budget
        self.horizon = horizon
        self.final_horizon = final_horizon
        self.margin = float(margin)
        if budget is not None:
            self.name = f"search:{budget}"
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed (a new session): the bot's generator and its heuristic (rollouts and the root's choice)."""
        self.seed = seed
        self.rng = np.random.Generator(np.random.PCG64(seed))
        self._policies: dict[tuple[str, int], Any] = {}
        self._games: dict[str, Any] = {}

    # the parts a decision is made of --------------------------------------------------------------------------
    def _policy(self, profile: str, seat: int = -1) -> Any:
        """The heuristic of the root's decisions (``seat=-1``) or of ``seat`` in the rollouts: one instance each,
        as a heuristic that remembers the round (``contract_gamerules``) expects to play one seat."""
        key = (profile, seat)
        policy = self._policies.get(key)
        if policy is None:
            factory = POLICIES.get(profile)
            if factory is None:
                raise ValueError(f"no heuristic for profile {profile!r} to roll out with; available: {sorted(POLICIES)}")
            policy = self._policies[key] = factory(np.random.Generator(np.random.PCG64(self.rng.integers(2**63))))
        return policy

    def _game(self, profile: str) -> Any:
        g = self._games.get(profile)
        if g is None:
            g = self._games[profile] = game(profile)
        return g

    def root_state(self, env: Any, seat: int) -> Any:
        """The canonical engine state of ``env`` for ``seat`` (``canonical_json``), ready to be resampled."""
        raw = env.unwrapped
        g = self._game(raw.profile)
        data = canonical_json(raw.game_state(), seat)
        return g.load_state(data, raw.rules, seed=int(self.rng.integers(2**63)))

    def determinize(self, root: Any, seat: int, rng: np.random.Generator) -> Any:
        """One sample of the hidden cards of ``root`` consistent with ``seat``'s knowledge."""
        return root.resample_hidden(seat, rng)

    def evaluate(self, st: Any, seat: int, round_index: int, profile: str) -> float:
        """The value of ``st`` for ``seat`` (higher is better): its score of round ``round_index`` if that round is
        over, else a static estimate in the same units."""
        g = self._game(profile)
        if len(st.round_results) > round_index:
            res = st.round_results[round_index]
            amounts = res.get("penalties", res.get("payments"))
            amount = float(amounts[seat])
            return -amount if g.lower_is_better else amount
        penalty = getattr(st, "penalty", None)  # the contract family's engines count a hand's penalty points
        if penalty is not None:
            return -float(penalty(seat))
        planner = getattr(self._policy(profile, seat), "planner", None)
        if planner is not None:
            view = st.public_view(seat)
            return -float(planner(view).distance(view.hand))
        return 0.0

    def rollout(self, st: Any, seat: int, horizon: int, profile: str, round_index: int | None = None) -> float:
        """Play ``st`` on with the heuristic for at most ``horizon`` decisions (or to the end of round
        ``round_index``, default the round ``st`` is in); its value for that round. A candidate action that ended
        the round is valued by that round's result: pass the index of the round it was taken in."""
        if round_index is None:
            round_index = len(st.round_results)
        for _ in range(horizon):
            if st.is_terminal() or len(st.round_results) > round_index:
                break
            legal = st.legal_actions()
            mover = st.current_player
            action = legal[0] if len(legal) == 1 else self._policy(profile, mover).decide(st.public_view(mover))
            st.apply(action)
        return self.evaluate(st, seat, round_index, profile)

    def search(self, root: Any, seat: int, legal: list[int], prior: int, profile: str) -> tuple[int, dict[int, float]]:
        """Choose among ``legal`` from the canonical ``root``: the chosen action and each finalist's mean value.

        Sequential halving with rollouts of ``horizon`` decisions; where the profile's ``FINAL_HORIZON`` is longer
        (contract: to the end of the round), half the budget screens the candidates so, and the best two of them
        and the heuristic's ``prior`` are then played out on the other half with the long rollouts. Another action
        than the prior is chosen only if its paired mean gain over the prior (the same determinizations, the last
        stage) exceeds ``margin`` plus one standard error."""
        budget = self.budget if self.budget is not None else DEFAULT_BUDGET.get(profile, FALLBACK_BUDGET)
        horizon = self.horizon if self.horizon is not None else HORIZON.get(profile, FALLBACK_HORIZON)
        final = self.final_horizon if self.final_horizon is not None else FINAL_HORIZON.get(profile, horizon)
        if final <= horizon:
            return self._halving(root, seat, legal, prior, profile, budget, horizon)
        finalists = list(legal)
        if len(legal) > 2:
            _, screened = self._halving(root, seat, legal, prior, profile, max(1, budget // 2), horizon)
            finalists = sorted(screened, key=lambda a: (-screened[a], a != prior, a))[:2]
            if prior not in finalists:
                finalists.append(prior)
            budget -= budget // 2
        return self._halving(root, seat, finalists, prior, profile, max(budget, 2 * len(finalists)), final, rounds=1)

    def _halving(
        self, root: Any, seat: int, legal: list[int], prior: int, profile: str, budget: int, horizon: int,
        rounds: int | None = None,
    ) -> tuple[int, dict[int, float]]:
        """Sequential halving over ``legal`` (``rounds`` rounds; default log2 of the candidates), ``budget``
        rollouts of ``horizon`` decisions in all (at least one per candidate and round)."""
        alive = list(legal)
        values: dict[int, list[float]] = {a: [] for a in alive}
        if rounds is None:
            rounds = max(1, math.ceil(math.log2(len(alive))))
        spent = 0
        for r in range(rounds):
            per = max(1, (budget - spent) // (len(alive) * (rounds - r)))
            for _ in range(per):
                det = self.determinize(root, seat, self.rng)
                round_index = len(det.round_results)  # the round of the decision, even if ``a`` ends it
                for a in alive:
                    st = det.clone()
                    st.apply(a)
                    values[a].append(self.rollout(st, seat, horizon, profile, round_index))
                    spent += 1
            if r < rounds - 1:  # drop the worse half (the heuristic's choice stays in)
                ranked = sorted(alive, key=lambda a: (-sum(values[a]) / len(values[a]), a != prior, a))
                keep = ranked[: max(1, math.ceil(len(alive) / 2))]
                if prior in alive and prior not in keep:
                    keep.append(prior)
                alive = keep
        means = {a: sum(values[a]) / len(values[a]) for a in alive}
        best = max(alive, key=lambda a: (means[a], a == prior, -a))
        if best != prior and prior in means and not self._clearly_better(values[best], values[prior]):
            best = prior
        return best, means

    def _clearly_better(self, cand: list[float], prior: list[float]) -> bool:
        """Paired test on the determinizations both were played on (a finalist was played on all of them)."""
        m = min(len(cand), len(prior))
        if m < 2:
            return False
        diffs = [c - p for c, p in zip(cand[-m:], prior[-m:])]
        mean = sum(diffs) / m
        sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (m - 1))
        return mean > self.margin + sd / math.sqrt(m)

    def act(self, env: Any, agent: str) -> int:
        """The searched legal action of ``agent`` (the player to move), from its seat's knowledge only."""
        view = public_view(env, agent)
        if not view.legal:
            raise ValueError(f"{agent} has no legal action: it is not its decision")
        legal = list(view.legal)
        if len(legal) == 1:
            return legal[0]
        profile = view.profile
        seat = view.seat
        prior = self._policy(profile).decide(view)
        root = self.root_state(env, seat)
        best, _ = self.search(root, seat, legal, prior, profile)
        return int(best)


def search_factory(arg: str | None, seed: int | None) -> SearchBot:
    """``bots.load("search")`` / ``bots.load("search:N")``: a ``SearchBot`` with ``N`` rollouts a decision."""
    return SearchBot(seed, budget=parse_budget(arg))


__all__ = [
    "SearchBot",
    "SearchBudgetError",
    "search_factory",
    "parse_budget",
    "canonical_json",
    "DEFAULT_BUDGET",
    "HORIZON",
    "FINAL_HORIZON",
    "MAX_BUDGET",
    "MARGIN",
]
