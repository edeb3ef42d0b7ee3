"""A step's work does not grow with the run's history nor with the pool (counted, not timed).

The timings (a step near step 10 against one near step 1,000) are in
``benchmarks/step_cost.py``; here the work itself is counted.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from fairacq import CheckpointCallback
from fairacq._trace import _trace as trace_module
from fairacq.acquisition import DataSiftInfAcquirer
from fairacq.acquisition.loop._growing import GrowingArray
from fairacq.acquisition.loop._ledger import CostLedger, fill_limit
from fairacq.acquisition.methods._datasift import _batch_len
from fairacq.data import load_toy
from tests.checks import Interrupted, interrupt_at


@pytest.fixture(scope="module")
def toy():
    ds = load_toy(700, random_state=1)
    return ds.subset(range(100)), ds.subset(range(100, 250)), ds.subset(range(250, 700))


def _run(data, callbacks=(), continue_from=None, **kw):
    train, val, pool = data
    acq = DataSiftInfAcquirer(n_partitions=3, random_state=0, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return acq.fit(
            train, pool, validation=val, callbacks=callbacks, continue_from=continue_from
        ).trace_


def test_datasift_inf_step_encodes_no_more_late_than_early(toy, monkeypatch):
    """Each step converts its own row to JSON, never the whole history (the excluded rows)."""
    calls = [0]
    encode = trace_module.to_jsonable

    def counting(obj):
        calls[0] += 1
        return encode(obj)

    monkeypatch.setattr(trace_module, "to_jsonable", counting)
    marks: list[int] = []
    frame = _run(
        toy, [lambda rec: marks.append(calls[0])], budget=60, batch_size=5, tau=0.0,
        max_evaluations=40,
    ).to_frame()  # fmt: skip
    assert (~frame["accepted"].astype(bool)).sum() >= 20  # many rejected batches: history grows
    per_step = np.diff(marks)
    assert len(per_step) >= 30
    assert per_step[-10:].max() <= per_step[:10].max()


def test_growing_array_views_are_unchanging_snapshots():
    grow = GrowingArray([1, 2])
    first = grow.view()
    for k in range(10):  # past several reallocations
        grow.extend(np.arange(k, k + 7))
    assert first.tolist() == [1, 2]
    assert len(grow) == 2 + 70
    assert grow.view()[-7:].tolist() == list(range(9, 16))
    with pytest.raises(ValueError, match="read-only"):
        grow.view()[0] = 5


@pytest.mark.parametrize("uniform", [True, False])
@pytest.mark.parametrize("cost_model", ["kept", "evaluated"])
def test_ledger_running_totals_match_a_full_recount(uniform, cost_model):
    rng = np.random.default_rng(0)
    n = 1_000
    costs = np.ones(n) if uniform else rng.uniform(0.5, 3.0, n)
    available = rng.random(n) < 0.9
    seen = np.zeros(n, dtype=bool)
    seen[:50] = True
    ledger = CostLedger(costs, 400.0, cost_model, seen)
    for _ in range(60):
        batch = rng.choice(np.flatnonzero(available), size=8, replace=False)
        accepted = bool(rng.random() < 0.5)
        ledger.record(batch, accepted)
        if accepted:
            available[batch] = False
        open_rows = available & ~ledger.paid if cost_model == "evaluated" else available
        cheapest = np.min(costs[open_rows], initial=np.inf)
        assert ledger.out_of_budget(available) == (ledger.budget - ledger.spent < cheapest)
        assert ledger._cheapest_open(available) == cheapest
        assert ledger.counts()["labels_seen"] == int(np.count_nonzero(seen))
    available[:] = False
    assert ledger._cheapest_open(available) == np.inf
    ledger.mark_seen(np.array([3, 3, 999, 999]))  # repeated positions count once
    assert ledger.counts()["labels_seen"] == int(np.count_nonzero(seen))


def test_batch_len_sums_only_what_can_fit():
    rng = np.random.default_rng(1)
    costs = rng.uniform(0.2, 2.0, 500)
    for cap in (0.1, 1.0, 7.5, 40.0, 1e4):
        order = rng.permutation(500)
        full = int((np.cumsum(costs[order]) <= cap + 1e-9).sum())
        assert _batch_len(order, costs, cap, fill_limit(costs, cap)) == full
        assert _batch_len(order, costs, cap, 1) == full  # too small a limit: sums the rest


@pytest.mark.parametrize("cost_model", ["kept", "evaluated"])
def test_datasift_inf_counts_every_pool_label_it_ranked_on(toy, cost_model, tmp_path):
    """Influence scores read every pool label before the first batch: all are seen."""
    kw = {"budget": 60, "batch_size": 10, "tau": 0.0, "cost_model": cost_model}
    full = _run(toy, **kw).to_frame()
    pool = len(toy[2])
    assert (full["labels_seen"] == pool).all()
    assert full["rows_paid"].iloc[-1] <= 60 < pool  # paid rows stay capped; labels seen not
    ck = tmp_path / "ck"
    with pytest.raises(Interrupted):
        _run(toy, [CheckpointCallback(ck, every=1), interrupt_at(4)], **kw)
    resumed = _run(toy, continue_from=ck, **kw).to_frame()
    assert resumed.equals(full)
