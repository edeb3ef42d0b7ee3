"""The Random baseline of Hasan & Pradhan (§4.1.2): uniform batches from the pool."""

from __future__ import annotations

import numpy as np

from fairacq.acquisition.loop._acquirer import Acquirer
from fairacq.acquisition.loop._state import AcquisitionState, Proposal

__all__ = ["RandomAcquirer"]


class RandomAcquirer(Acquirer):
    """Acquire pool rows uniformly at random, batch by batch.

    The Random baseline of Hasan & Pradhan (§4.1.2): every round draws a batch
    without replacement from the rows not yet acquired, and keeps it.

    Parameters
    ----------
    budget : int or float, default=1000
        Pool rows (or cost units) to acquire in total.
    batch_size : int or float, default=100
        Rows (or cost units) per batch.
    learner : str, default="lr"
        Learner name (:func:`fairacq.models.available_learners`).
    metric : str, default="demographic_parity_diff_abs"
        Fairness metric recorded.
    track : sequence of str, default=fairacq.models.DEFAULT_METRICS
        Further metrics recorded each round.
    tau : float, default=0.0
        Stop once the validation fairness is below ``tau`` (0: never).
    max_evaluations : int or None, default=None
        Cap on batches evaluated.
    refit : {"scratch", "partial"}, default="scratch"
        Retrain on all rows after each batch, or update the model with the batch only where
        the learner has ``partial_fit`` (see :class:`~fairacq.acquisition.Acquirer`).
    cost_model : {"kept", "evaluated"}, default="kept"
        Which rows the budget pays (see :class:`~fairacq.acquisition.Acquirer`); Random keeps
        every batch, so both give the same run.
    random_state : int, Generator, SeedSequence or None, default=None
        Controls the draws and the learner.

    Attributes
    ----------
    acquired_ : ndarray of int
        Pool positions acquired, in order.
    n_evaluations_ : int
        Batches evaluated.
    stop_reason_ : str
        Why the run stopped ("budget", "tau", "max_evaluations", "exhausted", "callback").

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> ds = load_toy(400)
    >>> train, val = ds.subset(range(100)), ds.subset(range(100, 200))
    >>> pool = ds.subset(range(200, 400))
    >>> acq = RandomAcquirer(budget=40, batch_size=20, random_state=0)
    >>> trace = acq.fit(train, pool, validation=val).trace_
    >>> len(trace), trace.final("cost")
    (3, 40.0)
    """

    def _propose(self, state: AcquisitionState, rng: np.random.Generator) -> Proposal:
        return Proposal(rng.permutation(np.flatnonzero(state.available)).astype(np.int64))
