"""``rummy play`` for a newcomer (issue 17, terminal play), driven by scripted input: a card with several moves
asks which, the stock card (and a buy's penalty card) is named to the person only, a refused card says why, rounds
are announced with their contract, publicly known cards are shown, continental shows its target and wild cards and
its hint names ``declare``, counts agree with their nouns, jokers and seats are spelt one way, ``quit`` prints the
scores so far."""

from __future__ import annotations

import io
import re
import sys

import pytest

from rummy_env.cli.commands import main
from rummy_env.cli.play import joker_text, play, plural


def _play(profile: str, script: str, scenario: dict | None = None, **kw) -> tuple[dict, str]:
    out = io.StringIO()
    res = play(profile, kw.pop("opponents", ["random"] * 3), stdin=io.StringIO(script), stdout=out,
               scenario=scenario, **kw)  # fmt: skip
    return res, out.getvalue()


def _opened_scenario() -> dict:
    """P0 opened on an earlier turn (two groups), took K♠ from the discard pile this turn and holds 7♠, which fits
    its group of 7s; P1 is known to hold 3♦ (taken from the pile)."""
    return {
        "profile": "contract",
        "round": 1,
        "rounds": [1],
        "dealer": 3,
        "phase": "act",
        "current_player": 0,
        "rigged": True,
        "hands": [["7S", "KS", "3C", "4D", "QH"], ["2C", "5D", "9H", "3D"], ["3H"], ["4S", "8C", "JH", "AD"]],
        "table": [
            {"owner": 0, "kind": "group", "cards": ["7C", "7D", "7H"]},
            {"owner": 0, "kind": "group", "cards": ["9S", "9H", "JK(9)"]},
        ],
        "opened": [0],
        "taken_discard": "KS",
        "taken_pending": True,
        "known": [["KS"], ["3D"], [], []],
        "discard": ["KC"],
    }


def test_a_card_that_could_be_laid_off_is_not_discarded_at_once() -> None:
    _, text = _play("contract", "7S\n1\n", _opened_scenario())
    asked = text.split("Your move> 7S\n", 1)[1]
    assert asked.startswith("7♠ can be played several ways:")
    assert "1. lay off 7♠ on your group 7♣ 7♦ 7♥" in asked and "5. discard 7♠" in asked
    assert "Type the number of the move you mean." in asked
    # nothing was played on '7S'; the number then chose the lay-off
    assert "You: discard 7♠" not in text and "You: lay off 7♠ on your group 7♣ 7♦ 7♥" in text


def test_discard_word_confirms_a_discard() -> None:
    _, text = _play("contract", "discard 7S\n", _opened_scenario())
    assert "You: discard 7♠" in text and "several ways" not in text


def test_the_rediscard_ban_is_explained() -> None:
    _, text = _play("contract", "KS\ndiscard KS\n", _opened_scenario())
    why = ("You may not discard K♠: you took it from the discard pile this turn, and the card taken from the pile "
           "may not be discarded in the same turn (rule A.2-4).")  # fmt: skip
    assert text.count(why) == 2 and "No move plays" not in text


def test_cards_that_cannot_be_played_are_explained() -> None:
    _, text = _play("contract", "AS\n", _opened_scenario())
    assert "You do not hold A♠." in text
    _, text = _play("contract_gamerules", "7C\n", _gamerules_scenario(), opponents=["random", "random"])
    assert "You may not play 7♣ yet: draw first (stock or pile)." in text
    _, text = _play("contract", "7C\ndiscard 7C\n", _buy_scenario())
    assert text.count("You may not play 7♣ now: decide whether to buy 8♥.") == 1
    assert text.count("You may not discard 7♣ now: decide whether to buy 8♥.") == 1


def test_publicly_known_cards_are_shown() -> None:
    _, text = _play("contract", "", _opened_scenario())
    assert " P1 (random): 4 cards, not opened, score 0; known in hand: 3♦" in text
    # the person's own hand is shown in full, not as "known"
    assert "You (P0): 5 cards, opened, score 0\n" in text


def _gamerules_scenario() -> dict:
    """contract_gamerules (no buy window): P0 to draw (the stock is shuffled from the cards not placed)."""
    return {
        "profile": "contract_gamerules",
        "round": 1,
        "dealer": 2,
        "phase": "draw",
        "current_player": 0,
        "hands": [
            ["7C", "10H", "3S", "4D", "9C", "QS", "KH", "2D", "5S", "8H"],
            ["2C", "5D", "9H", "QD", "3H", "6S", "10D", "KS", "4C", "8D"],
            ["3C", "6D", "10S", "KC", "4H", "7S", "JD", "AH", "5C", "9D"],
        ],
        "discard": ["6C"],
    }


def test_the_stock_card_is_named_to_the_person_only() -> None:
    script = "stock\n" + "1\n" * 40
    top = _stock_top("contract_gamerules", _gamerules_scenario())
    _, text = _play("contract_gamerules", script, _gamerules_scenario(), opponents=["random", "random"])
    assert f"You: draw from the stock\n  (you drew {top} from the stock)\n" in text
    drew = re.findall(r"^  \(you drew (\S+) from the stock\)$", text, re.M)
    mine = re.findall(r"^You: draw from the stock$", text, re.M)
    assert len(drew) == len(mine) >= 2
    # a bot's stock draw is never named
    for line in re.findall(r"^P\d \(random\): draw from the stock\n(.*)$", text, re.M):
        assert "drew" not in line and "stock card" not in line


def _buy_scenario() -> dict:
    """P1 declined 8♥; the window reaches P0 (last in it)."""
    sc = {
        "profile": "contract",
        "round": 1,
        "rounds": [1],
        "dealer": 0,
        "phase": "buy",
        "active": 1,
        "current_player": 0,
        "buy_queue": [0],
        "hands": [
            ["7C", "10H", "3S", "4D", "9C", "QS", "KH", "2D", "AS", "JC"],
            ["2C", "5D", "9H", "QC", "3H", "6S", "10D", "KS", "4C", "8D"],
            ["3C", "6D", "10S", "KC", "4H", "7S", "JD", "AH", "5C", "9D"],
            ["4S", "8C", "JH", "AD", "6C", "9S", "QD", "2H", "6H", "10C"],
        ],
        "discard": ["8H"],
    }
    return sc


def _stock_top(profile: str, scenario: dict, seed: int = 0) -> str:
    """The stock top of ``scenario`` dealt with ``seed`` (as ``play`` deals it), with suit symbols."""
    import rummy_env
    from rummy_env.core.cards import card_str, parse_card

    env = rummy_env.make(profile, num_players=len(scenario["hands"]))
    env.reset(seed=seed, options={"scenario": scenario})
    return card_str(parse_card(env.unwrapped.game_state()["stock"][0]), symbols=True)


def test_a_buy_names_the_penalty_card() -> None:
    top = _stock_top("contract", _buy_scenario())
    _, text = _play("contract", "buy\n", _buy_scenario())
    assert f"You: buy 8♥ (+ penalty card)\n  (you bought 8♥; penalty card from the stock: {top})\n" in text


def test_rounds_are_announced_with_their_contract(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 3000))
    argv = ["play", "--opponents", "heuristic", "heuristic", "heuristic", "--rounds", "1", "2", "--seed", "1"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    first = text.index("=== Round 1 of 2: contract 2 groups + 0 runs, P")
    over = text.index("=== Round 1 over:")
    second = text.index("=== Round 2 of 2: contract 1 group + 1 run, P")
    assert first < over < second < text.index("=== Round 2 over:")


def test_continental_shows_the_target_the_wild_cards_and_declare() -> None:
    _, text = _play("continental", "hello\nquit\n", seed=4, rounds=1)
    goal = ("Goal: go out with all 15 cards in runs of one suit (3+3+3+3+3 or 4+4+4+3 or 5+4+3+3; a run has at "
            "least 3 cards); wild: every 2 and the jokers (JK)")  # fmt: skip
    assert text.count(goal) >= 2  # announced with the deal and shown with the table
    assert "a word (stock, pile, declare)" in text


def test_counts_agree_with_their_nouns() -> None:
    _, text = _play("contract", "", _opened_scenario())
    assert " P2 (random): 1 card, not opened" in text and "discard pile 1 card\n" in text
    assert not re.search(r"\b1 cards\b", text)
    assert plural(1, "card") == "1 card" and plural(0, "card") == "0 cards" and plural(2, "round") == "2 rounds"


def test_jokers_and_seats_are_spelt_one_way(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 3000))
    assert main(["play", "--opponents", "heuristic", "heuristic", "heuristic", "--rounds", "1", "--seed", "1"]) == 0
    text = capsys.readouterr().out
    assert "JK" in text and "JK(" not in text  # the same spelling in move lines and on the table
    assert not re.search(r"\bseat \d", text)  # seats are P<n> everywhere, "your" for the person's melds
    assert "P1 (heuristic): " in text and " P1 (heuristic): " in text  # move lines and table rows
    assert joker_text("declare run 5♥ JK(6H) 7♥") == "declare run 5♥ JK 7♥ (JK = 6♥)"
    assert joker_text("group 9♠ 9♥ JK(9)") == "group 9♠ 9♥ JK (JK = 9)"


def test_quit_prints_the_scores_so_far() -> None:
    res, text = _play("contract", "stock\nquit\n", rounds=(1,), seed=1)
    assert res["quit"] and "You left the game.\nScores so far (0 finished rounds): You 0, P1 (random) 0, " in text
    sc = {
        "profile": "contract",
        "rounds": [1, 2],
        "round": 2,
        "round_index": 1,
        "dealer": 0,
        "phase": "draw",
        "current_player": 1,
        "hands": _buy_scenario()["hands"],
        "scores": [10, 0, 25, 40],
        "round_results": [{"round": 1, "winner": 1, "reason": "out", "penalties": [10, 0, 25, 40]}],
    }
    res, text = _play("contract", "quit\n", sc, opponents=["random"] * 3)
    assert "Scores so far (1 finished round): You 10, P1 (random) 0, P2 (random) 25, P3 (random) 40" in text


def test_a_session_of_chosen_rounds_names_them() -> None:
    _, text = _play("contract", "quit\n", rounds=(4, 6), seed=0)
    assert "=== Round 4 (1 of 2 played): contract 3 groups + 0 runs, P" in text


def test_continental_declare_with_a_card_is_checked() -> None:
    """``declare 3C`` asks for 'discard 3C and declare'; a hand that would not go out is told so, with the target
    (seed 4: P0 holds 3♣ and a hand far from going out)."""
    _, text = _play("continental", "stock\ndeclare 3C\n3C\n", seed=4, rounds=1)
    assert "Hand: 3♣ 10♣ J♣ K♣" in text
    assert "Discarding 3♣ does not leave a hand that goes out (go out with all 15 cards in runs" in text
    assert "You: discard 3♣" in text  # the card alone has one move: the plain discard


def test_the_table_shown_does_not_depend_on_hidden_cards() -> None:
    """Another hand for P1 (its known 3♦ kept) and another stock order: the person sees the same table."""
    import copy

    other = copy.deepcopy(_opened_scenario())
    other["hands"][1] = ["AC", "KD", "9C", "3D"]
    _, text = _play("contract", "", _opened_scenario(), seed=0)
    _, text2 = _play("contract", "", other, seed=5)
    assert text == text2 and "known in hand: 3♦" in text


# ---- issue 38: forced moves, buy windows explained, the seed -------------------------------------------------------


def test_a_single_legal_move_is_played_without_asking() -> None:
    """The opening's last group can only be 9♣ 9♦ 9♠: it is played for the person, shown on one line, and the
    person is asked only at the next decision (three discards)."""
    sc = {
        "profile": "contract", "round": 1, "rounds": [1], "dealer": 3, "phase": "opening", "current_player": 0,
        "rigged": True, "opening_left": [1, 0], "discard": ["KC"],
        "hands": [["9C", "9D", "9S", "4D", "KH", "2C"], _buy_scenario()["hands"][1], _buy_scenario()["hands"][2],
                  _buy_scenario()["hands"][3]],
        "table": [{"owner": 0, "kind": "group", "cards": ["7C", "7D", "7H"]}],
    }  # fmt: skip
    _, text = _play("contract", "", sc)
    assert "You: only move: declare group 9♣ 9♦ 9♠\n" in text
    asked = text.split("--- your decision", 1)
    assert "only move" in asked[0] and "Your move>" not in asked[0]  # not asked before it was played
    assert "1. discard 2♣" in asked[1] and text.count("Your move>") == 1


class _Scripted:
    """A bot that plays the first legal move of the first kind it prefers (else the first legal move)."""

    def __init__(self, *prefer: str):
        self.prefer = prefer

    def act(self, env, agent):
        import numpy as np

        raw = env.unwrapped
        legal = [int(a) for a in np.flatnonzero(raw.action_mask(agent))]
        for kind in self.prefer:
            hits = [a for a in legal if raw.action_info(a)["kind"] == kind]
            if hits:
                return hits[0]
        return legal[0]


def _window_game(scenario: dict, script: str, bots: dict) -> str:
    from rummy_env.cli.play import TerminalGame

    out = io.StringIO()
    game = TerminalGame("contract", ["random"] * 3, stdin=io.StringIO(script), stdout=out, scenario=scenario)
    game.bots.update(bots)
    game.run()
    return out.getvalue()


def _draw_scenario(current: int, dealer: int) -> dict:
    sc = {k: v for k, v in _buy_scenario().items() if k not in ("active", "buy_queue")}
    return {**sc, "phase": "draw", "current_player": current, "dealer": dealer, "discard": ["8H", "5C"], "turn": 5}


def test_a_buy_chain_says_what_is_offered_to_whom_and_why() -> None:
    """Issue 38: a discard offered to one player after another, then the card below it after a buy, was not
    explained. You decline 8♥: the window opens to P1, P2, P3 in turn (P3 discarded it); P1 buys it, so 5♣ below it
    is offered to P2 and P3 only (A.2-1: not the buyer again); both pass on it; you draw."""
    text = _window_game(_draw_scenario(0, 3), "stock\n", {1: _Scripted("buy"), 2: _Scripted("pass"),
                                                            3: _Scripted("pass")})  # fmt: skip
    opened = ("You: draw from the stock\n  Buy window: You declined 8♥; before you draw from the stock, it is "
              "offered in turn to P1 (random), P2 (random) and P3 (random) (the first to buy takes it, with a penalty "
              "card). P3 (random) discarded it and may buy it back.\nP1 (random): buy 8♥ (+ penalty card)\n")  # fmt: skip
    assert opened in text
    again = ("  Buy window again: P1 (random) bought 8♥, so 5♣, the card under it, is offered in turn to P2 "
             "(random) and P3 (random) (not P1 (random): the buyer of a card may not buy the next one, A.2-1).\n"
             "P2 (random): pass on 5♣ (do not buy)\nP3 (random): pass on 5♣ (do not buy)\n"
             "  (nobody bought 5♣: you draw from the stock)\n  (you drew ")  # fmt: skip
    assert again in text


def test_the_person_asked_in_a_window_sees_who_passed() -> None:
    """P1 declines the 8♥ that you discarded; P2 and P3 pass on it; it is offered to you, the last in turn. At a
    round's first turn the pile's top is the upcard, which nobody discarded."""
    bots = {1: _Scripted("draw_stock"), 2: _Scripted("pass"), 3: _Scripted("pass")}
    text = _window_game(_draw_scenario(1, 0), "pass\n", bots)
    assert "it is offered in turn to P2 (random), P3 (random) and you" in text
    assert "You discarded it and may buy it back." in text
    assert ("Buy window: 8♥, declined by P1 (random), is offered to you: buy it (it comes with a penalty card) or "
            "pass; P2 (random) and P3 (random) passed on it.") in text  # fmt: skip
    assert "2. pass on 8♥ (do not buy)" in text and "You: pass on 8♥ (do not buy)" in text
    assert "(nobody bought 8♥: P1 (random) draws from the stock)" in text
    text = _window_game({**_draw_scenario(1, 0), "turn": 1}, "pass\n", bots)
    first = text.split("P2 (random): pass on 8♥", 1)[0]
    assert "it is offered in turn to P2 (random), P3 (random) and you" in first and "discarded it" not in first
