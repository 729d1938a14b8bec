#!/usr/bin/env bash
# Integration tests of the TorchRL and AgileRL recipes (docs/guides/frameworks.md, "TorchRL" and "AgileRL"): a fresh
# virtual environment of their own (.venv-clients: agilerl pins pettingzoo<1.27 and tensordict==0.13.0, and pulls
# peft / transformers; the core and RLlib venvs stay as they are), the tested versions, then `pytest -m integration`
# on tests/integrations/test_integration_clients.py (each recipe run as written, 0 illegal actions, steps/s printed beside the raw
# env's). Exits non-zero if the install or any test fails, or if the clients cannot be imported (so that the tests
# cannot pass by being skipped). No GPU, no network but PyPI.
#
#   bash .ci/integration_clients.sh            # from the repository root or anywhere
#   CLIENTS_VENV=/tmp/v bash .ci/integration_clients.sh
set -euo pipefail
cd "$(dirname "$0")/.."

VENV="${CLIENTS_VENV:-.venv-clients}"
# the tested versions (docs/guides/frameworks.md, "Compatibility"); agilerl 2.58.0 imports peft at import time
# without declaring it (only its llm extras do), and asks for pettingzoo<1.27
PINS=("torchrl==0.13.3" "tensordict==0.13.0" "agilerl==2.58.0" "peft==0.21.0" "pettingzoo==1.26.1" "gymnasium==1.4.0")

t0=$(date +%s)
python3 -m venv --clear "$VENV"
# shellcheck disable=SC1091
. "$VENV/bin/activate"
pip install -q --upgrade pip
pip install -q torch==2.13.0 # first, so that nothing pulls a CUDA build
pip install -q -e ".[test]" "${PINS[@]}" "safetensors>=0.4" "pyyaml>=6" "tqdm>=4.60" "openskill>=6"
t1=$(date +%s)
echo "integration_clients: install $((t1 - t0)) s"
python -c "import torchrl, tensordict, agilerl.algorithms, pettingzoo, gymnasium, torch; \
from importlib.metadata import version; print('integration_clients: torchrl', torchrl.__version__, 'tensordict', \
tensordict.__version__, 'agilerl', version('agilerl'), 'pettingzoo', pettingzoo.__version__, 'gymnasium', \
gymnasium.__version__, 'torch', torch.__version__)"

# -rP: the steps/s each test prints (recipe and raw env, same run)
timeout 1200 python -m pytest -q -m integration -p no:cacheprovider -W ignore::pytest.PytestUnknownMarkWarning \
    -rP --durations=10 tests/integrations/test_integration_clients.py
echo "integration_clients: tests $(($(date +%s) - t1)) s"
