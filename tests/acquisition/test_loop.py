"""The shared acquisition loop: costs, early stop, rejection, single-class guard."""

from __future__ import annotations

import numpy as np
import pytest

from fairacq.acquisition import EntropyAcquirer, RandomAcquirer
from fairacq.acquisition.loop._acquisition_loop import fill_batch as _fill_batch
from fairacq.acquisition.loop._state import AcquisitionState
from fairacq.acquisition.methods._entropy import binary_entropy
from fairacq.data import load_toy
from fairacq.exceptions import InvalidDataError


def _parts(n=600):
    ds = load_toy(n, random_state=1)
    return ds.subset(range(100)), ds.subset(range(100, 250)), ds.subset(range(250, n))


def test_fill_batch_respects_cost_capacity():
    costs = np.array([1.0, 2.0, 3.0, 1.0])
    assert _fill_batch(np.array([0, 1, 2, 3]), costs, 3.0).tolist() == [0, 1]
    assert _fill_batch(np.array([2, 0]), costs, 2.5).tolist() == []
    assert _fill_batch(np.array([], dtype=np.int64), costs, 5).tolist() == []


def test_costs_budget_in_cost_units():
    train, val, pool = _parts()
    costs = np.where(np.arange(len(pool)) % 2 == 0, 1.0, 3.0)
    trace = (
        RandomAcquirer(budget=60, batch_size=20, random_state=0)
        .fit(train, pool, validation=val, costs=costs)
        .trace_
    )
    frame = trace.to_frame()
    assert frame["cost"].iloc[-1] <= 60
    assert (frame["batch_cost"].iloc[1:] <= 20).all()
    for batch, bc in zip(frame["batch"].iloc[1:], frame["batch_cost"].iloc[1:], strict=True):
        assert costs[np.asarray(batch, dtype=int)].sum() == pytest.approx(bc)
    with pytest.raises(InvalidDataError, match="finite positive"):
        RandomAcquirer(budget=10, batch_size=5).fit(
            train, pool, validation=val, costs=-np.ones(len(pool))
        )


def test_tau_stops_early():
    train, val, pool = _parts()
    acq = RandomAcquirer(budget=300, batch_size=20, tau=10.0, random_state=0)
    trace = acq.fit(train, pool, validation=val).trace_
    assert len(trace) == 1
    assert acq.stop_reason_ == "tau"
    capped = RandomAcquirer(budget=300, batch_size=20, max_evaluations=2, random_state=0)
    assert len(capped.fit(train, pool, validation=val).trace_) == 3
    assert capped.stop_reason_ == "max_evaluations"


def test_single_class_training_set_rejected():
    train, val, pool = _parts()
    one_class = train.subset(np.flatnonzero(train.y == 1))
    with pytest.raises(InvalidDataError, match="single class"):
        RandomAcquirer(budget=10, batch_size=5).fit(one_class, pool, validation=val)


def test_entropy_prefers_uncertain_rows():
    train, val, pool = _parts()
    acq = EntropyAcquirer(budget=40, batch_size=40, random_state=0)
    trace = acq.fit(train, pool, validation=val).trace_
    from fairacq.models import make_learner, predict_scores

    model = make_learner("lr", random_state=int(np.random.SeedSequence(0).generate_state(1)[0]))
    model.fit(train.to_numpy(), train.y)
    ent = binary_entropy(predict_scores(model, pool.to_numpy()))
    chosen = np.asarray(trace.to_frame()["batch"].iloc[1], dtype=int)
    assert ent[chosen].min() >= np.sort(ent)[-40] - 1e-12
    assert binary_entropy(np.array([0.0, 0.5])).tolist() == [0.0, 1.0]


def test_state_is_a_dataclass():
    assert "X_pool" in AcquisitionState.__dataclass_fields__


class _Interrupt(Exception):
    """Raised by a callback to simulate a killed run."""


def _interrupt_at(k):
    def callback(rec):
        if rec.n_steps >= k:
            raise _Interrupt

    return callback


@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("method", ["datasift-inf", "datasift", "inf", "entropy", "random"])
def test_interrupted_then_resumed_equals_uninterrupted(method, k, tmp_path):
    """A run stopped by an exception after step k and resumed from its checkpoint ends as the
    uninterrupted run: same batches, metrics and metadata (the influence scores are computed on
    the initial model in both)."""
    from fairacq import CheckpointCallback, Trace
    from fairacq.acquisition import make_acquirer

    train, val, pool = _parts(900)
    kw = {"budget": 200, "batch_size": 20, "tau": 0.0, "random_state": 4}
    if method.startswith("datasift"):
        kw["n_partitions"] = 3
    full = make_acquirer(method, **kw).fit(train, pool, validation=val, test=val).trace_
    ck = CheckpointCallback(tmp_path / "ck", every=1)
    with pytest.raises(_Interrupt):
        make_acquirer(method, **kw).fit(
            train, pool, validation=val, test=val, callbacks=[ck, _interrupt_at(k)]
        )
    acq = make_acquirer(method, **kw)
    resumed = acq.fit(train, pool, validation=val, test=val, continue_from=tmp_path / "ck").trace_
    assert len(full) > k + 1
    assert resumed == full
    assert acq.trace_ is resumed
    assert Trace.load(tmp_path / "ck") != full  # the checkpoint really was partial


def test_splits_that_are_not_fair_datasets_are_named():
    train, val, pool = _parts()
    cases = [
        ({"validation": None}, "validation must be a FairDataset, got None"),
        ({"validation": val.to_numpy()}, "validation must be a FairDataset, got ndarray"),
        ({"validation": val, "test": val.X}, "test must be a FairDataset, got DataFrame"),
    ]
    for kwargs, match in cases:
        with pytest.raises(InvalidDataError, match=match):
            RandomAcquirer(budget=20, batch_size=10).fit(train, pool, **kwargs)
    with pytest.raises(InvalidDataError, match="train must be a FairDataset, got ndarray"):
        RandomAcquirer(budget=20, batch_size=10).fit(train.to_numpy(), pool, validation=val)
