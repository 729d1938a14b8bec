"""Playing matches and reading their results: tournaments with ratings (``tournament``), seeded bot matchups
(``bots_eval``), a policy or checkpoint against bots (``policy_eval``, the one evaluation path of training and the
checkpoint pipeline) and throughput measurement (``bench``; ``peer_bench`` beside the peers' gin rummy)."""
