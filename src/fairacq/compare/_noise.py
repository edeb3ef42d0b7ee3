"""When a gap target is within what an exactly fair rule measures on the test rows by chance.

A rule whose groups' rates are exactly equal still measures a gap on a finite test split
(:func:`fairacq.metrics.gap_noise_floor`). Each seed's baseline record keeps that floor for
its test rows (the demographic parity gap: every test row; the equal opportunity gap: the
test rows whose label is positive), at the baseline's own share of positive predictions.
A target below about the floor's mean plus one std is met or missed mostly by the luck of
the split, and the comparison says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from fairacq.compare._target import Target
from fairacq.data import FairDataset
from fairacq.metrics import gap_noise_floor

__all__ = ["floor_warning", "seed_floor", "summarise_floor"]

#: The gaps whose floor is known, and whether they are measured on the positive rows only.
_ON_POSITIVES = {"demographic_parity_diff_abs": False, "equal_opportunity_diff": True}
_KEYS = ("gap_floor", "gap_floor_std", "gap_floor_rows", "gap_floor_rate")


def seed_floor(y_pred: ArrayLike, test: FairDataset, metric: str) -> dict[str, float]:
    """Return the floor of ``metric`` on one seed's test rows, at ``y_pred``'s rate.

    Empty for a metric without a known floor, or when fewer than two groups have a row the
    gap is measured on.
    """
    if metric not in _ON_POSITIVES:
        return {}
    rows = np.asarray(test.y) == 1 if _ON_POSITIVES[metric] else np.ones(len(test), bool)
    sizes = np.bincount(np.asarray(test.s, dtype=np.int64)[rows])
    sizes = sizes[sizes > 0]
    if sizes.size < 2:
        return {}
    rate = float(np.mean(np.asarray(y_pred, dtype=np.float64)[rows]))
    mean, std = gap_noise_floor(sizes.tolist(), rate)
    return dict(zip(_KEYS, (mean, std, float(rows.sum()), rate), strict=True))


def summarise_floor(records: Sequence[Mapping[str, Any]], baseline: str) -> dict[str, Any] | None:
    """Return the baseline's floor averaged over seeds, or None when no record holds one.

    Keys: ``mean`` and ``std`` (of the gap an exactly fair rule shows), ``test_rows`` (the
    rows the gap is measured on), ``rate`` (the baseline's share of positive predictions on
    them) and ``seeds``.
    """
    found = [r for r in records if r["method"] == baseline and "gap_floor" in r]
    if not found:
        return None
    mean, std, rows, rate = (float(np.mean([r[k] for r in found])) for k in _KEYS)
    return {"mean": mean, "std": std, "test_rows": rows, "rate": rate, "seeds": len(found)}


def floor_warning(
    target: Target, floor: Mapping[str, Any] | None, *, baseline: str, question: str
) -> str | None:
    """Return the warning for a gap target below the floor's mean plus one std, else None."""
    if floor is None or not target.lower_is_better:
        return None
    if target.value >= floor["mean"] + floor["std"]:
        return None
    rows = f"{round(floor['test_rows']):,} test rows"
    if _ON_POSITIVES.get(target.metric):
        rows += " whose label is positive"
    more = "more test rows (--test-fraction)" if question == "groups" else "a larger table"
    return (
        f"the target {target} is within the gap a rule that is exactly fair shows on {rows} "
        f"(about {floor['mean']:.3f} ± {floor['std']:.3f} when {floor['rate']:.0%} of them "
        f"are selected, the share the '{baseline}' model selects): meeting it is mostly luck "
        f"of the split; use {more} or a looser target."
    )
