"""Slice Tuner's learning curves: per-slice losses on training subsets, power-law fits.

Tae & Whang, "Slice Tuner: A Selective Data Acquisition Framework for Accurate and Fair
Machine Learning Models", SIGMOD 2021, §3 (learning curve estimation).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import NDArray

from fairacq.sampling.learners._learners import RoundLearner
from fairacq.sampling.loop._sampling_loop import measure_groups

__all__ = ["curve_points", "fit_power_law", "fit_slice_curve", "power_law", "subset_sizes"]

#: Exponent of the fallback curve when a slice has too few points to fit (``n ** -1/2``).
FALLBACK_EXPONENT = 0.5

Arrays = tuple[NDArray[np.float64], NDArray[np.int64]]


def power_law(n: NDArray[np.float64], a: float, b: float) -> NDArray[np.float64]:
    """Return the learning curve ``b * n ** -a`` (§3: loss against training size)."""
    out: NDArray[np.float64] = b * np.power(n, -a)
    return out


def fit_power_law(sizes: Sequence[float], losses: Sequence[float]) -> tuple[float, float] | None:
    """Fit ``loss = b * n ** -a`` with ``a, b >= 0`` to points of one slice (§3).

    Weighted least squares with standard deviation ``1 / sqrt(n)`` per point, as the authors'
    code does (larger subsets give steadier losses), started from the line through the points
    in log-log space. Points with ``n <= 0`` or a non-finite loss are dropped.

    Returns
    -------
    (a, b) or None
        None when fewer than two distinct sizes are left.

    Examples
    --------
    >>> n = np.array([10.0, 20.0, 40.0, 80.0])
    >>> a, b = fit_power_law(n, 2.0 * n ** -0.5)
    >>> round(a, 6), round(b, 6)
    (0.5, 2.0)
    """
    from scipy.optimize import OptimizeWarning, curve_fit

    n, loss = np.asarray(sizes, dtype=np.float64), np.asarray(losses, dtype=np.float64)
    keep = (n > 0) & np.isfinite(loss)
    n, loss = n[keep], loss[keep]
    if np.unique(n).size < 2:
        return None
    slope, intercept = np.polyfit(np.log(n), np.log(np.clip(loss, 1e-6, None)), 1)
    start = (max(-float(slope), 1e-3), max(float(np.exp(intercept)), 1e-6))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OptimizeWarning)
            params, _ = curve_fit(
                power_law,
                n,
                loss,
                p0=start,
                sigma=1.0 / np.sqrt(n),
                absolute_sigma=True,
                bounds=([0.0, 0.0], [np.inf, np.inf]),
                maxfev=5000,
            )
    except (RuntimeError, ValueError):  # no convergence: keep the log-log line
        return start
    return float(params[0]), float(params[1])


def fit_slice_curve(sizes: Sequence[float], losses: Sequence[float]) -> tuple[float, float]:
    """Return a slice's ``(a, b)``: the fit, or a fallback curve through its mean point.

    Too few points to fit (a slice seen at one size only) give the curve with exponent
    :data:`FALLBACK_EXPONENT` through the mean size and mean loss, so the slice still has a
    decreasing curve in the allocation (fairacq's choice; the authors always had enough data).
    """
    fitted = fit_power_law(sizes, losses)
    if fitted is not None:
        return fitted
    n, loss = np.asarray(sizes, dtype=np.float64), np.asarray(losses, dtype=np.float64)
    keep = (n > 0) & np.isfinite(loss)
    if not keep.any():
        return FALLBACK_EXPONENT, 1.0
    mean_n, mean_loss = float(np.mean(n[keep])), float(np.mean(loss[keep]))
    return FALLBACK_EXPONENT, mean_loss * mean_n**FALLBACK_EXPONENT


def subset_sizes(n_rows: int, n_subsets: int, smallest: int) -> NDArray[np.int64]:
    """Return the training-subset sizes of the curves: ``n_subsets`` evenly spaced up to all.

    The authors' code spaces ``k`` sizes evenly from ``initial_k`` (100 on Adult, 200 on
    images) to the whole training set; a training set smaller than that starts at
    ``n_rows // n_subsets`` (at least 1). Repeated sizes are dropped.

    Examples
    --------
    >>> subset_sizes(1000, 4, 100).tolist()
    [100, 400, 700, 1000]
    >>> subset_sizes(20, 10, 100).tolist()
    [2, 4, 6, 8, 10, 12, 14, 16, 18, 20]
    """
    start = min(smallest, max(1, n_rows // n_subsets))
    sizes = np.rint(np.linspace(start, n_rows, n_subsets)).astype(np.int64)
    return np.unique(sizes[sizes >= 1])


def curve_points(
    training: tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]],
    validation: list[Arrays],
    sizes: NDArray[np.int64],
    *,
    make_learner: Callable[[int], RoundLearner],
    loss: str,
    n_repeats: int,
    rng: np.random.Generator,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Train on random subsets of each size; return each slice's sizes and validation losses.

    For each of ``n_repeats`` random orders of the training rows and each size ``k``, a fresh
    learner (``make_learner(seed)``) is trained on the first ``k`` rows, and every slice's
    loss on its validation set is measured (the authors train on subsets of the whole
    training set, so a slice's size in a subset follows the current mixture). Sizes and
    losses are averaged over the repeats (their ``num_iter``).

    Returns
    -------
    slice_sizes, losses : ndarray of shape (n_groups, len(sizes))
    """
    X, y, z = training
    m = len(validation)
    slice_sizes = np.zeros((m, len(sizes)))
    losses = np.zeros((m, len(sizes)))
    for _ in range(n_repeats):
        order = rng.permutation(len(y))
        for j, k in enumerate(sizes):
            rows = order[:k]
            seed = int(rng.integers(2**31))
            learner = make_learner(seed)
            learner.update(X[rows], y[rows], seed)
            measured = measure_groups(learner, validation, loss)
            slice_sizes[:, j] += np.bincount(z[rows], minlength=m)
            losses[:, j] += [value for value, _ in measured]
    return slice_sizes / n_repeats, losses / n_repeats
