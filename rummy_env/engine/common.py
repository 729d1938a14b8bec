"""Pieces every engine shares: errors, the seeded generator's JSON form, shuffling."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.cards import card_str, parse_card


class IllegalActionError(ValueError):
    """An action the rules do not allow in this state (the state is unchanged)."""


class ScenarioError(ValueError):
    """A malformed scenario / state dict."""


def make_rng(seed: int | None) -> np.random.Generator:
    """The one seeded generator of a game."""
    return np.random.Generator(np.random.PCG64(seed))


def copy_rng(rng: np.random.Generator) -> np.random.Generator:
    """An independent copy of a game's generator (same state: it draws the same numbers), for ``clone``; a
    quarter of the cost of ``copy.deepcopy``."""
    bg = rng.bit_generator
    new = type(bg)(0)
    new.state = bg.state
    return np.random.Generator(new)


def copy_round_results(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A deep copy of a state's ``round_results`` (JSON-like data: dicts, lists, scalars), for ``clone``; faster
    than ``copy.deepcopy``."""
    return _copy_json(results)


def _copy_json(v: Any) -> Any:
    t = type(v)
    if t is list:
        return [_copy_json(x) for x in v]
    if t is dict:
        return {k: _copy_json(x) for k, x in v.items()}
    return v if t in _IMMUTABLE else copy.deepcopy(v)


_IMMUTABLE = frozenset((int, str, float, bool, type(None)))


def rng_to_json(rng: np.random.Generator) -> dict[str, Any]:
    """The generator's state as JSON-able data."""
    st = rng.bit_generator.state
    return {
        "bit_generator": st["bit_generator"],
        "state": {"state": str(st["state"]["state"]), "inc": str(st["state"]["inc"])},
        "has_uint32": st["has_uint32"],
        "uinteger": st["uinteger"],
    }


def rng_from_json(data: Any) -> np.random.Generator:
    """Rebuild a generator dumped by ``rng_to_json``; ``ScenarioError`` naming the bad field otherwise."""
    if not isinstance(data, dict) or data.get("bit_generator") != "PCG64":
        raise ScenarioError(f"bad 'rng' entry {data!r}: expected the dict written by to_json() (bit_generator PCG64)")
    inner = data.get("state")
    if not isinstance(inner, dict) or set(inner) != {"state", "inc"}:
        raise ScenarioError(f"bad 'rng' entry: 'rng.state' must be a dict with keys state, inc; got {inner!r}")
    fields = {
        "rng.state.state": (inner["state"], 128),
        "rng.state.inc": (inner["inc"], 128),
        "rng.has_uint32": (data.get("has_uint32"), 1),
        "rng.uinteger": (data.get("uinteger"), 32),
    }
    vals = {}
    for key, (v, bits) in fields.items():
        n = _big_int(v)
        if n is None or not 0 <= n < 2**bits:
            hi = f"2**{bits} - 1" if bits > 1 else "1"
            raise ScenarioError(
                f"bad 'rng' entry: '{key}' must be an integer (or its decimal string) in 0..{hi}, got {v!r}"
            )
        vals[key] = n
    if vals["rng.state.inc"] % 2 == 0:
        raise ScenarioError(f"bad 'rng' entry: 'rng.state.inc' must be odd (a PCG64 increment), got {inner['inc']!r}")
    rng = np.random.Generator(np.random.PCG64())
    rng.bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": vals["rng.state.state"], "inc": vals["rng.state.inc"]},
        "has_uint32": vals["rng.has_uint32"],
        "uinteger": vals["rng.uinteger"],
    }
    return rng


def _big_int(v: Any) -> int | None:
    """``v`` as an int if it is one (not a bool) or a string of decimal digits; else None."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str) and v.isascii() and v.isdigit():
        return int(v)
    return None


def shuffled(rng: np.random.Generator, cards: list[int]) -> list[int]:
    """A new list with ``cards`` in a random order drawn from ``rng``: ``[cards[i] for i in rng.permutation(n)]``.

    Shuffled in place as a list (``rng.shuffle``, 3-4 times faster for a pile of 2-107 cards): NumPy's
    ``Generator.shuffle`` makes the same Fisher-Yates swaps, from the same draws, for a list as for the ``arange``
    that ``permutation`` shuffles, so the order and the generator's state after it are the same
    (``tests/engine/test_engine_common.py`` holds them equal).
    """
    out = list(cards)
    rng.shuffle(out)
    return out


GAME_OVER = "game_over"


class EngineState:
    """What every engine state shares: checked ``apply``, action look-up by description, error messages.

    A subclass provides ``phase``, ``current_player``, ``taken_discard``, ``history``, ``legal_actions()``,
    ``_dispatch(action)`` (apply a legal action), ``action_info(action)``, ``describe_action(action)`` and
    ``round``.
    """

    phase: str
    #: seat whose decision it is (-1 when the session is over)
    current_player: int
    #: the card kind taken from the discard pile this turn (-1: none); JSON key ``taken_discard``
    taken_discard: int
    history: list[int]

    @property
    def current(self) -> int:
        """The first release's name of ``current_player`` (same value; kept for old callers)."""
        return self.current_player

    @current.setter
    def current(self, seat: int) -> None:
        self.current_player = seat

    @property
    def taken_kind(self) -> int:
        """The first release's name of ``taken_discard`` (same value; kept for old callers)."""
        return self.taken_discard

    @taken_kind.setter
    def taken_kind(self, kind: int) -> None:
        self.taken_discard = kind

    def apply(self, action: int) -> None:
        """Apply one atomic decision of the player to move; ``IllegalActionError`` (state unchanged) if illegal."""
        if self.phase == GAME_OVER:
            raise IllegalActionError(f"the game is over: no action is legal (got {action!r})")
        legal = self.legal_actions()  # type: ignore[attr-defined]
        if type(action) is not int:  # the common case first: a plain int needs no further checks
            if isinstance(action, (bool, np.bool_)) or not (
                isinstance(action, (int, np.integer))
                or (isinstance(action, np.ndarray) and action.ndim == 0 and np.issubdtype(action.dtype, np.integer))
            ):
                raise IllegalActionError(
                    f"action must be an integer id (int, numpy integer or 0-d integer array), got "
                    f"{type(action).__name__} {action!r}"
                )
            action = int(action)
        if action not in legal:
            raise IllegalActionError(self._illegal_message(action, legal))
        self.history.append(action)
        self._dispatch(action)  # type: ignore[attr-defined]

    def apply_legal(self, action: int) -> None:
        """``apply`` without its checks, for a caller that has just found the plain ``int`` ``action`` in
        ``legal_actions()`` (the AEC env's ``step``): the same transition, the legality not looked up twice."""
        self.history.append(action)
        self._dispatch(action)  # type: ignore[attr-defined]

    def find_action(self, **info: Any) -> int:
        """The legal action whose ``action_info`` contains every given key/value; ``ValueError`` if none or several.

        Example: ``state.find_action(kind="lay_off", card="8H", seat=2, meld=0, end="high")``.
        """
        legal = self.legal_actions()  # type: ignore[attr-defined]
        hits = [a for a in legal if _info_matches(self.action_info(a), info)]  # type: ignore[attr-defined]
        if len(hits) != 1:
            infos = [self.action_info(a) for a in legal]  # type: ignore[attr-defined]
            what = "no legal action" if not hits else f"{len(hits)} legal actions"
            raise ValueError(f"{what} match {info!r}; legal actions: {infos}")
        return hits[0]

    def public_view(self, seat: int) -> Any:
        """Everything ``seat`` may know, as a typed frozen view (``rummy_env.engine.view``: a ``PublicView`` or a
        ``ContinentalView``); ``ViewSeatError`` (a ``ValueError``) for a seat the table does not have."""
        return public_view_of(self, seat)

    def legal_action_infos(self) -> list[tuple[int, dict[str, Any]]]:
        """(id, action_info) of every legal action."""
        return [(a, self.action_info(a)) for a in self.legal_actions()]  # type: ignore[attr-defined]

    def _illegal_message(self, action: int, legal: list[int]) -> str:
        try:
            desc = self.describe_action(action)  # type: ignore[attr-defined]
        except ValueError:
            desc = "not an action of this table"
        shown = ", ".join(f"{a} ({self.describe_action(a)})" for a in legal[:40])  # type: ignore[attr-defined]
        more = f" and {len(legal) - 40} more" if len(legal) > 40 else ""
        return (
            f"illegal action {action} ({desc}) for player {self.current_player} in phase '{self.phase}' "
            f"of round {self.round}; legal actions: {shown}{more}"  # type: ignore[attr-defined]
        )


#: the view builder of each engine class: each engine module registers its own (``register_view``) when it is
#: imported, so this base module knows none of its subclasses (``rummy_env.engine.view`` re-exports these names)
ENGINE_VIEWS: dict[type, Callable[[Any, int], Any]] = {}


def register_view(engine: type, builder: Callable[[Any, int], Any]) -> None:
    """Make ``state.public_view(seat)`` of ``engine`` states (and its subclasses) return ``builder(state, seat)``."""
    ENGINE_VIEWS[engine] = builder


def view_builder(state: Any) -> Callable[[Any, int], Any]:
    """The function ``builder(state, seat)`` that makes ``state``'s views (its engine class's, ``register_view``);
    ``TypeError`` for an engine without one. Callers that make many views (the envs) look it up once."""
    builder = ENGINE_VIEWS.get(type(state))
    if builder is None:
        for cls in type(state).__mro__[1:]:
            builder = ENGINE_VIEWS.get(cls)
            if builder is not None:
                ENGINE_VIEWS[type(state)] = builder
                break
        else:
            raise TypeError(f"no public view for engine {type(state).__name__}; register one with register_view")
    return builder


def public_view_of(state: Any, seat: int) -> Any:
    """The view of ``seat`` in ``state`` (what ``state.public_view(seat)`` returns)."""
    builder = ENGINE_VIEWS.get(type(state))
    if builder is None:
        builder = view_builder(state)
    return builder(state, seat)


_MISSING = object()


def _info_matches(info: dict[str, Any], want: dict[str, Any]) -> bool:
    for key, val in want.items():
        have = info.get(key, _MISSING)
        if key == "card" and isinstance(val, str) and isinstance(have, str) and not val.startswith("JK"):
            if parse_card(val) != parse_card(have):
                return False
        elif key == "cards" and isinstance(val, list) and isinstance(have, list):
            if sorted(have) != sorted(val):
                return False
        elif have != val:
            return False
    return True


def _sym_s(text: str | None) -> str:
    """A card string with suit symbols (``"7C"`` -> ``"7♣"``); joker strings unchanged."""
    if text is None:
        return "?"
    if text.startswith("JK"):
        return text
    return card_str(parse_card(text), symbols=True)


# Typed scenario values: every loader reads its fields through these, so a wrong type or range is a ScenarioError
# naming the key and what is allowed (never a bool taken for an int, a string taken for a bool, ...).


def is_int(v: Any) -> bool:
    """True for a real integer (``bool`` is not one here)."""
    return isinstance(v, int) and not isinstance(v, bool)


def int_value(v: Any, where: str, lo: int, hi: int | None = None) -> int:
    """``v`` checked to be an integer in ``lo..hi`` (no upper bound if ``hi`` is None)."""
    if not is_int(v) or v < lo or (hi is not None and v > hi):
        allowed = f"in {lo}..{hi}" if hi is not None else f">= {lo}"
        raise ScenarioError(f"'{where}' must be an integer {allowed}, got {v!r}")
    return v


def int_field(data: dict[str, Any], key: str, default: int, lo: int, hi: int | None = None) -> int:
    """The integer ``data[key]`` (``default`` if absent) in ``lo..hi``."""
    return int_value(data.get(key, default), key, lo, hi)


_int_field = int_field  # the name the engines used first


def bool_field(data: dict[str, Any], key: str, default: bool) -> bool:
    """The boolean ``data[key]`` (``default`` if absent): only ``true`` / ``false``, never a string or a number."""
    v = data.get(key, default)
    if not isinstance(v, bool):
        raise ScenarioError(f"'{key}' must be true or false, got {v!r}")
    return v


def seat_value(v: Any, where: str, n: int, allow_none: bool = False) -> int | None:
    """``v`` checked to be a seat ``0..n-1`` (or None when ``allow_none``); a bool is no seat."""
    if v is None and allow_none:
        return None
    if not is_int(v) or not 0 <= v < n:
        allowed = f"a seat 0..{n - 1}" + (" or null" if allow_none else "")
        raise ScenarioError(f"'{where}' must be {allowed}, got {v!r}")
    return v


def list_field(data: dict[str, Any], key: str, default: list[Any], length: int | None = None) -> list[Any]:
    """The list ``data[key]`` (``default`` if absent), of ``length`` items when given."""
    v = data.get(key, default)
    if not isinstance(v, list) or (length is not None and len(v) != length):
        what = f"a list of {length} items" if length is not None else "a list"
        raise ScenarioError(f"'{key}' must be {what}, got {v!r}")
    return v


def card_or_none(data: dict[str, Any], key: str) -> int:
    """The card ``data[key]`` as a kind, or -1 when absent / null."""
    v = data.get(key)
    return -1 if v is None else _card(v, f"'{key}'")


def _card(text: Any, where: str) -> int:
    try:
        return parse_card(text)
    except ValueError as exc:
        raise ScenarioError(f"{where}: {exc}") from None


def load_cards(st: Any, data: dict[str, Any], name: str, used: list[int]) -> None:
    """Fill ``st.hands``/``hand_size``/``stock``/``discard`` from a scenario (shared by every engine's loader).

    ``used`` already counts the cards placed elsewhere (table melds). Omitted piles are shuffled from the physical
    cards not placed anywhere; too many copies of a card, or cards missing with both piles given, are refused.
    """
    n = st.n
    hands = data.get("hands")
    if not isinstance(hands, list) or len(hands) != n:
        raise ScenarioError(f"'hands' must be a list of {n} lists of cards")
    for p, h in enumerate(hands):
        if not isinstance(h, list):
            raise ScenarioError(f"hands[{p}] must be a list of card strings, got {h!r}")
        for t in h:
            k = _card(t, f"hands[{p}]")
            st.hands[p][k] += 1
            used[k] += 1
        st.hand_size[p] = len(h)
    piles: dict[str, list[int]] = {}
    for key in ("discard", "stock"):
        if key in data:
            if not isinstance(data[key], list):
                raise ScenarioError(f"'{key}' must be a list of card strings (top first)")
            piles[key] = [_card(t, key) for t in data[key]][::-1]
            for k in piles[key]:
                used[k] += 1
    for k, c in enumerate(used):
        if c > st.copies[k]:
            raise ScenarioError(f"the scenario holds {c} copies of {card_str(k)}; the {name} shoe has {st.copies[k]}")
    rest = [k for k in range(len(used)) for _ in range(st.copies[k] - used[k])]
    if "stock" in piles and "discard" in piles:
        if rest:
            raise ScenarioError(f"{len(rest)} card(s) of the shoe are nowhere: {' '.join(map(card_str, rest))}")
        st.stock, st.discard = piles["stock"], piles["discard"]
    elif "stock" in piles:
        st.stock, st.discard = piles["stock"], shuffled(st.rng, rest)
    else:
        rest = shuffled(st.rng, rest)
        if "discard" in piles:
            st.discard, st.stock = piles["discard"], rest
        else:
            st.discard, st.stock = rest[:1], rest[1:]


def redeal_hidden(new: Any, seat: int, rng: np.random.Generator, keep: int = -1) -> Any:
    """Redeal, in the clone ``new``, every card ``seat`` cannot see: the stock order and the cards of the other
    hands (except seat ``keep``) that are not publicly known. Hand sizes and known cards stay. Returns ``new``."""
    pool: list[int] = list(new.stock)
    sizes = []
    kinds = range(len(new.hands[0]))
    for p in range(new.n):
        if p == seat or p == keep:
            sizes.append(0)
            continue
        hid = [new.hands[p][k] - new.known[p][k] for k in kinds]
        for k in kinds:
            if hid[k]:
                pool.extend([k] * hid[k])
                new.hands[p][k] -= hid[k]
        sizes.append(sum(hid))
    pool = shuffled(rng, pool)
    for p in range(new.n):
        for _ in range(sizes[p]):
            new.hands[p][pool.pop()] += 1
    new.stock = pool
    new._legal = None
    return new


def check_scenario(data: Any, allowed: set[str], rules: Any) -> int:
    """Common checks of a scenario dict (a dict, known keys, the right profile and player count); the players."""
    if not isinstance(data, dict):
        raise ScenarioError(f"a scenario must be a dict, got {type(data).__name__}")
    unknown = sorted(set(data) - allowed, key=repr)
    if unknown:
        raise ScenarioError(f"unknown scenario key(s) {unknown}; allowed: {sorted(allowed)}")
    if data.get("profile", rules.name) != rules.name:
        raise ScenarioError(f"scenario is for profile {data.get('profile')!r}, this engine runs {rules.name!r}")
    n = rules.num_players
    if "num_players" in data and (not is_int(data["num_players"]) or data["num_players"] != n):
        raise ScenarioError(f"'num_players' must be {n} (the rules' player count), got {data['num_players']!r}")
    return n


def load_scores(data: dict[str, Any], n: int, minimum: int | None = None) -> list[int]:
    """The cumulative ``scores`` of a scenario (default zeros): ``n`` integers, each ``>= minimum`` if given."""
    scores = data.get("scores", [0] * n)
    ok = isinstance(scores, list) and len(scores) == n and all(is_int(s) for s in scores)
    if not ok or (minimum is not None and any(s < minimum for s in scores)):
        bound = f" >= {minimum} (penalty totals)" if minimum is not None else ""
        raise ScenarioError(f"'scores' must be a list of {n} integers{bound}, got {scores!r}")
    return list(scores)


def load_round_results(
    data: dict[str, Any], n: int, rounds: Any, amounts: str, reasons: tuple[str, ...], minimum: int | None = None
) -> list[dict[str, Any]]:
    """``round_results``: one well-formed dict per finished round, in the order of ``rounds`` (their numbers).

    Each entry has exactly the keys ``round``, ``winner`` (a seat, or null when no one went out), ``reason`` (one
    of ``reasons``; ``"out"`` iff there is a winner) and ``amounts`` (``n`` integers, each ``>= minimum`` if given,
    the winner's 0 when ``minimum`` is given).
    """
    results = list_field(data, "round_results", [])
    if len(results) > len(rounds):
        raise ScenarioError(f"'round_results' has {len(results)} entries; the session plays {len(rounds)} round(s)")
    keys = {"round", "winner", "reason", amounts}
    for i, res in enumerate(results):
        where = f"round_results[{i}]"
        if not isinstance(res, dict) or set(res) != keys:
            raise ScenarioError(f"'{where}' must be a dict with keys {sorted(keys)}, got {res!r}")
        if not is_int(res["round"]) or res["round"] != rounds[i]:
            raise ScenarioError(
                f"'{where}.round' must be {rounds[i]} (round {i + 1} of 'rounds'), got {res['round']!r}"
            )
        winner = seat_value(res["winner"], f"{where}.winner", n, allow_none=True)
        if res["reason"] not in reasons or (res["reason"] == "out") != (winner is not None):
            raise ScenarioError(
                f"'{where}.reason' must be one of {list(reasons)} ('out' exactly when there is a winner), "
                f"got {res['reason']!r} with winner {winner!r}"
            )
        vals = res[amounts]
        if not isinstance(vals, list) or len(vals) != n or not all(is_int(v) for v in vals):
            raise ScenarioError(f"'{where}.{amounts}' must be a list of {n} integers, got {vals!r}")
        if minimum is not None and (any(v < minimum for v in vals) or (winner is not None and vals[winner] != 0)):
            raise ScenarioError(f"'{where}.{amounts}' must be >= {minimum}, the winner's 0; got {vals!r}")
    return copy.deepcopy(results)


def load_carried_scores(
    data: dict[str, Any], n: int, scores: list[int], results: list[dict[str, Any]], amounts: str,
    minimum: int | None = None,
) -> list[int] | None:
    """The totals a session started with before the rounds its ``round_results`` record (None: all 0).

    A scenario without results starts from its ``scores`` (the documented example: round 2, ``scores: [0, 25, 10,
    40]``); its dumps carry those totals on as ``carried_scores`` (written only when not all 0), so that ``scores``
    is always ``carried_scores`` plus the sums of the recorded ``amounts``, and every dump of the session reloads.
    """
    if "carried_scores" in data:
        carried = data["carried_scores"]
        ok = isinstance(carried, list) and len(carried) == n and all(is_int(s) for s in carried)
        if not ok or (minimum is not None and any(s < minimum for s in carried)):
            bound = f" >= {minimum}" if minimum is not None else ""
            raise ScenarioError(f"'carried_scores' must be a list of {n} integers{bound}, got {carried!r}")
    else:
        carried = scores if not results else [0] * n
    sums = [sum(res[amounts][p] for res in results) for p in range(n)]
    want = [c + s for c, s in zip(carried, sums)]
    if want != scores:
        raise ScenarioError(
            f"'scores' {scores} must be 'carried_scores' {carried} (the totals the session started with; omitted: "
            f"'scores' itself without 'round_results', else 0) plus the sums {sums} of the 'round_results' {amounts}"
        )
    return list(carried) if any(carried) else None


def load_known(st: Any, data: dict[str, Any]) -> None:
    """Fill ``st.known`` (cards publicly known per hand) from a scenario, checking each is in that hand."""
    known = list_field(data, "known", [[] for _ in range(st.n)], st.n)
    for p, cards in enumerate(known):
        if not isinstance(cards, list):
            raise ScenarioError(f"'known[{p}]' must be a list of card strings, got {cards!r}")
        for t in cards:
            k = _card(t, f"known[{p}]")
            st.known[p][k] += 1
            if st.known[p][k] > st.hands[p][k]:
                raise ScenarioError(f"known[{p}] lists {card_str(k)} more often than hand {p} holds it")
    st._known_snap = None  # the views' snapshot of the known cards (``engine.view``)
