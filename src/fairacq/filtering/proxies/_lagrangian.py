"""Algorithm 3 (Deng et al., §4.2, App. A.4): learn a randomized split by a Lagrangian game.

At a leaf ``V`` with sample weights ``w`` (Definition 10), the split ``h`` should minimise
the progress objective of Lemma 4 (Program 3),

    sum_j w_j h(x_j) (-Q + (U' - U)[z_j]),

subject to both children staying alpha-disclosive. The ratio constraints of App. A.4 are
linearised (multiplying by the child's weight): for each group ``k`` and child ``c``,
``+-sum_j w_j c(x_j) (1[z_j = k] - r_k) - alpha sum_j w_j c(x_j) <= 0`` (4K constraints).
Everything is divided by the leaf's total weight. The Auditor runs online projected
gradient ascent on ``lambda >= 0`` (``||lambda|| <= lambda_max``, step ``lr / sqrt(t)``); the
Learner best-responds with a cost-sensitive oracle: the paired regression classifier of
Definition 14 (one least squares of ``c0 - c1``, which equals comparing the two
regressions) or a depth-limited decision tree. The output is the uniform mixture of the
Learner's responses, with the empirical duality gap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from fairacq._result import Result
from fairacq.filtering._membership import membership_matrix
from fairacq.filtering.proxies._rules import LinearRule, TreeRule

__all__ = ["SplitGameResult", "paired_regression_oracle", "play_split_game", "tree_oracle"]


@dataclass(frozen=True, eq=False)
class SplitGameResult(Result):
    """The randomized split learned at one leaf: a uniform mixture of rules.

    :meth:`to_frame` gives one row per rule with its probability in the mixture;
    :meth:`save` / :meth:`load` keep every field (the rules as plain arrays).

    Attributes
    ----------
    rules : tuple of LinearRule or TreeRule
        The Learner's responses; the split is their uniform mixture (Definition 9).
    p_one : numpy.ndarray of shape (n,)
        Expected answer ``E[h(x)]`` of the mixture on every training row.
    iterations : int
        Rounds played.
    duality_gap : float
        ``max_lambda L(lambda, h_bar) - L(lambda_bar, h_oracle(lambda_bar))`` at the end.
    max_violation : float
        Largest linearised constraint value of the mixture (<= 0 is feasible).
    """

    rules: tuple[LinearRule | TreeRule, ...]
    p_one: NDArray[np.float64]
    iterations: int
    duality_gap: float
    max_violation: float

    def to_frame(self) -> pd.DataFrame:
        """Return one row per rule: its kind (linear or tree) and its probability."""
        n = len(self.rules)
        kinds = ["linear" if isinstance(r, LinearRule) else "tree" for r in self.rules]
        return pd.DataFrame(
            {"rule": np.arange(n), "kind": kinds, "probability": np.full(n, 1.0 / max(n, 1))}
        )

    def _caption(self) -> str:
        return (
            f"a mixture of {len(self.rules)} rule{'s' if len(self.rules) != 1 else ''} after "
            f"{self.iterations} rounds; duality "
            f"gap {self.duality_gap:.3g}, largest constraint value {self.max_violation:.3g} "
            "(at most 0: both sides keep the disclosure bound)"
        )


def paired_regression_oracle(
    X: NDArray[np.float64], cost0: NDArray[np.float64], cost1: NDArray[np.float64]
) -> LinearRule:
    """Return the paired regression classifier of Deng et al., Definition 14.

    Two least-squares regressions predict the cost of labelling 0 and 1; the rule answers
    the cheaper label. As least squares is linear in its target, this is one regression of
    ``cost0 - cost1`` answering 1 where it is positive.

    Parameters
    ----------
    X : numpy.ndarray of shape (n, d)
        Features of the rows (rows of zero weight should be left out by the caller).
    cost0, cost1 : numpy.ndarray of shape (n,)
        Weighted cost of labelling each row 0 / 1.

    Returns
    -------
    LinearRule
        A binary rule (outputs 0 / 1).
    """
    design = np.hstack([X, np.ones((X.shape[0], 1))])
    coef = np.linalg.lstsq(design, cost0 - cost1, rcond=None)[0]
    return _linear_rule(coef)


def tree_oracle(
    X: NDArray[np.float64],
    cost0: NDArray[np.float64],
    cost1: NDArray[np.float64],
    *,
    max_depth: int = 1,
) -> TreeRule:
    """Return a cost-sensitive decision tree (a stump by default): the second oracle.

    The label is the cheaper one and the sample weight the cost difference, the standard
    reduction of cost-sensitive to weighted classification.

    Parameters
    ----------
    X : numpy.ndarray of shape (n, d)
    cost0, cost1 : numpy.ndarray of shape (n,)
    max_depth : int, default=1
        Depth of the tree (1: a decision stump).

    Returns
    -------
    TreeRule
        A binary rule (outputs 0 / 1).
    """
    from sklearn.tree import DecisionTreeClassifier

    label = (cost1 < cost0).astype(np.int64)
    weight = np.abs(cost0 - cost1)
    if label.min() == label.max() or weight.sum() <= 0:
        only = int(label[0]) if label.size else 0
        return TreeRule(
            left=np.array([-1]),
            right=np.array([-1]),
            feature=np.array([-1]),
            threshold=np.array([0.0]),
            outputs=np.array([only]),
        )
    model = DecisionTreeClassifier(max_depth=max_depth, random_state=0)
    model.fit(X, label, sample_weight=weight)
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


def play_split_game(
    X: NDArray[np.float64],
    codes: NDArray[np.int64],
    weights: NDArray[np.float64],
    objective: NDArray[np.float64],
    prior: NDArray[np.float64],
    alpha: float,
    *,
    oracle: str = "paired-regression",
    max_iter: int = 50,
    lambda_max: float = 100.0,
    learning_rate: float = 5.0,
    group_sizes: Sequence[int] | None = None,
) -> SplitGameResult:
    """Run Algorithm 3 of Deng et al. at one leaf and return the randomized split.

    Parameters
    ----------
    X : numpy.ndarray of shape (n, d)
        Features of every training row.
    codes : numpy.ndarray of shape (n,) or (n, G)
        Group code of each row, ``0..K-1``; or, for intersecting group classes (App.
        A.2), the code within each class (then the constraints bound every membership
        column ``1[z_j[k] = 1] - r_k``).
    weights : numpy.ndarray of shape (n,)
        Sample weights at the leaf (Definition 10); rows of weight 0 are ignored.
    objective : numpy.ndarray of shape (n,)
        Per-row cost of answering 1 before weighting, ``-Q + (U' - U)[z_j]`` (Lemma 4).
    prior : numpy.ndarray of shape (K,)
        Base rates ``r_k`` of the whole sample (concatenated over classes for App. A.2).
    alpha : float
        Disclosivity budget of both children (Definition 5).
    oracle : {"paired-regression", "stump", "tree"}, default="paired-regression"
        Cost-sensitive classification oracle (Definition 14, a decision stump, or a
        cost-sensitive decision tree of depth 3).
    max_iter : int, default=50
        Rounds of play (the paper's T is far larger; we cap it and report the gap).
    lambda_max : float, default=100.0
        Radius of the dual ball.
    learning_rate : float, default=5.0
        The Auditor's step is ``learning_rate / sqrt(t)``.
    group_sizes : sequence of int or None, default=None
        Number of groups of each class when ``codes`` is 2-D; None: ``(K,)``.

    Returns
    -------
    SplitGameResult
    """
    rows = np.flatnonzero(weights > 0)
    n_groups = prior.shape[0]
    sizes = (n_groups,) if group_sizes is None else tuple(int(k) for k in group_sizes)
    a = membership_matrix(codes[rows], sizes) - prior[None, :]
    wv = weights[rows] / weights[rows].sum()
    game = _SplitGame(rows, X[rows], wv, a - alpha, -a - alpha, wv * objective[rows], oracle)
    rules, h_bar, lam_bar = game.play(max_iter, lambda_max, learning_rate)
    violation = game.constraints(h_bar)
    upper = float(game.obj @ h_bar) + lambda_max * float(
        np.linalg.norm(np.maximum(violation, 0.0))
    )
    best = game.respond(lam_bar).predict(game.Xv).astype(np.float64)
    lower = game.lagrangian(lam_bar, best)
    p_one = np.zeros(X.shape[0])
    p_one[game.rows] = h_bar
    return SplitGameResult(
        rules=tuple(rules),
        p_one=p_one,
        iterations=len(rules),
        duality_gap=max(upper - lower, 0.0),
        max_violation=float(violation.max()),
    )


def _linear_rule(coef: NDArray[np.floating[Any]]) -> LinearRule:
    """Return the binary rule ``[x, 1] @ coef > 0``."""
    return LinearRule(
        coef=np.asarray(coef[:-1], dtype=np.float64).reshape(1, -1),
        intercept=np.asarray(coef[-1:], dtype=np.float64),
        outputs=np.array([0, 1], dtype=np.int64),
    )


@dataclass
class _SplitGame:
    """The Lagrangian of Algorithm 3 at one leaf, on the rows of positive weight.

    With ``a[j, k] = 1[z_j = k] - r_k``, ``plus = a - alpha`` and ``minus = -a - alpha``
    (shape (m, K) each), the 4K linearised constraints are, for child c (h or 1 - h),
    ``sum_j wv_j c_j (s * a[j, k] - alpha) <= 0`` with s = +1 or -1.
    """

    rows: NDArray[np.intp]
    Xv: NDArray[np.float64]
    wv: NDArray[np.float64]
    plus: NDArray[np.float64]
    minus: NDArray[np.float64]
    obj: NDArray[np.float64]
    oracle: str

    def __post_init__(self) -> None:
        # The paired regression's design is the same every round: factor it once.
        self.pinv = (
            np.linalg.pinv(np.hstack([self.Xv, np.ones((self.Xv.shape[0], 1))]))
            if self.oracle == "paired-regression"
            else None
        )

    def costs(self, lam: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Return each row's cost of answering 0 and 1 under multipliers ``lam``."""
        l1, l2, l3, l4 = np.split(lam, 4)
        cost1 = self.obj + self.wv * (self.plus @ l1 + self.minus @ l2)
        cost0 = self.wv * (self.plus @ l3 + self.minus @ l4)
        return cost0, cost1

    def constraints(self, h: NDArray[np.float64]) -> NDArray[np.float64]:
        """Return the 4K linearised constraint values of the split ``h``."""
        one, zero = self.wv * h, self.wv * (1.0 - h)
        plus, minus = self.plus, self.minus
        return np.concatenate([one @ plus, one @ minus, zero @ plus, zero @ minus])

    def lagrangian(self, lam: NDArray[np.float64], h: NDArray[np.float64]) -> float:
        """Return ``L(lam, h)``."""
        return float(self.obj @ h + lam @ self.constraints(h))

    def respond(self, lam: NDArray[np.float64]) -> LinearRule | TreeRule:
        """Return the Learner's best response to ``lam`` (the cost-sensitive oracle)."""
        cost0, cost1 = self.costs(lam)
        if self.pinv is None:
            depth = 1 if self.oracle == "stump" else 3
            return tree_oracle(self.Xv, cost0, cost1, max_depth=depth)
        return _linear_rule(self.pinv @ (cost0 - cost1))

    def play(
        self, max_iter: int, lambda_max: float, learning_rate: float
    ) -> tuple[list[LinearRule | TreeRule], NDArray[np.float64], NDArray[np.float64]]:
        """Play the rounds; return the Learner's rules and both players' averages."""
        lam = np.zeros(4 * self.plus.shape[1])
        lam_sum = np.zeros_like(lam)
        rules: list[LinearRule | TreeRule] = []
        h_sum = np.zeros(self.rows.shape[0])
        for t in range(1, max_iter + 1):
            rule = self.respond(lam)
            h = rule.predict(self.Xv).astype(np.float64)
            rules.append(rule)
            h_sum += h
            lam = np.maximum(lam + learning_rate / np.sqrt(t) * self.constraints(h), 0.0)
            norm = float(np.linalg.norm(lam))
            if norm > lambda_max:
                lam *= lambda_max / norm
            lam_sum += lam
        return rules, h_sum / len(rules), lam_sum / len(rules)
