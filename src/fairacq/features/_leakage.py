"""How much a revealed feature set tells about the sensitive group, by a fresh adversary.

DADI's agent is paid by an adversary trained jointly with it (eq. 2). Whether that adversary
was strong enough is a separate question: an agent can learn to reveal what its own adversary
misses. :func:`leakage_audit` answers it with an adversary that never met the agent, fitted by
cross-validation on the revealed values alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold, cross_val_predict

from fairacq._random import RandomState
from fairacq.exceptions import InvalidDataError
from fairacq.models import make_learner

__all__ = ["LeakageAudit", "group_auc", "leakage_audit"]


@dataclass(frozen=True)
class LeakageAudit:
    """What a fresh adversary recovers about the group from the revealed values.

    Attributes
    ----------
    auc : float
        ROC AUC of its out-of-fold group probabilities (macro one-vs-rest for several
        groups); 0.5 means the revealed set tells nothing.
    accuracy : float
        Out-of-fold accuracy of its most likely group.
    majority : float
        Share of the largest group: the accuracy of guessing without features.
    """

    auc: float
    accuracy: float
    majority: float


def group_auc(s: ArrayLike, proba: ArrayLike) -> float:
    """Return the ROC AUC of group probabilities ``proba`` (n, n_groups) against codes ``s``.

    Two groups use the second column; more use the macro one-vs-rest average.

    Examples
    --------
    >>> group_auc([0, 1, 0, 1], [[0.8, 0.2], [0.3, 0.7], [0.6, 0.4], [0.4, 0.6]])
    1.0
    """
    s_arr = np.asarray(s).reshape(-1)
    p = np.asarray(proba, dtype=np.float64)
    if p.ndim == 1:
        p = np.column_stack([1.0 - p, p])
    if p.shape[1] == 2:
        return float(roc_auc_score(s_arr, p[:, 1]))
    return float(roc_auc_score(s_arr, p, multi_class="ovr", average="macro"))


def leakage_audit(
    X: ArrayLike,
    s: ArrayLike,
    mask: ArrayLike,
    *,
    learner: str = "lr",
    n_splits: int = 5,
    random_state: RandomState = 0,
) -> LeakageAudit:
    """Fit a fresh adversary on the revealed values of each row and score it out of fold.

    The adversary sees each row's revealed values (zero where hidden) and the mask itself,
    since which features were revealed can give the group away too.

    Parameters
    ----------
    X : array-like of shape (n, n_columns)
        Feature values; hidden entries are ignored (NaN allowed there).
    s : array-like of shape (n,)
        Group codes.
    mask : array-like of bool, shape (n, n_columns) or (n_columns,)
        Which values each row reveals.
    learner : str, default="lr"
        The adversary (:func:`fairacq.models.available_learners`).
    n_splits : int, default=5
        Cross-validation folds (stratified by group).
    random_state : int, default=0
        Seeds the folds and the learner.

    Returns
    -------
    LeakageAudit

    Raises
    ------
    InvalidDataError
        If shapes disagree, a revealed value is NaN, or a group has fewer rows than folds.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> s = rng.integers(0, 2, 400)
    >>> X = np.column_stack([s + rng.normal(0, 0.5, 400), rng.normal(size=400)])
    >>> leakage_audit(X, s, [True, False]).auc > 0.8
    True
    >>> round(leakage_audit(X, s, [False, True]).auc, 1)
    0.5
    """
    values = np.asarray(X, dtype=np.float64)
    s_arr = np.asarray(s).reshape(-1)
    m = np.broadcast_to(np.asarray(mask, dtype=bool), values.shape)
    if values.ndim != 2 or len(s_arr) != len(values):
        raise InvalidDataError(
            f"leakage_audit: X has shape {values.shape} and s {s_arr.shape}; pass a 2-D X "
            "with one group code per row."
        )
    if np.isnan(values[m]).any():
        raise InvalidDataError(
            "leakage_audit: a revealed value is NaN. Impute it or hide it in the mask."
        )
    _, counts = np.unique(s_arr, return_counts=True)
    if counts.size < 2 or counts.min() < n_splits:
        raise InvalidDataError(
            f"leakage_audit: needs two groups with at least {n_splits} rows each (group "
            f"sizes {counts.tolist()}). Pass more rows or fewer n_splits."
        )
    features = np.column_stack([np.where(m, values, 0.0), m.astype(np.float64)])
    folds = StratifiedKFold(n_splits, shuffle=True, random_state=random_state)
    proba = cross_val_predict(
        make_learner(learner, random_state=random_state),
        features,
        s_arr,
        cv=folds,
        method="predict_proba",
    )
    classes = np.unique(s_arr)
    return LeakageAudit(
        auc=group_auc(s_arr, proba),
        accuracy=float(np.mean(classes[proba.argmax(axis=1)] == s_arr)),
        majority=float(counts.max() / counts.sum()),
    )
