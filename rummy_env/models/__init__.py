"""Trained policies as data: the checkpoint format (``checkpoints``: safetensors + JSON, validated before any
allocation, never unpickled), the networks (``policy``: ``masked_mlp`` and ``card_action``, the only module that
needs torch) and the static action features of ``card_action`` (``action_features``, numpy only)."""
