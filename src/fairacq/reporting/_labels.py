"""Words on a figure: a metric's axis label with its direction, a title, what a band is.

Every figure fairacq writes says what it shows: the title names the data set, the sensitive
attribute and the metric (:func:`figure_title`), each axis says which way is fairer or better
(:func:`metric_label`, read from the metric registry's ``higher_is_better`` and ``ideal``),
and a shaded band says what it spans (:func:`fairacq.reporting.band_label`).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["figure_title", "metric_label"]

# Trace columns carry the split they were measured on as a prefix.
_SPLITS = {"test_": "test", "val_": "validation", "train_": "training"}

# Plain names of the metrics figures show most; others are spelled from their name.
_NAMES = {
    "demographic_parity_diff_abs": "demographic parity gap",
    "demographic_parity_diff_signed": "signed demographic parity gap",
    "equalized_odds_diff": "equalized odds gap",
    "equal_opportunity_diff": "equal opportunity gap",
    "mean_score_parity_diff_abs": "mean score gap",
    "worst_group_accuracy": "worst-group accuracy",
    "minimax_zero_one_risk": "worst-group error rate",
    "minimax_log_loss": "worst-group log-loss",
    "imbalance": "imbalance between groups",
}

# Words that mark a fairness metric (its direction reads "fairer", not "better").
_FAIRNESS_WORDS = ("parity", "odds", "opportunity", "unfairness", "disclos", "imbalance")


def _split(column: str) -> tuple[str, str | None]:
    """Return ``column`` without its split prefix, and the split's words (or None)."""
    for prefix, words in _SPLITS.items():
        if column.startswith(prefix):
            return column.removeprefix(prefix), words
    return column, None


def _direction(name: str) -> str:
    """Return "lower is fairer" and the like for a registered metric, "" otherwise."""
    from fairacq.metrics import available, get_metric

    if name not in available():
        return ""
    metric = get_metric(name)
    good = "fairer" if any(w in name for w in _FAIRNESS_WORDS) else "better"
    if metric.higher_is_better is True:
        return f"higher is {good}"
    if metric.higher_is_better is False:
        return f"lower is {good}"
    return f"closer to {metric.ideal:g} is {good}" if metric.ideal is not None else ""


def metric_label(column: str, *, split: bool = True) -> str:
    """Return an axis label for a metric or trace column, saying which direction is fairer.

    Parameters
    ----------
    column : str
        A metric name (``"demographic_parity_diff_abs"``) or a trace column with its split
        as a prefix (``"test_accuracy"``, ``"val_equalized_odds_diff"``).
    split : bool, default=True
        Name the rows the metric was measured on ("test") when the column says.

    Returns
    -------
    str
        E.g. ``"demographic parity gap (test; lower is fairer)"``. A column that is not a
        registered metric is returned with underscores as spaces.

    Examples
    --------
    >>> metric_label("test_demographic_parity_diff_abs")
    'demographic parity gap (test; lower is fairer)'
    >>> metric_label("accuracy")
    'accuracy (higher is better)'
    >>> metric_label("cost")
    'cost'
    """
    name, rows = _split(column)
    words = _NAMES.get(name, name.replace("_", " "))
    notes = [n for n in (rows if split else None, _direction(name)) if n]
    return f"{words} ({'; '.join(notes)})" if notes else words


def figure_title(
    dataset: str, sensitive: str | None, metric: str | Sequence[str] | None = None
) -> str:
    """Return a figure's title naming the data set, the sensitive attribute and the metric.

    Parameters
    ----------
    dataset : str
        The data set's name (a bundled name or the user's file name).
    sensitive : str or None
        The column(s) the groups come from (``"sex"``, ``"race,sex"``); None leaves it out.
    metric : str, sequence of str or None, default=None
        The metric(s) shown (metric names or trace columns), joined with "and"; None
        leaves them out.

    Returns
    -------
    str

    Examples
    --------
    >>> figure_title("adult", "sex", "test_demographic_parity_diff_abs")
    'adult, groups by sex: demographic parity gap'
    >>> figure_title("mine.csv", "district", ["val_equalized_odds_diff", "val_accuracy"])
    'mine.csv, groups by district: equalized odds gap and accuracy'
    """
    title = dataset if not sensitive else f"{dataset}, groups by {sensitive}"
    columns = [metric] if isinstance(metric, str) else list(metric or [])
    if columns:
        names = [_NAMES.get(n, n.replace("_", " ")) for n, _ in map(_split, columns)]
        title += ": " + " and ".join(names)
    return title
