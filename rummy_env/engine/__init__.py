"""Rules engines: game states as plain data, phases, legal actions and transitions, scoring."""

from .common import IllegalActionError, ScenarioError

__all__ = ["IllegalActionError", "ScenarioError"]
