"""Ray actors that each own a private desktop, and a pool of them spreading tasks (local Ray)."""

from __future__ import annotations

import os
import sys

import pytest
import ray
from ray import cloudpickle


from handrail.pool import DesktopPool

# The actors cannot import this test module: its functions travel by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def one_task(worker, name):
    """Runs inside an actor: a reset, a look, and where it ran."""

    async def go(computer):
        report = await computer.reset(turn=f"pool/{name}")
        seen = await computer.see()
        return report, seen

    report, seen = worker.run_async(go, timeout=120)
    return {"task": name, "pid": os.getpid(), "display": worker.info()["display"], "clean": report.clean,
            "turn": report.turn, "verdict": seen.verdict, "obs": seen.observation.id}


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"HANDRAIL_BIN": os.environ["HANDRAIL_BIN"]}})
    yield
    ray.shutdown()


def test_a_pool_of_two_desktops_runs_every_task_once_on_separate_desktops(local_ray):
    with DesktopPool(2) as pool:
        assert len({i["display"] for i in pool.infos}) == 2, pool.infos
        assert all(i["ready_s"] is not None for i in pool.infos)
        results = pool.map(one_task, [f"t{i}" for i in range(4)])
        actors = [a for a in pool.actors]
    assert [r["task"] for r in results] == ["t0", "t1", "t2", "t3"]
    assert all(r["clean"] and r["verdict"].startswith("ok") for r in results), results
    assert [r["turn"] for r in results] == ["pool/t0", "pool/t1", "pool/t2", "pool/t3"]
    assert len({r["pid"] for r in results}) == 2, results
    assert {r["display"] for r in results} == {i["display"] for i in pool.infos}
    assert actors and pool.actors == []
