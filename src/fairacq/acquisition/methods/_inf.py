"""The Inf baseline of the DataSift paper (§4.1.2): rows of highest predicted influence."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from fairacq.acquisition.loop._acquirer import Acquirer
from fairacq.acquisition.loop._state import AcquisitionState, Proposal
from fairacq.acquisition.methods._valuation_scores import pool_improvement_scores
from fairacq.data import FairDataset

__all__ = ["InfAcquirer"]


class InfAcquirer(Acquirer):
    """Acquire pool rows in decreasing order of predicted fairness improvement.

    The Inf baseline of Hasan & Pradhan (§4.1.2): influence of the training points on fairness
    (eq. 5) is computed once for the initial model, a ridge regressor predicts it for the pool,
    and batches are the top remaining rows, always kept; there is no bandit and no
    re-valuation, which is why the paper sees it overshoot into bias the other way.
    Parameters as :class:`~fairacq.acquisition.RandomAcquirer`; needs a differentiable learner.

    Attributes
    ----------
    pool_scores_ : ndarray
        Predicted fairness improvement of each pool row.
    """

    _needs_gradients: ClassVar[bool] = True

    def _prepare(
        self, state: AcquisitionState, validation: FairDataset, root: np.random.SeedSequence
    ) -> None:
        self.pool_scores_ = pool_improvement_scores(
            state.model,
            state.train,
            validation,
            state.pool,
            metric=self.metric,
            executor=state.executor,
        )
        state.labels_seen[:] = True  # the influence regressors read every pool label

    def _propose(self, state: AcquisitionState, rng: np.random.Generator) -> Proposal:
        rows = np.flatnonzero(state.available)
        order = np.lexsort((rows, -self.pool_scores_[rows]))
        return Proposal(rows[order].astype(np.int64))
