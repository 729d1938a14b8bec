"""Generic conformance checks for the rummy_env PettingZoo environments.

Every check here is written over an env built by ``rummy_env.make(profile, **config)`` and the engine API every
profile shares (``state_.clone()``, ``apply``, ``legal_actions``, ``to_json``, ``resample_hidden``,
``round_results``, ``winners``, ``action_info``). What differs between profiles lives in tables:
``ENV_CASES`` (profile x player count), ``PROFILES`` (action kinds and their ``action_info`` keys, reward modes
and how to compute the expected return, the session-subset option, the kinds random play must offer),
``RIGGED`` (scenario positions near rare decisions) and ``ORACLES`` (independent checks of a profile's masks).
The sweeps at the bottom (``sweep_masks``, ``sweep_hidden``, ...) run a whole check over one case and return its
figures; the test modules assert on them.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils import BaseWrapper

import rummy_env
from rummy_env.core.cards import JOKER, NUM_KINDS, NUM_RANKS, Shoe, card_str, parse_card
from rummy_env.engine import IllegalActionError
from rummy_env.envs.base import INFO_KEYS
from rummy_env.registry import game

Case = tuple[str, dict[str, Any]]

#: (profile, config) of every env the conformance suite runs on
ENV_CASES: list[Case] = [
    ("contract", {}),
    ("contract_gamerules", {"num_players": 3}),
    ("contract_gamerules", {"num_players": 4}),
    ("contract_gamerules", {"num_players": 5}),
    ("continental", {"num_players": 4}),
    ("continental", {"num_players": 5}),
]

#: action kinds a biased policy prefers, so that openings, lay-offs, joker swaps, deep pickups and declarations
#: show up in random play (kinds a profile lacks never appear, so one set serves every profile)
PREFERRED_KINDS = frozenset(
    {"pickup", "meld", "lay_off", "swap_joker", "place_joker", "go_out", "declare", "discard_declare"}
)
#: kinds whose presence among the legal actions makes a state worth sampling often
RARE_KINDS = frozenset(
    {"pickup", "meld", "lay_off", "swap_joker", "place_joker", "go_out", "declare", "discard_declare", "pass"}
)


@dataclass(frozen=True)
class ProfileSpec:
    """What the conformance suite needs to know about one profile."""

    #: documented ``action_info`` keys of every action kind of the profile (besides "kind")
    action_keys: dict[str, frozenset[str]]
    #: kinds that must be seen legal in the sampled states of random and biased play (the rigged positions must
    #: supply the others: every kind of ``action_keys`` is asserted over both)
    expected_kinds: frozenset[str]
    #: reward modes of the env (the first is the default)
    reward_modes: tuple[str, ...]
    #: the per-round record of ``round_results`` the rewards come from
    result_key: str
    #: the config option that plays a subset of the session, and valid / invalid values of it
    session_key: str
    session_subsets: tuple[Any, ...]
    bad_session_values: tuple[Any, ...]
    #: True: the highest cumulative score wins (balances); False: the lowest (penalties)
    higher_wins: bool
    #: the observation piece that one-hot encodes the round / deal
    round_piece: str
    #: allowed player counts and some that must be refused
    player_counts: tuple[int, ...]
    bad_player_counts: tuple[int, ...]
    #: extra keys an engine may add beyond the documented ones (reported, not an error)
    action_extra: dict[str, frozenset[str]] = field(default_factory=dict)
    #: the biased policy also looks one decision ahead for a preferred kind (cheap only with small action sets)
    lookahead: bool = False


_CONTRACT_KEYS: dict[str, frozenset[str]] = {
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
_GAMERULES_KEYS = {k: v for k, v in _CONTRACT_KEYS.items() if k not in ("buy", "pass")} | {
    "pickup": frozenset({"depth", "card"})
}
_CONTINENTAL_KEYS: dict[str, frozenset[str]] = {
    "draw_stock": frozenset(),
    "draw_discard": frozenset({"card"}),
    "discard": frozenset({"card"}),
    "declare": frozenset({"draw"}),
    "discard_declare": frozenset({"card"}),
}

PROFILES: dict[str, ProfileSpec] = {
    "contract": ProfileSpec(
        action_keys=_CONTRACT_KEYS,
        action_extra={"swap_joker": frozenset({"position"})},
        # joker swaps / placements and going out come from the rigged positions (every kind is asserted over the
        # sampled and rigged states together)
        expected_kinds=frozenset({"draw_stock", "draw_discard", "buy", "pass", "meld", "lay_off", "discard"}),
        reward_modes=("penalty", "relative", "win"),
        result_key="penalties",
        session_key="rounds",
        session_subsets=((1,), (7,), (2, 5)),
        bad_session_values=((8,), ()),
        higher_wins=False,
        round_piece="round",
        player_counts=(4,),
        bad_player_counts=(3, 5),
    ),
    "contract_gamerules": ProfileSpec(
        action_keys=_GAMERULES_KEYS,
        action_extra={"swap_joker": frozenset({"position"})},
        expected_kinds=frozenset({"draw_stock", "draw_discard", "pickup", "meld", "lay_off", "discard"}),
        reward_modes=("penalty", "relative", "win"),
        result_key="penalties",
        session_key="rounds",
        session_subsets=((1,), (7,), (2, 5)),
        bad_session_values=((8,), (), (0,)),
        higher_wins=False,
        round_piece="round",
        player_counts=(3, 4, 5),
        bad_player_counts=(2, 6),
    ),
    "continental": ProfileSpec(
        action_keys=_CONTINENTAL_KEYS,
        expected_kinds=frozenset({"draw_stock", "draw_discard", "discard"}),
        reward_modes=("payment", "win"),
        result_key="payments",
        session_key="rounds",
        session_subsets=(1, 2),
        bad_session_values=(0, -1, True, "2"),
        higher_wins=True,
        round_piece="deal",
        player_counts=(4, 5),
        bad_player_counts=(3, 6),
        lookahead=True,
    ),
}

#: compatibility names (the contract profile's tables)
ACTION_INFO_KEYS: dict[str, frozenset[str]] = PROFILES["contract"].action_keys
ACTION_INFO_EXTRA: dict[str, frozenset[str]] = PROFILES["contract"].action_extra
#: action kinds that must be seen legal somewhere in the sampled states of a profile
EXPECTED_KINDS: dict[str, frozenset[str]] = {name: spec.expected_kinds for name, spec in PROFILES.items()}

_JOKER_DECL = re.compile(r"^JK\((A|[2-9]|10|J|Q|K)([CDHS])?\)$")


def case_id(case: Case) -> str:
    """A readable pytest id of an env case."""
    name, cfg = case
    return name + "".join(f"-{k}={v}" for k, v in sorted(cfg.items()))


def cases_of(profile: str) -> list[Case]:
    """The env cases of one profile."""
    return [c for c in ENV_CASES if c[0] == profile]


def make_env(case: Case, wrapped: bool = True, **extra: Any) -> Any:
    """The env of ``case`` (extra config on top of the case's own)."""
    name, cfg = case
    return rummy_env.make(name, wrapped=wrapped, **{**cfg, **extra})


def spec_of(env: Any) -> ProfileSpec:
    """The profile table entry of an env."""
    return PROFILES[env.unwrapped.profile]


# ------------------------------------------------------------------------------------------------------------
# Policies and driving
# ------------------------------------------------------------------------------------------------------------


def choose_action(
    env: Any, mask: np.ndarray, rng: np.random.Generator, bias: float, buy_prob: float, lookahead: bool = False
) -> int:
    """A random legal action; with probability ``bias`` one of the preferred kinds if any is legal.

    ``bias=0``: uniform over the mask. In a buy window the biased policy buys with probability ``buy_prob``
    (buying every card drains the stock and every round ends exhausted). ``lookahead``: when no preferred kind is
    legal, prefer an action after which the same player is offered one (e.g. the discard that leaves a hand that
    may be declared).
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
        if not pref and lookahead and len(legal) <= 64:
            pref = _lookahead(u._state, [int(a) for a in legal])
        if pref:
            return int(rng.choice(pref))
    return int(rng.choice(legal))


def _lookahead(st: Any, legal: list[int]) -> list[int]:
    """Legal actions after which the same player is offered a preferred kind."""
    me = st.current_player
    out = []
    for a in legal:
        c = st.clone()
        c.apply(a)
        if c.current_player == me and any(c.action_info(b)["kind"] in PREFERRED_KINDS for b in c.legal_actions()):
            out.append(a)
    return out


def decisions(
    env: Any,
    seed: int,
    bias: float = 0.0,
    buy_prob: float = 0.05,
    options: dict[str, Any] | None = None,
    max_decisions: int | None = None,
    lookahead: bool | None = None,
) -> Iterator[tuple[str, dict[str, np.ndarray]]]:
    """Reset with ``seed`` and yield ``(agent, observation)`` at every live decision, then play a policy move.

    The consumer may inspect (not change) the env between yields; dead agents are stepped with ``None``.
    ``lookahead=None``: the profile's default.
    """
    if lookahead is None:
        lookahead = spec_of(env).lookahead
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
        env.step(choose_action(env, obs["action_mask"], rng, bias, buy_prob, lookahead))


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
    st = u._state
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
    for a in legal[:40]:  # what the engine's message of every rejection below describes (the text: check_illegal_raise)
        st.describe_action(a)
    c = _terse_clone(st)
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
                    c = _terse_clone(st)
                batch = []
            continue
        mismatches.append(f"unmasked action {a} ({u.describe_action(a)}) was accepted")
        c = _terse_clone(st)
        batch = []
    if st.to_json() != before:
        mismatches.append("checking changed the env's own state")
    return {"legal": len(legal), "illegal": len(unmasked), "mismatches": mismatches}


def _terse_clone(state: Any) -> Any:
    """A clone of ``state`` whose rejections describe the rejected id only.

    The engine's ``IllegalActionError`` text also describes the first 40 legal actions, the same text for every
    rejection in one state; a full sweep rejects thousands of ids per state, and building that text was 90% of the
    sweeps' time. The rejection itself (raised, state unchanged) is the same code path; the text is checked by
    ``check_illegal_raise``, and ``check_mask_exact`` describes the legal actions once per state.
    """
    clone = state.clone()

    def message(action: int, legal: list[int]) -> str:
        try:
            desc = clone.describe_action(action)
        except ValueError:
            desc = "not an action of this table"
        return f"illegal action {action} ({desc})"

    clone._illegal_message = message
    return clone


def _fingerprint(state: Any) -> tuple[Any, ...]:
    """Cheap summary of an engine state that any applied action changes."""
    return (len(state.history), state.phase, state.current_player)


# ------------------------------------------------------------------------------------------------------------
# Hidden information
# ------------------------------------------------------------------------------------------------------------

#: JSON-state keys that hold hidden information (everything else must survive a resample unchanged)
HIDDEN_KEYS = frozenset({"hands", "stock"})


#: how far ``check_hidden`` plays on in the two worlds (decisions, actions tried per decision, resamples per action)
FORWARD_STEPS, FORWARD_BRANCH, FORWARD_TRIES = 3, 6, 4


def check_hidden(
    env: Any,
    rng: np.random.Generator,
    steps: int = FORWARD_STEPS,
    branch: int = FORWARD_BRANCH,
    tries: int = FORWARD_TRIES,
) -> dict[str, Any]:
    """For each seat: resampling what that seat cannot see leaves its observation and mask unchanged, and so do
    the next decisions played the same way in both worlds (``check_hidden_forward``).

    Also reports whether the resampling changed some opponent's hand and whether it changed another seat's
    observation (both show that the check has power).
    """
    u = env.unwrapped
    st = u._state
    before = st.to_json()
    problems: list[str] = []
    opp_changed = 0
    other_obs_changed = 0
    movers = mover_kept = 0
    for seat, agent in enumerate(u.possible_agents):
        obs = u.observe(agent)
        others = {a: u.observe(a)["observation"] for a in u.possible_agents if a != agent}
        res = st.resample_hidden(seat, rng)
        u._state = res
        try:
            obs2 = u.observe(agent)
            others2 = {a: u.observe(a)["observation"] for a in others}
        finally:
            u._state = st
        if not np.array_equal(obs["observation"], obs2["observation"]):
            diff = np.flatnonzero(obs["observation"] != obs2["observation"])
            names = sorted({n for i in diff for n, sl in _piece_slices(u) if sl.start <= i < sl.stop})
            problems.append(f"seat {seat}: observation changed in pieces {names}")
        if not np.array_equal(obs["action_mask"], obs2["action_mask"]):
            problems.append(f"seat {seat}: action mask changed")
        js, js2 = st.to_json(), res.to_json()
        if js2["hands"][seat] != js["hands"][seat]:
            problems.append(f"seat {seat}: its own hand was resampled")
        for key in sorted(set(js) | set(js2)):
            if key not in HIDDEN_KEYS and js.get(key) != js2.get(key):
                problems.append(f"seat {seat}: public field {key!r} changed")
        if [len(h) for h in js["hands"]] != [len(h) for h in js2["hands"]]:
            problems.append(f"seat {seat}: hand sizes changed")
        if len(js.get("stock", [])) != len(js2.get("stock", [])):
            problems.append(f"seat {seat}: stock size changed")
        for p, known in enumerate(js.get("known", [])):
            if Counter(known) - Counter(js2["hands"][p]):
                problems.append(f"seat {seat}: seat {p} lost a publicly known card in the resample")
        if hasattr(res, "check_invariants"):
            try:
                res.check_invariants()
            except AssertionError as exc:
                problems.append(f"seat {seat}: resampled state breaks an invariant: {exc}")
        consistent = RESAMPLE_CONSISTENCY.get(u.profile)
        if consistent is not None and not consistent(res):
            problems.append(f"seat {seat}: the resample contradicts public information ({res.phase!r} phase)")
        if any(sorted(js2["hands"][p]) != sorted(js["hands"][p]) for p in range(len(js["hands"])) if p != seat):
            opp_changed += 1
        mover = st.current_player
        if mover >= 0 and mover != seat and Counter(js["hands"][mover]) - Counter(js["known"][mover]):
            movers += 1
            if sorted(js2["hands"][mover]) == sorted(js["hands"][mover]):
                mover_kept += 1
        if any(not np.array_equal(others[a], others2[a]) for a in others):
            other_obs_changed += 1
    fwd = check_hidden_forward(env, rng, steps=steps, branch=branch, tries=tries)
    problems.extend(fwd.pop("problems"))
    if st.to_json() != before:
        problems.append("resample_hidden changed the original state")
    return {
        "players": len(u.possible_agents),
        "problems": problems,
        "opp_changed": opp_changed,
        "other_obs_changed": other_obs_changed,
        "movers": movers,
        "mover_kept": mover_kept,
        **fwd,
    }


def _seat_view(u: Any, state: Any, agent: str) -> tuple[int, np.ndarray, np.ndarray]:
    """(player to move, observation, mask) of ``agent`` in ``state`` (the env's own state is put back)."""
    st = u._state
    u._state = state
    try:
        obs = u.observe(agent)
    finally:
        u._state = st
    return state.current_player, obs["observation"], obs["action_mask"]


def check_hidden_forward(
    env: Any, rng: np.random.Generator, *, steps: int, branch: int, tries: int
) -> dict[str, Any]:
    """No decision point, turn order or observation may depend on cards a seat cannot see.

    For each observer seat: world A is the env's state, world B a resample of everything the observer cannot see
    (``resample_hidden``). Both play on for ``steps`` decisions with the same actions. At each decision up to
    ``branch`` legal actions of world A are tried; an action that is illegal in B (the mover holds other hidden
    cards there) gets B resampled again from A, up to ``tries`` times, until it is legal in both. After each action
    the player to move and the observer's observation and mask must be the same in both worlds. An action that
    gives the observer himself a hidden card (his own stock draw) ends that branch, and so does the end of a round
    (the hands are shown and scored; only the player to move next and the round's end itself are compared).
    The walk goes on along one of the actions tried. Figures: decisions compared, and those where an opponent of
    the observer moved holding different cards in the two worlds (where a leak of his hidden cards would show).
    """
    u = env.unwrapped
    st = u._state
    problems: list[str] = []
    compared = opp_moves = 0
    for seat, agent in enumerate(u.possible_agents):
        a_state, b_state = st.clone(), st.resample_hidden(seat, rng)
        path: list[str] = []
        for _ in range(steps):
            if a_state.is_terminal():
                break
            legal = [int(x) for x in a_state.legal_actions()]
            cands = legal if len(legal) <= branch else [int(x) for x in rng.choice(legal, size=branch, replace=False)]
            mover = a_state.current_player
            nexts: list[tuple[Any, Any, str]] = []
            for a in cands:
                b0 = b_state
                for _ in range(tries):
                    if a in b0.legal_actions():
                        break
                    b0 = a_state.resample_hidden(seat, rng)
                else:
                    continue
                what = f"{a_state.describe_action(a)} by P{mover}"
                differ = list(a_state.hands[mover]) != list(b0.hands[mover])
                a2, b2 = a_state.clone(), b0.clone()
                a2.apply(a)
                b2.apply(a)
                ended = len(a2.round_results) > len(a_state.round_results)
                if not ended and list(a2.hands[seat]) != list(b2.hands[seat]):
                    continue  # the observer drew a hidden card: the two worlds may look different to him now
                compared += 1
                opp_moves += mover != seat and differ
                cur_a, obs_a, mask_a = _seat_view(u, a2, agent)
                cur_b, obs_b, mask_b = _seat_view(u, b2, agent)
                where = f"seat {seat} after {' / '.join([*path, what])}"
                if cur_a != cur_b:
                    problems.append(f"{where}: P{cur_a} moves next, P{cur_b} in a world with other hidden cards")
                if ended != (len(b2.round_results) > len(b_state.round_results)):
                    problems.append(f"{where}: the round ends in one world only")
                if ended:
                    continue  # the hands are shown and scored: the scores (and the next deal) may differ now
                if not np.array_equal(obs_a, obs_b):
                    diff = np.flatnonzero(obs_a != obs_b)
                    names = sorted({n for i in diff for n, sl in _piece_slices(u) if sl.start <= i < sl.stop})
                    problems.append(f"{where}: its observation depends on hidden cards (pieces {names})")
                if not np.array_equal(mask_a, mask_b):
                    problems.append(f"{where}: its action mask depends on hidden cards")
                nexts.append((a2, b2, what))
            if not nexts:
                break
            a_state, b_state, what = nexts[int(rng.integers(len(nexts)))]
            path.append(what)
    return {"problems": problems, "fwd_compared": compared, "fwd_opp_moves": opp_moves}


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
        names = sorted({n for i in bad for n, sl in _piece_slices(u) if sl.start <= i < sl.stop})
        problems.append(f"observation outside its space (bad entries {bad[:10]} in pieces {names})")
    legal = u._state.legal_actions()
    if sorted(np.flatnonzero(mask).tolist()) != sorted(legal):
        problems.append("mask differs from the engine's legal actions")
    info = u.infos.get(agent, {})
    if tuple(info) != INFO_KEYS:  # one info schema on every step (the mask is in the observation)
        problems.append(f"infos[agent] has the keys {sorted(info)}, want {list(INFO_KEYS)}")
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
    """``action_info`` of a legal action has the documented keys for its kind (per profile) and its cards parse."""
    u = env.unwrapped
    spec = spec_of(env)
    st = u._state
    info = u.action_info(action)
    kind = info.get("kind")
    if kind not in spec.action_keys:
        return [f"action {action}: kind {kind!r} is not a kind of profile {u.profile!r}"]
    rng_name = st.layout.range_of(int(action)).name
    problems = []
    if rng_name != kind:
        problems.append(f"action {action}: kind {kind!r} but it lies in the range {rng_name!r}")
    keys = set(info) - {"kind"}
    want = spec.action_keys[kind]
    if not want <= keys:
        problems.append(f"action {action} ({kind}): missing keys {sorted(want - keys)}")
    extra = keys - want - spec.action_extra.get(kind, frozenset())
    if extra:
        problems.append(f"action {action} ({kind}): undocumented keys {sorted(extra)}")
    if "card" in info:
        try:
            parse_card(info["card"])
        except (ValueError, TypeError):
            problems.append(f"action {action} ({kind}): card {info['card']!r} does not parse")
            return problems
    if kind == "meld":
        if info.get("meld") not in ("group", "run"):
            problems.append(f"action {action}: meld kind {info.get('meld')!r}")
        for c in info.get("cards", []):
            if c.startswith("JK"):
                m = _JOKER_DECL.match(c)
                # a run's joker names its card; a set's joker also its suit where sets have distinct suits (B.1-3)
                want_suit = info["meld"] == "run" or st.rules.group_distinct_suits
                if not m or want_suit != (m.group(2) is not None):
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
    if kind in ("discard", "lay_off", "swap_joker", "discard_declare"):
        hand = st.to_json()["hands"][st.current_player]
        if parse_card(info["card"]) not in [parse_card(c) for c in hand]:
            problems.append(f"action {action} ({kind}): card {info['card']} is not in the actor's hand")
    if kind in ("draw_discard", "buy"):
        top = st.to_json()["discard"][0]
        if parse_card(info["card"]) != parse_card(top):
            problems.append(f"action {action} ({kind}): card {info['card']} is not the discard top {top}")
    if kind == "pickup":
        depth, pile = info.get("depth"), st.to_json()["discard"]
        if not isinstance(depth, int) or not 2 <= depth <= len(pile):
            problems.append(f"action {action} (pickup): depth {depth!r} with a discard pile of {len(pile)}")
        elif parse_card(info["card"]) != parse_card(pile[depth - 1]):
            problems.append(f"action {action} (pickup): card {info['card']} is not at depth {depth} of {pile}")
    if kind == "declare":
        if info.get("draw") is not False or st.phase != "draw":
            problems.append(f"action {action} (declare): draw={info.get('draw')!r} in phase {st.phase!r}")
    return problems


# ------------------------------------------------------------------------------------------------------------
# Rewards
# ------------------------------------------------------------------------------------------------------------


def play_session(
    env: Any,
    seed: int,
    bias: float,
    buy_prob: float = 0.05,
    options: dict[str, Any] | None = None,
    lookahead: bool | None = None,
) -> dict[str, Any]:
    """Play a whole session; sum the rewards ``last()`` hands each agent and the ``rewards`` dicts after steps.

    Also returns ``start_results`` (round results the session started with: a scenario may start mid-session)
    and ``start_scores``.
    """
    if lookahead is None:
        lookahead = spec_of(env).lookahead
    env.reset(seed=seed, options=options)
    rng = np.random.default_rng(seed + 104729)
    u = env.unwrapped
    start_results = len(u._state.round_results)
    start_scores = list(u._state.scores)
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
        env.step(choose_action(env, obs["action_mask"], rng, bias, buy_prob, lookahead))
        steps += 1
        for a, r in u.rewards.items():
            via_rewards[a] += float(r)
    return {
        "last": dict(via_last),
        "rewards": dict(via_rewards),
        "final_seen": dict(final_seen),
        "steps": steps,
        "state": u._state,
        "start_results": start_results,
        "start_scores": start_scores,
    }


def expected_returns(
    mode: str,
    state: Any,
    agents: list[str],
    scale: float = 100.0,
    results: list[dict[str, Any]] | None = None,
    higher_wins: bool | None = None,
) -> dict[str, float]:
    """The documented episode return of each agent under reward ``mode``, from the engine's records.

    ``results``: the round results the episode produced (default: all of them); ``higher_wins``: whether the
    highest cumulative score wins (default: by the records, payments -> highest, penalties -> lowest).
    """
    n = len(agents)
    results = state.round_results if results is None else results
    if mode == "penalty":
        return {a: -sum(r["penalties"][i] for r in results) / scale for i, a in enumerate(agents)}
    if mode == "payment":
        return {a: sum(r["payments"][i] for r in results) / scale for i, a in enumerate(agents)}
    if mode == "relative":
        out = dict.fromkeys(agents, 0.0)
        for r in results:
            pens = r["penalties"]
            mean = sum(pens) / n
            for i, a in enumerate(agents):
                out[a] += (mean - pens[i]) / scale
        return out
    if mode == "win":
        if higher_wins is None:
            higher_wins = bool(state.round_results) and "payments" in state.round_results[0]
        best = max(state.scores) if higher_wins else min(state.scores)
        win = {i for i, s in enumerate(state.scores) if s == best}
        k = len(win)
        if k == n:
            return dict.fromkeys(agents, 0.0)
        return {a: (1.0 / k if i in win else -1.0 / (n - k)) for i, a in enumerate(agents)}
    raise ValueError(mode)


def session_units(state: Any) -> int:
    """How many rounds (contract family) or deals (continental) the state's session plays."""
    return len(state.rounds) if hasattr(state, "rounds") else state.num_deals


def check_reward_session(env: Any, mode: str, seed: int, bias: float, options: dict | None = None) -> dict[str, Any]:
    """Play one complete session and compare every agent's return with the documented one (returns problems)."""
    spec = spec_of(env)
    agents = env.possible_agents
    res = play_session(env, seed, bias, options=options)
    st = res["state"]
    new = st.round_results[res["start_results"] :]
    problems: list[str] = []
    tag = f"seed {seed}"
    if not st.is_terminal():
        problems.append(f"{tag}: the session did not end")
    elif len(st.round_results) != session_units(st):
        problems.append(f"{tag}: {len(st.round_results)} round results for a session of {session_units(st)}")
    if res["final_seen"] != dict.fromkeys(agents, 1):
        problems.append(f"{tag}: terminal last() per agent {res['final_seen']} (want once each)")
    want = expected_returns(mode, st, agents, results=new, higher_wins=spec.higher_wins)
    for a in agents:
        got_last, got_rew = res["last"].get(a, 0.0), res["rewards"].get(a, 0.0)
        if abs(got_last - want[a]) > 1e-9 or abs(got_rew - want[a]) > 1e-9:
            problems.append(f"{tag}: {a} return via last() {got_last}, via rewards {got_rew}, expected {want[a]}")
    totals = [res["last"].get(a, 0.0) for a in agents]
    delta = [s - s0 for s, s0 in zip(st.scores, res["start_scores"])]
    if mode == "penalty" and not np.allclose(totals, [-d / 100 for d in delta], atol=1e-9):
        problems.append(f"{tag}: penalty returns {totals} are not -(score change)/100 {delta}")
    if mode == "payment" and not np.allclose(totals, [d / 100 for d in delta], atol=1e-9):
        problems.append(f"{tag}: payment returns {totals} are not (balance change)/100 {delta}")
    if mode in ("relative", "win", "payment") and abs(sum(totals)) > 1e-9:
        problems.append(f"{tag}: {mode} returns are not zero-sum: {totals}")
    for r in new:
        if not {"round", "winner", "reason", spec.result_key} <= set(r):
            problems.append(f"{tag}: round result without {spec.result_key!r}: {r}")
        elif spec.result_key == "payments" and sum(r["payments"]) != 0:
            problems.append(f"{tag}: payments of a deal are not zero-sum: {r}")
    return {"problems": problems, "reasons": Counter(r["reason"] for r in new), "steps": res["steps"]}


# ------------------------------------------------------------------------------------------------------------
# Scenarios: rigged positions near rare decisions
# ------------------------------------------------------------------------------------------------------------


def _canon(c: str) -> str:
    return "JK" if c.startswith("JK") else card_str(parse_card(c))


def _rules_of(case: Case) -> Any:
    """The rules object of a case's env."""
    name, cfg = case
    return _rules_cached(name, tuple(sorted(cfg.items())))


@functools.cache
def _rules_cached(name: str, items: tuple[tuple[str, Any], ...]) -> Any:
    return rummy_env.make(name, wrapped=False, **dict(items)).rules


def build_scenario(case: Case, hand: str | list[str], *, round_no: int = 1, seed: int = 0, **extra: Any) -> dict:
    """Seat 0 to act with ``hand`` (dealer the last seat); the other hands are dealt at random from the rest.

    Cards on the table and in given piles are taken out of the shoe first. ``known0``: the cards of seat 0 that
    are publicly known. Contract family: the other hands get the round's size (fewer if the shoe is short);
    continental: 15 each.
    """
    if isinstance(hand, str):
        hand = hand.split()
    rules = _rules_of(case)
    n = rules.num_players
    shoe = Shoe(rules.decks, rules.jokers)
    pool = Counter({card_str(k): shoe.copies(k) for k in range(NUM_KINDS) if shoe.copies(k)})
    pool.subtract(Counter(_canon(c) for c in hand))
    for m in extra.get("table", []):
        pool.subtract(Counter(_canon(c) for c in m["cards"]))
    for key in ("discard", "stock"):
        pool.subtract(Counter(_canon(c) for c in extra.get(key, [])))
    assert min(pool.values()) >= 0, f"the scenario uses more copies than the {rules.name} shoe has"
    rest = sorted(pool.elements(), key=parse_card)
    rest = [rest[i] for i in np.random.default_rng(seed).permutation(len(rest))]
    if case[0] == "continental":
        size = rules.hand_size
    else:
        size = min(rules.hand_sizes[round_no - 1], (len(rest) - 2) // (n - 1))
    hands = [list(hand)] + [rest[i * size : (i + 1) * size] for i in range(n - 1)]
    sc: dict[str, Any] = {"round": round_no, "dealer": n - 1, "phase": "act", "hands": hands}
    if case[0] == "continental":
        sc["turns_taken"] = [1] * n
    else:
        sc["rigged"] = True  # seat 0's hand is hand-made, not a dealt size
    known0 = extra.pop("known0", None)
    if known0 is not None:
        sc["known"] = [list(known0)] + [[] for _ in range(n - 1)]
    sc.update(extra)
    return sc


_OWN_R2 = [
    {"owner": 0, "kind": "group", "cards": ["10C", "10D", "10H"]},
    {"owner": 0, "kind": "run", "cards": ["QH", "KH", "AH"]},
]
#: continental hands: V1 5+4+3+3 without wilds, V2 with 2s and a joker, ONE_SUIT all hearts (4+4+4+3)
CONT_V1 = "3H 4H 5H 6H 7H 8C 9C 10C JC 4D 5D 6D 9S 10S JS"
CONT_V2 = "3C JK 5C 6S 2H 8S 9H 10H JH QD KD 2D 9C 10C JC"
CONT_ONE_SUIT = "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH 4H 5H 6H"


@dataclass(frozen=True)
class Rigged:
    """A rigged position: the scenario (``build_scenario`` arguments), the kinds that must be legal at its start
    (``exact``: exactly those), and how many decisions a biased walk from it is checked for (each with a full
    mask sweep: shorter walks where the action table is large)."""

    name: str
    hand: str
    args: dict[str, Any]
    kinds: frozenset[str]
    exact: bool = False
    walk: int = 6


#: contract, round 2: seat 1's run holds a joker for 6H, seat 0 (opened, holding 6H) may swap it
_SWAP_TABLE = [
    {"owner": 1, "kind": "run", "cards": ["5H", "JK(6H)", "7H", "8H"]},
    {"owner": 1, "kind": "group", "cards": ["QC", "QD", "JK(Q)"]},
    {"owner": 0, "kind": "group", "cards": ["3C", "3D", "3S"]},
    {"owner": 0, "kind": "run", "cards": ["9S", "10S", "JS", "QS"]},
]

RIGGED: dict[str, list[Rigged]] = {
    "contract": [
        # A.1-11: a joker swap (6H for the joker of seat 1's run), then the freed joker must be placed
        Rigged(
            "swap_joker",
            "6H 2C 9D KS 4S",
            {"round_no": 2, "table": _SWAP_TABLE, "opened": [0, 1]},
            frozenset({"swap_joker"}),
            walk=2,
        ),
        Rigged(
            "place_joker",
            "JK 2C 9D KS",
            {
                "round_no": 2,
                "phase": "place_joker",
                "table": [{"owner": 1, "kind": "run", "cards": ["5H", "6H", "7H", "8H"]}, *_SWAP_TABLE[1:]],
                "opened": [0, 1],
            },
            frozenset({"place_joker"}),
            walk=2,
        ),
        # A.1-8: round 7, the whole hand as three runs (5 + 4 + 4)
        Rigged(
            "go_out_round7", "AC 2C 3C 4C 5C 6D 7D 8D 9D 10S JS QS KS", {"round_no": 7}, frozenset({"go_out"}), walk=2
        ),
        # an opening in progress (round 5, G+G+R, one group laid) offers melds only
        Rigged(
            "opening_in_progress",
            "AC AD 2D 2H 2S JS QS KS AS JK 8C",
            {
                "round_no": 5,
                "phase": "opening",
                "opening_left": [1, 1],
                "table": [{"owner": 0, "kind": "group", "cards": ["7C", "7D", "7H"]}],
            },
            frozenset({"meld"}),
            exact=True,
            walk=2,
        ),
    ],
    "contract_gamerules": [
        # B.1-6 (c): depth 3 (9S) completes the second set of the round-1 opening
        Rigged(
            "pickup_into_opening",
            "7C 7D 7H 9C 9D KD 4C 2H 3S 6S",
            {"round_no": 1, "phase": "draw", "discard": ["QH", "5D", "9S", "JC"]},
            frozenset({"pickup"}),
        ),
        # B.1-10: meld both sets, discard the last card: out in round 1 (the rest of the session is dealt)
        Rigged("out_round1", "7C 7D 7H 9C 9D 9S KD", {"round_no": 1}, frozenset({"meld", "discard"}), exact=True),
        # B.1-6 (c) as a lay-off chain: 8S reaches the run only after 7S, picked up with it
        Rigged(
            "pickup_layoff_chain",
            "3D 9C",
            {
                "round_no": 2,
                "phase": "draw",
                "discard": ["2H", "7S", "KC", "8S", "5C"],
                "table": _OWN_R2
                + [
                    {"owner": 1, "kind": "group", "cards": ["JC", "JD", "JS"]},
                    {"owner": 1, "kind": "run", "cards": ["4S", "5S", "6S"]},
                ],
                "opened": [0, 1],
            },
            frozenset({"pickup"}),
        ),
        # B.2-10: after the pickup nothing but the melds that bring 9S to the table
        Rigged(
            "must_place",
            "7C 7D 7H 9C 9D 9S KD 4C 2H 3S 6S QH 5D",
            {"round_no": 1, "discard": ["JC"], "must_place": "9S", "known0": ["QH", "5D", "9S"]},
            frozenset({"meld"}),
            exact=True,
        ),
        # B.1-9: swap the joker of a run, then the freed joker must be placed
        Rigged(
            "swap_joker",
            "6D 2C KS",
            {
                "round_no": 2,
                "table": _OWN_R2
                + [
                    {"owner": 1, "kind": "run", "cards": ["5D", "JK(6D)", "7D"]},
                    {"owner": 1, "kind": "group", "cards": ["8C", "8D", "8H"]},
                ],
                "opened": [0, 1],
            },
            frozenset({"swap_joker", "discard"}),
        ),
        Rigged(
            "place_joker",
            "JK 2C KS",
            {
                "round_no": 2,
                "phase": "place_joker",
                "table": _OWN_R2
                + [
                    {"owner": 1, "kind": "run", "cards": ["5D", "6D", "7D"]},
                    {"owner": 1, "kind": "group", "cards": ["8C", "8D", "8H"]},
                ],
                "opened": [0, 1],
            },
            frozenset({"place_joker"}),
            exact=True,
        ),
        # B.1-11: round 7, the whole hand as three runs of different suits
        Rigged("go_out_round7", "AC 2C 3C 4C 5C 6D 7D 8D 9D 10S JS QS KS", {"round_no": 7}, frozenset({"go_out"})),
        # an opening in progress offers melds only
        Rigged(
            "opening_in_progress",
            "AC AD AH 4S 5S 6S 9D JK KC 8C",
            {
                "round_no": 5,
                "phase": "opening",
                "opening_left": [1, 1],
                "table": [{"owner": 0, "kind": "group", "cards": ["7C", "7D", "7H"]}],
            },
            frozenset({"meld"}),
            exact=True,
        ),
    ],
    "continental": [
        # C.1-5: a valid dealt hand may be declared at the start of the own first turn, without drawing
        Rigged(
            "first_turn_declare",
            CONT_V1,
            {"phase": "draw", "turns_taken": "zeros"},
            frozenset({"draw_stock", "draw_discard", "declare"}),
            exact=True,
        ),
        # one stray card: discarding it leaves a valid hand (discard it and declare); wilds in the hand
        Rigged("stray_card", CONT_V2 + " KS", {}, frozenset({"discard", "discard_declare"}), exact=True),
        # C.2-6: the card taken from the discard pile may not go back; another discard leaves a valid hand
        Rigged(
            "taken_card",
            CONT_V1 + " QS",
            {"taken_discard": "QS", "known0": ["QS"]},
            frozenset({"discard", "discard_declare"}),
            exact=True,
        ),
        Rigged("one_suit_first_turn", CONT_ONE_SUIT, {"phase": "draw", "turns_taken": "zeros"}, frozenset({"declare"})),
    ],
}


def rigged_scenarios(case: Case) -> list[tuple[Rigged, dict[str, Any]]]:
    """The rigged positions of a case's profile as (entry, scenario)."""
    out = []
    for r in RIGGED.get(case[0], []):
        args = dict(r.args)
        n = _rules_of(case).num_players
        if args.get("turns_taken") == "zeros":
            args["turns_taken"] = [0] * n
        out.append((r, build_scenario(case, r.hand, **args)))
    return out


def mid_session_scenario(case: Case) -> dict[str, Any]:
    """Continental: deal 2 of 3 with earlier balances; seat 0 is one discard from a valid hand."""
    n = _rules_of(case).num_players
    pay = [10 * (n - 1)] + [-10] * (n - 1)
    prior = [{"round": 1, "winner": 0, "reason": "out", "payments": pay}]
    return build_scenario(case, CONT_V2 + " KS", round_no=2, deals=3, scores=pay, round_results=prior)


# ------------------------------------------------------------------------------------------------------------
# Independent oracles of a profile's masks
# ------------------------------------------------------------------------------------------------------------

#: C.1-4: the run lengths a going-out hand may split into
CONT_PATTERNS = ((3, 3, 3, 3, 3), (4, 4, 4, 3), (5, 4, 3, 3))


def continental_valid(counts: list[int]) -> bool:
    """C.1-3/C.1-4 brute force: do the cards split into runs of a pattern (2s and jokers wild, >= 1 natural each)?

    Written from the spec, independent of ``rummy_env.rules.continental_hand``: the lowest natural left must lie in some
    run; try every window and length holding it, every choice of natural / wild for its other positions.
    """
    if sum(counts) != 15:
        return False
    wild = counts[JOKER] + sum(counts[s * NUM_RANKS + 1] for s in range(4))
    nat = tuple(0 if (k % NUM_RANKS == 1) else counts[k] for k in range(52))
    return any(_cont_rec(nat, wild, tuple(sorted(p))) for p in CONT_PATTERNS)


@functools.lru_cache(maxsize=200_000)
def _cont_rec(nat: tuple[int, ...], wild: int, lengths: tuple[int, ...]) -> bool:
    first = next((k for k in range(52) if nat[k]), -1)
    if first < 0:
        return not lengths and wild == 0
    if not lengths:
        return False
    suit, rank = divmod(first, NUM_RANKS)
    positions = (1, 14) if rank == 0 else (rank + 1,)
    for length in set(lengths):
        rest_lengths = list(lengths)
        rest_lengths.remove(length)
        rl = tuple(rest_lengths)
        for pos in positions:
            for low in range(max(1, pos - length + 1), min(pos, 14 - length + 1) + 1):
                others = [q for q in range(low, low + length) if q != pos]
                for mask in range(1 << len(others)):
                    left = list(nat)
                    left[first] -= 1
                    w = wild
                    ok = True
                    for i, q in enumerate(others):
                        if mask >> i & 1:
                            k = suit * NUM_RANKS + (0 if q == 14 else q - 1)
                            if q == 2 or left[k] <= 0:  # a 2 is wild, never the natural of its position
                                ok = False
                                break
                            left[k] -= 1
                        else:
                            w -= 1
                    if ok and w >= 0 and _cont_rec(tuple(left), w, rl):
                        return True
    return False


def gamerules_final_valid(counts: list[int]) -> bool:
    """B.1-11 brute force: the whole hand as exactly three runs (>= 3) of three different suits, jokers anywhere."""
    jokers = counts[JOKER]
    suits = [s for s in range(4) if any(counts[s * NUM_RANKS : (s + 1) * NUM_RANKS])]
    if len(suits) != 3:
        return False  # an all-joker run of 3 needs 3 jokers: never in this family's shoes
    options = []
    for s in suits:
        c = counts[s * NUM_RANKS : (s + 1) * NUM_RANKS]
        if any(x > 1 for x in c[1:]) or c[0] > 2:
            return False
        base = [r + 1 for r in range(1, 13) if c[r]]
        aces = [[1, 14]] if c[0] == 2 else ([[1], [14]] if c[0] == 1 else [[]])
        options.append([sorted(base + a) for a in aces])
    for combo in _product(options):
        gaps = sum(p[-1] - p[0] + 1 - len(p) for p in combo)
        spare = jokers - gaps
        if spare < 0:
            continue
        need = [max(0, 3 - (p[-1] - p[0] + 1)) for p in combo]
        room = [(p[0] - 1) + (14 - p[-1]) for p in combo]
        if all(d <= r for d, r in zip(need, room)) and sum(need) <= spare <= sum(room):
            return True
    return False


def _product(options: list[list[Any]]) -> Iterator[list[Any]]:
    if not options:
        yield []
        return
    for first in options[0]:
        for rest in _product(options[1:]):
            yield [first, *rest]


def _hand_counts(st: Any, seat: int) -> list[int]:
    return list(st.hands[seat])


def oracle_continental(env: Any, mask: np.ndarray) -> tuple[int, list[str]]:
    """Declarations against the brute force: first-turn declare, the declaring variant of each discard."""
    st = env.unwrapped._state
    lay = st.layout
    p = st.current_player
    hand = _hand_counts(st, p)
    problems: list[str] = []
    checks = 0
    if st.phase == "draw":
        want = st.turns_taken[p] == 0 and continental_valid(hand)
        checks += 1
        if bool(mask[lay.DECLARE]) != want:
            problems.append(f"draw phase: declare offered {bool(mask[lay.DECLARE])}, brute force says {want}")
    elif st.phase == "act":
        for k in range(NUM_KINDS):
            if not hand[k]:
                continue
            banned = k == st.taken_kind and hand[k] == 1 and st.rules.forbid_rediscard
            left = list(hand)
            left[k] -= 1
            fits = not banned and continental_valid(left)
            plain = not banned and not (fits and st.rules.declare_mandatory)
            checks += 1
            if bool(mask[lay.DISCARD + k]) != plain:
                problems.append(f"discard {card_str(k)} offered {bool(mask[lay.DISCARD + k])}, want {plain}")
            if bool(mask[lay.DISCARD_DECLARE + k]) != fits:
                got = bool(mask[lay.DISCARD_DECLARE + k])
                problems.append(f"discard {card_str(k)} and declare offered {got}, brute force says {fits}")
            if fits:
                c = st.clone()
                c.apply(lay.DISCARD_DECLARE + k)
                if len(c.round_results) <= len(st.round_results) or c.round_results[-1]["winner"] != p:
                    problems.append(f"discard {card_str(k)} and declare: P{p} did not go out")
    return checks, problems


def oracle_gamerules(env: Any, mask: np.ndarray) -> tuple[int, list[str]]:
    """Round-7 going out against the brute force; B.2-10: no discard while a deep-pickup card is off the table,
    and a random walk after each offered pickup always gets the chosen card down and ends the turn."""
    st = env.unwrapped._state
    lay = st.layout
    p = st.current_player
    problems: list[str] = []
    checks = 0
    if st.final_round and st.phase == "act":
        checks += 1
        hand = _hand_counts(st, p)
        want = gamerules_final_valid(hand)
        if not want and st.rules.final_round_discard:  # or the runs and a discard of a card that may be discarded
            for k in range(NUM_KINDS):
                taken = st.taken_kind if st.taken_pending and st.rules.forbid_rediscard else -1
                spare = hand[k] - (1 if k in (st.must_place, taken) else 0)
                if spare > 0:
                    hand[k] -= 1
                    want = gamerules_final_valid(hand)
                    hand[k] += 1
                    if want:
                        break
        if bool(mask[lay.GO_OUT]) != want:
            problems.append(f"round 7: go_out offered {bool(mask[lay.GO_OUT])}, brute force says {want}")
    if st.must_place >= 0 and mask[lay.DISCARD : lay.DISCARD + NUM_KINDS].any():
        checks += 1
        problems.append(f"a discard is offered while {card_str(st.must_place)} must still reach the table")
    if st.phase == "draw":
        rng = np.random.default_rng(len(st.history))
        results0 = len(st.round_results)
        on_table0 = Counter(k for m in st.table for k in m.cards)
        for a in np.flatnonzero(mask[lay.PICKUP : lay.PICKUP + lay.ranges["pickup"].size]):
            checks += 1
            depth = int(a) + 2
            c = st.clone()
            c.apply(int(lay.PICKUP + a))
            chosen = c.must_place
            steps = 0
            while c.current_player == p and len(c.round_results) == results0:
                legal = c.legal_actions()
                if not legal or steps >= 40:
                    problems.append(f"pickup depth {depth}: the walk got stuck after {steps} decisions")
                    break
                c.apply(int(rng.choice(legal)))
                steps += 1
            if len(c.round_results) > results0:
                if c.round_results[results0]["winner"] != p:
                    problems.append(f"pickup depth {depth}: the round ended without {p} going out")
            elif Counter(k for m in c.table for k in m.cards)[chosen] <= on_table0[chosen]:
                problems.append(f"pickup depth {depth}: the turn ended but {card_str(chosen)} is not on the table")
    return checks, problems


#: public facts about hidden cards a resample must keep, per profile (besides ``check_invariants``, which already
#: asks that the player to move has a legal action); none at present: no phase reveals a hidden hand
RESAMPLE_CONSISTENCY: dict[str, Callable[[Any], bool]] = {}

#: independent checks of each profile's masks, run on every sampled state: (env, mask) -> (checks, problems)
ORACLES: dict[str, Callable[[Any, np.ndarray], tuple[int, list[str]]]] = {
    "continental": oracle_continental,
    "contract_gamerules": oracle_gamerules,
}


# ------------------------------------------------------------------------------------------------------------
# Sweeps over one case (each returns its figures; the tests assert on them)
# ------------------------------------------------------------------------------------------------------------

Run = tuple[int, float, dict[str, Any]]  # (seed, bias of the policy, extra config)


def sweep_masks(
    case: Case,
    runs: list[Run],
    *,
    per_round: int,
    p_rare: float,
    p_common: float,
    full_every: int,
    sample: int,
    seed: int = 1234,
) -> dict[str, Any]:
    """Exact masks over sampled states of ``runs`` and over biased walks from the rigged positions."""
    rng = np.random.default_rng(seed)
    oracle = ORACLES.get(case[0])
    fig: dict[str, Any] = {
        "states": 0,
        "full": 0,
        "actions": 0,
        "legal": 0,
        "oracle": 0,
        "mismatches": [],
        "kinds_sampled": Counter(),
        "kinds_rigged": Counter(),
        "phases": Counter(),
        "rounds": set(),
        "rigged_start": {},
    }
    swept: set[str] = set()

    def check(env: Any, mask: np.ndarray, where: str, force_full: bool = False) -> None:
        st = env.unwrapped._state
        full = force_full or fig["states"] % full_every == 0 or st.phase not in swept
        res = check_mask_exact(env, mask, rng, full=full, sample=sample)
        if full:
            swept.add(st.phase)
            fig["full"] += 1
        fig["states"] += 1
        fig["legal"] += res["legal"]
        fig["actions"] += res["legal"] + res["illegal"]
        tag = f"[{where} {st.phase} r{st.round}]"
        fig["mismatches"].extend(f"{tag} {m}" for m in res["mismatches"])
        if oracle is not None:
            n, probs = oracle(env, mask)
            fig["oracle"] += n
            fig["mismatches"].extend(f"{tag} oracle: {m}" for m in probs)
        fig["phases"][st.phase] += 1
        fig["rounds"].add(st.round)

    for run_seed, bias, extra in runs:
        env = make_env(case, **extra)
        counts: Counter[int] = Counter()
        for _, obs in decisions(env, run_seed, bias=bias):
            rnd = env.unwrapped._state.round
            if counts[rnd] >= per_round:
                continue
            mask = obs["action_mask"]
            kinds = legal_kinds(env, mask)
            if rng.random() < (p_rare if kinds & RARE_KINDS else p_common):
                check(env, mask, f"seed {run_seed}")
                fig["kinds_sampled"].update(kinds)
                counts[rnd] += 1
    env = make_env(case)
    for entry, sc in rigged_scenarios(case):
        first = True
        for _, obs in decisions(env, 0, bias=1.0, options={"scenario": sc}, max_decisions=entry.walk, lookahead=True):
            mask = obs["action_mask"]
            kinds = legal_kinds(env, mask)
            if first:
                fig["rigged_start"][entry.name] = kinds
                first = False
            fig["kinds_rigged"].update(kinds)
            check(env, mask, entry.name, force_full=True)
    return fig


def sweep_hidden(
    case: Case, runs: list[Run], *, per_round: int, p: float, seed: int = 77, **forward: int
) -> dict[str, Any]:
    """Resampling checks at sampled states of ``runs`` and at the first decisions from each rigged position
    (``forward``: ``steps`` / ``branch`` / ``tries`` of ``check_hidden_forward``)."""
    rng = np.random.default_rng(seed)
    fig: dict[str, Any] = {
        "states": 0,
        "checks": 0,
        "opp_changed": 0,
        "other_obs": 0,
        "movers": 0,
        "mover_kept": 0,
        "fwd_compared": 0,
        "fwd_opp_moves": 0,
        "problems": [],
    }

    def check(env: Any) -> None:
        res = check_hidden(env, rng, **forward)
        st = env.unwrapped._state
        fig["states"] += 1
        fig["checks"] += res["players"]
        fig["opp_changed"] += res["opp_changed"]
        fig["other_obs"] += res["other_obs_changed"]
        fig["movers"] += res["movers"]
        fig["mover_kept"] += res["mover_kept"]
        fig["fwd_compared"] += res["fwd_compared"]
        fig["fwd_opp_moves"] += res["fwd_opp_moves"]
        fig["problems"].extend(f"[{st.phase} r{st.round}] {x}" for x in res["problems"])

    for run_seed, bias, extra in runs:
        env = make_env(case, **extra)
        counts: Counter[int] = Counter()
        for _ in decisions(env, run_seed, bias=bias):
            rnd = env.unwrapped._state.round
            if counts[rnd] >= per_round or rng.random() > p:
                continue
            counts[rnd] += 1
            check(env)
    env = make_env(case)
    for _, sc in rigged_scenarios(case):
        for _ in decisions(env, 0, bias=1.0, options={"scenario": sc}, max_decisions=3, lookahead=True):
            check(env)
    return fig


def sweep_observations(case: Case, runs: list[Run], *, p: float, seed: int = 5) -> dict[str, Any]:
    """``check_observation`` at sampled decisions, at rigged positions, and after every session."""
    rng = np.random.default_rng(seed)
    fig: dict[str, Any] = {"checked": 0, "problems": []}
    for run_seed, bias, extra in runs:
        env = make_env(case, **extra)
        agent0 = env.possible_agents[0]
        space = env.observation_space(agent0)
        assert space["observation"].dtype == np.float32 and space["action_mask"].dtype == np.int8
        assert space["action_mask"].shape == (env.action_space(agent0).n,)
        for agent, obs in decisions(env, run_seed, bias=bias):
            if rng.random() < p:
                fig["checked"] += 1
                fig["problems"].extend(check_observation(env, agent, obs, rng))
        # after the session: terminal observations are still in the space, masks all zero
        if not env.unwrapped._state.is_terminal():
            fig["problems"].append(f"seed {run_seed}: the session did not end")
        for a in env.possible_agents:
            o = env.unwrapped.observe(a)
            if not space.contains(o) or o["action_mask"].any():
                fig["problems"].append(f"seed {run_seed}: terminal observation of {a} outside the space / masked")
    env = make_env(case)
    for _, sc in rigged_scenarios(case):
        for agent, obs in decisions(env, 0, bias=1.0, options={"scenario": sc}, max_decisions=4, lookahead=True):
            fig["checked"] += 1
            fig["problems"].extend(check_observation(env, agent, obs, rng))
    return fig


def sweep_action_info(case: Case, runs: list[Run], *, p: float, seed: int = 9) -> dict[str, Any]:
    """``check_action_info`` on every legal action of sampled decisions and of the rigged positions."""
    rng = np.random.default_rng(seed)
    fig: dict[str, Any] = {"kinds": Counter(), "problems": []}

    def check(env: Any, mask: np.ndarray) -> None:
        for a in np.flatnonzero(mask):
            fig["problems"].extend(check_action_info(env, int(a)))
            fig["kinds"][env.unwrapped.action_info(int(a))["kind"]] += 1

    for run_seed, bias, extra in runs:
        env = make_env(case, **extra)
        for _, obs in decisions(env, run_seed, bias=bias):
            if rng.random() < p:
                check(env, obs["action_mask"])
    env = make_env(case)
    for _, sc in rigged_scenarios(case):
        for _, obs in decisions(env, 0, bias=1.0, options={"scenario": sc}, max_decisions=4, lookahead=True):
            check(env, obs["action_mask"])
    return fig


def check_illegal_raise(case: Case, seed: int, warmup: int = 40) -> None:
    """An unmasked action raises ``IllegalActionError`` naming the legal actions and changes nothing; out-of-range
    ids and ``None`` are refused by the raw env (also under ``python -O``: no asserts)."""
    import pytest

    env = make_env(case, illegal_action="raise")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(warmup):
        env.step(int(rng.choice(np.flatnonzero(env.unwrapped.action_mask(env.agent_selection)))))
    for _ in range(3):
        before = env.unwrapped.game_state()
        agent = env.agent_selection
        legal = env.unwrapped._state.legal_actions()
        bad = int(rng.choice(np.flatnonzero(env.unwrapped.action_mask(agent) == 0)))
        with pytest.raises(ValueError) as ei:
            env.step(bad)
        assert isinstance(ei.value, IllegalActionError)
        msg = str(ei.value)
        assert f"illegal action {bad}" in msg and "legal actions" in msg
        for a in legal[:40]:
            assert f"{a} (" in msg
        assert env.unwrapped.game_state() == before and env.agent_selection == agent
        env.step(legal[0])
    before = env.unwrapped.game_state()
    with pytest.raises(IllegalActionError, match="not an action of this table"):
        env.step(env.action_space(env.agent_selection).n)
    with pytest.raises(IllegalActionError, match="must act"):
        env.step(None)
    with pytest.raises(IllegalActionError, match="must act"):
        env.unwrapped.step(None)
    assert env.unwrapped.game_state() == before


def check_illegal_terminate(case: Case, seed: int) -> dict[str, Any]:
    """``illegal_action="terminate"``: play 5 moves, then an unmasked action; what every agent sees afterwards."""
    return _terminate_with(make_env(case, illegal_action="terminate"), seed)


# ------------------------------------------------------------------------------------------------------------
# Sweep plans per profile, and the shared test class the profile modules subclass
# ------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SweepPlan:
    """How much of each check a profile's cases get (lower counts keep the suite fast; every check still runs)."""

    api_seeds: tuple[int, ...]
    api_cycles: int
    mask_runs: list[Run]
    mask_args: dict[str, Any]
    min_mask_states: int
    min_oracle_checks: int
    hidden_runs: list[Run]
    hidden_args: dict[str, Any]
    min_hidden_states: int
    obs_runs: list[Run]
    obs_p: float
    min_obs: int
    info_runs: list[Run]
    info_p: float
    #: (seed, bias, extra config, rigged scenario name or None): complete sessions for every reward mode
    reward_sessions: list[tuple[int, float, dict[str, Any], str | None]]
    #: extra config that keeps the session-length checks short
    quick: dict[str, Any] = field(default_factory=dict)
    #: cycles of PettingZoo's seed_test / parallel_api_test
    seed_cycles: int = 200
    #: rounds (deals) the sampled mask states must cover
    mask_rounds: frozenset[int] = frozenset()
    #: rounds won (not exhausted / capped) the reward sessions must show
    min_outs: int = 2


PLANS: dict[str, SweepPlan] = {
    "contract": SweepPlan(
        api_seeds=(0, 11, 222),
        api_cycles=400,
        seed_cycles=300,
        # uniform random play and a policy biased to meld / lay off / swap
        mask_runs=[
            (0, 0.0, {}),
            (1, 0.0, {}),
            (2, 0.9, {}),
            (3, 0.9, {}),
            (4, 0.9, {}),
            (5, 0.9, {"rounds": (7,)}),
            (6, 0.0, {"rounds": (7,)}),
        ],
        mask_args={"per_round": 7, "p_rare": 0.3, "p_common": 0.03, "full_every": 7, "sample": 120},
        min_mask_states=150,
        min_oracle_checks=0,
        mask_rounds=frozenset(range(1, 8)),
        hidden_runs=[(30, 0.9, {}), (31, 0.9, {}), (32, 0.0, {}), (33, 0.9, {"rounds": (7,)})],
        hidden_args={"per_round": 6, "p": 0.08},
        min_hidden_states=80,
        obs_runs=[(50, 0.9, {}), (51, 0.0, {}), (52, 0.9, {"rounds": (7,)})],
        obs_p=0.15,
        min_obs=300,
        info_runs=[(90, 0.9, {}), (91, 0.0, {}), (92, 0.9, {})],
        info_p=0.2,
        reward_sessions=[(40, 0.9, {}, None), (41, 0.9, {}, None), (42, 0.0, {}, None)],
        min_outs=3,
    ),
    "contract_gamerules": SweepPlan(
        api_seeds=(0, 11),
        api_cycles=300,
        mask_runs=[
            (0, 0.0, {"rounds": (1, 2, 3)}),
            (2, 0.9, {}),
            (3, 0.9, {"rounds": (4, 5, 6)}),
            (5, 0.9, {"rounds": (7,)}),
            (6, 0.0, {"rounds": (7,)}),
        ],
        mask_args={"per_round": 5, "p_rare": 0.3, "p_common": 0.03, "full_every": 8, "sample": 80},
        min_mask_states=60,
        min_oracle_checks=15,
        mask_rounds=frozenset(range(1, 8)),
        hidden_runs=[(30, 0.9, {}), (32, 0.0, {"rounds": (2, 7)})],
        hidden_args={"per_round": 3, "p": 0.1},
        min_hidden_states=25,
        obs_runs=[(50, 0.9, {}), (51, 0.0, {"rounds": (7,)})],
        obs_p=0.04,
        min_obs=60,
        info_runs=[(90, 0.9, {"rounds": (1, 4, 7)}), (91, 0.0, {"rounds": (2,)})],
        info_p=0.08,
        reward_sessions=[
            (40, 1.0, {}, "out_round1"),
            (41, 0.0, {"rounds": (3, 6)}, None),
            (42, 1.0, {}, "go_out_round7"),
        ],
    ),
    "continental": SweepPlan(
        api_seeds=(0, 11),
        api_cycles=300,
        mask_runs=[(0, 0.0, {"deals": 2, "turn_cap": 120}), (2, 0.9, {"turn_cap": 80})],
        mask_args={"per_round": 12, "p_rare": 0.5, "p_common": 0.06, "full_every": 1, "sample": 57},
        min_mask_states=60,
        min_oracle_checks=300,
        mask_rounds=frozenset({1, 2}),
        hidden_runs=[(30, 0.9, {"turn_cap": 80}), (32, 0.0, {"deals": 2})],
        hidden_args={"per_round": 6, "p": 0.05},
        min_hidden_states=30,
        obs_runs=[(50, 0.9, {"turn_cap": 100}), (51, 0.0, {"deals": 1})],
        obs_p=0.05,
        min_obs=60,
        info_runs=[(90, 0.9, {"deals": 2, "turn_cap": 100})],
        info_p=0.1,
        reward_sessions=[
            (40, 0.9, {"turn_cap": 60}, None),
            (41, 0.9, {"turn_cap": 60}, "first_turn_declare"),
            (42, 0.9, {"turn_cap": 60}, "mid_session"),
            (43, 0.9, {"turn_cap": 60}, "one_suit_first_turn"),
            (44, 0.5, {"deals": 2}, None),
        ],
        quick={"turn_cap": 60},
    ),
}


def named_scenario(case: Case, name: str) -> dict[str, Any]:
    """A rigged scenario of ``case`` by name (``mid_session``: ``mid_session_scenario``)."""
    if name == "mid_session":
        return mid_session_scenario(case)
    return next(sc for r, sc in rigged_scenarios(case) if r.name == name)


class _DefaultSeed(BaseWrapper):
    """Makes ``reset()`` without a seed use ``seed``, ``seed + 1``, ... so api_test runs reproducible games."""

    def __init__(self, env: Any, seed: int):
        super().__init__(env)
        self._next_seed = seed

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is None:
            seed = self._next_seed
            self._next_seed += 1
        super().reset(seed=seed, options=options)


class ProfileConformance:
    """The conformance checks of one profile over all its cases; a test module subclasses it with ``profile``.

    Parameters: ``case`` (every case of the profile), ``mode`` (its reward modes), ``api_seed``, ``max_steps``,
    ``bad_config`` (refused configurations).
    """

    profile = ""

    def pytest_generate_tests(self, metafunc: Any) -> None:
        spec, plan = PROFILES[self.profile], PLANS[self.profile]
        if "case" in metafunc.fixturenames:
            metafunc.parametrize("case", cases_of(self.profile), ids=case_id)
        if "mode" in metafunc.fixturenames:
            metafunc.parametrize("mode", spec.reward_modes)
        if "api_seed" in metafunc.fixturenames:
            metafunc.parametrize("api_seed", plan.api_seeds)
        if "max_steps" in metafunc.fixturenames:
            metafunc.parametrize("max_steps", [1, 25, 333])
        if "bad_config" in metafunc.fixturenames:
            # every profile takes rounds=; only continental still accepts deals= (deprecated spelling)
            other = "deals" if spec.round_piece == "round" else None
            bad_reward = next(m for m in ("payment", "penalty", "relative") if m not in spec.reward_modes)
            configs = [
                ({"reward": bad_reward}, spec.reward_modes[0]),
                ({"reward": "x"}, spec.reward_modes),
                ({"render_mode": "x"}, "ansi"),
                ({"illegal_action": "x"}, "terminate"),
                ({"max_steps": 0}, "positive"),
                ({"no_such_rule": 1}, "turn_cap"),
            ] + ([({other: 2}, "turn_cap")] if other else [])
            configs += [({spec.session_key: v}, spec.session_key[:-1]) for v in spec.bad_session_values]
            configs += [({"num_players": v}, "num_players") for v in spec.bad_player_counts]
            metafunc.parametrize("bad_config", configs, ids=[repr(c[0]) for c in configs])

    # 1. PettingZoo API tests ------------------------------------------------------------------------------
    def test_pettingzoo_api(self, case: Case, api_seed: int) -> None:
        from pettingzoo.test import api_test

        api_test(_DefaultSeed(make_env(case), api_seed), num_cycles=PLANS[self.profile].api_cycles)

    def test_pettingzoo_seed_render_parallel(self, case: Case) -> None:
        from pettingzoo.test import parallel_api_test, render_test, seed_test
        from pettingzoo.utils.conversions import turn_based_aec_to_parallel

        cycles = PLANS[self.profile].seed_cycles
        seed_test(lambda **kw: make_env(case, **kw), num_cycles=cycles)
        render_test(lambda **kw: make_env(case, **kw))
        parallel_api_test(turn_based_aec_to_parallel(make_env(case)), num_cycles=cycles)

    def test_render_ansi_text(self, case: Case) -> None:
        env = make_env(case, render_mode="ansi")
        env.reset(seed=5)
        text = env.render()
        assert isinstance(text, str) and f"{game(self.profile).unit.title()} 1" in text and "Hand:" in text

    def test_entry_points(self, case: Case) -> None:
        """``rummy_env.<profile>_v0`` is the env module; its ``env()`` and ``rummy_env.make`` build the same env,
        and the same seed and actions give the same trajectory."""
        import importlib

        name, cfg = case
        mod_name = game(self.profile).env_module
        mod, inner = getattr(rummy_env, mod_name), importlib.import_module(f"rummy_env.envs.{mod_name}")
        assert mod.env is inner.env and mod.raw_env is inner.raw_env
        assert mod_name in (mod.__doc__ or "")
        a, b = mod.env(**cfg), rummy_env.make(name, **cfg)
        assert type(a) is type(b) and type(a.unwrapped) is type(b.unwrapped) is mod.raw_env
        assert isinstance(rummy_env.make(name, wrapped=False, **cfg), mod.raw_env)
        assert a.possible_agents == b.possible_agents == [f"player_{i}" for i in range(cfg.get("num_players", 4))]
        for ag in a.possible_agents:
            assert a.observation_space(ag) == b.observation_space(ag) and a.action_space(ag) == b.action_space(ag)
        _same_trajectory(a, b, seed=9, steps=300)
        default = game(self.profile).default_players
        assert rummy_env.make(name).possible_agents == [f"player_{i}" for i in range(default)]

    def test_spaces_and_agents(self, case: Case) -> None:
        env = make_env(case)
        n = case[1].get("num_players", 4)
        assert env.possible_agents == [f"player_{i}" for i in range(n)]
        u = env.unwrapped
        kinds = {r.name for r in u.layout.ranges.values()}
        assert kinds == set(PROFILES[self.profile].action_keys), kinds
        for a in env.possible_agents:
            assert env.action_space(a) == spaces.Discrete(u.num_actions)
            assert env.observation_space(a)["observation"].shape == (u.observer.size,)

    # 2. Exact masks ---------------------------------------------------------------------------------------
    def test_mask_exact(self, case: Case) -> None:
        plan, spec = PLANS[self.profile], PROFILES[self.profile]
        fig = sweep_masks(case, plan.mask_runs, **plan.mask_args)
        seen = set(fig["kinds_sampled"]) | set(fig["kinds_rigged"])
        print(
            f"\n[mask {case_id(case)}] states checked {fig['states']} (full sweeps {fig['full']}), actions checked "
            f"{fig['actions']} (legal {fig['legal']}), oracle comparisons {fig['oracle']}, mismatches "
            f"{len(fig['mismatches'])}; phases {dict(fig['phases'])}; rounds {sorted(fig['rounds'])}; legal kinds in "
            f"sampled states {dict(fig['kinds_sampled'])}, in rigged walks {dict(fig['kinds_rigged'])}"
        )
        assert not fig["mismatches"], "\n".join(fig["mismatches"][:20])
        assert fig["states"] >= plan.min_mask_states
        assert fig["oracle"] >= plan.min_oracle_checks
        assert fig["rounds"] >= plan.mask_rounds, f"rounds never sampled: {sorted(plan.mask_rounds - fig['rounds'])}"
        missing = spec.expected_kinds - set(fig["kinds_sampled"])
        assert not missing, f"random / biased play never offered {sorted(missing)}"
        assert seen == set(spec.action_keys), f"never offered: {sorted(set(spec.action_keys) - seen)}"
        for entry in RIGGED.get(self.profile, []):
            start = fig["rigged_start"][entry.name]
            ok = start == entry.kinds if entry.exact else entry.kinds <= start
            assert ok, f"rigged {entry.name}: legal kinds {sorted(start)}, want {sorted(entry.kinds)}"

    def test_rigged_positions_offer_their_kinds(self, case: Case) -> None:
        """Each rigged position (``RIGGED``) offers at its start the kinds it was built for (exactly, where so
        marked): the mask checks from it reach the rare decisions."""
        env = make_env(case)
        for entry, sc in rigged_scenarios(case):
            env.reset(seed=0, options={"scenario": sc})
            start = legal_kinds(env, env.unwrapped.action_mask(env.agent_selection))
            ok = start == entry.kinds if entry.exact else entry.kinds <= start
            assert ok, f"rigged {entry.name}: legal kinds {sorted(start)}, want {sorted(entry.kinds)}"

    # 3. Hidden information --------------------------------------------------------------------------------
    def test_hidden_information(self, case: Case) -> None:
        plan = PLANS[self.profile]
        fig = sweep_hidden(case, plan.hidden_runs, **plan.hidden_args)
        print(
            f"\n[hidden {case_id(case)}] states {fig['states']} x players {case[1].get('num_players', 4)} = "
            f"(state, player) checks {fig['checks']}, problems {len(fig['problems'])}; resamples that changed an "
            f"opponent hand {fig['opp_changed']}, that changed another seat's observation {fig['other_obs']}; "
            f"resamples of the mover's hidden cards {fig['movers']}, of which kept as they were {fig['mover_kept']}; "
            f"decisions played on in both worlds {fig['fwd_compared']}, of which by an opponent of the observer "
            f"holding other hidden cards {fig['fwd_opp_moves']}"
        )
        assert not fig["problems"], "\n".join(fig["problems"][:20])
        assert fig["states"] >= plan.min_hidden_states
        # playing on in both worlds: the turn order and what the observer sees stay the same (checked above) while
        # opponents act with other hidden cards (so the check can see a leak)
        assert fig["fwd_compared"] >= 2 * fig["checks"]
        assert fig["fwd_opp_moves"] >= 0.5 * fig["fwd_compared"]
        # the resampling really redeals hidden cards (otherwise the check above is vacuous)
        assert fig["opp_changed"] >= 0.9 * fig["checks"]
        assert fig["other_obs"] >= 0.9 * fig["checks"]
        # the mover's hidden cards are redealt too (kept only where his hand is public knowledge in effect)
        assert fig["mover_kept"] <= 0.2 * fig["movers"]

    # 4. Rewards -------------------------------------------------------------------------------------------
    def test_reward_accounting(self, case: Case, mode: str) -> None:
        plan = PLANS[self.profile]
        env = make_env(case, reward=mode)
        assert env.unwrapped.reward_mode == mode
        reasons: Counter[str] = Counter()
        problems: list[str] = []
        steps = 0
        for seed, bias, extra, scenario in plan.reward_sessions:
            env = make_env(case, reward=mode, **extra)
            options = {"scenario": named_scenario(case, scenario)} if scenario else None
            res = check_reward_session(env, mode, seed, bias, options)
            problems.extend(f"[{scenario or 'dealt'}] {p}" for p in res["problems"])
            reasons.update(res["reasons"])
            steps += res["steps"]
        print(
            f"\n[reward {case_id(case)} {mode}] sessions {len(plan.reward_sessions)}, steps {steps}, endings {dict(reasons)}"
        )
        assert not problems, "\n".join(problems[:20])
        assert reasons["out"] >= plan.min_outs, "some rounds must be won (not only exhausted / capped)"

    def test_default_reward_mode(self, case: Case) -> None:
        assert make_env(case).unwrapped.reward_mode == PROFILES[self.profile].reward_modes[0]

    # 5. Observations --------------------------------------------------------------------------------------
    def test_observations(self, case: Case) -> None:
        plan = PLANS[self.profile]
        fig = sweep_observations(case, plan.obs_runs, p=plan.obs_p)
        print(f"\n[observations {case_id(case)}] decisions checked {fig['checked']}, problems {len(fig['problems'])}")
        assert not fig["problems"], fig["problems"][:20]
        assert fig["checked"] >= plan.min_obs

    # 6. action_info schema --------------------------------------------------------------------------------
    def test_action_info_schema(self, case: Case) -> None:
        plan = PLANS[self.profile]
        fig = sweep_action_info(case, plan.info_runs, p=plan.info_p)
        print(
            f"\n[action_info {case_id(case)}] legal actions checked by kind {dict(fig['kinds'])}, "
            f"problems {len(fig['problems'])}"
        )
        assert not fig["problems"], fig["problems"][:20]
        assert set(fig["kinds"]) == set(PROFILES[self.profile].action_keys)

    # 7. Illegal actions, configuration errors ---------------------------------------------------------------
    def test_illegal_action_raises_and_keeps_state(self, case: Case) -> None:
        check_illegal_raise(case, seed=60)

    def test_illegal_action_terminate_like_pettingzoo(self, case: Case) -> None:
        from pettingzoo.utils import wrappers

        ours = check_illegal_terminate(case, 61)
        agents = make_env(case).possible_agents
        assert ours["seen"] == sorted(agents) and ours["agents"] == []
        assert ours["rewards"] == {a: (-1.0 if a == ours["offender"] else 0.0) for a in agents}
        ref_env = wrappers.OrderEnforcingWrapper(
            wrappers.TerminateIllegalWrapper(make_env(case, wrapped=False), illegal_reward=-1)
        )
        ref = _terminate_with(ref_env, 61)
        assert (ref["offender"], ref["rewards"], ref["seen"]) == (ours["offender"], ours["rewards"], ours["seen"])
        raw = make_env(case, wrapped=False, illegal_action="terminate")
        raw.reset(seed=1)
        off = raw.agent_selection
        raw.step(None)
        assert all(raw.terminations.values()) and raw._cumulative_rewards[off] == -1.0
        assert raw.infos[off]["illegal_move"] is True

    def test_bad_config(self, case: Case, bad_config: tuple[dict[str, Any], str | tuple[str, ...]]) -> None:
        """A refused configuration raises ``ValueError`` naming the option and what is allowed (``needle``: one
        word, or several that must all appear)."""
        import pytest

        kwargs, needle = bad_config
        name, cfg = case
        with pytest.raises(ValueError) as ei:
            rummy_env.make(name, **{**cfg, **kwargs})
        for word in (needle,) if isinstance(needle, str) else needle:
            assert word in str(ei.value), str(ei.value)
        assert next(iter(kwargs)) in str(ei.value)

    # 8. Session length options ----------------------------------------------------------------------------
    def test_session_subsets(self, case: Case) -> None:
        spec, plan = PROFILES[self.profile], PLANS[self.profile]
        for i, value in enumerate(spec.session_subsets):
            env = make_env(case, **{spec.session_key: value}, **plan.quick)
            env.reset(seed=70 + i)
            u = env.unwrapped
            first = value[0] if isinstance(value, tuple) else 1
            assert u._state.round == first
            piece = u.observation_pieces(env.agent_selection)[spec.round_piece]
            assert np.flatnonzero(piece).tolist() == [first - 1], piece
            res = play_session(env, 70 + i, bias=0.9)
            st = res["state"]
            want = list(value) if isinstance(value, tuple) else list(range(1, value + 1))
            assert st.is_terminal() and [r["round"] for r in st.round_results] == want
            assert env.agents == [] and res["final_seen"] == dict.fromkeys(env.possible_agents, 1)

    def test_max_steps_truncates(self, case: Case, max_steps: int) -> None:
        env = make_env(case, max_steps=max_steps)
        env.reset(seed=80)
        steps = 0
        truncated = set()
        for agent in env.agent_iter():
            _, _, term, trunc, _ = env.last()
            if term or trunc:
                assert trunc and not term
                truncated.add(agent)
                env.step(None)
                continue
            env.step(int(np.flatnonzero(env.unwrapped.action_mask(agent))[-1]))
            steps += 1
        assert steps == max_steps and truncated == set(env.possible_agents) and env.agents == []


def _same_trajectory(a: Any, b: Any, seed: int, steps: int) -> None:
    """Two envs reset with ``seed`` and given the same random legal actions show the same observations, masks,
    rewards and agents, and end in the same ``game_state()``."""
    rng = np.random.default_rng(0)
    a.reset(seed=seed)
    b.reset(seed=seed)
    for _ in range(steps):
        oa, ra, ta, ua, _ = a.last()
        ob, rb, tb, ub, _ = b.last()
        assert a.agent_selection == b.agent_selection
        assert np.array_equal(oa["observation"], ob["observation"])
        assert np.array_equal(oa["action_mask"], ob["action_mask"])
        assert (ra, ta, ua) == (rb, tb, ub)
        if ta or ua:
            break
        act = int(rng.choice(np.flatnonzero(oa["action_mask"])))
        a.step(act)
        b.step(act)
    assert a.unwrapped.game_state() == b.unwrapped.game_state()


def _terminate_with(env: Any, seed: int) -> dict[str, Any]:
    """Play 5 moves with ``env``, then an unmasked action; the offender, the rewards and who saw the end."""
    env.reset(seed=seed)
    for _ in range(5):
        env.step(int(np.flatnonzero(env.unwrapped.action_mask(env.agent_selection))[0]))
    offender = env.agent_selection
    env.step(int(np.flatnonzero(env.unwrapped.action_mask(offender) == 0)[0]))
    got: Counter[str] = Counter()
    seen = []
    for agent in env.agent_iter():
        _, rew, term, trunc, _ = env.last()
        assert term or trunc
        got[agent] += rew
        seen.append(agent)
        env.step(None)
    return {"offender": offender, "rewards": dict(got), "seen": sorted(seen), "agents": list(env.agents)}
