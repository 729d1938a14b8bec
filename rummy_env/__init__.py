"""rummy_env: exact rules engines and PettingZoo environments for rummy-family card games."""

__version__ = "0.1.0"
