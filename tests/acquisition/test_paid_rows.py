"""Every row paid for is listed once, with whether it was trained on and its cost; the cost
column sums to the run's reported cost (Falcon's postponed rows and rejected batches under
``cost_model="evaluated"`` included)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from fairacq import TraceRecorder
from fairacq.acquisition import (
    ROW_COLUMNS,
    acquired_rows,
    acquisition_steps,
    check_pool_columns,
    make_acquirer,
)
from fairacq.data import load_toy, split_datasift
from fairacq.exceptions import InvalidDataError, NotFittedError


@pytest.fixture(scope="module")
def split():
    return split_datasift(load_toy(1500, random_state=3), random_state=0)


def _run(method, split, costs, **kw):
    acq = make_acquirer(method, budget=80.0, batch_size=20.0, tau=0.0, random_state=0, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        acq.fit(split.train, split.pool, validation=split.validation, costs=costs)
    return acq


def _costs(split):
    return np.random.default_rng(7).uniform(0.5, 3.0, len(split.pool)).round(2)


@pytest.mark.parametrize(
    ("method", "kw"),
    [
        ("falcon", {}),
        ("datasift-inf", {}),
        ("datasift-inf", {"cost_model": "evaluated"}),
        ("datasift", {"cost_model": "evaluated"}),
        ("random", {}),
    ],
)
def test_cost_column_sums_to_the_reported_cost(split, method, kw):
    costs = _costs(split)
    acq = _run(method, split, costs, **kw)
    rows = acquired_rows(acq, split.pool)
    last = acq.trace_.to_frame().iloc[-1]
    assert rows["cost_paid"].sum() == pytest.approx(float(last["cost"]), abs=1e-9)
    assert rows["cost_paid"].tolist() == costs[rows["pool_row"]].tolist()
    assert len(rows) == int(last["rows_paid"]) == rows["pool_row"].nunique()
    trained = rows.loc[rows["trained_on"], "pool_row"]
    assert sorted(trained) == sorted(acq.acquired_.tolist())
    assert list(rows.columns[: len(ROW_COLUMNS)]) == list(ROW_COLUMNS)
    assert rows["order"].tolist() == list(range(len(rows)))


def test_falcon_lists_its_postponed_rows_as_paid_not_trained_on(split):
    acq = _run("falcon", split, _costs(split))
    rows = acquired_rows(acq, split.pool)
    set_aside = rows.loc[~rows["trained_on"], "pool_row"].tolist()
    assert acq.postponed_.size > 0
    assert sorted(set_aside) == sorted(acq.postponed_.tolist())
    assert rows["step"].is_monotonic_increasing  # each row at the step that paid for it


def test_evaluated_lists_rejected_rows_kept_pays_only_kept(split):
    costs = _costs(split)
    evaluated = _run("datasift-inf", split, costs, cost_model="evaluated")
    rows = acquired_rows(evaluated, split.pool)
    assert (~rows["trained_on"]).any(), "some tried batch was not kept"
    kept = _run("datasift-inf", split, costs)
    kept_rows = acquired_rows(kept, split.pool)
    assert kept_rows["trained_on"].all()
    assert len(kept_rows) == kept.acquired_.size


def _trace(rows, config):
    rec = TraceRecorder(method="x", config=config)
    rec.record(step=0, cost=0.0, batch=[], accepted=True)
    for step, (batch, accepted) in enumerate(rows, 1):
        rec.record(step=step, cost=0.0, batch=batch, accepted=accepted)
    return rec.finish()


def test_a_row_tried_twice_is_paid_once_at_its_first_try():
    rows = [([1, 2], False), ([2, 3], True), ([4], False)]
    evaluated = acquisition_steps(_trace(rows, {"cost_model": "evaluated"}))
    assert evaluated["pool_row"].tolist() == [1, 2, 3, 4]
    assert evaluated["step"].tolist() == [1, 1, 2, 3]
    assert evaluated["batch"].tolist() == [1, 1, 2, 3]
    assert evaluated["trained_on"].tolist() == [False, True, True, False]
    kept = acquisition_steps(_trace(rows, {"cost_model": "kept"}))
    assert kept["pool_row"].tolist() == [2, 3]
    assert kept["step"].tolist() == [2, 2]
    assert kept["batch"].tolist() == [1, 1]
    assert kept["trained_on"].all()


def test_pool_columns_that_would_clash_are_refused():
    check_pool_columns(["age", "cost", "fee"])
    with pytest.raises(InvalidDataError, match=r"pool.csv has columns named \['step'"):
        check_pool_columns(["age", "step"], where="pool.csv")


def test_acquired_rows_before_a_run_is_refused(split):
    with pytest.raises(NotFittedError, match="has not run"):
        acquired_rows(make_acquirer("random"), split.pool)


def test_without_costs_every_row_costs_one(split):
    acq = _run("falcon", split, None)
    rows = acquired_rows(acq, split.pool)
    assert set(rows["cost_paid"]) == {1.0}
    assert rows["cost_paid"].sum() == acq.trace_.final("cost")
    assert isinstance(rows, pd.DataFrame)
