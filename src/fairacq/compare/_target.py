"""The target a comparison checks: ``"dp<=0.05"``, ``"eo<0.1"``, ``"worst>=0.7"``."""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass

from fairacq.exceptions import InvalidParameterError
from fairacq.metrics import available, get_metric

__all__ = ["METRIC_ALIASES", "Target", "parse_target"]

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
_OPS: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le,
    "<": operator.lt,
    ">=": operator.ge,
    ">": operator.gt,
}
_FORM = re.compile(
    r"\s*([A-Za-z_][\w-]*)\s*(<=|>=|<|>)\s*([-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)\s*"
)


@dataclass(frozen=True)
class Target:
    """A metric bound on the test rows, such as the demographic parity gap <= 0.05.

    Attributes
    ----------
    metric : str
        A registered metric name (:func:`fairacq.metrics.available`).
    op : str
        ``"<="``, ``"<"``, ``">="`` or ``">"``.
    value : float
        The bound.
    """

    metric: str
    op: str
    value: float

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


def parse_target(text: str) -> Target:
    """Read ``"dp<=0.05"``: a metric (alias or registered name), a comparison, a number.

    Raises
    ------
    InvalidParameterError
        On another form or an unknown metric, naming the forms accepted.

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
    if not set(get_metric(metric).needs) <= {"y_true", "y_pred", "s"}:
        raise InvalidParameterError(
            f"--target {name}: the metric needs more than labels, predictions and groups "
            "(scores or items), which the randomised comparators do not give. Use a gap or "
            "an accuracy (dp, eo, eopp, acc, worst)."
        )
    return Target(metric=metric, op=op, value=float(value))
