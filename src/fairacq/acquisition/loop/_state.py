"""What an acquisition method sees and proposes each round."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fairacq._typing import Classifier
from fairacq.acquisition.pools._chunk_map import ChunkExecutor
from fairacq.acquisition.pools._pool_source import PoolSource
from fairacq.data import FairDataset

__all__ = ["AcquisitionState", "Proposal"]


@dataclass
class AcquisitionState:
    """What a method may look at when it proposes the next batch.

    Attributes
    ----------
    train : FairDataset
        Training rows so far (initial plus accepted batches).
    pool : PoolSource
        The whole candidate pool (positions index it): an :class:`InMemoryPool` or a
        streamed :class:`ParquetPool`; score it with ``pool.map_blocks``.
    available : ndarray of bool
        Pool positions not yet acquired (and not excluded by the method).
    costs : ndarray of float
        Acquisition cost of each pool row (ones when the pool has no cost column).
    model : estimator
        The learner fitted on ``train``.
    fairness : float
        The steering metric of ``model`` on the validation split.
    best_fairness : float
        The best (smallest absolute) steering value accepted so far.
    evaluation : int
        Number of batches evaluated so far.
    X_pool : ndarray of shape (len(pool), n_features)
        The pool's features as one float array for an in-memory pool; empty (0, 0) for a
        streamed one. Methods read the pool through ``pool`` instead.
    extra : dict
        Scratch space for a method.
    executor : ChunkExecutor or None
        Where per-block scoring of the pool runs (None: serially here).
    labels_seen : ndarray of bool
        Pool positions whose label the method has looked at. The loop marks every evaluated
        batch's rows; a method that reads pool labels to rank or partition (DataSift's
        base-rate differences, influence scores) marks them in ``_prepare`` (a resumed run
        prepares again, so the marks come back), and the trace counts them in
        ``labels_seen``. Empty until the loop sets it (one flag per pool row).
    val_scores : tuple of (estimator, ndarray) or None
        The loop's latest validation probabilities of the positive class and the model
        they came from; a method may reuse them when that model is ``model`` instead of
        predicting the validation rows again.
    """

    train: FairDataset
    pool: PoolSource
    available: NDArray[np.bool_]
    costs: NDArray[np.float64]
    model: Classifier
    fairness: float
    best_fairness: float
    evaluation: int = 0
    X_pool: NDArray[np.float64] = field(default_factory=lambda: np.empty((0, 0)))
    extra: dict[str, Any] = field(default_factory=dict)
    executor: ChunkExecutor | None = None
    labels_seen: NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, dtype=bool))
    val_scores: tuple[Classifier, NDArray[np.float64]] | None = None


@dataclass(frozen=True)
class Proposal:
    """Candidates for the next batch, in priority order, and the arm they come from."""

    candidates: NDArray[np.int64]
    arm: int = -1
