"""A local Ray instance for the Ray engine tests, started here (``ray.init(num_cpus=2)``), never an
external cluster; shut down after the last test of this folder."""

import os

import pytest

from support.paths import TESTS  # the workers import support.fakes from here


@pytest.fixture(scope="session")
def ray_local():
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'ev2r[ray]')")
    pytest.importorskip("ray.data", reason="Ray Data is not installed (pip install 'ev2r[ray]')")
    if ray.is_initialized():
        ray.shutdown()
    path = os.pathsep.join(p for p in (str(TESTS), os.environ.get("PYTHONPATH", "")) if p)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, object_store_memory=200 * 1024 ** 2,
             runtime_env={"env_vars": {"PYTHONPATH": path}})
    yield ray
    ray.shutdown()
