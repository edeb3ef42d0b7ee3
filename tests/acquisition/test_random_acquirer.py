from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone

from fairacq import CheckpointCallback, Trace
from fairacq.acquisition import RandomAcquirer
from fairacq.data import load_toy
from fairacq.exceptions import BudgetError, InvalidDataError, InvalidParameterError


def _parts(n=600):
    ds = load_toy(n, random_state=1)
    return ds.subset(range(100)), ds.subset(range(100, 250)), ds.subset(range(250, n))


def test_trace_shape_and_determinism(seed):
    train, val, pool = _parts()
    acq = RandomAcquirer(budget=90, batch_size=40, random_state=seed)
    params = acq.get_params()
    trace = acq.fit(train, pool, validation=val, test=val).trace_
    assert acq.get_params() == params  # hyper-parameters untouched
    frame = trace.to_frame()
    assert frame["cost"].tolist() == [0.0, 40.0, 80.0, 90.0]
    assert frame["n_train"].tolist() == [100, 140, 180, 190]
    acquired = np.concatenate([np.asarray(a, dtype=int) for a in frame["batch"]])
    assert len(set(acquired.tolist())) == 90
    assert acquired.max() < len(pool)
    np.testing.assert_array_equal(acq.acquired_, acquired)
    assert {"val_accuracy", "test_demographic_parity_diff_abs"} <= set(frame.columns)
    same = clone(acq).fit(train, pool, validation=val, test=val).trace_
    assert same == trace
    other = (
        RandomAcquirer(budget=90, batch_size=40, random_state=seed + 1)
        .fit(train, pool, validation=val, test=val)
        .trace_
    )
    assert other != trace


def test_resume_equals_uninterrupted(tmp_path):
    train, val, pool = _parts()
    full = (
        RandomAcquirer(budget=120, batch_size=30, random_state=0)
        .fit(train, pool, validation=val)
        .trace_
    )
    stopper = [CheckpointCallback(tmp_path / "ck", every=1), lambda rec: rec.n_steps < 3]
    part = (
        RandomAcquirer(budget=120, batch_size=30, random_state=0)
        .fit(train, pool, validation=val, callbacks=stopper)
        .trace_
    )
    assert len(part) == 3
    resumed = (
        RandomAcquirer(budget=120, batch_size=30, random_state=0)
        .fit(train, pool, validation=val, continue_from=Trace.load(tmp_path / "ck"))
        .trace_
    )
    cols = ["step", "cost", "n_train", "val_accuracy", "val_demographic_parity_diff_abs"]
    assert resumed.to_frame()[cols].equals(full.to_frame()[cols])


def test_bad_inputs():
    train, val, pool = _parts()
    with pytest.raises(BudgetError, match=r"\(0, 350\] \(the pool size\)"):
        RandomAcquirer(budget=10_000).fit(train, pool, validation=val)
    with pytest.raises(BudgetError, match="exceeds its budget"):
        RandomAcquirer(budget=10, batch_size=20).fit(train, pool, validation=val)
    with pytest.raises(InvalidParameterError, match="'metric' parameter"):
        RandomAcquirer(budget=10, metric="dp").fit(train, pool, validation=val)
    with pytest.raises(InvalidParameterError, match="'budget' parameter"):
        RandomAcquirer(budget=0).fit(train, pool, validation=val)
    other = load_toy(100, n_groups=3)
    with pytest.raises(InvalidDataError, match="differ"):
        RandomAcquirer(budget=10, batch_size=5).fit(train, other, validation=val)
