"""The Entropy baseline of Hasan & Pradhan (§4.1.2): the most uncertain pool rows first."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fairacq.acquisition.loop._acquirer import Acquirer
from fairacq.acquisition.loop._exact_refit import ExactRefit
from fairacq.acquisition.loop._ledger import fill_limit
from fairacq.acquisition.loop._state import AcquisitionState, Proposal
from fairacq.data import FairDataset
from fairacq.models import predict_scores

__all__ = ["EntropyAcquirer", "binary_entropy", "entropy_order"]


def binary_entropy(p: NDArray[np.float64]) -> NDArray[np.float64]:
    """Entropy in bits of a Bernoulli(p) prediction: ``-(p log2 p + (1-p) log2 (1-p))``.

    Examples
    --------
    >>> binary_entropy(np.array([0.5, 1.0])).tolist()
    [1.0, 0.0]
    """
    q = np.clip(np.asarray(p, dtype=np.float64), 1e-12, 1 - 1e-12)
    out = -(q * np.log2(q) + (1 - q) * np.log2(1 - q))
    return np.where((p <= 0) | (p >= 1), 0.0, out)


class EntropyAcquirer(Acquirer):
    """Acquire the pool rows whose predicted label is most uncertain.

    The Entropy baseline of Hasan & Pradhan (§4.1.2): the entropy of the model's positive-class
    probability ranks the pool. fairacq re-scores the remaining pool with the current model
    before each batch (uncertainty sampling), block by block on the acquisition's chunk
    executor (a streamed pool is read once per batch); the paper's text does not say whether
    it scores once, see ``docs/paper-notes/datasift.md``. Needs a learner with ``predict_proba``.

    Parameters
    ----------
    budget, batch_size, learner, metric, track, tau, max_evaluations
        As :class:`~fairacq.acquisition.RandomAcquirer`; ties are broken at random.
    refit, cost_model, random_state
        As :class:`~fairacq.acquisition.RandomAcquirer`.
    """

    def _prepare(
        self, state: AcquisitionState, validation: FairDataset, root: np.random.SeedSequence
    ) -> None:
        # predict_scores's bits without scikit-learn's per-call checks (checked here once)
        self._score = ExactRefit(self.learner).scorer(state.model, validation.to_numpy())

    def _propose(self, state: AcquisitionState, rng: np.random.Generator) -> Proposal:
        # no batch holds more rows than this: the rest of the order is never read
        limit = fill_limit(state.costs, float(self.batch_size))
        return Proposal(entropy_order(state, rng, limit=limit, score=self._score))


def entropy_order(
    state: AcquisitionState,
    rng: np.random.Generator,
    scores: NDArray[np.float64] | None = None,
    *,
    limit: int | None = None,
    score: Callable[..., NDArray[np.float64]] = predict_scores,
) -> NDArray[np.int64]:
    """Available pool positions by decreasing entropy of the current model, ties at random.

    What :class:`EntropyAcquirer` proposes; Falcon's entropy rounds (``lam < 1``) use it too,
    so that they pick what Entropy would with the same model and stream. ``scores`` may give
    the model's P(y=1) for every pool row, scored block by block as ``state.pool.map_blocks``
    does (:class:`~fairacq.acquisition.pools._pool_scorer.PoolScorer`); their entropy is then
    taken block by block too, so the order is the one the pool's own scoring gives. With
    ``limit``, only the first ``limit`` positions of that order are returned, found without
    sorting the whole pool (the same positions, the same random stream). Without
    ``scores``, each block is scored by ``score(model, X)``: ``predict_scores``, or a
    picklable function with its bits that :class:`EntropyAcquirer` gets from
    :meth:`ExactRefit.scorer <fairacq.acquisition.loop._exact_refit.ExactRefit.scorer>`.
    """
    idx = np.flatnonzero(state.available)
    # every block is scored (acquired rows too), so a row's score never depends on
    # which other rows are still available: the order is the same for every chunk size
    if scores is None:
        blocks = state.pool.map_blocks(
            partial(_entropy_block, model=state.model, score=score), executor=state.executor
        )
    else:
        step = state.pool.block_rows
        blocks = [binary_entropy(scores[a : a + step]) for a in range(0, scores.size, step)]
    ent = np.concatenate(blocks)[idx] if blocks else np.empty(0)
    tiebreak = rng.random(idx.size)
    head = _head(-ent, limit)
    order = head[np.lexsort((tiebreak[head], -ent[head]))][:limit]
    return idx[order].astype(np.int64)


def _head(key: NDArray[np.float64], limit: int | None) -> NDArray[np.intp]:
    """Return the positions whose ``key`` is among the ``limit`` smallest, ties included.

    Every position sorting before the ``limit``-th by ``(key, anything)`` is in it, so sorting
    these alone gives the head of the whole order.
    """
    if limit is None or limit >= key.size:
        return np.arange(key.size)
    if limit <= 0:
        return np.arange(0)
    cutoff = np.partition(key, limit - 1)[limit - 1]
    return np.flatnonzero(key <= cutoff)


def _entropy_block(
    X: NDArray[np.float64],
    side: Mapping[str, NDArray[Any]],
    *,
    model: Any,
    score: Callable[..., NDArray[np.float64]] = predict_scores,
) -> NDArray[np.float64]:
    return binary_entropy(score(model, X))
