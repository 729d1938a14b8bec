"""What the training scripts of ``training/`` share, so that each script stays one readable file (CleanRL's manner):
``training/ppo.py`` keeps its config, GAE, the PPO update and its main loop, and imports the rest from here.

| module | holds |
|---|---|
| ``config`` | a script's config: dataclass <- YAML file <- command line, every field checked against ``FIELD_RANGES`` (``ConfigError``: one line, exit code 2); files and values read through ``rummy_env.core.files`` |
| ``outputs`` | where a command may write (never into the shipped checkpoints unasked: ``--overwrite-shipped``; never over its own inputs) and atomic writes (temporary file + ``os.replace``) |
| ``rollout`` | ``Collector`` (whole tables in one ``VectorEnv``, batched inference) and the ``RolloutBuffer`` it fills |
| ``seats`` | ``SeatChains``: each recorded seat's own chain of decisions and rewards |
| ``pool`` | the opponent pool: the role of every seat at each deal, the frozen snapshots |
| ``workers`` | ``Rollouts``: collection in this process or in worker processes collecting ahead; ``planned_steps`` |
| ``warm_start`` | behaviour cloning of a teacher bot before PPO, the agreement per decision kind |
| ``resume`` | what a run's checkpoint records, and ``--resume`` from it |
| ``run_log`` | the run's folder, TensorBoard, ``progress.jsonl``, ``eval.jsonl``, evaluations during and after the run |
| ``extras`` | one-line install hints for a missing optional dependency |

Nothing here imports torch at import time: a module that needs it imports it inside the function that builds or
runs a network. The policy is measured by ``rummy_env.evaluation.policy_eval``, the one evaluation path; the
pipeline that makes the shipped checkpoints is ``rummy_env.distill``.
"""
