"""Adapters to external frameworks; each submodule imports its framework, this package imports none.

| module | framework | what |
|---|---|---|
| `rummy_env.integrations.rllib` | Ray RLlib (new API stack) | `env_creator` (the one line for Ray's stock recipe with `ActionMaskingTorchRLModule`), `RummyMultiAgentEnv` (PettingZooEnv + obs-key adapter), `MaskedPPOTorchRLModule`, `SelfPlayCallback`, `export_rllib_module` |
| `rummy_env.integrations.ray_backend` | Ray core | `run_matches_ray(fn, tasks)`: match tasks as Ray tasks, results in task order |
| `rummy_env.integrations.tianshou` | Tianshou 2 | `LearnerSeatAEC` (one learning seat for Tianshou's `PettingZooEnv`), `MaskedQNet`, `export_qnet` |

Install with the extras named in ``docs/guides/frameworks.md`` (the core install has none of these frameworks).
"""
