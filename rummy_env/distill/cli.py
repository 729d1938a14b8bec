"""``python -m rummy_env.distill <subcommand> ...``: one command for the pipeline's steps; each subcommand takes
the flags of its module's ``main`` (``--help`` lists them) and returns its exit code (2: a usage error, one line)."""

from __future__ import annotations

import sys
from collections.abc import Callable

from ..training.extras import require
from . import (
    advantage_curve,
    advantage_fit,
    advantage_labels,
    checkpoint_curve,
    evaluate,
    search_consistency,
    search_distill,
    search_labels,
)

TORCH = ["safetensors", "torch"]
#: subcommand -> (its main, the optional modules it needs, one line of help)
SUBCOMMANDS: dict[str, tuple[Callable[[list[str] | None], int], list[str], str]] = {
    "search-labels": (search_labels.main, TORCH, "labels of a teacher bot's moves on its or the heuristic's games"),
    "search-distill": (search_distill.main, TORCH, "distil labels into a card_prior / card_prior_measures network"),
    "search-consistency": (search_consistency.main, [], "how often two searches of the same position agree"),
    "advantage-labels": (advantage_labels.main, [], "rollout advantages of every legal action on the heuristic's games"),
    "advantage-fit": (advantage_fit.main, TORCH, "fit a card_prior network to rollout advantages, saved with a margin"),
    "advantage-curve": (advantage_curve.main, [*TORCH, "matplotlib"], "the learning curve of an advantage fit over "
                        "label folders"),
    "checkpoint-curve": (checkpoint_curve.main, [*TORCH, "matplotlib"], "the learning curve of a run from its saved "
                         "checkpoints"),
    "evaluate": (evaluate.main, [*TORCH, "matplotlib"], "checkpoints against bots with 95 % CIs; --manifest DIR; "
                 "--plot RUN_DIR"),
}  # fmt: skip
PROG = "python -m rummy_env.distill"


def usage() -> str:
    """The list of subcommands."""
    width = max(map(len, SUBCOMMANDS))
    lines = [f"usage: {PROG} <subcommand> [--help] ...", "", "subcommands:"]
    lines += [f"  {name:<{width}}  {text}" for name, (_, _, text) in SUBCOMMANDS.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the subcommand named by the first argument; exit code 2 with one line for an unknown one."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(usage())
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name not in SUBCOMMANDS:
        print(f"{PROG}: error: unknown subcommand {name[:60]!r}; one of {', '.join(SUBCOMMANDS)}", file=sys.stderr)
        return 2
    run, needs, _ = SUBCOMMANDS[name]
    if "-h" not in rest and "--help" not in rest:  # --help is answered without the extras
        require(f"{PROG} {name}", "train", needs)
    return int(run(rest) or 0)
