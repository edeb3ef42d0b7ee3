"""The target a comparison checks: ``"dp<=0.05"``, ``"eo<0.1"``, ``"worst>=0.7"``.

A target bounds a metric in the direction that is better for it, as the metric registry
(:mod:`fairacq.metrics`) marks it: a metric whose lower values are better (``higher_is_better``
False: dp, eo, eopp and every other gap) is pushed down, so its target is an upper bound
(``<=`` or ``<``); a metric whose higher values are better (acc, worst) is pushed up, so its
target is a lower bound (``>=`` or ``>``). The bound lies in the metric's range ([0, 1] for
dp, eo, eopp, acc and worst). A signed metric (no better direction) and a metric of the labels
or groups alone (no strategy moves it) cannot be a target.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass

from fairacq._result import saveable
from fairacq.exceptions import InvalidParameterError
from fairacq.metrics import Metric, available, get_metric

__all__ = ["METRIC_ALIASES", "Target", "check_bound", "parse_target"]

#: Short metric names a target may use.
METRIC_ALIASES = {
    "dp": "demographic_parity_diff_abs",
    "eo": "equalized_odds_diff",
    "eopp": "equal_opportunity_diff",
    "acc": "accuracy",
    "worst": "worst_group_accuracy",
}
#: Readable names of the metrics a target usually names.
METRIC_LABELS = {
    "demographic_parity_diff_abs": "demographic parity gap",
    "equalized_odds_diff": "equalised odds gap",
    "equal_opportunity_diff": "equal opportunity gap",
    "accuracy": "accuracy",
    "worst_group_accuracy": "worst-group accuracy",
}
_SHORT = {metric: alias for alias, metric in METRIC_ALIASES.items()}
_OPS: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le,
    "<": operator.lt,
    ">=": operator.ge,
    ">": operator.gt,
}
_FORM = re.compile(
    r"\s*([A-Za-z_][\w-]*)\s*(<=|>=|<|>)\s*([-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)\s*"
)
_USE = "Use a gap or an accuracy (dp, eo, eopp, acc, worst)."


@saveable
@dataclass(frozen=True)
class Target:
    """A metric bound on the test rows, such as the demographic parity gap <= 0.05.

    Parameters
    ----------
    metric : str
        A registered metric name (:func:`fairacq.metrics.available`) whose value the model's
        predictions set and whose better direction is known.
    op : {"<=", "<", ">=", ">"}
        ``<=`` or ``<`` for a metric whose lower values are better (a gap), ``>=`` or ``>``
        for one whose higher values are better (an accuracy).
    value : float
        The bound, within the metric's range ([0, 1] for the gaps and accuracies).

    Raises
    ------
    InvalidParameterError
        For a bound in the wrong direction, outside the metric's range or that can never be
        met, and for a signed metric or one the predictions do not set; the message writes
        the target to use instead.
    UnknownNameError
        For a metric that is not registered.

    Examples
    --------
    >>> Target("worst_group_accuracy", ">=", 0.7).lower_is_better
    False
    >>> Target("demographic_parity_diff_abs", ">=", 0.05)
    Traceback (most recent call last):
    ...
    fairacq.exceptions.InvalidParameterError: --target 'dp>=0.05' bounds the demographic \
parity gap from below, but a lower demographic parity gap is fairer: a target pushes it down. \
Write dp<=0.05.
    """

    metric: str
    op: str
    value: float

    def __post_init__(self) -> None:
        check_bound(self.metric, self.op, self.value)

    @property
    def lower_is_better(self) -> bool:
        """Whether the bound is an upper one (a gap to push down)."""
        return self.op in ("<=", "<")

    @property
    def label(self) -> str:
        """The metric's readable name (``demographic parity gap``)."""
        return METRIC_LABELS.get(self.metric, self.metric.replace("_", " "))

    def met(self, value: float) -> bool:
        """Whether ``value`` meets the bound (NaN never does)."""
        return not math.isnan(value) and _OPS[self.op](value, self.value)

    def shortfall(self, value: float) -> float:
        """How far ``value`` is from the bound (0 when met, inf for NaN)."""
        if math.isnan(value):
            return math.inf
        gap = value - self.value if self.lower_is_better else self.value - value
        return max(0.0, gap)

    def __str__(self) -> str:
        return f"{self.label} {self.op} {self.value:g}"


def check_bound(metric: str, op: str, value: float) -> None:
    """Refuse a target that makes no sense for ``metric``, writing the one to use.

    Parameters
    ----------
    metric : str
        A registered metric name.
    op : str
        The comparison.
    value : float
        The bound.

    Raises
    ------
    InvalidParameterError
        See :class:`Target`.

    Examples
    --------
    >>> check_bound("accuracy", ">=", 0.8)
    >>> check_bound("worst_group_accuracy", "<=", 0.7)
    Traceback (most recent call last):
    ...
    fairacq.exceptions.InvalidParameterError: --target 'worst<=0.7' bounds the \
worst-group accuracy from above, but a higher worst-group accuracy is better: a target pushes \
it up. Write worst>=0.7.
    """
    if op not in _OPS:
        raise InvalidParameterError(
            f"--target compares with {op!r}; use <= or < for a gap, >= or > for an accuracy."
        )
    found = _target_metric(metric, float(value))
    _check_direction(found, op, float(value))
    _check_range(found, op, float(value))


def _short(metric: str) -> str:
    return _SHORT.get(metric, metric)


def _label(metric: str) -> str:
    return METRIC_LABELS.get(metric, metric.replace("_", " "))


def _target_metric(metric: str, value: float) -> Metric:
    """Return the registered metric, if the predictions set it and it has a direction."""
    found = get_metric(metric)
    name = _short(metric)
    if not set(found.needs) <= {"y_true", "y_pred", "s"}:
        raise InvalidParameterError(
            f"--target {name}: the metric needs more than labels, predictions and groups "
            f"(scores or items), which the randomised comparators do not give. {_USE}"
        )
    if "y_pred" not in found.needs:
        raise InvalidParameterError(
            f"--target {name}: the metric depends on the labels or groups alone, which no "
            f"strategy changes. {_USE}"
        )
    if found.higher_is_better is None:
        raise InvalidParameterError(
            f"--target {name}: the metric is signed, so neither a higher nor a lower value is "
            f"fairer. {_unsigned(metric, value)}"
        )
    return found


def _unsigned(metric: str, value: float) -> str:
    """Return the fix for a signed metric: bound its size, when registered."""
    bound = abs(value) if 0 < abs(value) <= 1 else 0.05
    for size in (metric.removesuffix("_signed"), metric.replace("_signed", "_abs")):
        if size != metric and size in available():
            return f"Bound its size instead: write {_short(size)}<={bound:g}."
    return _USE


def _example(found: Metric, value: float) -> float:
    """Return a bound to suggest: ``value`` (or its size) when in range, else a usual one."""
    low, high = found.range
    for candidate in (value, abs(value)):
        if low <= candidate <= high:
            return candidate
    return 0.8 if found.higher_is_better else 0.05


def _check_direction(found: Metric, op: str, value: float) -> None:
    upper = op in ("<=", "<")
    if upper != bool(found.higher_is_better):
        return
    name, label = _short(found.name), _label(found.name)
    better = "fairer" if "_diff" in found.name or "unfair" in found.name else "better"
    side, way, sign = ("above", "higher", ">=") if upper else ("below", "lower", "<=")
    push = "up" if upper else "down"
    raise InvalidParameterError(
        f"--target '{name}{op}{value:g}' bounds the {label} from {side}, but a {way} {label} "
        f"is {better}: a target pushes it {push}. Write {name}{sign}{_example(found, value):g}."
    )


def _check_range(found: Metric, op: str, value: float) -> None:
    low, high = found.range
    name, label = _short(found.name), _label(found.name)
    span = f"between {low:g} and {high:g}" if math.isfinite(high) else f"at least {low:g}"
    if not low <= value <= high:  # NaN fails too
        sign = ">=" if found.higher_is_better else "<="
        raise InvalidParameterError(
            f"--target '{name}{op}{value:g}': the {label} is {span}, so the bound must be too. "
            f"Write e.g. {name}{sign}{_example(found, value):g}."
        )
    if (op == "<" and value == low) or (op == ">" and value == high):
        edge = "below" if op == "<" else "above"
        raise InvalidParameterError(
            f"--target '{name}{op}{value:g}' can never be met: the {label} is never {edge} "
            f"{value:g}. Write {name}{op}={value:g}."
        )


def parse_target(text: str) -> Target:
    """Read ``"dp<=0.05"``: a metric (alias or registered name), a comparison, a number.

    A gap (dp, eo, eopp, or any metric whose lower values are better) takes ``<=`` or ``<``;
    an accuracy (acc, worst, or any metric whose higher values are better) takes ``>=`` or
    ``>``; the number lies in the metric's range (see :class:`Target`).

    Parameters
    ----------
    text : str
        ``METRIC OP VALUE``, spaces allowed.

    Returns
    -------
    Target

    Raises
    ------
    InvalidParameterError
        On another form or an unknown metric, naming the forms accepted, and for a target
        that makes no sense (:class:`Target`), writing the one to use.

    Examples
    --------
    >>> parse_target("dp<=0.05")
    Target(metric='demographic_parity_diff_abs', op='<=', value=0.05)
    >>> str(parse_target("worst >= 0.7"))
    'worst-group accuracy >= 0.7'
    """
    match = _FORM.fullmatch(text)
    if match is None:
        raise InvalidParameterError(
            f'--target {text!r} is not METRIC<=VALUE. Write e.g. "dp<=0.05", "eo<=0.1" or '
            '"worst>=0.7" (dp, eo, eopp, acc, worst, or a name from fairacq metrics).'
        )
    name, op, value = match.groups()
    metric = METRIC_ALIASES.get(name, name)
    if metric not in available():
        raise InvalidParameterError(
            f"--target names the metric {name!r}, which is unknown. Use dp, eo, eopp, acc, "
            "worst or a name listed by `fairacq metrics`."
        )
    return Target(metric=metric, op=op, value=float(value))
