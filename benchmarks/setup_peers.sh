#!/usr/bin/env bash
# Create the peers' virtual environment for `rummy bench --compare`: PettingZoo 1.26.1 (the last release with
# gin_rummy_v4; its classic extra brings RLCard) and OpenSpiel (`open_spiel` from PyPI, where a wheel exists for
# this Python). Kept apart from the project's venv so the peers' pins never touch ours.
#
#   bash benchmarks/setup_peers.sh            # creates .venv-peers next to the repository root
#   PEERS_VENV=/tmp/peers bash benchmarks/setup_peers.sh
#   PYTHON=python3.11 bash benchmarks/setup_peers.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${PEERS_VENV:-$root/.venv-peers}"
python="${PYTHON:-python3}"

"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
# PettingZoo's gin_rummy_v4 wraps RLCard's gin rummy: the [classic] extra installs rlcard (and its pins)
"$venv/bin/python" -m pip install "pettingzoo[classic]==1.26.1"
"$venv/bin/python" -m pip install rlcard
# OpenSpiel publishes wheels for some Pythons and platforms only; without one, pip would try to build it from
# source (CMake + a C++ toolchain + a download of its dependencies), so only a prebuilt wheel is accepted here
if ! "$venv/bin/python" -m pip install --only-binary=:all: open_spiel; then
    echo "setup_peers: no open_spiel wheel for $("$venv/bin/python" -V) on this platform;" \
         "rummy bench --compare will report OpenSpiel as not installed" >&2
fi
"$venv/bin/python" - <<'PY'
import importlib
for name in ("pettingzoo", "rlcard", "pyspiel"):
    try:
        mod = importlib.import_module(name)
        print(f"{name}: {getattr(mod, '__version__', 'installed')}")
    except ImportError as exc:
        print(f"{name}: NOT installed ({exc})")
PY
echo "peers venv: $venv (python: $venv/bin/python)"
