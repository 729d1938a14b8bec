"""Smoke test of an installed wheel, run by ``tests/test_packaging.py`` with the python of a fresh virtual
environment that holds the wheel and its dependencies but no torch and no repository (``python -I``, so neither the
current directory nor this file's folder is on ``sys.path``).

Usage: ``VENV/bin/python -I packaging_smoke.py WORKDIR``. Prints one ``ok: ...`` line per check and exits 0, or
raises at the first failure.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

QUICK = {"contract": {"rounds": (1,)}, "contract_gamerules": {"rounds": (1,)}, "continental": {"deals": 1}}


def check_import() -> None:
    import rummy_env

    where = Path(rummy_env.__file__).resolve()
    assert "site-packages" in where.parts, f"rummy_env imported from {where}, not from the virtual environment"
    assert importlib.util.find_spec("torch") is None, "torch is installed: this must be the core install"
    print(f"ok: rummy_env from {where.parent} ({rummy_env.implementation()})")


def check_envs_and_bots() -> None:
    import numpy as np

    import rummy_env
    from rummy_env import bots

    for profile, config in QUICK.items():
        env = rummy_env.make(profile, **config)
        env.reset(seed=1)
        players = {a: bots.load("heuristic" if i % 2 else "random", seed=i) for i, a in enumerate(env.agents)}
        steps = 0
        for agent in env.agent_iter(5_000):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                action = None
            else:
                action = players[agent].act(env, agent)
                assert obs["action_mask"][action] == 1, f"{profile}: a bot chose an illegal action"
            env.step(action)
            steps += 1
        assert steps > 10, f"{profile}: only {steps} steps"
        print(f"ok: {profile} env, random and heuristic bots, {steps} steps, mask {np.asarray(obs['action_mask']).shape}")


def check_shipped_checkpoints() -> None:
    from rummy_env.models.checkpoints import read_metadata, shipped_dir, shipped_names

    folder = shipped_dir()
    assert folder is not None and "site-packages" in folder.parts, f"shipped checkpoints not in the package: {folder}"
    assert shipped_names() == ("continental", "contract", "contract_gamerules"), shipped_names()
    for name in shipped_names():
        meta = read_metadata(name)  # no torch needed: hashes, sizes and layout
        assert meta["profile"] == name, meta["profile"]
    print(f"ok: shipped checkpoints by name from {folder}")

    from rummy_env import bots

    try:
        bots.load("checkpoint:contract", seed=0)
    except ImportError as e:
        assert "torch" in str(e) and "pip install" in str(e), f"no install hint: {e}"
        print(f"ok: checkpoint bot without torch says: {e}")
    else:
        raise AssertionError("a checkpoint bot loaded without torch")


def rummy(work: Path, *args: str, stdin: str | None = None, expect: int = 0) -> str:
    exe = Path(sys.executable).with_name("rummy")
    done = subprocess.run(
        [str(exe), *args], cwd=work, input=stdin, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == expect, f"rummy {' '.join(args)}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


def check_cli(work: Path) -> None:
    rummy(work, "run", "--sessions", "2", "--seed", "1")
    print("ok: rummy run")
    rummy(
        work, "record", "--profile", "contract", "--entrants", "heuristic", "random", "heuristic", "random",
        "--seed", "3", "--rounds", "1", "--out", "game.json",
    )
    assert json.loads((work / "game.json").read_text())["profile"] == "contract"
    rummy(work, "replay", "game.json", "--html", "game.html")
    assert (work / "game.html").stat().st_size > 1000
    print("ok: rummy record / replay --html")
    rummy(
        work, "tournament", "--profile", "contract", "--entrants", "heuristic", "random", "--sessions", "4",
        "--rounds", "1", "--seed", "1", "--out", "tourn", "--quiet",
    )
    assert (work / "tourn" / "tournament.json").is_file(), sorted(os.listdir(work / "tourn"))
    print("ok: rummy tournament")
    out = rummy(work, "play", "--profile", "contract", "--opponents", "heuristic", "random", "random", "--rounds", "1",
                "--seed", "1", stdin="quit\n")
    assert "score" in out.lower(), out[-500:]
    print("ok: rummy play")
    out = rummy(work, "tournament", "--profile", "contract", "--entrants", "heuristic", "checkpoint:contract",
                "--sessions", "4", "--out", "t2", expect=2)
    assert "torch" in out, out
    print("ok: a checkpoint entrant without torch is one line, exit 2")


def main() -> None:
    work = Path(sys.argv[1]).resolve()
    work.mkdir(parents=True, exist_ok=True)
    check_import()
    check_envs_and_bots()
    check_shipped_checkpoints()
    check_cli(work)
    print("ok: all")


if __name__ == "__main__":
    main()
