"""The gap an exactly fair rule still shows on a finite set of rows.

A rule whose groups' rates are exactly equal still measures a gap on a finite split: each
group's share is ``Binomial(n_g, rate) / n_g``, and the largest minus the smallest share is
not 0. Two groups: the difference of the shares is about normal with variance
``rate (1 - rate) (1 / n_a + 1 / n_b)``, so the gap is half-normal, with mean
``sigma sqrt(2 / pi)`` and std ``sigma sqrt(1 - 2 / pi)``. More groups: the range (max - min)
of independent normals with variances ``rate (1 - rate) / n_g``, read off a fixed-seed
simulation (deterministic; about 0.2 % relative error). A measured gap within this floor
says nothing about the rule's fairness.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from fairacq.exceptions import InvalidParameterError

__all__ = ["gap_noise_floor"]

#: Draws of the simulation for more than two groups, and its fixed seed.
_DRAWS = 200_000
_CELLS = 1_000_000
_SEED = 20_240_601


def _check(group_sizes: Sequence[float], rate: float) -> np.ndarray:
    sizes = np.asarray(group_sizes, dtype=np.float64).ravel()
    if sizes.size < 2:
        raise InvalidParameterError(
            f"gap_noise_floor: a gap needs at least two groups, got {sizes.size} group size(s). "
            "Pass one size per group."
        )
    bad = [float(n) for n in sizes if not (n >= 1 and math.isfinite(n))]
    if bad:
        raise InvalidParameterError(
            f"gap_noise_floor: every group needs at least one row, got a group size of "
            f"{bad[0]:g}. Leave out empty groups."
        )
    if not 0.0 <= rate <= 1.0:  # NaN fails too
        raise InvalidParameterError(
            f"gap_noise_floor: rate is a share of rows in [0, 1], got {rate}. Pass e.g. 0.5 "
            "(the worst case)."
        )
    return sizes


def _range_of_normals(sigmas: np.ndarray) -> tuple[float, float]:
    """Mean and std of max - min of independent zero-mean normals (fixed-seed simulation)."""
    rng = np.random.default_rng(_SEED)
    rows = max(1, _CELLS // sigmas.size)  # draws a chunk: a few MB whatever the groups
    chunks = [
        np.ptp(rng.standard_normal((min(rows, _DRAWS - start), sigmas.size)) * sigmas, axis=1)
        for start in range(0, _DRAWS, rows)
    ]
    ranges = np.concatenate(chunks)
    return float(ranges.mean()), float(ranges.std())


def gap_noise_floor(group_sizes: Sequence[float], rate: float) -> tuple[float, float]:
    """Return the mean and std of the gap an exactly fair rule shows on a finite split.

    Each group's share of selected rows is ``Binomial(n_g, rate) / n_g``, with the same
    ``rate`` in every group; the gap measured is the largest share minus the smallest (as
    :func:`demographic_parity_diff_abs` measures it). Two groups: the closed form of a
    half-normal, mean ``sigma sqrt(2 / pi)`` and std ``sigma sqrt(1 - 2 / pi)`` with
    ``sigma**2 = rate (1 - rate) (1 / n_a + 1 / n_b)``. More groups: the range of independent
    normals with variances ``rate (1 - rate) / n_g``, from a fixed-seed simulation of 200,000
    draws (the same numbers on every call; about 0.2 % relative error). A target below about
    the mean plus one std is met or missed mostly by the luck of the split. For the equal
    opportunity gap pass each group's positive rows and the true positive rate.

    Parameters
    ----------
    group_sizes : sequence of int
        Rows of each group in the split (at least two groups, each with at least one row).
    rate : float
        The share of rows the rule selects in every group, in [0, 1]; 0.5 is the worst case.

    Returns
    -------
    tuple of float
        The mean and the standard deviation of the measured gap (both 0 when ``rate`` is 0
        or 1).

    Raises
    ------
    InvalidParameterError
        For fewer than two groups, a group with no row, or a rate outside [0, 1].

    Examples
    --------
    >>> [round(v, 4) for v in gap_noise_floor([908, 601], 0.5)]
    [0.021, 0.0158]
    >>> [round(v, 3) for v in gap_noise_floor([500, 500, 500, 500], 0.5)]
    [0.046, 0.02]
    """
    sizes = _check(group_sizes, float(rate))
    variance = rate * (1.0 - rate) / sizes
    if sizes.size > 2:
        return _range_of_normals(np.sqrt(variance))
    sigma = math.sqrt(float(variance.sum()))
    return sigma * math.sqrt(2.0 / math.pi), sigma * math.sqrt(1.0 - 2.0 / math.pi)
