"""The layers of the architecture (docs/guides/engine.md, "Architecture") hold: each is checked from the source text, so a change that breaks one
fails here (issue 14: "profile-name strings are compared only in the registry", "the engine imports nothing above
it", "the env's engine state becomes private")."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import rummy_env
from rummy_env.registry import GAMES, game

PKG = Path(rummy_env.__file__).resolve().parent
ROOT = PKG.parent
PROFILE_IDS = sorted(GAMES)
#: the layers of the whole package, bottom first (docs/guides/engine.md, "Architecture"): each may import only the
#: layers before it (and the registry, which every layer may ask). ``testing`` (the fuzzer's oracles) sits on the
#: engine; ``integrations`` (RLlib, Tianshou, SB3, the Ray backend) is imported by no other layer, the match runner
#: loads its Ray backend by name; nothing imports ``cli``.
ORDER = [
    "core", "rules", "engine", "encoding", "models", "bots", "envs", "vector", "evaluation", "replay", "shaping",
    "training", "distill", "integrations", "cli",
]  # fmt: skip
ALLOWED = {layer: set(ORDER[:i]) for i, layer in enumerate(ORDER)}
ALLOWED["testing"] = {"core", "rules", "engine"}
ALLOWED["cli"] = set(ORDER[: ORDER.index("cli")]) - {"integrations", "training", "distill"} | {"testing"}


def _py_files(*roots: Path) -> list[Path]:
    return sorted(p for r in roots for p in r.rglob("*.py"))


def _imported_packages(path: Path) -> set[str]:
    """The first-level subpackages of rummy_env a module imports at module level or inside functions."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rel = path.relative_to(PKG).parts
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(rel[:-1])[: len(rel) - node.level] if node.level > 1 else list(rel[:-1])
                parts = base + (node.module.split(".") if node.module else [])
                if not node.module:
                    parts = base + [a.name for a in node.names][:1]
            elif node.module and node.module.startswith("rummy_env."):
                parts = node.module.split(".")[1:]
            else:
                continue
            if parts:
                out.add(parts[0])
    return out


def test_every_folder_of_the_package_has_a_layer() -> None:
    folders = {p.name for p in PKG.iterdir() if p.is_dir() and (p / "__init__.py").is_file()} - {"_compiled"}
    layers = {name for name in ALLOWED if not (PKG / (name + ".py")).is_file()}  # shaping is one module
    assert folders == layers, f"folders without a layer (or layers without a folder): {folders ^ layers}"


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_a_layer_imports_only_the_layers_below_it(layer: str) -> None:
    bad = {}
    module = PKG / (layer + ".py")
    for path in [module] if module.is_file() else _py_files(PKG / layer):
        imported = {i.removesuffix(".py") for i in _imported_packages(path)} - {layer, "__version__", "make"}
        # the registry imports its components lazily, by name: asking it is allowed to every layer
        wrong = imported - ALLOWED[layer] - {"registry"}
        if wrong:
            bad[str(path.relative_to(ROOT))] = sorted(wrong)
    assert not bad, f"{layer}/ imports layers above it: {bad}"


def test_profile_ids_are_compared_only_in_the_registry() -> None:
    ids = "|".join(PROFILE_IDS)
    pattern = re.compile(rf"""(==|!=|\bin)\s*\(?\s*['"]({ids})['"]|['"]({ids})['"]\s*(==|!=)""")
    hits = []
    for path in _py_files(PKG, ROOT / "training"):
        if path.name == "registry.py":
            continue
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line) and not line.lstrip().startswith("#"):
                hits.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    # one deliberate data check: the gamerules migration refuses checkpoints of other profiles
    hits = [h for h in hits if "MIGRATES" not in h]
    assert not hits, "profile facts must come from rummy_env.registry.game(profile):\n" + "\n".join(hits)


def test_nothing_above_the_env_reads_the_engine_state() -> None:
    hits = []
    for path in _py_files(PKG, ROOT / "training"):
        if path.parts[len(PKG.parts) - 1 :][1:2] in (("engine",), ("envs",)) or "vector" in path.parts:
            continue  # the engine itself, the env (owner of its state) and VectorEnv (an env over engine states)
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"\.(state_|_state)\b", line):
                hits.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not hits, "read public_view(agent) or the env's accessors instead:\n" + "\n".join(hits)


@pytest.mark.parametrize("profile", PROFILE_IDS)
def test_the_descriptor_knows_the_env_sizes_without_a_game(profile: str) -> None:
    g = game(profile)
    for n in g.player_counts:
        config = {"num_players": n} if len(g.player_counts) > 1 else {}
        env = rummy_env.make(profile, wrapped=False, **config)
        assert env.unwrapped._state is None  # no game was built to learn the sizes
        assert g.num_actions(n) == env.num_actions == env.action_space("player_0").n
        assert g.observation_size(n) == env.observation_space("player_0")["observation"].shape[0]
    assert (g.score_name, g.lower_is_better) in {("penalty", True), ("payment", False)}
    assert g.score_per_unit == f"{g.score_name}_per_{g.unit}"
    assert (ROOT / g.rules_doc).is_file()


def test_unknown_profile_is_a_value_error_naming_the_ids() -> None:
    with pytest.raises(ValueError, match="available"):
        game("gin")
    with pytest.raises(ValueError, match="contract"):
        rummy_env.make("gin")


def test_moved_modules_still_import() -> None:
    import importlib
    import sys
    import warnings

    from rummy_env import _aliases

    for old, new in {**_aliases.STABLE, **_aliases.MOVED}.items():
        fresh = old not in sys.modules  # the warning comes with the first import of the old path
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            mod = importlib.import_module(old)
        assert mod is importlib.import_module(new), old
        assert mod.__spec__.name == new, f"{old} left its spec on {new}"
        warned = any(issubclass(w.category, DeprecationWarning) and new in str(w.message) for w in caught)
        if fresh:
            assert warned is (old in _aliases.MOVED), old


def test_the_engine_state_is_private_and_its_old_name_warns() -> None:
    env = rummy_env.make("contract", wrapped=False)
    env.reset(seed=0)
    with pytest.warns(DeprecationWarning, match="public_view"):
        st = env.state_
    assert st is env._state
    assert env.current_seat == st.current_player and env.scores == tuple(st.scores) and not env.session_over


# ----------------------------------------------------------------------------------------------------------------
# No import circle anywhere in the package (module level)
# ----------------------------------------------------------------------------------------------------------------


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _module_level_imports(path: Path, modules: set[str]) -> set[str]:
    """The package modules ``path`` imports at module level (not inside a function or an ``if TYPE_CHECKING``
    block): ``from X import name`` counts ``X.name`` when that is a module, else ``X``."""
    name = _module_name(path)
    is_pkg = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()

    def known(dotted: str) -> str | None:
        while dotted and dotted not in modules:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                continue
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.Import):
                targets = [a.name for a in child.names]
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = name.split(".")
                    base = base if is_pkg else base[:-1]
                    base = base[: len(base) - (child.level - 1)]
                    mod = ".".join(base + ([child.module] if child.module else []))
                else:
                    mod = child.module or ""
                targets = [mod] + [f"{mod}.{a.name}" for a in child.names]
            else:
                visit(child)
                continue
            out.update(t for t in map(known, targets) if t and t != name)

    visit(tree)
    return out


def import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports at module level, over every module of ``rummy_env``."""
    paths = {_module_name(p): p for p in _py_files(PKG)}
    modules = set(paths)
    return {m: _module_level_imports(p, modules) for m, p in paths.items()}


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return out


def test_the_circle_finder_finds_a_circle() -> None:
    """The check below can fail: a made-up graph with a circle of three is found, a chain is not."""
    assert import_circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert import_circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_no_import_circle_between_modules_of_the_package() -> None:
    """Over the whole package, not only the bottom layers: no two modules import each other, directly or through
    others, at module level."""
    graph = import_graph()
    assert len(graph) > 50 and graph["rummy_env.envs.base"], "the graph lost its modules"
    assert import_circles(graph) == []


def _imports_inside_functions(path: Path) -> list[tuple[int, str]]:
    """(line, source) of every import of a rummy_env module (relative or absolute) inside a function of ``path``."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    out = []
    for fn in ast.walk(ast.parse(text)):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(fn):
            internal = (isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("rummy_env")))
            internal |= isinstance(node, ast.Import) and any(a.name.startswith("rummy_env") for a in node.names)
            if internal:
                out.append((node.lineno, lines[node.lineno - 1].strip()))
    return out


def test_internal_imports_inside_functions_are_only_optional_dependencies() -> None:
    """An import of one of the package's own modules inside a function hides an import circle, unless it pulls an
    optional dependency (torch, ray, ...): then its line says so (``# optional dependency: torch``)."""
    bad = {}
    for path in _py_files(PKG):
        hidden = [f"{n}: {src}" for n, src in _imports_inside_functions(path) if "optional dependency:" not in src]
        if hidden:
            bad[str(path.relative_to(ROOT))] = hidden
    assert not bad, f"imports inside functions that are not optional dependencies: {bad}"


def test_the_hidden_import_finder_finds_one(tmp_path: Path) -> None:
    sample = tmp_path / "m.py"
    sample.write_text("def f():\n    from .x import y\n    import rummy_env.z  # optional dependency: torch\n    import os\n")
    assert [n for n, _ in _imports_inside_functions(sample)] == [2, 3]


#: the only exceptions to the size limits, each with its reason: the compiled twins' sources are compiled as they
#: are (setup.py), and an edit of one rebuilds its twin
OVERSIZE_REASONS = {
    "rummy_env/core/melds.py": "compiled twin source (rummy_env._compiled.melds): one module, one extension",
    "rummy_env/rules/continental_hand.py::_suit_dp": "compiled twin source: the hot loop stays one function",
}


def test_no_function_over_80_lines_and_no_module_over_800() -> None:
    long_functions, long_modules = [], []
    for path in _py_files(PKG):
        rel = str(path.relative_to(ROOT))
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > 800 and rel not in OVERSIZE_REASONS:
            long_modules.append(f"{rel}: {len(text.splitlines())} lines")
        for fn in ast.walk(ast.parse(text)):
            if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                size = fn.end_lineno - fn.lineno + 1
                if size > 80 and f"{rel}::{fn.name}" not in OVERSIZE_REASONS:
                    long_functions.append(f"{rel}::{fn.name}: {size} lines")
    assert not long_functions, f"functions over 80 lines (split them, or state a reason): {long_functions}"
    assert not long_modules, f"modules over 800 lines (split them, or state a reason): {long_modules}"


# ----------------------------------------------------------------------------------------------------------------
# The upper layers: evaluation <- training (the scripts' shared parts) <- distill (the checkpoint pipeline) <- cli
# ----------------------------------------------------------------------------------------------------------------

#: an upper layer and the package folders it may not import (the data flows one way: evaluation is measured by
#: training and distill, which the command line drives; nothing below imports them)
NOT_IMPORTED_BY = {
    "evaluation": {"training", "distill", "cli"},
    "training": {"distill", "cli"},
    "distill": {"cli"},
    "models": {"evaluation", "training", "distill", "cli"},
}


@pytest.mark.parametrize("layer", sorted(NOT_IMPORTED_BY))
def test_the_upper_layers_import_downwards_only(layer: str) -> None:
    bad = {}
    for path in _py_files(PKG / layer):
        wrong = _imported_packages(path) & NOT_IMPORTED_BY[layer]
        if wrong:
            bad[str(path.relative_to(ROOT))] = sorted(wrong)
    assert not bad, f"{layer}/ imports a layer above it: {bad}"


TRAINING_SCRIPTS = ("ppo.py", "rllib_ppo.py", "sb3_maskable_ppo.py", "tianshou_dqn.py")


def test_training_holds_the_baselines_each_one_file_importing_only_the_package() -> None:
    """training/ is four baseline scripts in CleanRL's manner: each imports the rummy_env package and third-party
    libraries, never a sibling file; the checkpoint pipeline is the package's ``rummy_env.distill``."""
    folder = ROOT / "training"
    assert sorted(p.name for p in folder.glob("*.py")) == sorted(TRAINING_SCRIPTS)
    siblings = {p.stem for p in folder.glob("*.py")} | {"common", "evaluate", "run_log", "seats", "warm_start"}
    for name in TRAINING_SCRIPTS:
        tree = ast.parse((folder / name).read_text(encoding="utf-8"))
        imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        assert not imported & siblings, f"training/{name} imports a sibling: {sorted(imported & siblings)}"
    assert len((folder / "ppo.py").read_text(encoding="utf-8").splitlines()) <= 500, "ppo.py: about 450 lines"


#: the one sys.path edit left: a user's ``py:MODULE.ATTR`` bot module is looked for in the current directory too
SYS_PATH_EDITS = {"rummy_env/bots/__init__.py": 1}


def test_no_sys_path_edits() -> None:
    """No module, script or test puts a folder on ``sys.path`` (scripts import the installed package; tests load a
    script by its path), but the bot registry's lookup of a user's module (appended, never shadowing)."""
    pattern = re.compile(r"sys\.path\.(insert|append|extend)|sys\.path\s*[+]?=")
    found: dict[str, int] = {}
    for path in _py_files(PKG, ROOT / "training", ROOT / "tests", ROOT / "benchmarks", ROOT / "docs"):
        hits = [line for line in path.read_text(encoding="utf-8").splitlines() if pattern.search(line)]
        hits = [line for line in hits if not line.lstrip().startswith(("#", '"', "'"))]
        if hits:
            found[str(path.relative_to(ROOT))] = len(hits)
    assert found == SYS_PATH_EDITS, found


#: the tests of the project as a whole, which stay at ``tests/`` (every other test sits in the folder of its layer)
PROJECT_TESTS = {"test_architecture.py", "test_ci.py", "test_doc_figures.py", "test_docs.py", "test_docs_site.py",
                 "test_packaging.py"}  # fmt: skip


def test_the_tests_mirror_the_package_folders() -> None:
    tests = ROOT / "tests"
    folders = {p.name for p in tests.iterdir() if p.is_dir() and any(p.glob("test_*.py"))}
    assert folders <= set(ALLOWED), f"test folders that are not layers of the package: {sorted(folders - set(ALLOWED))}"
    loose = {p.name for p in tests.glob("test_*.py")} - PROJECT_TESTS
    assert not loose, f"tests outside the folder of their layer (tests/<layer>/): {sorted(loose)}"
