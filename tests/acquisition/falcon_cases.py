"""Seeded Falcon runs pinned by ``test_falcon_exact.py``, and the writer of their fixture.

The fixture ``fixtures/falcon_traces.json`` was written by the code of commit 89c33eb (before
Falcon's round was made cheaper) with ``PYTHONPATH=<that checkout>/src:. python -m
tests.acquisition.falcon_cases``. This module uses only what that code has.
"""

from __future__ import annotations

import functools
import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from fairacq import Trace
from fairacq.acquisition import FalconAcquirer, InMemoryPool
from fairacq.data import FairDataset, load_dataset, load_toy

FIXTURE = Path(__file__).parent / "fixtures" / "falcon_traces.json"
#: Trace columns compared exactly (selections and accounting) and to a tolerance (metrics).
EXACT = ("batch", "postponed", "arm", "target_label", "target_group", "cost", "n_train")
CLOSE = (
    "policy_r",
    "val_accuracy",
    "val_demographic_parity_diff_abs",
    "val_equalized_odds_diff",
    "test_accuracy",
    "test_demographic_parity_diff_abs",
)


def toy_run() -> Trace:
    """Both kinds of rounds, per-row costs, equalised odds, a pool of 64-row blocks."""
    ds = load_toy(900, random_state=3)
    train, val, pool = (
        ds.subset(range(100)),
        ds.subset(range(100, 250)),
        ds.subset(range(250, 900)),
    )
    costs = np.where(np.arange(len(pool)) % 3 == 0, 2.0, 0.5)
    acq = FalconAcquirer(
        budget=80.0,
        batch_size=6.0,
        lam=0.7,
        metric="equalized_odds_diff",
        warmup=10,
        random_state=2,
    )
    blocks = InMemoryPool(pool, block_rows=64, chunk_rows=128)
    return acq.fit(train, blocks, validation=val, test=val, costs=costs).trace_


@functools.cache
def adult_splits() -> tuple[FairDataset, ...]:
    """Adult by sex: 500 training, validation and test rows; the other 43,722 are the pool."""
    data = load_dataset("adult", sensitive="sex")
    order = np.random.default_rng(0).permutation(len(data))
    parts = (order[:500], order[500:1000], order[1000:1500], order[1500:])
    return tuple(data.subset(np.sort(p)) for p in parts)


def adult_run() -> Trace:
    """Thirty rounds of ten rows on the Adult pool (11 blocks of 4,096 rows), lambda 0.8."""
    train, val, test, pool = adult_splits()
    acq = FalconAcquirer(budget=300, batch_size=10, lam=0.8, warmup=50, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # lbfgs may stop at max_iter on a small training set
        return acq.fit(train, pool, validation=val, test=test).trace_


CASES: dict[str, Callable[[], Trace]] = {"toy": toy_run, "adult": adult_run}


def summary(trace: Trace) -> dict[str, Any]:
    """The pinned columns of a trace and its bandits' final probabilities, JSON-ready."""
    frame = trace.to_frame()
    cols = {c: [_plain(v) for v in frame[c]] for c in EXACT + CLOSE}
    return {"columns": cols, "bandits": trace.meta["bandit_probabilities"]}


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple, np.ndarray)):
        return [int(v) for v in value]
    return value.item() if isinstance(value, np.generic) else value


def record(path: Path = FIXTURE) -> None:
    """Write the fixture from the fairacq on the path (once, before a change)."""
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({name: summary(run()) for name, run in CASES.items()}) + "\n")


if __name__ == "__main__":
    record()
