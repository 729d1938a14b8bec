"""Render the results tables of the README and the docs from the tournament summaries in docs/results/.

Every Markdown file of the repository that holds a block

    <!-- figures:NAME -->
    ...
    <!-- /figures -->

gets the table NAME written between the markers (``NAMES`` below lists them). The numbers are the JSON's own; the
text around them (units, the command that reproduces each figure) is built from the same JSON.

    python docs/figures.py            # rewrite every block in place
    python docs/figures.py --check    # exit 1, naming each stale block, if a rewrite would change anything
    python docs/figures.py --import runs/t/tournament.json --as docs/results/contract-all-entrants.json

``--import`` writes a tournament's summary: the tournament JSON without its per-session ``records``.

Two summaries per profile: ``<profile>-all-entrants.json`` (random, heuristic, search and the shipped checkpoint
at one table) and ``<profile>-checkpoint-vs-heuristic.json`` (the shipped checkpoint against heuristic, seats
rotated over duplicate deals). Standard library only.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
PROFILES = ("contract", "contract_gamerules", "continental")
REFERENCE = "heuristic"
#: where blocks are looked for: top-level Markdown files and these folders (recursively)
FOLDERS = ("docs", "checkpoints", "training", "configs")
BLOCK = re.compile(r"(<!-- figures:([\w-]+) -->)(.*?)(<!-- /figures -->)", re.S)
MINUS = "\u2212"


# ---- reading the summaries --------------------------------------------------------------------------------------


def load(profile: str, kind: str) -> dict:
    """The summary ``docs/results/<profile>-<kind>.json`` (kind: ``all-entrants`` or ``checkpoint-vs-heuristic``)."""
    return json.loads((RESULTS / f"{profile}-{kind}.json").read_text(encoding="utf-8"))


def name(spec: str) -> str:
    """The bot id a reader types: a shipped checkpoint by name (``checkpoint:contract``), other ids unchanged."""
    if not spec.startswith("checkpoint:"):
        return spec
    path, _, mode = spec[len("checkpoint:") :].partition("@")
    stem = Path(path).name
    for suffix in (".safetensors", ".json"):
        stem = stem.removesuffix(suffix)
    return f"checkpoint:{stem}" + (f"@{mode}" if mode else "")


def head_to_head(data: dict, spec: str) -> dict | None:
    """``spec``'s difference from the reference per session (its score minus heuristic's), or None."""
    for h in data["head_to_head"]:
        if h["row"] == spec and h["col"] == REFERENCE:
            return h
    return None


def checkpoint_spec(data: dict) -> str:
    return next(s for s in data["specs"] if s.startswith("checkpoint:"))


def units(data: dict) -> str:
    return f"{data['score']} ({'higher' if data['higher_is_better'] else 'lower'} is better)"


def command(data: dict) -> str:
    """The ``rummy tournament`` command that reproduces a summary (the number of workers changes no result)."""
    words = ["rummy tournament", f"--profile {data['profile']}", "--entrants", *(name(e) for e in data["entrants"])]
    words += [f"--sessions {data['sessions']}", f"--seed {data['seed']}", f"--num-players {data['num_players']}"]
    env_config = data.get("env_config") or {}
    if "rounds" in env_config:
        rounds = env_config["rounds"]
        words.append("--rounds " + " ".join(str(r) for r in (rounds if isinstance(rounds, list) else [rounds])))
    elif "deals" in env_config:
        words.append(f"--rounds {env_config['deals']}")
    if not data.get("duplicate", True):
        words.append("--no-duplicate")
    words.append("--workers 2")
    return " ".join(words)


# ---- formatting --------------------------------------------------------------------------------------------------


def signed(x: float) -> str:
    text = f"{x:+.1f}"
    return MINUS + text[1:] if text.startswith("-") else text


def plain(x: float) -> str:
    text = f"{x:.1f}"
    return MINUS + text[1:] if text.startswith("-") else text


def diff(h: dict) -> str:
    return f"{signed(h['mean_diff'])} [{signed(h['low'])}, {signed(h['high'])}]"


def interval(stat: dict) -> str:
    return f"{plain(stat['mean'])} [{plain(stat['low'])}, {plain(stat['high'])}]"


def rating(r: dict) -> str:
    return f"{plain(r['mu'])} ± {1.96 * r['sigma']:.1f} ({plain(r['ordinal'])})"


def session_words(data: dict) -> str:
    """``48 sessions of round 1`` for a contract summary played on some rounds only; ``2,000 whole sessions``
    otherwise."""
    rounds = (data.get("env_config") or {}).get("rounds")
    if isinstance(rounds, list):
        label = "round" if len(rounds) == 1 else "rounds"
        return f"{data['sessions']:,} sessions of {label} {', '.join(str(r) for r in rounds)}"
    return f"{data['sessions']:,} whole sessions"


# ---- the tables --------------------------------------------------------------------------------------------------


def results() -> str:
    """The README's table: per profile, each entrant's difference from heuristic per session, one figure each."""
    lines = [
        "| Profile | Score per session | `random` | `heuristic` | `search` | shipped checkpoint |",
        "|---|---|---|---|---|---|",
    ]
    commands = []
    for profile in PROFILES:
        every, match = load(profile, "all-entrants"), load(profile, "checkpoint-vs-heuristic")
        cells = []
        for spec in ("random", REFERENCE, "search"):
            h = head_to_head(every, spec)
            cells.append("reference" if spec == REFERENCE else (f"{diff(h)} ¹" if h else "—"))
        ckpt = checkpoint_spec(match)
        cells.append(f"{diff(head_to_head(match, ckpt))} ²")
        lines.append(f"| `{profile}` | {units(every)} | " + " | ".join(cells) + " |")
        commands.append(
            f"- `{profile}` ¹ ({session_words(every)}): `{command(every)}`\n"
            f"- `{profile}` ² `{name(ckpt)}` ({session_words(match)}): `{command(match)}`"
        )
    note = (
        "Each cell is the entrant's score minus `heuristic`'s per session, mean and 95% confidence interval, from "
        "seat-rotated duplicate deals. ¹ All four entrants at one table; ² the shipped checkpoint against "
        "`heuristic` alone, two seats each. The commands that reproduce them:"
    )
    return "\n".join(lines) + "\n\n" + note + "\n\n" + "\n".join(commands)


def checkpoints() -> str:
    """One row per shipped checkpoint: its difference from heuristic per session (the README's figure)."""
    lines = ["| Checkpoint | Score per session | minus `heuristic` | Reproduce |", "|---|---|---|---|"]
    for profile in PROFILES:
        match = load(profile, "checkpoint-vs-heuristic")
        ckpt = checkpoint_spec(match)
        lines.append(
            f"| `{name(ckpt)}` | {units(match)} | {diff(head_to_head(match, ckpt))} ({session_words(match)}) "
            f"| `{command(match)}` |"
        )
    return "\n".join(lines)


def standings(data: dict, elsewhere: str = "") -> list[str]:
    """The standings of a summary; ``elsewhere``: a spec whose difference from heuristic is given by another
    summary (the checkpoint's, by its own match), so that each entrant has one such figure."""
    one_round = data["rounds"] == data["sessions"]  # a session of one round: per session is per round
    columns = ["Rank", "Entrant", "per round", *([] if one_round else ["per session"])]
    columns += ["rating μ ± 1.96σ (ordinal)", "rounds won", "minus `heuristic`"]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for st in data["standings"]:
        h = head_to_head(data, st["spec"])
        vs = diff(h) if h else ("reference" if st["spec"] == REFERENCE else "—")
        if st["spec"] == elsewhere:
            vs = "its own match, below"
        cells = [str(st["rank"]), f"`{name(st['spec'])}`", interval(st["per_round"])]
        cells += [] if one_round else [interval(st["per_session"])]
        cells += [rating(st["rating"]), f"{100 * st['rounds_won']:.1f} %", vs]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def profile_results(profile: str) -> str:
    """docs/results.md: both summaries of ``profile`` in full (standings, ratings, differences) with commands."""
    every, match = load(profile, "all-entrants"), load(profile, "checkpoint-vs-heuristic")
    out = [
        f"Score: {units(every)}; intervals are 95% confidence intervals; ratings are OpenSkill (μ ± 1.96σ, "
        "ordinal μ − 3σ).",
        "",
        f"**All entrants at one table** ({session_words(every)}, {every['num_players']} players, seed {every['seed']}):",
        "",
        *standings(every, elsewhere=checkpoint_spec(every)),
        "",
        f"`{command(every)}`",
        "",
        f"**Shipped checkpoint against `heuristic`** ({session_words(match)}, {match['num_players']} players, "
        f"seed {match['seed']}):",
        "",
        *standings(match),
        "",
        f"`{command(match)}`",
    ]
    return "\n".join(out)


NAMES = {
    "results": results,
    "checkpoints": checkpoints,
    **{f"results-{p}": (lambda p=p: profile_results(p)) for p in PROFILES},
}


# ---- the files ---------------------------------------------------------------------------------------------------


def markdown_files(root: Path = ROOT) -> list[Path]:
    files = set(root.glob("*.md"))
    for folder in FOLDERS:
        files.update((root / folder).rglob("*.md"))
    return sorted(files)


def render(text: str, where: str = "") -> str:
    """``text`` with every figures block rewritten; ``ValueError`` for an unknown block name."""

    def fill(m: re.Match[str]) -> str:
        if m.group(2) not in NAMES:
            raise ValueError(f"{where}: unknown figures block {m.group(2)!r} (known: {', '.join(NAMES)})")
        return f"{m.group(1)}\n{NAMES[m.group(2)]()}\n{m.group(4)}"

    return BLOCK.sub(fill, text)


def stale_blocks(text: str, where: str = "") -> list[str]:
    """The names of the blocks of ``text`` that a rewrite would change."""
    return [m.group(2) for m in BLOCK.finditer(text) if render(m.group(0), where) != m.group(0)]


def import_summary(source: Path, target: Path) -> None:
    data = json.loads(source.read_text(encoding="utf-8"))
    data.pop("records", None)
    target.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a block is stale; write nothing")
    parser.add_argument("--root", type=Path, default=ROOT, help="repository whose Markdown files to render")
    parser.add_argument("--import", dest="source", type=Path, help="a tournament.json to summarise (with --as)")
    parser.add_argument("--as", dest="target", type=Path, help="where --import writes the summary")
    args = parser.parse_args(argv)
    if (args.source is None) != (args.target is None):
        parser.error("--import and --as go together")
    if args.source is not None:
        import_summary(args.source, args.target)
        print(f"wrote {args.target}")
        return 0
    stale = []
    for path in markdown_files(args.root):
        text = path.read_text(encoding="utf-8")
        if "<!-- figures:" not in text:
            continue
        rel = path.relative_to(args.root).as_posix()
        if args.check:
            stale += [f"{rel}: figures:{n}" for n in stale_blocks(text, rel)]
        else:
            new = render(text, rel)
            if new != text:
                path.write_text(new, encoding="utf-8")
                print(f"rewrote {rel}")
    if stale:
        print("stale figures blocks (run python docs/figures.py):\n  " + "\n  ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
