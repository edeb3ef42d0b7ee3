"""Algorithm 4 (Deng et al., §4.3): grow an (alpha, beta)-proxy tree leaf by leaf.

Start from one leaf (``A`` = the prior, alpha = 0). While the target ``U`` is farther than
``tol`` from the hull of ``A`` (a QP projection, :func:`sampling_weights`), try to split
each leaf with the randomized splitting function of Algorithm 3; keep the split that
shrinks the distance most, provided it shrinks it by a factor ``1 - gamma`` (the empirical
rule of §4.1's remark) and both children are alpha-disclosive on the sample (checked
exactly, so every returned proxy is alpha-disclosive in-sample). Stop when ``U`` is close
enough, when no split qualifies, or when leaves reach ``max_depth`` (20 in App. A.1.2).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from fairacq._artefact import to_jsonable
from fairacq._base import Strategy
from fairacq._callbacks import Callback
from fairacq._loop import run_loop
from fairacq._random import RandomState
from fairacq._trace import Trace
from fairacq._validation import HasMethods, Interval, Options
from fairacq.data import FairDataset
from fairacq.exceptions import NotFittedError
from fairacq.filtering._weights import UnreachableTargetWarning
from fairacq.filtering.proxies._proxies import (
    FittedProxy,
    _encode,
    _feature_matrix,
    _sample_target,
    set_fitted_attributes,
)
from fairacq.filtering.proxies._rules import RandomizedTreeRule
from fairacq.filtering.proxies._tree_builder import GrowthSettings, TreeBuilder
from fairacq.filtering.proxies._tree_loop import GrowthLoop

__all__ = ["AlphaBetaProxy"]


class AlphaBetaProxy(Strategy):
    """The (alpha, beta)-proxy of Deng et al. (Algorithms 3-4): a non-disclosive split tree.

    Each split is a randomized splitting function learned by a Lagrangian game (Algorithm
    3) between no-regret projected gradient on the dual variables and a cost-sensitive
    oracle (the paired regression classifier of Definition 14, or a decision stump). The
    tree grows while it moves the hull of its conditional distribution matrix towards the
    target (Algorithm 4). Defaults follow App. A.1.2 (gamma 0.1, height 20, stop at 0.1).
    With intersecting group classes (App. A.2, ``s`` with one column per class) the rows
    of ``A`` concatenate the classes' distributions, the target is ``U_intersect``, the
    game's 4K constraints bound every membership column and ``alpha_`` is the largest
    per-column disclosivity.

    Parameters
    ----------
    alpha : float, default=0.2
        Disclosivity budget (Definition 5), in [0, 1].
    gamma : float, default=0.1
        Minimum relative progress of a split, in (0, 1).
    tol : float, default=0.1
        Stop once the hull is this close to the target.
    max_depth : int, default=20
        Maximum height of the tree.
    oracle : {"paired-regression", "stump", "tree"}, default="paired-regression"
        Cost-sensitive classification oracle of Algorithm 3 (Definition 14, a decision
        stump, or a depth-3 cost-sensitive tree).
    max_iter : int, default=50
        Rounds of the Lagrangian game per split (capped; the gap is recorded).
    margin : float, default=0.0
        Weight of Lemma 3's sufficient progress term ``f(gamma) ||U - U'||`` in the split
        objective (Lemma 4's Q): 1 demands Lemma 3's condition, 0 only steers the split
        towards ``U``; acceptance always needs the ``1 - gamma`` progress.
    lambda_max : float, default=100.0
        Radius of the dual ball.
    relaxed : bool, default=False
        Use the relaxed QP (no ``sum q = 1``) for the hull distance and ``rho`` (§5).
    target : array-like of shape (K,) or None, default=None
        Target group distribution; None is uniform. For intersecting classes, the
        concatenated class shares (each class summing to 1); None is ``U_intersect``.

    Attributes
    ----------
    fitted_ : FittedProxy
    A_, proxy_marginal_, rho_ : numpy.ndarray
    alpha_, beta_ : float
        In-sample disclosivity (always <= ``alpha``) and expected imbalance.
    hull_distance_ : float
        Final distance from the target to the hull of ``A_``.
    stop_reason_ : str
        ``"reached"``, ``"no-split"``, ``"max-depth"`` or ``"callback"`` (a callback
        stopped the growth).
    trace_ : Trace
        One row for the root leaf (step 0), then one per accepted split: labelled rows
        used (``cost`` and ``n_rows``, the same on every row), the proxy the tree gives
        at that point (``alpha``, ``beta``, ``n_values`` leaves, ``acceptance_rate``,
        ``features`` its splits read, ``hull_distance``; the last row holds the
        attributes' values) and the split's Lagrangian game (``leaf`` split, game
        ``iterations``, ``shrink`` towards a fair coin, ``duality_gap``,
        ``max_violation``; -1, 0 and NaN on the root's row). Its metadata holds the
        parameters, the stop reason and seed 0 (nothing in the growth is random).
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "alpha": [Interval(float, 0, 1, closed="both")],
        "gamma": [Interval(float, 0, 1, closed="neither")],
        "tol": [Interval(float, 0, None, closed="left")],
        "max_depth": [Interval(int, 1, None, closed="left")],
        "oracle": [Options(["paired-regression", "stump", "tree"])],
        "max_iter": [Interval(int, 1, None, closed="left")],
        "margin": [Interval(float, 0, 1, closed="both")],
        "lambda_max": [Interval(float, 0, None, closed="neither")],
        "relaxed": ["boolean"],
        "target": [HasMethods(["__len__"]), None],
    }

    def __init__(
        self,
        *,
        alpha: float = 0.2,
        gamma: float = 0.1,
        tol: float = 0.1,
        max_depth: int = 20,
        oracle: str = "paired-regression",
        max_iter: int = 50,
        margin: float = 0.0,
        lambda_max: float = 100.0,
        relaxed: bool = False,
        target: ArrayLike | None = None,
    ) -> None:
        self.alpha = alpha
        self.gamma = gamma
        self.tol = tol
        self.max_depth = max_depth
        self.oracle = oracle
        self.max_iter = max_iter
        self.margin = margin
        self.lambda_max = lambda_max
        self.relaxed = relaxed
        self.target = target

    def fit(
        self,
        X: FairDataset | pd.DataFrame | ArrayLike,
        s: ArrayLike | None = None,
        *,
        groups: ArrayLike | Mapping[str, ArrayLike] | None = None,
        continue_from: Trace | str | os.PathLike[str] | None = None,
        callbacks: Sequence[Callback] = (),
    ) -> AlphaBetaProxy:
        """Grow the proxy tree on a labelled sample (Algorithm 4).

        Parameters
        ----------
        X : pandas.DataFrame, array-like of shape (n, d) or FairDataset
            Non-sensitive features of the labelled sample, or a FairDataset whose
            sensitive attributes give the groups (several attributes: intersecting classes).
        s : array-like of shape (n,), pandas.DataFrame of shape (n, G) or None
            True group of each row, or one column per group class (intersecting groups,
            App. A.2: the tree balances every class towards ``U_intersect`` and keeps every
            membership column within alpha of its prior). None with a FairDataset.
        groups : array-like, mapping of class to groups, or None, default=None
            Every group to balance; each must occur in ``s``.
        continue_from : Trace, path-like or None, default=None
            The checkpoint folder of a growth on the same sample, stopped on the way
            (:class:`~fairacq.CheckpointCallback` writes the trace and the tree so far);
            the growth goes on to the tree the uninterrupted fit grows.
        callbacks : sequence of callables, default=()
            Called after the root and after each split with the
            :class:`~fairacq.TraceRecorder`; one returning ``False`` stops the growth
            (``stop_reason_ == "callback"``): the proxy is the tree grown so far.

        Returns
        -------
        self

        Raises
        ------
        InvalidDataError
            On a group absent from the sample, mismatched lengths, NaN or a bad target, or
            a ``continue_from`` written on another sample or by another proxy.
        InvalidParameterError
            On alpha outside [0, 1] or another bad hyper-parameter.

        Warns
        -----
        UnreachableTargetWarning
            When the tree stops farther than ``tol`` from the target; the message gives
            the best beta achieved.
        """
        self._validate_params()
        where = type(self).__name__
        sample = _encode(where, X, s, groups)
        tgt = _sample_target(self.target, sample, where)
        builder = TreeBuilder(self._settings(), sample.X, sample.codes, sample.sizes, tgt)
        method = "alpha-beta-relaxed" if self.relaxed else "alpha-beta"
        params = to_jsonable(self.get_params(deep=False))
        result = run_loop(
            GrowthLoop(builder, sample),
            method=method,
            config=params,
            random_state=0,  # the growth draws nothing at random: a fixed, recorded root
            continue_from=continue_from,
            callbacks=callbacks,
        )
        stop, hull = result.stop_reason, builder.hull
        fitted = FittedProxy(
            method=method,
            rule=builder.rule(),
            feature_names=sample.feature_names,
            groups=sample.groups,
            A=hull.A,
            proxy_marginal=hull.r_hat,
            rho=hull.rho,  # the hull's QP is the relaxed or exact QP of this proxy
            target=tgt,
            info={"params": params, "stop_reason": stop},
            classes=sample.classes,
        )
        self.hull_distance_, self.stop_reason_, dist = hull.distance, stop, hull.distance
        set_fitted_attributes(self, fitted, sample)
        self.trace_ = result.trace
        if dist >= self.tol:
            warnings.warn(
                f"{where}: the tree stopped ({stop}) at hull distance {dist:.4g} >= tol "
                f"{self.tol}; the best imbalance achieved is beta = {self.beta_:.4g}. Raise "
                "alpha, max_iter or max_depth, or accept this beta.",
                UnreachableTargetWarning,
                stacklevel=2,
            )
        return self

    def _settings(self) -> GrowthSettings:
        """Return the hyper-parameters that grow the tree, as given."""
        return GrowthSettings(**{f.name: getattr(self, f.name) for f in fields(GrowthSettings)})

    def _fitted(self) -> FittedProxy:
        if not hasattr(self, "fitted_"):
            raise NotFittedError(
                f"{type(self).__name__} is not fitted yet. Call fit(X, s) on a labelled sample."
            )
        fitted: FittedProxy = self.fitted_
        return fitted

    def proxy_values(
        self, X: FairDataset | pd.DataFrame | ArrayLike, *, random_state: RandomState = None
    ) -> NDArray[np.int64]:
        """Draw each candidate's leaf (the proxy is randomized, Definition 9).

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        InvalidDataError
            If a feature the proxy uses is missing.
        """
        return self._fitted().proxy_values(X, random_state=random_state)

    def leaf_weights(self, X: FairDataset | pd.DataFrame | ArrayLike) -> NDArray[np.float64]:
        """Return each candidate's expected weight at each leaf (Definition 10)."""
        fitted = self._fitted()
        assert isinstance(fitted.rule, RandomizedTreeRule)
        return fitted.rule.leaf_weights(_feature_matrix(X, fitted.feature_names, fitted.method))

    def admission_probability(
        self, X: FairDataset | pd.DataFrame | ArrayLike
    ) -> NDArray[np.float64]:
        """Return each candidate's admission probability ``sum_V w_V(x) rho_V``."""
        return self._fitted().admission_probability(X)
