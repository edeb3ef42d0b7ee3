"""Synthetic Models 1 and 2 of Shekhar et al. (2021): two groups, two classes, two features.

Each group's features follow a mixture of isotropic Gaussian components, each component carrying
one label. That one representation serves both models, gives exact sampling, and gives the exact
accuracy of any linear classifier on a group (:meth:`linear_accuracy`), so experiments need no
Monte-Carlo test set.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from fairacq._random import RandomState, as_generator
from fairacq._validation import Interval, Options, validate_parameter_constraints
from fairacq.data._dataset import FairDataset
from fairacq.exceptions import InvalidParameterError, UnknownNameError

__all__ = [
    "GaussianComponent",
    "SyntheticModel1",
    "SyntheticModel2",
    "make_synthetic_model1",
    "make_synthetic_model2",
]

_FEATURES = ("x1", "x2")


@dataclass(frozen=True)
class GaussianComponent:
    """One isotropic Gaussian component of a group's feature distribution.

    Parameters
    ----------
    weight : float
        Probability that a row of the group comes from this component.
    mean : tuple of float
        Mean of the two features.
    std : float
        Standard deviation of each feature (the covariance is ``std**2 * I``).
    label : int
        The label (0 or 1) of every row drawn from this component.
    """

    weight: float
    mean: tuple[float, float]
    std: float
    label: int


class _GaussianGroupModel:
    """Shared sampling and exact-accuracy code of the two synthetic models."""

    groups: ClassVar[tuple[str, ...]] = ("u", "v")
    name: str
    components: dict[str, tuple[GaussianComponent, ...]]

    def _group_name(self, group: str | int) -> str:
        if isinstance(group, (int, np.integer)) and not isinstance(group, bool):
            if 0 <= int(group) < len(self.groups):
                return self.groups[int(group)]
        elif isinstance(group, str) and group in self.groups:
            return group
        raise UnknownNameError(
            f"{type(self).__name__}: unknown group {group!r}. "
            f"Use one of {self.groups} or its code 0..{len(self.groups) - 1}."
        )

    def sample(
        self, group: str | int, n: int, random_state: RandomState = None
    ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
        """Draw ``n`` i.i.d. rows of one group.

        Parameters
        ----------
        group : {"u", "v"} or int
            The group, by name or by code (0 = ``"u"``, 1 = ``"v"``).
        n : int
            Number of rows, ``n >= 0``.
        random_state : int, numpy.random.Generator or None, default=None
            Controls the draw. A Generator keeps advancing across calls.

        Returns
        -------
        X : ndarray of shape (n, 2)
            Features.
        y : ndarray of shape (n,)
            Labels in {0, 1}.

        Raises
        ------
        UnknownNameError
            For a group that is not ``"u"``/``"v"`` (0/1).
        InvalidParameterError
            For a negative ``n``.
        """
        name = self._group_name(group)
        _check_count(type(self).__name__, n)
        rng = as_generator(random_state)
        comps = self.components[name]
        weights = np.array([c.weight for c in comps])
        which = rng.choice(len(comps), size=n, p=weights / weights.sum())
        means = np.array([c.mean for c in comps], dtype=np.float64)
        stds = np.array([c.std for c in comps], dtype=np.float64)
        labels = np.array([c.label for c in comps], dtype=np.int64)
        X = means[which] + stds[which, None] * rng.standard_normal((n, 2))
        return X, labels[which]

    def sample_mixture(
        self,
        pi: float | Sequence[float],
        n: int,
        random_state: RandomState = None,
        *,
        exact_counts: bool = False,
    ) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]]:
        """Draw ``n`` rows from the mixture ``pi(u) P_u + (1 - pi(u)) P_v``.

        Parameters
        ----------
        pi : float or sequence of float
            ``pi(u)`` in [0, 1], or the two proportions ``(pi(u), pi(v))`` summing to 1.
        n : int
            Number of rows.
        random_state : int, numpy.random.Generator or None, default=None
            Controls the draw.
        exact_counts : bool, default=False
            ``False`` draws each row's group i.i.d. (a true mixture, as an uncurated pool);
            ``True`` takes exactly ``round(pi(u) * n)`` rows of ``u`` (a training set built with
            the mixture ``pi``, as in the paper's Fig. 1).

        Returns
        -------
        X : ndarray of shape (n, 2)
        y : ndarray of shape (n,)
        z : ndarray of shape (n,)
            Group codes, 0 = ``"u"`` and 1 = ``"v"``.

        Raises
        ------
        InvalidParameterError
            For proportions outside [0, 1] or not summing to 1, or a negative ``n``.
        """
        where = type(self).__name__
        pi_u = _check_pi(where, pi)
        _check_count(where, n)
        rng = as_generator(random_state)
        n_u = round(pi_u * n) if exact_counts else int(rng.binomial(n, pi_u))
        X_u, y_u = self.sample("u", n_u, rng)
        X_v, y_v = self.sample("v", n - n_u, rng)
        z = np.concatenate([np.zeros(n_u, np.int64), np.ones(n - n_u, np.int64)])
        order = rng.permutation(n)
        return (
            np.vstack([X_u, X_v])[order],
            np.concatenate([y_u, y_v])[order],
            z[order],
        )

    def linear_accuracy(self, coef: ArrayLike, intercept: float, group: str | int) -> float:
        """Return the exact accuracy on one group of the classifier ``1[coef . x + b > 0]``.

        Each component contributes ``weight * Phi(+-(coef . mean + b) / (std * |coef|))``, so the
        result is the population accuracy, free of test-set noise.

        Parameters
        ----------
        coef : array-like of shape (2,)
            Weights of the linear classifier (e.g. ``LogisticRegression().coef_[0]``).
        intercept : float
            Its intercept.
        group : {"u", "v"} or int
            The group.

        Returns
        -------
        float
            Accuracy in [0, 1].

        Raises
        ------
        InvalidParameterError
            If ``coef`` does not hold two finite numbers.
        """
        w = np.asarray(coef, dtype=np.float64).reshape(-1)
        if w.shape != (2,) or not np.all(np.isfinite(w)) or not np.isfinite(intercept):
            raise InvalidParameterError(
                f"{type(self).__name__}.linear_accuracy: coef must hold 2 finite numbers and "
                f"intercept must be finite. Got coef={w.tolist()}, intercept={intercept}."
            )
        comps = self.components[self._group_name(group)]
        norm = float(np.linalg.norm(w))
        total = 0.0
        for c in comps:
            score = float(w @ np.asarray(c.mean) + intercept)
            if norm == 0.0:
                p_one = 1.0 if score > 0 else 0.0  # a constant classifier
            else:
                p_one = 0.5 * (1.0 + math.erf(score / (c.std * norm * math.sqrt(2.0))))
            total += c.weight * (p_one if c.label == 1 else 1.0 - p_one)
        return total / sum(c.weight for c in comps)

    def _dataset(
        self, n: int, pi_u: float, random_state: RandomState, where: str, section: str
    ) -> FairDataset:
        pi_u = _check_pi(where, pi_u, "pi_u")
        _check_count(where, n)
        n_u = round(pi_u * n)
        if n_u < 1 or n - n_u < 1:
            raise InvalidParameterError(
                f"{where}: n={n} and pi_u={pi_u} leave group {'u' if n_u < 1 else 'v'} with no "
                "rows; a FairDataset needs both groups. Raise n or move pi_u away from 0 and 1."
            )
        X, y, z = self.sample_mixture(pi_u, n, random_state, exact_counts=True)
        sensitive = pd.Series(np.asarray(self.groups, dtype=object)[z], name="z")
        return FairDataset(
            pd.DataFrame(X, columns=list(_FEATURES)),
            y,
            sensitive,
            name=self.name,
            metadata={
                "source": f"fairacq.data.synthetic ({type(self).__name__})",
                "paper": f"Shekhar et al. 2021 {section}",
                "favourable_label": 1,
                "pi_u": pi_u,
                "licence": "generated data, no restriction",
            },
        )


def _check_count(where: str, n: Any) -> None:
    validate_parameter_constraints({"n": [Interval(int, 0, None, closed="left")]}, {"n": n}, where)


def _check_pi(where: str, pi: Any, name: str = "pi") -> float:
    if isinstance(pi, (Sequence, np.ndarray)) and not isinstance(pi, str):
        try:
            arr = np.asarray(pi, dtype=np.float64)
        except (TypeError, ValueError):
            arr = np.array([np.nan])
        if arr.shape != (2,) or not np.all(arr >= 0) or not np.isclose(arr.sum(), 1.0):
            raise InvalidParameterError(
                f"{where}: {name} must be pi(u) in [0, 1] or two proportions summing to 1. "
                f"Got {pi!r}."
            )
        return float(arr[0])
    validate_parameter_constraints({name: [Interval(float, 0, 1)]}, {name: pi}, where)
    return float(pi)


def _two_class(
    mu0: NDArray[np.float64], mu1: NDArray[np.float64]
) -> tuple[GaussianComponent, ...]:
    return (
        GaussianComponent(0.5, (float(mu0[0]), float(mu0[1])), 1.0, 0),
        GaussianComponent(0.5, (float(mu1[0]), float(mu1[1])), 1.0, 1),
    )


class SyntheticModel1(_GaussianGroupModel):
    """Synthetic Model 1 of Shekhar et al. 2021 (§2.2, Definition 1), instances I, II.

    ``X`` in R^2, ``Y`` in {0, 1}, ``Z`` in {u, v}; ``P(Y=1 | Z=z) = 0.5`` and
    ``X | Y=y, Z=z ~ N(mu_yz, I_2)``. The text lost the minus signs of the means. Of the
    sign patterns the text allows, fairacq uses the one whose trade-off comes closest to Fig. 1,
    in which the two groups' classes differ along orthogonal diagonals::

        instance I : mu0u = (-2, -2), mu1u = (2, 2), mu0v = (-1, 1), mu1v = (1, -1)
        instance II: mu0u = (-1.5, -1.5), mu1u = (1.5, 1.5), mu0v = (-2, 2), mu1v = (2, -2)

    With logistic regression trained on mixtures ``pi(u)``, the two group accuracies cross at
    ``pi(u) ~ 0.20`` for instance I (the paper reports ~0.23) and ``~0.64`` for instance II (the
    opposite trend, as the paper says); see ``docs/paper-notes/data.md``.

    Parameters
    ----------
    instance : {"I", "II"}, default="I"
        Which instance of §2.2.

    Attributes
    ----------
    mu0u, mu1u, mu0v, mu1v : ndarray of shape (2,)
        Class means of each group.
    p_positive : float
        ``P(Y=1 | Z=z) = 0.5`` for both groups.
    minimax_pi_u : float
        Where logistic regression's group accuracies cross (our numerical check).
    paper_minimax_pi_u : float or None
        The value the paper reports (0.23 for instance I; not stated for II).
    components : dict of str to tuple of GaussianComponent
        The same model as Gaussian components, per group.
    groups : tuple of str
        ``("u", "v")``; code 0 is ``"u"``.

    Raises
    ------
    InvalidParameterError
        For an instance other than ``"I"`` or ``"II"``.

    Examples
    --------
    >>> model = SyntheticModel1("I")
    >>> X, y = model.sample("u", 5, random_state=0)
    >>> X.shape, sorted(set(y.tolist())) <= [0, 1]
    ((5, 2), True)
    >>> round(model.linear_accuracy([1.0, 1.0], 0.0, "u"), 3)  # the diagonal boundary suits u
    0.998
    >>> round(model.linear_accuracy([1.0, 1.0], 0.0, "v"), 3)  # ... and is useless for v
    0.5
    """

    _MEANS: ClassVar[dict[str, dict[str, tuple[float, float]]]] = {
        "I": {"mu0u": (-2.0, -2.0), "mu1u": (2.0, 2.0), "mu0v": (-1.0, 1.0), "mu1v": (1.0, -1.0)},
        "II": {
            "mu0u": (-1.5, -1.5),
            "mu1u": (1.5, 1.5),
            "mu0v": (-2.0, 2.0),
            "mu1v": (2.0, -2.0),
        },
    }
    _CROSSING: ClassVar[dict[str, float]] = {"I": 0.20, "II": 0.64}
    _PAPER_CROSSING: ClassVar[dict[str, float | None]] = {"I": 0.23, "II": None}

    def __init__(self, instance: Literal["I", "II"] = "I") -> None:
        validate_parameter_constraints(
            {"instance": [Options(["I", "II"])]}, {"instance": instance}, "SyntheticModel1"
        )
        self.instance = instance
        means = {k: np.array(v, dtype=np.float64) for k, v in self._MEANS[instance].items()}
        self.mu0u, self.mu1u = means["mu0u"], means["mu1u"]
        self.mu0v, self.mu1v = means["mu0v"], means["mu1v"]
        self.p_positive = 0.5
        self.minimax_pi_u = self._CROSSING[instance]
        self.paper_minimax_pi_u = self._PAPER_CROSSING[instance]
        self.name = f"synthetic-model-1-{instance}"
        self.components = {
            "u": _two_class(self.mu0u, self.mu1u),
            "v": _two_class(self.mu0v, self.mu1v),
        }

    def __repr__(self) -> str:
        return f"SyntheticModel1(instance={self.instance!r})"


class SyntheticModel2(_GaussianGroupModel):
    """Synthetic Model 2 of Shekhar et al. 2021 (§5, Fig. 7): hard and sparse groups.

    Definition 4 (the paper's Appendix E) is not in the text we have; this construction follows
    §5's description. Group ``u`` (red) is hard: its classes overlap,
    ``N(-(0.4, 0.4), I)`` against ``N((0.4, 0.4), I)``, so every linear classifier stays near
    71% on it and a few samples reach that. Group ``v`` (blue) is easy: 90% of its mass lies in
    two tight central clusters (``std=0.5``) at ``-(2, 1)`` (label 0) and ``(2, 1)`` (label 1),
    which any few samples separate; the other 10% sits in two sparse outer regions, top left at
    ``(-3, 3)`` (label 1) and bottom right at ``(3, -3)`` (label 0), which the central
    clusters' boundary gets wrong. Only a classifier that has seen enough outer points rotates to
    the boundary with normal ``(1, 2)`` that classifies all of ``v`` (about 99.9%), while ``u``
    barely cares (70.4% at either boundary, 71.4% at best). Sampling the worst group (``u``)
    therefore buys nothing; sampling ``v`` buys several points of ``v`` accuracy (Fig. 6).

    Attributes
    ----------
    u_mean_shift : ndarray of shape (2,)
        ``mu1u = -mu0u``.
    v_central_mean : ndarray of shape (2,)
        ``v``'s label-1 central cluster mean (label 0 at its negative).
    v_sparse_means : tuple of ndarray
        Top-left (label 1) and bottom-right (label 0) sparse region means.
    v_central_std, v_sparse_std : float
        Spreads of ``v``'s components.
    v_sparse_weight : float
        Total probability of ``v``'s two sparse regions (split equally).
    p_positive : float
        ``P(Y=1 | Z=z) = 0.5`` for both groups.
    components : dict of str to tuple of GaussianComponent
        Per group.
    groups : tuple of str
        ``("u", "v")``.

    Examples
    --------
    >>> model = SyntheticModel2()
    >>> round(model.linear_accuracy([2.0, 1.0], 0.0, "v"), 3)  # central clusters' boundary
    0.9
    >>> round(model.linear_accuracy([1.0, 2.0], 0.0, "v"), 3)  # after exploring the outskirts
    0.999
    >>> round(model.linear_accuracy([1.0, 1.0], 0.0, "u"), 3)  # u's best
    0.714
    """

    def __init__(self) -> None:
        self.u_mean_shift = np.array([0.4, 0.4])
        self.v_central_mean = np.array([2.0, 1.0])
        self.v_sparse_means = (np.array([-3.0, 3.0]), np.array([3.0, -3.0]))
        self.v_central_std = 0.5
        self.v_sparse_std = 0.5
        self.v_sparse_weight = 0.1
        self.p_positive = 0.5
        self.name = "synthetic-model-2"
        central = (1.0 - self.v_sparse_weight) / 2
        sparse = self.v_sparse_weight / 2
        c, tl, br = self.v_central_mean, self.v_sparse_means[0], self.v_sparse_means[1]
        self.components = {
            "u": _two_class(-self.u_mean_shift, self.u_mean_shift),
            "v": (
                GaussianComponent(central, (-c[0], -c[1]), self.v_central_std, 0),
                GaussianComponent(central, (c[0], c[1]), self.v_central_std, 1),
                GaussianComponent(sparse, (tl[0], tl[1]), self.v_sparse_std, 1),
                GaussianComponent(sparse, (br[0], br[1]), self.v_sparse_std, 0),
            ),
        }

    def __repr__(self) -> str:
        return "SyntheticModel2()"


def make_synthetic_model1(
    n: int = 1000,
    pi_u: float = 0.5,
    instance: Literal["I", "II"] = "I",
    *,
    random_state: RandomState = None,
) -> FairDataset:
    """Draw a :class:`FairDataset` from Synthetic Model 1 (Shekhar et al., §2.2).

    Parameters
    ----------
    n : int, default=1000
        Number of rows.
    pi_u : float, default=0.5
        Share of group ``u``: exactly ``round(pi_u * n)`` rows (both groups must get rows).
    instance : {"I", "II"}, default="I"
        Which instance of §2.2.
    random_state : int, numpy.random.Generator or None, default=None
        Controls the draw.

    Returns
    -------
    FairDataset
        Features ``x1``, ``x2``; sensitive attribute ``z`` with groups ``"u"``, ``"v"``.

    Raises
    ------
    InvalidParameterError
        For an unknown instance, ``pi_u`` outside [0, 1], or a group left without rows.

    Examples
    --------
    >>> ds = make_synthetic_model1(100, pi_u=0.25, random_state=0)
    >>> ds.group_names, ds.group_sizes().tolist()
    (('u', 'v'), [25, 75])
    """
    model = SyntheticModel1(instance)
    return model._dataset(n, pi_u, random_state, "make_synthetic_model1", "§2.2")


def make_synthetic_model2(
    n: int = 1000, pi_u: float = 0.5, *, random_state: RandomState = None
) -> FairDataset:
    """Draw a :class:`FairDataset` from Synthetic Model 2 (Shekhar et al., §5, Fig. 7).

    Parameters
    ----------
    n : int, default=1000
        Number of rows.
    pi_u : float, default=0.5
        Share of group ``u``: exactly ``round(pi_u * n)`` rows.
    random_state : int, numpy.random.Generator or None, default=None
        Controls the draw.

    Returns
    -------
    FairDataset
        Features ``x1``, ``x2``; sensitive attribute ``z`` with groups ``"u"``, ``"v"``.

    Raises
    ------
    InvalidParameterError
        For ``pi_u`` outside [0, 1] or a group left without rows.

    Examples
    --------
    >>> make_synthetic_model2(10, random_state=0).group_sizes().tolist()
    [5, 5]
    """
    model = SyntheticModel2()
    return model._dataset(n, pi_u, random_state, "make_synthetic_model2", "§5, Fig. 7")
