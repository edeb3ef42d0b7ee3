"""Refit and score the registry's logistic regression at a fraction of scikit-learn's cost.

An acquisition run evaluates a batch by retraining its learner on the training rows plus the
batch and scoring the validation rows: thousands of fits of a few thousand rows, where
scikit-learn's input checks and wrappers cost more than the optimisation itself. For the
registry's ``"lr"`` (a ``StandardScaler``, then an L2 ``LogisticRegression`` solved by
L-BFGS-B) :func:`refit` computes the scaler's statistics with the operations ``fit``
performs (:func:`scaler_moments`), hands the same loss, start point and options to the same
solver routine (:func:`~fairacq.acquisition.loop._lbfgs.lbfgs_direct`, without
``scipy.optimize.minimize``'s wrappers), and writes the result into the fitted attributes of
an unfitted pipeline; :func:`lr_scores` repeats ``predict_proba``'s arithmetic on the same
array layout, and :meth:`ExactRefit.fit_scores` gives a what-if fit's scores without
building a model. Models and scores are those of ``make_learner(...).fit`` and
``predict_scores``, bit for bit. Any other learner, labels other than {0, 1}, NaN features
or a solve that did not converge (scikit-learn then warns) take the ordinary path.

Exactness rests on scikit-learn's private per-row logistic loss, on repeating the steps of
its private scaler statistics, and on scipy's private solver routine (no public route
computes the same bits cheaply), so :class:`ExactRefit` checks the first fit and the first
scoring of a run against the ordinary path and keeps to the ordinary path for the run if a
single bit differs (another scikit-learn or scipy version) or if those functions are gone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.special import expit
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from fairacq.acquisition.loop._lbfgs import lbfgs_direct
from fairacq.models import check_probabilities, make_learner, predict_scores

__all__ = [
    "ExactRefit",
    "lr_scores",
    "refit",
    "same_fitted_model",
    "scaler_moments",
]

#: LogisticRegression parameters the shortcut reproduces (any other value: ordinary fit)
_LR_DEFAULTS = {
    "class_weight": None,
    "dual": False,
    "fit_intercept": True,
    "solver": "lbfgs",
    "warm_start": False,
    "verbose": 0,
}


def refit(learner: Any, seed: int, X: NDArray[np.float64], y: NDArray[Any]) -> Any:
    """Return ``make_learner(learner, random_state=seed).fit(X, y)``, cheaply for ``"lr"``.

    Parameters
    ----------
    learner : str or estimator
        What :func:`~fairacq.models.make_learner` takes.
    seed : int
        The learner's seed.
    X : ndarray of shape (n_samples, n_features)
        Training features.
    y : ndarray of shape (n_samples,)
        Binary labels.

    Returns
    -------
    estimator
        The fitted model, identical to the ordinary fit's.

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> ds = load_toy(200, random_state=0)
    >>> fast = refit("lr", 3, ds.to_numpy(), ds.y)
    >>> slow = make_learner("lr", random_state=3).fit(ds.to_numpy(), ds.y)
    >>> same_fitted_model(fast, slow)
    True
    """
    model = make_learner(learner, random_state=seed)
    params = _lr_params(model) if learner == "lr" else None
    if params is not None and _fit_lr_pipeline(model, params, X, y):
        return model
    return model.fit(X, y)


def _lr_params(model: Any) -> dict[str, Any] | None:
    """Return the logistic regression's parameters (None if the shortcut does not cover them)."""
    if model[0].get_params() != StandardScaler().get_params():
        return None
    params: dict[str, Any] = model[-1].get_params()
    if any(params.get(k) != v for k, v in _LR_DEFAULTS.items()):
        return None
    if params.get("penalty") not in ("deprecated", "l2") or params.get("l1_ratio") not in (
        0,
        None,
    ):
        return None
    return params if 0 < params["C"] < np.inf else None


def _fit_lr_pipeline(
    model: Any, params: dict[str, Any], X: NDArray[np.float64], y: NDArray[Any]
) -> bool:
    """Fit ``model`` (scaler + logistic regression) in place; False if the shortcut cannot."""
    return _fit_lr_steps(model[0], model[-1], params, X, y)


def _fit_lr_steps(
    scaler: StandardScaler,
    clf: LogisticRegression,
    params: dict[str, Any],
    X: NDArray[np.float64],
    y: NDArray[Any],
) -> bool:
    """Fit the two steps in place, as the pipeline's fit does; False if the shortcut cannot."""
    labels = np.asarray(y)
    if X.dtype != np.float64 or X.ndim != 2 or labels.ndim != 1 or labels.size != X.shape[0]:
        return False
    classes = _binary_classes(labels)
    if classes is None:
        return False
    Xs = _fit_scaler(scaler, X)
    solution = None if Xs is None else _lbfgs(params, Xs, labels)
    if solution is None:
        return False
    w, n_iter = solution
    clf.classes_ = classes
    clf.n_features_in_ = X.shape[1]
    clf.n_iter_ = np.asarray([n_iter], dtype=np.int32)
    coef = np.asarray(w, copy=True)[None, :]  # the same layout as LogisticRegression.fit
    clf.intercept_ = coef[0, -1:]
    clf.coef_ = coef[0, :-1][None, :]
    return True


def _binary_classes(labels: NDArray[Any]) -> NDArray[Any] | None:
    """Return ``np.unique(labels)`` if it is exactly ``[0, 1]``, else None."""
    if labels.dtype.kind in "iu" and labels.size:  # integers: min 0 and max 1 say it all
        if labels.min() == 0 and labels.max() == 1:
            return np.array([0, 1], dtype=labels.dtype)
        return None
    classes = np.unique(labels)
    if classes.size != 2 or classes[0] != 0 or classes[1] != 1:
        return None
    return classes


def _fit_scaler(scaler: StandardScaler, X: NDArray[np.float64]) -> NDArray[np.float64] | None:
    """Fit ``scaler`` as ``StandardScaler.fit`` does; return ``X`` scaled (None if it cannot)."""
    if np.isnan(X).any():
        return None
    mean, var, seen = scaler_moments(X)
    if seen.max() == seen.min():
        seen = seen[0]
    # scikit-learn's _is_constant_feature and _handle_zeros_in_scale, the same operations
    eps = np.finfo(np.float64).eps
    constant = var <= seen * eps * var + (seen * mean * eps) ** 2
    scale = np.sqrt(var)
    scale[constant] = 1.0
    scaler.n_features_in_ = X.shape[1]
    scaler.n_samples_seen_, scaler.mean_, scaler.var_, scaler.scale_ = seen, mean, var, scale
    Xs = np.array(X, dtype=np.float64, copy=True)  # the layout StandardScaler.transform keeps
    Xs -= scaler.mean_
    Xs /= scaler.scale_
    return Xs


def scaler_moments(
    X: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Column means, variances and counts, as ``StandardScaler.fit`` computes them.

    The operations scikit-learn's ``_incremental_mean_and_var`` performs on a first call
    (no rows seen before, no weights) for an array without NaN, in the same order (its
    corrected two-pass variance), without its array-namespace look-ups. :class:`ExactRefit`
    checks the result against ``StandardScaler`` on the first fit of every run.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Finite float64 features.

    Returns
    -------
    mean, var, count : ndarray of shape (n_features,)

    Examples
    --------
    >>> mean, var, count = scaler_moments(np.array([[1.0, 2.0], [3.0, 2.0]]))
    >>> mean.tolist(), var.tolist(), count.tolist()
    ([2.0, 2.0], [1.0, 0.0], [2.0, 2.0])
    """
    n, d = X.shape
    last_count = np.zeros(d, dtype=np.float64)  # nothing seen before: 0 rows, mean 0, var 0
    last_sum = 0.0 * last_count
    new_sum = np.sum(X, axis=0)
    new_count = n - np.zeros(d, dtype=np.float64)  # no NaN: every row counts
    count = last_count + new_count
    mean = (last_sum + new_sum) / count
    temp = X - new_sum / new_count
    correction = np.sum(temp, axis=0)
    temp **= 2
    unnormalised = np.sum(temp, axis=0)
    unnormalised -= correction**2 / new_count
    return mean, unnormalised / count, count


def _lbfgs(
    params: dict[str, Any], Xs: NDArray[np.float64], y: NDArray[Any]
) -> tuple[NDArray[np.float64], int] | None:
    """Minimise scikit-learn's L2 logistic loss as its fit does; None if it cannot or did not."""
    try:  # the loss LogisticRegression.fit's objective sums
        from sklearn._loss.loss import HalfBinomialLoss
    except ImportError:  # pragma: no cover - another scikit-learn layout
        return None
    X = np.ascontiguousarray(Xs)
    target = np.ones(y.shape, dtype=np.float64)
    target[~(y == 1)] = 0.0
    fun = _objective(X, target, 1.0 / (params["C"] * X.shape[0]), HalfBinomialLoss())
    options: Any = {
        "maxiter": params["max_iter"],
        "maxls": 50,
        "gtol": params["tol"],
        "ftol": 64 * np.finfo(float).eps,
    }
    result = lbfgs_direct(fun, X.shape[1] + 1, **options)
    if result is None:  # no direct route to the solver: scipy's own driver
        from scipy import optimize

        found = optimize.minimize(
            fun, np.zeros(X.shape[1] + 1), method="L-BFGS-B", jac=True, options=options
        )
        result = (np.asarray(found.x, dtype=np.float64), int(found.nit), int(found.status))
    x, nit, status = result
    if status != 0:  # the ordinary fit warns about it: let it
        return None
    return x, min(nit, params["max_iter"])


def _objective(
    X: NDArray[np.float64], target: NDArray[np.float64], l2: float, base_loss: Any
) -> Any:
    """Return the mean logistic loss plus L2 penalty, and its gradient, as ``fit`` does.

    The operations of scikit-learn's ``LinearModelLoss.loss_gradient`` (binary, with an
    intercept, no sample weights), in the same order, without its per-call array checks.
    """
    n, d = X.shape
    buffers = np.empty(n), np.empty(n)  # per-row loss and gradient, rewritten at every call

    def loss_gradient(coef: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        weights, intercept = coef[:-1], coef[-1]
        raw = X @ weights
        raw += intercept  # in place: the same sums as ``X @ weights + intercept``
        loss, pointwise = base_loss.loss_gradient(
            y_true=target,
            raw_prediction=raw,
            sample_weight=None,
            loss_out=buffers[0],
            gradient_out=buffers[1],
            n_threads=1,
        )
        value = float(loss.sum() / n)
        value += float(0.5 * l2 * (weights @ weights))
        pointwise /= n
        grad = np.empty(d + 1)
        grad[:d] = X.T @ pointwise + l2 * weights
        grad[-1] = pointwise.sum()
        return value, grad

    return loss_gradient


def same_fitted_model(a: Any, b: Any) -> bool:
    """Whether two fitted models hold the same fitted attributes, bit for bit.

    Compares the attributes ending in ``_`` of each pipeline step (or of the model itself).

    Parameters
    ----------
    a, b : estimator
        Fitted models.

    Returns
    -------
    bool
    """
    steps_a, steps_b = _steps(a), _steps(b)
    if len(steps_a) != len(steps_b):
        return False
    return all(_same_state(x, y) for x, y in zip(steps_a, steps_b, strict=True))


def _same_model(fast: Any, slow: Any, X: NDArray[np.float64]) -> bool:
    """Whether the models share fitted attributes and scores (through ``predict_proba``)."""
    if not same_fitted_model(fast, slow):
        return False
    return bool(np.array_equal(predict_scores(fast, X), predict_scores(slow, X)))


def _steps(model: Any) -> list[Any]:
    return [step for _, step in model.steps] if hasattr(model, "steps") else [model]


def _same_state(a: Any, b: Any) -> bool:
    fitted_a = {k: v for k, v in vars(a).items() if k.endswith("_") and not k.startswith("_")}
    fitted_b = {k: v for k, v in vars(b).items() if k.endswith("_") and not k.startswith("_")}
    if fitted_a.keys() != fitted_b.keys() or type(a) is not type(b):
        return False
    return all(_same_value(fitted_a[k], fitted_b[k]) for k in fitted_a)


def _same_value(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(a, b))
    return bool(a == b)


def lr_scores(model: Any, X: NDArray[np.float64]) -> NDArray[np.float64] | None:
    """P(y=1) of a fitted scaler + logistic regression pipeline, as ``predict_scores`` gives it.

    The same operations as ``Pipeline.predict_proba`` on the same array layout (a copy of
    ``X`` centred and scaled in place, one product with the coefficients, the logistic
    function), without scikit-learn's checks; None for any other model.

    Parameters
    ----------
    model : estimator
        A fitted model.
    X : ndarray of shape (n_samples, n_features)
        Finite features.

    Returns
    -------
    ndarray of shape (n_samples,) or None

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> from fairacq.models import predict_scores
    >>> ds = load_toy(200, random_state=0)
    >>> model = refit("lr", 3, ds.to_numpy(), ds.y)
    >>> bool((lr_scores(model, ds.to_numpy()) == predict_scores(model, ds.to_numpy())).all())
    True
    """
    steps = _lr_steps(model, X)
    return None if steps is None else _lr_proba(*steps, X)


def _lr_steps(
    model: Any, X: NDArray[np.float64]
) -> tuple[StandardScaler, LogisticRegression] | None:
    """Return the fitted steps of a scaler + binary logistic regression for ``X``, or None."""
    steps = getattr(model, "steps", None)
    if not isinstance(steps, list) or len(steps) != 2 or X.dtype != np.float64:
        return None
    scaler, clf = steps[0][1], steps[1][1]
    if type(scaler) is not StandardScaler or type(clf) is not LogisticRegression:
        return None
    if not (scaler.with_mean and scaler.with_std) or clf.coef_.shape != (1, X.shape[1]):
        return None
    return scaler, clf


def _lr_proba(
    scaler: StandardScaler, clf: LogisticRegression, X: NDArray[np.float64]
) -> NDArray[np.float64]:
    """``predict_proba``'s arithmetic on the fitted steps (checked as ``predict_scores`` does)."""
    Xs = np.array(X, dtype=np.float64, copy=True)  # the layout StandardScaler.transform keeps
    Xs -= scaler.mean_
    Xs /= scaler.scale_
    prob = (Xs @ clf.coef_.T + clf.intercept_).reshape(-1)
    prob = expit(prob, out=prob)
    return check_probabilities(prob, where="the model")


def _checked_lr_scores(model: Any, X: NDArray[np.float64]) -> NDArray[np.float64]:
    """:func:`lr_scores` (checked equal for this run), or ``predict_scores`` for other models."""
    fast = lr_scores(model, X)
    return predict_scores(model, X) if fast is None else fast


class ExactRefit:
    """Fits and scores for one run: the shortcuts, each checked once against the ordinary path.

    The first fit and the first scoring run both ways; if a shortcut gives different bits
    (another scikit-learn version) the run uses the ordinary path from then on.

    Parameters
    ----------
    learner : str or estimator
        What :func:`~fairacq.models.make_learner` takes.

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> ds = load_toy(200, random_state=0)
    >>> exact = ExactRefit("lr")
    >>> model = exact.fit(1, ds.to_numpy(), ds.y)  # checked against the ordinary fit
    >>> scores = exact.scores(model, ds.to_numpy())  # checked against predict_scores
    >>> exact.fast_fit, exact.fast_scores
    (True, True)
    """

    def __init__(self, learner: Any) -> None:
        self.learner = learner
        self._params = _lr_params(make_learner(learner)) if learner == "lr" else None
        self.fast_fit: bool | None = None if self._params is not None else False
        self.fast_scores: bool | None = None

    def fit(self, seed: int, X: NDArray[np.float64], y: NDArray[Any]) -> Any:
        """Return the learner fitted on ``(X, y)`` with ``seed``."""
        model = make_learner(self.learner, random_state=seed)
        if self.fast_fit is None:
            slow = make_learner(self.learner, random_state=seed).fit(X, y)
            self.fast_fit = self._shortcut(model, X, y) and _same_model(model, slow, X)
            return slow
        if self.fast_fit and self._shortcut(model, X, y):
            return model
        return model.fit(X, y)

    def scores(self, model: Any, X: NDArray[np.float64]) -> NDArray[np.float64]:
        """Return :func:`~fairacq.models.predict_scores` of ``model`` on ``X``."""
        fast = lr_scores(model, X) if self.fast_scores is not False else None
        if fast is None or self.fast_scores is None:
            slow = predict_scores(model, X)
            if fast is not None:
                self.fast_scores = bool(np.array_equal(fast, slow))
            return slow
        return fast

    def scorer(self, model: Any, X: NDArray[np.float64]) -> Callable[..., NDArray[np.float64]]:
        """Return a function ``score(model, X)`` giving ``predict_scores(model, X)``'s bits.

        The one fast scorer of a run's hot path (pool blocks, validation rows): checks the
        shortcut on ``model`` and ``X`` first if no scoring of the run checked it yet, then
        returns :func:`lr_scores` with the ordinary path for any other model when the bits
        agreed, else :func:`~fairacq.models.predict_scores`. Both are module-level
        functions: a ``functools.partial`` of a block function holding one pickles cheaply
        for a chunk executor's workers, which then repeat no check.

        Parameters
        ----------
        model : estimator
            A fitted model of the run (its first model).
        X : ndarray of shape (n_samples, n_features)
            Rows to check the shortcut on (a few hundred suffice: the validation rows).

        Returns
        -------
        callable

        Examples
        --------
        >>> from fairacq.data import load_toy
        >>> ds = load_toy(200, random_state=0)
        >>> exact = ExactRefit("lr")
        >>> model = exact.fit(1, ds.to_numpy(), ds.y)
        >>> score = exact.scorer(model, ds.to_numpy())  # checked here, once
        >>> bool((score(model, ds.to_numpy()) == predict_scores(model, ds.to_numpy())).all())
        True
        """
        if self.fast_scores is None and _lr_steps(model, X) is not None:  # else no check
            self.scores(model, X)
        return _checked_lr_scores if self.fast_scores else predict_scores

    def fit_scores(
        self, seed: int, X: NDArray[np.float64], y: NDArray[Any], X_eval: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """Return the scores on ``X_eval`` of the learner fitted on ``(X, y)`` with ``seed``.

        ``self.scores(self.fit(seed, X, y), X_eval)``; once both shortcuts have been
        checked, without building the model (a what-if fit whose model is not kept).

        Examples
        --------
        >>> from fairacq.data import load_toy
        >>> ds = load_toy(200, random_state=0)
        >>> X, y, exact = ds.to_numpy(), ds.y, ExactRefit("lr")
        >>> first = exact.fit_scores(1, X, y, X)  # the ordinary path, checked
        >>> bool((exact.fit_scores(1, X, y, X) == first).all()), exact.fast_fit
        (True, True)
        """
        if self.fast_fit and self.fast_scores and self._params is not None:
            scaler, clf = StandardScaler(), LogisticRegression()  # holders of fitted values
            if _fit_lr_steps(scaler, clf, self._params, X, y):
                return _lr_proba(scaler, clf, X_eval)
        return self.scores(self.fit(seed, X, y), X_eval)

    def _shortcut(self, model: Any, X: NDArray[np.float64], y: NDArray[Any]) -> bool:
        return self._params is not None and _fit_lr_pipeline(model, self._params, X, y)
