"""The Mann-Kendall trend term of Aopt+ (Shekhar et al., §4, eq. 6)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from fairacq._deps import require

__all__ = ["mann_kendall_score"]


def mann_kendall_score(series: Sequence[float], *, window: int = 10) -> float:
    """Return ``S / sqrt(var S)`` of the last ``window`` values of ``series``.

    ``S = sum_{i<j} sgn(X_j - X_i)`` is the Mann-Kendall statistic (Mann 1945, Kendall 1948)
    and ``var S`` its variance under "no trend" with the tie correction, both from
    ``pymannkendall.original_test``. Aopt+ (Shekhar et al., eq. 6) applies it to each group's
    validation accuracy over rounds, so a rising accuracy gives a positive term. Fewer than
    three values, or a zero variance (all values tied), give 0.

    Parameters
    ----------
    series : sequence of float
        The values in time order (oldest first).
    window : int, default=10
        How many of the most recent values enter the statistic (the paper leaves it open; see
        ``docs/paper-notes/aopt.md``).

    Returns
    -------
    float

    Raises
    ------
    MissingDependencyError
        If ``pymannkendall`` is not installed.

    Examples
    --------
    >>> mann_kendall_score([0.5, 0.6, 0.7, 0.8]) > 0
    True
    """
    values = np.asarray(list(series)[-window:], dtype=np.float64)
    values = values[np.isfinite(values)]  # rounds before a group had validation data
    if values.size < 3 or np.ptp(values) == 0.0:
        return 0.0
    mk = require("pymannkendall", purpose="the Aopt+ trend term")
    result = mk.original_test(values)
    var_s = float(result.var_s)
    if not var_s > 0.0:
        return 0.0
    return float(result.s) / math.sqrt(var_s)
