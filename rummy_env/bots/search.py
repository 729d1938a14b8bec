"""The ``search`` bot: the heuristic's move, left only for a move that a search shows better.

Two methods, chosen per profile (``METHOD``; ``SearchBot(method=...)`` overrides it): **rollouts** (``contract``,
``contract_gamerules``; below) and an **exact look-ahead** (``continental``): the profile's heuristic values its own
close calls by an expectimax of the seat's next draw (``ContinentalHeuristic.lookahead``: among the discards that keep
the hand as close to going out as the heuristic's, the one expected closest after the next draw, every unseen card
equally likely) and plays the best, the heuristic's move on ties. The look-ahead samples nothing, so it has no false
acceptances under its model and spends no budget (``search:N`` and ``search:Xs`` play as ``search`` there); it reads
the view only. In ``continental`` full-deal rollouts measured worse than the heuristic and the look-ahead better
(``docs/guides/bots.md``).

With rollouts, at a decision with more than one legal action the bot

1. asks the heuristic for its move (the *prior*) and lists the *plausible* other moves (``candidates``): the other
   draw or the buy/pass when the card could help the hand (a joker, a same-rank natural for group contracts, a
   same-suit neighbour for run contracts, a card that fits the table once down), every other discard, and delaying
   an opening; lay-offs, joker moves, the opening's later melds and going out stay the heuristic's. A heuristic with
   a ``search_candidates(view, prior)`` method names its own close calls for decisions after the draw
   (``continental``: the discards that keep the hand as close to going out as the prior's, and declaring against
   waiting). With no plausible alternative it plays the prior without searching;
2. builds a *canonical* position from what its seat may know (``canonical.canonical_json``: the hidden cards pooled,
   sorted and dealt back, the engine's generator replaced by one of the bot's own) and samples *determinizations*
   of it weighted by what the opponents revealed (``search_inference``: their discards, refusals of the discard top,
   passes in buy windows and the cards they took, scored under a count model of the heuristic's play);
3. *screens* the candidates by sequential halving: each round rolls the surviving candidates and the prior out to the
   end of the round on a few fresh determinizations (the same ones for all: paired) and drops the worse half by
   mean gain over the prior, down to one *challenger*; if it does not beat the prior on the screen, the prior is
   played;
4. *confirms* the challenger against the prior on fresh determinizations (so the screen's selection does not bias
   the test), each pair rolled out with common random numbers (the same determinization and engine generator; the
   rollout policy draws nothing), and plays it only if the paired differences pass a one-sided t-test:

       accept  iff  n >= MIN_PAIRS  and  mean(d) - margin > T_CRIT * sd(d) / sqrt(n)

   with ``T_CRIT = 2`` and ``MIN_PAIRS = 8``. Confirmation stops early, keeping the prior, once the challenger is
   clearly not better (mean + T_CRIT * se < 0 after 8 pairs or more), which never adds an acceptance.

**Nominal false-acceptance rate.** When the challenger is in truth no better than the prior (the mean paired
difference of its rollouts is <= 0), one decision accepts it with probability at most P(T_{n-1} > 2): 4.3 % at
n = 8 pairs, 3.2 % at 16, 2.6 % at 40 and 2.3 % as n grows (Student's t; rollout differences are close enough to
normal at these n that the measured rate is what matters -- ``docs/guides/bots.md`` reports it on positions whose
every move was valued in the true state). One test is made per decision, so this bounds the share of decisions
that leave the heuristic's move for one that is no better *under the rollouts' model*; the rollouts (the fast
policy, ``rollout.FastContractPolicy``, in ``contract``) and the count model of the opponents are models, so the
true-value rate is measured, not assumed.

**Budget.** ``search:N``: ``N`` rollouts a decision; ``search:Xs`` (``search:1s``, ``search:0.5s``): ``X`` seconds of
rollouts a decision, counted as ``X * STEPS_PER_SECOND[profile]`` rollout decisions (each rollout also counts
``ROLLOUT_OVERHEAD`` for its determinization and copy), so the bot stays deterministic for a seed: the same seed and
game give the same actions on any machine, and the time taken is the budget on the reference machine (a 2-core AMD
EPYC, scaled by a machine's speed elsewhere). ``search`` is ``DEFAULT_BUDGET`` of the profile. A share
``SCREEN_SHARE`` of the budget screens (2 to ``SCREEN_DETS`` determinizations a halving round), the rest confirms. A
decision with no plausible alternative spends nothing, so the budget goes to the draws, buys, discards and openings.

**Rollouts.** Where the profile has a fast rollout policy (``rollout.FAST_POLICIES``: ``contract``, about 5.5 times
the heuristic's rollouts a second and not distinguishable from it in strength over 400 sessions; ``continental``,
``rollout_continental.py``, about 4 times and somewhat weaker) it plays every seat to the end of the round;
elsewhere (``contract_gamerules``) the profile's heuristic, to the end of the round or for at most ``HORIZON``
decisions where a profile has one, then a static value (contract family: minus the penalty in hand; continental:
minus the hand's distance to going out). A rollout's value is the seat's score of the round in the profile's
direction (``game(profile).lower_is_better``).

Bad ids raise ``SearchBudgetError`` (a ``ValueError``) naming what is allowed. The bot reads the true engine state
only through the env's JSON state, and only to build the canonical position: its choices cannot depend on the true
hidden cards (``tests/bots/test_search_bot.py``).
"""

from __future__ import annotations

import math
import re
import time
from typing import Any, NamedTuple

import numpy as np

from ..registry import game
from .canonical import canonical_json, canonical_state
from .heuristic import POLICIES
from .rollout import FAST_POLICIES, play_out
from .search_inference import EventLog, hidden_pool, weighted_determinization
from .view import public_view

#: the plain id ``search``'s budget per profile (an id's argument: ``"1s"`` one second of rollouts a decision)
DEFAULT_BUDGET: dict[str, str] = {"contract": "1s", "contract_gamerules": "1s", "continental": "1s"}
FALLBACK_BUDGET = "1s"
#: rollout decisions a second of budget buys, per profile (measured on the reference machine: fast-policy rollouts in
#: ``contract`` and ``continental``, heuristic rollouts in ``contract_gamerules``)
STEPS_PER_SECOND: dict[str, int] = {"contract": 120_000, "contract_gamerules": 11_000, "continental": 4_000}
FALLBACK_STEPS_PER_SECOND = 1_000
#: what a rollout costs besides its decisions (its determinization and copy), in rollout decisions
ROLLOUT_OVERHEAD = 15
#: rollout length cap per profile (decisions after the candidate move; none: to the end of the round, every profile
#: since the continental fast policy)
HORIZON: dict[str, int] = {}
#: how each profile searches by default: ``"rollouts"`` (steps 2-4 of the module docstring) or ``"lookahead"`` (the
#: heuristic's exact look-ahead over its own close calls, ``lookahead(view, prior)``: ``continental``, where full-deal
#: rollouts measured worse than the heuristic, ``docs/guides/bots.md``)
METHOD: dict[str, str] = {"contract": "rollouts", "contract_gamerules": "rollouts", "continental": "lookahead"}
#: the acceptance test: t threshold, least number of pairs, least mean gain (points)
T_CRIT = 2.0
MIN_PAIRS = 8
MARGIN = 0.0
#: the budget's share spent screening the candidates, and the most determinizations of a screening round
SCREEN_SHARE = 0.3
SCREEN_DETS = 16
#: redeals of the hidden cards per determinization among which the inference picks one, and what each costs of a
#: seconds budget (in rollout decisions)
PROPOSALS = 16
PROPOSAL_COST = 2
#: the largest budgets an id may ask for
MAX_BUDGET = 100_000
MAX_SECONDS = 600.0


class SearchBudgetError(ValueError):
    """A ``search:ARG`` id whose budget is neither a whole number of rollouts nor a number of seconds in range."""


class SearchMethodError(ValueError):
    """A search method that is not ``"rollouts"`` or ``"lookahead"``, or a look-ahead asked of a profile whose
    heuristic has none."""


class Budget(NamedTuple):
    """A decision's budget: ``rollouts`` a decision, or ``seconds`` of rollouts a decision (one of the two)."""

    rollouts: int | None = None
    seconds: float | None = None

    def limit(self, profile: str) -> tuple[float, bool]:
        """(the budget in its unit, whether the unit is rollout decisions rather than rollouts)."""
        if self.seconds is not None:
            return self.seconds * STEPS_PER_SECOND.get(profile, FALLBACK_STEPS_PER_SECOND), True
        return float(self.rollouts or 0), False


_SECONDS = re.compile(r"(\d+(\.\d+)?|\.\d+)s")


def parse_budget(arg: str | None) -> Budget | None:
    """The budget of the id ``search:ARG`` (None for the plain ``search``: the profile's default)."""
    if arg is None:
        return None
    text = arg.strip()
    if text.isascii() and text.isdigit() and 1 <= int(text) <= MAX_BUDGET:
        return Budget(rollouts=int(text))
    if text.isascii() and _SECONDS.fullmatch(text) and 0 < float(text[:-1]) <= MAX_SECONDS:
        return Budget(seconds=float(text[:-1]))
    raise SearchBudgetError(
        f"bad search budget {arg!r} in 'search:{arg}': allowed is a whole number of rollouts per decision, 1 to "
        f"{MAX_BUDGET} (e.g. 'search:200'), a number of seconds per decision above 0 and at most {MAX_SECONDS:g} "
        f"(e.g. 'search:1s', 'search:0.5s'), or plain 'search' for the profile's default {DEFAULT_BUDGET}"
    )


class Decision(NamedTuple):
    """What one search decided: the action played, the heuristic's ``prior``, the challenger tested (-1: none),
    the confirmation's pairs, mean paired gain and t statistic, and whether the challenger was accepted."""

    action: int
    prior: int
    challenger: int = -1
    pairs: int = 0
    mean: float = 0.0
    t: float = 0.0
    accepted: bool = False


class _Meter:
    """The budget left in a decision: rollouts, or rollout decisions (each rollout also costing its overhead)."""

    def __init__(self, limit: float, in_steps: bool):
        self.left = limit
        self.in_steps = in_steps

    def spend(self, steps: int) -> None:
        self.left -= steps + ROLLOUT_OVERHEAD if self.in_steps else 1

    def rollouts_for(self, share: float, per_rollout: float) -> int:
        """How many rollouts ``share`` of what is left buys at ``per_rollout`` decisions each."""
        if not self.in_steps:
            return int(self.left * share)
        return int(self.left * share / (per_rollout + ROLLOUT_OVERHEAD))


def paired_test(diffs: list[float], margin: float = MARGIN, t_crit: float = T_CRIT, min_pairs: int = MIN_PAIRS
                ) -> tuple[bool, float, float]:
    """(accepted, mean, t) of the one-sided paired t-test of ``diffs`` (challenger minus prior): accepted iff at
    least ``min_pairs`` pairs and ``mean - margin > t_crit * sd / sqrt(n)`` (t is infinite when sd is 0)."""
    n = len(diffs)
    if n == 0:
        return False, 0.0, 0.0
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1)) if n > 1 else 0.0
    gain = mean - margin
    t = gain / (sd / math.sqrt(n)) if sd > 0 else (math.inf if gain > 0 else -math.inf if gain < 0 else 0.0)
    return n >= min_pairs and gain > 0 and t > t_crit, mean, t


class SearchBot:
    """The heuristic, left only for a challenger that passes a paired t-test on rollouts (module docstring).

    ``budget``: a ``Budget`` or an int (rollouts a decision; None: ``DEFAULT_BUDGET`` of the profile); ``horizon``:
    rollout length cap (None: ``HORIZON`` of the profile, else the end of the round); ``t_crit``, ``min_pairs``,
    ``margin``: the acceptance test; ``proposals``: redeals per determinization for the inference (1: uniform
    determinizations); ``triage=False``: every legal move is a candidate. Deterministic for a seed."""

    name = "search"

    def __init__(
        self, seed: int | None = 0, budget: Budget | int | None = None, horizon: int | None = None,
        t_crit: float = T_CRIT, min_pairs: int = MIN_PAIRS, margin: float = MARGIN, proposals: int = PROPOSALS,
        triage: bool = True, method: str | None = None,
    ):
        if method not in (None, "rollouts", "lookahead"):
            raise SearchMethodError(f"bad search method {method!r}: allowed are 'rollouts', 'lookahead' or None (the "
                                    f"profile's, {METHOD})")
        self.method = method
        self.budget = Budget(rollouts=budget) if isinstance(budget, int) else budget
        self.horizon = horizon
        self.t_crit, self.min_pairs, self.margin = float(t_crit), int(min_pairs), float(margin)
        self.proposals = int(proposals)
        self.triage = bool(triage)
        if self.budget is not None:
            b = self.budget
            self.name = f"search:{b.rollouts}" if b.rollouts is not None else f"search:{b.seconds:g}s"
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed (a new session): the generator, the heuristics, the fast policy's memo and the event log."""
        self.seed = seed
        self.rng = np.random.Generator(np.random.PCG64(seed))
        self._policies: dict[tuple[str, int], Any] = {}
        self._fast: dict[str, Any] = {}
        self.log = EventLog()
        #: per decision with a choice: the ``Decision`` and its CPU seconds (for measurements; never read by the bot)
        self.decisions: list[tuple[Decision, float]] = []

    # the parts a decision is made of --------------------------------------------------------------------------
    def _policy(self, profile: str, seat: int = -1) -> Any:
        """The heuristic of the root's decisions (``seat=-1``) or of ``seat`` in the rollouts."""
        key = (profile, seat)
        policy = self._policies.get(key)
        if policy is None:
            factory = POLICIES.get(profile)
            if factory is None:
                raise ValueError(f"no heuristic for profile {profile!r} to roll out with; available: {sorted(POLICIES)}")
            policy = self._policies[key] = factory(np.random.Generator(np.random.PCG64(self.rng.integers(2**63))))
        return policy

    def root_state(self, env: Any, seat: int) -> Any:
        """The canonical engine state of ``env`` for ``seat`` (``canonical_json``), ready to be determinized."""
        return canonical_state(env.unwrapped, seat, seed=int(self.rng.integers(2**63)))

    def determinize(self, root: Any, seat: int, rng: np.random.Generator, view: Any = None, pool: Any = None) -> Any:
        """One determinization of ``root`` for ``seat``, weighted by the opponents' events (``search_inference``)
        when ``view`` is given, uniform otherwise."""
        if view is None:
            return root.resample_hidden(seat, rng)
        return weighted_determinization(root, seat, rng, self.log, view, self.proposals, pool)

    def evaluate(self, st: Any, seat: int, round_index: int, profile: str) -> float:
        """The value of ``st`` for ``seat`` (higher is better): its score of round ``round_index`` if that round is
        over, else a static estimate in the same units."""
        g = game(profile)
        if len(st.round_results) > round_index:
            res = st.round_results[round_index]
            amount = float(res.get("penalties", res.get("payments"))[seat])
            return -amount if g.lower_is_better else amount
        penalty = getattr(st, "penalty", None)  # the contract family's engines count a hand's penalty points
        if penalty is not None:
            return -float(penalty(seat))
        planner = getattr(self._policy(profile, seat), "planner", None)
        if planner is not None:
            view = st.public_view(seat)
            return -float(planner(view).distance(view.hand))
        return 0.0

    def rollout(self, st: Any, seat: int, profile: str, round_index: int | None = None, seed: int = 0
                ) -> tuple[float, int]:
        """Play ``st`` on to the end of round ``round_index`` (default: the round ``st`` is in) or ``horizon``
        decisions: (its value for ``seat``, the decisions played). ``seed`` re-seeds the heuristics' tie-breaks (the
        same seed for both moves of a pair: common random numbers); the fast policy draws nothing."""
        if round_index is None:
            round_index = len(st.round_results)
        horizon = self.horizon if self.horizon is not None else HORIZON.get(profile)
        fast = FAST_POLICIES.get(profile)
        if fast is not None and horizon is None:
            policy = self._fast.get(profile)
            if policy is None:
                policy = self._fast[profile] = fast()
            steps = play_out(st, policy, round_index)
            return self.evaluate(st, seat, round_index, profile), steps
        steps = 0
        reseeded: set[int] = set()
        while (horizon is None or steps < horizon) and not st.is_terminal() and len(st.round_results) <= round_index:
            legal = st.legal_actions()
            mover = st.current_player
            if len(legal) == 1:
                action = legal[0]
            else:
                policy = self._policy(profile, mover)
                if mover not in reseeded:
                    policy.rng = np.random.Generator(np.random.PCG64([seed, mover]))
                    reseeded.add(mover)
                action = policy.decide(st.public_view(mover))
            st.apply(action)
            steps += 1
        return self.evaluate(st, seat, round_index, profile), steps

    # choosing -------------------------------------------------------------------------------------------------
    def candidates(self, view: Any, prior: int) -> list[int]:
        """The prior first, then the plausible other moves of ``view`` (module docstring, step 1)."""
        lay = view.layout
        legal = list(view.legal)
        if not self.triage:
            return [prior] + [a for a in legal if a != prior]
        if view.phase not in ("draw", "buy", "act"):
            return [prior]
        own = getattr(self._policy(view.profile), "search_candidates", None)
        if own is not None and view.phase != "draw":
            return own(view, prior)  # the profile's heuristic names its close calls (continental's discards)
        if hasattr(lay, "LAY_OFF") and (lay.LAY_OFF <= prior < lay.DISCARD or prior == lay.GO_OUT):
            return [prior]  # lay-offs, joker swaps and going out stay the heuristic's
        draws = {lay.DRAW_DISCARD, getattr(lay, "BUY", -2)}
        out = [prior]
        for a in legal:
            if a == prior or (hasattr(lay, "LAY_OFF") and lay.MELD <= a < lay.DISCARD):
                continue
            if a in draws and not _could_help(view, view.discard_top if a == lay.DRAW_DISCARD else view.offered):
                continue
            out.append(a)
        return out

    def choose(self, env: Any, agent: str) -> Decision:
        """The searched decision of ``agent`` (the player to move), from its seat's knowledge only."""
        view = public_view(env, agent)
        if not view.legal:
            raise ValueError(f"{agent} has no legal action: it is not its decision")
        self.log.observe(view)
        legal = list(view.legal)
        if len(legal) == 1:
            return Decision(legal[0], legal[0])
        start = time.process_time()
        prior = self._policy(view.profile).decide(view)
        if self._looks_ahead(view.profile):
            decision = self.look_ahead(view, prior)
        else:
            cands = self.candidates(view, prior)
            if len(cands) < 2:
                decision = Decision(prior, prior)
            else:
                decision = self.search_view(self.root_state(env, view.seat), view, cands)
        self.decisions.append((decision, time.process_time() - start))
        return decision

    def act(self, env: Any, agent: str) -> int:
        """The searched legal action of ``agent`` (the player to move), from its seat's knowledge only."""
        return int(self.choose(env, agent).action)

    def search(self, root: Any, seat: int, legal: list[int], prior: int, profile: str) -> tuple[int, dict[int, float]]:
        """The search of ``seat``'s decision among ``legal`` from the canonical ``root``, with the heuristic's
        ``prior`` (the form ``rummy_env.distill`` asks): (the action, {move: mean paired gain over the prior} of the
        prior and the challenger tested). ``legal`` must be the decision's legal actions (the candidates are chosen
        among them); ``profile`` is the root's."""
        view = root.public_view(seat)  # the canonical position shows the seat what the true one does
        if self._looks_ahead(profile):
            decision = self.look_ahead(view, prior)
            if decision.challenger < 0:
                return prior, {prior: 0.0}
            return decision.action, {prior: 0.0, decision.challenger: decision.mean}
        cands = [prior] + [a for a in self.candidates(view, prior) if a != prior and a in legal]
        if len(cands) < 2:
            return prior, {prior: 0.0}
        decision = self.search_view(root, view, cands)
        return decision.action, {prior: 0.0, decision.challenger: decision.mean}

    def _looks_ahead(self, profile: str) -> bool:
        """Whether decisions of ``profile`` are made by the heuristic's exact look-ahead rather than rollouts."""
        method = self.method or METHOD.get(profile, "rollouts")
        if method != "lookahead":
            return False
        if not hasattr(self._policy(profile), "lookahead"):
            raise SearchMethodError(f"search method 'lookahead': the {profile} heuristic has no exact look-ahead; "
                                    f"use method='rollouts' (profiles with one: "
                                    f"{sorted(p for p, m in METHOD.items() if m == 'lookahead')})")
        return True

    def look_ahead(self, view: Any, prior: int) -> Decision:
        """The decision by the heuristic's exact look-ahead (``lookahead(view, prior)``: the action and each
        candidate's gain over the prior in its own units): the challenger is the best other candidate; ``pairs`` is
        the number of candidates valued, ``mean`` the challenger's gain, ``accepted`` whether it was played (no
        sampling: ``t`` is infinite for a strictly better move, else 0)."""
        action, values = self._policy(view.profile).lookahead(view, prior)
        others = [a for a in values if a != prior]
        if not others:
            return Decision(prior, prior)
        challenger = action if action != prior else max(others, key=lambda a: (values[a], -a))
        accepted = action != prior
        return Decision(action, prior, challenger, len(values), float(values[challenger]),
                        math.inf if accepted else 0.0, accepted)

    def search_view(self, root: Any, view: Any, cands: list[int]) -> Decision:
        """Screen ``cands`` (the prior first), confirm the best challenger on fresh determinizations, and play it
        only if the paired test accepts it (module docstring, steps 3-4)."""
        profile, seat, prior = view.profile, view.seat, cands[0]
        limit, in_steps = (self.budget or parse_budget(DEFAULT_BUDGET.get(profile, FALLBACK_BUDGET))).limit(profile)
        meter = _Meter(limit, in_steps)
        pool = hidden_pool(root, seat)
        challenger, gain = self._halving(root, view, cands, meter, pool)
        if gain <= self.margin and self.t_crit > -math.inf:
            return Decision(prior, prior, challenger, 0, gain, 0.0, False)
        diffs: list[float] = []
        while meter.left > 0 or len(diffs) < 2:
            (v_prior, _), (v_chal, _) = self._paired(root, view, [prior, challenger], meter, pool)
            diffs.append(v_chal - v_prior)
            if len(diffs) >= 8 and len(diffs) % 4 == 0 and self._futile(diffs):
                break
            if not in_steps and meter.left < 2:
                break
        accepted, mean, t = paired_test(diffs, self.margin, self.t_crit, self.min_pairs)
        return Decision(challenger if accepted else prior, prior, challenger, len(diffs), mean, t, accepted)

    def _halving(self, root: Any, view: Any, cands: list[int], meter: _Meter, pool: Any) -> tuple[int, float]:
        """The screen: sequential halving of the challengers (``cands[1:]``), each round on fresh determinizations
        shared by the survivors and the prior, the worse half by mean gain over the prior dropped after each round;
        ``SCREEN_SHARE`` of the budget in all, 2 to ``SCREEN_DETS`` determinizations a round. (best challenger, its
        mean gain over the prior)."""
        prior, alive = cands[0], list(cands[1:])
        rounds = max(1, math.ceil(math.log2(len(alive)))) if len(alive) > 1 else 1
        share = meter.rollouts_for(SCREEN_SHARE, self._round_length_guess(root))
        total = {a: 0.0 for a in alive}
        count = {a: 0 for a in alive}
        for r in range(rounds):
            dets = max(2, min(SCREEN_DETS, share // (rounds * (len(alive) + 1))))
            values = self.screen(root, view, [prior, *alive], dets, meter, pool)
            for a in alive:
                total[a] += sum(v - p for v, p in zip(values[a], values[prior]))
                count[a] += dets
            alive.sort(key=lambda a: (-total[a] / count[a], a))
            if r < rounds - 1:
                alive = alive[: math.ceil(len(alive) / 2)]
        return alive[0], total[alive[0]] / count[alive[0]]

    def screen(self, root: Any, view: Any, cands: list[int], dets: int, meter: _Meter | None = None,
               pool: Any = None) -> dict[int, list[float]]:
        """Every move of ``cands`` rolled out on the same ``dets`` determinizations: its values, in order."""
        meter = meter if meter is not None else _Meter(math.inf, False)
        pool = pool if pool is not None else hidden_pool(root, view.seat)
        values: dict[int, list[float]] = {a: [] for a in cands}
        for _ in range(dets):
            for a, (value, _steps) in zip(cands, self._paired(root, view, cands, meter, pool)):
                values[a].append(value)
        return values

    def _futile(self, diffs: list[float]) -> bool:
        """The challenger is clearly not better: its upper bound (mean + t_crit * se) is below 0."""
        n = len(diffs)
        mean = sum(diffs) / n
        sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
        return mean + self.t_crit * sd / math.sqrt(n) < 0

    def _paired(self, root: Any, view: Any, moves: list[int], meter: _Meter, pool: Any) -> list[tuple[float, int]]:
        """One determinization, each of ``moves`` applied to a copy of it and rolled out with the same generator
        state and tie-break seed: [(value, decisions)] per move."""
        seat, profile = view.seat, view.profile
        det = self.determinize(root, seat, self.rng, view, pool)
        if meter.in_steps:
            meter.left -= self.proposals * PROPOSAL_COST
        round_index = len(det.round_results)  # the round of the decision, even if a move ends it
        seed = int(self.rng.integers(2**63))
        out = []
        for a in moves:
            st = det.clone()
            st.apply(a)
            value, steps = self.rollout(st, seat, profile, round_index, seed)
            meter.spend(steps)
            out.append((value, steps))
        return out

    @staticmethod
    def _round_length_guess(root: Any) -> float:
        """Rollout decisions a rollout from ``root`` may take, for sizing the screen: about one per stock card and
        seat, at least 20."""
        return max(20.0, 1.2 * len(getattr(root, "stock", ())) * 2)


def _could_help(view: Any, card: int) -> bool:
    """Could taking or buying ``card`` help the seat of ``view``: a joker, a same-rank natural in hand (group
    contracts), a same-suit card within two positions (run contracts, continental), a card that fits the table
    once down?"""
    if card < 0:
        return False
    hand = view.hand
    if card == len(hand) - 1:
        return True  # the joker kind is the last
    suit, q = divmod(card, 13)
    contract = getattr(view, "contract", (0, 1))
    if contract[0] and any(hand[s * 13 + q] for s in range(4)):
        return True
    if contract[1] and any(hand[suit * 13 + (q + d) % 13] for d in (-2, -1, 1, 2)):
        return True
    opened = getattr(view, "opened", None)
    if opened is not None and opened[view.seat]:
        return True  # once down, the heuristic's own test (it fits the table) decides; kept as a candidate
    return False


def search_factory(arg: str | None, seed: int | None) -> SearchBot:
    """``bots.load("search")`` / ``bots.load("search:N")`` / ``bots.load("search:Xs")``."""
    return SearchBot(seed, budget=parse_budget(arg))


__all__ = [
    "SearchBot",
    "SearchBudgetError",
    "SearchMethodError",
    "METHOD",
    "Budget",
    "Decision",
    "search_factory",
    "parse_budget",
    "paired_test",
    "canonical_json",
    "DEFAULT_BUDGET",
    "STEPS_PER_SECOND",
    "HORIZON",
    "T_CRIT",
    "MIN_PAIRS",
    "MAX_BUDGET",
    "MAX_SECONDS",
    "MARGIN",
]
