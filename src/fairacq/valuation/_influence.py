"""Influence of up-weighting each training row on a fairness surrogate (Hasan & Pradhan, eq. 5).

``I_f(d) = -grad f(theta*)^T H^{-1} grad L(d, theta*)``: one inverse-Hessian-vector product
``s = H^{-1} grad f`` (the same for every row), then one inner product per training row.
Logistic regression takes a closed form (:mod:`fairacq.valuation._logistic`); the linear SVM
and the MLP are re-expressed as torch functions (:mod:`fairacq.valuation._torch_models`) and
use autograd Hessian-vector products with conjugate gradient, LiSSA or a dense Hessian.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from fairacq._deps import require
from fairacq._random import RandomState
from fairacq._result import Result
from fairacq._typing import Classifier
from fairacq._validation import (
    Interval,
    Options,
    check_binary_labels,
    check_consistent_length,
    check_groups,
    check_no_nan,
    did_you_mean,
    validate_parameter_constraints,
)
from fairacq.valuation._autograd import AutogradInfluence
from fairacq.valuation._logistic import (
    logistic_influence,
    logistic_loss_gradient,
    logistic_objective,
    logistic_scores,
    logistic_surrogate_gradient,
)
from fairacq.valuation._surrogates import SURROGATE_METRICS, FairnessSurrogate, fairness_surrogate
from fairacq.valuation._unwrap import DifferentiableModel, unwrap_model

__all__ = ["SOLVERS", "InfluenceResult", "fairness_improvement", "fairness_influence"]

#: Accepted values of ``solver``.
SOLVERS: tuple[str, ...] = ("auto", "cg", "exact", "lissa")

_WHERE = "fairness_influence"


@dataclass(frozen=True, eq=False)
class InfluenceResult(Result):
    """First-order influence of each training row on a fairness surrogate.

    :meth:`to_frame` gives one row per training row. Saving: ``result.save(folder)``
    writes every field and ``InfluenceResult.load(folder)`` reads it back.

    Attributes
    ----------
    values : ndarray of shape (n_train,)
        ``d f / d epsilon`` for each training row, where ``epsilon`` is added to the row's
        sample weight: the first-order change of the surrogate ``f`` when one more copy of
        the row joins the training set. This is Hasan & Pradhan's ``(1/n) I_F(d)`` (eq. 5 with
        ``epsilon = 1/n`` in its mean-loss form).
    surrogate : float
        ``f`` at the fitted parameters (see :func:`~fairacq.valuation.fairness_surrogate`).
    damping : float
        ``lambda`` added to the Hessian's diagonal (0 unless asked for or needed).
    solver : {"exact", "cg", "lissa"}
        The inverse-Hessian-vector solver used.
    elapsed_s : float
        Wall time of the whole computation, in seconds.
    metric : str
        The fairness surrogate.
    pair : tuple of (int, int)
        The groups compared, ``f = mean(pair[0]) - mean(pair[1])``.
    branch : {"all", "tpr", "fpr"}
        The validation rows the surrogate uses.
    iterations : int
        Hessian-vector products spent by an iterative solver (0 for ``"exact"``).
    residual : float
        Relative residual (CG) or last relative update (LiSSA); 0 for ``"exact"``.
    loss_values : ndarray of shape (n_train,) or None
        With ``with_loss=True``: ``d L_val / d epsilon`` per training row, ``L_val`` the
        mean log-loss of the predicted probabilities on the validation rows (positive: one
        more copy of the row makes the model less accurate there). None otherwise.
    """

    values: NDArray[np.float64] = field(repr=False)
    surrogate: float
    damping: float
    solver: str
    elapsed_s: float
    metric: str
    pair: tuple[int, int]
    branch: str
    iterations: int = 0
    residual: float = 0.0
    loss_values: NDArray[np.float64] | None = field(default=None, repr=False)

    def to_frame(self) -> pd.DataFrame:
        """Return one row per training row: its influence, and on the loss if computed.

        Returns
        -------
        pandas.DataFrame
            ``value`` (:attr:`values`), ``improvement`` (:func:`fairness_improvement`:
            positive when one more copy of the row shrinks the fairness gap) and, with
            ``with_loss=True``, ``loss_value`` (:attr:`loss_values`); indexed by the
            training row's position.
        """
        frame = pd.DataFrame({"value": self.values, "improvement": fairness_improvement(self)})
        if self.loss_values is not None:
            frame["loss_value"] = self.loss_values
        frame.index.name = "row"
        return frame

    def _caption(self) -> str:
        solved = f"{self.solver} solver"
        if self.solver != "exact":
            solved += f", {self.iterations} iterations, residual {self.residual:.2g}"
        return (
            f"{self.metric} surrogate {self.surrogate:+.4g} ({self.branch} rows, groups "
            f"{self.pair[0]} vs {self.pair[1]}); {solved}; damping {self.damping:g}"
        )


def fairness_influence(
    model: Classifier,
    X_train: ArrayLike,
    y_train: ArrayLike,
    X_val: ArrayLike,
    y_val: ArrayLike,
    s_val: ArrayLike,
    *,
    metric: str = "demographic_parity",
    protected: int | None = None,
    privileged: int | None = None,
    solver: Literal["auto", "exact", "cg", "lissa"] = "auto",
    damping: float = 0.0,
    random_state: RandomState = None,
    with_loss: bool = False,
) -> InfluenceResult:
    """Influence of up-weighting each training row on a fairness surrogate.

    Implements eqs. 4-5 of Hasan & Pradhan (DataSift, §3.3.1): ``I_f(d) = -grad f^T H^{-1} grad
    L(d)`` with ``f`` the differentiable fairness surrogate of ``metric`` on the validation
    rows (:func:`~fairacq.valuation.fairness_surrogate`) and ``H`` the exact Hessian of the
    training objective *as the learner defines it*, penalty included, at the fitted
    parameters, in the feature space the classifier sees (after the pipeline's scaler,
    which is held fixed). In scikit-learn's sum form (``0.5 ||w||^2 + C sum_i sw_i
    loss_i``), up-weighting row ``d`` by ``epsilon`` gives ``values[d] = d f / d epsilon =
    -grad f^T H^{-1} (C grad loss_d)``: the first-order change of ``f`` when one more copy of
    ``d`` is added, i.e. the paper's ``(1/n) I_F(d)``.

    Parameters
    ----------
    model : estimator
        A fitted ``lr``, ``linear_svm`` or ``mlp`` from :func:`fairacq.models.make_learner`
        (a scaled pipeline, or the bare classifier with ``scale=False``), fitted on
        ``(X_train, y_train)``.
    X_train : array-like of shape (n_train, n_features)
        The rows the model was fitted on (raw; the pipeline scales them).
    y_train : array-like of shape (n_train,)
        Their 0/1 labels.
    X_val : array-like of shape (n_val, n_features)
        Validation rows on which the fairness surrogate is measured.
    y_val : array-like of shape (n_val,)
        Their 0/1 labels.
    s_val : array-like of shape (n_val,)
        Their integer group codes (e.g. ``FairDataset.s``).
    metric : {"demographic_parity", "equal_opportunity", "equalized_odds"}, \
default="demographic_parity"
        The fairness surrogate; Hasan & Pradhan uses demographic parity.
    protected : int or None, default=None
        Protected group code. With two groups and neither given, group 0 is protected and
        group 1 privileged (Hasan & Pradhan's S=0 / S=1 and :mod:`fairacq.metrics`' convention);
        pass ``privileged=dataset.privileged_code`` when the privileged group is code 0.
    privileged : int or None, default=None
        Privileged group code; see ``protected``.
    solver : {"auto", "exact", "cg", "lissa"}, default="auto"
        ``"exact"``: dense Hessian and Cholesky (closed form for logistic regression, an
        autograd Hessian otherwise); ``"cg"``: conjugate gradient on autograd
        Hessian-vector products; ``"lissa"``: the stochastic LiSSA recursion. ``"auto"``
        is ``"exact"`` for logistic regression and ``"cg"`` otherwise. Every solver except
        logistic ``"exact"`` needs torch.
    damping : float, default=0.0
        ``lambda >= 0`` added to the Hessian's diagonal. It is raised further only when
        ``H + lambda I`` is not positive definite (possible for the non-convex MLP); the
        value used is reported.
    random_state : int, numpy.random.Generator or None, default=None
        Draws LiSSA's mini-batches; unused by the other solvers.
    with_loss : bool, default=False
        Also return the influence of each row on the validation log-loss
        (``loss_values``), with the same Hessian and solver: what acquiring the row costs
        in accuracy (fairacq's accuracy-aware DataSift-Inf; not in Hasan & Pradhan).

    Returns
    -------
    InfluenceResult
        ``values`` per training row, the surrogate's value, the damping, the solver and the
        wall time.

    Raises
    ------
    InvalidParameterError
        For a model without gradients (trees, forests: use ``lr``, ``linear_svm`` or
        ``mlp``, or DataSift without -Inf), or a bad ``solver``/``damping``.
    UnknownNameError
        For an unknown ``metric``.
    InvalidDataError
        On inconsistent lengths, NaN, non-binary labels, a single group, or a compared group
        without validation rows.
    NotFittedError
        If the model is not fitted.
    MissingDependencyError
        If torch is needed and not installed.

    See Also
    --------
    fairness_improvement : turns ``values`` into the ranking DataSift-Inf uses.

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> from fairacq.models import make_learner
    >>> ds = load_toy(200)
    >>> X = ds.to_numpy()
    >>> model = make_learner("lr", random_state=0).fit(X, ds.y)
    >>> res = fairness_influence(model, X, ds.y, X, ds.y, ds.s, privileged=0)
    >>> res.values.shape, res.solver, res.pair
    ((200,), 'exact', (1, 0))
    """
    start = time.perf_counter()
    surrogate_args: dict[str, Any] = {
        "metric": metric,
        "protected": protected,
        "privileged": privileged,
    }
    problem = _checked_problem(
        model,
        (X_train, y_train),
        (X_val, y_val, s_val),
        surrogate_args,
        {"solver": solver, "damping": damping, "random_state": random_state},
    )
    fm = problem.fm
    kind = solver if solver != "auto" else ("exact" if fm.kind == "logistic" else "cg")
    if fm.kind == "logistic" and kind == "exact":
        out = _logistic_influence(problem, float(damping), with_loss=with_loss)
    else:
        out = _torch_influence(problem, kind, float(damping), random_state, with_loss=with_loss)
    return InfluenceResult(
        values=out.values,
        surrogate=out.surrogate.value,
        damping=out.damping,
        solver=kind,
        elapsed_s=time.perf_counter() - start,
        metric=metric,
        pair=out.surrogate.pair,
        branch=out.surrogate.branch,
        iterations=out.iterations,
        residual=out.residual,
        loss_values=out.loss_values,
    )


@dataclass(frozen=True, eq=False)
class _Problem:
    """Validated inputs: the model, its training rows and the validation rows it sees."""

    fm: DifferentiableModel
    Z_tr: NDArray[np.float64]
    y_tr: NDArray[np.int64]
    Z_val: NDArray[np.float64]
    y_val: ArrayLike
    s_val: ArrayLike
    surrogate_args: dict[str, Any]

    def surrogate(self, p_val: NDArray[np.float64]) -> FairnessSurrogate:
        """Return the fairness surrogate of validation scores ``p_val``."""
        return fairness_surrogate(p_val, self.y_val, self.s_val, **self.surrogate_args)


class _Influence(NamedTuple):
    """What either path computes: influences, the surrogate and the solver's report."""

    values: NDArray[np.float64]
    loss_values: NDArray[np.float64] | None
    surrogate: FairnessSurrogate
    damping: float
    iterations: int
    residual: float


def _checked_problem(
    model: Any,
    train: tuple[Any, ArrayLike],
    val: tuple[Any, ArrayLike, ArrayLike],
    surrogate_args: dict[str, Any],
    params: dict[str, Any],
) -> _Problem:
    """Validate the arguments; return the model and the rows in its feature space.

    ``train`` is ``(X_train, y_train)``, ``val`` is ``(X_val, y_val, s_val)`` and ``params``
    holds ``solver``, ``damping`` and ``random_state``.
    """
    (X_train, y_train), (X_val, y_val, s_val) = train, val
    metric = surrogate_args["metric"]
    if metric not in SURROGATE_METRICS:
        raise did_you_mean(
            "fairness surrogate metric", metric, SURROGATE_METRICS, "SURROGATE_METRICS"
        )
    validate_parameter_constraints(
        {
            "solver": [Options(SOLVERS)],
            "damping": [Interval(float, 0, None, closed="left")],
            "random_state": ["random_state"],
        },
        params,
        _WHERE,
    )
    fm = unwrap_model(model, _WHERE)
    check_consistent_length(_WHERE, X_train=X_train, y_train=y_train)
    check_consistent_length(_WHERE, X_val=X_val, y_val=y_val, s_val=s_val)
    y_tr = check_binary_labels(_WHERE, np.asarray(y_train).ravel(), "y_train")
    check_binary_labels(_WHERE, np.asarray(y_val).ravel(), "y_val")
    check_groups(_WHERE, np.asarray(s_val).ravel(), "s_val")
    Z_tr = fm.transform(X_train)
    Z_val = fm.transform(X_val)
    check_no_nan(_WHERE, "X_train", Z_tr)
    check_no_nan(_WHERE, "X_val", Z_val)
    return _Problem(fm, Z_tr, y_tr, Z_val, y_val, s_val, surrogate_args)


def _logistic_influence(problem: _Problem, damping: float, *, with_loss: bool) -> _Influence:
    """Use the closed form of logistic regression: its exact Hessian, one Cholesky solve."""
    obj = logistic_objective(problem.fm.classifier)
    Z_tr, y_tr, Z_val = problem.Z_tr, problem.y_tr, problem.Z_val
    sur = problem.surrogate(logistic_scores(obj, Z_val))
    grad_f = logistic_surrogate_gradient(obj, Z_val, sur.weights)
    values, used = logistic_influence(obj, Z_tr, y_tr, grad_f, damping=damping)
    loss_values = None
    if with_loss:
        y_val = np.asarray(problem.y_val, dtype=np.float64)
        grad_loss = logistic_loss_gradient(obj, Z_val, y_val)
        loss_values = logistic_influence(obj, Z_tr, y_tr, grad_loss, damping=used)[0]
    return _Influence(values, loss_values, sur, used, 0, 0.0)


def _torch_influence(
    problem: _Problem,
    kind: str,
    damping: float,
    random_state: RandomState,
    *,
    with_loss: bool = False,
) -> _Influence:
    """Autograd path: surrogate gradient, one inverse-HVP solve, one pass over all rows.

    With ``with_loss`` a second right-hand side (the validation log-loss's gradient) is
    solved the same way, with the damping the first solve settled on.
    """
    t = require("torch", purpose="influence functions with solver='cg', 'lissa' or 'exact'")
    from fairacq.valuation._torch_models import to_torch_model

    tm = to_torch_model(problem.fm)
    ag = AutogradInfluence(t, tm, problem.Z_tr, problem.y_tr, kind, random_state)
    theta = ag.theta
    Zv = t.from_numpy(problem.Z_val)
    with t.no_grad():
        p_val = tm.scores(theta, Zv).numpy().astype(np.float64)
    sur = problem.surrogate(p_val)
    w = t.from_numpy(sur.weights)
    (grad_f,) = t.autograd.grad((w * tm.scores(theta, Zv)).sum(), theta)
    ag.linearise()
    s, used, iterations, residual = ag.solve(grad_f, damping)
    values = ag.row_values(s)
    loss_values = None
    if with_loss:
        grad_loss = ag.validation_loss_gradient(Zv, problem.y_val)
        loss_values = ag.row_values(ag.solve(grad_loss, used)[0])
    return _Influence(values, loss_values, sur, float(used), int(iterations), float(residual))


def fairness_improvement(result: InfluenceResult) -> NDArray[np.float64]:
    """First-order decrease of ``|f|`` from adding one more copy of each training row.

    Hasan & Pradhan (§3.3.2, Algorithm 2) sorts candidates "in decreasing order of influence on
    fairness": a row is worth acquiring when it moves the surrogate towards 0. This returns
    ``-sign(f) * values``: positive means adding the row shrinks the fairness gap. At exact
    parity (``f == 0``) every direction widens ``|f|``, and this returns ``-|values|``.

    Parameters
    ----------
    result : InfluenceResult
        From :func:`fairness_influence`.

    Returns
    -------
    ndarray of shape (n_train,)
        The improvement per training row; larger is better.

    Examples
    --------
    >>> import numpy as np
    >>> res = InfluenceResult(np.array([0.1, -0.2]), -0.3, 0.0, "exact", 0.0,
    ...                       "demographic_parity", (0, 1), "all")
    >>> fairness_improvement(res).tolist()
    [0.1, -0.2]
    """
    values = np.asarray(result.values, dtype=np.float64)
    if result.surrogate == 0.0:
        out: NDArray[np.float64] = -np.abs(values)
        return out
    signed: NDArray[np.float64] = -np.sign(result.surrogate) * values
    return signed
