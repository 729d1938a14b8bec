"""``from rummy_env import contract_v0``: Contract Rummy (document 000) as a PettingZoo AEC env."""

from .envs.contract_v0 import __doc__ as _doc
from .envs.contract_v0 import env, raw_env

__doc__ = _doc
__all__ = ["env", "raw_env"]
