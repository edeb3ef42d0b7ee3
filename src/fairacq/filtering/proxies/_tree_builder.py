"""Grow the tree of :class:`~fairacq.filtering.AlphaBetaProxy` (Deng et al., Algorithm 4).

:class:`TreeBuilder` holds the tree under construction: its nodes (:class:`_Node`), the
sample weights of each leaf and the hull of the leaves' conditional distribution matrix.
Each step splits the leaf that moves the hull closest to the target
(:meth:`TreeBuilder.stop_reason` finds it, :meth:`TreeBuilder.apply_pending` applies it)
until the target is reached, no split qualifies or the leaves reach the maximum depth. The
tree so far is written to and read back from a checkpoint folder exactly
(:meth:`TreeBuilder.write_state`, :meth:`TreeBuilder.read_state`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fairacq._io import read_json, write_json
from fairacq.exceptions import InvalidDataError
from fairacq.filtering._membership import group_mass, membership_sum
from fairacq.filtering._weights import sampling_weights
from fairacq.filtering.proxies._lagrangian import SplitGameResult, play_split_game
from fairacq.filtering.proxies._rules import (
    LinearRule,
    RandomizedTreeRule,
    TreeRule,
    rule_from_dict,
)

__all__ = ["GrowthSettings", "TreeBuilder"]


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


@dataclass(frozen=True)
class GrowthSettings:
    """The hyper-parameters of :class:`~fairacq.filtering.AlphaBetaProxy` that grow the tree.

    Kept as the user gave them (the builder converts them where it uses them).
    """

    alpha: Any
    gamma: Any
    tol: Any
    max_depth: Any
    oracle: Any
    max_iter: Any
    margin: Any
    lambda_max: Any
    relaxed: Any


@dataclass
class _Node:
    """One node of the tree: its randomized split (none at a leaf) and its children."""

    depth: int
    rules: tuple[LinearRule | TreeRule, ...] = ()
    probs: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    zero: int = -1
    one: int = -1


@dataclass(frozen=True)
class _Hull:
    """The leaves' matrix, marginal and hull distance, with the QP's admission rates ``rho``."""

    A: NDArray[np.float64]
    r_hat: NDArray[np.float64]
    distance: float
    u_proj: NDArray[np.float64]
    rho: NDArray[np.float64]


@dataclass(frozen=True)
class _Split:
    """A qualifying split of one leaf: the game's mixture shrunk towards a fair coin."""

    distance: float
    leaf: int
    game: SplitGameResult
    shrink: float
    p_one: NDArray[np.float64]


class TreeBuilder:
    """The tree under construction on a labelled sample (Algorithm 4).

    Parameters
    ----------
    settings : GrowthSettings
    X : numpy.ndarray of shape (n, d)
        Features of the sample.
    codes : numpy.ndarray of shape (n,) or (n, G)
        Group codes (one column per intersecting class).
    sizes : tuple of int
        Number of groups of each class.
    target : numpy.ndarray
        Target group distribution.
    """

    def __init__(
        self,
        settings: GrowthSettings,
        X: NDArray[np.float64],
        codes: NDArray[np.int64],
        sizes: tuple[int, ...],
        target: NDArray[np.float64],
    ) -> None:
        self.settings = settings
        self.X, self.codes, self.sizes, self.target = X, codes, sizes, target
        n = X.shape[0]
        self.prior = group_mass(np.ones(n), codes, sizes) / n
        self.nodes = [_Node(depth=0)]
        self.leaf_nodes = [0]
        self.leaves = [np.ones(n)]
        self.hull = self._hull(self.leaves)
        self.pending: _Split | None = None

    def stop_reason(self) -> str | None:
        """Return why growth stops now, or None after finding the next split (``pending``).

        Returns
        -------
        str or None
            ``"reached"`` (the hull is closer than ``tol`` to the target), ``"max-depth"``,
            ``"no-split"`` (no split qualifies), or None: :meth:`apply_pending` goes on.
        """
        self.pending = None
        if self.hull.distance < self.settings.tol:
            return "reached"
        splittable = [
            i
            for i, node in enumerate(self.leaf_nodes)
            if self.nodes[node].depth < self.settings.max_depth
        ]
        if not splittable:
            return "max-depth"
        self.pending = self._best_split(splittable)
        return "no-split" if self.pending is None else None

    def apply_pending(self) -> dict[str, Any]:
        """Apply the split :meth:`stop_reason` found; return what it did (leaf, game).

        Raises
        ------
        RuntimeError
            If no split is pending.
        """
        if self.pending is None:
            raise RuntimeError("TreeBuilder.apply_pending: call stop_reason() first.")
        split, self.pending = self.pending, None
        return self._apply(split)

    def rule(self) -> RandomizedTreeRule:
        """Return the grown tree as a randomized tree rule."""
        leaf_index = np.full(len(self.nodes), -1, dtype=np.int64)
        leaf_index[np.asarray(self.leaf_nodes)] = np.arange(len(self.leaf_nodes))
        return RandomizedTreeRule(
            rules=tuple(node.rules for node in self.nodes),
            probs=tuple(node.probs for node in self.nodes),
            one=np.asarray([node.one for node in self.nodes], dtype=np.int64),
            zero=np.asarray([node.zero for node in self.nodes], dtype=np.int64),
            leaf_index=leaf_index,
        )

    def _hull(self, leaves: list[NDArray[np.float64]]) -> _Hull:
        mass = np.array([w.sum() for w in leaves])
        A = np.vstack([group_mass(w, self.codes, self.sizes) / w.sum() for w in leaves])
        r_hat = mass / mass.sum()
        w = sampling_weights(
            A,
            r_hat,
            target=self.target,
            relaxed=bool(self.settings.relaxed),
            solver="active-set",
            on_unreachable="ignore",
            group_sizes=None if len(self.sizes) == 1 else self.sizes,
        )
        return _Hull(A, r_hat, w.hull_distance, w.q @ A, w.rho)

    def _best_split(self, splittable: list[int]) -> _Split | None:
        """Return the qualifying split that brings the hull closest to the target."""
        best: _Split | None = None
        for i in splittable:
            split = self._try_split(i)
            if split is not None and (best is None or split.distance < best.distance):
                best = split
        return best

    def _split_objective(self, i: int) -> NDArray[np.float64]:
        """Return the per-row cost of answering 1 at leaf ``i`` (Program 3)."""
        settings, hull = self.settings, self.hull
        row = hull.A[i]
        q_term = hull.distance * _f_gamma(
            float(settings.gamma), float(np.linalg.norm(row - hull.u_proj)), len(self.sizes)
        )
        shift = hull.u_proj - self.target
        # Q of Lemma 4, with the sign of the f(gamma) term that makes (2) equivalent
        # to (1): <R(V1) - R(V), U - U'> >= f d  <=>  sum w h (shift[z] - Q) <= 0,
        # scaled by `margin` (0: steer by direction only; see the paper notes).
        q_val = -float(settings.margin) * q_term + float(shift @ row)
        objective: NDArray[np.float64] = -q_val + membership_sum(shift, self.codes, self.sizes)
        return objective

    def _try_split(self, i: int) -> _Split | None:
        """Learn a split of leaf ``i``; None unless it is alpha-disclosive and progresses."""
        settings, w = self.settings, self.leaves[i]
        game = play_split_game(
            self.X,
            self.codes,
            w,
            self._split_objective(i),
            self.prior,
            float(settings.alpha),
            oracle=str(settings.oracle),
            max_iter=int(settings.max_iter),
            lambda_max=float(settings.lambda_max),
            group_sizes=self.sizes,
        )
        shrink = _largest_disclosive_shrink(
            w, game.p_one, self.codes, self.prior, float(settings.alpha), self.sizes
        )
        if shrink <= 0.0:
            return None  # no alpha-disclosive version of this split
        p_one = shrink * game.p_one + (1.0 - shrink) / 2.0
        w1, w0 = w * p_one, w * (1.0 - p_one)
        n = self.X.shape[0]
        if w1.sum() <= 1e-9 * n or w0.sum() <= 1e-9 * n:
            return None
        trial = [*self.leaves[:i], w0, w1, *self.leaves[i + 1 :]]
        distance = self._hull(trial).distance
        if distance > (1 - settings.gamma) * self.hull.distance:
            return None
        return _Split(distance, i, game, shrink, p_one)

    def _apply(self, split: _Split) -> dict[str, Any]:
        """Split the leaf: two children, the leaf's weights shared, the hull recomputed."""
        i, game, shrink = split.leaf, split.game, split.shrink
        node = self.nodes[self.leaf_nodes[i]]
        # The split is the game's uniform mixture shrunk towards a fair coin (the two
        # constant rules), so that both children stay alpha-disclosive.
        node.rules = (*game.rules, *_constant_rules(self.X.shape[1]))
        n_rules = len(game.rules)
        node.probs = np.concatenate(
            [np.full(n_rules, shrink / n_rules), np.full(2, (1.0 - shrink) / 2.0)]
        )
        self.nodes += [_Node(depth=node.depth + 1), _Node(depth=node.depth + 1)]
        node.zero, node.one = len(self.nodes) - 2, len(self.nodes) - 1
        w = self.leaves[i]
        self.leaves[i : i + 1] = [w * (1.0 - split.p_one), w * split.p_one]
        self.leaf_nodes[i : i + 1] = [node.zero, node.one]
        self.hull = self._hull(self.leaves)
        return {
            "leaf": int(i),
            "iterations": game.iterations,
            "shrink": shrink,
            "duality_gap": game.duality_gap,
            "max_violation": game.max_violation,
        }

    def _fingerprint(self) -> str:
        """Return the sha256 of the sample and target the tree grows on."""
        digest = hashlib.sha256()
        for arr in (self.X, self.codes, self.target):
            digest.update(np.ascontiguousarray(arr).tobytes())
        return digest.hexdigest()

    def write_state(self, folder: Path) -> None:
        """Write the tree so far (nodes as JSON, leaf weights as ``.npy``) into ``folder``."""
        nodes = {
            "sample_sha256": self._fingerprint(),
            "tree": self.rule().to_dict(),
            "depth": [node.depth for node in self.nodes],
            "leaf_nodes": list(self.leaf_nodes),
        }
        write_json(folder / "tree.json", nodes)
        np.save(folder / "leaves.npy", np.vstack(self.leaves), allow_pickle=False)

    def read_state(self, folder: Path) -> None:
        """Load what :meth:`write_state` wrote; the hull is recomputed, bit for bit.

        Raises
        ------
        InvalidDataError
            If the checkpoint was written on another labelled sample or target.
        """
        data = read_json(folder / "tree.json")
        if data.get("sample_sha256") != self._fingerprint():
            raise InvalidDataError(
                "AlphaBetaProxy: continue_from was written while growing a tree on another "
                "labelled sample or target. Resume with the same X, s and target."
            )
        tree = rule_from_dict(data["tree"])
        assert isinstance(tree, RandomizedTreeRule)
        self.nodes = [
            _Node(depth=int(depth), rules=rules, probs=probs, zero=int(zero), one=int(one))
            for depth, rules, probs, zero, one in zip(
                data["depth"], tree.rules, tree.probs, tree.zero, tree.one, strict=True
            )
        ]
        self.leaf_nodes = [int(i) for i in data["leaf_nodes"]]
        self.leaves = list(np.load(folder / "leaves.npy", allow_pickle=False))
        self.hull = self._hull(self.leaves)
