"""A real two-node Ray cluster on one machine (Ray's own ``ray.cluster_utils.Cluster``: a head and a worker node of
one CPU each, on the loopback interface): RLlib places one env runner on each node and trains, and a tournament on
the cluster (``address=``) equals the local backend's output for the same seed, checkpoint entrants given by a
relative path and by a shipped name included (marker ``integration``; needs ``ray[rllib]``).
"""

from __future__ import annotations

import os

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # bind Ray to 127.0.0.1; read when ray is imported
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import shutil  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

pytestmark = pytest.mark.integration

ray = pytest.importorskip("ray")
pytest.importorskip("ray.rllib")
pytest.importorskip("safetensors")

from ray.cluster_utils import Cluster  # noqa: E402

from rummy_env.evaluation.tournament import tournament  # noqa: E402
from rummy_env.integrations.ray_backend import LOCAL_RAY_NOTE, portable_entrant, run_matches_ray  # noqa: E402
from rummy_env.models.checkpoints import resolve_checkpoint  # noqa: E402

NODE = {"num_cpus": 1, "object_store_memory": 150 * 1024**2}


@pytest.fixture(scope="module")
def cluster():
    """Head + one worker node, one CPU each; nothing of it is left running after the module."""
    if ray.is_initialized():
        ray.shutdown()
    c = Cluster(initialize_head=True, head_node_args={**NODE, "include_dashboard": False})
    c.add_node(**NODE)
    c.wait_for_nodes()
    ray.init(address=c.address, log_to_driver=False)  # once here: Ray's first init sets PYTHONBREAKPOINT for good
    ray.shutdown()
    yield c
    if ray.is_initialized():
        ray.shutdown()
    c.shutdown()


def _strip(results: dict) -> dict:
    return {k: v for k, v in results.items() if k != "timing"}


def test_the_cluster_has_two_nodes_and_tasks_reach_both(cluster) -> None:
    def node_of(seconds: float) -> str:  # nested: pickled by value, so the workers need not import this test file
        time.sleep(seconds)
        return ray.get_runtime_context().get_node_id()

    nodes = run_matches_ray(node_of, [0.5] * 4, address=cluster.address)
    assert not ray.is_initialized()  # joined for the call, left afterwards
    assert len(set(nodes)) == 2, nodes


def test_tournament_on_the_cluster_equals_the_local_backend(cluster, tmp_path: Path, monkeypatch, capsys) -> None:
    shipped = Path(resolve_checkpoint("contract"))
    monkeypatch.chdir(tmp_path)
    for suffix in (".safetensors", ".json"):  # a checkpoint named by a relative path, as in the docs' example
        shutil.copy(shipped.with_name(shipped.name + suffix), tmp_path / ("mine" + suffix))
    entrants = ["checkpoint:mine", "checkpoint:contract", "heuristic", "random"]
    assert portable_entrant("checkpoint:mine@sample") == f"checkpoint:{tmp_path / 'mine'}@sample"
    assert portable_entrant("checkpoint:contract") == "checkpoint:contract"
    kw = dict(sessions=4, seed=11, rounds=(1,))
    local = tournament("contract", entrants, **kw)
    start = time.perf_counter()
    on_cluster = tournament("contract", entrants, backend="ray", address=cluster.address, **kw)
    print(f"2-node tournament: {time.perf_counter() - start:.1f} s")
    assert _strip(on_cluster) == _strip(local)
    assert LOCAL_RAY_NOTE not in capsys.readouterr().err  # an address was given: no local Ray


def test_rllib_places_env_runners_on_both_nodes_and_trains(cluster) -> None:
    from ray.rllib.algorithms.ppo import PPOConfig

    from rummy_env.integrations.rllib import masked_ppo_config

    ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False)
    config = (
        masked_ppo_config(PPOConfig(), profile="continental", env_config={"rounds": 1},
                          model_config={"fcnet_hiddens": [32]}, snapshot_every=None)  # fmt: skip
        .env_runners(num_env_runners=2, num_cpus_per_env_runner=1)
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=256, minibatch_size=128, num_epochs=1)
        .debugging(seed=0)
    )
    algo = config.build_algo()
    try:
        nodes = algo.env_runner_group.foreach_env_runner(
            lambda _runner: ray.get_runtime_context().get_node_id(), local_env_runner=False
        )
        assert len(nodes) == 2 and len(set(nodes)) == 2, nodes
        result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 256
    finally:
        algo.stop()
        ray.shutdown()
