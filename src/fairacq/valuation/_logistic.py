"""Closed-form influence for logistic regression: exact gradient, Hessian and one solve.

scikit-learn's :class:`~sklearn.linear_model.LogisticRegression` with the L2 penalty minimises
``J(theta) = 0.5 ||w||^2 + C * sum_i sw_i * logloss_i(theta)`` (``theta = [w, b]``; the
intercept ``b`` is not penalised, except by the ``liblinear`` solver, which penalises
``b / intercept_scaling`` like a weight). With ``penalty=None`` or ``C=inf`` it minimises the
plain sum of log-losses. Up-weighting row ``d`` by ``epsilon`` (its sample weight
``1 -> 1 + epsilon``) moves the optimum by ``-H^{-1} C grad logloss_d`` (Hasan & Pradhan, eq. 4,
in this sum form), where ``H = X~^T diag(C p (1 - p)) X~ + R`` is the exact Hessian of ``J``
(``X~`` = features plus a column of ones, ``R`` the penalty's diagonal). Influence on a
surrogate with gradient ``g`` (eq. 5) is then ``-C (p_d - y_d) x~_d^T H^{-1} g`` for all rows
at once: one Cholesky solve and one matrix-vector product.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.special import expit

from fairacq.valuation._hvp import cholesky_solve

__all__ = [
    "LogisticObjective",
    "augment",
    "logistic_hessian",
    "logistic_influence",
    "logistic_objective",
    "logistic_scores",
    "logistic_surrogate_gradient",
]


@dataclass(frozen=True, eq=False)
class LogisticObjective:
    """The training objective of a fitted logistic regression, in sum form.

    ``J(theta) = 0.5 * sum_j penalty[j] * theta[j]^2 + loss_scale * sum_i logloss_i(theta)``.

    Attributes
    ----------
    theta : ndarray of shape (p,)
        Fitted parameters ``[coef..., intercept]`` (no intercept entry without one).
    fit_intercept : bool
        Whether ``theta`` ends with an intercept.
    penalty : ndarray of shape (p,)
        Diagonal of the penalty's Hessian: 1 per weight, 0 for a free intercept,
        ``1 / intercept_scaling**2`` for liblinear's penalised one; all 0 without penalty.
    loss_scale : float
        ``C`` (1 without penalty).
    """

    theta: NDArray[np.float64]
    fit_intercept: bool
    penalty: NDArray[np.float64]
    loss_scale: float


def logistic_objective(clf: Any) -> LogisticObjective:
    """Read the fitted parameters and the exact objective of a ``LogisticRegression``.

    Parameters
    ----------
    clf : sklearn.linear_model.LogisticRegression
        Fitted, binary, L2 or no penalty (see :func:`~fairacq.valuation.fairness_influence`).

    Returns
    -------
    LogisticObjective
    """
    w = np.asarray(clf.coef_, dtype=np.float64).ravel()
    fit_intercept = bool(clf.fit_intercept)
    unpenalised = getattr(clf, "penalty", "deprecated") is None or not np.isfinite(clf.C)
    pen_w = np.zeros_like(w) if unpenalised else np.ones_like(w)
    if not fit_intercept:
        return LogisticObjective(w, False, pen_w, 1.0 if unpenalised else float(clf.C))
    b = float(np.asarray(clf.intercept_, dtype=np.float64).ravel()[0])
    pen_b = 0.0
    if clf.solver == "liblinear" and not unpenalised:
        pen_b = 1.0 / float(clf.intercept_scaling) ** 2
    return LogisticObjective(
        theta=np.append(w, b),
        fit_intercept=True,
        penalty=np.append(pen_w, pen_b),
        loss_scale=1.0 if unpenalised else float(clf.C),
    )


def augment(Z: NDArray[np.float64], fit_intercept: bool) -> NDArray[np.float64]:
    """Append a column of ones when the model has an intercept."""
    if not fit_intercept:
        return Z
    return np.hstack([Z, np.ones((Z.shape[0], 1), dtype=np.float64)])


def logistic_scores(obj: LogisticObjective, Z: NDArray[np.float64]) -> NDArray[np.float64]:
    """Predicted probability of label 1, ``sigmoid(x~ @ theta)``."""
    out: NDArray[np.float64] = expit(augment(Z, obj.fit_intercept) @ obj.theta)
    return out


def logistic_surrogate_gradient(
    obj: LogisticObjective, Z_val: NDArray[np.float64], weights: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Gradient of ``f(theta) = weights @ sigmoid(X~_val theta)``: ``X~^T (w p (1 - p))``."""
    Xa = augment(Z_val, obj.fit_intercept)
    p = expit(Xa @ obj.theta)
    out: NDArray[np.float64] = Xa.T @ (weights * p * (1.0 - p))
    return out


def logistic_loss_gradient(
    obj: LogisticObjective, Z_val: NDArray[np.float64], y_val: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Gradient of the mean log-loss on ``(Z_val, y_val)``: ``X~^T (p - y) / n``."""
    Xa = augment(Z_val, obj.fit_intercept)
    p = expit(Xa @ obj.theta)
    out: NDArray[np.float64] = Xa.T @ (p - y_val) / max(len(y_val), 1)
    return out


def logistic_hessian(obj: LogisticObjective, Z_train: NDArray[np.float64]) -> NDArray[np.float64]:
    """Exact Hessian of the training objective, ``X~^T diag(C p (1-p)) X~ + diag(penalty)``."""
    Xa = augment(Z_train, obj.fit_intercept)
    p = expit(Xa @ obj.theta)
    d = obj.loss_scale * p * (1.0 - p)
    H: NDArray[np.float64] = (Xa * d[:, None]).T @ Xa
    H[np.diag_indices_from(H)] += obj.penalty
    return H


def logistic_influence(
    obj: LogisticObjective,
    Z_train: NDArray[np.float64],
    y_train: NDArray[np.int64],
    grad_f: NDArray[np.float64],
    *,
    damping: float = 0.0,
) -> tuple[NDArray[np.float64], float]:
    """Influence of up-weighting each training row on a function with gradient ``grad_f``.

    Implements eqs. 4-5 of Hasan & Pradhan (§3.3.1) in closed form for every row at once:
    ``values[d] = -grad_f^T H^{-1} (C (p_d - y_d) x~_d)``, the derivative of ``f`` with
    respect to row ``d``'s sample weight.

    Parameters
    ----------
    obj : LogisticObjective
        The fitted model's objective.
    Z_train : ndarray of shape (n, k)
        Training rows in the classifier's input space.
    y_train : ndarray of shape (n,)
        Their 0/1 labels.
    grad_f : ndarray of shape (p,)
        Gradient of the function of interest at ``obj.theta``.
    damping : float, default=0.0
        ``lambda`` added to the Hessian's diagonal; raised further only if ``H + lambda I``
        is not positive definite.

    Returns
    -------
    values : ndarray of shape (n,)
        ``d f / d sample_weight`` per training row.
    damping : float
        The damping actually used.
    """
    Xa = augment(Z_train, obj.fit_intercept)
    p = expit(Xa @ obj.theta)
    d = obj.loss_scale * p * (1.0 - p)
    H = (Xa * d[:, None]).T @ Xa
    H[np.diag_indices_from(H)] += obj.penalty
    s, used = cholesky_solve(H, grad_f, damping=damping)
    values: NDArray[np.float64] = -obj.loss_scale * (p - y_train) * (Xa @ s)
    return values, used
