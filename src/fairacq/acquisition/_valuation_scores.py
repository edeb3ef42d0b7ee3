"""Score pool rows by their predicted influence on fairness (paper 000, §3.3.2)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fairacq.acquisition._chunk_map import ChunkExecutor
from fairacq.acquisition._pool_source import PoolSource, as_pool_source
from fairacq.data import FairDataset
from fairacq.exceptions import InvalidParameterError
from fairacq.valuation import InfluenceRegressor, fairness_improvement, fairness_influence

__all__ = ["pool_improvement_scores", "surrogate_for"]

_SURROGATES = {
    "demographic_parity": "demographic_parity",
    "mean_score_parity": "demographic_parity",
    "equalized_odds": "equalized_odds",
    "equal_opportunity": "equal_opportunity",
}


def surrogate_for(metric: str) -> str:
    """Return the differentiable surrogate that stands for ``metric`` in influence.

    Raises
    ------
    InvalidParameterError
        If the metric has no surrogate (influence needs a parity, odds or opportunity gap).
    """
    for prefix, surrogate in _SURROGATES.items():
        if metric.startswith(prefix):
            return surrogate
    raise InvalidParameterError(
        f"Influence-based acquisition has no differentiable surrogate for metric {metric!r}. "
        "Use a demographic parity, equalized odds or equal opportunity metric, or a method "
        "without influence (datasift, random, entropy)."
    )


def pool_improvement_scores(
    model: Any,
    train: FairDataset,
    validation: FairDataset,
    pool: FairDataset | PoolSource,
    *,
    metric: str,
    executor: ChunkExecutor | None = None,
) -> NDArray[np.float64]:
    """Predicted fairness improvement of each pool row (higher is better).

    Computes the first-order influence of up-weighting each training point on the fairness
    surrogate measured on ``validation`` (eqs. 3-5), turns it into an improvement (positive
    moves the gap towards zero), fits the ridge regressor of §3.3.2 on the training rows and
    predicts the pool block by block (on ``executor``; a streamed pool is never held in
    memory). The regressor sees each row's features, its group (one-hot) and, through one
    ridge per label, its label: the pool is labelled (paper 000 acquires labelled rows) and a
    row's influence flips sign with its label.
    """
    source = as_pool_source(pool)
    priv = validation.privileged_code
    if priv is None or validation.n_groups != 2:
        priv = protected = None  # the surrogate compares the highest- and lowest-scoring groups
    else:
        protected = 1 - priv
    result = fairness_influence(
        model,
        train.to_numpy(),
        train.y,
        validation.to_numpy(),
        validation.y,
        validation.s,
        metric=surrogate_for(metric),
        protected=protected,
        privileged=priv,
    )
    regressor = InfluenceRegressor().fit(
        _with_groups(train.to_numpy(), train.s, train.n_groups),
        fairness_improvement(result),
        y=train.y,
    )
    if len(source) == 0:
        return np.empty(0)
    blocks = source.map_blocks(
        partial(_predict_block, regressor=regressor, n_groups=source.n_groups),
        side={"y": source.y, "s": source.s},
        executor=executor,
    )
    return np.concatenate(blocks).astype(np.float64)


def _predict_block(
    X: NDArray[np.float64],
    side: Mapping[str, NDArray[Any]],
    *,
    regressor: InfluenceRegressor,
    n_groups: int,
) -> NDArray[np.float64]:
    return np.asarray(
        regressor.predict(_with_groups(X, side["s"], n_groups), y=side["y"]), dtype=np.float64
    )


def _with_groups(
    X: NDArray[np.float64], s: NDArray[np.int64], n_groups: int
) -> NDArray[np.float64]:
    """Append one indicator column per group (the regressor's view of the sensitive group)."""
    return np.hstack([X, np.eye(n_groups)[s]])
