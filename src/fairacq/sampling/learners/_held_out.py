"""Held-out predictions on the training rows themselves: leave-one-out and K-fold.

A sampler that estimates each group's loss on its own training rows (``validation="cross"``
of :meth:`GroupSampler.fit <fairacq.sampling.GroupSampler.fit>`) pays for no validation
draws; what it needs from its learner is, for every training row, a prediction of a model that
did not see that row.

For the exact logistic learner that is the approximate leave-one-out of
:func:`logistic_loo_proba`. scikit-learn's L2 logistic regression minimises
``J(theta) = 0.5 ||w||^2 + C sum_i logloss_i(theta)`` (intercept free). Leaving row ``i`` out
removes ``C logloss_i``; one Newton step from the full fit ``theta`` gives
``theta_-i = theta + (H - C v_i x_i x_i^T)^{-1} C (p_i - y_i) x_i`` with ``H`` the Hessian of
``J``, ``v_i = p_i (1 - p_i)`` and ``x_i`` the row with a 1 appended. By Sherman-Morrison its
logit on row ``i`` is ``eta_i + C (p_i - y_i) h_i / (1 - C v_i h_i)``, ``h_i = x_i^T H^{-1}
x_i``: every row's leave-one-out logit from one Cholesky factorisation (Rad & Maleki, 2020,
"A scalable estimate of the out-of-sample prediction error via approximate leave-one-out
cross-validation", JRSS B). Any other learner refits on K folds (:func:`kfold_proba`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.linalg import cho_factor, cho_solve
from scipy.special import expit

from fairacq.valuation._logistic import augment, logistic_hessian, logistic_objective

__all__ = ["kfold_proba", "logistic_loo_proba"]

#: Folds of :func:`kfold_proba` (fewer when there are fewer rows).
N_FOLDS = 5


def logistic_loo_proba(
    clf: Any, X: NDArray[np.float64], y: NDArray[np.int64]
) -> NDArray[np.float64]:
    """Return each row's approximate leave-one-out ``P(y = 1)`` under a fitted logistic model.

    Parameters
    ----------
    clf : sklearn.linear_model.LogisticRegression
        Fitted on exactly ``(X, y)`` (binary, L2 or no penalty).
    X : ndarray of shape (n, k)
        Its training rows.
    y : ndarray of shape (n,)
        Their 0/1 labels.

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [1.5], [2.5]])
    >>> y = np.array([0, 0, 1, 1, 0, 1])
    >>> clf = LogisticRegression().fit(X, y)
    >>> p = logistic_loo_proba(clf, X, y)
    >>> bool(np.all(np.abs(p - y) >= np.abs(clf.predict_proba(X)[:, 1] - y)))  # row unseen
    True
    """
    obj = logistic_objective(clf)
    Xa = augment(np.asarray(X, dtype=np.float64), obj.fit_intercept)
    eta = Xa @ obj.theta
    p = expit(eta)
    H = logistic_hessian(obj, np.asarray(X, dtype=np.float64))
    H[np.diag_indices_from(H)] += 1e-10 * max(float(np.mean(np.abs(np.diag(H)))), 1.0)
    leverage = np.einsum("ij,ji->i", Xa, cho_solve(cho_factor(H), Xa.T))
    cv = obj.loss_scale * p * (1.0 - p) * leverage
    step = obj.loss_scale * (p - y) * leverage / np.maximum(1.0 - cv, 1e-12)
    out: NDArray[np.float64] = expit(eta + step)
    return out


def kfold_proba(
    fit_predict: Callable[[NDArray[np.intp], NDArray[np.intp]], NDArray[np.float64]],
    n_rows: int,
    seed: int,
) -> NDArray[np.float64]:
    """Return each row's prediction by a model fitted on the other folds (shuffled, seeded).

    Parameters
    ----------
    fit_predict : callable
        ``fit_predict(train_rows, test_rows)`` fits on ``train_rows`` and returns
        ``P(y = 1)`` for ``test_rows``.
    n_rows : int
        Rows in all.
    seed : int
        Seeds the shuffle: the same seed gives the same folds.

    Returns
    -------
    ndarray of shape (n_rows,)

    Examples
    --------
    >>> kfold_proba(lambda tr, te: np.full(len(te), float(len(tr))), 5, seed=0).tolist()
    [4.0, 4.0, 4.0, 4.0, 4.0]
    """
    order = np.random.default_rng(seed).permutation(n_rows)
    out = np.full(n_rows, 0.5, dtype=np.float64)
    for test in np.array_split(order, min(N_FOLDS, n_rows)):
        if test.size:
            out[test] = fit_predict(np.setdiff1d(order, test), test)
    return out
