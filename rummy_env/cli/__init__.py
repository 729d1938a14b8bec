"""The ``rummy`` command (``main``) and terminal play (``play``)."""

from .commands import main

__all__ = ["main"]
