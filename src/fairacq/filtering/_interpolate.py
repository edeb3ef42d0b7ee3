"""The interpolation post-processing of Deng et al., App. A.1.1 (traces the naive/QP curves).

With probability ``eta`` a candidate's proxy value is replaced by a uniformly drawn value of
the proxy's range, then Algorithm 2 admits with the proxy's own ``rho``. ``eta = 0`` is the
proxy itself and ``eta = 1`` admits independently of the group (alpha = 0). The joint law of
post-processed value and group is ``(1 - eta) r_j A[j, i] + eta / l * Pr[z = i]``, so alpha
and beta follow in closed form, in-sample.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from fairacq.exceptions import InvalidParameterError
from fairacq.filtering._intersect import (
    intersecting_disclosivity_from_matrix,
    intersecting_imbalance_from_matrix,
)
from fairacq.metrics import (
    disclosivity_from_matrix,
    expected_acceptance_rate,
    imbalance_from_matrix,
)

__all__ = ["interpolation_curve"]


def interpolation_curve(
    A: ArrayLike,
    proxy_marginal: ArrayLike,
    rho: ArrayLike,
    *,
    etas: Sequence[float] = tuple(np.round(np.arange(0.0, 1.01, 0.1), 10)),
    target: ArrayLike | None = None,
    group_sizes: Sequence[int] | None = None,
) -> pd.DataFrame:
    """Return alpha, beta and the acceptance rate of the post-processed proxy for each eta.

    Implements App. A.1.1 of Deng et al.: relabel with probability ``eta`` to a uniform value
    of the proxy's range (all ``l`` rows of ``A``), then sample with Algorithm 2 and the
    unchanged ``rho``. Alpha is measured on the post-processed values (Definition 5).

    Parameters
    ----------
    A : array-like of shape (l, K)
        In-sample conditional distribution matrix of the proxy.
    proxy_marginal : array-like of shape (l,)
        In-sample proxy marginal; sums to 1.
    rho : array-like of shape (l,)
        Admission probabilities, in [0, 1].
    etas : sequence of float, default=(0, 0.1, ..., 1)
        Relabelling probabilities, each in [0, 1] (the paper's grid by default).
    target : array-like of shape (K,) or None, default=None
        Target distribution for beta; None is uniform (``U_intersect`` with classes).
    group_sizes : sequence of int or None, default=None
        Intersecting group classes (App. A.2): groups per class, in the column order of
        the concatenated ``A``. None is the disjoint case.

    Returns
    -------
    pandas.DataFrame
        Columns ``eta``, ``alpha``, ``beta``, ``acceptance_rate``; one row per eta.

    Raises
    ------
    InvalidParameterError
        If an eta lies outside [0, 1].
    InvalidDataError
        On a malformed ``A``, marginal, ``rho`` or target.

    Examples
    --------
    >>> curve = interpolation_curve([[1.0, 0.0], [0.0, 1.0]], [0.8, 0.2], [0.25, 1.0])
    >>> curve[["eta", "alpha"]].round(3).values.tolist()[::10]
    [[0.0, 0.8], [1.0, 0.0]]
    """
    mat = np.asarray(A, dtype=np.float64)
    r_hat = np.asarray(proxy_marginal, dtype=np.float64)
    admit = np.asarray(rho, dtype=np.float64)
    n_values = mat.shape[0] if mat.ndim == 2 else 0
    rows = []
    for eta in etas:
        if not 0.0 <= float(eta) <= 1.0:
            raise InvalidParameterError(
                f"interpolation_curve: every eta must lie in [0, 1]. Got {eta!r}."
            )
        prior = r_hat @ mat
        joint = (1 - eta) * r_hat[:, None] * mat + eta / n_values * prior[None, :]
        # Each class block of a row carries the row's whole mass: sum the first block only.
        r_new = joint.sum(axis=1) if group_sizes is None else joint[:, : group_sizes[0]].sum(1)
        safe = np.where(r_new > 0, r_new, 1.0)
        A_new = np.where(r_new[:, None] > 0, joint / safe[:, None], prior[None, :])
        if group_sizes is None:
            alpha = disclosivity_from_matrix(A_new, r_new)
            beta = imbalance_from_matrix(A_new, r_new, admit, target=target)
        else:
            alpha = intersecting_disclosivity_from_matrix(A_new, r_new, group_sizes)
            beta = intersecting_imbalance_from_matrix(
                A_new, r_new, admit, group_sizes, target=target
            )
        rows.append(
            {
                "eta": float(eta),
                "alpha": alpha,
                "beta": beta,
                "acceptance_rate": expected_acceptance_rate(r_new, admit),
            }
        )
    return pd.DataFrame(rows)
