"""``from rummy_env import contract_gamerules_v0``: Contract Rummy, gamerules family rules (document 003)."""

from .envs.contract_gamerules_v0 import __doc__ as _doc
from .envs.contract_gamerules_v0 import env, raw_env

__doc__ = _doc
__all__ = ["env", "raw_env"]
