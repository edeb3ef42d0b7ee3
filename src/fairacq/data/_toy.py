"""A small synthetic dataset with a real group disparity, for doctests and quick examples."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from fairacq._random import RandomState, as_generator
from fairacq._validation import Interval, validate_parameter_constraints
from fairacq.data._dataset import FairDataset
from fairacq.exceptions import InvalidParameterError

__all__ = ["load_toy"]

_REGIONS = ("north", "south", "west")


def load_toy(n: int = 200, *, n_groups: int = 2, random_state: RandomState = 0) -> FairDataset:
    """Build a small fixed synthetic dataset with a real group disparity.

    Not from a paper: the shared example of the documentation and the doctests. Groups
    ``g0`` (privileged), ``g1``, ... have decreasing sizes (proportional to ``G, G-1, ..., 1``)
    and decreasing base rates (0.6 for ``g0`` down to 0.3 for the last group), fixed exactly,
    not sampled. Features given the label ``y`` and the group ``g``:

    - ``x1``, ``x2``: informative, ``N(0.8 y, 1)`` and ``N(0.5 y - 0.3 g, 1)``;
    - ``x3``: a group proxy, ``N(g, 1)``;
    - ``x4``: pure noise, ``N(0, 1)``;
    - ``region`` in {north, south, west}: a categorical proxy of the group, one-hot encoded as
      ``region=north``, ``region=south``, ``region=west`` and bought together
      (``feature_groups["region"]``).

    Parameters
    ----------
    n : int, default=200
        Number of rows; at least ``10 * n_groups``.
    n_groups : int, default=2
        Number of groups, 2 to 6.
    random_state : int, numpy.random.Generator or None, default=0
        Seed; the default makes the toy data identical on every call.

    Returns
    -------
    FairDataset
        Named ``"toy"``, sensitive attribute ``group``, privileged group ``"g0"``,
        favourable label 1.

    Raises
    ------
    InvalidParameterError
        For ``n_groups`` outside 2..6 or ``n < 10 * n_groups``.

    Examples
    --------
    >>> toy = load_toy()
    >>> toy.group_names, toy.group_sizes().tolist(), toy.base_rates().round(2).tolist()
    (('g0', 'g1'), [133, 67], [0.6, 0.3])
    >>> toy.feature_groups["region"]
    ['region=north', 'region=south', 'region=west']
    """
    validate_parameter_constraints(
        {
            "n": [Interval(int, 1, None, closed="left")],
            "n_groups": [Interval(int, 2, 6)],
            "random_state": ["random_state"],
        },
        {"n": n, "n_groups": n_groups, "random_state": random_state},
        "load_toy",
    )
    if n < 10 * n_groups:
        raise InvalidParameterError(
            f"load_toy: n={n} is too small for {n_groups} groups. Pass n >= {10 * n_groups}."
        )
    rng = as_generator(random_state)
    weights = np.arange(n_groups, 0, -1, dtype=np.float64)
    sizes = _apportion(n, weights / weights.sum())
    rates = np.linspace(0.6, 0.3, n_groups)
    g = np.repeat(np.arange(n_groups), sizes)
    y = np.zeros(n, dtype=np.int64)
    start = 0
    for size, rate in zip(sizes, rates, strict=True):
        n_pos = min(max(round(rate * size), 1), size - 1)
        y[start : start + n_pos] = 1
        start += size
    order = rng.permutation(n)
    g, y = g[order], y[order]
    noise = rng.standard_normal((n, 4))
    X = pd.DataFrame(
        {
            "x1": 0.8 * y + noise[:, 0],
            "x2": 0.5 * y - 0.3 * g + noise[:, 1],
            "x3": g + noise[:, 2],
            "x4": noise[:, 3],
        }
    )
    # region: group g leans towards region g mod 3 (probability 0.6), labels lean to "north"
    lean = np.full((n, len(_REGIONS)), 0.2)
    lean[np.arange(n), g % len(_REGIONS)] = 0.6
    lean[:, 0] += 0.2 * y
    lean /= lean.sum(axis=1, keepdims=True)
    region = (rng.random(n)[:, None] > np.cumsum(lean, axis=1)).sum(axis=1)
    region = np.minimum(region, len(_REGIONS) - 1)
    one_hot = [f"region={r}" for r in _REGIONS]
    for k, col in enumerate(one_hot):
        X[col] = (region == k).astype(np.float64)
    names = np.array([f"g{k}" for k in range(n_groups)], dtype=object)
    return FairDataset(
        X,
        y,
        pd.DataFrame({"group": names[g]}),
        feature_groups={"x1": ["x1"], "x2": ["x2"], "x3": ["x3"], "x4": ["x4"], "region": one_hot},
        privileged="g0",
        name="toy",
        metadata={
            "source": "synthetic (fairacq.data.load_toy)",
            "favourable_label": 1,
            "licence": "generated data, no restriction",
            "base_rates": [float(r) for r in rates],
        },
    )


def _apportion(n: int, shares: np.ndarray[Any, np.dtype[np.float64]]) -> list[int]:
    """Split ``n`` into integer parts proportional to ``shares`` (largest remainder)."""
    raw = shares * n
    counts = np.floor(raw).astype(np.int64)
    remainder = n - int(counts.sum())
    counts[np.argsort(-(raw - counts), kind="stable")[:remainder]] += 1
    return [int(c) for c in counts]
