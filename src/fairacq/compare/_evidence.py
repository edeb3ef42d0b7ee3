"""How sure a comparison can be: an interval on each seed count, and when the seeds are few.

A strategy that met the target in ``k`` of ``n`` seeds comes with the 95 % Wilson score
interval of the share of seeds it would meet it in; two or three seeds give a wide one. The
recommended strategy is "ahead" of the runner-up when, on cost, the fairness metric or
accuracy, it is better by more than the larger of the two spreads over seeds (standard
deviations); otherwise, or with fewer than three seeds, the evidence is thin and
:func:`weigh_evidence` says about how many seeds would settle the choice.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["MAX_SEEDS", "Evidence", "seeds_to_separate", "share_interval", "weigh_evidence"]

#: The normal quantile of a two-sided 95 % interval.
_Z95 = 1.959963984540054
#: Fewer seeds than this are thin evidence whatever the numbers say.
_MIN_SEEDS = 3
#: The most seeds :func:`seeds_to_separate` asks for (beyond it: "too close to separate").
MAX_SEEDS = 50


def share_interval(k: int, n: int) -> tuple[float, float]:
    """Return the 95 % Wilson score interval of a share observed as ``k`` of ``n``.

    The Wilson interval (Wilson 1927; ``scipy.stats.binomtest(k, n).proportion_ci(method=
    "wilson")`` gives the same) stays inside [0, 1] and is sensible for the few seeds a
    comparison runs, where the plain ``p ± z·se`` interval collapses to a point at 0/n or n/n.

    Parameters
    ----------
    k : int
        Seeds meeting the target.
    n : int
        Seeds run; with none the interval is [0, 1].

    Returns
    -------
    tuple of float
        The lower and upper bound.

    Examples
    --------
    >>> [round(b, 3) for b in share_interval(3, 3)]
    [0.439, 1.0]
    """
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    z2 = _Z95 * _Z95
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = _Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator
    low = 0.0 if k <= 0 else max(0.0, centre - half)
    return low, 1.0 if k >= n else min(1.0, centre + half)


def seeds_to_separate(diff: float, sd_a: float, sd_b: float) -> int:
    """Return about how many seeds make a difference of means ``diff`` stand out of the noise.

    Over ``n`` seeds the difference of two means has standard error
    ``sd_diff / sqrt(n)`` with ``sd_diff = sqrt(sd_a**2 + sd_b**2)`` (the seeds of the two
    strategies taken as independent). The difference is settled at 95 % when
    ``z * sd_diff / sqrt(n) < |diff|``, that is ``n > (z * sd_diff / diff) ** 2``. Returns
    that ``n`` rounded up, at least 3 (one or two seeds measure no spread) and at most
    :data:`MAX_SEEDS` (a zero difference never settles).

    Examples
    --------
    >>> seeds_to_separate(0.01, 0.02, 0.02)
    31
    >>> seeds_to_separate(0.0, 0.01, 0.01)
    50
    """
    sd_diff = math.hypot(sd_a, sd_b)
    if not math.isfinite(diff) or not math.isfinite(sd_diff):
        return MAX_SEEDS
    if abs(diff) < 1e-12:
        return MAX_SEEDS if sd_diff > 0 else _MIN_SEEDS
    needed = math.ceil((_Z95 * sd_diff / abs(diff)) ** 2)
    return min(MAX_SEEDS, max(_MIN_SEEDS, needed))


@dataclass(frozen=True)
class Evidence:
    """Whether the seeds support the recommendation over its runner-up.

    Attributes
    ----------
    thin : bool
        Fewer than three seeds, or the recommended strategy is not ahead of the runner-up by
        more than the seeds' spread on cost, the fairness metric or accuracy.
    seeds_needed : int or None
        When thin: about how many seeds would settle it (:func:`seeds_to_separate`).
    runner_up : str or None
        The strategy it was weighed against.
    """

    thin: bool
    seeds_needed: int | None = None
    runner_up: str | None = None


def _axes(metric: str, lower_is_better: bool) -> tuple[tuple[str, bool], ...]:
    return (("cost", True), (metric, lower_is_better), ("accuracy", False))


def weigh_evidence(
    chosen: Mapping[str, Any],
    runner_up: Mapping[str, Any] | None,
    *,
    metric: str,
    lower_is_better: bool,
) -> Evidence:
    """Weigh the recommended strategy's row against the runner-up's (mean and std per axis).

    Parameters
    ----------
    chosen, runner_up : mapping
        Rows of :func:`fairacq.compare.strategy_table` (``seeds``, ``cost``, ``accuracy``,
        ``metric`` and their ``_std``); no runner-up when only one strategy ran.
    metric : str
        The fairness metric (the target's).
    lower_is_better : bool
        Its direction.

    Returns
    -------
    Evidence
        Thin when ``chosen`` ran on fewer than three seeds or is better on no axis by more
        than the larger spread. ``seeds_needed`` is the fewest seeds that would settle the
        axis easiest to settle (among those with a spread), and more than were run.
    """
    n = int(chosen["seeds"])
    name = None if runner_up is None else str(runner_up["method"])
    if runner_up is None:
        return Evidence(n < _MIN_SEEDS, _MIN_SEEDS if n < _MIN_SEEDS else None, None)
    ahead, needed = False, None
    for key, lower in _axes(metric, lower_is_better):
        sd_a, sd_b = _std(chosen, key), _std(runner_up, key)
        a, b = float(chosen[key]), float(runner_up[key])
        better = (b - a) if lower else (a - b)
        ahead = ahead or better > max(sd_a, sd_b)
        if abs(better) > 0 and max(sd_a, sd_b) > 0:  # an axis more seeds can settle
            axis = seeds_to_separate(better, sd_a, sd_b)
            needed = axis if needed is None else min(needed, axis)
    if n >= _MIN_SEEDS and ahead:
        return Evidence(False, None, name)
    if needed is None:  # no spread measured (one seed), or nothing differs
        needed = _MIN_SEEDS if n < _MIN_SEEDS else MAX_SEEDS
    return Evidence(True, max(needed, n + 1, _MIN_SEEDS), name)


def _std(row: Mapping[str, Any], key: str) -> float:
    value = float(row.get(f"{key}_std", 0.0))
    return 0.0 if math.isnan(value) else value
