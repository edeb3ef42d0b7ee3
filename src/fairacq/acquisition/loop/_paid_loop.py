"""The acquisition loop for methods that may pay for a label and then not train on the row.

Falcon (Tae et al., PVLDB 2024) buys the labels of rows it hopes belong to a target group and
*postpones* those whose label puts them outside it: the label was paid for, the row leaves the
pool, but the model does not learn it. :class:`PaidRowsLoop` is the shared
:class:`~fairacq.acquisition.loop._acquisition_loop.AcquisitionLoop` with that one change:
each round the method splits the rows it paid for into kept and postponed ones
(:meth:`PaidRowsAcquirer._split_paid`), the budget counts both, and the trace records per step

- ``rows_paid``: pool rows whose label was paid for so far (postponed ones included; with
  per-row costs the budget is in ``cost``, this stays a count of rows);
- ``labels_seen``: pool labels revealed to the method so far (every paid label here);
- ``rows_evaluated``: pool rows that entered an evaluated model so far (the kept rows);
- ``postponed``: the pool positions postponed in this step (``batch`` holds the kept ones).

Every round is kept (there is no acceptance test). :class:`PaidRowsAcquirer` runs on this
loop through the base class's ``_loop_class``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fairacq._random import child_rng
from fairacq.acquisition.loop._acquirer import Acquirer
from fairacq.acquisition.loop._acquisition_loop import AcquisitionLoop
from fairacq.acquisition.loop._ledger import fill_batch
from fairacq.acquisition.loop._state import AcquisitionState, Proposal
from fairacq.data import FairDataset

__all__ = ["COUNT_COLUMNS", "PaidRowsAcquirer", "PaidRowsLoop"]

#: The label-accounting columns of every step of a :class:`PaidRowsLoop` trace.
COUNT_COLUMNS: tuple[str, ...] = ("rows_paid", "labels_seen", "rows_evaluated")

_NO_ROWS = np.empty(0, dtype=np.int64)


class PaidRowsLoop(AcquisitionLoop):
    """:class:`AcquisitionLoop` where paid rows may be postponed (see the module)."""

    acq: PaidRowsAcquirer

    def start(self, root: np.random.SeedSequence) -> dict[str, Any]:
        row = super().start(root)
        self.counts = dict.fromkeys(COUNT_COLUMNS, 0)
        return {**row, "postponed": [], **self.counts, **self.acq._round_columns()}

    def replay(self, row: Mapping[str, Any]) -> None:
        if row.get("step", 0) == 0:
            return
        if len(_as_array(row.get("batch"))):
            super().replay(row)
        postponed = _as_array(row.get("postponed"))
        self.state.available[postponed] = False
        self.ledger.spent = float(row["cost"])  # the recorded sum, not a re-added one
        self.counts = {name: int(row[name]) for name in COUNT_COLUMNS}

    def step(self, index: int) -> dict[str, Any] | None:
        st, acq = self.state, self.acq
        clock = time.perf_counter()
        proposal = acq._propose(st, child_rng(self.root, st.evaluation))
        self.timings["propose_s"] += time.perf_counter() - clock
        paid = fill_batch(
            proposal.candidates, self.costs, min(acq.batch_size, acq.budget - self.ledger.spent)
        )
        if paid.size == 0:
            return None
        st.evaluation += 1
        kept, postponed = acq._split_paid(st, proposal, paid)
        batch_cost = float(self.costs[paid].sum())
        st.available[paid] = False
        self.ledger.spent += batch_cost
        self.ledger.mark_seen(paid)
        data, model, val = self._learn_kept(kept)
        new_fairness = abs(val[acq.metric])
        acq._feedback(st, proposal, kept, st.fairness - new_fairness, True, batch_cost)
        st.train, st.model, st.fairness, self.val = data, model, new_fairness, val
        st.best_fairness = min(st.best_fairness, new_fairness)
        self.counts["rows_paid"] += int(paid.size)
        self.counts["labels_seen"] += int(paid.size)
        self.counts["rows_evaluated"] += int(kept.size)
        return {
            "cost": self.ledger.spent,
            "batch": kept.tolist(),
            "postponed": postponed.tolist(),
            "arm": proposal.arm,
            "accepted": True,
            "batch_cost": batch_cost,
            "n_train": len(data),
            "candidate_val_fairness": new_fairness,
            **self.counts,
            **acq._round_columns(),
            **self._measure(val, model),
        }

    def _learn_kept(self, kept: NDArray[np.int64]) -> tuple[FairDataset, Any, dict[str, float]]:
        """Return the training set, model and validation scores after learning ``kept``."""
        st = self.state
        if kept.size == 0:  # every paid row was postponed: nothing new to learn
            return st.train, st.model, self.val
        arrays = self._with_rows(kept)
        clock = time.perf_counter()
        model = self._learn(st.model, arrays)
        self.timings["fit_s"] += time.perf_counter() - clock
        data = st.train.concat(self.source.take(kept))
        self._train_arrays = (data, arrays[0], arrays[1])  # the arrays of the new training set
        return data, model, self._evaluate(model, self.validation)


class PaidRowsAcquirer(Acquirer):
    """An :class:`~fairacq.acquisition.Acquirer` run on :class:`PaidRowsLoop`.

    Subclasses may override :meth:`_split_paid` (which paid rows to train on) and
    :meth:`_round_columns` (further trace columns of a round). Parameters as
    :class:`~fairacq.acquisition.Acquirer`.
    """

    _loop_class = PaidRowsLoop

    def _split_paid(
        self, state: AcquisitionState, proposal: Proposal, paid: NDArray[np.int64]
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Return ``(kept, postponed)`` among the rows whose labels were just paid for."""
        return paid, _NO_ROWS

    def _round_columns(self) -> dict[str, Any]:
        """Further trace columns of the round just taken (also asked for step 0)."""
        return {}

    def _after_run(self, frame: Any) -> None:
        """Set ``postponed_``: the postponed rows, in order (``acquired_`` holds the kept)."""
        self.postponed_ = _flatten(frame[frame["step"] > 0]["postponed"])


def _as_array(value: Any) -> NDArray[np.int64]:
    if value is None:
        return _NO_ROWS
    return np.asarray(list(np.asarray(value).ravel()), dtype=np.int64)


def _flatten(column: Any) -> NDArray[np.int64]:
    return np.asarray([int(i) for cell in column for i in _as_array(cell)], dtype=np.int64)
