"""The influence regressor of DataSift-Inf: predict a pool row's fairness improvement.

Influence functions score *training* rows; the pool rows are candidates that the model has
not seen (and whose labels may be unknown). Hasan & Pradhan (§3.3.2, Algorithm 2, lines 1-5)
therefore trains a regressor ``R`` from the training rows to their influence and ranks pool
rows by ``R(x)``. fairacq uses ridge regression on standardised raw features, one per label
when the labels are given.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.linear_model import Ridge
from sklearn.preprocessing import StandardScaler

from fairacq._base import Strategy
from fairacq._callbacks import Callback
from fairacq._loop import one_shot_trace, refuse_resume
from fairacq._trace import Trace
from fairacq._validation import (
    Interval,
    check_binary_labels,
    check_consistent_length,
    check_no_nan,
)
from fairacq.exceptions import InvalidDataError, InvalidParameterError, NotFittedError

__all__ = ["InfluenceRegressor"]


class InfluenceRegressor(Strategy):
    """Ridge regression from a row's features (and label) to its fairness improvement.

    Implements the regressor ``R`` of Hasan & Pradhan (DataSift, §3.3.2 and Algorithm 2, lines
    1-5): fit on the training rows and their influence-based fairness improvement
    (:func:`~fairacq.valuation.fairness_improvement`), then predict the improvement of pool
    rows, which DataSift-Inf sorts in decreasing order. The paper does not name the
    regressor; fairacq uses :class:`~sklearn.linear_model.Ridge` on features standardised by
    this regressor's own :class:`~sklearn.preprocessing.StandardScaler` (fitted on the rows
    it is given), so it takes the same raw feature matrix as the classifier's pipeline and
    does not depend on the classifier. The fit is deterministic (no ``random_state``).

    A row's influence depends on its label through the loss gradient (for logistic
    regression it is ``-C (p - y) x~^T H^{-1} grad f``: the sign flips with ``y``), and
    Hasan & Pradhan acquires *labelled* rows ("the task of acquiring additional labeled data
    points", §1), which Algorithm 2 merges with their influence (line 2). Passing ``y`` to
    :meth:`fit` and :meth:`predict` therefore fits one ridge per label. On Adult's DataSift
    split this lifts the rank correlation between the predicted and the exact influence of
    the pool rows from about 0 to about 0.87 (see ``docs/paper-notes/valuation.md``).
    Without ``y`` one ridge is fitted on the features.

    Each scaler is folded into ``coef_`` and ``intercept_``, so :meth:`predict` is one
    matrix product per row block and gives a row the same value whatever chunk of the pool
    it comes in.

    Parameters
    ----------
    alpha : float, default=1.0
        Ridge penalty on the standardised coefficients (>= 0).

    Attributes
    ----------
    coef_ : ndarray of shape (n_models, n_features)
        Coefficients on the raw features: one row (no labels) or one per label 0, 1.
    intercept_ : ndarray of shape (n_models,)
        Intercepts on the raw features.
    by_label_ : bool
        Whether one ridge per label was fitted (``y`` given to :meth:`fit`).
    n_features_in_ : int
        Number of features seen by :meth:`fit`.
    trace_ : Trace
        One row (the fit is closed-form, done in one go): the rows fitted (``cost`` and
        ``n_rows``), ``n_models``, ``by_label`` and the training mean squared error
        ``train_mse`` of :meth:`predict` on the fitted rows; ``alpha`` in its metadata.
        :meth:`fit` calls its ``callbacks`` once, after the fit, and refuses
        ``continue_from`` (nothing to resume).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.arange(20.0).reshape(10, 2)
    >>> reg = InfluenceRegressor(alpha=0.0).fit(X, X[:, 0] * 0.5 + 1)
    >>> np.round(reg.predict(X[:2]), 6).tolist()
    [1.0, 2.0]
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "alpha": [Interval(float, 0, None, closed="left")],
    }

    def __init__(self, *, alpha: float = 1.0) -> None:
        self.alpha = alpha

    def fit(
        self,
        X: ArrayLike,
        improvement: ArrayLike,
        y: ArrayLike | None = None,
        *,
        continue_from: Trace | str | os.PathLike[str] | None = None,
        callbacks: Sequence[Callback] = (),
    ) -> InfluenceRegressor:
        """Fit the regressor on training rows and their fairness improvement.

        Parameters
        ----------
        X : array-like of shape (n, n_features)
            Raw features of the training rows (the matrix the classifier was fitted on).
        improvement : array-like of shape (n,)
            Their improvement, e.g. ``fairness_improvement(fairness_influence(...))``.
        y : array-like of shape (n,) or None, default=None
            Their 0/1 labels: fit one ridge per label (recommended when the pool rows are
            labelled, as in Hasan & Pradhan). None fits one ridge on the features.
        continue_from : None, default=None
            Accepted for a common signature with the step-wise strategies, but the fit is
            closed-form: there is nothing to resume, so anything but None is refused.
        callbacks : sequence of callables, default=()
            Called once after the fit with the :class:`~fairacq.TraceRecorder` holding
            ``trace_``'s row (a :class:`~fairacq.CheckpointCallback` saves it).

        Returns
        -------
        InfluenceRegressor
            ``self``, fitted.

        Raises
        ------
        InvalidParameterError
            For ``alpha < 0``, or a ``continue_from`` other than None.
        InvalidDataError
            On different lengths, NaN, non-binary labels, fewer than two rows (of a
            label, with ``y``) or a non-1-D target.
        """
        self._validate_params()
        refuse_resume("InfluenceRegressor", continue_from)
        where = "InfluenceRegressor.fit"
        Xa = _as_matrix(where, X)
        target = np.asarray(improvement, dtype=np.float64)
        if target.ndim != 1:
            raise InvalidDataError(
                f"{where}: improvement must be 1-D (one value per row); got shape "
                f"{target.shape}. Pass fairness_improvement(result)."
            )
        labels = None if y is None else check_binary_labels(where, np.ravel(y), "y")
        check_consistent_length(where, X=Xa, improvement=target, y=labels)
        check_no_nan(where, "improvement", target)
        masks = [np.ones(len(target), dtype=bool)]
        if labels is not None:
            masks = [labels == 0, labels == 1]
        coefs, intercepts = [], []
        for k, mask in enumerate(masks):
            if mask.sum() < 2:
                which = "" if labels is None else f" with label {k}"
                raise InvalidDataError(
                    f"{where}: need at least 2 rows{which} to fit; got {int(mask.sum())}. "
                    "Pass more rows, or fit without y."
                )
            coef, intercept = self._ridge(Xa[mask], target[mask])
            coefs.append(coef)
            intercepts.append(intercept)
        self.coef_: NDArray[np.float64] = np.vstack(coefs)
        self.intercept_: NDArray[np.float64] = np.asarray(intercepts, dtype=np.float64)
        self.by_label_ = labels is not None
        self.n_features_in_ = int(Xa.shape[1])
        self.trace_ = self._fit_trace(Xa, target, labels, callbacks)
        return self

    def _fit_trace(
        self,
        X: NDArray[np.float64],
        target: NDArray[np.float64],
        labels: NDArray[Any] | None,
        callbacks: Sequence[Callback],
    ) -> Trace:
        """Return the one-row trace of the fit: rows, models and training error."""
        residual = self.predict(X, labels) - target
        row = {
            "cost": float(len(target)),
            "n_rows": len(target),
            "n_models": len(self.intercept_),
            "by_label": self.by_label_,
            "train_mse": float(np.mean(residual**2)),
        }
        return one_shot_trace(
            method="influence-regressor",
            config=self.get_params(deep=False),
            random_state=None,
            rows=[row],
            callbacks=callbacks,
        )

    def _ridge(
        self, X: NDArray[np.float64], target: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], float]:
        """Standardise, fit a ridge, and fold the scaler into raw-feature coefficients."""
        scaler = StandardScaler().fit(X)
        ridge = Ridge(alpha=float(self.alpha)).fit(scaler.transform(X), target)
        coef = np.asarray(ridge.coef_, dtype=np.float64) / scaler.scale_
        return coef, float(ridge.intercept_) - float(coef @ scaler.mean_)

    def predict(self, X: ArrayLike, y: ArrayLike | None = None) -> NDArray[np.float64]:
        """Predict the fairness improvement of any number of rows.

        Parameters
        ----------
        X : array-like of shape (m, n_features)
            Raw features, e.g. a chunk of the pool; rows are scored independently.
        y : array-like of shape (m,) or None, default=None
            Their 0/1 labels; required exactly when :meth:`fit` was given labels.

        Returns
        -------
        ndarray of shape (m,)
            Predicted improvement; larger is better.

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        InvalidParameterError
            If ``y`` is given but the fit had no labels, or the other way round.
        InvalidDataError
            On NaN, non-binary labels, different lengths, or a different number of features
            than in :meth:`fit`.
        """
        where = "InfluenceRegressor.predict"
        if not hasattr(self, "coef_"):
            raise NotFittedError(
                f"{where}: this InfluenceRegressor is not fitted. Call fit(X, improvement) first."
            )
        Xa = _as_matrix(where, X)
        if Xa.shape[1] != self.n_features_in_:
            raise InvalidDataError(
                f"{where}: X has {Xa.shape[1]} features but the regressor was fitted on "
                f"{self.n_features_in_}. Pass rows with the training columns."
            )
        if (y is None) == self.by_label_:
            raise InvalidParameterError(
                f"{where}: the regressor was fitted "
                + (
                    "with labels, so pass y (the rows' 0/1 labels)."
                    if self.by_label_
                    else "without labels, so do not pass y (or refit with y)."
                )
            )
        scores = Xa @ self.coef_.T + self.intercept_
        if y is None:
            out: NDArray[np.float64] = scores[:, 0]
            return out
        labels = check_binary_labels(where, np.ravel(y), "y")
        check_consistent_length(where, X=Xa, y=labels)
        picked: NDArray[np.float64] = scores[np.arange(len(labels)), labels]
        return picked


def _as_matrix(where: str, X: Any) -> NDArray[np.float64]:
    Xa = np.asarray(X, dtype=np.float64)
    if Xa.ndim != 2:
        raise InvalidDataError(
            f"{where}: X must be 2-D (rows x features); got shape {Xa.shape}. "
            "Reshape a single row with X.reshape(1, -1)."
        )
    check_no_nan(where, "X", Xa)
    return Xa
