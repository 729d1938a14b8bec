"""Trained policies as data: the checkpoint format (``checkpoints``: safetensors + JSON, validated before any
allocation, never unpickled) and the masked actor-critic network (``policy``, the only module that needs torch)."""
