"""Seeded self-play fuzzer of the rules engines (profile ``contract``): invariants and rule oracles after every action.

``fuzz(decisions=500_000)`` plays complete seeded sessions until at least ``decisions`` decisions were taken,
alternating (``policy="mixed"``) a uniform random policy and a *biased* random policy that strongly prefers the
rare actions (buy, opening melds, lay-offs, joker swaps and placements, going out) and keeps useful cards, so
that every action kind and every way a round ends is exercised. It returns a JSON-able dict of counts; the key
``violations`` must be 0.

Checked after every action (cheap):

* ``state.check_invariants()`` (all 107 cards accounted for, hand sizes, valid melds, a legal action exists),
  every ``check_every`` actions;
* hand sizes, piles and table consistent with the action (a discard takes one card from the hand and puts it on
  the discard pile, a buy gives the buyer two cards, a run of the opening takes four, ...);
* the buy window asks the non-active players clockwise, the buyer of the previous card of the chain excluded;
* independent oracles for the legal discards (A.2-4: the card taken from the discard pile stays in hand), the
  legal lay-offs, joker swaps and placements (A.1-11/12: opened on an earlier turn, a discardable card left);
* a completed opening is exactly the contract (groups of 3, runs of 4, no adjacent same-suit runs);
* a reshuffle (A.1-14) keeps only the discard top; a round end scores the hands (winner 0; the buyer keeps a
  bought card when no penalty card is left, A.2-9); the next round is dealt by the next dealer, 10/12 cards
  each, one upcard, stock 66/58, the dealer's left neighbour first.

Other profiles (or rule overrides other than ``turn_cap``) get the generic checks only: invariants, JSON round
trips, clones and legality, replay.

Checked on a sample (expensive): JSON round trip (dump -> ``json.dumps``/``loads`` -> ``load_state`` -> dump
identical, then the next actions played on both give identical dumps) every ``json_every`` actions and in every
joker-placement state; every legal action accepted by ``apply`` on a clone and random non-legal ids rejected
with the state unchanged every ``clone_every`` actions; the opening-meld candidates against a catalog scan every
``meld_every`` meld states; at the end of every session, replaying ``history`` from ``new_state(seed)`` gives the
identical dump (determinism).

Where the pieces live: ``policies`` (the uniform and biased move choosers), ``invariants`` (the rule oracles of
profile ``contract``, one small check per action kind), ``tally`` (the counts and the report); this module is
the driver: the sessions, the generic sampled checks, ``fuzz`` and ``fuzz_session``.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import Any

from ..engine import IllegalActionError, load_state, new_state
from ..rules import PROFILES
from .invariants import ContractOracles, FuzzViolation, fail, has_rule_oracles
from .policies import POLICIES, Policy, biased_policy, classifier, uniform_policy
from .tally import ACTION_KINDS, Counts, report


class _Session:
    """Plays one seeded session with one policy and checks every step."""

    def __init__(
        self,
        profile: str,
        seed: int,
        policy: Policy,
        prng: random.Random,
        counts: Counts,
        check_every: int,
        json_every: int,
        clone_every: int,
        meld_every: int,
        json_window: int,
        rounds: Any = None,
        overrides: dict[str, Any] | None = None,
    ):
        self.profile = profile
        self.seed = seed
        self.policy = policy
        self.prng = prng
        self.counts = counts
        self.check_every = max(1, check_every)
        self.json_every = max(1, json_every)
        self.clone_every = max(1, clone_every)
        self.json_window = json_window
        self.rounds = rounds
        self.overrides = dict(overrides or {})
        self.state = new_state(profile, seed=seed, rounds=rounds, **self.overrides)
        self.cls = classifier(self.state)
        self.lay = self.state.layout
        self.rules = self.state.rules
        # the rule oracles encode profile ``contract`` (A.1/A.2); other profiles get the generic checks only
        self.oracles = (
            ContractOracles(self.state, counts, meld_every) if has_rule_oracles(profile, self.overrides) else None
        )
        self.step = 0
        self.shadow: Any = None
        self.shadow_left = 0

    def run(self) -> int:
        """Play the session to its end, checking every step, then replay it; returns the decisions taken."""
        s = self.state
        if self.oracles is not None:
            self.oracles.check_deal(None)
        while not s.is_terminal():
            self.do_step()
        self._check_replay()
        return self.step

    def do_step(self) -> None:
        """One decision: the checks before it, the policy's action, the checks after it."""
        s = self.state
        legal = s.legal_actions()
        if not legal:
            fail("no legal action in a non-terminal state")
        phase = s.phase
        p = s.current
        oracles = self.oracles
        if oracles is not None:
            oracles.check_offer(legal)
        if self.shadow is None and (self.step % self.json_every == 0 or phase == "place_joker"):
            self._json_round_trip()
        if self.step % self.clone_every == 0 or phase == "place_joker":
            self._clone_checks(legal, full=self.step % (self.clone_every * 4) == 0)
        action = self.policy(s, legal, self.prng)
        kind = self.cls(action)
        if oracles is not None:
            pre = oracles.snapshot(kind, p)
        else:
            pre = {"results": len(s.round_results), "round": getattr(s, "round", 0)}
        s.apply(action)
        self.step += 1
        self.counts.kinds[kind] = self.counts.kinds.get(kind, 0) + 1
        if self.step % self.check_every == 0:
            s.check_invariants()
        if oracles is not None:
            oracles.check_transition(action, kind, pre)
        elif len(s.round_results) != pre["results"]:
            self.counts.count_round(s.round_results[-1]["reason"], pre["round"], self.rules)
        if self.shadow is not None:
            self._shadow_step(action)

    # sampled checks (every profile) -----------------------------------------------------------------------------
    def _json_round_trip(self) -> None:
        """Dump -> JSON text -> ``load_state`` rebuilds the identical state; play goes on on the copy too."""
        s = self.state
        dump = s.to_json()
        back = json.loads(json.dumps(dump))
        if back != dump:
            fail("to_json() is not plain JSON data (json round trip changed it)")
        loaded = load_state(back, **self.overrides)
        if loaded.to_json() != dump:
            fail("load_state(to_json()) does not rebuild an identical state")
        if loaded.legal_actions() != s.legal_actions():
            fail("the loaded state offers different legal actions")
        self.counts.json_round_trips += 1
        self.shadow = loaded
        self.shadow_left = self.json_window

    def _shadow_step(self, action: int) -> None:
        """The loaded copy takes the same action; after ``json_window`` of them both dumps must be equal."""
        sh = self.shadow
        s = self.state
        sh.apply(action)
        self.shadow_left -= 1
        if self.shadow_left <= 0 or s.is_terminal() or s.phase == "place_joker":
            if sh.to_json() != s.to_json():
                fail("continuing play from the loaded state diverges from the original")
            if not s.is_terminal() and sh.legal_actions() != s.legal_actions():
                fail("the loaded state offers different legal actions after the same play")
            self.shadow = None

    def _clone_checks(self, legal: list[int], full: bool) -> None:
        """Legal actions apply on clones (the original untouched); non-legal ids are rejected, changing nothing."""
        s = self.state
        before = s.to_json()
        hist = list(s.history)
        acts = legal if (full or len(legal) <= 6) else self.prng.sample(legal, 6)
        for a in acts:
            c = s.clone()
            try:
                c.apply(a)
            except IllegalActionError as exc:
                fail(f"legal action {a} rejected by apply on a clone: {exc}")
            c.check_invariants()
            self.counts.legal_apply_checks += 1
        # clone independence: mutating clones (above) left the original unchanged
        if s.to_json() != before or s.history != hist:
            fail("applying actions to clones changed the original state")
        bad = self._non_legal_ids(set(legal), 4)
        for a in bad[:2]:
            self._check_rejected(s.clone(), a, before, legal, hist)
        self._check_rejected(s, bad[3], before, legal, hist)  # and on the state itself
        self.counts.clone_checks += 1

    def _non_legal_ids(self, legal: set[int], count: int) -> list[int]:
        """``count`` random ids outside ``legal`` (out-of-range ids included)."""
        bad: list[int] = []
        num = self.lay.num_actions
        while len(bad) < count:
            a = self.prng.randrange(-2, num + 3)
            if a not in legal:
                bad.append(a)
        return bad

    def _check_rejected(self, st: Any, a: int, before: dict[str, Any], legal: list[int], hist: list[int]) -> None:
        """``apply(a)`` on ``st`` raises ``IllegalActionError`` and leaves it as it was."""
        try:
            st.apply(a)
        except IllegalActionError:
            pass
        else:
            fail(f"non-legal action {a} accepted by apply")
        if st.to_json() != before or st.legal_actions() != legal or st.history != hist:
            fail(f"a rejected action {a} changed the state")
        self.counts.illegal_reject_checks += 1

    def _check_replay(self) -> None:
        """Replaying the history from ``new_state(seed)`` gives the identical state (determinism)."""
        s = self.state
        r = new_state(self.profile, seed=self.seed, rounds=self.rounds, **self.overrides)
        for a in s.history:
            r.apply(a)
        if r.history != s.history or r.to_json() != s.to_json():
            fail("replaying the history from new_state(seed) does not give the identical state")
        self.counts.replays += 1


# --------------------------------------------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------------------------------------------


def _check_args(profile: str, decisions: int, policy: str) -> None:
    if policy not in ("mixed", *POLICIES):
        raise ValueError(f"policy={policy!r}: expected 'mixed', 'uniform' or 'biased'")
    if profile not in PROFILES:
        raise ValueError(f"profile={profile!r}: expected one of {list(PROFILES)}")
    if decisions < 0:
        raise ValueError(f"decisions={decisions!r}: expected a non-negative number")


def _example(session_seed: int, policy: str, steps: int, exc: BaseException, sess: _Session | None) -> dict[str, Any]:
    """What ``fuzz`` reports of a failed session (rerun it with ``fuzz_session``)."""
    return {
        "session_seed": session_seed,
        "policy": policy,
        "step": steps,
        "error": f"{type(exc).__name__}: {exc}"[:2000],
        "history": list(sess.state.history) if sess is not None else [],
    }


def fuzz(
    profile: str = "contract",
    decisions: int = 500_000,
    seed: int = 0,
    policy: str = "mixed",
    check_every: int = 1,
    json_every: int = 97,
    clone_every: int = 101,
    meld_every: int = 16,
    json_window: int = 6,
    rounds: Any = None,
    max_examples: int = 5,
    max_violations: int = 50,
    progress: Callable[[int], Any] | None = None,
    **rule_overrides: Any,
) -> dict[str, Any]:
    """Play complete seeded sessions until at least ``decisions`` decisions; return counts (``violations`` == 0).

    ``policy``: ``"uniform"``, ``"biased"`` or ``"mixed"`` (the two alternate per session). Every session draws
    one seed from ``random.Random(seed)`` for the engine and its policy, so a run is reproducible. A session stops
    at its first violation (counted once); ``examples`` lists the first ``max_examples`` with the session seed,
    policy, step, error and history (rerun one with ``fuzz_session``). ``check_every``: call
    ``check_invariants()`` after every that many actions; ``json_every`` / ``clone_every``: spacing of the JSON
    round trips (followed by ``json_window`` actions on the loaded copy) and of the clone / legality checks;
    ``meld_every``: spacing of the opening-catalog scans; the run stops early after ``max_violations`` failed
    sessions. ``rounds`` and ``rule_overrides`` go to ``new_state``
    (the rule oracles of profile ``contract`` stay on for a ``turn_cap`` override only). ``progress(k)``, if given,
    is called after every session with the ``k`` decisions it took (``rummy fuzz`` draws its progress bar with it).
    """
    _check_args(profile, decisions, policy)
    cfg = {
        "check_every": check_every,
        "json_every": json_every,
        "clone_every": clone_every,
        "meld_every": meld_every,
        "json_window": json_window,
        "rounds": rounds,
        "overrides": rule_overrides,
    }
    run: dict[str, Any] = {"profile": profile, "seed": seed, "policy": policy, "sessions": 0, "decisions": 0}
    run["per_policy"] = {name: {"sessions": 0, "decisions": 0} for name in POLICIES}
    run.update(violations=0, examples=[])
    counts = Counts()
    start = time.perf_counter()
    _play_sessions(run, counts, decisions, cfg, max_examples, max_violations, progress)
    return report(run, counts, time.perf_counter() - start)


def _play_sessions(
    run: dict[str, Any],
    counts: Counts,
    decisions: int,
    cfg: dict[str, Any],
    max_examples: int,
    max_violations: int,
    progress: Callable[[int], Any] | None = None,
) -> None:
    """``fuzz``'s loop: sessions (seeds drawn from ``random.Random(run["seed"])``) until ``decisions``, tallied in
    ``run`` and ``counts``."""
    master = random.Random(run["seed"])
    policy = run["policy"]
    while run["decisions"] < decisions or run["sessions"] == 0:
        name = policy if policy != "mixed" else ("uniform", "biased")[run["sessions"] % 2]
        session_seed = master.getrandbits(63)
        sess = None
        try:
            sess = _Session(run["profile"], session_seed, POLICIES[name], random.Random(session_seed), counts, **cfg)
            steps = sess.run()
        except Exception as exc:  # noqa: BLE001 - every failure of the engine is a finding
            steps = sess.step if sess is not None else 0
            run["violations"] += 1
            if len(run["examples"]) < max_examples:
                run["examples"].append(_example(session_seed, name, steps, exc, sess))
        run["sessions"] += 1
        run["decisions"] += steps
        run["per_policy"][name]["sessions"] += 1
        run["per_policy"][name]["decisions"] += steps
        if progress is not None:
            progress(steps)
        if run["violations"] >= max_violations:
            break  # a broken engine: stop instead of fuzzing on (failed sessions may make no progress)


def fuzz_session(
    session_seed: int,
    policy: str = "biased",
    profile: str = "contract",
    check_every: int = 1,
    json_every: int = 97,
    clone_every: int = 101,
    meld_every: int = 16,
    json_window: int = 6,
    rounds: Any = None,
    **rule_overrides: Any,
) -> Any:
    """Rerun one fuzzed session (engine and policy seeded by ``session_seed``, as in ``fuzz``'s ``examples``),
    raising at the first violation; returns the final state."""
    sess = _Session(profile, session_seed, POLICIES[policy], random.Random(session_seed), Counts(), check_every,
                    json_every, clone_every, meld_every, json_window, rounds, rule_overrides)  # fmt: skip
    sess.run()
    return sess.state


__all__ = ["ACTION_KINDS", "POLICIES", "FuzzViolation", "biased_policy", "fuzz", "fuzz_session", "uniform_policy"]
