"""Pieces every engine shares: errors, the seeded generator's JSON form, shuffling."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..cards import card_str, parse_card


class IllegalActionError(ValueError):
    """An action the rules do not allow in this state (the state is unchanged)."""


class ScenarioError(ValueError):
    """A malformed scenario / state dict."""


def make_rng(seed: int | None) -> np.random.Generator:
    """The one seeded generator of a game."""
    return np.random.Generator(np.random.PCG64(seed))


def rng_to_json(rng: np.random.Generator) -> dict[str, Any]:
    """The generator's state as JSON-able data."""
    st = rng.bit_generator.state
    return {
        "bit_generator": st["bit_generator"],
        "state": {"state": str(st["state"]["state"]), "inc": str(st["state"]["inc"])},
        "has_uint32": st["has_uint32"],
        "uinteger": st["uinteger"],
    }


def rng_from_json(data: dict[str, Any]) -> np.random.Generator:
    """Rebuild a generator dumped by ``rng_to_json``."""
    if not isinstance(data, dict) or data.get("bit_generator") != "PCG64":
        raise ScenarioError(f"bad 'rng' entry {data!r}: expected the dict written by game_state()")
    rng = np.random.Generator(np.random.PCG64())
    try:
        rng.bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {"state": int(data["state"]["state"]), "inc": int(data["state"]["inc"])},
            "has_uint32": int(data["has_uint32"]),
            "uinteger": int(data["uinteger"]),
        }
    except (KeyError, TypeError, ValueError) as exc:
        raise ScenarioError(f"bad 'rng' entry {data!r}: {exc}") from None
    return rng


def shuffled(rng: np.random.Generator, cards: list[int]) -> list[int]:
    """A new list with ``cards`` in a random order drawn from ``rng``."""
    order = rng.permutation(len(cards))
    return [cards[i] for i in order]


GAME_OVER = "game_over"


class EngineState:
    """What every engine state shares: checked ``apply``, action look-up by description, error messages.

    A subclass provides ``phase``, ``current``, ``history``, ``legal_actions()``, ``_dispatch(action)`` (apply a
    legal action), ``action_info(action)``, ``describe_action(action)`` and ``round``.
    """

    phase: str
    current: int
    history: list[int]

    def apply(self, action: int) -> None:
        """Apply one atomic decision of the player to move; ``IllegalActionError`` (state unchanged) if illegal."""
        if self.phase == GAME_OVER:
            raise IllegalActionError(f"the game is over: no action is legal (got {action!r})")
        legal = self.legal_actions()  # type: ignore[attr-defined]
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
            f"illegal action {action} ({desc}) for player {self.current} in phase '{self.phase}' "
            f"of round {self.round}; legal actions: {shown}{more}"  # type: ignore[attr-defined]
        )


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


def _int_field(data: dict[str, Any], key: str, default: int, lo: int, hi: int) -> int:
    v = data.get(key, default)
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise ScenarioError(f"'{key}' must be an integer in {lo}..{hi}, got {v!r}")
    return v


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
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise ScenarioError(f"unknown scenario key(s) {unknown}; allowed: {sorted(allowed)}")
    if data.get("profile", rules.name) != rules.name:
        raise ScenarioError(f"scenario is for profile {data.get('profile')!r}, this engine runs {rules.name!r}")
    n = rules.num_players
    if "num_players" in data and data["num_players"] != n:
        raise ScenarioError(f"scenario has num_players={data['num_players']!r}, the rules say {n}")
    return n


def load_scores(data: dict[str, Any], n: int) -> list[int]:
    """The cumulative ``scores`` of a scenario (default zeros)."""
    scores = data.get("scores", [0] * n)
    if not isinstance(scores, list) or len(scores) != n or not all(isinstance(s, int) for s in scores):
        raise ScenarioError(f"'scores' must be a list of {n} integers, got {scores!r}")
    return list(scores)


def load_known(st: Any, data: dict[str, Any]) -> None:
    """Fill ``st.known`` (cards publicly known per hand) from a scenario, checking each is in that hand."""
    for p, cards in enumerate(data.get("known", [[] for _ in range(st.n)])):
        for t in cards:
            k = _card(t, f"known[{p}]")
            st.known[p][k] += 1
            if st.known[p][k] > st.hands[p][k]:
                raise ScenarioError(f"known[{p}] lists {card_str(k)} more often than hand {p} holds it")
