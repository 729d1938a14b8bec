"""Generic conformance checks for the rummy_env PettingZoo environments.

Every check here is written over an env built by ``rummy_env.make(profile, **config)`` and the engine API every
profile shares (``state_.clone()``, ``apply``, ``legal_actions``, ``to_json``, ``resample_hidden``,
``round_results``, ``winners``, ``action_info``), so a later profile reuses the whole suite by adding an entry to
``ENV_CASES`` (and, where its action kinds differ, to ``ACTION_INFO_KEYS`` / ``EXPECTED_KINDS``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import numpy as np
from gymnasium import spaces

import rummy_env
from rummy_env.cards import parse_card
from rummy_env.engine import IllegalActionError

#: (profile, config) of every env the conformance suite runs on
ENV_CASES: list[tuple[str, dict[str, Any]]] = [("contract", {})]

#: action kinds a biased policy prefers, so that openings, lay-offs and joker swaps show up in random play
PREFERRED_KINDS = frozenset({"meld", "lay_off", "swap_joker", "place_joker", "go_out"})
#: kinds whose presence among the legal actions makes a state worth sampling often
RARE_KINDS = frozenset({"meld", "lay_off", "swap_joker", "place_joker", "go_out"})

#: documented ``action_info`` keys of every action kind (besides "kind")
ACTION_INFO_KEYS: dict[str, frozenset[str]] = {
    "draw_stock": frozenset(),
    "draw_discard": frozenset({"card"}),
    "buy": frozenset({"card"}),
    "pass": frozenset(),
    "meld": frozenset({"meld", "cards"}),
    "lay_off": frozenset({"card", "seat", "meld", "end"}),
    "swap_joker": frozenset({"card", "seat", "meld"}),
    "place_joker": frozenset({"seat", "meld", "end"}),
    "discard": frozenset({"card"}),
    "go_out": frozenset(),
}
#: extra keys an engine may add beyond the documented ones (reported, not an error)
ACTION_INFO_EXTRA: dict[str, frozenset[str]] = {"swap_joker": frozenset({"position"})}

#: action kinds that must be seen legal somewhere in the sampled states of a profile
EXPECTED_KINDS: dict[str, frozenset[str]] = {
    "contract": frozenset(
        {"draw_stock", "draw_discard", "buy", "pass", "meld", "lay_off", "swap_joker", "place_joker", "discard"}
    ),
}

_JOKER_DECL = re.compile(r"^JK\((A|[2-9]|10|J|Q|K)([CDHS])?\)$")


def case_id(case: tuple[str, dict[str, Any]]) -> str:
    """A readable pytest id of an env case."""
    name, cfg = case
    return name + "".join(f"-{k}={v}" for k, v in sorted(cfg.items()))


def make_env(case: tuple[str, dict[str, Any]], wrapped: bool = True, **extra: Any) -> Any:
    """The env of ``case`` (extra config on top of the case's own)."""
    name, cfg = case
    return rummy_env.make(name, wrapped=wrapped, **{**cfg, **extra})


# ------------------------------------------------------------------------------------------------------------
# Policies and driving
# ------------------------------------------------------------------------------------------------------------


def choose_action(env: Any, mask: np.ndarray, rng: np.random.Generator, bias: float, buy_prob: float) -> int:
    """A random legal action; with probability ``bias`` one of the preferred kinds if any is legal.

    ``bias=0``: uniform over the mask. In a buy window the biased policy buys with probability ``buy_prob``
    (buying every card drains the stock and every round ends exhausted).
    """
    legal = np.flatnonzero(mask)
    assert len(legal), "the player to move has no legal action"
    if bias <= 0:
        return int(rng.choice(legal))
    u = env.unwrapped
    kinds = {int(a): u.action_info(int(a))["kind"] for a in legal}
    if "buy" in kinds.values() and "pass" in kinds.values():
        want = "buy" if rng.random() < buy_prob else "pass"
        return next(a for a, k in kinds.items() if k == want)
    if rng.random() < bias:
        pref = [a for a, k in kinds.items() if k in PREFERRED_KINDS]
        if pref:
            return int(rng.choice(pref))
    return int(rng.choice(legal))


def decisions(
    env: Any,
    seed: int,
    bias: float = 0.0,
    buy_prob: float = 0.05,
    options: dict[str, Any] | None = None,
    max_decisions: int | None = None,
) -> Iterator[tuple[str, dict[str, np.ndarray]]]:
    """Reset with ``seed`` and yield ``(agent, observation)`` at every live decision, then play a policy move.

    The consumer may inspect (not change) the env between yields; dead agents are stepped with ``None``.
    """
    env.reset(seed=seed, options=options)
    rng = np.random.default_rng(seed + 7919)
    count = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        yield agent, obs
        count += 1
        if max_decisions is not None and count >= max_decisions:
            return
        env.step(choose_action(env, obs["action_mask"], rng, bias, buy_prob))


def legal_kinds(env: Any, mask: np.ndarray) -> set[str]:
    """The action kinds present in ``mask``."""
    u = env.unwrapped
    return {u.action_info(int(a))["kind"] for a in np.flatnonzero(mask)}


# ------------------------------------------------------------------------------------------------------------
# Mask exactness
# ------------------------------------------------------------------------------------------------------------


def check_mask_exact(env: Any, mask: np.ndarray, rng: np.random.Generator, full: bool, sample: int) -> dict[str, Any]:
    """Every masked action applies to a clone of the engine state; every unmasked one raises and changes nothing.

    ``full``: try every unmasked action; otherwise ``sample`` of them at random. Returns counts and mismatches.
    """
    u = env.unwrapped
    st = u.state_
    before = st.to_json()
    mismatches: list[str] = []
    legal = [int(a) for a in np.flatnonzero(mask)]
    if sorted(legal) != sorted(st.legal_actions()):
        mismatches.append(f"mask {legal[:20]} != engine legal_actions {st.legal_actions()[:20]}")
    for a in legal:
        c = st.clone()
        try:
            c.apply(a)
        except IllegalActionError as exc:
            mismatches.append(f"masked action {a} raised: {str(exc)[:200]}")
            continue
        if hasattr(c, "check_invariants"):
            try:
                c.check_invariants()
            except AssertionError as exc:
                mismatches.append(f"masked action {a} ({u.describe_action(a)}) broke an invariant: {exc}")
    unmasked = np.flatnonzero(mask == 0)
    if not full and len(unmasked) > sample:
        unmasked = rng.choice(unmasked, size=sample, replace=False)
    # a rejected action must leave the clone's to_json() unchanged; any change would persist, so the full JSON is
    # compared every ``batch`` attempts (and a cheap fingerprint after each one) to keep full sweeps fast
    c = st.clone()
    ref = c.to_json()
    fp = _fingerprint(c)
    batch: list[int] = []
    for a in unmasked:
        a = int(a)
        batch.append(a)
        try:
            c.apply(a)
        except IllegalActionError:
            if len(batch) >= 64 or a == int(unmasked[-1]) or _fingerprint(c) != fp:
                if c.to_json() != ref:
                    mismatches.append(f"an unmasked action among {batch} raised but changed the state")
                    c = st.clone()
                batch = []
            continue
        mismatches.append(f"unmasked action {a} ({u.describe_action(a)}) was accepted")
        c = st.clone()
        batch = []
    if st.to_json() != before:
        mismatches.append("checking changed the env's own state")
    return {"legal": len(legal), "illegal": len(unmasked), "mismatches": mismatches}


def _fingerprint(state: Any) -> tuple[Any, ...]:
    """Cheap summary of an engine state that any applied action changes."""
    return (len(state.history), state.phase, state.current_player)


# ------------------------------------------------------------------------------------------------------------
# Hidden information
# ------------------------------------------------------------------------------------------------------------


def check_hidden(env: Any, rng: np.random.Generator) -> dict[str, Any]:
    """For each seat: resampling what that seat cannot see leaves its observation and mask unchanged.

    Also reports whether the resampling changed some opponent's hand and whether it changed another seat's
    observation (both show that the check has power).
    """
    u = env.unwrapped
    st = u.state_
    before = st.to_json()
    problems: list[str] = []
    opp_changed = 0
    other_obs_changed = 0
    for seat, agent in enumerate(u.possible_agents):
        obs = u.observe(agent)
        others = {a: u.observe(a)["observation"] for a in u.possible_agents if a != agent}
        res = st.resample_hidden(seat, rng)
        u.state_ = res
        try:
            obs2 = u.observe(agent)
            others2 = {a: u.observe(a)["observation"] for a in others}
        finally:
            u.state_ = st
        if not np.array_equal(obs["observation"], obs2["observation"]):
            diff = np.flatnonzero(obs["observation"] != obs2["observation"])
            names = sorted({n for i in diff for n, sl in _piece_slices(u) if sl.start <= i < sl.stop})
            problems.append(f"seat {seat}: observation changed in pieces {names}")
        if not np.array_equal(obs["action_mask"], obs2["action_mask"]):
            problems.append(f"seat {seat}: action mask changed")
        js, js2 = st.to_json(), res.to_json()
        if js2["hands"][seat] != js["hands"][seat]:
            problems.append(f"seat {seat}: its own hand was resampled")
        for key in ("discard", "table", "known", "scores", "phase", "current_player"):
            if js.get(key) != js2.get(key):
                problems.append(f"seat {seat}: public field {key!r} changed")
        if [len(h) for h in js["hands"]] != [len(h) for h in js2["hands"]]:
            problems.append(f"seat {seat}: hand sizes changed")
        if len(js.get("stock", [])) != len(js2.get("stock", [])):
            problems.append(f"seat {seat}: stock size changed")
        if hasattr(res, "check_invariants"):
            try:
                res.check_invariants()
            except AssertionError as exc:
                problems.append(f"seat {seat}: resampled state breaks an invariant: {exc}")
        if any(sorted(js2["hands"][p]) != sorted(js["hands"][p]) for p in range(len(js["hands"])) if p != seat):
            opp_changed += 1
        if any(not np.array_equal(others[a], others2[a]) for a in others):
            other_obs_changed += 1
    if st.to_json() != before:
        problems.append("resample_hidden changed the original state")
    return {
        "players": len(u.possible_agents),
        "problems": problems,
        "opp_changed": opp_changed,
        "other_obs_changed": other_obs_changed,
    }


def _piece_slices(u: Any) -> list[tuple[str, slice]]:
    pieces = u.observer.pieces
    return [(name, pieces.slice(name)) for name in pieces.shapes]


# ------------------------------------------------------------------------------------------------------------
# Observations
# ------------------------------------------------------------------------------------------------------------


def check_observation(env: Any, agent: str, obs: dict[str, np.ndarray], rng: np.random.Generator) -> list[str]:
    """Space membership, dtypes, off-turn masks, masked sampling, and the named pieces of the flat vector."""
    u = env.unwrapped
    problems: list[str] = []
    space = env.observation_space(agent)
    vec, mask = obs["observation"], obs["action_mask"]
    if vec.dtype != np.float32 or mask.dtype != np.int8:
        problems.append(f"dtypes {vec.dtype}/{mask.dtype}, want float32/int8")
    if not space.contains(obs):
        bad = np.flatnonzero(~np.isfinite(vec) | (vec < 0))
        problems.append(f"observation outside its space (bad entries {bad[:10]})")
    legal = u.state_.legal_actions()
    if sorted(np.flatnonzero(mask).tolist()) != sorted(legal):
        problems.append("mask differs from the engine's legal actions")
    info_mask = u.infos.get(agent, {}).get("action_mask")
    if info_mask is not None and not np.array_equal(info_mask, mask):
        problems.append("infos[agent]['action_mask'] differs from the observed mask")
    for other in u.possible_agents:
        if other == agent:
            continue
        o = u.observe(other)
        if o["action_mask"].any():
            problems.append(f"{other} (not on turn) has a non-zero mask")
        if not env.observation_space(other).contains(o):
            problems.append(f"{other} (not on turn): observation outside its space")
    aspace = env.action_space(agent)
    assert isinstance(aspace, spaces.Discrete)
    aspace.seed(int(rng.integers(1 << 31)))
    a = int(aspace.sample(mask=mask))
    if a not in legal:
        problems.append(f"Discrete.sample(mask=...) returned illegal {a}")
    pieces = u.observation_pieces(agent)
    total = sum(int(np.prod(p.shape)) for p in pieces.values())
    if total != vec.shape[0]:
        problems.append(f"pieces sum to {total}, observation has {vec.shape[0]}")
    flat = np.concatenate([p.reshape(-1) for p in pieces.values()]) if pieces else np.zeros(0)
    if not np.array_equal(flat, vec):
        problems.append("the pieces, in order, are not the flat observation")
    for name, sl in _piece_slices(u):
        if not np.array_equal(pieces[name].reshape(-1), vec[sl]):
            problems.append(f"piece {name!r} is not its slice of the observation")
    return problems


# ------------------------------------------------------------------------------------------------------------
# action_info schema
# ------------------------------------------------------------------------------------------------------------


def check_action_info(env: Any, action: int) -> list[str]:
    """``action_info`` of a legal action has the documented keys for its kind and its cards parse."""
    u = env.unwrapped
    st = u.state_
    info = u.action_info(action)
    kind = info.get("kind")
    if kind not in ACTION_INFO_KEYS:
        return [f"action {action}: unknown kind {kind!r}"]
    keys = set(info) - {"kind"}
    want = ACTION_INFO_KEYS[kind]
    problems = []
    if not want <= keys:
        problems.append(f"action {action} ({kind}): missing keys {sorted(want - keys)}")
    extra = keys - want - ACTION_INFO_EXTRA.get(kind, frozenset())
    if extra:
        problems.append(f"action {action} ({kind}): undocumented keys {sorted(extra)}")
    if "card" in info:
        try:
            parse_card(info["card"])
        except ValueError:
            problems.append(f"action {action} ({kind}): card {info['card']!r} does not parse")
    if kind == "meld":
        if info.get("meld") not in ("group", "run"):
            problems.append(f"action {action}: meld kind {info.get('meld')!r}")
        for c in info.get("cards", []):
            if c.startswith("JK"):
                m = _JOKER_DECL.match(c)
                if not m or (info["meld"] == "run") != (m.group(2) is not None):
                    problems.append(f"action {action}: joker {c!r} in a {info['meld']} is not declared as documented")
                else:
                    parse_card(m.group(1) + (m.group(2) or "C"))
            else:
                try:
                    parse_card(c)
                except ValueError:
                    problems.append(f"action {action}: card {c!r} does not parse")
    if kind in ("lay_off", "swap_joker", "place_joker"):
        seat, idx = info.get("seat"), info.get("meld")
        table = st.to_json()["table"]
        owned = [m for m in table if m["owner"] == seat]
        if not isinstance(seat, int) or not isinstance(idx, int) or not 0 <= idx < len(owned):
            problems.append(f"action {action} ({kind}): seat {seat!r} meld {idx!r} is not on the table")
        elif kind != "swap_joker":
            want_end = None if owned[idx]["kind"] == "group" else ("low", "high")
            end = info.get("end")
            if (want_end is None and end is not None) or (want_end is not None and end not in want_end):
                problems.append(f"action {action} ({kind}): end {end!r} on a {owned[idx]['kind']}")
    if kind in ("discard", "lay_off", "swap_joker"):
        hand = st.to_json()["hands"][st.current_player]
        if parse_card(info["card"]) not in [parse_card(c) for c in hand]:
            problems.append(f"action {action} ({kind}): card {info['card']} is not in the actor's hand")
    if kind in ("draw_discard", "buy"):
        top = st.to_json()["discard"][0]
        if parse_card(info["card"]) != parse_card(top):
            problems.append(f"action {action} ({kind}): card {info['card']} is not the discard top {top}")
    return problems


# ------------------------------------------------------------------------------------------------------------
# Rewards
# ------------------------------------------------------------------------------------------------------------


def play_session(env: Any, seed: int, bias: float, buy_prob: float = 0.05) -> dict[str, Any]:
    """Play a whole session; sum the rewards ``last()`` hands each agent and the ``rewards`` dicts after steps."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed + 104729)
    u = env.unwrapped
    via_last: Counter[str] = Counter()
    via_rewards: Counter[str] = Counter()
    final_seen: Counter[str] = Counter()
    steps = 0
    for agent in env.agent_iter():
        obs, rew, term, trunc, _ = env.last()
        via_last[agent] += float(rew)
        if term or trunc:
            final_seen[agent] += 1
            env.step(None)
            continue
        env.step(choose_action(env, obs["action_mask"], rng, bias, buy_prob))
        steps += 1
        for a, r in u.rewards.items():
            via_rewards[a] += float(r)
    return {
        "last": dict(via_last),
        "rewards": dict(via_rewards),
        "final_seen": dict(final_seen),
        "steps": steps,
        "state": u.state_,
    }


def expected_returns(mode: str, state: Any, agents: list[str], scale: float = 100.0) -> dict[str, float]:
    """The documented episode return of each agent under reward ``mode``, from the engine's records."""
    n = len(agents)
    results = state.round_results
    if mode == "penalty":
        return {a: -sum(r["penalties"][i] for r in results) / scale for i, a in enumerate(agents)}
    if mode == "relative":
        out = dict.fromkeys(agents, 0.0)
        for r in results:
            pens = r["penalties"]
            mean = sum(pens) / n
            for i, a in enumerate(agents):
                out[a] += (mean - pens[i]) / scale
        return out
    if mode == "win":
        win = set(state.winners())
        k = len(win)
        if k == n:
            return dict.fromkeys(agents, 0.0)
        return {a: (1.0 / k if i in win else -1.0 / (n - k)) for i, a in enumerate(agents)}
    raise ValueError(mode)
