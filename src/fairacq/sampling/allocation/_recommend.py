"""One allocation from many trials: the median count per group, rounded to the budget.

A sampler's counts differ from trial to trial (each trial has its own split and draws), so
the user is given one count per group to act on: the median over trials, with the range the
middle 80 % of trials fell in (10th to 90th percentile). The medians need not add up to the
budget; they are scaled to it and rounded by the largest-remainder rule, never above the
largest count any trial drew from that group.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["INTERVAL_PERCENTILES", "RecommendedCounts", "largest_remainder", "recommend_counts"]

#: The percentiles over trials that bound each group's count interval.
INTERVAL_PERCENTILES = (10.0, 90.0)


@dataclass(frozen=True)
class RecommendedCounts:
    """One count per group to act on, with the spread over trials.

    Attributes
    ----------
    counts : ndarray of int
        The recommended count per group; sums to the budget.
    low, high : ndarray of int
        The 10th percentile (rounded down) and 90th percentile (rounded up) of each group's
        count over trials.
    median : ndarray of float
        Each group's median count over trials, before rounding.
    rounded : bool
        Whether the medians had to be scaled or rounded to add up to the budget.
    """

    counts: NDArray[np.int64]
    low: NDArray[np.int64]
    high: NDArray[np.int64]
    median: NDArray[np.float64]
    rounded: bool


def largest_remainder(
    weights: ArrayLike, total: int, *, caps: ArrayLike | None = None
) -> NDArray[np.int64]:
    """Split ``total`` into integers proportional to ``weights`` (largest-remainder rule).

    Each part gets the floor of its quota ``total * w / sum(w)``; the units left go, one each,
    to the largest fractional parts (ties: the first part). With ``caps``, no part exceeds its
    cap: the excess is shared among the parts below their cap, in proportion to their weights.

    Parameters
    ----------
    weights : array-like of float
        Non-negative weights; all zero means equal weights.
    total : int
        What the parts add up to.
    caps : array-like of int or None, default=None
        Upper bound of each part; must add up to at least ``total``.

    Returns
    -------
    ndarray of int
        The parts, summing to ``total``.

    Examples
    --------
    >>> largest_remainder([1, 1, 1], 10).tolist()
    [4, 3, 3]
    >>> largest_remainder([5, 1], 6, caps=[4, 6]).tolist()
    [4, 2]
    """
    w = np.asarray(weights, dtype=np.float64)
    cap = np.full(w.size, total) if caps is None else np.asarray(caps, dtype=np.int64)
    w = np.ones_like(w) if w.sum() <= 0 else w
    parts = np.zeros(w.size, dtype=np.int64)
    free = parts < cap
    while parts.sum() < total and free.any():
        left = total - int(parts.sum())
        quota = left * np.where(free, w, 0.0) / (np.where(free, w, 0.0).sum() or 1.0)
        if not quota.any():
            quota = np.where(free, left / free.sum(), 0.0)
        add = np.floor(quota).astype(np.int64)
        order = np.argsort(-(quota - add), kind="stable")
        add[order[: left - int(add.sum())]] += 1
        parts = np.minimum(parts + add, cap)
        free = parts < cap
    return parts


def recommend_counts(per_trial: ArrayLike, budget: int) -> RecommendedCounts:
    """Return one count per group from the counts of every trial.

    The recommended count of a group is its median over trials. When the medians do not add
    up to ``budget``, they are scaled to it and rounded by :func:`largest_remainder`, no group
    above the largest count a trial drew from it (so never above the rows it has).

    Parameters
    ----------
    per_trial : array-like of shape (n_trials, n_groups)
        The samples each trial drew from each group.
    budget : int
        What the recommended counts add up to.

    Returns
    -------
    RecommendedCounts

    Examples
    --------
    >>> rec = recommend_counts([[100, 30, 20], [18, 64, 68], [18, 80, 52]], 150)
    >>> rec.counts.tolist(), rec.low.tolist(), rec.high.tolist(), rec.rounded
    ([20, 72, 58], [18, 36, 26], [84, 77, 65], True)
    """
    counts = np.asarray(per_trial, dtype=np.float64)
    median = np.median(counts, axis=0)
    low, high = np.percentile(counts, INTERVAL_PERCENTILES, axis=0)
    caps = counts.max(axis=0).astype(np.int64)
    rounded = bool(median.sum() != budget or np.any(median != np.round(median)))
    if rounded and caps.sum() >= budget:
        recommended = largest_remainder(median, budget, caps=caps)
    else:
        recommended = np.round(median).astype(np.int64)
    return RecommendedCounts(
        counts=recommended,
        low=np.floor(low).astype(np.int64),
        high=np.ceil(high).astype(np.int64),
        median=median,
        rounded=rounded,
    )
