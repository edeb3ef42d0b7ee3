"""Portable prediction rules behind a proxy: a linear argmax rule and a decision tree.

A fitted scikit-learn model is turned into one of these plain-array rules, so that the
proxy predicts with the same code after fitting and after loading from JSON (Deng et al.'s
proxies are multinomial logistic regressions and decision trees, §5).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fairacq._result import saveable
from fairacq.exceptions import CorruptFileError

__all__ = ["LinearRule", "RandomizedTreeRule", "TreeRule", "check_rule", "rule_from_dict"]


@saveable
@dataclass(frozen=True)
class LinearRule:
    """Predict ``outputs[argmax(X @ coef.T + intercept)]`` (binary: sign of one score).

    Attributes
    ----------
    coef : numpy.ndarray of shape (c, d)
        One row per class (``c = 1`` for a binary model: class 1 when the score is > 0).
    intercept : numpy.ndarray of shape (c,)
    outputs : numpy.ndarray of shape (max(c, 2),)
        Proxy value returned for each class.
    """

    coef: NDArray[np.float64]
    intercept: NDArray[np.float64]
    outputs: NDArray[np.int64]

    def predict(self, X: NDArray[np.float64]) -> NDArray[np.int64]:
        """Return the proxy value of each row of ``X`` (shape (n, d))."""
        scores = X @ self.coef.T + self.intercept
        if self.coef.shape[0] == 1:
            idx = (scores[:, 0] > 0).astype(np.int64)
        else:
            idx = np.argmax(scores, axis=1)
        return self.outputs[idx]

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready description."""
        return {
            "kind": "linear",
            "coef": self.coef.tolist(),
            "intercept": self.intercept.tolist(),
            "outputs": self.outputs.tolist(),
        }


@saveable
@dataclass(frozen=True)
class TreeRule:
    """A binary decision tree in array form (scikit-learn layout, leaves have feature -1).

    Attributes
    ----------
    left, right : numpy.ndarray of shape (m,)
        Child node ids (-1 at leaves).
    feature : numpy.ndarray of shape (m,)
        Feature index tested at each node (``x[feature] <= threshold`` goes left).
    threshold : numpy.ndarray of shape (m,)
    outputs : numpy.ndarray of shape (m,)
        Proxy value at each leaf (ignored at internal nodes).
    """

    left: NDArray[np.int64]
    right: NDArray[np.int64]
    feature: NDArray[np.int64]
    threshold: NDArray[np.float64]
    outputs: NDArray[np.int64]

    def leaves(self, X: NDArray[np.float64]) -> NDArray[np.int64]:
        """Return the leaf node id of each row of ``X``."""
        node = np.zeros(X.shape[0], dtype=np.int64)
        active = self.left[node] >= 0
        while active.any():
            idx = np.flatnonzero(active)
            cur = node[idx]
            go_left = X[idx, self.feature[cur]] <= self.threshold[cur]
            node[idx] = np.where(go_left, self.left[cur], self.right[cur])
            active = self.left[node] >= 0
        return node

    def predict(self, X: NDArray[np.float64]) -> NDArray[np.int64]:
        """Return the proxy value of each row of ``X`` (shape (n, d))."""
        return self.outputs[self.leaves(X)]

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready description."""
        return {
            "kind": "tree",
            "left": self.left.tolist(),
            "right": self.right.tolist(),
            "feature": self.feature.tolist(),
            "threshold": self.threshold.tolist(),
            "outputs": self.outputs.tolist(),
        }


@saveable
@dataclass(frozen=True)
class RandomizedTreeRule:
    """A tree of randomized splitting functions (Deng et al., Definitions 9-10).

    Each internal node holds several deterministic binary rules; a candidate goes to the
    node's ``one`` child with probability equal to the share of rules answering 1
    (Definition 9: a uniform draw among them). :meth:`leaf_weights` gives the expected
    weights of Definition 10, which is all Algorithm 2 needs.

    Attributes
    ----------
    rules : tuple of tuple of LinearRule or TreeRule
        Rules of each node (empty for a leaf); node 0 is the root.
    probs : tuple of numpy.ndarray
        Probability of each rule of each node (uniform in Definition 9; we also mix in
        the constant rules with other weights to shrink a split, see ``AlphaBetaProxy``).
    one, zero : numpy.ndarray of shape (m,)
        Child node reached when the rule answers 1 / 0 (-1 at leaves).
    leaf_index : numpy.ndarray of shape (m,)
        Proxy value (row of ``A``) of each leaf, -1 at internal nodes.
    """

    rules: tuple[tuple[LinearRule | TreeRule, ...], ...]
    probs: tuple[NDArray[np.float64], ...]
    one: NDArray[np.int64]
    zero: NDArray[np.int64]
    leaf_index: NDArray[np.int64]

    @property
    def n_leaves(self) -> int:
        """Number of leaves (proxy values)."""
        return int((self.leaf_index >= 0).sum())

    def leaf_weights(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        """Return the expected weight of each row at each leaf, shape (n, n_leaves)."""
        out = np.zeros((X.shape[0], self.n_leaves))
        weights = {0: np.ones(X.shape[0])}
        for node in range(self.leaf_index.shape[0]):
            w = weights.pop(node, None)
            if w is None:
                continue
            if self.leaf_index[node] >= 0:
                out[:, self.leaf_index[node]] = w
                continue
            answers = np.array([rule.predict(X) for rule in self.rules[node]], dtype=float)
            p_one = np.clip(self.probs[node] @ answers, 0.0, 1.0)  # rounding of sum(probs)
            weights[int(self.one[node])] = w * p_one
            weights[int(self.zero[node])] = w * (1.0 - p_one)
        return out

    def predict(self, X: NDArray[np.float64]) -> NDArray[np.int64]:
        """Return the most likely leaf of each row (the proxy itself is randomized)."""
        return np.asarray(np.argmax(self.leaf_weights(X), axis=1), dtype=np.int64)

    def sample(self, X: NDArray[np.float64], rng: np.random.Generator) -> NDArray[np.int64]:
        """Draw each row's leaf as the randomized splitting functions would."""
        w = self.leaf_weights(X)
        cum: NDArray[np.float64] = np.cumsum(w, axis=1)
        u = np.asarray(rng.random(X.shape[0])).reshape(-1, 1) * cum[:, -1:]
        leaf = np.minimum((u >= cum).sum(axis=1), w.shape[1] - 1)
        return np.asarray(leaf, dtype=np.int64)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready description."""
        return {
            "kind": "randomized-tree",
            "rules": [[rule.to_dict() for rule in node] for node in self.rules],
            "probs": [p.tolist() for p in self.probs],
            "one": self.one.tolist(),
            "zero": self.zero.tolist(),
            "leaf_index": self.leaf_index.tolist(),
        }


def rule_from_dict(data: dict[str, Any]) -> LinearRule | TreeRule | RandomizedTreeRule:
    """Rebuild a rule from :meth:`LinearRule.to_dict` / :meth:`TreeRule.to_dict` output.

    Parameters
    ----------
    data : dict
        The description.

    Returns
    -------
    LinearRule, TreeRule or RandomizedTreeRule

    Raises
    ------
    CorruptFileError
        If the description is incomplete or of an unknown kind.
    """
    try:
        if data["kind"] == "linear":
            return LinearRule(
                coef=np.asarray(data["coef"], dtype=np.float64).reshape(len(data["coef"]), -1),
                intercept=np.asarray(data["intercept"], dtype=np.float64),
                outputs=np.asarray(data["outputs"], dtype=np.int64),
            )
        if data["kind"] == "randomized-tree":
            nodes = tuple(tuple(_simple_rule(rule) for rule in node) for node in data["rules"])
            return RandomizedTreeRule(
                rules=nodes,
                probs=tuple(np.asarray(p, dtype=np.float64) for p in data["probs"]),
                one=np.asarray(data["one"], dtype=np.int64),
                zero=np.asarray(data["zero"], dtype=np.int64),
                leaf_index=np.asarray(data["leaf_index"], dtype=np.int64),
            )
        if data["kind"] == "tree":
            return TreeRule(
                left=np.asarray(data["left"], dtype=np.int64),
                right=np.asarray(data["right"], dtype=np.int64),
                feature=np.asarray(data["feature"], dtype=np.int64),
                threshold=np.asarray(data["threshold"], dtype=np.float64),
                outputs=np.asarray(data["outputs"], dtype=np.int64),
            )
    except (KeyError, TypeError, ValueError) as exc:
        raise CorruptFileError(
            f"proxy rule: the saved rule is incomplete or malformed ({exc}). Re-save the proxy."
        ) from exc
    raise CorruptFileError(
        f"proxy rule: unknown rule kind {data.get('kind')!r}; expected 'linear', 'tree' "
        "or 'randomized-tree'."
    )


def _simple_rule(data: dict[str, Any]) -> LinearRule | TreeRule:
    rule = rule_from_dict(data)
    if isinstance(rule, RandomizedTreeRule):
        raise CorruptFileError("proxy rule: a randomized tree cannot nest in another one.")
    return rule


def check_rule(rule: Any, n_features: int, n_values: int) -> None:
    """Refuse a loaded rule that cannot run on ``n_features`` columns (a tampered file).

    ``n_values`` bounds the values the rule may return (proxy values, or 2 for the binary
    rules inside a randomized tree). A tree's children must come after their node, as
    every tree fairacq writes has them, so no tampered tree can loop.

    Raises
    ------
    CorruptFileError
        Naming what is wrong.
    """
    problem = _rule_problem(rule, n_features, n_values)
    if problem:
        raise CorruptFileError(f"proxy rule: {problem}. Re-save the proxy.")


def _outputs_problem(outputs: NDArray[np.int64], n_values: int) -> str:
    if outputs.size and (outputs.min() < 0 or outputs.max() >= n_values):
        return f"outputs must lie in [0, {n_values}), the file holds {outputs.tolist()[:4]}..."
    return ""


def _children_problem(first: NDArray[np.int64], second: NDArray[np.int64], inner: Any) -> str:
    ids = np.arange(first.shape[0])
    for child in (first, second):
        if np.any(inner & ((child <= ids) | (child >= first.shape[0]))):
            return "a node's children must be later nodes of the tree"
    return ""


def _rule_problem(rule: Any, d: int, n_values: int) -> str:
    if isinstance(rule, LinearRule):
        return _linear_problem(rule, d, n_values)
    if isinstance(rule, TreeRule):
        return _tree_problem(rule, d, n_values)
    if isinstance(rule, RandomizedTreeRule):
        return _randomized_problem(rule, d, n_values)
    return f"unknown rule {type(rule).__name__}"


def _linear_problem(rule: LinearRule, d: int, n_values: int) -> str:
    c = rule.coef.shape[0]
    if rule.coef.ndim != 2 or rule.coef.shape[1] != d or rule.intercept.shape != (c,):
        return f"the linear rule's coefficients do not fit {d} features"
    if rule.outputs.shape != (max(c, 2),):
        return "the linear rule needs one output per class"
    if not (np.isfinite(rule.coef).all() and np.isfinite(rule.intercept).all()):
        return "the linear rule's coefficients must be finite"
    return _outputs_problem(rule.outputs, n_values)


def _tree_problem(rule: TreeRule, d: int, n_values: int) -> str:
    arrays = (rule.left, rule.right, rule.feature, rule.threshold, rule.outputs)
    m = rule.left.shape[0]
    if m == 0 or any(a.shape != (m,) for a in arrays):
        return "the tree's arrays must have one entry per node"
    inner = rule.left >= 0
    if np.any(inner & ((rule.feature < 0) | (rule.feature >= d))):
        return f"the tree tests features outside the {d} it was fitted on"
    if np.isnan(rule.threshold[inner]).any():
        return "the tree's thresholds must be numbers"
    return _children_problem(rule.left, rule.right, inner) or _outputs_problem(
        rule.outputs[~inner], n_values
    )


def _randomized_problem(rule: RandomizedTreeRule, d: int, n_values: int) -> str:
    m = rule.leaf_index.shape[0]
    if m == 0 or rule.one.shape != (m,) or rule.zero.shape != (m,) or len(rule.rules) != m:
        return "the randomized tree's arrays must have one entry per node"
    if len(rule.probs) != m:
        return "the randomized tree needs rule probabilities for every node"
    inner = rule.leaf_index < 0
    if sorted(rule.leaf_index[~inner].tolist()) != list(range(n_values)):
        return f"the randomized tree's leaves must be the {n_values} proxy values"
    for node, (rules, probs) in enumerate(zip(rule.rules, rule.probs, strict=True)):
        if probs.shape != (len(rules),) or not np.all(np.isfinite(probs) & (probs >= 0)):
            return f"node {node}'s rule probabilities must be one number >= 0 per rule"
        problem = next((p for r in rules if (p := _rule_problem(r, d, 2))), "")
        if problem:
            return problem
    return _children_problem(rule.one, rule.zero, inner)
