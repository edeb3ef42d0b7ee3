"""Strategies that gave the very same results: shown once, the others pointing to it.

Two strategies are the same here when, on every seed, their cost and every metric measured
on the test rows are equal (e.g. two acquisition methods that bought the same rows).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["same_results"]


def _signature(mine: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> tuple[Any, ...]:
    """Each seed's cost and metrics, in seed order (NaN compared by its text)."""
    ordered = sorted(mine, key=lambda r: int(r["seed"]))
    return tuple((int(r["seed"]), *(repr(float(r[k])) for k in ("cost", *keys))) for r in ordered)


def same_results(records: Sequence[Mapping[str, Any]], metrics: Sequence[str]) -> dict[str, str]:
    """Return ``{strategy: the first strategy with identical results}`` for each repeat.

    Parameters
    ----------
    records : sequence of mapping
        One per run (``method``, ``seed``, ``cost`` and the metrics).
    metrics : sequence of str
        The metrics compared (with the cost), seed by seed.

    Returns
    -------
    dict of str to str
        Only the repeats; the strategy first seen in ``records`` is the one they point to.

    Examples
    --------
    >>> runs = [{"method": m, "seed": 0, "cost": 5.0, "accuracy": a}
    ...         for m, a in [("entropy", 0.8), ("fal", 0.8), ("random", 0.7)]]
    >>> same_results(runs, ["accuracy"])
    {'fal': 'entropy'}
    """
    first: dict[tuple[Any, ...], str] = {}
    repeats: dict[str, str] = {}
    for method in dict.fromkeys(str(r["method"]) for r in records):
        mine = [r for r in records if r["method"] == method]
        signature = _signature(mine, metrics)
        if signature in first:
            repeats[method] = first[signature]
        else:
            first[signature] = method
    return repeats
