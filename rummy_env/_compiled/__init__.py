"""Cython-compiled twins of the hot pure-Python modules, built by ``setup.py`` from the same source files:
``melds`` (``rummy_env/core/melds.py``), ``contract_opening``, ``contract_layoff`` and ``continental_hand``
(``rummy_env/rules/``). Holds no Python source of its own; ``rummy_env.core._impl`` selects between the two
implementations (``RUMMY_ENV_IMPL``). Empty, and never imported, when the package was installed without a compiler.
"""
