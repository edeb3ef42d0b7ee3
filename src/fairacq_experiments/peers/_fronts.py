"""Accuracy-fairness fronts: a method's knob swept, compared with another's at matched accuracy.

A front is the (mean accuracy, mean |DP|) points of one method's settings. What a front
reaches at accuracy ``a`` is the lowest |DP| of its points with accuracy at least ``a``, or
of a coin between two of its points that straddle ``a``: predicting with the first model at
probability ``1 - w`` and the second at ``w`` has accuracy ``(1 - w) a1 + w a2`` and a
demographic-parity gap of at most ``(1 - w) dp1 + w dp2`` (the signed gaps mix linearly;
the absolute value of a mix is at most the mix of absolute values). So the reading is
achievable, and conservative for the front read.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fairacq_experiments._framework.verdict import Verdict

__all__ = ["FrontPoint", "front_verdict", "reach_at"]


@dataclass(frozen=True)
class FrontPoint:
    """One setting's mean test accuracy and |DP| over seeds, with the |DP| seed std."""

    label: str
    acc: float
    dp: float
    dp_std: float

    @classmethod
    def of(cls, label: str, runs: Sequence[dict[str, float]]) -> FrontPoint:
        """Average the ``acc`` and ``dp`` of one setting's runs."""
        dp = [r["dp"] for r in runs]
        return cls(
            label, float(np.mean([r["acc"] for r in runs])), float(np.mean(dp)), float(np.std(dp))
        )


def reach_at(points: Sequence[FrontPoint], acc: float) -> tuple[float, float] | None:
    """Lowest |DP| (and its seed std) ``points`` reach at accuracy ``acc`` or above.

    None when no point is as accurate.

    Examples
    --------
    >>> pts = [FrontPoint("a", 0.60, 0.0, 0.01), FrontPoint("b", 0.70, 0.2, 0.03)]
    >>> reach_at(pts, 0.65)
    (0.1, 0.02)
    >>> reach_at(pts, 0.71) is None
    True
    """
    best: tuple[float, float] | None = None
    for p in points:
        if p.acc >= acc and (best is None or p.dp < best[0]):
            best = (p.dp, p.dp_std)
    for lo, hi in itertools.permutations(points, 2):
        if lo.acc < acc <= hi.acc:
            w = (acc - lo.acc) / (hi.acc - lo.acc)
            dp = (1 - w) * lo.dp + w * hi.dp
            if best is None or dp < best[0]:
                best = (dp, (1 - w) * lo.dp_std + w * hi.dp_std)
    return None if best is None else (round(best[0], 12), round(best[1], 12))


def front_verdict(
    name: str,
    ours: Sequence[FrontPoint],
    theirs: Sequence[FrontPoint],
    *,
    facts: Mapping[str, Any] | None = None,
) -> Verdict:
    """Check whether ``ours`` dominates ``theirs``.

    Dominating: at every one of their points, our |DP| at their accuracy is no higher, and
    somewhere lower by more than the seeds' spread (the larger of the two seed stds there).

    ``ours`` in the verdict is the largest excess of our |DP| over theirs (met needs <= 0).
    Its ``facts``: ``clearly_lower_somewhere`` (the spread condition), ``readings`` (their
    label -> [their |DP|, its std, ours at their accuracy, its std], None where none of ours
    is that accurate), and the ``facts`` passed in (e.g. which fronts are compared).
    """
    excess, beaten, parts = -np.inf, False, []
    readings: dict[str, list[float] | None] = {}
    for p in sorted(theirs, key=lambda q: q.acc):
        got = reach_at(ours, p.acc)
        readings[p.label] = None if got is None else [p.dp, p.dp_std, got[0], got[1]]
        if got is None:
            excess = np.inf
            parts.append(f"{p.label}: none of ours reaches accuracy {p.acc:.3f}")
            continue
        dp, std = got
        # reach_at rounds to 12 decimals: a point of ours equal to theirs is no higher
        excess = max(excess, round(dp - p.dp, 12))
        beaten |= p.dp - dp > max(std, p.dp_std)
        parts.append(
            f"{p.label}: {p.dp:.3f} ± {p.dp_std:.3f} at accuracy {p.acc:.3f} vs ours "
            f"{dp:.3f} ± {std:.3f}"
        )
    met = bool(excess <= 0 and beaten)
    detail = "; ".join(parts) + (
        "" if beaten else "; nowhere lower by more than the seeds' spread"
    )
    return Verdict(
        name=name,
        met=met,
        ours=float(excess),
        target=0.0,
        op="<=",
        detail=detail + ".",
        facts={"clearly_lower_somewhere": bool(beaten), "readings": readings, **(facts or {})},
    )
