"""``from rummy_env import continental_v0``: Continental rummy (document 004) as a PettingZoo AEC env."""

from .envs.continental_v0 import __doc__ as _doc
from .envs.continental_v0 import env, raw_env

__doc__ = _doc
__all__ = ["env", "raw_env"]
