"""TorchRL and AgileRL (marker ``integration``; skipped without them; ``bash .ci/integration_clients.sh``): the recipes
of docs/guides/frameworks.md ("TorchRL", "AgileRL") run exactly as written, each code block as a script in a
subprocess, and train a few hundred decisions. Their env lines use ``illegal_action="raise"``, so one illegal action
fails the run: a run that finishes took none. Each test prints the recipe's decisions per second beside the raw
env's (random legal play through the same env, measured in the same test)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "guides" / "frameworks.md"
#: the line every recipe prints at its end
RESULT = re.compile(r"^(?P<who>[A-Za-z ]+): (?P<decisions>\d+) decisions in [\d.]+ s, (?P<rate>\d+) steps/s$", re.M)


def recipes(section: str) -> list[str]:
    """The python code blocks of the guide's section ``## <section>``, in order."""
    text = GUIDE.read_text(encoding="utf-8")
    assert f"\n## {section}\n" in text, f"frameworks.md lost its section {section!r}"
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", body, re.S)


def run_recipe(code: str, tmp_path: Path, timeout: int = 600) -> dict[str, Any]:
    """``code`` as a script in ``tmp_path`` (its working directory), in this Python; its result line parsed."""
    assert 'illegal_action="raise"' in code or "make_vec(" in code, "a recipe must fail on an illegal action"
    script = tmp_path / "recipe.py"
    script.write_text(code, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, f"the recipe failed:\n{done.stdout[-2000:]}\n{done.stderr[-6000:]}"
    found = RESULT.search(done.stdout)
    assert found, f"no result line in the recipe's output:\n{done.stdout[-2000:]}"
    return {"who": found["who"], "decisions": int(found["decisions"]), "rate": int(found["rate"])}


def raw_aec_rate(decisions: int = 4000) -> float:
    """Decisions per second of random legal play through ``contract_v0.env(rounds=(1,), flat_observation=True)``."""
    from rummy_env import contract_v0

    env = contract_v0.env(rounds=(1,), flat_observation=True, illegal_action="raise")
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    done, start = 0, time.perf_counter()
    while done < decisions:
        for _agent in env.agent_iter():
            _, _, term, trunc, info = env.last()
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(info["action_mask"]))))
            done += 1
        env.reset()
    return done / (time.perf_counter() - start)


def raw_vector_rate(decisions: int = 4000) -> float:
    """Learner decisions per second of random legal actions through the AgileRL PPO recipe's vector env."""
    import gymnasium

    import rummy_env  # noqa: F401 - registers the ids

    env = gymnasium.make_vec("rummy_env/Contract-v0", num_envs=4, flat_observation=True, opponents=["random"],
                             rounds=(1,))
    rng = np.random.default_rng(0)
    _, infos = env.reset(seed=0)
    done, start = 0, time.perf_counter()
    while done < decisions:
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in infos["action_mask"]])
        _, _, _, _, infos = env.step(actions)
        done += env.num_envs
    return done / (time.perf_counter() - start)


def needs(module: str) -> None:
    """Skip without ``module`` (not imported here: the recipes import the clients in their own process)."""
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (bash .ci/integration_clients.sh)")


def report(result: dict[str, Any], raw: float, what: str) -> None:
    print(f"\n{result['who']}: {result['decisions']} decisions, {result['rate']} steps/s; {what}: {raw:.0f} "
          f"steps/s (ratio {raw / max(result['rate'], 1):.0f}x), 0 illegal actions")


def test_torchrl_recipe_trains_with_masks_and_no_illegal_action(tmp_path) -> None:
    """TorchRL's ``PettingZooWrapper(use_mask=True)`` + ``MaskedCategorical`` PPO over ``flat_observation=True``."""
    needs("torchrl")
    (code,) = recipes("TorchRL")
    assert "flat_observation=True" in code and "MaskedCategorical" in code
    result = run_recipe(code, tmp_path)
    assert result["decisions"] >= 600
    report(result, raw_aec_rate(), "raw AEC env, random legal play")


def test_agilerl_ppo_recipe_trains_on_the_batched_gymnasium_env(tmp_path) -> None:
    """AgileRL's PPO and ``train_on_policy`` over ``gymnasium.make_vec(..., flat_observation=True)``: the mask in
    ``infos["action_mask"]``; the vector env raises on an illegal learner action."""
    needs("agilerl")
    ppo, _ = recipes("AgileRL")
    assert "flat_observation=True" in ppo and "train_on_policy" in ppo
    result = run_recipe(ppo, tmp_path)
    assert result["decisions"] >= 512
    report(result, raw_vector_rate(), "raw vector env (4 tables, random bots), random legal learner actions")


def test_agilerl_maddpg_recipe_trains_on_the_turn_based_env(tmp_path) -> None:
    """AgileRL's MADDPG and ``train_multi_agent_off_policy`` over ``AsyncPettingZooVecEnv`` of
    ``turn_based_aec_to_parallel(contract_v0.env(flat_observation=True))``: the masks in ``info[agent]``."""
    needs("agilerl")
    _, maddpg = recipes("AgileRL")
    assert "flat_observation=True" in maddpg and "AsyncPettingZooVecEnv" in maddpg
    result = run_recipe(maddpg, tmp_path)
    assert result["decisions"] >= 256
    report(result, raw_aec_rate(), "raw AEC env, random legal play")


def test_a_recipe_that_takes_an_illegal_action_fails(tmp_path) -> None:
    """The check can fail: the TorchRL recipe with the plain ``Categorical`` (the mask ignored) takes an illegal
    action at once, and ``illegal_action="raise"`` stops it."""
    needs("torchrl")
    (code,) = recipes("TorchRL")
    unmasked = code.replace('"mask": ("agents", "action_mask")', "").replace(
        "distribution_class=MaskedCategorical", "distribution_class=torch.distributions.Categorical")
    assert unmasked != code
    with pytest.raises(AssertionError, match="IllegalActionError"):
        run_recipe(unmasked, tmp_path)
