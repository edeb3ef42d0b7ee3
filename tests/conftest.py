"""Shared fixtures: seeds, toy data, single-threaded numerics and offline data.

Offline data: ``FAIRACQ_DATA`` names the folder of the datasets fairacq cannot bundle. When
it is unset and this checkout sits beside ``../shared/datasets`` (CI, developers), that
folder is used. Tests that read it go through one fixture, :func:`shared_data`, driven by the
``needs_data`` marker; they skip when the data is absent (a user's fresh clone).
"""

from __future__ import annotations

import os
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("MPLBACKEND", "Agg")

import pytest
from hypothesis import HealthCheck, settings

#: A module that fails on import on purpose (``--model tests.broken_model_module:Model``).
collect_ignore = ["broken_model_module.py"]

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "datasets"
if "FAIRACQ_DATA" not in os.environ and SHARED_DATA.is_dir():
    os.environ["FAIRACQ_DATA"] = str(SHARED_DATA)

settings.register_profile("dev", max_examples=50, deadline=None)
settings.register_profile(
    "ci", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def _seeds() -> list[int]:
    return list(range(20)) if os.environ.get("FAIRACQ_TEST_SEEDS") == "all" else [42]


@pytest.fixture(params=_seeds())
def seed(request: pytest.FixtureRequest) -> int:
    """The test seed (42; FAIRACQ_TEST_SEEDS=all sweeps 0-19)."""
    return int(request.param)


@pytest.fixture
def shared_data(request: pytest.FixtureRequest) -> Path:
    """Return the folder of the datasets fairacq cannot bundle (``$FAIRACQ_DATA``), or skip.

    The one place that decides whether a test that needs those datasets runs. A test names
    what it reads with ``@pytest.mark.needs_data("movielens-100k", ...)`` (folders or files
    inside the data folder); the marker alone is enough (the fixture then runs without being
    an argument). The test is skipped, naming the data and ``FAIRACQ_DATA``,
    when any of them is absent, so ``make test`` passes on a clone without the data.
    """
    from fairacq.data import data_dir

    marker = request.node.get_closest_marker("needs_data")
    wanted = tuple(marker.args) if marker is not None else ()
    if not wanted:
        pytest.fail(
            f"{request.node.nodeid} uses shared_data without naming the data it reads; add "
            '@pytest.mark.needs_data("<folder or file under FAIRACQ_DATA>", ...).'
        )
    root = data_dir()
    missing = [w for w in wanted if not (root / w).exists()]
    if missing:
        pytest.skip(
            f"needs {', '.join(missing)} under FAIRACQ_DATA (now {root}); point FAIRACQ_DATA "
            "at a folder holding it (see docs/datasets.md and `fairacq datasets fetch`)"
        )
    return root


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tie the ``needs_data`` marker and the ``shared_data`` fixture together.

    A test using the fixture gets the marker (so ``-m needs_data`` selects every test that
    reads FAIRACQ_DATA), and a test with the marker gets the fixture (which skips it when the
    data is absent). Runs before ``-m`` deselects.
    """
    for item in items:
        names = getattr(item, "fixturenames", None)
        if names is None:
            continue
        if "shared_data" in names and item.get_closest_marker("needs_data") is None:
            item.add_marker(pytest.mark.needs_data())
        if item.get_closest_marker("needs_data") is not None and "shared_data" not in names:
            names.append("shared_data")
