"""What the fuzzer counts (action kinds, round endings, checks run) and the JSON-able report it returns."""

from __future__ import annotations

from typing import Any

#: every action kind of every profile; the report's ``kinds`` lists each (0 where a profile has none)
ACTION_KINDS = (
    "draw_stock",
    "draw_discard",
    "pickup",
    "buy",
    "pass",
    "meld",
    "lay_off",
    "swap_joker",
    "place_joker",
    "discard",
    "go_out",
    "declare",
)


class Counts:
    """Running totals of one fuzz run (shared by its sessions)."""

    def __init__(self) -> None:
        self.kinds = dict.fromkeys(ACTION_KINDS, 0)
        self.openings = 0
        self.go_outs = 0
        self.go_outs_r1_6 = 0
        self.go_outs_r7 = 0
        self.exhausted = 0
        self.turn_cap = 0
        self.blocked = 0
        self.rounds = 0
        self.json_round_trips = 0
        self.clone_checks = 0
        self.legal_apply_checks = 0
        self.illegal_reject_checks = 0
        self.meld_scans = 0
        self.replays = 0
        self.place_after_taken_joker = 0
        self.reshuffles = 0

    def count_round(self, reason: str, round_no: int, rules: Any) -> None:
        """Count one finished round by the way it ended (a win in the all-runs final round counted apart)."""
        self.rounds += 1
        if reason == "out":
            self.go_outs += 1
            final = getattr(rules, "is_final_all_at_once", None)
            if final is not None and final(round_no):
                self.go_outs_r7 += 1
            else:
                self.go_outs_r1_6 += 1
        elif reason == "exhausted":
            self.exhausted += 1
        elif reason == "turn_cap":
            self.turn_cap += 1
        elif reason == "blocked":
            self.blocked += 1

    def checks(self) -> dict[str, int]:
        """The report's ``checks``: how often each sampled check ran."""
        return {
            "json_round_trips": self.json_round_trips,
            "clone_checks": self.clone_checks,
            "legal_apply_checks": self.legal_apply_checks,
            "illegal_reject_checks": self.illegal_reject_checks,
            "meld_scans": self.meld_scans,
            "replays": self.replays,
            "place_after_taken_joker": self.place_after_taken_joker,
            "reshuffles": self.reshuffles,
        }


def report(run: dict[str, Any], c: Counts, secs: float) -> dict[str, Any]:
    """The fuzz report: ``run`` (profile, seed, policy, sessions, decisions, per_policy, violations, examples),
    the counts ``c`` and the wall time ``secs``, in the order ``rummy fuzz`` prints them."""
    kinds = dict(c.kinds)
    total = run["decisions"]
    return {
        "profile": run["profile"],
        "seed": run["seed"],
        "policy": run["policy"],
        "sessions": run["sessions"],
        "rounds": c.rounds,
        "decisions": total,
        "per_policy": run["per_policy"],
        "kinds": kinds,
        "buys": kinds["buy"],
        "openings": c.openings,
        "lay_offs": kinds["lay_off"],
        "joker_swaps": kinds["swap_joker"],
        "joker_placements": kinds["place_joker"],
        "go_outs": c.go_outs,
        "go_outs_r1_6": c.go_outs_r1_6,
        "go_outs_r7": c.go_outs_r7,
        "exhausted_rounds": c.exhausted,
        "turn_cap_rounds": c.turn_cap,
        "blocked_rounds": c.blocked,
        "checks": c.checks(),
        "violations": run["violations"],
        "examples": run["examples"],
        "seconds": round(secs, 3),
        "decisions_per_second": round(total / secs, 1) if secs else 0.0,
    }


__all__ = ["ACTION_KINDS", "Counts", "report"]
