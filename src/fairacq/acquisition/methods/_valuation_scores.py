"""Score pool rows by their predicted influence on fairness (Hasan & Pradhan, §3.3.2)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fairacq._typing import Classifier
from fairacq.acquisition.pools._chunk_map import ChunkExecutor
from fairacq.acquisition.pools._pool_source import PoolSource, as_pool_source
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
    model: Classifier,
    train: FairDataset,
    validation: FairDataset,
    pool: FairDataset | PoolSource,
    *,
    metric: str,
    executor: ChunkExecutor | None = None,
    accuracy_weight: float = 0.0,
) -> NDArray[np.float64]:
    """Predicted fairness improvement of each pool row (higher is better).

    Computes the first-order influence of up-weighting each training point on the fairness
    surrogate measured on ``validation`` (eqs. 3-5), turns it into an improvement (positive
    moves the gap towards zero), fits the ridge regressor of §3.3.2 on the training rows and
    predicts the pool block by block (on ``executor``; a streamed pool is never held in
    memory). The regressor sees each row's features, its group (one-hot) and, through one
    ridge per label, its label: the pool is labelled (Hasan & Pradhan acquires labelled rows) and a
    row's influence flips sign with its label.

    With ``accuracy_weight`` w > 0 (fairacq's accuracy-aware variant, not in Hasan & Pradhan) a
    second regressor predicts each row's influence on the validation log-loss (same Hessian),
    and the score is ``fair / sd(fair) + w * acc / sd(acc)``, ``acc`` the predicted decrease
    of the loss: rows that close the gap while costing little accuracy come first.
    """
    source = as_pool_source(pool)
    priv = validation.privileged_code
    if priv is None or validation.n_groups != 2:
        priv = protected = None  # the surrogate compares the highest- and lowest-scoring groups
    else:
        protected = 1 - priv
    if accuracy_weight < 0:
        raise InvalidParameterError(
            f"accuracy_weight must be >= 0 (0: the paper's fairness-only score), got "
            f"{accuracy_weight}."
        )
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
        with_loss=accuracy_weight > 0,
    )
    features = _with_groups(train.to_numpy(), train.s, train.n_groups)
    targets = [fairness_improvement(result)]
    if result.loss_values is not None:
        targets.append(-result.loss_values)  # predicted decrease of the validation loss
    regressors = tuple(InfluenceRegressor().fit(features, t, y=train.y) for t in targets)
    if len(source) == 0:
        return np.empty(0)
    blocks = source.map_blocks(
        partial(_predict_block, regressors=regressors, n_groups=source.n_groups),
        side={"y": source.y, "s": source.s},
        executor=executor,
    )
    scores = np.vstack(blocks).astype(np.float64)  # (n_pool, 1 or 2)
    if scores.shape[1] == 1:
        return scores[:, 0]
    fair, acc = (c / max(float(c.std()), 1e-300) for c in scores.T)
    return np.asarray(fair + accuracy_weight * acc, dtype=np.float64)


def _predict_block(
    X: NDArray[np.float64],
    side: Mapping[str, NDArray[Any]],
    *,
    regressors: tuple[InfluenceRegressor, ...],
    n_groups: int,
) -> NDArray[np.float64]:
    Xg = _with_groups(X, side["s"], n_groups)
    return np.column_stack([np.asarray(r.predict(Xg, y=side["y"])) for r in regressors])


def _with_groups(
    X: NDArray[np.float64], s: NDArray[np.int64], n_groups: int
) -> NDArray[np.float64]:
    """Append one indicator column per group (the regressor's view of the sensitive group)."""
    return np.hstack([X, np.eye(n_groups)[s]])
