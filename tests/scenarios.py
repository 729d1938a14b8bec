"""Helpers of the scripted tests (rules, bots, worked examples), shared by every profile.

Scenario conventions: seats P0..P{n-1} clockwise, piles listed top first, ``JK(6D)`` a joker declared as 6D in a
run, ``JK(7)`` / ``JK(7H)`` a joker declared in a group. A scenario dict is the JSON state format of
``rummy_env.engine.load_state``; ``complete()`` puts every card of the profile's shoe (``shoe_counts``) that the
scenario does not place at the bottom of the stock, so the tops of both piles are exactly what the test wrote.

* cards: ``card_name`` / ``card_key`` / ``names`` (canonical names), ``srt`` (engine hand order), ``pen``
  (contract-family penalty of cards left in hand);
* building positions: ``scenario`` (contract family: hands given, round 2, P0 to draw), ``continental_scenario``
  (continental: given hands, filler hands that cannot go out), ``complete``, ``leftover``, ``load``, ``final``;
* acting and looking: ``act``, ``infos``, ``kinds``, ``hand``, ``melds_offered``, ``layoffs``, ``discards``,
  ``pickups``, ``declaring_discards``, ``table_of``, ``quiet_turn``, ``idle_turn``, ``assert_rejected``;
* bots: ``play`` (a whole session of bots), ``play_turn``, ``decide``, ``counts``, ``check_blind_to_hidden``.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import rummy_env
from rummy_env import bots
from rummy_env.bots.view import public_view
from rummy_env.core.cards import JOKER, NUM_KINDS, card_str, counts_of, parse_card, parse_cards
from rummy_env.engine import IllegalActionError, load_state
from rummy_env.rules.continental_hand import can_go_out

# ----------------------------------------------------------------------------------------------------------------
# Cards
# ----------------------------------------------------------------------------------------------------------------


def card_name(text: str) -> str:
    """Canonical name of a card string (``JK(6D)`` -> ``JK``, ``TH`` -> ``10H``)."""
    return "JK" if text.upper().startswith("JK") else card_str(parse_card(text))


def card_key(text: str) -> int:
    """The card kind of a card string (jokers, declared or not, are ``JOKER``)."""
    return JOKER if text.upper().startswith("JK") else parse_card(text)


def names(text: str) -> list[str]:
    """Canonical card strings of a space-separated list (``TH`` -> ``10H``)."""
    return [card_str(k) for k in parse_cards(text)] if text.strip() else []


def srt(cards: list[str]) -> list[str]:
    """Card names in the engine's hand order (by kind, jokers last)."""
    return sorted((card_name(c) for c in cards), key=card_key)


def pen(cards: list[str]) -> int:
    """Penalty of cards left in hand, straight from A.1-15 / B.1-14: 2-10 pip value, J/Q/K 10, A 15, JK 15."""
    total = 0
    for c in cards:
        name = card_name(c)
        rank = name[:-1]
        if name == "JK" or rank == "A":
            total += 15
        elif rank in ("J", "Q", "K"):
            total += 10
        else:
            total += int(rank)
    return total


def counts(cards: list[str]) -> list[int]:
    """Copies per card kind (53 entries, the joker last)."""
    h = [0] * NUM_KINDS
    for k in parse_cards(cards):
        h[k] += 1
    return h


# ----------------------------------------------------------------------------------------------------------------
# Building positions
# ----------------------------------------------------------------------------------------------------------------


#: the shoe by the rule documents, written here apart from the rules objects (the rules tests check the engine
#: against it): (copies of each natural, jokers) for a player count
SHOES: dict[str, Callable[[int], tuple[int, int]]] = {
    "contract": lambda n: (2, 3),  # A.1-1: 2 x 52 + 3 JK = 107
    "contract_gamerules": lambda n: (2, 2) if n == 5 else (1, 1),  # B.1-1 / B.2-1: 53 cards, 106 for 5 players
    "continental": lambda n: (2, 2),  # C.1-1: 2 x 52 + 2 JK = 106
}


def shoe_counts(profile: str, num_players: int = 4) -> Counter[str]:
    """Copies of every card name in the shoe of ``profile`` at that player count (``SHOES``)."""
    copies, jokers = SHOES[profile](num_players)
    return Counter({card_str(k): copies for k in range(52)} | {"JK": jokers})


def leftover(scen: dict[str, Any]) -> list[str]:
    """Cards of the scenario's shoe that it does not place anywhere (in kind order)."""
    used: Counter[str] = Counter()
    for h in scen["hands"]:
        used.update(card_name(c) for c in h)
    for meld in scen.get("table", []):
        used.update(card_name(c) for c in meld["cards"])
    for key in ("discard", "stock"):
        used.update(card_name(c) for c in scen.get(key, []))
    full = shoe_counts(scen["profile"], len(scen["hands"]))
    rest: list[str] = []
    for k in range(NUM_KINDS):
        name = card_str(k)
        rest += [name] * (full[name] - used[name])
    return rest


def complete(scen: dict[str, Any], into: str = "stock") -> dict[str, Any]:
    """Place every unplaced card at the bottom of ``into`` so both piles are fully given (tops as written)."""
    scen = copy.deepcopy(scen)
    scen.setdefault("stock", [])
    scen.setdefault("discard", [])
    scen[into] = scen[into] + leftover(scen)
    return scen


def scenario(profile: str, hands: list[list[str]], **kw: Any) -> dict[str, Any]:
    """A contract-family scenario: ``len(hands)`` players, round 2, dealer the last seat (P0 to draw), no melds,
    scores 0, scripted short hands (``rigged``); keywords override."""
    n = len(hands)
    data: dict[str, Any] = {
        "profile": profile,
        "num_players": n,
        "round": 2,
        "dealer": n - 1,
        "phase": "draw",
        "hands": [list(h) for h in hands],
        "table": [],
        "opened": [],
        "scores": [0] * n,
        "rigged": True,  # scripted short hands, not dealt ones
    }
    data.update(kw)
    return data


#: continental's natural ranks in the order filler hands take them (no 2s: they are wild)
_CONTINENTAL_FILLER_RANKS = ["A", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def continental_scenario(
    hands: dict[int, str],
    *,
    stock: str = "",
    discard: str | None = None,
    rest: str = "stock",
    dealer: int = 3,
    phase: str = "draw",
    turns_taken: list[int] | None = None,
    n: int = 4,
    deals: int = 1,
    **extra: Any,
) -> dict[str, Any]:
    """A complete continental scenario: the given hands (by seat), filler hands that cannot go out elsewhere, every
    other card at the bottom of ``rest`` (the stock or the discard pile)."""
    used: Counter[str] = Counter()
    for h in hands.values():
        used.update(names(h))
    stock_l = names(stock)
    disc_l = names(discard) if discard is not None else []
    used.update(stock_l)
    used.update(disc_l)
    left = shoe_counts("continental", n)
    left.subtract(used)
    assert min(left.values()) >= 0, f"test bug: the scenario places too many copies: {-left}"
    pool = [f"{r}{s}" for r in _CONTINENTAL_FILLER_RANKS for s in "CDHS" for _ in range(left[f"{r}{s}"])]
    all_hands = []
    for seat in range(n):
        if seat in hands:
            all_hands.append(names(hands[seat]))
            continue
        idx = list(range(15))
        while can_go_out(counts_of(parse_cards([pool[i] for i in idx]))):
            idx[-1] += 1  # swap the last card for a later one until the hand cannot go out
        h = [pool[i] for i in idx]
        pool = [c for i, c in enumerate(pool) if i not in idx]
        all_hands.append(h)
        left.subtract(h)
    if discard is None:
        disc_l = [pool[0]]
        left.subtract(disc_l)
    rest_cards = sorted(left.elements(), key=parse_card)
    if rest == "stock":
        stock_l = stock_l + rest_cards
    else:
        disc_l = disc_l + rest_cards
    data: dict[str, Any] = {
        "profile": "continental",
        "round": 1,
        "deals": deals,
        "dealer": dealer,
        "phase": phase,
        "hands": all_hands,
        "discard": disc_l,
        "stock": stock_l,
        "turns_taken": list(turns_taken) if turns_taken is not None else [1] * n,
        "scores": [0] * n,
    }
    data.update(extra)
    return data


def load(scen: dict[str, Any], full: bool = True, **rules: Any) -> Any:
    """Load a scenario (``full``: completed first, so the piles' tops are as written) with its player count and
    rule overrides ``rules``."""
    return load_state(complete(scen) if full else scen, seed=0, num_players=len(scen["hands"]), **rules)


def final(rnd: int = 2) -> dict[str, Any]:
    """Keys that make the loaded round the last of the session (so the state stops at game_over)."""
    return {"rounds": [rnd], "round_index": 0}


# ----------------------------------------------------------------------------------------------------------------
# Acting and looking
# ----------------------------------------------------------------------------------------------------------------


def act(s: Any, **info: Any) -> int:
    """Apply the unique legal action matching ``info``; returns its id."""
    a = s.find_action(**info)
    s.apply(a)
    return a


def infos(s: Any, kind: str | None = None) -> list[dict[str, Any]]:
    """Infos of the legal actions (optionally only those of one kind)."""
    return [i for _, i in s.legal_action_infos() if kind is None or i["kind"] == kind]


def kinds(s: Any) -> set[str]:
    """Kinds of the legal actions."""
    return {i["kind"] for i in infos(s)}


def hand(s: Any, seat: int) -> list[str]:
    """Seat's hand as card names in engine order."""
    return s.to_json()["hands"][seat]


def melds_offered(s: Any) -> set[tuple[str, tuple[str, ...]]]:
    """(group|run, sorted cards) of every legal meld action."""
    return {(i["meld"], tuple(sorted(i["cards"]))) for i in infos(s, "meld")}


def layoffs(s: Any) -> set[tuple[str, int, int, str | None]]:
    """(card, seat, meld, end) of every legal lay-off."""
    return {(i["card"], i["seat"], i["meld"], i["end"]) for i in infos(s, "lay_off")}


def discards(s: Any) -> set[str]:
    """Cards the player may discard now."""
    return {i["card"] for i in infos(s, "discard")}


def pickups(s: Any) -> set[tuple[int, str]]:
    """(depth, card) of every legal deep pickup."""
    return {(i["depth"], i["card"]) for i in infos(s, "pickup")}


def declaring_discards(s: Any) -> list[str]:
    """Continental: the cards whose discard may declare (the 15 left are valid), in card order."""
    return [i["card"] for i in infos(s, "discard_declare")]


def table_of(s: Any, seat: int) -> list[list[str]]:
    """Cards (with joker declarations) of ``seat``'s melds, in meld order."""
    return [m["cards"] for m in s.to_json()["table"] if m["owner"] == seat]


def quiet_turn(s: Any, discard: str | None = None) -> None:
    """The active player draws the stock top, every offered buyer passes, then he discards ``discard`` (default:
    the first card he may discard)."""
    act(s, kind="draw_stock")
    while s.phase == "buy":
        act(s, kind="pass")
    assert s.phase == "act"
    if discard is None:
        s.apply(s.find_action(**infos(s, "discard")[0]))
    else:
        act(s, kind="discard", card=discard)


def idle_turn(s: Any) -> None:
    """Draw the stock top and discard that very card (without declaring, even if the 15 left are valid)."""
    p = s.current_player
    before = Counter(s.hand_cards(p))
    deal = s.round
    act(s, kind="draw_stock")
    if s.round != deal or s.phase != "act":
        return  # the draw ended the deal
    (k,) = list((Counter(s.hand_cards(p)) - before).elements())
    act(s, kind="discard", card=card_str(k))


def assert_rejected(s: Any, action: int) -> None:
    """Engine contract: an illegal action raises IllegalActionError and leaves the state unchanged."""
    before = copy.deepcopy(s.to_json())
    legal = list(s.legal_actions())
    with pytest.raises(IllegalActionError):
        s.apply(action)
    assert s.to_json() == before
    assert s.legal_actions() == legal


# ----------------------------------------------------------------------------------------------------------------
# Bots
# ----------------------------------------------------------------------------------------------------------------


def play(
    profile: str,
    specs: list[str],
    seed: int,
    check: Callable[[Any, str, Any], None] | None = None,
    ask_heuristic: bool = False,
    **config: Any,
) -> tuple[Any, int]:
    """One session of the raw env (``config``: ``rounds`` / ``deals`` ...), ``specs[seat]`` at each seat; every
    action must be legal. ``check(env, agent, bot)`` sees each decision; ``ask_heuristic``: a heuristic of each seat
    is also asked at every state of that seat (its answer must be legal too). Returns the env and how often the
    heuristics were asked."""
    n = len(specs)
    env = rummy_env.make(profile, wrapped=False, num_players=n, **config)
    env.reset(seed=seed)
    players = [bots.load(s, seed=seed * 10 + i) for i, s in enumerate(specs)]
    probes = [bots.load("heuristic", seed=seed * 10 + i) for i in range(n)] if ask_heuristic else []
    asked = 0
    while not env._state.is_terminal():
        agent = env.agent_selection
        seat = env.agent_name_mapping[agent]
        legal = env._state.legal_actions()
        if ask_heuristic:
            assert probes[seat].act(env, agent) in legal
            asked += 1
        bot = players[seat]
        if check is not None:
            check(env, agent, bot)
        action = bot.act(env, agent)
        assert action in legal, env._state.describe_action(action)
        env.step(action)
    return env, asked


def play_turn(env: Any, bot: Any) -> list[str]:
    """Let ``bot`` play the active seat's whole turn (until another seat must decide); the actions described."""
    raw = env.unwrapped
    seat = raw._state.current_player
    rounds = len(raw._state.round_results)
    done = []
    while raw._state.current_player == seat and len(raw._state.round_results) == rounds:
        action = bot.act(env, env.agent_selection)
        done.append(raw.describe_action(action))
        env.step(action)
    return done


def decide(env: Any, seed: int = 0) -> str:
    """The heuristic's choice for the player to move, described."""
    return env.unwrapped.describe_action(bots.load("heuristic", seed=seed).act(env, env.agent_selection))


def check_blind_to_hidden(
    profile: str,
    specs: list[str],
    seeds: tuple[int, ...],
    rng_seed: int,
    only: str | None = None,
    view_type: type | None = None,
    **config: Any,
) -> dict[str, Any]:
    """Play sessions; at every decision (of bots named ``only``, default every bot) resample twice every card the
    deciding seat cannot see: its public view (of ``view_type``, if given) and its decision must stay the same.
    Returns the decisions ``checked`` and the ``phases`` and decided ``kinds`` seen."""
    rng = np.random.Generator(np.random.PCG64(rng_seed))
    seen: dict[str, Any] = {"checked": 0, "phases": set(), "kinds": set()}

    def check(env: Any, agent: str, bot: Any) -> None:
        if only is not None and bot.name != only:
            return
        seat = env.agent_name_mapping[agent]
        real = env._state
        view = public_view(env, agent)
        assert view_type is None or isinstance(view, view_type)
        expected = copy.deepcopy(bot).act(env, agent)
        for _ in range(2):
            env._state = real.resample_hidden(seat, rng)
            try:
                assert public_view(env, agent) == view
                assert copy.deepcopy(bot).act(env, agent) == expected, real.describe_action(expected)
            finally:
                env._state = real
        seen["phases"].add(real.phase)
        seen["kinds"].add(real.action_info(expected)["kind"])
        seen["checked"] += 1

    for seed in seeds:
        play(profile, specs, seed=seed, check=check, **config)
    return seen
