"""The rules documentation in docs/rules/ is complete, self-contained and agrees with the engine.

- Every field of each profile's frozen rules object has a row in the "Rules fields" table of that profile's
  document, with the profile's current default (so a new field, or a changed default, without docs fails here).
- Every document has the sections the index promises.
- The worked example at the end of each document is replayed against the engine: the scenario is loaded, the
  steps are applied, and the round result and the scores must be exactly the ones the document states.
- Nothing in docs/rules/ points outside the repository, and every relative link resolves.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest
from scenarios import complete

from rummy_env.engine import load_state
from rummy_env.rules import PROFILES

ROOT = Path(__file__).resolve().parents[2]
RULES_DIR = ROOT / "docs" / "rules"
DOCS = {profile: RULES_DIR / f"{profile}.md" for profile in PROFILES}

#: section headings (prefixes) every profile document has, in this order
SECTIONS = (
    "## Overview",
    "## A turn, step by step",
    "## Jokers",
    "## Buying",
    "## Going out",
    "## Running out of stock",
    "## Session and winner",
    "## Resolutions adopted",
    "## Rules fields",
    "## Engine limits",
    "## Worked example",
)


def _section(text: str, heading: str) -> str:
    """The body of the ``## heading`` section of a markdown text (up to the next ``## `` heading)."""
    start = text.index(f"\n{heading}\n") + len(heading) + 2
    nxt = text.find("\n## ", start)
    return text[start:] if nxt < 0 else text[start:nxt]


def _field_rows(text: str) -> dict[str, str]:
    """``field -> default cell`` of the "Rules fields" table (rows starting with a backticked name)."""
    rows = {}
    for line in _section(text, "## Rules fields").splitlines():
        m = re.match(r"^\|\s*`([a-z_]+)`\s*\|\s*`([^`]*)`\s*\|", line)
        if m:
            rows[m.group(1)] = m.group(2)
    return rows


# ----------------------------------------------------------------------------------------------------------------
# Every rules field is documented, with its default
# ----------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_every_rules_field_documented(profile: str) -> None:
    # docs/rules/README.md: "every field of each rules class has a row, with its current default, in the 'Rules
    # fields' table of its document"
    rules = PROFILES[profile]
    rows = _field_rows(DOCS[profile].read_text(encoding="utf-8"))
    names = [f.name for f in dataclasses.fields(rules)]
    missing = [name for name in names if name not in rows]
    assert not missing, f"docs/rules/{profile}.md lacks rows for rules fields {missing}"
    wrong = {}
    for name in names:
        value = getattr(rules, name)
        try:
            documented = ast.literal_eval(rows[name])
        except (ValueError, SyntaxError):
            documented = rows[name]
        if documented != value:
            wrong[name] = (rows[name], value)
    assert not wrong, f"docs/rules/{profile}.md states wrong defaults (documented, actual): {wrong}"


def test_field_table_parser_sees_a_missing_field() -> None:
    # the check above must be able to fail: a document without one row is reported with that field's name
    text = DOCS["contract"].read_text(encoding="utf-8")
    cut = "\n".join(line for line in text.splitlines() if not line.startswith("| `turn_cap` |"))
    assert "turn_cap" in _field_rows(text)
    assert "turn_cap" not in _field_rows(cut)


# ----------------------------------------------------------------------------------------------------------------
# Structure, links, no outside paths
# ----------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_document_sections(profile: str) -> None:
    text = DOCS[profile].read_text(encoding="utf-8")
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    found = [next((h for h in headings if h.startswith(prefix)), None) for prefix in SECTIONS]
    absent = [p for p, h in zip(SECTIONS, found) if h is None]
    assert not absent, f"docs/rules/{profile}.md lacks sections {absent}"
    order = [headings.index(h) for h in found]
    assert order == sorted(order), f"docs/rules/{profile}.md: sections out of order"


def test_index_lists_every_profile() -> None:
    text = (RULES_DIR / "README.md").read_text(encoding="utf-8")
    for profile in PROFILES:
        assert f"]({profile}.md)" in text, f"docs/rules/README.md does not link {profile}.md"
    for heading in ("## Notation", "### Cards", "### Run positions", "## JSON scenarios"):
        assert f"\n{heading}\n" in text


def _rules_files() -> list[Path]:
    return sorted(RULES_DIR.glob("*.md"))


@pytest.mark.parametrize("path", _rules_files(), ids=lambda p: p.name)
def test_no_path_outside_the_repository(path: Path) -> None:
    # issue 17: "nothing in the repository refers to a path outside it" (no shared/ folder, no absolute paths)
    text = path.read_text(encoding="utf-8")
    for bad in ("shared/", "../", "/work/", "/home/", "/tmp/", "000_52f7", "003_9ccd", "004_9314"):
        assert bad not in text, f"{path.name} refers to {bad!r}, outside the repository"


#: names that only exist outside a clone of the repository: the rules folder beside the checkout, its documents
OUTSIDE_NAMES = ("../shared", "shared/rules", "000_52f7", "003_9ccd", "004_9314")


def test_no_tracked_file_names_a_path_outside_the_repository() -> None:
    # issue 17: "Nothing in the repository refers to a path outside it" -- README, docstrings, test comments, scripts
    import subprocess

    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    assert "README.md" in listed, "git ls-files did not list the repository's files"
    offenders = []
    for name in listed:
        path = ROOT / name
        if name == "tests/rules/test_rules_docs.py" or path.suffix not in {".py", ".md", ".yaml", ".toml", ".sh", ".txt", ""}:
            continue
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        offenders += [f"{name}: {bad}" for bad in OUTSIDE_NAMES if bad in text]
    assert not offenders, "files that refer outside the repository: " + "; ".join(offenders)


@pytest.mark.parametrize("path", _rules_files(), ids=lambda p: p.name)
def test_relative_links_resolve(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if "://" in target:
            continue
        resolved = (path.parent / target).resolve()
        assert resolved.is_file(), f"{path.name}: link to {target!r} does not resolve"
        assert ROOT in resolved.parents, f"{path.name}: link to {target!r} leaves the repository"
    for anchor_target, anchor in re.findall(r"\]\(([^)#\s]*)#([^)\s]+)\)", text):
        other = (path.parent / anchor_target) if anchor_target else path
        headings = [
            re.sub(r"[^a-z0-9 _-]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
            for line in other.read_text(encoding="utf-8").splitlines()
            if line.startswith("#")
        ]
        assert anchor in headings, f"{path.name}: anchor #{anchor} not found in {other.name}"


# ----------------------------------------------------------------------------------------------------------------
# Worked examples, replayed against the engine
# ----------------------------------------------------------------------------------------------------------------


def _example(profile: str) -> dict[str, Any]:
    """The machine-checked form (first ```json block) of the worked example of ``profile``'s document."""
    body = _section(DOCS[profile].read_text(encoding="utf-8"), "## Worked example")
    m = re.search(r"```json\n(.*?)\n```", body, re.DOTALL)
    assert m, f"docs/rules/{profile}.md: the worked example has no ```json block"
    return json.loads(m.group(1))


def _apply_step(state: Any, step: dict[str, Any]) -> None:
    want = dict(step)
    seat = want.pop("seat")
    assert state.current_player == seat, f"step {step}: seat {state.current_player} is to decide, not {seat}"
    if "seat_of_meld" in want:
        want["seat"] = want.pop("seat_of_meld")
    if want.pop("declare", False):
        # continental: "discard X and declare" — one action where the engine has it, else discard then declare
        card = want.get("card")
        both = [
            a
            for a, info in state.legal_action_infos()
            if info.get("card") == card and ("declare" in info["kind"] or info.get("declare") is True)
        ]
        if len(both) == 1:
            state.apply(both[0])
            return
        state.apply(state.find_action(**want))
        assert state.current_player == seat, "after the discard the same player decides on the declaration"
        state.apply(state.find_action(kind="declare"))
        return
    state.apply(state.find_action(**want))


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_worked_example(profile: str) -> None:
    # each document: "one worked example ... with hands, actions, and the exact outcome"
    ex = _example(profile)
    assert ex["scenario"]["profile"] == profile
    state = load_state(complete(ex["scenario"]))
    for step in ex["steps"]:
        _apply_step(state, step)
    results = state.round_results
    expected = ex["expect"]["round_results"]
    assert len(results) == len(expected)
    for got, want in zip(results, expected):
        assert {k: got[k] for k in want} == want
    assert state.scores == ex["expect"]["scores"]

