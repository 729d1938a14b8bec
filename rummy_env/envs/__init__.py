"""PettingZoo AEC environments, one versioned module per profile."""
