"""Does a sampler beat its baseline beyond the spread of the trials? A verdict with an interval.

The difference is the sampler's final worst-group test accuracy minus the baseline's. Trials
run on the same seeds share their split, so the difference is taken trial by trial (paired)
and its 95 % interval is Student's t over those differences; when the trials are not paired
(different seeds or counts), Welch's interval of the difference of the means is used. The
sampler "beats" the baseline only when the whole interval is above zero.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

if TYPE_CHECKING:
    from fairacq._trace import Trace

__all__ = ["BaselineVerdict", "compare_to_baseline", "trials_are_paired"]

_LEVEL = 0.95


@dataclass(frozen=True)
class BaselineVerdict:
    """A sampler's worst-group accuracy against its baseline's, with a 95 % interval.

    Attributes
    ----------
    method, baseline : str
        The two samplers.
    difference : float
        Mean worst-group test accuracy of ``method`` minus ``baseline``'s.
    low, high : float
        The 95 % interval of ``difference`` (NaN with fewer than two trials).
    paired : bool
        Whether the difference was taken trial by trial (same seeds, same splits).
    n_trials : int
        Trials the difference rests on.
    verdict : str
        ``"beats <baseline>"`` (``low`` > 0), ``"worse than <baseline>"`` (``high`` < 0),
        ``"no better than <baseline> within the trials' spread"`` otherwise, or
        ``"too few trials to tell"``.
    """

    method: str
    baseline: str
    difference: float
    low: float
    high: float
    paired: bool
    n_trials: int
    verdict: str

    @property
    def beats(self) -> bool:
        """Whether the interval lies above zero."""
        return bool(self.low > 0)

    def sentence(self) -> str:
        """Return the verdict in one line, with the difference and its interval."""
        how = "paired by trial" if self.paired else "trials not paired"
        interval = (
            f" (95 % interval {self.low:+.3f} to {self.high:+.3f}, {how}, {self.n_trials} trials)"
            if self.low == self.low
            else f" ({self.n_trials} trial)"
        )
        return (
            f"{self.method} minus {_title(self.baseline)}, worst-group test accuracy: "
            f"{self.difference:+.3f}{interval}: {self.method} {self.verdict}."
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON form (NaN as None) with the sentence under ``text``."""
        out = {
            k: (None if isinstance(v, float) and v != v else v) for k, v in asdict(self).items()
        }
        return {**out, "text": self.sentence()}


def _title(name: str) -> str:
    return name[:1].upper() + name[1:]


def _interval(a: np.ndarray, b: np.ndarray, paired: bool) -> tuple[float, float, float]:
    """Mean difference and its 95 % t interval (paired, or Welch's)."""
    from scipy import stats

    if paired:
        d = a - b
        mean, se, df = float(d.mean()), float(d.std(ddof=1) / np.sqrt(d.size)), d.size - 1.0
    else:
        va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
        mean, se = float(a.mean() - b.mean()), float(np.sqrt(va + vb))
        df = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1)) if se else 1.0
    half = float(stats.t.ppf(0.5 + _LEVEL / 2, df)) * se
    return mean, mean - half, mean + half


def compare_to_baseline(
    method_values: ArrayLike,
    baseline_values: ArrayLike,
    *,
    paired: bool,
    method: str = "method",
    baseline: str = "uniform",
) -> BaselineVerdict:
    """Say whether ``method`` beats ``baseline`` beyond the trials' spread.

    Parameters
    ----------
    method_values, baseline_values : array-like of float
        Each trial's final worst-group test accuracy (NaN trials are left out; paired trials
        in pairs).
    paired : bool
        Whether trial ``i`` of both ran on the same split (:func:`trials_are_paired`).
    method, baseline : str, default="method", "uniform"
        Names used in the verdict.

    Returns
    -------
    BaselineVerdict

    Examples
    --------
    >>> v = compare_to_baseline([0.80, 0.82, 0.81], [0.70, 0.71, 0.70], paired=True)
    >>> v.verdict, round(v.difference, 3)
    ('beats Uniform', 0.107)
    >>> compare_to_baseline([0.789, 0.785], [0.786, 0.790], paired=True).verdict
    "no better than Uniform within the trials' spread"
    """
    a = np.asarray(method_values, dtype=np.float64)
    b = np.asarray(baseline_values, dtype=np.float64)
    if paired:
        keep = ~(np.isnan(a) | np.isnan(b))
        a, b = a[keep], b[keep]
    else:
        a, b = a[~np.isnan(a)], b[~np.isnan(b)]
    n = int(min(a.size, b.size))
    name = _title(baseline)
    if n < 2:
        diff = float(a.mean() - b.mean()) if n else float("nan")
        nan = float("nan")
        return BaselineVerdict(
            method, baseline, diff, nan, nan, paired, n, "too few trials to tell"
        )
    mean, low, high = _interval(a, b, paired)
    verdict = (
        f"beats {name}"
        if low > 0
        else f"worse than {name}"
        if high < 0
        else f"no better than {name} within the trials' spread"
    )
    return BaselineVerdict(method, baseline, mean, low, high, paired, n, verdict)


def trials_are_paired(traces: Sequence[Trace], baseline_traces: Sequence[Trace]) -> bool:
    """Whether trial ``i`` of both runs used the same seed, hence the same split.

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> from fairacq.sampling import run_sampler_trials
    >>> a = run_sampler_trials(load_toy(200), "uniform", n_trials=2, budget=20)
    >>> b = run_sampler_trials(load_toy(200), "aopt", n_trials=2, budget=20)
    >>> trials_are_paired(a, b), trials_are_paired(a, b[::-1])
    (True, False)
    """
    if len(traces) != len(baseline_traces) or not traces:
        return False

    def key(t: Trace) -> tuple[Any, Any]:
        return t.meta.get("seed"), t.meta.get("spawn_key")

    pairs = zip(traces, baseline_traces, strict=True)
    return all(key(a) == key(b) and key(a)[1] is not None for a, b in pairs)
