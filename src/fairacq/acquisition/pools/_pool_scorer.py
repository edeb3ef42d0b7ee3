"""The current model's P(y=1) for every pool row, scored once per model and cheaply.

Falcon (Tae et al., PVLDB 2024) ranks a target group's pool rows by the current model's
probability every fairness round. :class:`PoolScorer` gives exactly the scores of
``pool.map_blocks`` with :func:`~fairacq.models.predict_scores` (the same blocks of
``block_rows`` rows, each C-contiguous, so BLAS does the same arithmetic and every score has
the same bits), at less cost:

- an in-memory pool's features are copied C-contiguous once, so a block is a view of that
  copy; the pool's own matrix (a pandas block, column-major) makes every round copy each
  block to C order, which cost about as much as scoring it;
- scikit-learn's finiteness checks are skipped (``assume_finite``): pool features are finite
  (:class:`~fairacq.FairDataset` and :class:`~fairacq.acquisition.ParquetPool` refuse NaN
  and infinite values), and skipping a check changes no number;
- the block function is the caller's ``score`` (the acquirers pass the run's checked
  fast scorer, :meth:`~fairacq.acquisition.loop._exact_refit.ExactRefit.scorer`, which
  repeats ``predict_proba``'s arithmetic without scikit-learn's per-call checks and copies);
- the scores are kept until the model changes (a round whose paid rows were all postponed
  trains nothing and keeps the model).

Scoring only the target group's rows would be cheaper still but is not exact: BLAS gives a
row a result that depends on the rows sharing its product (on Adult, one row in 12,407
moved by 1.7e-16), which can reorder rows at equal distance from a policy's aim.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn import config_context

from fairacq.acquisition.pools._chunk_map import ChunkExecutor, RangeReader, map_blocks
from fairacq.acquisition.pools._pool_source import ArrayReader, InMemoryPool, PoolSource
from fairacq.models import predict_scores

__all__ = ["PoolScorer"]


class PoolScorer:
    """Scores every pool row with a model, block by block, caching the last model's scores.

    Parameters
    ----------
    pool : PoolSource
        The candidate pool. An :class:`InMemoryPool`'s features are copied once
        (C-contiguous, one more copy of the pool's matrix in memory); a streamed pool is read
        each time it is scored, as ``pool.map_blocks`` does (from its local copy when
        scored here).
    executor : ChunkExecutor or None, default=None
        Where the blocks are scored (None: serially here).
    score : callable, default=predict_scores
        ``score(model, X)``: P(y=1) of each row of a block, with ``predict_scores``'s bits;
        picklable (a module-level function) when ``executor`` runs blocks elsewhere.

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> from fairacq.models import make_learner
    >>> ds = load_toy(50, random_state=0)
    >>> model = make_learner("lr", random_state=0).fit(ds.to_numpy(), ds.y)
    >>> pool = InMemoryPool(ds, block_rows=16)
    >>> blocks = pool.map_blocks(lambda X, side: predict_scores(model, X))
    >>> scorer = PoolScorer(pool)
    >>> bool((scorer.scores(model) == np.concatenate(blocks)).all())
    True
    >>> scorer.scores(model) is scorer.scores(model)
    True
    """

    def __init__(
        self,
        pool: PoolSource,
        executor: ChunkExecutor | None = None,
        *,
        score: Callable[..., NDArray[np.float64]] = predict_scores,
    ) -> None:
        self.pool = pool
        self.executor = executor
        self.score = score
        self._reader = _contiguous_reader(pool, executor)
        self._model: Any = None
        self._scores: NDArray[np.float64] = np.empty(0)

    def scores(self, model: Any) -> NDArray[np.float64]:
        """Return ``model``'s P(y=1) for every pool row (the cached array for the last model).

        The array is shared with later calls for the same model: do not modify it.
        """
        if model is not self._model:
            blocks = map_blocks(
                self._reader,
                partial(_score_block, model=model, score=self.score),
                n_rows=len(self.pool),
                chunk_rows=self.pool.chunk_rows,
                block_rows=self.pool.block_rows,
                executor=self.executor,
            )
            self._scores = np.concatenate(blocks) if blocks else np.empty(0)
            self._model = model
        return self._scores

    def read_rows(self, positions: NDArray[np.int64]) -> NDArray[np.float64]:
        """Return the features of the pool rows at ``positions`` (C-contiguous).

        An in-memory pool's rows are gathered from the C-contiguous copy (whole rows, not
        one stride per column of the pool's column-major matrix); a streamed pool reads
        them as ``pool.read_rows`` does. The same values and layout either way.
        """
        if isinstance(self._reader, ArrayReader) and isinstance(self.pool, InMemoryPool):
            return self._reader.X[np.asarray(positions, dtype=np.int64)]
        return self.pool.read_rows(positions)


def _contiguous_reader(pool: PoolSource, executor: ChunkExecutor | None) -> RangeReader:
    """Return the pool's reader; an in-memory pool's reads a C-contiguous copy of its features."""
    if isinstance(pool, InMemoryPool):
        return ArrayReader(np.ascontiguousarray(pool.X), pool.chunk_rows)
    return pool.reader_for(executor)


def _score_block(
    X: NDArray[np.float64],
    side: Mapping[str, NDArray[Any]],
    *,
    model: Any,
    score: Callable[..., NDArray[np.float64]] = predict_scores,
) -> NDArray[np.float64]:
    with config_context(assume_finite=True):
        return score(model, X)
