"""``python -m rummy_env.cli``: the ``rummy`` command."""

import sys

from .commands import main

sys.exit(main())
