"""Per-seed readings of acquisition traces: area under the fairness curve, when it got fair.

Also the acceptance check on one (dataset, learner): DataSift-Inf against Random and Entropy
on every seed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from fairacq._trace import Trace
from fairacq_experiments._framework.verdict import Verdict

__all__ = ["area_under_curve", "budget_share_to_fairness", "datasift_inf_check"]


def _accepted(trace: Trace) -> pd.DataFrame:
    """Return the accepted steps of a run (the first row is the initial model)."""
    frame = trace.to_frame()
    return frame[frame["accepted"].astype(bool)]


def area_under_curve(trace: Trace, column: str, budget: float) -> float:
    """Mean of ``column`` over the budget (step function, carried to the full budget).

    Lower is better for a fairness gap: a method that becomes fair early has a small area.

    Parameters
    ----------
    trace : Trace
        One acquisition run; its accepted steps give the curve.
    column : str
        The fairness column, e.g. ``"test_demographic_parity_diff_abs"``.
    budget : float
        The run's budget (cost units).

    Returns
    -------
    float
    """
    accepted = _accepted(trace)
    x = np.append(accepted["cost"].to_numpy(dtype=float), budget)
    y = accepted[column].to_numpy(dtype=float)
    widths = np.diff(np.clip(x, 0, budget))
    return float(np.sum(widths * y) / budget) if budget > 0 else float(y[-1])


def budget_share_to_fairness(
    trace: Trace, column: str, budget: float, tau: float
) -> tuple[float, float, bool]:
    """When a run first brought ``column`` to at most ``tau``, else to its best value.

    Parameters
    ----------
    trace : Trace
        One acquisition run.
    column : str
        The fairness gap (lower is better).
    budget : float
        The run's budget (cost units, > 0).
    tau : float
        The fairness threshold.

    Returns
    -------
    (float, float, bool)
        Share of the budget spent by then, the value reached, and whether it is <= ``tau``.
    """
    accepted = _accepted(trace)
    values = accepted[column].to_numpy(dtype=float)
    under = np.flatnonzero(values <= tau)
    i = int(under[0]) if under.size else int(np.argmin(values))
    return (
        float(accepted["cost"].to_numpy(dtype=float)[i] / budget),
        float(values[i]),
        bool(under.size),
    )


def datasift_inf_check(
    traces: Mapping[str, Sequence[Trace]],
    column: str,
    budget: float,
    tau: float,
    *,
    where: str = "",
) -> list[Verdict]:
    """Check DataSift-Inf against Random and Entropy seed by seed (the acceptance check).

    DataSift-Inf must bring ``column`` under ``tau`` (or to its best value) within half the
    budget, have a smaller area under its curve than Random's and Entropy's on every seed, and
    keep test accuracy within 2 points of Random's.

    Parameters
    ----------
    traces : mapping of str to sequence of Trace
        Runs by method, the same seeds in the same order for every method.
    column : str
        The fairness gap.
    budget : float
        Budget of the runs.
    tau : float
        The fairness threshold.
    where : str
        Put before each verdict's name, e.g. ``"adult/lr: "``.

    Returns
    -------
    list of Verdict
        One per part of the check; ``ours`` is the number of seeds where the part holds and
        ``target`` the number of seeds, with the per-seed numbers in ``detail``. Each
        verdict's ``facts``: ``part`` (``"in_half"``, ``"area"`` or ``"accuracy"``),
        ``holds`` (per seed), and ``reached`` (per seed: budget share, gap, under tau) or
        ``points_below_random`` (per seed) for the first and last part.
    """
    if not {"datasift-inf", "random", "entropy"} <= set(traces):
        return []
    inf, rnd, ent = traces["datasift-inf"], traces["random"], traces["entropy"]
    reached = [budget_share_to_fairness(t, column, budget, tau) for t in inf]
    in_half = [share <= 0.5 for share, _, _ in reached]
    area = [area_under_curve(t, column, budget) for t in inf]
    area_ok = [
        a < area_under_curve(r, column, budget) and a < area_under_curve(e, column, budget)
        for a, r, e in zip(area, rnd, ent, strict=True)
    ]
    gaps = [
        100 * (r.final("test_accuracy") - t.final("test_accuracy"))
        for t, r in zip(inf, rnd, strict=True)
    ]
    when = ", ".join(
        f"{'under tau' if ok else 'best'} {v:.3f} after {100 * s:.0f}%" for s, v, ok in reached
    )

    def seeds(name: str, flags: Sequence[bool], detail: str, **facts: Any) -> Verdict:
        return Verdict.check(
            f"{where}{name}, seeds where it holds",
            sum(flags),
            ">=",
            len(flags),
            detail=detail,
            facts={"holds": [bool(f) for f in flags], **facts},
        )

    return [
        seeds(
            "DataSift-Inf's |gap| under tau (else at its best) within half the budget",
            in_half,
            f"Per seed: {when} of the budget.",
            part="in_half",
            reached=[
                {"share": float(s), "gap": float(v), "under_tau": bool(ok)} for s, v, ok in reached
            ],
        ),
        seeds(
            "DataSift-Inf's area under the |gap| curve below Random's and Entropy's",
            area_ok,
            "",
            part="area",
        ),
        seeds(
            "DataSift-Inf's test accuracy within 2 points of Random's",
            [g <= 2.0 for g in gaps],
            f"Below Random's by {', '.join(f'{g:.1f}' for g in gaps)} points.",
            part="accuracy",
            points_below_random=[float(g) for g in gaps],
        ),
    ]
