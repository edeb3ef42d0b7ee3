"""DADI's terminal reward (Bakker et al., eq. 2) and its two adversary losses (eqs. 5 and 6).

All functions are vectorised over a batch of episodes and work on numpy arrays (the training
loop hands over detached probabilities; no gradient flows through a reward). The adversary's
output is either ``P(b=1)`` of shape (n,) for a binary sensitive attribute, as in the paper,
or group probabilities of shape (n, G) for ``G >= 2`` groups.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fairacq.exceptions import InvalidDataError, InvalidParameterError

__all__ = [
    "REWARDS",
    "adversary_loss",
    "classifier_loss",
    "group_weights",
    "terminal_reward",
]

REWARDS: tuple[str, ...] = ("ce", "gnl1")
"""The adversary losses an agent can be rewarded with: cross-entropy and group-normalised L1."""

_EPS = 1e-7


def _group_proba(proba_s: ArrayLike, n_groups: int | None = None) -> NDArray[np.float64]:
    """Return group probabilities of shape (n, G) from P(b=1) (n,) or from (n, G)."""
    p = np.asarray(proba_s, dtype=np.float64)
    if p.ndim == 1:
        return np.stack([1.0 - p, p], axis=1)
    if p.ndim != 2 or (n_groups is not None and p.shape[1] != n_groups):
        raise InvalidDataError(
            f"DADI rewards: adversary probabilities must have shape (n,) or (n, G); got "
            f"{p.shape}. Return P(b=1) for two groups or one column per group."
        )
    return p


def classifier_loss(proba_y: ArrayLike, y: ArrayLike) -> NDArray[np.float64]:
    """Return the binary cross-entropy of each episode's final prediction (L_C in eq. 2).

    Parameters
    ----------
    proba_y : array-like of shape (n,)
        The classifier's P(y=1) on each final feature set.
    y : array-like of shape (n,)
        True labels in {0, 1}.

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    >>> classifier_loss([0.5, 1.0], [1, 1]).round(4).tolist()
    [0.6931, 0.0]
    """
    p = np.clip(np.asarray(proba_y, dtype=np.float64), _EPS, 1.0 - _EPS)
    t = np.asarray(y, dtype=np.float64)
    return np.asarray(-(t * np.log(p) + (1.0 - t) * np.log1p(-p)), dtype=np.float64)


def group_weights(s: ArrayLike, n_groups: int | None = None) -> NDArray[np.float64]:
    """Return the group normalisation ``|P| / (G |P_b|)`` of eq. (6) for every group ``b``.

    With two groups this is the paper's ``|P| / (2 |P_b|)``. A group absent from ``s`` gets
    weight 0 (it never contributes a reward).

    Parameters
    ----------
    s : array-like of int, shape (n,)
        Group codes ``0..G-1`` of the population the rewards are normalised over.
    n_groups : int or None, default=None
        ``G``; by default ``max(s) + 1``.

    Returns
    -------
    ndarray of shape (G,)

    Examples
    --------
    >>> group_weights([0, 1, 1, 1]).tolist()
    [2.0, 0.6666666666666666]
    """
    codes = np.asarray(s, dtype=np.int64)
    g = int(codes.max()) + 1 if n_groups is None else int(n_groups)
    counts = np.bincount(codes, minlength=g).astype(np.float64)
    with np.errstate(divide="ignore"):
        w = np.where(counts > 0, len(codes) / (g * np.maximum(counts, 1.0)), 0.0)
    return np.asarray(w, dtype=np.float64)


def adversary_loss(
    proba_s: ArrayLike,
    s: ArrayLike,
    *,
    kind: Literal["ce", "gnl1"] = "gnl1",
    weights: ArrayLike | None = None,
) -> NDArray[np.float64]:
    """Return the adversary's loss on each episode's final feature set (L_A in eq. 2).

    ``kind="ce"`` is the cross-entropy of eq. (5), ``-log P(b)``. ``kind="gnl1"`` is the
    group-normalised L1 of eq. (6), ``|P| / (2 |P_b|) * |g(O_T) - b|``; for ``G`` groups it
    generalises to ``|P| / (G |P_b|) * (1 - P(b))``, which equals half the L1 distance between
    the one-hot group and the predicted distribution and reduces to eq. (6) for two groups.

    Parameters
    ----------
    proba_s : array-like of shape (n,) or (n, G)
        The adversary's P(b=1), or its probability of every group.
    s : array-like of int, shape (n,)
        True group codes.
    kind : {"ce", "gnl1"}, default="gnl1"
        Which loss.
    weights : array-like of shape (G,) or None, default=None
        ``|P| / (G |P_b|)`` from :func:`group_weights` over the training population; needed
        for ``"gnl1"`` (ignored for ``"ce"``).

    Returns
    -------
    ndarray of shape (n,)

    Raises
    ------
    InvalidParameterError
        For an unknown ``kind`` or ``"gnl1"`` without ``weights``.

    Examples
    --------
    >>> adversary_loss([0.25, 0.25], [0, 1], kind="gnl1", weights=[1.0, 1.0]).tolist()
    [0.25, 0.75]
    """
    codes = np.asarray(s, dtype=np.int64)
    p = _group_proba(proba_s)
    p_true = p[np.arange(len(codes)), codes]
    if kind == "ce":
        return np.asarray(-np.log(np.clip(p_true, _EPS, 1.0)), dtype=np.float64)
    if kind == "gnl1":
        if weights is None:
            raise InvalidParameterError(
                "adversary_loss: kind='gnl1' needs the group weights |P|/(G|P_b|). Pass "
                "weights=group_weights(s_train)."
            )
        w = np.asarray(weights, dtype=np.float64)
        return np.asarray(w[codes] * (1.0 - p_true), dtype=np.float64)
    raise InvalidParameterError(
        f"adversary_loss: kind must be one of {REWARDS}. Got {kind!r} instead."
    )


def terminal_reward(
    proba_y: ArrayLike,
    y: ArrayLike,
    proba_s: ArrayLike,
    s: ArrayLike,
    *,
    gamma: float,
    kind: Literal["ce", "gnl1"] = "gnl1",
    weights: ArrayLike | None = None,
) -> NDArray[np.float64]:
    """Return eq. (2): ``-(1 - gamma) L_C + gamma L_A`` for each finished episode.

    Parameters
    ----------
    proba_y : array-like of shape (n,)
        The classifier's P(y=1) on each final feature set.
    y : array-like of shape (n,)
        True labels.
    proba_s : array-like of shape (n,) or (n, G)
        The adversary's output on each final feature set.
    s : array-like of shape (n,)
        True group codes.
    gamma : float
        Trade-off in [0, 1]: 0 rewards accuracy only, 1 fooling the adversary only.
    kind : {"ce", "gnl1"}, default="gnl1"
        The adversary loss (eq. 5 or eq. 6).
    weights : array-like of shape (G,) or None, default=None
        Group weights for ``"gnl1"`` (see :func:`group_weights`).

    Returns
    -------
    ndarray of shape (n,)

    Raises
    ------
    InvalidParameterError
        For ``gamma`` outside [0, 1] or an unknown ``kind``.

    Examples
    --------
    >>> r = terminal_reward([0.5], [1], [0.5], [0], gamma=0.5, kind="gnl1", weights=[1.0, 1.0])
    >>> r.round(4).tolist()
    [-0.0966]
    """
    if not 0.0 <= float(gamma) <= 1.0:
        raise InvalidParameterError(
            f"terminal_reward: gamma must be a float in [0, 1]. Got {gamma!r} instead."
        )
    lc = classifier_loss(proba_y, y)
    la = adversary_loss(proba_s, s, kind=kind, weights=weights)
    return np.asarray(-(1.0 - gamma) * lc + gamma * la, dtype=np.float64)
