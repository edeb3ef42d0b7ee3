"""A registry of every scalar metric, so that any family can compute a metric by name.

Each entry is a :class:`Metric` record: the function, the inputs it needs (a tuple of names
among ``y_true``, ``y_pred``, ``scores``, ``s``, ``items``, ``proxy``, in the function's
positional order), whether higher is better, its range, its ideal value and the paper
section it comes from. :func:`compute` is the uniform call: pass every input you have and it
forwards the ones the metric needs; keyword options such as ``protected=`` go to the
metrics that take them and are ignored by the others. There is one canonical name per
metric; unknown names get a suggestion.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from numpy.typing import ArrayLike

from fairacq._validation import did_you_mean
from fairacq.exceptions import InvalidParameterError
from fairacq.metrics._disclosure import disclosivity, imbalance
from fairacq.metrics._group_rates import selection_rate
from fairacq.metrics._minimax import (
    minimax_log_loss,
    minimax_zero_one_risk,
    worst_group_accuracy,
)
from fairacq.metrics._odds import (
    average_odds_diff,
    equal_opportunity_diff,
    equal_opportunity_diff_signed,
    equalized_odds_diff,
    equalized_odds_diff_signed,
    equalized_odds_diff_sum,
)
from fairacq.metrics._parity import (
    base_rate_diff,
    base_rate_diff_signed,
    demographic_parity_diff_abs,
    demographic_parity_diff_signed,
    demographic_parity_ratio,
    mean_score_parity_diff_abs,
    mean_score_parity_diff_signed,
)
from fairacq.metrics._performance import accuracy, auc_pr, auc_roc
from fairacq.metrics._recsys import (
    absolute_unfairness,
    non_parity_unfairness,
    overestimation_unfairness,
    underestimation_unfairness,
    value_unfairness,
)
from fairacq.metrics._risk_ratio import relative_chance, risk_difference, risk_ratio

__all__ = ["INPUT_NAMES", "Metric", "available", "compute", "get_metric"]

#: The inputs a metric can need, in the order :func:`compute` accepts them.
INPUT_NAMES = ("y_true", "y_pred", "s", "scores", "items", "proxy")


@dataclass(frozen=True)
class Metric:
    """A registered metric: its function and what a caller needs to know to use it.

    Parameters
    ----------
    name : str
        Canonical name, the key of :func:`get_metric`.
    function : callable
        The metric function; takes the inputs of ``needs`` positionally and returns a float.
    needs : tuple of str
        Input names the function takes, in order, among :data:`INPUT_NAMES`
        (``"y_pred"``: hard predictions, ``"scores"``: probabilities or scores, ...).
    higher_is_better : bool or None
        True or False for a one-sided metric; None for a two-sided one (signed gaps,
        ratios) whose best value is ``ideal``.
    range : tuple of float
        Smallest and largest possible values (``math.inf`` when unbounded).
    ideal : float or None
        The value of a perfect (or perfectly fair) model; None when there is none.
    description : str
        One line saying what is measured and with which sign.
    paper : str or None, default=None
        The paper and section the metric comes from, e.g. ``"000 §2"``.
    """

    name: str
    function: Callable[..., float]
    needs: tuple[str, ...]
    higher_is_better: bool | None
    range: tuple[float, float]
    ideal: float | None
    description: str
    paper: str | None = None

    def distance_to_ideal(self, value: float) -> float:
        """Return ``|value - ideal|``, the badness of ``value`` whatever the metric's sign.

        Raises
        ------
        InvalidParameterError
            If the metric has no ideal value (e.g. ``selection_rate``).
        """
        if self.ideal is None:
            raise InvalidParameterError(
                f"Metric '{self.name}' has no ideal value, so no distance to it. "
                "Compare raw values instead."
            )
        return abs(float(value) - self.ideal)


_INF = math.inf
_METRICS: dict[str, Metric] = {
    m.name: m
    for m in [
        Metric(
            name="accuracy",
            function=accuracy,
            needs=("y_true", "y_pred"),
            higher_is_better=True,
            range=(0.0, 1.0),
            ideal=1.0,
            description="Fraction of rows predicted correctly.",
        ),
        Metric(
            name="auc_roc",
            function=auc_roc,
            needs=("y_true", "scores"),
            higher_is_better=True,
            range=(0.0, 1.0),
            ideal=1.0,
            description="Area under the ROC curve (sklearn roc_auc_score).",
            paper="Zhang & Ramesh §5",
        ),
        Metric(
            name="auc_pr",
            function=auc_pr,
            needs=("y_true", "scores"),
            higher_is_better=True,
            range=(0.0, 1.0),
            ideal=1.0,
            description="Average precision (sklearn average_precision_score).",
            paper="Zhang & Ramesh §5",
        ),
        Metric(
            name="selection_rate",
            function=selection_rate,
            needs=("y_pred",),
            higher_is_better=None,
            range=(0.0, 1.0),
            ideal=None,
            description="P(Y_hat=1) over all rows.",
        ),
        Metric(
            name="demographic_parity_diff_signed",
            function=demographic_parity_diff_signed,
            needs=("y_pred", "s"),
            higher_is_better=None,
            range=(-1.0, 1.0),
            ideal=0.0,
            description="P(Y_hat=1|protected) - P(Y_hat=1|privileged); < 0 is bias against the "
            "protected group.",
            paper="Hasan & Pradhan §2",
        ),
        Metric(
            name="demographic_parity_diff_abs",
            function=demographic_parity_diff_abs,
            needs=("y_pred", "s"),
            higher_is_better=False,
            range=(0.0, 1.0),
            ideal=0.0,
            description="Largest gap in selection rate between groups (fairlearn "
            "demographic_parity_difference).",
            paper="Hasan & Pradhan §2",
        ),
        Metric(
            name="demographic_parity_ratio",
            function=demographic_parity_ratio,
            needs=("y_pred", "s"),
            higher_is_better=True,
            range=(0.0, 1.0),
            ideal=1.0,
            description="Smallest over largest group selection rate.",
        ),
        Metric(
            name="mean_score_parity_diff_signed",
            function=mean_score_parity_diff_signed,
            needs=("scores", "s"),
            higher_is_better=None,
            range=(-1.0, 1.0),
            ideal=0.0,
            description="E[p|protected] - E[p|privileged], the DataSift authors' code's measure.",
            paper="Hasan & Pradhan §2 (authors' code)",
        ),
        Metric(
            name="mean_score_parity_diff_abs",
            function=mean_score_parity_diff_abs,
            needs=("scores", "s"),
            higher_is_better=False,
            range=(0.0, 1.0),
            ideal=0.0,
            description="Largest gap in mean predicted probability.",
            paper="Hasan & Pradhan §2 (authors' code)",
        ),
        Metric(
            name="base_rate_diff",
            function=base_rate_diff,
            needs=("y_true", "s"),
            higher_is_better=False,
            range=(0.0, 1.0),
            ideal=0.0,
            description="Largest gap in P(Y=1) between groups.",
            paper="Hasan & Pradhan §3.2",
        ),
        Metric(
            name="base_rate_diff_signed",
            function=base_rate_diff_signed,
            needs=("y_true", "s"),
            higher_is_better=None,
            range=(-1.0, 1.0),
            ideal=0.0,
            description="P(Y=1|protected) - P(Y=1|privileged).",
            paper="Hasan & Pradhan §3.2",
        ),
        Metric(
            name="equal_opportunity_diff",
            function=equal_opportunity_diff,
            needs=("y_true", "y_pred", "s"),
            higher_is_better=False,
            range=(0.0, 1.0),
            ideal=0.0,
            description="Largest TPR gap between groups.",
            paper="Zhang & Ramesh §4.3",
        ),
        Metric(
            name="equal_opportunity_diff_signed",
            function=equal_opportunity_diff_signed,
            needs=("y_true", "y_pred", "s"),
            higher_is_better=None,
            range=(-1.0, 1.0),
            ideal=0.0,
            description="TPR(protected) - TPR(privileged).",
            paper="Zhang & Ramesh §4.3",
        ),
        Metric(
            name="equalized_odds_diff",
            function=equalized_odds_diff,
            needs=("y_true", "y_pred", "s"),
            higher_is_better=False,
            range=(0.0, 1.0),
            ideal=0.0,
            description="max(TPR gap, FPR gap) (fairlearn equalized_odds_difference).",
            paper="Zhang & Ramesh §4.3",
        ),
        Metric(
            name="equalized_odds_diff_signed",
            function=equalized_odds_diff_signed,
            needs=("y_true", "y_pred", "s"),
            higher_is_better=None,
            range=(-1.0, 1.0),
            ideal=0.0,
            description="Signed TPR or FPR gap (protected - privileged) of larger magnitude.",
            paper="Zhang & Ramesh §4.3",
        ),
        Metric(
            name="average_odds_diff",
            function=average_odds_diff,
            needs=("y_true", "y_pred", "s"),
            higher_is_better=False,
            range=(0.0, 1.0),
            ideal=0.0,
            description="Mean of the TPR gap and the FPR gap.",
            paper="Zhang & Ramesh §4.3",
        ),
        Metric(
            name="equalized_odds_diff_sum",
            function=equalized_odds_diff_sum,
            needs=("y_true", "y_pred", "s"),
            higher_is_better=False,
            range=(0.0, 2.0),
            ideal=0.0,
            description="TPR gap + FPR gap, Fair-A3SL's prior.",
            paper="Zhang & Ramesh §4.3",
        ),
        Metric(
            name="risk_difference",
            function=risk_difference,
            needs=("y_pred", "s"),
            higher_is_better=None,
            range=(-1.0, 1.0),
            ideal=0.0,
            description="p1 - p2, unfavourable-outcome rates of protected vs unprotected.",
            paper="Zhang & Ramesh §4.2",
        ),
        Metric(
            name="risk_ratio",
            function=risk_ratio,
            needs=("y_pred", "s"),
            higher_is_better=None,
            range=(0.0, _INF),
            ideal=1.0,
            description="p1 / p2, unfavourable-outcome rates of protected vs unprotected.",
            paper="Zhang & Ramesh §4.2",
        ),
        Metric(
            name="relative_chance",
            function=relative_chance,
            needs=("y_pred", "s"),
            higher_is_better=None,
            range=(0.0, _INF),
            ideal=1.0,
            description="(1 - p1) / (1 - p2), favourable-outcome rates of protected vs others.",
            paper="Zhang & Ramesh §4.2",
        ),
        Metric(
            name="non_parity_unfairness",
            function=non_parity_unfairness,
            needs=("y_pred", "s"),
            higher_is_better=False,
            range=(0.0, _INF),
            ideal=0.0,
            description="|mean predicted rating of protected - of unprotected|.",
            paper="Zhang & Ramesh §4.2",
        ),
        Metric(
            name="value_unfairness",
            function=value_unfairness,
            needs=("y_true", "y_pred", "s", "items"),
            higher_is_better=False,
            range=(0.0, _INF),
            ideal=0.0,
            description="Mean over items of the gap in signed rating error.",
            paper="Yao & Huang 2017",
        ),
        Metric(
            name="absolute_unfairness",
            function=absolute_unfairness,
            needs=("y_true", "y_pred", "s", "items"),
            higher_is_better=False,
            range=(0.0, _INF),
            ideal=0.0,
            description="Mean over items of the gap in absolute rating error.",
            paper="Yao & Huang 2017",
        ),
        Metric(
            name="underestimation_unfairness",
            function=underestimation_unfairness,
            needs=("y_true", "y_pred", "s", "items"),
            higher_is_better=False,
            range=(0.0, _INF),
            ideal=0.0,
            description="Mean over items of the gap in underestimation.",
            paper="Yao & Huang 2017",
        ),
        Metric(
            name="overestimation_unfairness",
            function=overestimation_unfairness,
            needs=("y_true", "y_pred", "s", "items"),
            higher_is_better=False,
            range=(0.0, _INF),
            ideal=0.0,
            description="Mean over items of the gap in overestimation.",
            paper="Zhang & Ramesh §4.3",
        ),
        Metric(
            name="minimax_zero_one_risk",
            function=minimax_zero_one_risk,
            needs=("y_true", "y_pred", "s"),
            higher_is_better=False,
            range=(0.0, 1.0),
            ideal=0.0,
            description="Worst group's error rate.",
            paper="Shekhar et al. §2",
        ),
        Metric(
            name="minimax_log_loss",
            function=minimax_log_loss,
            needs=("y_true", "scores", "s"),
            higher_is_better=False,
            range=(0.0, _INF),
            ideal=0.0,
            description="Worst group's mean log-loss.",
            paper="Shekhar et al. §2",
        ),
        Metric(
            name="worst_group_accuracy",
            function=worst_group_accuracy,
            needs=("y_true", "y_pred", "s"),
            higher_is_better=True,
            range=(0.0, 1.0),
            ideal=1.0,
            description="Lowest accuracy over groups.",
            paper="Shekhar et al. §5",
        ),
        Metric(
            name="disclosivity",
            function=disclosivity,
            needs=("proxy", "s"),
            higher_is_better=False,
            range=(0.0, 1.0),
            ideal=0.0,
            description="max |P(z=i|proxy=j) - P(z=i)|, alpha of an alpha-disclosive proxy.",
            paper="Deng et al. Def. 5",
        ),
        Metric(
            name="imbalance",
            function=imbalance,
            needs=("s",),
            higher_is_better=False,
            range=(0.0, 1.0),
            ideal=0.0,
            description="||group distribution - uniform||_2 of a dataset (beta).",
            paper="Deng et al. Def. 2",
        ),
    ]
}


@functools.cache  # inspect.signature is slow and acquisition loops compute every round
def _options_of(metric: Metric) -> frozenset[str]:
    params = inspect.signature(metric.function).parameters.values()
    return frozenset(p.name for p in params if p.kind is p.KEYWORD_ONLY)


#: Every keyword option some registered metric accepts.
_OPTIONS: frozenset[str] = frozenset().union(*(_options_of(m) for m in _METRICS.values()))


def available() -> list[str]:
    """Return the canonical names of every registered metric, sorted.

    Returns
    -------
    list of str
        Names accepted by :func:`get_metric` and :func:`compute`.

    Examples
    --------
    >>> "demographic_parity_diff_signed" in available()
    True
    """
    return sorted(_METRICS)


def get_metric(name: str) -> Metric:
    """Return the :class:`Metric` record registered under ``name``.

    Parameters
    ----------
    name : str
        A canonical metric name (see :func:`available`).

    Returns
    -------
    Metric
        The record: function, needed inputs, direction, range, ideal, description.

    Raises
    ------
    UnknownNameError
        If ``name`` is not registered; the message suggests the closest name.

    Examples
    --------
    >>> get_metric("equalized_odds_diff").needs
    ('y_true', 'y_pred', 's')
    """
    if not isinstance(name, str) or name not in _METRICS:
        raise did_you_mean("metric", str(name), available(), "fairacq.metrics.available()")
    return _METRICS[name]


def compute(
    name: str,
    y_true: ArrayLike | None = None,
    y_pred: ArrayLike | None = None,
    s: ArrayLike | None = None,
    *,
    scores: ArrayLike | None = None,
    items: ArrayLike | None = None,
    proxy: ArrayLike | None = None,
    **options: Any,
) -> float:
    """Compute the metric ``name`` from whichever inputs the caller has.

    Inputs and options the metric does not use are ignored, so a caller can always pass
    everything it has (e.g. ``compute(name, y_true, y_pred, s, scores=proba,
    protected=0)`` in an acquisition loop). An option that no registered metric accepts
    (a typo) is an error.

    Parameters
    ----------
    name : str
        A canonical metric name (see :func:`available`).
    y_true, y_pred, s : array-like of shape (n,) or None, default=None
        True labels (or ratings), hard predictions (or predicted ratings), group labels.
    scores : array-like of shape (n,) or None, default=None
        Predicted probabilities or scores of label 1.
    items : array-like of shape (n,) or None, default=None
        Item id of each rating (recommender metrics).
    proxy : array-like of shape (n,) or None, default=None
        Proxy value of each row (Deng et al.'s disclosivity).
    **options
        Keyword options of the metric functions, e.g. ``protected="Female"``,
        ``privileged=1`` or ``favourable=0``; passed on to the metric if its function
        takes them.

    Returns
    -------
    float
        The metric value.

    Raises
    ------
    UnknownNameError
        If ``name`` is not registered.
    InvalidParameterError
        If a needed input is missing or an option is accepted by no metric.
    InvalidDataError
        If the inputs are invalid for the metric (see its function).

    Examples
    --------
    >>> compute("demographic_parity_diff_signed", [1, 0, 1, 1], [0, 1, 1, 1], [0, 0, 1, 1])
    -0.5
    >>> compute("accuracy", [1, 0, 1, 1], [0, 1, 1, 1], [0, 0, 1, 1])
    0.5
    """
    metric = get_metric(name)
    given = {
        "y_true": y_true,
        "y_pred": y_pred,
        "s": s,
        "scores": scores,
        "items": items,
        "proxy": proxy,
    }
    missing = [k for k in metric.needs if given[k] is None]
    if missing:
        raise InvalidParameterError(
            f"Metric '{name}' needs {', '.join(metric.needs)}; {', '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} missing. Pass "
            + ", ".join(f"{k}=..." for k in missing)
            + "."
        )
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        raise InvalidParameterError(
            f"compute: no metric accepts option(s) {', '.join(unknown)}. "
            f"Known options: {', '.join(sorted(_OPTIONS))}."
        )
    own = _options_of(metric)
    kwargs = {k: v for k, v in options.items() if k in own}
    return float(metric.function(*(given[k] for k in metric.needs), **kwargs))
