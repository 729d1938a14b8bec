"""The pipeline that makes the shipped checkpoints: labels from a teacher, a fit of a residual network to them, and
its evaluation -- one command with subcommands, ``python -m rummy_env.distill <subcommand> [--help]``.

| subcommand | module | what it does |
|---|---|---|
| ``search-labels`` | ``search_labels`` | labels of a teacher bot's moves (the ``search`` bot, or any bot id, e.g. a styled heuristic) on the heuristic's or the teacher's own games, in resumable shards |
| ``search-distill`` | ``search_distill`` | distils such labels into a ``card_prior`` / ``card_prior_measures`` network (the shipped ``contract`` and ``continental``) |
| ``search-consistency`` | ``search_consistency`` | how often two searches of the same position agree (the noise in search labels) |
| ``advantage-labels`` | ``advantage_labels`` | rollout advantages of every legal action at sampled decisions of the heuristic's games, in resumable shards |
| ``advantage-fit`` | ``advantage_fit`` | fits a ``card_prior`` network to those advantages, saved with a margin (the shipped ``contract_gamerules``) |
| ``advantage-curve`` | ``advantage_curve`` | the learning curve of such a fit over more label folders |
| ``checkpoint-curve`` | ``checkpoint_curve`` | the learning curve of a run from its saved checkpoints |
| ``evaluate`` | ``evaluate`` | checkpoints against bots with 95 % intervals; ``--manifest DIR`` re-measures a folder (the shipped manifest with ``--write``); ``--plot`` draws learning curves |

The base of a fit is a warm-started ``card_prior`` network from ``training/ppo.py``; the commands that rebuild each
shipped checkpoint are in docs/guides/training.md. Shared parts: ``shards`` (label files, fitted metadata),
``manifest``, ``plots``. Every output is written atomically; none goes into the shipped checkpoints' folder without
``--overwrite-shipped`` (``evaluate --manifest DIR --write`` names its folder and asks), and no command writes its
output over one of its own inputs. Every evaluation goes through ``rummy_env.evaluation.policy_eval``. Needs the
``[train]`` extra (torch, matplotlib for the figures).
"""
