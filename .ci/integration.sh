#!/usr/bin/env bash
# Integration tests of the external frameworks (RLlib, Tianshou): a fresh virtual environment of their own
# (.venv-int: ray[rllib] pins gymnasium, and the core venv stays light), the tested versions, then
# `pytest -m integration` on tests/test_integration_*.py. Exits non-zero if the install or any test fails, or if the
# frameworks cannot be imported (so that the tests cannot pass by being skipped). No GPU, no network but PyPI.
#
#   bash .ci/integration.sh            # from the repository root or anywhere
#   INTEGRATION_VENV=/tmp/v bash .ci/integration.sh
set -euo pipefail
cd "$(dirname "$0")/.."

VENV="${INTEGRATION_VENV:-.venv-int}"
# the tested versions (docs/guides/frameworks.md); gymnasium is the version ray[rllib] 2.60.0 pins
PINS=("ray[rllib]==2.60.0" "tianshou==2.0.1" "gymnasium==1.2.2")

t0=$(date +%s)
python3 -m venv --clear "$VENV"
# shellcheck disable=SC1091
. "$VENV/bin/activate"
pip install -q --upgrade pip
pip install -q torch==2.13.0 # first, so that nothing pulls a CUDA build
pip install -q -e ".[test]" "${PINS[@]}" "safetensors>=0.4" "pyyaml>=6" "tqdm>=4.60" "openskill>=6"
t1=$(date +%s)
echo "integration: install $((t1 - t0)) s"
python -c "import ray, ray.rllib, tianshou, gymnasium, torch; print('integration: ray', ray.__version__, \
'tianshou', tianshou.__version__, 'gymnasium', gymnasium.__version__, 'torch', torch.__version__)"

# Ray on the loopback interface only, no usage statistics, a small object store (set in the tests)
export RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 RAY_USAGE_STATS_ENABLED=0
timeout 1200 python -m pytest -q -m integration -p no:cacheprovider -W ignore::pytest.PytestUnknownMarkWarning \
    --durations=10 tests/integrations/test_integration_rllib.py tests/integrations/test_integration_tianshou.py \
    tests/integrations/test_integration_ray_tournament.py tests/integrations/test_integration_ray_cluster.py
echo "integration: tests $(($(date +%s) - t1)) s"
