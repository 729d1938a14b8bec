"""Fuzz of the scenario loader (issue 40): mutated dumps of random positions of every profile and player count.

A mutant is a dump of a random position with one to three edits: a field set to a value of another type or range, a
field dropped, a phase relabelled, a card moved, dropped or doubled, a hand emptied, short hands marked ``rigged``,
scores, results, known cards, table melds or opened seats changed. Each is either refused with ``ScenarioError``
(never any other exception), or accepted; then it plays 200 random decisions with a legal action at every
non-terminal state, and its dump reloads to the same dump at every step (OpenSpiel's RandomSimTest promise for the
states the loader lets in). The default run takes a few seconds; ``-m slow`` runs 1,500 mutants per profile.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from rummy_env.engine import ScenarioError, load_state
from rummy_env.registry import GAMES, game

PROFILES = sorted(GAMES)
#: values a mutated field takes: other types, out-of-range numbers, NaN, huge integers, junk containers, cards
POOL: list[Any] = [0, 1, 2, 3, -1, 7, 10**6, 10**30, True, False, None, "abc", "", 1.5, float("nan"), [], [1], {},
                   {"junk": 1}, "7C", "JK", [0, 1]]  # fmt: skip
#: keys a mutation may add (the optional ones of each profile's format)
OPTIONAL = ["rigged", "taken_discard", "must_place", "opening_left", "buy_queue", "last_buyer", "turns_taken",
            "carried_scores", "rounds", "round_index", "deals"]  # fmt: skip
PHASES = ["draw", "buy", "act", "opening", "place_joker", "game_over", "declare", "junk"]


def positions(profile: str, rng: random.Random, per_game: int) -> list[dict[str, Any]]:
    """Dumps of random positions of 2-round sessions, from every player count (``per_game`` each, plus the end)."""
    g = game(profile)
    out = []
    for n in g.player_counts:
        st = g.new_state(g.rules(num_players=n), seed=rng.randrange(10**6), rounds=2)
        taken = 0
        while not st.is_terminal() and taken < per_game:
            st.apply(rng.choice(st.legal_actions()))
            if rng.random() < 0.03:
                out.append(st.to_json())
                taken += 1
        out.append(st.to_json())
    return out


# mutations: each edits the dump ``d`` in place (a no-op where the dump lacks what it edits) ------------------------
def _set_field(d: dict[str, Any], rng: random.Random) -> None:
    d[rng.choice(list(d) + OPTIONAL)] = copy.deepcopy(rng.choice(POOL))


def _drop_field(d: dict[str, Any], rng: random.Random) -> None:
    del d[rng.choice(list(d))]


def _nudge_int(d: dict[str, Any], rng: random.Random) -> None:
    keys = [k for k, v in d.items() if type(v) is int]
    if keys:
        d[rng.choice(keys)] += rng.choice([-2, -1, 1, 2])


def _relabel_phase(d: dict[str, Any], rng: random.Random) -> None:
    d["phase"] = rng.choice(PHASES)


def _piles(d: dict[str, Any]) -> list[list[str]]:
    return [h for h in d["hands"] if isinstance(h, list)] + [d[k] for k in ("stock", "discard") if isinstance(d.get(k), list)]


def _move_card(d: dict[str, Any], rng: random.Random, mode: str = "move") -> None:
    piles = _piles(d)
    src = rng.choice(piles)
    if not src:
        return
    card = src.pop(rng.randrange(len(src)))
    if mode == "move":
        dst = rng.choice(piles)
        dst.insert(rng.randrange(len(dst) + 1), card)
    elif mode == "double":
        src.extend([card, card])


def _empty_hand(d: dict[str, Any], rng: random.Random) -> None:
    p = rng.randrange(len(d["hands"]))
    if isinstance(d.get("stock"), list):
        d["stock"] = d["stock"] + d["hands"][p]
    d["hands"][p] = []


def _short_rigged_hands(d: dict[str, Any], rng: random.Random) -> None:
    d["rigged"] = True
    for _ in range(rng.randrange(1, 12)):
        hand = rng.choice(d["hands"])
        if hand and isinstance(d.get("stock"), list) and isinstance(d.get("discard"), list):
            card = hand.pop(rng.randrange(len(hand)))
            if rng.random() < 0.5:
                d["stock"].append(card)
            else:
                d["discard"].insert(0, card)


def _edit_scores(d: dict[str, Any], rng: random.Random) -> None:
    scores = d.get("scores")
    if isinstance(scores, list) and scores:
        p = rng.randrange(len(scores))
        scores[p] = rng.choice([0, 1, -1, 5, 100, 10**9, scores[p] + 1, scores[p] - 1])
    if rng.random() < 0.5:
        d["round_results"] = []


def _edit_results(d: dict[str, Any], rng: random.Random) -> None:
    results = d.get("round_results")
    if not isinstance(results, list):
        return
    choice = rng.randrange(4)
    if choice == 0 and results:
        del results[rng.randrange(len(results))]
    elif choice == 1 and results:
        results.append(copy.deepcopy(rng.choice(results)))
    elif choice == 2 and results:
        entry = rng.choice(results)
        entry[rng.choice(list(entry))] = copy.deepcopy(rng.choice(POOL + [[0] * len(d["hands"])]))
    else:
        results.append({"junk": 1})


def _edit_known(d: dict[str, Any], rng: random.Random) -> None:
    known = d.get("known")
    if isinstance(known, list) and known:
        p = rng.randrange(len(known))
        if rng.random() < 0.5 and d["hands"][p]:
            known[p].append(rng.choice(d["hands"][p]))
        elif known[p]:
            known[p].pop()


def _edit_table(d: dict[str, Any], rng: random.Random) -> None:
    table = d.get("table")
    if isinstance(table, list) and table:
        i = rng.randrange(len(table))
        choice = rng.randrange(3)
        if choice == 0:
            meld = table.pop(i)
            if isinstance(d.get("stock"), list):
                d["stock"] = d["stock"] + [c.split("(")[0] for c in meld["cards"]]
        elif choice == 1:
            table[i]["owner"] = rng.randrange(len(d["hands"]))
        else:
            table[i]["cards"] = table[i]["cards"][1:]
    opened = d.get("opened")
    if isinstance(opened, list) and rng.random() < 0.5:
        if opened and rng.random() < 0.5:
            opened.pop(rng.randrange(len(opened)))
        else:
            opened.append(rng.randrange(len(d["hands"])))


MUTATIONS: list[Callable[[dict[str, Any], random.Random], None]] = [
    _set_field, _drop_field, _nudge_int, _relabel_phase, _move_card,
    lambda d, rng: _move_card(d, rng, "drop"), lambda d, rng: _move_card(d, rng, "double"),
    _empty_hand, _short_rigged_hands, _edit_scores, _edit_results, _edit_known, _edit_table,
]  # fmt: skip


def mutate(d: dict[str, Any], rng: random.Random, first: int) -> dict[str, Any]:
    """A mutant of ``d``: mutation ``first`` (so every kind is used in turn), then up to two random ones."""
    d = copy.deepcopy(d)
    ops = [MUTATIONS[first % len(MUTATIONS)]] + rng.sample(MUTATIONS, rng.choice([0, 0, 1, 2]))
    for op in ops:
        try:
            op(d, rng)
        except (KeyError, TypeError, IndexError, AttributeError, ValueError):
            pass  # the dump no longer has what this mutation edits: the mutant is what the earlier ones made
    return d


def play(st: Any, rng: random.Random, decisions: int = 200) -> None:
    """``decisions`` random decisions: a legal action at every non-terminal state, the dump reloading to itself at
    every step."""
    for _ in range(decisions):
        dump = st.to_json()
        again = load_state(copy.deepcopy(dump))
        assert again.to_json() == dump, "the dump does not reload to itself"
        if st.is_terminal():
            return
        legal = st.legal_actions()
        assert legal, f"non-terminal state without a legal action (phase {st.phase!r})"
        st.apply(rng.choice(legal))


def fuzz_loader(profile: str, mutants: int, seed: int, per_game: int) -> Counter[str]:
    """``mutants`` mutants of ``profile``'s positions: refused with ``ScenarioError`` or accepted and played."""
    rng = random.Random(f"{profile}-{seed}")
    base = positions(profile, rng, per_game)
    outcome: Counter[str] = Counter()
    for i in range(mutants):
        mutant = mutate(rng.choice(base), rng, i)
        try:
            st = load_state(copy.deepcopy(mutant), seed=rng.randrange(1000))
        except ScenarioError:
            outcome["refused"] += 1
            continue
        except Exception as exc:  # noqa: BLE001 - every refusal must be a ScenarioError
            raise AssertionError(f"{type(exc).__name__} instead of ScenarioError for {mutant}") from exc
        outcome["accepted"] += 1
        try:
            play(st, random.Random(i))
        except Exception as exc:
            raise AssertionError(f"accepted mutant #{i} breaks: {exc}\n{mutant}") from exc
    return outcome


@pytest.mark.parametrize("profile", PROFILES)
def test_scenario_loader_fuzz(profile: str) -> None:
    outcome = fuzz_loader(profile, mutants=60, seed=0, per_game=4)
    assert outcome["accepted"] >= 5 and outcome["refused"] >= 15, outcome


@pytest.mark.slow
@pytest.mark.parametrize("profile", PROFILES)
def test_scenario_loader_fuzz_long(profile: str) -> None:
    outcome = fuzz_loader(profile, mutants=1500, seed=1, per_game=10)
    assert outcome["accepted"] >= 100 and outcome["refused"] >= 300, outcome
