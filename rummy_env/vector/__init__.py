"""Batched environments: ``VectorEnv`` steps many tables of one profile in one call (``docs/guides/vector.md``).

```python
import numpy as np
from rummy_env.vector import VectorEnv, random_legal_actions

vec = VectorEnv("contract", num_envs=64, seed=0, reward="penalty")
obs, mask, seat = vec.reset()
rng = np.random.default_rng(0)
obs, mask, seat, rewards, done = vec.step(random_legal_actions(mask, rng))
```
"""

from __future__ import annotations

from .bench import bench_vector
from .env import AEC_ONLY_KEYS, ConcurrentUseError, VectorConfigError, VectorEnv
from .sampling import EmptyMaskError, random_legal_actions
from .table import TableEnv

__all__ = ["AEC_ONLY_KEYS", "ConcurrentUseError", "EmptyMaskError", "TableEnv", "VectorConfigError", "VectorEnv",
           "bench_vector", "random_legal_actions"]
