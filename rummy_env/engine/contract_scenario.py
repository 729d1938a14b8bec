"""The JSON state of the Contract family both ways: loading a scenario or dump (``ContractState``'s
``load_state``) and dumping a state (``ContractState.to_json``).

Every key of the JSON scenario format (docs/guides/engine.md, "JSON state") is type- and range-checked, and the position must be one
the rules can reach; a bad scenario raises ``ScenarioError`` naming the key and what is allowed. The steps, in
order: the session (``_load_session``), the table (``_load_table``), the cards (``common.load_cards``), the turn
(``_load_turn``), the public knowledge (``common.load_known``), then the whole position (``_check_position``).
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from ..core.cards import JOKER, NUM_KINDS, Shoe, card_str
from ..core.melds import GROUP, RUN, parse_meld
from ..rules.contract import ContractRules
from .common import (
    ScenarioError,
    bool_field,
    card_or_none,
    check_scenario,
    int_field,
    is_int,
    list_field,
    load_cards,
    load_carried_scores,
    load_known,
    load_round_results,
    load_scores,
    make_rng,
    rng_from_json,
    rng_to_json,
    seat_value,
)
from .contract_phases import ACT, BUY, DRAW, END_REASONS, GAME_OVER, OPENING, PHASES, PLACE_JOKER

if TYPE_CHECKING:
    from collections.abc import Callable

    from .contract import ContractState

_SCENARIO_KEYS = frozenset({
    "profile", "round", "dealer", "current_player", "phase", "hands", "discard", "stock", "table", "opened",
    "scores", "active", "turn", "opened_this_turn", "taken_discard", "taken_pending", "must_place", "opening_left",
    "buy_queue", "last_buyer", "known", "rounds", "round_index", "round_results", "num_players", "rng", "rigged",
    "carried_scores",
})  # fmt: skip
#: phases of a turn after its draw
_AFTER_DRAW = (ACT, OPENING, PLACE_JOKER)


def load_scenario(
    data: dict[str, Any],
    rules: ContractRules,
    seed: int | None = None,
    *,
    blank: Callable[[ContractRules], ContractState],
) -> ContractState:
    """Build a state from the JSON scenario format; omitted piles are shuffled from the unplaced cards.

    Every key is type- and range-checked, and the position must be one the rules can reach (the checks the fuzzer
    makes on live states that one state allows): every card of the shoe exactly once, valid melds, an opened seat
    holds exactly its round's contract on the table, an unopened hand never below the cards dealt, no empty hand
    mid-round, the turn fields consistent with the phase, the buy window the engine would open. A bad scenario
    raises ``ScenarioError`` naming the key and what is allowed. ``"rigged": true`` marks a hand-made position whose
    hands need not come from a deal (short or empty hands); every other check still applies.
    """
    n = check_scenario(data, set(_SCENARIO_KEYS), rules)
    st = blank(rules)  # ``engine.contract._blank_state``: the state class and its action table
    st.n = n
    st.shoe = Shoe(rules.decks, rules.jokers)
    st.copies = st.shoe.copies_list()
    st.seed = seed
    st.history = []
    st._legal = None
    phase = data.get("phase", DRAW)
    if not isinstance(phase, str) or phase not in PHASES:
        raise ScenarioError(f"'phase' must be one of {list(PHASES)}, got {phase!r}")
    if phase == BUY and not rules.buying:
        raise ScenarioError(f"'phase' 'buy' does not exist in profile {rules.name!r} (no buying)")
    _load_session(st, data, phase)
    st._clear_round()
    st.rigged = bool_field(data, "rigged", False)
    used = _load_table(st, data)
    load_cards(st, data, rules.name, used)
    st.phase = phase
    _load_turn(st, data)
    load_known(st, data)
    _check_position(st)
    if phase != GAME_OVER and not st.legal_actions():
        raise ScenarioError(f"the scenario leaves player {st.current_player} no legal action in phase '{phase}'")
    return st


def _load_session(st: ContractState, data: dict[str, Any], phase: str) -> None:
    """``round``, ``rounds``, ``round_index``, ``rng``, ``dealer``, ``scores``, ``round_results``."""
    rules, n = st.rules, st.n
    rnd = int_field(data, "round", 1, 1, rules.num_rounds)
    if "rounds" in data:
        rounds = data["rounds"]
        if (
            not isinstance(rounds, (list, tuple))
            or not rounds
            or not all(is_int(r) and 1 <= r <= rules.num_rounds for r in rounds)
        ):
            raise ScenarioError(
                f"'rounds' must be a non-empty list of round numbers 1..{rules.num_rounds}, got {rounds!r}"
            )
        st.rounds = tuple(rounds)
        st.round_index = int_field(data, "round_index", 0, 0, len(st.rounds) - 1)
        if st.rounds[st.round_index] != rnd:
            raise ScenarioError(f"'round' {rnd} must be rounds[round_index] = {st.rounds[st.round_index]}")
    else:
        st.rounds = tuple(range(rnd, rules.num_rounds + 1))
        if data.get("round_index", 0) != 0 or not is_int(data.get("round_index", 0)):
            raise ScenarioError(f"'round_index' must be 0 without 'rounds' (given: {data['round_index']!r})")
        st.round_index = 0
    if phase == GAME_OVER and st.round_index != len(st.rounds) - 1:
        raise ScenarioError(
            f"'phase' 'game_over' needs the last round of 'rounds' {list(st.rounds)}: 'round_index' "
            f"{len(st.rounds) - 1}, got {st.round_index}"
        )
    st.rng = rng_from_json(data["rng"]) if "rng" in data else make_rng(seed=st.seed)
    st.dealer = int_field(data, "dealer", 0, 0, n - 1)
    st.scores = load_scores(data, n, minimum=0)
    results = load_round_results(data, n, st.rounds, "penalties", END_REASONS, minimum=0)
    finished = st.round_index + (phase == GAME_OVER)
    if len(results) != finished:
        raise ScenarioError(
            f"'round_results' must hold one entry per finished round ({finished}: rounds {list(st.rounds[:finished])} "
            f"of 'rounds' {list(st.rounds)} before round_index {st.round_index}"
            f"{' and the last one at game over' if phase == GAME_OVER else ''}), got {len(results)}"
        )
    st.carried_scores = load_carried_scores(data, n, st.scores, results, "penalties", minimum=0)
    st.round_results = results


def _load_table(st: ContractState, data: dict[str, Any]) -> list[int]:
    """The table melds (each valid, with a real seat as owner); the copies of each kind they hold."""
    used = [0] * NUM_KINDS
    for i, m in enumerate(list_field(data, "table", [])):
        if not isinstance(m, dict) or not {"owner", "kind", "cards"} <= set(m) <= {"owner", "kind", "cards", "placed_by"}:
            raise ScenarioError(f"'table[{i}]' must be a dict with keys owner, kind, cards (and optionally placed_by); got {m!r}")
        owner = seat_value(m["owner"], f"table[{i}].owner", st.n)
        try:
            meld = parse_meld(owner, m["kind"], m["cards"], st.rules, m.get("placed_by"), st.n)  # type: ignore[arg-type]
        except ValueError as exc:
            raise ScenarioError(f"'table[{i}]': {exc}") from None
        if len(st.seat_melds[owner]) >= st.rules.max_melds_per_seat:  # type: ignore[index]
            raise ScenarioError(f"'table[{i}]': seat {owner} has more than {st.rules.max_melds_per_seat} melds")
        st.table.append(meld)
        st.seat_melds[owner].append(meld)  # type: ignore[index]
        for k in meld.cards:
            used[k] += 1
    return used


def _load_turn(st: ContractState, data: dict[str, Any]) -> None:
    """Whose turn, the turn counter, who opened, the draw of this turn, an opening in progress, the buy window."""
    _load_active(st, data)
    _load_opened(st, data)
    st.taken_discard = card_or_none(data, "taken_discard")
    st.taken_pending = bool_field(data, "taken_pending", st.taken_discard >= 0)
    st.must_place = card_or_none(data, "must_place")
    _load_opening(st, data)
    _load_buy_window(st, data)
    _load_current(st, data)


def _load_active(st: ContractState, data: dict[str, Any]) -> None:
    """``active`` (or what ``current_player`` / ``turn`` imply) and the ``turn`` counter, which must agree."""
    rules, n, phase = st.rules, st.n, st.phase
    if "active" in data:
        st.active = seat_value(data["active"], "active", n)  # type: ignore[assignment]
    elif phase not in (BUY, GAME_OVER) and "current_player" in data:
        st.active = seat_value(data["current_player"], "current_player", n)  # type: ignore[assignment]
    elif "turn" in data:
        st.active = (st.dealer + int_field(data, "turn", 1, 1)) % n
    else:
        st.active = (st.dealer + 1) % n
    # turn t of a round is played by the seat t places left of the dealer; at game over a turn-cap ending has
    # already counted the turn past the cap
    cap = rules.turn_cap + (1 if phase == GAME_OVER else 0)
    st.turn = int_field(data, "turn", (st.active - st.dealer - 1) % n + 1, 1, cap)
    if (st.dealer + st.turn) % n != st.active:
        raise ScenarioError(
            f"'turn' {st.turn} does not fit 'dealer' {st.dealer} and 'active' {st.active}: turn t of a round is "
            f"played by seat (dealer + t) mod {n}, here seat {(st.dealer + st.turn) % n}"
        )


def _load_opened(st: ContractState, data: dict[str, Any]) -> None:
    """``opened`` (seats down on an earlier turn) and ``opened_this_turn`` (the active seat just opened)."""
    n = st.n
    opened = list_field(data, "opened", [])
    for i, s in enumerate(opened):
        st.opened[seat_value(s, f"opened[{i}]", n)] = True  # type: ignore[index]
    if len(set(opened)) != len(opened):
        raise ScenarioError(f"'opened' must list each seat at most once, got {opened!r}")
    st.opened_this_turn = bool_field(data, "opened_this_turn", False)
    if st.opened_this_turn:
        st.opened[st.active] = True


def _load_opening(st: ContractState, data: dict[str, Any]) -> None:
    """An opening in progress: what is left follows from the contract and the active player's melds so far."""
    ol = data.get("opening_left")
    if st.phase == OPENING:
        mine = st.seat_melds[st.active]
        groups = sum(1 for m in mine if m.kind == GROUP)
        g, r = st.contract
        left = (g - groups, r - (len(mine) - groups))
        if st.opened[st.active] or not mine or min(left) < 0 or left == (0, 0):
            raise ScenarioError(
                f"phase 'opening' needs the active seat {st.active} not in 'opened' and part of its contract "
                f"({g} group(s), {r} run(s)) on the table; it has {groups} group(s), {len(mine) - groups} run(s)"
            )
        if ol is not None and (
            not isinstance(ol, (list, tuple)) or len(ol) != 2 or not all(is_int(x) for x in ol) or tuple(ol) != left
        ):
            raise ScenarioError(
                f"'opening_left' must be {list(left)} (the contract minus the active seat's melds on the table), "
                f"got {ol!r}"
            )
        st.opening_left = left
        st.opening_runs = [(m.suit, m.low, m.high) for m in mine if m.kind == RUN]
    elif ol is not None:
        raise ScenarioError(f"'opening_left' must be null outside phase 'opening', got {ol!r}")


def _load_buy_window(st: ContractState, data: dict[str, Any]) -> None:
    """``last_buyer`` and ``buy_queue``: in phase ``buy`` a non-empty tail of the window the rules open."""
    n, phase = st.n, st.phase
    lb = seat_value(data.get("last_buyer"), "last_buyer", n, allow_none=True)
    st.last_buyer = -1 if lb is None else lb
    queue = list_field(data, "buy_queue", [])
    for i, s in enumerate(queue):
        seat_value(s, f"buy_queue[{i}]", n)
    if phase == BUY:
        if st.last_buyer == st.active:
            raise ScenarioError(f"'last_buyer' {lb} is the active seat, who never buys (A.2-2)")
        window = st._window_seats()
        if "buy_queue" not in data:
            queue = window
        if not queue or queue != window[len(window) - len(queue) :]:
            raise ScenarioError(
                f"'buy_queue' must be a non-empty tail of the buy window {window} (the seats still to be asked, "
                f"nearest first, as the rules open it), got {queue!r}"
            )
        st.buy_queue = list(queue)
    elif queue:
        raise ScenarioError(f"'buy_queue' must be empty outside phase 'buy', got {queue!r}")


def _load_current(st: ContractState, data: dict[str, Any]) -> None:
    """``current_player`` follows from the phase (the buyer asked, the active seat, -1 at game over)."""
    phase = st.phase
    if phase == GAME_OVER:
        st.current_player = -1
    elif phase == BUY:
        st.current_player = st.buy_queue[0]
    else:
        st.current_player = st.active
    if "current_player" in data and (not is_int(data["current_player"]) or data["current_player"] != st.current_player):
        raise ScenarioError(
            f"'current_player' must be {st.current_player} in phase '{phase}' (active {st.active}), "
            f"got {data['current_player']!r}"
        )


def _check_position(st: ContractState) -> None:
    """Refuse a position the rules cannot reach (checkable from this one state)."""
    if st.final_round and st.phase != GAME_OVER and (st.table or any(st.opened)):
        raise ScenarioError(
            f"round {st.round} is gone out all at once (A.1-9): no seat is in 'opened' and the 'table' is empty "
            "until then"
        )
    for s in range(st.n):
        _check_seat(st, s)
    _check_turn_fields(st)


def _check_seat(st: ContractState, s: int) -> None:
    """Seat ``s``: its melds match ``opened`` (an opening lays the contract), its hand never below the deal."""
    rules, phase, a = st.rules, st.phase, st.active
    g, r = st.contract
    rnd = st.round
    deal = rules.hand_sizes[rnd - 1]
    playing = phase != GAME_OVER
    melds = st.seat_melds[s]
    groups = sum(1 for m in melds if m.kind == GROUP)
    if st.opened[s] and not melds:
        raise ScenarioError(f"seat {s} is in 'opened' but has no meld on the 'table'")
    runs = len(melds) - groups
    # extra_melds_after_opening: the opening's melds plus any new ones laid later
    fits = groups >= g and runs >= r if rules.extra_melds_after_opening else (groups, runs) == (g, r)
    if st.opened[s] and not st.rigged and not fits:
        raise ScenarioError(
            f"seat {s} is in 'opened' but has {groups} group(s) and {len(melds) - groups} run(s) on the 'table'; "
            f"an opening lays exactly the round {rnd} contract: {g} group(s) and {r} run(s)"
        )
    if melds and not st.opened[s] and not (s == a and phase == OPENING):
        raise ScenarioError(f"seat {s} has melds on the 'table' but is not in 'opened'")
    if st.rigged:
        return
    if playing and st.hand_size[s] == 0:
        raise ScenarioError(
            f"'hands[{s}]' is empty in phase '{phase}': a hand that empties ends the round "
            '(for a hand-made position with short hands give "rigged": true)'
        )
    held = st.hand_size[s] + sum(len(m.cards) for m in melds)  # an opening in progress counts its melds
    if not st.opened[s] and held < deal:
        raise ScenarioError(
            f"'hands[{s}]' holds {st.hand_size[s]} card(s), but seat {s} has not opened: an unopened hand never "
            f"shrinks below the {deal} cards dealt in round {rnd} (drawing, buying and picking up only add) "
            '(for a hand-made position with short hands give "rigged": true)'
        )
    if s == a and phase in _AFTER_DRAW and not st.opened[s] and held < deal + 1:
        raise ScenarioError(
            f"'hands[{s}]' holds {st.hand_size[s]} card(s) in phase '{phase}', after the active seat {s}'s draw: "
            f"not having opened, it holds at least the {deal} cards dealt in round {rnd} plus the card drawn "
            f"({deal + 1}, melds of an opening in progress included); a position before the draw is phase 'draw' "
            '(for a hand-made position with short hands give "rigged": true)'
        )


def _check_turn_fields(st: ContractState) -> None:
    """The fields of the turn in progress fit its phase: the draw, the taken card, the deep-pickup card, a swap."""
    rules, phase, a = st.rules, st.phase, st.active
    if phase in (DRAW, BUY):
        if st.taken_discard >= 0 or st.taken_pending or st.must_place >= 0 or st.opened_this_turn:
            raise ScenarioError(
                f"in phase '{phase}' the active seat has not drawn yet: 'taken_discard' and 'must_place' must be null, "
                "'taken_pending' and 'opened_this_turn' false"
            )
    if st.opened_this_turn and phase not in (ACT, GAME_OVER):
        raise ScenarioError(f"'opened_this_turn' must be false in phase '{phase}' (only 'act' follows an opening)")
    if st.taken_pending:
        if st.taken_discard < 0:
            raise ScenarioError("'taken_pending' true needs the card in 'taken_discard'")
        if not st.hands[a][st.taken_discard]:
            raise ScenarioError(
                f"'taken_discard' {card_str(st.taken_discard)} must be in the active seat's hand (hands[{a}]) while "
                "'taken_pending' is true (false once it is played)"
            )
    if st.must_place >= 0:
        if not rules.deep_pickup:
            raise ScenarioError(f"'must_place' must be null: profile {rules.name!r} has no deep pickups")
        if phase not in _AFTER_DRAW or st.taken_discard >= 0:
            raise ScenarioError(
                f"'must_place' (the deep-pickup card) exists only after a deep pickup: phase in {list(_AFTER_DRAW)} "
                f"and 'taken_discard' null; got phase '{phase}', taken_discard {card_str(st.taken_discard)}"
                if st.taken_discard >= 0
                else f"'must_place' exists only after a deep pickup: phase in {list(_AFTER_DRAW)}, got '{phase}'"
            )
        if not st.hands[a][st.must_place]:
            raise ScenarioError(
                f"'must_place' {card_str(st.must_place)} must be in the active seat's hand (hands[{a}])"
            )
    if phase == PLACE_JOKER:
        if not st.hands[a][JOKER]:
            raise ScenarioError(f"phase 'place_joker' needs the freed joker in the active seat's hand (hands[{a}])")
        if not st.opened[a] or st.opened_this_turn:
            raise ScenarioError(
                "phase 'place_joker' follows a joker swap, which needs an opening on an earlier turn: the active "
                f"seat {a} must be in 'opened' and 'opened_this_turn' false"
            )
    if phase == BUY and not st.discard:
        raise ScenarioError("phase 'buy' needs a card on the 'discard' pile")


def dump_scenario(st: ContractState) -> dict[str, Any]:
    """The state in the scenario format (``ContractState.to_json``); ``load_scenario`` gives back an identical
    state. Key order is part of the format (dumps are compared byte for byte)."""
    n = st.n
    return {
        "profile": st.rules.name,
        "round": st.round,
        "dealer": st.dealer,
        "current_player": st.current_player,
        "phase": st.phase,
        "hands": [[card_str(k) for k in st.hand_cards(p)] for p in range(n)],
        "discard": [card_str(k) for k in reversed(st.discard)],
        "stock": [card_str(k) for k in reversed(st.stock)],
        "table": [m.to_json() for m in st.table],
        "opened": [p for p in range(n) if st.opened[p] and not (p == st.active and st.opened_this_turn)],
        "scores": list(st.scores),
        "active": st.active,
        "turn": st.turn,
        "opened_this_turn": st.opened_this_turn,
        "taken_discard": card_str(st.taken_discard) if st.taken_discard >= 0 else None,
        "taken_pending": st.taken_pending,
        "must_place": card_str(st.must_place) if st.must_place >= 0 else None,
        "opening_left": list(st.opening_left) if st.opening_left else None,
        "buy_queue": list(st.buy_queue),
        "last_buyer": st.last_buyer if st.last_buyer >= 0 else None,
        "known": [[card_str(k) for k in range(NUM_KINDS) for _ in range(st.known[p][k])] for p in range(n)],
        "rounds": list(st.rounds),
        "round_index": st.round_index,
        "round_results": copy.deepcopy(st.round_results),
        **({"carried_scores": list(st.carried_scores)} if st.carried_scores else {}),
        "num_players": n,
        "rng": rng_to_json(st.rng),
        **({"rigged": True} if st.rigged else {}),
    }


__all__ = ["dump_scenario", "load_scenario"]
