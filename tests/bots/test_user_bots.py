"""A user's own bot: the bots guide's example (docs/guides/bots.md) runs as printed, ``py:MODULE.ATTR`` entrants load in ``bots.load``,
``rummy tournament`` and ``rummy play``, and every way a ``py:`` id can be wrong is a ``BotLoadError`` naming it."""

from __future__ import annotations

import io
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import rummy_env
from rummy_env import bots
from rummy_env.cli.commands import main as rummy_main
from rummy_env.cli.play import play

ROOT = Path(__file__).resolve().parents[2]


def readme_blocks() -> list[tuple[str, str]]:
    """The fenced code blocks (language, code) of the bots guide's section "Your own bot", in order."""
    text = (ROOT / "docs" / "guides" / "bots.md").read_text()
    start = text.index("## Your own bot")
    end = text.find("\n## ", start + 1)
    end = len(text) if end < 0 else end
    return re.findall(r"```(\w+)\n(.*?)```", text[start:end], re.S)


@pytest.fixture
def readme_bot(tmp_path: Path) -> Path:
    """A folder holding the bots guide's ``mybots.py``, verbatim."""
    blocks = readme_blocks()
    assert [lang for lang, _ in blocks] == ["python", "bash", "python"], "the bots guide section lost a code block"
    module = blocks[0][1]
    assert module.startswith("# mybots.py")
    (tmp_path / "mybots.py").write_text(module)
    return tmp_path


def test_readme_example_runs_verbatim(readme_bot: Path) -> None:
    script = readme_bot / "use_bot.py"
    script.write_text(readme_blocks()[2][1])
    out = subprocess.run([sys.executable, str(script)], cwd=readme_bot, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    m = re.fullmatch(r"penalties per seat: \((\d+), (\d+), (\d+), (\d+)\)\n", out.stdout)
    assert m, out.stdout


def test_readme_tournament_command_with_py_entrant(readme_bot: Path) -> None:
    # the bots guide's command, run the way the console script runs it: from another folder than the module's, so
    # that the current directory is not on sys.path and load() has to find mybots.py there itself
    words = shlex.split(readme_blocks()[1][1].strip())
    assert words[:2] == ["rummy", "tournament"] and "py:mybots.EagerBot" in words
    launcher = readme_bot / "bin" / "rummy_launcher.py"
    launcher.parent.mkdir()
    launcher.write_text("import sys\nfrom rummy_env.cli import main\nsys.exit(main())\n")
    cmd = [sys.executable, str(launcher), *words[1:], "--quiet"]
    out = subprocess.run(cmd, cwd=readme_bot, capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr
    rows = [line for line in out.stdout.splitlines() if re.match(r"\s*\d+\s+\S", line)]
    assert {line.split()[1] for line in rows} == {"py:mybots.EagerBot", "heuristic", "random"}, out.stdout


def _module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, source: str) -> str:
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)
    return name


GOOD = """
    import random

    class Lowest:
        name = "lowest"

        def __init__(self, seed=None):
            self.reset(seed)

        def reset(self, seed=None):
            self.seed = seed
            self.rng = random.Random(seed)

        def act(self, env, agent):
            legal = [int(a) for a in env.unwrapped.action_mask(agent).nonzero()[0]]
            return self.rng.choice(legal)

    def make_lowest(seed):
        return Lowest(seed)

    class NoAct:
        name = "noact"

        def __init__(self, seed):
            pass

        def reset(self, seed=None):
            pass

    class Unnamed:
        def __init__(self, seed):
            pass

        def reset(self, seed=None):
            pass

        def act(self, env, agent):
            return 0

    class NoSeed:
        name = "noseed"

        def __init__(self):
            pass

    LIMIT = 3
"""


def test_py_entrant_class_and_factory_are_seeded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mod = _module(tmp_path, monkeypatch, "userbots_good", GOOD)
    for attr in ("Lowest", "make_lowest"):
        bot = bots.load(f"py:{mod}.{attr}", seed=11)
        assert bot.name == "lowest" and bot.seed == 11
    env = rummy_env.make("contract", rounds=(1,))

    def moves(seed: int) -> list[int]:
        bot = bots.load(f"py:{mod}.Lowest", seed=seed)
        env.reset(seed=3)
        out = []
        for _ in range(40):
            agent = env.agent_selection
            out.append(bot.act(env, agent))
            env.step(out[-1])
        return out

    assert moves(5) == moves(5)


@pytest.mark.parametrize(
    "attr, message",
    [
        ("NoAct", r"not a bot: it lacks act"),
        ("Unnamed", r"not a bot: it lacks name"),
        ("Missing", r"has no attribute 'Missing'; it has \[.*'Lowest'"),
        ("LIMIT", r"object of type int, not a class or factory taking a seed"),
        ("NoSeed", r"NoSeed\(seed=0\) raised TypeError"),
    ],
)
def test_py_entrant_that_is_not_a_bot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, attr: str, message: str) -> None:
    mod = _module(tmp_path, monkeypatch, "userbots_bad", GOOD)
    with pytest.raises(bots.BotLoadError, match=message):
        bots.load(f"py:{mod}.{attr}", seed=0)


def test_py_entrant_module_not_importable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # nothing there: the current-directory fallback finds nothing either
    with pytest.raises(bots.BotLoadError, match=r"module 'no_such_user_module' cannot be imported"):
        bots.load("py:no_such_user_module.Bot")
    mod = _module(tmp_path, monkeypatch, "userbots_broken", "import no_such_dependency_xyz\n")
    with pytest.raises(bots.BotLoadError, match=r"No module named 'no_such_dependency_xyz'"):
        bots.load(f"py:{mod}.Bot")
    mod = _module(tmp_path, monkeypatch, "userbots_raises", "raise RuntimeError('boom')\n")
    with pytest.raises(bots.BotLoadError, match=r"importing module 'userbots_raises' failed with RuntimeError: boom"):
        bots.load(f"py:{mod}.Bot")


@pytest.mark.parametrize("spec", ["py:", "py:nodot", "py:.Bot", "py:mod.", "py:bad-name.Bot"])
def test_py_entrant_malformed(spec: str) -> None:
    with pytest.raises(bots.BotLoadError, match=r"expected py:MODULE\.ATTR"):
        bots.load(spec)


def test_bot_load_error_is_a_value_error() -> None:
    assert issubclass(bots.BotLoadError, ValueError)
    with pytest.raises(bots.BotLoadError, match="unknown bot id 'nobody'.*py:MODULE.ATTR"):
        bots.load("nobody")


def test_cli_bad_py_entrant_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    mod = _module(tmp_path, monkeypatch, "userbots_cli", GOOD)
    code = rummy_main(["tournament", "--entrants", f"py:{mod}.NoAct", "random", "--sessions", "4", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2
    assert f"entrant 'py:{mod}.NoAct' cannot be loaded" in err and "lacks act" in err
    assert len(err.strip().splitlines()) == 1


def test_play_against_py_entrant(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mod = _module(tmp_path, monkeypatch, "userbots_play", GOOD)
    out = io.StringIO()
    result = play("contract", [f"py:{mod}.Lowest"] * 3, seat=0, seed=1, stdin=io.StringIO("1\nquit\n"), stdout=out)
    assert result["quit"] is True
    assert f"py:{mod}.Lowest" in out.getvalue()
    with pytest.raises(ValueError, match=f"opponent 'py:{mod}.NoAct' cannot be loaded.*lacks act"):
        play("contract", [f"py:{mod}.NoAct", "random", "random"], stdin=io.StringIO("quit\n"), stdout=io.StringIO())
