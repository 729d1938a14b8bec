"""``python -m rummy_env.distill <subcommand> ...``: the checkpoint pipeline's command line (``cli.main``)."""

from __future__ import annotations

from .cli import main

raise SystemExit(main())
