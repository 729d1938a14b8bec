"""Hostile inputs to the files the package reads and the rules it builds (issue 40, points 2-4 and 6-9): each is refused
at once with the package's own ``ValueError`` subclass -- one line naming what is wrong and what is allowed --, never
a traceback, a hang or a large allocation, and no command writes over its own input.

| point | input | refused with |
|---|---|---|
| 2 | ``rummy replay game.json --html game.json``; ``rummy record --out`` a checkpoint it plays | ``OutputFileError``, before any work; writes atomic |
| 3 | a checkpoint whose ``env_config`` builds a huge env, or was edited | ``CheckpointError``, before any env is built |
| 4 | a game log whose ``rules`` are out of bounds (``decks=100000``) | ``GameLogError``, a short message |
| 6 | a game log or a ``--scenario`` that is a FIFO, ``/dev/zero``, or too large | ``GameLogError`` / ``PlayError`` |
| 7 | a log nested 200,000 deep, an integer of 5,000 digits | ``GameLogError`` |
| 8 | a field of the wrong type anywhere in a log (``rounds[1].index = [1]``, ``actions[3].seat = 1.0``) | ``GameLogError`` |
| 9 | ``rummy play``: a move number of 4,301 digits | a hint; the session goes on |
"""

from __future__ import annotations

import copy
import dataclasses
import io
import json
import os
import resource
import shutil
import subprocess
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import pytest

from rummy_env.cli.commands import main
from rummy_env.cli.play import PlayError, play
from rummy_env.core.files import OutputFileError
from rummy_env.evaluation.game_log import LOG_KEYS
from rummy_env.models.checkpoints import (
    ENV_ARGS,
    CheckpointError,
    CheckpointFormatWarning,
    check_env_config,
    load_checkpoint,
    read_metadata,
    shipped_dir,
    shipped_names,
)
from rummy_env.registry import GAMES, game
from rummy_env.replay import GameLogError, read_log, record_game, replay, save_log, write_html
from rummy_env.rules import PROFILES, get_rules
from rummy_env.rules.bounds import CONTINENTAL_BOUNDS, CONTRACT_BOUNDS, RulesError, bound_of

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def log() -> dict:
    """A short contract session (one round, 159 actions) with draws from the discard pile."""
    out = record_game("contract", ["heuristic"] * 4, seed=1, rounds=(1,))
    assert any(a["info"]["kind"] == "draw_discard" for a in out["actions"])
    return out


def _log_file(tmp_path: Path, data, name: str = "game.json") -> Path:
    p = tmp_path / name
    p.write_text(data if isinstance(data, str) else json.dumps(data))
    return p


def _refused_by_cli(capsys, argv: list[str], *words: str) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("rummy: error: ") and "Traceback" not in err and err.count("\n") == 1, err[:500]
    for w in words:
        assert w in err, (w, err[:500])
    return err


def _memory_limit(memory_mb: int):
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))

    return limit


def _cli(args: list[str], stdin: str = "", timeout: float = 60, memory_mb: int = 1500) -> subprocess.CompletedProcess:
    """``rummy ARGS`` in a child process with at most ``memory_mb`` of address space (a read without bound fails
    there, not in the test process) and a wall-clock ``timeout`` (a read that blocks fails the test)."""
    return subprocess.run(
        [sys.executable, "-m", "rummy_env.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=_memory_limit(memory_mb),
        cwd=ROOT,
    )


# ----------------------------------------------------------------------------------------------------------------
# 2. No command writes over one of its own inputs; writes are atomic
# ----------------------------------------------------------------------------------------------------------------


def test_replay_refuses_a_page_that_is_its_own_log(log, tmp_path, capsys) -> None:
    path = _log_file(tmp_path, log)
    before = path.read_bytes()
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.json").symlink_to(path)
    for page in (path, tmp_path / "sub" / ".." / "game.json", tmp_path / "link.json"):
        _refused_by_cli(capsys, ["replay", str(path), "--html", str(page)], "--html", "would be overwritten")
        assert path.read_bytes() == before
    with pytest.raises(OutputFileError, match="would be overwritten"):
        write_html(path, path)
    with pytest.raises(OutputFileError):
        write_html(replay(path), tmp_path / "link.json")  # a Replay remembers the file it was read from
    assert path.read_bytes() == before and isinstance(OutputFileError("x"), ValueError)
    assert main(["replay", str(path), "--html", str(tmp_path / "game.html")]) == 0  # another file is fine
    assert (tmp_path / "game.html").read_text().startswith("<!DOCTYPE html>")


def test_record_refuses_to_write_over_a_checkpoint_it_plays(tmp_path, capsys) -> None:
    folder = shipped_dir()
    for suffix in (".json", ".safetensors"):
        shutil.copy(folder / f"contract{suffix}", tmp_path / f"contract{suffix}")
    meta = tmp_path / "contract.json"
    before = meta.read_bytes()
    args = ["record", "--entrants", f"checkpoint:{tmp_path / 'contract'}@sample", "random", "random", "random"]
    _refused_by_cli(capsys, [*args, "--rounds", "1", "--out", str(meta)], "--out", "would be overwritten")
    assert meta.read_bytes() == before


def test_log_and_page_writes_are_atomic(log, tmp_path, monkeypatch) -> None:
    """A write that fails at the end (a full disk, here ``fsync`` failing) leaves the old file whole, and no
    temporary file behind; a finished write has the mode a plain write gives."""
    path = tmp_path / "game.json"
    save_log(log, path)
    before = path.read_bytes()
    assert (path.stat().st_mode & 0o777) == 0o666 & ~_umask()

    def disk_full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    other = dict(log, seed=log["seed"] + 1)
    with pytest.raises(OSError, match="No space"):
        save_log(other, path)
    page = tmp_path / "game.html"
    page.write_text("old page")
    with pytest.raises(OSError, match="No space"):
        write_html(log, page)
    assert path.read_bytes() == before and page.read_text() == "old page"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.html", "game.json"]


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# ----------------------------------------------------------------------------------------------------------------
# 3. A checkpoint's env_config: bounded before anything is built, covered by the integrity check
# ----------------------------------------------------------------------------------------------------------------


def _shipped_copy(tmp_path: Path, name: str = "contract", **env_config) -> Path:
    for suffix in (".json", ".safetensors"):
        shutil.copy(shipped_dir() / f"{name}{suffix}", tmp_path / f"{name}{suffix}")
    if env_config:
        p = tmp_path / f"{name}.json"
        meta = json.loads(p.read_text())
        meta["env_config"] = env_config
        p.write_text(json.dumps(meta))
    return tmp_path / name


def _cost(fn) -> tuple[float, float, Exception | None]:
    """(seconds, peak MB of Python allocations, the exception raised) of ``fn()``."""
    tracemalloc.start()
    t = time.perf_counter()
    err = None
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - returned to the test
        err = e
    seconds = time.perf_counter() - t
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return seconds, peak, err


def test_env_config_that_would_build_a_huge_env_is_refused_first(tmp_path) -> None:
    # the issue: {"decks": 600, "extra_melds_after_opening": true} took 38 s and 1.43 GB before the refusal (60 decks:
    # about a tenth of that; 600 and 3000 are in test_check_env_config_refusals)
    decks = 60
    path = _shipped_copy(tmp_path, num_players=4, decks=decks, extra_melds_after_opening=True)
    load_checkpoint("contract")  # torch and the modules imported, so the cost below is the check's alone
    seconds, peak, err = _cost(lambda: load_checkpoint(path))
    assert isinstance(err, CheckpointError), err
    assert f"decks={decks}" in str(err) and "allowed 1..8" in str(err) and "does not make an env" in str(err)
    assert peak < 10, (seconds, peak)
    with pytest.raises(CheckpointError, match=f"decks={decks}"):
        read_metadata(path)  # what --resume, warm starts and the training config check read


def test_an_edited_env_config_is_refused(tmp_path) -> None:
    # a shipped checkpoint (saved before env_config had a header copy) is compared with its manifest entry
    path = _shipped_copy(tmp_path, num_players=4, turn_cap=1)
    with pytest.raises(CheckpointError, match="the shipped checkpoint has env_config=.*the JSON was edited"):
        load_checkpoint(path)
    # a checkpoint saved now carries the copy in its weights header
    from rummy_env.models.checkpoints import reexport_checkpoint

    new = tmp_path / "new"
    reexport_checkpoint("continental", out=new)
    meta = read_metadata(new)
    assert meta["env_config"] == {"num_players": 4}
    p = new.with_suffix(".json")
    p.write_text(json.dumps(dict(meta, env_config={"num_players": 4, "base_payment": 2})))
    with pytest.raises(CheckpointError, match="weights were saved with env_config=.*the JSON was edited"):
        load_checkpoint(new)


@pytest.mark.parametrize("name", shipped_names())
def test_shipped_checkpoints_load_without_a_warning(name) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", CheckpointFormatWarning)
        assert load_checkpoint(name).profile == name


@pytest.mark.parametrize(
    "env_config,words",
    [
        ({"no_such_argument": 1}, ["unknown argument", "no_such_argument"]),
        ({f"k{i}": 1 for i in range(100)}, ["100 keys", "at most 64"]),
        ({"rounds": [1] * 100_000}, ["100000 entries", "at most 64"]),
        ({"rounds": "x"}, ["rounds='x'"]),
        ({"hand_sizes": [[10]] * 7}, ["hand_sizes[0]=(10,)"]),
        ({"turn_cap": 10**60}, ["turn_cap=", "allowed 1..10,000"]),
        ({"decks": 600, "extra_melds_after_opening": True}, ["decks=600 (allowed 1..8)"]),
        ({"decks": 3000, "extra_melds_after_opening": True}, ["decks=3000 (allowed 1..8)"]),
        ({"render_mode": {"a": 1}}, ["render_mode="]),
        ({"contracts": [[2, 0]] * 7, "hand_sizes": [1000] * 7}, ["hand_sizes[0]=1000"]),
    ],
)
def test_check_env_config_refusals(env_config, words) -> None:
    _, peak, err = _cost(lambda: check_env_config("contract", 4, env_config))
    assert isinstance(err, CheckpointError), err
    assert "does not make an env" in str(err) and len(str(err)) < 1200 and peak < 5, peak
    for w in words:
        assert w in str(err), (w, str(err))


def test_env_args_are_the_make_arguments() -> None:
    import inspect

    taken = set()
    for g in GAMES.values():
        taken |= set(inspect.signature(g.env_module_obj().raw_env.__init__).parameters)
    taken -= {"self", "kwargs", "rule_overrides"}
    assert taken == set(ENV_ARGS)


# ----------------------------------------------------------------------------------------------------------------
# 4. Every rules field has bounds, checked before anything is built, with short messages
# ----------------------------------------------------------------------------------------------------------------


def test_a_log_with_rules_out_of_bounds_is_refused_at_once(log, tmp_path) -> None:
    # the issue: decks=10000 took 10 s and 199 MB; decks=100000 printed a 16 MB error listing 5.2M cards
    for decks in (10_000, 100_000):
        bad = copy.deepcopy(log)
        bad["rules"]["decks"] = decks
        path = _log_file(tmp_path, bad)
        if decks == 10_000:
            seconds, peak, err = _cost(lambda: replay(bad))  # noqa: B023 - called at once
            assert isinstance(err, GameLogError), err
            assert f"decks={decks} (allowed 1..8)" in str(err) and len(str(err)) < 400
            assert peak < 5, (seconds, peak)
        done = _cli(["replay", str(path)])
        assert done.returncode == 2 and f"decks={decks} (allowed 1..8)" in done.stderr and len(done.stderr) < 400


def _fields(profile: str) -> list[str]:
    return [f.name for f in dataclasses.fields(PROFILES[profile])]


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_every_rules_field_has_an_upper_bound_and_a_type(profile) -> None:
    rules = PROFILES[profile]
    table = CONTINENTAL_BOUNDS if profile == "continental" else CONTRACT_BOUNDS
    for name in _fields(profile):
        b = bound_of(type(rules), name)
        if b.kind == "bool":
            assert isinstance(getattr(rules, name), bool), name
            bad = [1, "yes", None]
        elif b.kind in ("int", "int?"):
            bad = [b.high + 1, b.low - 1, 10**5000, 2.0, True, "3"]
        elif b.kind == "str":
            bad = ["x" * (b.high + 1), 3]
        else:
            bad = [[], [[1]] * (b.count[1] + 1), "abc", [[b.high + 1] * 2], 5]
        assert name in table or b.kind == "bool", name
        for value in bad:
            _, peak, err = _cost(lambda: get_rules(profile, **{name: value}))  # noqa: B023 - called at once
            assert isinstance(err, RulesError), (name, value, err)
            assert f"{name}" in str(err) and "allowed" in str(err) and len(str(err)) < 300, str(err)[:500]
            assert peak < 1, (name, peak)


def test_rules_accept_lists_and_numpy_integers_and_store_tuples() -> None:
    import numpy as np

    r = get_rules("contract", hand_sizes=[10] * 7, contracts=[[2, 0]] * 7, decks=np.int64(3))
    assert r.hand_sizes == (10,) * 7 and r.contracts == ((2, 0),) * 7 and type(r.decks) is int
    assert hash(r) == hash(get_rules("contract", hand_sizes=(10,) * 7, contracts=((2, 0),) * 7, decks=3))
    c = get_rules("continental", patterns=[[3, 3, 3, 3, 3]])
    assert c.patterns == ((3, 3, 3, 3, 3),)
    with pytest.raises(RulesError, match="group_max=2 is below group_min=3"):
        get_rules("contract", group_max=2)
    with pytest.raises(RulesError, match="unknown contract rule field"):
        get_rules("contract", **{"x" * 100_000: 1})


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_the_rules_documents_give_every_bound(profile) -> None:
    text = (ROOT / "docs" / "rules" / f"{profile}.md").read_text(encoding="utf-8")
    rows = {}
    for line in text.split("\n## Rules fields\n", 1)[1].split("\n## ", 1)[0].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].startswith("`"):
            rows[cells[0].strip("`")] = cells[2]
    rules = PROFILES[profile]
    assert {name: rows.get(name) for name in _fields(profile)} == {
        name: bound_of(type(rules), name).text() for name in _fields(profile)
    }


# ----------------------------------------------------------------------------------------------------------------
# 6. Unbounded reads: FIFOs, devices, huge files
# ----------------------------------------------------------------------------------------------------------------


def test_a_log_that_is_not_a_regular_file_or_too_large_is_refused(tmp_path) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate((64 << 20) + 1)  # sparse: no disk used
    seconds, peak, err = _cost(lambda: read_log(big))
    assert isinstance(err, GameLogError) and "at most 67108864 are allowed" in str(err), err
    assert peak < 5, (seconds, peak)
    # a FIFO blocked for ever and /dev/zero ended in MemoryError: in a child process, with a time and memory limit
    for path in (fifo, "/dev/zero"):
        done = _cli(["replay", str(path)], timeout=60)
        assert done.returncode == 2 and "not a regular file" in done.stderr and "Traceback" not in done.stderr
        code = f"from rummy_env.replay import read_log\ntry:\n    read_log({str(path)!r})\nexcept Exception as e:\n" \
               "    print(type(e).__name__, e)"  # fmt: skip
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                              preexec_fn=_memory_limit(1500), cwd=ROOT)  # fmt: skip
        assert done.stdout.startswith("GameLogError") and "not a regular file" in done.stdout, done.stdout[-300:]


def test_a_scenario_that_is_not_a_regular_file_is_refused(tmp_path) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    for path in (fifo, "/dev/zero"):
        done = _cli(["play", "--opponents", "random", "random", "random", "--scenario", str(path)], timeout=60)
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert "cannot read the scenario" in done.stderr and "not a regular file" in done.stderr


def test_a_scenario_that_is_not_bounded_json_is_a_play_error(tmp_path, monkeypatch, capsys) -> None:
    deep = _log_file(tmp_path, "[" * 100_000 + "]" * 100_000, "deep.json")
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    err = _refused_by_cli(capsys, ["play", "--opponents", "random", "random", "random", "--scenario", str(deep)])
    assert "nested more than 64" in err
    assert issubclass(PlayError, ValueError)


# ----------------------------------------------------------------------------------------------------------------
# 7. Nesting and huge integers
# ----------------------------------------------------------------------------------------------------------------


def test_a_log_nested_200000_deep_is_a_game_log_error(log, tmp_path, capsys) -> None:
    text = json.dumps(log)[:-1] + ', "x": ' + "[" * 200_000 + "]" * 200_000 + "}"
    path = _log_file(tmp_path, text)
    for fn in (read_log, replay):
        with pytest.raises(GameLogError, match="nested more than 64 levels"):
            fn(path)
    _refused_by_cli(capsys, ["replay", str(path)], "nested more than 64")
    # a dict handed over by Python, nested as deep (built without recursion)
    deep: list = []
    inner = deep
    for _ in range(200_000):
        inner.append([])
        inner = inner[0]
    bad = copy.deepcopy(log)
    bad["rules"] = dict(bad["rules"], decks=deep)
    with pytest.raises(GameLogError, match="nested more than 64 levels"):
        replay(bad)


def test_a_5000_digit_integer_is_a_game_log_error(log, tmp_path, capsys) -> None:
    text = json.dumps(log).replace('"seed": 1,', '"seed": ' + "9" * 5000 + ",", 1)
    assert "9" * 5000 in text
    path = _log_file(tmp_path, text)
    for fn in (read_log, replay):
        with pytest.raises(GameLogError, match="an integer of 5000 digits; at most 64"):
            fn(path)
    _refused_by_cli(capsys, ["replay", str(path)], "5000 digits")


# ----------------------------------------------------------------------------------------------------------------
# 8. Every field of the log format has its type checked
# ----------------------------------------------------------------------------------------------------------------


def _first(log: dict, kind: str) -> int:
    return next(i for i, a in enumerate(log["actions"]) if a["info"]["kind"] == kind)


@pytest.mark.parametrize(
    "where,value,words",
    [
        (("rounds", 0, "index"), [0], ["rounds[0].index", "[0]"]),
        (("actions", "draw_discard", "seat"), "float", [".seat must be a seat number 0..3"]),
        (("actions", "draw_discard", "seat"), True, [".seat must be a seat number"]),
        (("actions", 0, "seat"), 4, ["actions[0].seat must be a seat number 0..3, got 4"]),
        (("actions", 0, "action"), "0", ["actions[0].action", "'0'"]),
        (("actions", 0, "round"), 0.0, ["actions[0].round"]),
        (("actions", 0, "info"), [], ["actions[0].info must be an object"]),
        (("rounds", 0, "redealt"), 0, ["rounds[0].redealt must be true or false"]),
        (("rounds", 0, "round"), 0, ["rounds[0].round must be a round number"]),
        (("players",), [1, 2, 3, 4], ["'players' must be a list of strings"]),
        (("seed",), -1, ["'seed' must be a non-negative integer"]),
        (("num_players",), 10**9, ["'num_players' must be a table size"]),
        (("totals",), ["a", 0, 0, 0], ["'totals' must be a list of integers"]),
        (("winners",), [9], ["'winners' must be a list of seats 0..3"]),
        (("session", "bot_seeds"), "x", ["'session'.bot_seeds"]),
        (("session", "duplicate"), "no", ["'session'.duplicate must be true or false"]),
        (("session_length",), ["abc"], ["'session_length'"]),
        (("round_results",), [1], ["'round_results' must be a list of objects"]),
        (("version",), True, ["version True is not known"]),
    ],
)
def test_mistyped_fields_are_game_log_errors(log, tmp_path, capsys, where, value, words) -> None:
    bad = copy.deepcopy(log)
    target = bad
    keys = list(where)
    if keys[0] == "actions" and isinstance(keys[1], str):
        keys[1] = _first(log, keys[1])
    for k in keys[:-1]:
        target = target[k]
    target[keys[-1]] = float(target[keys[-1]]) if value == "float" else value
    with pytest.raises(GameLogError) as exc:
        replay(bad)
    for w in words:
        assert w in str(exc.value), (w, str(exc.value))
    _refused_by_cli(capsys, ["replay", str(_log_file(tmp_path, bad))], words[0])


def test_rounds_out_of_order_or_repeated_are_refused(log) -> None:
    two = record_game("contract", ["heuristic"] * 4, seed=1, rounds=(1, 2))
    bad = copy.deepcopy(two)
    bad["rounds"][1]["index"] = 0
    with pytest.raises(GameLogError, match="in order of their 'index'"):
        replay(bad)


_JUNK = [None, True, 1.5, "x", [1], {}, -1, 10**30]


def test_any_junk_in_any_field_is_a_game_log_error_or_replays(log) -> None:
    """Every top-level key, every key of the first rounds and of a few actions (a draw, a pass, a meld, a discard)
    and every key of ``session``, each replaced by each junk value: ``replay`` raises ``GameLogError`` or replays
    the log -- never another exception."""
    paths = [(k,) for k in LOG_KEYS]
    paths += [("session", k) for k in log["session"]]
    paths += [("rounds", 0, k) for k in log["rounds"][0]]
    for kind in ("draw_stock", "draw_discard", "pass", "meld", "discard"):
        i = _first(log, kind)
        paths += [("actions", i, k) for k in log["actions"][i]]
    others = 0
    for path in paths:
        for value in _JUNK:
            bad = copy.deepcopy(log)
            target = bad
            for k in path[:-1]:
                target = target[k]
            target[path[-1]] = value
            try:
                replay(bad)
            except GameLogError as e:
                assert len(str(e)) < 2000
            except Exception as e:  # noqa: BLE001 - the assertion below names it
                others += 1
                pytest.fail(f"{path} = {value!r}: {type(e).__name__}: {str(e)[:300]}")
    assert others == 0


# ----------------------------------------------------------------------------------------------------------------
# 9. rummy play: a huge move number is bad input, not the end of the session
# ----------------------------------------------------------------------------------------------------------------


def test_a_huge_move_number_is_answered_with_a_hint() -> None:
    out = io.StringIO()
    typed = "1" * 4301 + "\n" + "²\n" + "9" * 10 + "\n" + "1\n" + "quit\n"
    res = play("contract", ["random"] * 3, seed=0, stdin=io.StringIO(typed), stdout=out, rounds=(1,))
    text = out.getvalue()
    assert text.count("There is no move") == 3 and "111111111111..." in text
    assert "Your move> 1\n" in text  # the session went on: move 1 was played after the bad input
    assert isinstance(res, dict)


def test_profiles_are_known() -> None:
    assert set(PROFILES) == set(GAMES) and all(game(p).base_rules is PROFILES[p] for p in PROFILES)
