"""``rummy play``: a person's session in the terminal, driven here by scripted input: the table and the numbered
moves, moves typed as numbers, cards or words, hints for bad input, round summaries, quitting."""

from __future__ import annotations

import io
import re
import subprocess
import sys

import pytest

from rummy_env.cli.commands import main
from rummy_env.cli.play import play

HINT = "Type a move number"


def _run_cli(argv: list[str], script: str, monkeypatch: pytest.MonkeyPatch, capsys) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(script))
    rc = main(["play"] + argv)
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def test_scripted_round_with_bad_input_and_summary(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    script = "hello\n99\n0\nZZ\n\nmoves\n" + "1\n" * 3000
    argv = ["--profile", "contract", "--opponents", "heuristic", "random", "random", "--rounds", "1", "--seed", "3"]
    rc, out, _ = _run_cli(argv, script, monkeypatch, capsys)
    assert rc == 0
    first = out.split("Your move>")[0]
    assert "Hand:" in first and "Discard top:" in first and "1. draw from the stock" in first
    assert "I do not understand 'hello'." in out and "There is no move 99." in out and "Nothing typed." in out
    assert out.count(HINT) == 5  # hello, 99, 0, ZZ, empty; 'moves' lists them again instead
    assert "You: draw from the stock" in out
    assert "=== Round 1 over:" in out and "penalties" in out and "Session over. Totals:" in out
    assert "Winner(s):" in out
    # the same seed and input give the same transcript
    rc2, out2, _ = _run_cli(argv, script, monkeypatch, capsys)
    assert rc2 == 0 and out2 == out


def _discard_scenario() -> dict:
    # P0 has drawn (phase act, round 1: two groups); the other hands are filler
    return {
        "profile": "contract",
        "round": 1,
        "rounds": [1],
        "dealer": 3,
        "phase": "act",
        "current_player": 0,
        "hands": [
            ["7C", "10H", "3S", "4D", "9C", "QS", "KH", "2D", "5S", "8H", "JC"],
            ["2C", "5D", "9H", "QC", "3H", "6S", "10D", "KS", "4C", "8D"],
            ["3C", "6D", "10S", "KC", "4H", "7S", "JD", "AH", "5C", "9D"],
            ["4S", "8C", "JH", "AD", "6C", "9S", "QD", "2H", "6H", "10C"],
        ],
    }


def test_cards_typed_for_discards() -> None:
    out = io.StringIO()
    res = play("contract", ["random", "random", "random"], seed=0, stdin=io.StringIO("AS\n7c\n"), stdout=out,
               scenario=_discard_scenario())  # fmt: skip
    text = out.getvalue()
    assert "You do not hold A♠." in text and "You: discard 7♣" in text
    assert res["quit"] and "You left the game." in text  # the input ran out at the next decision
    out = io.StringIO()
    play("contract", ["random"] * 3, stdin=io.StringIO("10♥\n"), stdout=out, scenario=_discard_scenario())
    assert "You: discard 10♥" in out.getvalue()


def test_words_for_draws_and_quit() -> None:
    out = io.StringIO()
    res = play("contract", ["random"] * 3, seed=1, stdin=io.StringIO("stock\nquit\n"), stdout=out, rounds=(1,))
    text = out.getvalue()
    assert "You: draw from the stock" in text and res == {"quit": True, "scores": [0, 0, 0, 0], "winners": None}


def test_play_at_another_seat_and_a_payment_profile(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    argv = ["--profile", "continental", "--opponents", "random", "random", "random", "--seat", "2", "--deals", "1"]
    argv += ["--seed", "0"]
    rc, out, _ = _run_cli(argv, "1\n" * 2000, monkeypatch, capsys)
    assert rc == 0 and "you are P2" in out and "=== Deal 1 over:" in out and "payments" in out


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--opponents", "random"], "seats exactly 4 players; 2 players is impossible"),
        (["--opponents", "random", "wizard", "random"], "opponent 'wizard' cannot be loaded"),
        (["--opponents", "random", "random", "random", "--seat", "4"], "seat 4 does not exist"),
    ],
)
def test_play_refuses_with_a_clear_message(argv, message, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    rc, _, err = _run_cli(argv, "", monkeypatch, capsys)
    assert rc != 0 and message in err


def test_console_entry_point_with_piped_input() -> None:
    cmd = "-m rummy_env.cli play --opponents heuristic random random --rounds 1 --seed 0".split()
    proc = subprocess.run(
        [sys.executable, *cmd],
        input="2\nquit\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "You: take" in proc.stdout and "You left the game." in proc.stdout


def test_the_seed_is_printed_with_the_command_that_replays_the_game(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """``rummy play`` names its seed at the start -- without ``--seed`` it is 0 -- and the command line that deals
    the same game; that command replays it move for move."""
    script = "1\n" * 3000
    argv = ["--opponents", "random", "random", "random", "--rounds", "1", "--seat", "1"]
    rc, out, err = _run_cli(argv, script, monkeypatch, capsys)
    assert rc == 0 and err == ""
    first, rest = out.split("\n", 1)
    m = re.fullmatch(r"Seed (\d+)\. The same game again: (.*)", first)
    assert m, first
    seed, command = m[1], m[2]
    assert seed == "0"
    want = f"rummy play --profile contract --opponents random random random --seat 1 --seed {seed} --rounds 1"
    assert command == want
    rc, out2, _ = _run_cli(command.split()[2:], script, monkeypatch, capsys)
    first2, rest2 = out2.split("\n", 1)
    assert rc == 0 and first2 == f"Seed {seed}. The same game again: {command}" and rest2 == rest
    rc, out3, err = _run_cli(["--opponents", "random", "wizard", "random"], "", monkeypatch, capsys)
    assert rc == 2 and out3 == "" and "wizard" in err  # a refusal comes before any seed is printed


#: runs the ``rummy`` command as if torch were not installed (``import torch`` raises ImportError)
WITHOUT_TORCH = (
    "import sys; sys.modules['torch'] = None; from rummy_env.cli.commands import main; sys.exit(main(sys.argv[1:]))"
)


def test_a_checkpoint_opponent_without_torch_is_one_line_with_the_install_hint() -> None:
    """Issue 38: ``rummy play --opponents checkpoint:contract ...`` without torch ended in a traceback; it is one line
    on stderr naming the opponent, with the ImportError's install hint, exit code 2, before the game starts."""
    argv = ["play", "--opponents", "checkpoint:contract", "heuristic", "heuristic", "--rounds", "1"]
    proc = subprocess.run([sys.executable, "-c", WITHOUT_TORCH, *argv], input="", capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == "", (proc.stdout, proc.stderr)
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.startswith("rummy: error: opponent 'checkpoint:contract' cannot be loaded: ")
    assert "needs torch" in proc.stderr and "pip install" in proc.stderr


def test_play_refusals_are_play_errors() -> None:
    """A game that cannot start raises ``PlayError``, a ``ValueError`` (the CLI prints it on one line, exit 2)."""
    from rummy_env.cli.play import PlayError, TerminalGame

    assert issubclass(PlayError, ValueError)
    with pytest.raises(PlayError, match="opponent 'wizard' cannot be loaded"):
        TerminalGame("contract", ["random", "wizard", "random"], stdin=io.StringIO(""), stdout=io.StringIO())
    with pytest.raises(PlayError, match="seat 7 does not exist"):
        TerminalGame("contract", ["random"] * 3, seat=7, stdin=io.StringIO(""), stdout=io.StringIO())
