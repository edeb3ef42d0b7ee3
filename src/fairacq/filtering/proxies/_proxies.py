"""Naive and QP proxies of Deng et al. (§5): predict the group, then set admission rates.

One class, :class:`LabelProxy`, makes the paper's four proxies from two choices:
- the predictor (``predictor=``): a multinomial logistic regression or a decision tree
  predicts the group (or any classifier, ``estimator=``);
- the weights (``weights=``): ``"naive"`` admits the same number of candidates per predicted
  group (``q`` uniform over the predicted values, or equal to ``target``); ``"qp"`` takes
  the admission rates from Algorithm 1.

Every proxy is fitted on a small labelled sample and exposes the in-sample conditional
distribution matrix ``A_``, proxy marginal, ``rho_``, disclosivity ``alpha_`` (Definition 5)
and expected imbalance ``beta_`` (Definition 2). The fitted state is a :class:`FittedProxy`
of plain arrays (no individual's group), so it can be saved as JSON.

Intersecting group classes (App. A.2): with ``s`` holding one column per class (or a
FairDataset with several sensitive attributes), the predictor predicts the cell of the
classes' product (e.g. race x sex), ``A`` concatenates the within-class distributions given
each predicted cell, the target is ``U_intersect`` and the naive proxies admit the same
number per predicted cell (the product of the classes' target shares).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from fairacq._artefact import to_jsonable
from fairacq._base import Strategy
from fairacq._callbacks import Callback
from fairacq._loop import one_shot_trace, refuse_resume
from fairacq._random import RandomState, as_generator, derive_int_seed
from fairacq._trace import Trace
from fairacq._typing import Model
from fairacq._validation import (
    MAX_ABS_VALUE,
    HasMethods,
    Interval,
    Options,
    check_consistent_length,
    check_no_nan,
)
from fairacq.data._dataset import FairDataset, encode_groups
from fairacq.exceptions import InvalidDataError, NotFittedError
from fairacq.filtering._intersect import (
    _check_block_stochastic,
    intersecting_disclosivity_from_matrix,
    intersecting_imbalance_from_matrix,
)
from fairacq.filtering._membership import GroupClasses, encode_group_classes, group_mass
from fairacq.filtering._weights import sampling_weights
from fairacq.filtering.proxies._estimator import EstimatorRule, estimator_rule
from fairacq.filtering.proxies._rules import LinearRule, RandomizedTreeRule, TreeRule
from fairacq.metrics import (
    conditional_distribution_matrix,
    disclosivity_from_matrix,
    expected_acceptance_rate,
    imbalance_from_matrix,
)

__all__ = ["FittedProxy", "LabelProxy"]


@dataclass(frozen=True, eq=False)
class FittedProxy:
    """A fitted proxy and its sampling rule: what Algorithm 2 needs, as plain arrays.

    Attributes
    ----------
    method : str
        Name of the proxy (``"qp-tree"``, ...).
    rule : LinearRule, TreeRule, RandomizedTreeRule or EstimatorRule
        Maps a feature row to a proxy value ``0..l-1`` (randomized for the (alpha, beta)
        tree: then each row has expected leaf weights; an :class:`EstimatorRule`, a user's
        classifier that has no plain-array form, works in memory but cannot be saved).
    feature_names : tuple of str
        Columns the rule reads, in order.
    groups : tuple of str
        Group names, in the column order of ``A``.
    A : numpy.ndarray of shape (l, K)
        In-sample conditional distribution matrix (rows of unseen values hold the prior).
    proxy_marginal : numpy.ndarray of shape (l,)
        In-sample ``Pr[z_hat = j]``.
    rho : numpy.ndarray of shape (l,)
        Admission probability of each proxy value.
    target : numpy.ndarray of shape (K,)
        Target group distribution (concatenated class shares for intersecting groups).
    info : dict
        Extra JSON-ready facts (hyper-parameters, solver, ...).
    classes : GroupClasses or None, default=None
        The intersecting group classes of App. A.2 (then ``groups`` are their
        ``"class=group"`` labels and each row of ``A`` concatenates the within-class
        distributions); None in the disjoint case.
    """

    method: str
    rule: LinearRule | TreeRule | RandomizedTreeRule | EstimatorRule
    feature_names: tuple[str, ...]
    groups: tuple[str, ...]
    A: NDArray[np.float64]
    proxy_marginal: NDArray[np.float64]
    rho: NDArray[np.float64]
    target: NDArray[np.float64]
    info: dict[str, Any] = field(default_factory=dict)
    classes: GroupClasses | None = None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FittedProxy):
            return NotImplemented
        arrays = ("A", "proxy_marginal", "rho", "target")
        return (
            (self.method, self.feature_names, self.groups, self.info, self.classes)
            == (other.method, other.feature_names, other.groups, other.info, other.classes)
            and _rule_key(self.rule) == _rule_key(other.rule)
            and all(np.array_equal(getattr(self, a), getattr(other, a)) for a in arrays)
        )

    __hash__ = None  # type: ignore[assignment]  # mutable arrays inside

    @property
    def group_sizes(self) -> tuple[int, ...]:
        """Number of groups of each class (one entry in the disjoint case)."""
        return self.classes.sizes if self.classes is not None else (len(self.groups),)

    @property
    def alpha(self) -> float:
        """In-sample disclosivity (Definition 5; per membership column for App. A.2)."""
        return _matrix_alpha(self.A, self.proxy_marginal, self.classes)

    @property
    def beta(self) -> float:
        """In-sample expected imbalance of the admitted sample (Definitions 2 and 16)."""
        return _matrix_beta(self.A, self.proxy_marginal, self.rho, self.target, self.classes)

    @property
    def acceptance_rate(self) -> float:
        """In-sample expected fraction admitted, ``r_hat . rho``."""
        return expected_acceptance_rate(self.proxy_marginal, self.rho)

    def proxy_values(
        self, X: FairDataset | pd.DataFrame | ArrayLike, *, random_state: RandomState = None
    ) -> NDArray[np.int64]:
        """Return the proxy value of each candidate.

        Parameters
        ----------
        X : pandas.DataFrame or array-like of shape (n, d)
            Candidates; a DataFrame must hold every column in ``feature_names``.
        random_state : int, numpy.random.Generator or None, default=None
            Draws the leaf of a randomized tree (ignored by deterministic proxies).

        Returns
        -------
        numpy.ndarray of shape (n,)

        Raises
        ------
        InvalidDataError
            If a feature the proxy uses is missing, the width is wrong, or values are NaN.
        """
        arr = _feature_matrix(X, self.feature_names, self.method)
        if isinstance(self.rule, RandomizedTreeRule):
            return self.rule.sample(arr, as_generator(random_state))
        return self.rule.predict(arr)

    def admission_probability(
        self, X: FairDataset | pd.DataFrame | ArrayLike
    ) -> NDArray[np.float64]:
        """Return each candidate's admission probability under Algorithm 2.

        ``rho[z_hat(x)]`` for a deterministic proxy; for a randomized tree the expectation
        over its leaves, ``sum_V w_V(x) rho_V`` (Definition 10), which admits with the
        same probability as drawing the leaf first.
        """
        arr = _feature_matrix(X, self.feature_names, self.method)
        if isinstance(self.rule, RandomizedTreeRule):
            prob = np.asarray(self.rule.leaf_weights(arr) @ self.rho, dtype=np.float64)
            return np.clip(prob, 0.0, 1.0)
        return np.asarray(self.rho[self.rule.predict(arr)], dtype=np.float64)


def _rule_key(rule: Any) -> Any:
    """Return what compares two rules: their JSON form, or the fitted estimator itself."""
    return rule.estimator if isinstance(rule, EstimatorRule) else rule.to_dict()


def _feature_matrix(X: Any, names: tuple[str, ...], where: str) -> NDArray[np.float64]:
    if isinstance(X, pd.DataFrame):
        missing = [c for c in names if c not in X.columns]
        if missing:
            raise InvalidDataError(
                f"{where}: the candidates lack feature(s) {missing[:5]} that the proxy uses. "
                "Pass candidates with the same columns as the labelled sample."
            )
        try:
            arr = X.loc[:, list(names)].to_numpy(dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InvalidDataError(
                f"{where}: the proxy's features must be numeric ({exc}). Encode categorical "
                "columns (e.g. one-hot) as in the labelled sample."
            ) from exc
    else:
        try:
            arr = np.asarray(X, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InvalidDataError(
                f"{where}: the candidates must be numeric ({exc}). Encode them first."
            ) from exc
        if arr.ndim != 2 or arr.shape[1] != len(names):
            raise InvalidDataError(
                f"{where}: expected a 2-D array with {len(names)} columns (the proxy's "
                f"features). Got shape {arr.shape}. Pass a DataFrame with named columns."
            )
    if not (np.isfinite(arr).all() and (np.abs(arr) < MAX_ABS_VALUE).all()):
        for j, name in enumerate(names):  # name the column and the rows
            check_no_nan(f"{where} (candidates)", name, arr[:, j])
    return arr


def _matrix_alpha(
    A: NDArray[np.float64], r_hat: NDArray[np.float64], classes: GroupClasses | None
) -> float:
    """Return alpha from ``A`` (disjoint: :mod:`fairacq.metrics`; else App. A.2)."""
    if classes is None:
        return disclosivity_from_matrix(A, r_hat)
    return intersecting_disclosivity_from_matrix(A, r_hat, classes.sizes)


def _matrix_beta(
    A: NDArray[np.float64],
    r_hat: NDArray[np.float64],
    rho: NDArray[np.float64],
    target: NDArray[np.float64],
    classes: GroupClasses | None,
) -> float:
    """Return the expected beta of sampling with ``rho`` (Definition 2, or 16 for A.2)."""
    if classes is None:
        return imbalance_from_matrix(A, r_hat, rho, target=target)
    return intersecting_imbalance_from_matrix(A, r_hat, rho, classes.sizes, target=target)


@dataclass(frozen=True)
class _Sample:
    """A validated labelled sample: features, group codes and the group structure."""

    X: NDArray[np.float64]
    feature_names: tuple[str, ...]
    codes: NDArray[np.int64]  # (n,) disjoint, (n, G) intersecting
    groups: tuple[str, ...]
    classes: GroupClasses | None

    @property
    def sizes(self) -> tuple[int, ...]:
        return self.classes.sizes if self.classes is not None else (len(self.groups),)


def _unpack_dataset(X: Any, s: Any, where: str) -> tuple[Any, Any]:
    """Return features and sensitive values, reading both from a FairDataset if given."""
    if isinstance(X, FairDataset):
        if s is not None:
            raise InvalidDataError(
                f"{where}: pass either a FairDataset (its sensitive attributes give the "
                "groups) or features X with groups s, not both."
            )
        attrs = list(X.sensitive_attrs)
        sens = X.sensitive
        return X.X, (sens[attrs[0]] if len(attrs) == 1 else sens[attrs])
    if s is None:
        raise InvalidDataError(
            f"{where}: s is missing. Pass the true group of each row (or a DataFrame with one "
            "column per group class, or a FairDataset)."
        )
    return X, s


def _encode(where: str, X: Any, s: Any, groups: Any) -> _Sample:
    """Validate a labelled sample; a 2-D ``s`` means intersecting group classes (App. A.2)."""
    X, s = _unpack_dataset(X, s, where)
    intersecting = isinstance(s, pd.DataFrame) or np.asarray(s).ndim == 2
    if not intersecting:
        if isinstance(groups, Mapping):
            raise InvalidDataError(
                f"{where}: groups is a mapping of classes but s is 1-D. Pass s with one "
                "column per class, or groups as a list."
            )
        arr, names, codes, group_names = _encode_sample(where, X, s, groups)
        return _Sample(arr, names, codes, group_names, None)
    if groups is not None and not isinstance(groups, Mapping):
        raise InvalidDataError(
            f"{where}: with several group classes, groups must map each class to its "
            "groups, e.g. {'race': [...], 'sex': [...]}."
        )
    codes_i, classes = encode_group_classes(s, where, groups)
    arr, names = _features(where, X)
    check_consistent_length(where, X=arr, s=codes_i[:, 0])
    return _Sample(arr, names, codes_i, classes.labels, classes)


def _features(where: str, X: Any) -> tuple[NDArray[np.float64], tuple[str, ...]]:
    if isinstance(X, pd.DataFrame):
        names = tuple(str(c) for c in X.columns)
    else:
        width = np.asarray(X).shape[1] if np.asarray(X).ndim == 2 else 0
        names = tuple(f"x{i}" for i in range(width))
    arr = _feature_matrix(X, names, where) if isinstance(X, pd.DataFrame) else None
    if arr is None:
        arr = _feature_matrix(X, names, where) if names else np.asarray(X, dtype=np.float64)
        if arr.ndim != 2 or not np.isfinite(arr).all():
            raise InvalidDataError(f"{where}: X must be a finite 2-D array or a DataFrame.")
    return arr, names


def _encode_sample(
    where: str, X: Any, s: ArrayLike, groups: ArrayLike | None
) -> tuple[NDArray[np.float64], tuple[str, ...], NDArray[np.int64], tuple[str, ...]]:
    arr, names = _features(where, X)
    s_arr = np.asarray(s)
    check_consistent_length(where, X=arr, s=s_arr)
    codes, names_g = encode_groups(s_arr, where, "s")
    if groups is not None:
        expected = sorted({str(g) for g in np.asarray(groups).tolist()})
        present = [str(g) for g in names_g]
        absent = [g for g in expected if g not in present]
        if absent:
            raise InvalidDataError(
                f"{where}: group(s) {absent} are absent from the labelled sample, so their "
                "balance cannot be estimated. Label some candidates of those groups first."
            )
        extra = [g for g in present if g not in expected]
        if extra:
            raise InvalidDataError(
                f"{where}: s holds group(s) {extra} not listed in groups. Add them to groups."
            )
    return arr, names, codes, tuple(str(g) for g in names_g)


def _full_matrix(
    values: NDArray[np.int64], codes: NDArray[np.int64], n_values: int, n_groups: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Build A over all ``n_values`` proxy values; unseen ones get the prior, marginal 0."""
    A_seen, r_seen = conditional_distribution_matrix(values, codes)
    seen = np.unique(values)
    prior = np.bincount(codes, minlength=n_groups) / codes.shape[0]
    A = np.tile(prior, (n_values, 1))
    r_hat = np.zeros(n_values)
    A[seen] = A_seen
    r_hat[seen] = r_seen
    return A, r_hat


def _full_matrix_classes(
    values: NDArray[np.int64], codes: NDArray[np.int64], n_values: int, sizes: tuple[int, ...]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Concatenated-class A over all ``n_values`` proxy values (App. A.2); unseen: prior."""
    n = codes.shape[0]
    prior = group_mass(np.ones(n), codes, sizes) / n
    counts = np.bincount(values, minlength=n_values).astype(np.float64)
    A = np.tile(prior, (n_values, 1))
    for j in np.flatnonzero(counts > 0):
        A[j] = group_mass((values == j).astype(np.float64), codes, sizes) / counts[j]
    return A, counts / n


def _sample_target(target: ArrayLike | None, sample: _Sample, where: str) -> NDArray[np.float64]:
    """Return the target of a sample: per-group (disjoint) or concatenated per class (App. A.2)."""
    if sample.classes is None:
        return _target(target, len(sample.groups), where)
    if target is None:
        return sample.classes.uniform_target()
    tgt = np.asarray(target, dtype=np.float64).reshape(-1)
    if tgt.shape[0] != sample.classes.n_columns or not np.isfinite(tgt).all() or (tgt < 0).any():
        raise InvalidDataError(
            f"{where}: target must hold {sample.classes.n_columns} probabilities >= 0 (the "
            f"groups of every class, in the order {list(sample.classes.labels)}), each class "
            f"summing to 1. Got {tgt.tolist()}."
        )
    _check_block_stochastic(where, tgt, sample.classes.sizes, "target")
    return tgt


def _target(target: ArrayLike | None, n_groups: int, where: str) -> NDArray[np.float64]:
    if target is None:
        return np.full(n_groups, 1.0 / n_groups)
    tgt = np.asarray(target, dtype=np.float64).reshape(-1)
    if tgt.shape[0] != n_groups or (tgt < 0).any() or abs(tgt.sum() - 1.0) > 1e-8:
        raise InvalidDataError(
            f"{where}: target must hold {n_groups} probabilities (one per group, sorted "
            f"order) summing to 1. Got {tgt.tolist()} (sum {tgt.sum():.6g}). Normalise it."
        )
    return tgt


def _cell_codes(sample: _Sample) -> tuple[NDArray[np.int64], int]:
    """Return the code a label proxy predicts for each row, and the number of codes.

    With intersecting classes the code is the cell of the classes' product (mixed radix).
    """
    if sample.classes is None:
        return sample.codes, len(sample.groups)
    codes = np.ravel_multi_index(tuple(sample.codes.T), sample.sizes).astype(np.int64)
    return codes, int(np.prod(sample.sizes))


def _naive_rho(
    r_hat: NDArray[np.float64], tgt: NDArray[np.float64], sample: _Sample
) -> NDArray[np.float64]:
    """Admit the same share (or the target share) per predicted group.

    For intersecting classes the cell's share is the product of its classes' shares.
    """
    seen = r_hat > 0
    cell_target = tgt if sample.classes is None else _cell_target(tgt, sample.sizes)
    q = np.where(seen, cell_target, 0.0)
    if q.sum() <= 0:
        q = seen.astype(np.float64)
    rho = np.zeros(r_hat.shape[0])
    rho[seen] = q[seen] / r_hat[seen]
    out: NDArray[np.float64] = rho / rho.max()
    return out


def adopt_fitted(
    proxy: Any,
    fitted: FittedProxy,
    sample: _Sample,
    callbacks: Sequence[Callback] = (),
    **trace_row: Any,
) -> None:
    """Set a proxy strategy's fitted attributes from ``fitted`` and record its fit's trace.

    ``trace_row`` adds columns to the trace after ``alpha``, ``beta``, ``n_values``,
    ``acceptance_rate`` and ``features`` (those the rule reads, comma-separated);
    ``callbacks`` are called once, after the fit (see :func:`fit_trace`).
    """
    set_fitted_attributes(proxy, fitted, sample)
    proxy.trace_ = fit_trace(
        proxy,
        fitted.method,
        n_rows=sample.X.shape[0],
        alpha=proxy.alpha_,
        beta=proxy.beta_,
        n_values=len(fitted.proxy_marginal),
        acceptance_rate=fitted.acceptance_rate,
        features=",".join(features_read(fitted.rule, fitted.feature_names)),
        callbacks=callbacks,
        **trace_row,
    )


def set_fitted_attributes(proxy: Any, fitted: FittedProxy, sample: _Sample) -> None:
    """Set a proxy strategy's fitted attributes (``fitted_``, ``A_``, ...) from ``fitted``."""
    proxy.fitted_ = fitted
    proxy.A_ = fitted.A
    proxy.proxy_marginal_ = fitted.proxy_marginal
    proxy.rho_ = fitted.rho
    proxy.groups_ = sample.groups
    proxy.feature_names_in_ = sample.feature_names
    proxy.alpha_ = fitted.alpha
    proxy.beta_ = fitted.beta


class LabelProxy(Strategy):
    """A proxy that predicts each candidate's group, then sets admission rates (Deng et al.).

    Two choices make the four proxies of the paper (§5): what predicts the group
    (``predictor``: a multinomial logistic regression or a decision tree, or any classifier
    through ``estimator``) and how admission rates follow from the predictions (``weights``:
    ``"naive"`` admits the same number per predicted group, ``"qp"`` solves Algorithm 1).
    :func:`make_proxy` builds them by name (``"qp-tree"`` is ``predictor="tree",
    weights="qp"``).

    Parameters
    ----------
    predictor : {"regression", "tree"}, default="regression"
        The classifier predicting the group: a logistic regression (``C``, ``max_iter``,
        ``standardize``) or a decision tree (``max_depth``, ``min_samples_leaf``,
        ``random_state``). The other predictor's hyper-parameters are ignored.
    weights : {"naive", "qp"}, default="naive"
        Admission rates proportional to ``target_j / r_hat_j`` (the same number admitted per
        predicted group), or from the quadratic program of Algorithm 1 (``relaxed``,
        ``solver``).
    C : float, default=1.0
        Inverse L2 regularisation of the logistic regression (scikit-learn).
    max_iter : int, default=1000
        Iterations of the logistic regression solver.
    standardize : bool, default=True
        Fit the regression on standardised features (the scaling is folded into the saved
        rule). False fits the raw features; with ``max_iter=100`` that is scikit-learn's
        default fit, which on Adult stops unconverged and predicts the majority group for
        nearly everyone, the paper's short regression curves (beta > 0.7).
    max_depth : int or None, default=None
        Depth limit of the tree; None grows it fully.
    min_samples_leaf : int, default=1
        Minimum rows per leaf of the tree.
    estimator : str, estimator or None, default=None
        A classifier predicting the group in place of the predictor's own: a name of
        :func:`fairacq.models.make_learner` (``"lr"``, ``"decision_tree"``, ...),
        ``"module:Class"``, or a scikit-learn classifier or Pipeline (copied, never fitted
        in place); the predictor's hyper-parameters are then ignored. The proxy saves as
        JSON when the classifier is linear or a decision tree (after affine scalers only);
        any other works in memory only.
    target : array-like of shape (K,) or None, default=None
        Target group distribution (sorted group order); None is uniform. For intersecting
        classes, the concatenated class shares (each class summing to 1); None is
        ``U_intersect``.
    relaxed : bool, default=False
        ``weights="qp"`` only: drop ``sum(q) = 1`` in Algorithm 1 (§5 relaxation).
    solver : {"auto", "clarabel", "osqp", "nnls", "active-set"}, default="auto"
        ``weights="qp"`` only: the QP solver (see :func:`sampling_weights`).
    random_state : int, numpy.random.Generator or None, default=None
        Seeds the tree's tie-breaking and the ``estimator``'s randomness.

    Attributes
    ----------
    fitted_ : FittedProxy
    A_, proxy_marginal_, rho_ : numpy.ndarray
        In-sample conditional matrix, proxy marginal and admission probabilities.
    alpha_, beta_ : float
        In-sample disclosivity and expected imbalance.
    trace_ : Trace
        One row (the fit is done in one go): labelled rows used (``cost`` and ``n_rows``),
        ``alpha``, ``beta``, ``n_values``, ``acceptance_rate`` (the attributes' values)
        and ``features`` (the features the rule reads, comma-separated); the parameters
        and seed in its metadata. :meth:`fit` calls its
        ``callbacks`` once, after the fit, and refuses ``continue_from`` (nothing to resume).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = rng.integers(0, 2, 400)
    >>> X = np.c_[s + rng.normal(0, 0.8, 400), rng.normal(size=400)]
    >>> proxy = LabelProxy(predictor="tree", weights="qp", max_depth=2, random_state=0)
    >>> proxy.fit(X, s).fitted_.method, proxy.rho_.shape
    ('qp-tree', (2,))
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "predictor": [Options(["regression", "tree"])],
        "weights": [Options(["naive", "qp"])],
        "C": [Interval(float, 0, None, closed="neither")],
        "max_iter": [Interval(int, 1, None, closed="left")],
        "standardize": ["boolean"],
        "max_depth": [Interval(int, 1, None, closed="left"), None],
        "min_samples_leaf": [Interval(int, 1, None, closed="left")],
        "estimator": [str, HasMethods(["fit", "predict"]), None],
        "target": [HasMethods(["__len__"]), None],
        "relaxed": ["boolean"],
        "solver": [Options(["active-set", "auto", "clarabel", "nnls", "osqp"])],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        predictor: str = "regression",
        weights: str = "naive",
        C: float = 1.0,
        max_iter: int = 1000,
        standardize: bool = True,
        max_depth: int | None = None,
        min_samples_leaf: int = 1,
        estimator: str | Model | None = None,
        target: ArrayLike | None = None,
        relaxed: bool = False,
        solver: str = "auto",
        random_state: RandomState = None,
    ) -> None:
        self.predictor = predictor
        self.weights = weights
        self.C = C
        self.max_iter = max_iter
        self.standardize = standardize
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.estimator = estimator
        self.target = target
        self.relaxed = relaxed
        self.solver = solver
        self.random_state = random_state

    @property
    def _method(self) -> str:
        """The proxy's name, as :func:`make_proxy` takes it (``"qp-tree"``)."""
        return f"{self.weights}-{self.predictor}"

    def _used_params(self) -> dict[str, Any]:
        """Return the hyper-parameters this combination uses (recorded with the fit)."""
        params = self.get_params(deep=False)
        others = [keys for name, keys in _PREDICTOR_PARAMS.items() if name != self.predictor]
        unused = {k for keys in others for k in keys}
        if self.estimator is not None:  # it replaces the predictor; the seed still applies
            unused |= set(_PREDICTOR_PARAMS[self.predictor])
            unused.discard("random_state")
        if self.weights == "naive":
            unused |= {"relaxed", "solver"}
        return {k: v for k, v in params.items() if k not in unused}

    def _make_rule(
        self, X: NDArray[np.float64], codes: NDArray[np.int64]
    ) -> LinearRule | TreeRule | EstimatorRule:
        if self.estimator is not None:
            return estimator_rule(self.estimator, X, codes, random_state=self.random_state)
        if self.predictor == "tree":
            return _tree_rule(
                X, codes, self.max_depth, int(self.min_samples_leaf), self.random_state
            )
        return _linear_rule(X, codes, float(self.C), int(self.max_iter), bool(self.standardize))

    def fit(
        self,
        X: FairDataset | pd.DataFrame | ArrayLike,
        s: ArrayLike | None = None,
        *,
        groups: ArrayLike | Mapping[str, ArrayLike] | None = None,
        continue_from: Trace | str | os.PathLike[str] | None = None,
        callbacks: Sequence[Callback] = (),
    ) -> LabelProxy:
        """Fit the proxy on a labelled sample and compute its in-sample ``A`` and ``rho``.

        Parameters
        ----------
        X : pandas.DataFrame, array-like of shape (n, d) or FairDataset
            Non-sensitive features of the labelled sample, or a FairDataset whose
            sensitive attributes give the groups (several attributes: intersecting classes).
        s : array-like of shape (n,), pandas.DataFrame of shape (n, G) or None
            True group of each row (at least two groups). A DataFrame (or 2-D array) holds
            one column per group class: intersecting groups (App. A.2), predicted as the
            cell of the classes' product and balanced towards ``U_intersect``. None with a
            FairDataset.
        groups : array-like, mapping of class to groups, or None, default=None
            Every group the filter must balance; each must occur in ``s``.
        continue_from : None, default=None
            Accepted for a common signature with the step-wise strategies, but the fit is
            done in one go: there is nothing to resume, so anything but None is refused.
        callbacks : sequence of callables, default=()
            Called once after the fit with the :class:`~fairacq.TraceRecorder` holding
            ``trace_``'s row (a :class:`~fairacq.CheckpointCallback` saves it).

        Returns
        -------
        self

        Raises
        ------
        InvalidDataError
            On a group absent from the sample, mismatched lengths, NaN or a bad target.
        InvalidParameterError
            On a bad hyper-parameter, or a ``continue_from`` other than None.
        """
        self._validate_params()
        where = type(self).__name__
        refuse_resume(where, continue_from)
        sample = _encode(where, X, s, groups)
        tgt = _sample_target(getattr(self, "target", None), sample, where)
        codes, n_values = _cell_codes(sample)
        rule = self._make_rule(sample.X, codes)
        values = rule.predict(sample.X)
        if sample.classes is None:
            A, r_hat = _full_matrix(values, codes, n_values, n_values)
        else:
            A, r_hat = _full_matrix_classes(values, sample.codes, n_values, sample.sizes)
        info: dict[str, Any] = {"params": to_jsonable(self._used_params())}
        if self.weights == "qp":
            rho = self._qp_rho(A, r_hat, tgt, sample, info)
        else:
            rho = _naive_rho(r_hat, tgt, sample)
        fitted = FittedProxy(
            method=self._method,
            rule=rule,
            feature_names=sample.feature_names,
            groups=sample.groups,
            A=A,
            proxy_marginal=r_hat,
            rho=rho,
            target=tgt,
            info=info,
            classes=sample.classes,
        )
        adopt_fitted(self, fitted, sample, callbacks)
        return self

    def _qp_rho(
        self,
        A: NDArray[np.float64],
        r_hat: NDArray[np.float64],
        tgt: NDArray[np.float64],
        sample: _Sample,
        info: dict[str, Any],
    ) -> NDArray[np.float64]:
        """Return rho from the QP of Algorithm 2; note its ``q`` and hull distance in ``info``."""
        w = sampling_weights(
            A,
            r_hat,
            target=tgt,
            relaxed=bool(self.relaxed),
            solver=str(self.solver),
            on_unreachable="warn",
            group_sizes=None if sample.classes is None else sample.sizes,
        )
        info["q"] = w.q.tolist()
        info["hull_distance"] = w.hull_distance
        return w.rho

    def _fitted(self) -> FittedProxy:
        if not hasattr(self, "fitted_"):
            raise NotFittedError(
                f"{type(self).__name__} is not fitted yet. Call fit(X, s) on a labelled sample."
            )
        fitted: FittedProxy = self.fitted_
        return fitted

    def proxy_values(self, X: FairDataset | pd.DataFrame | ArrayLike) -> NDArray[np.int64]:
        """Return the proxy value (predicted group code) of each candidate.

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        InvalidDataError
            If a feature the proxy uses is missing.
        """
        return self._fitted().proxy_values(X)

    def admission_probability(
        self, X: FairDataset | pd.DataFrame | ArrayLike
    ) -> NDArray[np.float64]:
        """Return each candidate's admission probability ``rho[z_hat(x)]`` (Algorithm 2)."""
        return self._fitted().admission_probability(X)


def _cell_target(tgt: NDArray[np.float64], sizes: tuple[int, ...]) -> NDArray[np.float64]:
    """Product of the classes' target shares for every cell (mixed-radix order)."""
    edges = np.cumsum((0, *sizes))
    out = np.ones(1)
    for c in range(len(sizes)):
        out = np.multiply.outer(out, tgt[edges[c] : edges[c + 1]]).reshape(-1)
    return out


def features_read(rule: Any, names: tuple[str, ...]) -> tuple[str, ...]:
    """Return the features ``rule`` reads, in column order (all of them for a classifier).

    A linear rule reads the features with a non-zero coefficient, a tree those of its
    splits, a randomized tree those of any rule in its mixtures.
    """
    if isinstance(rule, LinearRule):
        used = np.flatnonzero(np.any(rule.coef != 0, axis=0))
    elif isinstance(rule, TreeRule):
        used = np.unique(rule.feature[rule.feature >= 0])
    elif isinstance(rule, RandomizedTreeRule):
        inner = {f for node in rule.rules for r in node for f in features_read(r, names)}
        return tuple(n for n in names if n in inner)
    else:  # a user's classifier: no plain form to read
        return names
    return tuple(names[int(j)] for j in used)


def fit_trace(
    proxy: Strategy,
    method: str,
    *,
    n_rows: int,
    callbacks: Sequence[Callback] = (),
    **row: Any,
) -> Trace:
    """Return the one-row trace of a proxy's fit: its parameters and what it achieved.

    ``cost`` is the number of labelled rows the fit used; ``callbacks`` are called once
    with the recorder after the row is recorded (:func:`fairacq._loop.one_shot_trace`).
    """
    params = proxy.get_params(deep=False)
    return one_shot_trace(
        method=method,
        config=to_jsonable(params),
        random_state=params.get("random_state"),
        rows=[{"cost": float(n_rows), "n_rows": n_rows, **row}],
        callbacks=callbacks,
    )


def _linear_rule(
    X: NDArray[np.float64],
    codes: NDArray[np.int64],
    C: float,
    max_iter: int,
    standardize: bool = True,
) -> LinearRule:
    from sklearn.linear_model import LogisticRegression

    # Fit on standardised features (lbfgs converges), then fold the scaling into the rule.
    # standardize=False fits the raw features as scikit-learn's defaults would (on Adult
    # lbfgs then stops unconverged and predicts the majority group for everyone).
    mean = X.mean(axis=0) if standardize else np.zeros(X.shape[1])
    scale = X.std(axis=0) if standardize else np.ones(X.shape[1])
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=C, max_iter=max_iter)
    model.fit((X - mean) / scale, codes)
    classes = np.asarray(model.classes_, dtype=np.int64)
    coef = np.asarray(model.coef_, dtype=np.float64) / scale
    return LinearRule(
        coef=coef,
        intercept=np.asarray(model.intercept_, dtype=np.float64) - coef @ mean,
        outputs=classes,
    )


def _tree_rule(
    X: NDArray[np.float64],
    codes: NDArray[np.int64],
    max_depth: int | None,
    min_samples_leaf: int,
    random_state: RandomState,
) -> TreeRule:
    from sklearn.tree import DecisionTreeClassifier

    seed = None if random_state is None else derive_int_seed(random_state)
    model = DecisionTreeClassifier(
        max_depth=max_depth, min_samples_leaf=min_samples_leaf, random_state=seed
    )
    model.fit(X, codes)
    tree = model.tree_
    classes = np.asarray(model.classes_, dtype=np.int64)
    value = np.asarray(tree.value)[:, 0, :]
    return TreeRule(
        left=np.asarray(tree.children_left, dtype=np.int64),
        right=np.asarray(tree.children_right, dtype=np.int64),
        feature=np.where(tree.children_left >= 0, tree.feature, -1).astype(np.int64),
        threshold=np.asarray(tree.threshold, dtype=np.float64),
        outputs=classes[np.argmax(value, axis=1)],
    )


#: Hyper-parameters of each predictor (the other's are ignored).
_PREDICTOR_PARAMS: dict[str, tuple[str, ...]] = {
    "regression": ("C", "max_iter", "standardize"),
    "tree": ("max_depth", "min_samples_leaf", "random_state"),
}
