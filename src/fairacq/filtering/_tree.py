"""Algorithm 4 (paper 003, §4.3): grow an (alpha, beta)-proxy tree leaf by leaf.

Start from one leaf (``A`` = the prior, alpha = 0). While the target ``U`` is farther than
``tol`` from the hull of ``A`` (a QP projection, :func:`sampling_weights`), try to split
each leaf with the randomized splitting function of Algorithm 3; keep the split that
shrinks the distance most, provided it shrinks it by a factor ``1 - gamma`` (the empirical
rule of §4.1's remark) and both children are alpha-disclosive on the sample (checked
exactly, so every returned proxy is alpha-disclosive in-sample). Stop when ``U`` is close
enough, when no split qualifies, or when leaves reach ``max_depth`` (20 in App. A.1.2).
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from fairacq._base import Strategy
from fairacq._validation import HasMethods, Interval, Options
from fairacq.exceptions import NotFittedError
from fairacq.filtering._lagrangian import play_split_game
from fairacq.filtering._membership import group_mass, membership_sum
from fairacq.filtering._proxies import (
    FittedProxy,
    _encode,
    _feature_matrix,
    _json_params,
    _matrix_alpha,
    _matrix_beta,
    _sample_target,
    fit_trace,
)
from fairacq.filtering._rules import LinearRule, RandomizedTreeRule, TreeRule
from fairacq.filtering._weights import UnreachableTargetWarning, sampling_weights

__all__ = ["AlphaBetaProxy"]


def _f_gamma(gamma: float, dist_v: float, n_classes: int = 1) -> float:
    """Return f(gamma) of Lemma 3 for ``dist_v = ||R(V) - U'||``.

    The constant 2 of Lemma 3 is the squared diameter of the simplex; with ``G``
    intersecting classes (App. A.2) the rows live in a product of simplices of squared
    diameter ``2 G``, which replaces it.
    """
    diam2 = 2.0 * n_classes
    inner = max((gamma**2 - 2 * gamma) * dist_v**2 + diam2, 0.0)
    body = max(diam2 - dist_v**2 + 2.0 * dist_v * (1 - gamma) * np.sqrt(inner), 0.0)
    return float(np.sqrt(2 * gamma - gamma**2) * np.sqrt(body))


def _constant_rules(n_features: int) -> tuple[LinearRule, LinearRule]:
    """Return the rules that always answer 0 and always answer 1."""
    return tuple(  # type: ignore[return-value]
        LinearRule(
            coef=np.zeros((1, n_features)),
            intercept=np.array([sign]),
            outputs=np.array([0, 1], dtype=np.int64),
        )
        for sign in (-1.0, 1.0)
    )


def _largest_disclosive_shrink(
    w: NDArray[np.float64],
    p_one: NDArray[np.float64],
    codes: NDArray[np.int64],
    prior: NDArray[np.float64],
    alpha: float,
    sizes: tuple[int, ...],
) -> float:
    """Return the largest ``t`` in [0, 1] keeping both children alpha-disclosive.

    With ``p = t p_one + (1 - t) / 2`` each child's row is a convex combination of the
    parent's row (alpha-disclosive by induction) and the unshrunk child's row, so the
    feasible ``t`` form an interval ``[0, t*]``; bisection finds ``t*``.
    """

    def ok(t: float) -> bool:
        p = t * p_one + (1.0 - t) / 2.0
        for child in (w * p, w * (1.0 - p)):
            total = child.sum()
            if total <= 0:
                continue
            row = group_mass(child, codes, sizes) / total
            if np.abs(row - prior).max() > alpha + 1e-12:
                return False
        return True

    if ok(1.0):
        return 1.0
    if not ok(0.0):
        return 0.0
    lo, hi = 0.0, 1.0
    for _ in range(30):
        mid = (lo + hi) / 2.0
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    return lo


class AlphaBetaProxy(Strategy):
    """The (alpha, beta)-proxy of paper 003 (Algorithms 3-4): a non-disclosive split tree.

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
        ``"reached"``, ``"no-split"`` or ``"max-depth"``.
    history_ : list of dict
        One entry per accepted split: leaf, hull distance, game iterations, duality gap.
    trace_ : Trace
        One row: labelled rows used (``cost``), ``alpha``, ``beta``, ``n_values``,
        ``hull_distance``, ``n_splits`` and ``stop_reason``; the parameters in its metadata.
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
        target: Any = None,
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

    def _hull(
        self,
        leaves: list[NDArray[np.float64]],
        codes: NDArray[np.int64],
        tgt: NDArray[np.float64],
        sizes: tuple[int, ...],
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], float, NDArray[np.float64]]:
        mass = np.array([w.sum() for w in leaves])
        A = np.vstack([group_mass(w, codes, sizes) / w.sum() for w in leaves])
        r_hat = mass / mass.sum()
        w = sampling_weights(
            A,
            r_hat,
            target=tgt,
            relaxed=bool(self.relaxed),
            solver="active-set",
            on_unreachable="ignore",
            group_sizes=None if len(sizes) == 1 else sizes,
        )
        return A, r_hat, w.hull_distance, w.q @ A

    def fit(self, X: Any, s: Any = None, *, groups: Any = None) -> AlphaBetaProxy:
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

        Returns
        -------
        self

        Raises
        ------
        InvalidDataError
            On a group absent from the sample, mismatched lengths, NaN or a bad target.
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
        arr, names, codes, group_names = (
            sample.X,
            sample.feature_names,
            sample.codes,
            sample.groups,
        )
        sizes, classes = sample.sizes, sample.classes
        n = arr.shape[0]
        tgt = _sample_target(self.target, sample, where)
        prior = group_mass(np.ones(n), codes, sizes) / n
        # Tree under construction: node rules, children, and the leaf -> node map.
        node_rules: list[tuple[LinearRule | TreeRule, ...]] = [()]
        node_probs: list[NDArray[np.float64]] = [np.zeros(0)]
        one, zero, depth = [-1], [-1], [0]
        leaf_nodes = [0]
        leaves = [np.ones(n)]
        history: list[dict[str, Any]] = []
        A, r_hat, dist, u_proj = self._hull(leaves, codes, tgt, sizes)
        stop = "reached"
        while dist >= self.tol:
            best: tuple[float, int, Any] | None = None
            splittable = [i for i, node in enumerate(leaf_nodes) if depth[node] < self.max_depth]
            if not splittable:
                stop = "max-depth"
                break
            for i in splittable:
                w = leaves[i]
                row = A[i]
                q_term = dist * _f_gamma(
                    float(self.gamma), float(np.linalg.norm(row - u_proj)), len(sizes)
                )
                shift = u_proj - tgt
                # Q of Lemma 4, with the sign of the f(gamma) term that makes (2) equivalent
                # to (1): <R(V1) - R(V), U - U'> >= f d  <=>  sum w h (shift[z] - Q) <= 0,
                # scaled by `margin` (0: steer by direction only; see the paper notes).
                q_val = -float(self.margin) * q_term + float(shift @ row)
                game = play_split_game(
                    arr,
                    codes,
                    w,
                    -q_val + membership_sum(shift, codes, sizes),
                    prior,
                    float(self.alpha),
                    oracle=str(self.oracle),
                    max_iter=int(self.max_iter),
                    lambda_max=float(self.lambda_max),
                    group_sizes=sizes,
                )
                shrink = _largest_disclosive_shrink(
                    w, game.p_one, codes, prior, float(self.alpha), sizes
                )
                if shrink <= 0.0:
                    continue  # no alpha-disclosive version of this split
                p_one = shrink * game.p_one + (1.0 - shrink) / 2.0
                w1, w0 = w * p_one, w * (1.0 - p_one)
                if w1.sum() <= 1e-9 * n or w0.sum() <= 1e-9 * n:
                    continue
                trial = [*leaves[:i], w0, w1, *leaves[i + 1 :]]
                _, _, dist_t, _ = self._hull(trial, codes, tgt, sizes)
                if dist_t > (1 - self.gamma) * dist:
                    continue
                if best is None or dist_t < best[0]:
                    best = (dist_t, i, (game, shrink, p_one))
            if best is None:
                stop = "no-split"
                break
            _, i, (game, shrink, p_one) = best
            node = leaf_nodes[i]
            # The split is the game's uniform mixture shrunk towards a fair coin (the two
            # constant rules), so that both children stay alpha-disclosive.
            node_rules[node] = (*game.rules, *_constant_rules(arr.shape[1]))
            n_rules = len(game.rules)
            node_probs[node] = np.concatenate(
                [np.full(n_rules, shrink / n_rules), np.full(2, (1.0 - shrink) / 2.0)]
            )
            for _child in range(2):
                node_rules.append(())
                node_probs.append(np.zeros(0))
                one.append(-1)
                zero.append(-1)
                depth.append(depth[node] + 1)
            zero[node], one[node] = len(node_rules) - 2, len(node_rules) - 1
            w = leaves[i]
            leaves[i : i + 1] = [w * (1.0 - p_one), w * p_one]
            leaf_nodes[i : i + 1] = [zero[node], one[node]]
            A, r_hat, dist, u_proj = self._hull(leaves, codes, tgt, sizes)
            history.append(
                {
                    "split": len(history),
                    "leaf": int(i),
                    "hull_distance": dist,
                    "iterations": game.iterations,
                    "shrink": shrink,
                    "duality_gap": game.duality_gap,
                    "max_violation": game.max_violation,
                }
            )
        leaf_index = np.full(len(node_rules), -1, dtype=np.int64)
        leaf_index[np.asarray(leaf_nodes)] = np.arange(len(leaf_nodes))
        rule = RandomizedTreeRule(
            rules=tuple(node_rules),
            probs=tuple(node_probs),
            one=np.asarray(one, dtype=np.int64),
            zero=np.asarray(zero, dtype=np.int64),
            leaf_index=leaf_index,
        )
        weights = sampling_weights(
            A,
            r_hat,
            target=tgt,
            relaxed=bool(self.relaxed),
            solver="active-set",
            on_unreachable="ignore",
            group_sizes=None if classes is None else sizes,
        )
        self.fitted_ = FittedProxy(
            method="alpha-beta-relaxed" if self.relaxed else "alpha-beta",
            rule=rule,
            feature_names=names,
            groups=group_names,
            A=A,
            proxy_marginal=r_hat,
            rho=weights.rho,
            target=tgt,
            info={"params": _json_params(self.get_params(deep=False)), "stop_reason": stop},
            classes=classes,
        )
        self.A_, self.proxy_marginal_, self.rho_ = A, r_hat, weights.rho
        self.groups_, self.feature_names_in_ = group_names, names
        self.alpha_ = _matrix_alpha(A, r_hat, classes)
        self.beta_ = _matrix_beta(A, r_hat, weights.rho, tgt, classes)
        self.hull_distance_ = dist
        self.stop_reason_ = stop
        self.history_ = history
        self.trace_ = fit_trace(
            self,
            self.fitted_.method,
            n_rows=n,
            alpha=self.alpha_,
            beta=self.beta_,
            n_values=len(r_hat),
            hull_distance=float(dist),
            n_splits=len(history),
            stop_reason=stop,
        )
        if dist >= self.tol:
            warnings.warn(
                f"{where}: the tree stopped ({stop}) at hull distance {dist:.4g} >= tol "
                f"{self.tol}; the best imbalance achieved is beta = {self.beta_:.4g}. Raise "
                "alpha, max_iter or max_depth, or accept this beta.",
                UnreachableTargetWarning,
                stacklevel=2,
            )
        return self

    def _fitted(self) -> FittedProxy:
        if not hasattr(self, "fitted_"):
            raise NotFittedError(
                f"{type(self).__name__} is not fitted yet. Call fit(X, s) on a labelled sample."
            )
        fitted: FittedProxy = self.fitted_
        return fitted

    def proxy_values(self, X: Any, *, random_state: Any = None) -> NDArray[np.int64]:
        """Draw each candidate's leaf (the proxy is randomized, Definition 9).

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        InvalidDataError
            If a feature the proxy uses is missing.
        """
        return self._fitted().proxy_values(X, random_state=random_state)

    def leaf_weights(self, X: Any) -> NDArray[np.float64]:
        """Return each candidate's expected weight at each leaf (Definition 10)."""
        fitted = self._fitted()
        assert isinstance(fitted.rule, RandomizedTreeRule)
        return fitted.rule.leaf_weights(_feature_matrix(X, fitted.feature_names, fitted.method))

    def admission_probability(self, X: Any) -> NDArray[np.float64]:
        """Return each candidate's admission probability ``sum_V w_V(x) rho_V``."""
        return self._fitted().admission_probability(X)
