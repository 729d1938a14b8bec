"""Game logs and the replay (rummy_env.replay, docs/guides/watching.md): a recorded log re-plays through the engine to the
recorded results, logging does not change the game, bad or foreign logs are refused with a clear error, and
``rummy tournament --save-games`` writes one log per session."""

from __future__ import annotations

import copy
import json
import re

import pytest

from rummy_env.cli.commands import main
from rummy_env.evaluation.match import MatchRunner, SessionPlan
from rummy_env.replay import FORMAT, VERSION, GameLogError, read_log, record_game, render_html, replay, save_log

CASES = [
    ("contract", ["heuristic", "random", "heuristic", "random"], (1, 2)),
    ("contract_gamerules", ["heuristic", "random", "heuristic"], (1, 2)),
    ("continental", ["heuristic", "random", "random", "heuristic"], 2),
]


@pytest.fixture(scope="module")
def logs() -> dict[str, dict]:
    return {profile: record_game(profile, entrants, seed=11, rounds=rounds) for profile, entrants, rounds in CASES}


@pytest.mark.parametrize("profile,entrants,rounds", CASES)
def test_round_trip_reproduces_results(logs, profile, entrants, rounds, tmp_path):
    log = logs[profile]
    path = save_log(log, tmp_path / "game.json")
    assert read_log(path) == log  # JSON round trip of the file
    # the same session played without a log: logging changes nothing, and the replay reproduces it
    n = len(entrants)
    plan = SessionPlan(
        index=0, deal_set=0, table=0, rotation=0, seats=tuple(range(n)), deal_seed=11, seed=11, duplicate=False
    )
    plain = MatchRunner(profile, n, entrants, {"rounds": rounds}).play(plan)
    assert "game_log" not in plain
    rep = replay(path)
    assert rep.totals == log["totals"] == plain["totals"]
    assert [r["penalties"] if "penalties" in r else r["payments"] for r in rep.round_results] == plain["round_scores"]
    assert rep.round_results == log["round_results"]
    assert rep.winners == log["winners"] == plain["winners"]
    assert log["format"] == FORMAT and log["version"] == VERSION
    assert log["entrants"] == entrants and log["seed"] == 11 and log["num_players"] == n
    assert len(log["actions"]) == plain["decisions"]
    assert len(log["rounds"]) == len(log["round_results"])
    # every action is listed with its seat and action_info, in rounds 0, 1, ...
    assert [a["round"] for a in log["actions"]] == sorted(a["round"] for a in log["actions"])
    assert {a["round"] for a in log["actions"]} == set(range(len(log["rounds"])))
    assert all(isinstance(a["info"]["kind"], str) for a in log["actions"])
    # frames: a deal per round, one per action, a final one with the totals
    kinds = [f["kind"] for f in rep.frames]
    assert kinds.count("deal") == len(log["rounds"]) and kinds.count("round_end") == len(log["round_results"])
    assert len(rep.frames) == 1 + len(log["actions"]) + len(log["rounds"]) - 1 + 1
    assert rep.frames[-1]["kind"] == "final" and rep.frames[-1]["scores"] == log["totals"]


def test_frames_follow_the_game(logs):
    rep = replay(logs["contract"])
    first = rep.frames[0]
    assert first["hands"] == rep.log["initial_state"]["hands"] and first["move"] is None
    moves = [f for f in rep.frames if f["move"] is not None]
    assert [m["move"]["action"] for m in moves] == [a["action"] for a in rep.log["actions"]]
    assert [m["move"]["seat"] for m in moves] == [a["seat"] for a in rep.log["actions"]]
    # per-seat tallies of the round: buys counted from the logged buy actions
    buys = [0] * 4
    for a in rep.log["actions"]:
        if a["round"] == 0 and a["info"]["kind"] == "buy":
            buys[a["seat"]] += 1
    end0 = next(f for f in rep.frames if f["kind"] == "round_end")
    assert end0["tally"]["buys"] == buys
    assert any(m["table"] for m in moves), "melds on the table by owner"


def test_round_end_frames_show_the_scores_after_the_round(logs):
    rep = replay(logs["contract_gamerules"])
    ends = [f for f in rep.frames if f["kind"] == "round_end"]
    running = [0] * rep.log["num_players"]
    for f, r in zip(ends, rep.round_results):
        running = [a + b for a, b in zip(running, r["penalties"])]
        assert f["scores"] == running and f["results_done"] == r["round"]


def test_rule_overrides_and_player_counts_round_trip():
    log = record_game("contract", ["heuristic", "random"] * 2, seed=1, rounds=(1,), buying=False, turn_cap=300)
    assert log["rules"]["buying"] is False and log["rules"]["turn_cap"] == 300
    assert all(a["info"]["kind"] != "buy" for a in log["actions"])
    assert replay(log).totals == log["totals"]
    five = record_game("contract_gamerules", ["random"] * 5, seed=1, rounds=(1,))
    assert five["num_players"] == 5 and five["rules"]["decks"] == 2  # the five-player pack
    assert replay(five).totals == five["totals"]


def test_html_is_self_contained(logs):
    page = render_html(logs["continental"])
    assert page.startswith("<!DOCTYPE html>")
    assert "http:" not in page and "https:" not in page and "//cdn" not in page
    assert "@import" not in page and "url(" not in page
    # every src / href is inline data
    assert all(v.startswith("data:") for v in re.findall(r'(?:src|href)="([^"]*)"', page))
    data = json.loads(re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', page, re.S)[1])
    assert data["totals"] == logs["continental"]["totals"] and len(data["frames"]) > 2


def _write(tmp_path, data) -> str:
    path = tmp_path / "bad.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def _tampered(log: dict, how: str) -> dict:
    bad = copy.deepcopy(log)
    if how == "format":
        bad["format"] = "openspiel.trajectory"
    elif how == "version":
        bad["version"] = 99
    elif how == "missing":
        del bad["actions"]
    elif how == "illegal":
        bad["actions"][3]["action"] = 10**6
    elif how == "seat":
        bad["actions"][3]["seat"] = (bad["actions"][3]["seat"] + 1) % bad["num_players"]
    elif how == "info":
        bad["actions"][2]["info"] = {"kind": "go_out"}
    elif how == "cut":
        del bad["actions"][-5:]
    elif how == "extra":
        bad["actions"].append(dict(bad["actions"][-1]))
    elif how == "totals":
        bad["totals"][0] += 1
    elif how == "deal":
        bad["rounds"][1]["dealt"]["scores"][0] += 5
    elif how == "redeal":
        bad["rounds"][1]["redealt"] = True
        bad["rounds"][1]["dealt"]["scores"][0] += 5
    elif how == "rules":
        bad["rules"]["turn_cap"] = "many"
    return bad


@pytest.mark.parametrize(
    "how,words",
    [
        ("format", ["not a rummy_env game log", "'openspiel.trajectory'", FORMAT]),
        ("version", ["version 99", "reads versions [1]"]),
        ("missing", ["without 'actions'"]),
        ("illegal", ["actions[3]", "illegal", "legal actions"]),
        ("seat", ["actions[3]", "is to move"]),
        ("info", ["actions[2]", "the log says"]),
        ("cut", ["truncated", "not over"]),
        ("extra", ["the session ends after", "the log has"]),
        ("totals", ["totals", "differ"]),
        ("deal", ["rounds[1]", "differs"]),
        ("redeal", ["rounds[1]", "a redeal may replace only", "scores"]),
        ("rules", ["'rules' cannot be built", "turn_cap"]),
    ],
)
def test_bad_logs_are_refused(logs, how, words, tmp_path, capsys):
    bad = _tampered(logs["contract"], how)
    with pytest.raises(GameLogError) as exc:
        replay(bad)
    for w in words:
        assert w in str(exc.value), (w, str(exc.value))
    assert isinstance(exc.value, ValueError)
    # the CLI prints it as one line, exit code 2, no traceback
    assert main(["replay", _write(tmp_path, bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rummy: error: ") and "Traceback" not in err and words[0] in err


@pytest.mark.parametrize(
    "text,words",
    [
        ("", ["not JSON", "the file is empty"]),
        ('{"format": "rummy_env.game_log", "version": 1, "actions": [', ["not JSON", "truncated"]),
        ("<html>not a log</html>", ["not JSON", "rummy record"]),
        ("[1, 2, 3]", ["JSON object", "list"]),
    ],
)
def test_files_that_are_not_logs(text, words, tmp_path, capsys):
    path = _write(tmp_path, text)
    with pytest.raises(GameLogError) as exc:
        read_log(path)
    for w in words:
        assert w in str(exc.value)
    assert main(["replay", path, "--html", str(tmp_path / "x.html")]) == 2
    assert "Traceback" not in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists()


def test_truncated_file(logs, tmp_path, capsys):
    text = json.dumps(logs["continental"])
    path = _write(tmp_path, text[: len(text) // 2])
    assert main(["replay", path]) == 2
    err = capsys.readouterr().err
    assert "not JSON" in err and "truncated" in err
    assert main(["replay", str(tmp_path / "missing.json")]) == 2
    assert "cannot read game log" in capsys.readouterr().err


def test_cli_record_and_replay(tmp_path, capsys):
    out, page = tmp_path / "g" / "game.json", tmp_path / "game.html"
    args = ["record", "--profile", "continental", "--entrants", "heuristic", "random", "random", "random"]
    assert main([*args, "--seed", "4", "--rounds", "1", "--out", str(out)]) == 0
    log = json.loads(out.read_text())
    assert log["profile"] == "continental" and log["seed"] == 4 and len(log["round_results"]) == 1
    assert main(["replay", str(out), "--html", str(page)]) == 0
    said = capsys.readouterr().out
    assert "valid rummy_env.game_log v1" in said and str(page) in said
    assert page.read_text().startswith("<!DOCTYPE html>")
    # usage errors: one line, exit code 2, nothing played
    assert main([*args[:4], "heuristic", "--out", str(tmp_path / "x.json")]) == 2
    assert "one bot id per seat" in capsys.readouterr().err
    assert main([*args, "--out", str(tmp_path)]) == 2
    assert "--out" in capsys.readouterr().err
    assert main([*args, "--rounds", "1", "2", "--out", str(tmp_path / "y.json")]) == 2
    assert not (tmp_path / "x.json").exists() and not (tmp_path / "y.json").exists()


@pytest.mark.parametrize("workers", [1, 2])
def test_tournament_save_games_writes_one_log_per_session(tmp_path, capsys, workers):
    games, out = tmp_path / "games", tmp_path / "out"
    argv = ["tournament", "--profile", "continental", "--entrants", "heuristic", "random", "--sessions", "4"]
    argv += ["--rounds", "2", "--quiet", "--no-chart", "--workers", str(workers)]
    assert main([*argv, "--out", str(out), "--save-games", str(games)]) == 0
    results = json.loads((out / "tournament.json").read_text())
    files = sorted(games.iterdir())
    assert [f.name for f in files] == [f"session_{i:04d}.json" for i in range(results["sessions"])]
    assert "game_log" not in results["records"][0]
    for f, rec in zip(files, results["records"]):
        rep = replay(f)
        assert rep.totals == rec["totals"]
        assert rep.log["session"]["index"] == rec["session"] and rep.log["seed"] == rec["deal_seed"]
        assert rep.log["entrants"] == [results["specs"][e] for e in rec["seats"]]
        # duplicate deals: the second deal is the deal set's redeal, marked and checked
        assert [r["redealt"] for r in rep.log["rounds"]] == [False, True]
    assert "saved 4 game logs" in capsys.readouterr().out
    assert main([*argv, "--save-games", str(files[0])]) == 2
    assert "--save-games" in capsys.readouterr().err


def test_tournament_api_save_games(tmp_path):
    from rummy_env.tournament import tournament

    res = tournament("continental", ["heuristic", "random"], 4, seed=2, rounds=1, save_games=tmp_path / "logs")
    logs = sorted((tmp_path / "logs").iterdir())
    assert len(logs) == res["sessions"] == 4
    assert [replay(p).totals for p in logs] == [r["totals"] for r in res["records"]]
    with pytest.raises(ValueError, match="backend='local'"):
        tournament("continental", ["random", "random"], 1, rounds=1, backend="ray", save_games=tmp_path / "ray")
    assert not (tmp_path / "ray").exists()


def _page_data(tmp_path, profile: str, entrants: list[str], rounds) -> dict:
    """``rummy record`` then ``rummy replay --html`` of seed 0; the data embedded in the page."""
    log, page = tmp_path / f"{profile}.json", tmp_path / f"{profile}.html"
    args = ["record", "--profile", profile, "--entrants", *entrants, "--seed", "0", "--out", str(log)]
    assert main(args + ["--rounds", *map(str, rounds)]) == 0
    assert main(["replay", str(log), "--html", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    return json.loads(re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', text, re.S)[1])


@pytest.mark.parametrize(
    "profile,rounds,last_kind",
    [("continental", [1], "discard_declare"), ("contract", [7], "go_out")],
    ids=["continental-declare", "contract-round-7-go-out"],
)
def test_last_position_shows_the_hand_laid_out(tmp_path, capsys, profile, rounds, last_kind):
    """Issue 38: after 'go out: lay the whole hand as runs' (and continental's declaration) the page's last
    positions still showed the whole hand and no runs. The position that ends the round, and the final one, show
    the winner's hand empty and its runs on the table (continental: the runs of the declared hand)."""
    data = _page_data(tmp_path, profile, ["heuristic"] * 4, rounds)
    capsys.readouterr()
    result = data["round_results"][-1]
    winner = result["winner"]
    assert result["reason"] == "out" and winner is not None
    end, final = data["frames"][-2:]
    assert end["kind"] == "round_end" and final["kind"] == "final"
    assert end["move"]["kind"] == last_kind and end["move"]["seat"] == winner
    for f in (end, final):
        assert f["hands"][winner] == []
        runs = [m["cards"] for m in f["table"] if m["owner"] == winner and m["kind"] == "run"]
        assert len(runs) >= 3
        if profile == "continental":
            assert runs == result["melds"]
    before = data["frames"][-3]  # the position before the going-out move still holds the cards
    assert len(before["hands"][winner]) > 0 and all(m["owner"] != winner for m in before["table"])
