"""Algorithm 2 on a user's candidates table: admitted rows back with their own columns.

:func:`filter_table` encodes raw candidates with a :class:`TableProxy`'s stored encoder (or
takes the encoded features a dataset proxy reads), admits each with the proxy's
probability (:class:`BalancedFilter`, blind to groups) and returns the admitted rows with
every original column, in order, plus their admission probability. When the candidates
hold the true groups (the table proxy's group columns, or the columns named by
``evaluate``), they are read for the report only: counts and shares per group by name, and
the admitted set's beta. :func:`run_summary` wraps a report as the JSON record a command
writes (configuration, seed, fairacq version, warnings).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from fairacq._random import RandomState
from fairacq._result import Result
from fairacq._trace import Trace
from fairacq._version import __version__
from fairacq._warnings import warn_caller
from fairacq.exceptions import InvalidDataError, ResultWarning
from fairacq.filtering._filter import BalancedFilter
from fairacq.filtering.proxies._factory import evaluation_groups
from fairacq.filtering.proxies._holdout import NEAR_ALL
from fairacq.filtering.proxies._proxies import FittedProxy
from fairacq.filtering.proxies._table import TableProxy

__all__ = ["PROBABILITY_COLUMN", "TableFilterResult", "filter_table", "run_summary"]

#: Column added to the returned rows: each candidate's admission probability.
PROBABILITY_COLUMN = "admission_probability"
#: In-sample imbalance within which admitting everyone alike needs no warning.
BALANCED = 0.1
#: Column added when every row is returned: whether the candidate was admitted.
ADMITTED_COLUMN = "admitted"


@dataclass(frozen=True, eq=False)
class TableFilterResult(Result):
    """What :func:`filter_table` returns: the rows to keep, with the counts behind them.

    :meth:`to_frame` gives the returned rows (what ``fairacq filter apply`` writes);
    :meth:`save` / :meth:`load` keep every field.

    Attributes
    ----------
    rows : pandas.DataFrame
        The admitted candidates (every row with ``all_rows``), original columns in order,
        plus ``admission_probability`` (and ``admitted`` with ``all_rows``).
    mask : numpy.ndarray of shape (n,)
        True for admitted candidates.
    trace : Trace
        The filter's one-row trace (counts; shares per group and beta when evaluated).
    unknown_categories : dict of str to int
        Candidates' values outside the training categories, per column (table proxies).
    group_counts : dict or None
        ``{group: {"seen": n, "admitted": n}}`` when the true groups were read.
    """

    rows: pd.DataFrame
    mask: NDArray[np.bool_]
    trace: Trace
    unknown_categories: dict[str, int] = field(default_factory=dict)
    group_counts: dict[str, dict[str, int]] | None = None

    def to_frame(self) -> pd.DataFrame:
        """Return the admitted candidates (every candidate with ``all_rows``), as :attr:`rows`.

        Their own columns in order, then ``admission_probability`` (and ``admitted``).
        """
        return self.rows.copy()

    def _caption(self) -> str:
        mask = np.asarray(self.mask, dtype=bool)
        text = f"admitted {int(mask.sum())} of {mask.size} candidates"
        if self.group_counts is not None and "beta_admitted" in self.trace.to_frame():
            text += f"; imbalance of the admitted groups {self.trace.final('beta_admitted'):.3f}"
        return text

    def summary(self) -> dict[str, Any]:
        """Return the counts as JSON types: the trace row, counts per group, unknown values."""
        row = self.trace.to_frame().to_dict("records")[-1]
        out = {str(k): _plain(v) for k, v in row.items()}
        if self.group_counts is not None:
            out["groups"] = self.group_counts
        out["unknown_categories"] = dict(self.unknown_categories)
        return out


def _plain(value: Any) -> Any:
    """Return a JSON-ready Python scalar."""
    return value.item() if hasattr(value, "item") else value


def _truth(
    proxy: FittedProxy | TableProxy,
    frame: pd.DataFrame,
    evaluate: Sequence[str] | bool | None,
    where: str,
) -> pd.Series | pd.DataFrame | None:
    """Return the true groups to report on: named columns, or a table proxy's group columns."""
    if evaluate is False:
        return None
    fitted = proxy.proxy if isinstance(proxy, TableProxy) else proxy
    if evaluate is None or evaluate is True:
        if not isinstance(proxy, TableProxy):
            if evaluate:
                raise InvalidDataError(
                    "evaluate=True needs a proxy fitted on a table (it knows the group "
                    "columns). Name the candidates' group columns instead."
                )
            return None
        cols = list(proxy.columns.sensitive)
        if not set(cols) <= set(map(str, frame.columns)):
            if evaluate:
                missing = [c for c in cols if c not in frame.columns]
                raise InvalidDataError(
                    f"{where}: no group column(s) {missing} to evaluate with. Add them, "
                    "or filter without evaluating."
                )
            return None
        if not evaluate and _unknown_groups(frame[cols], fitted):
            warn_caller(
                f"{where}: group column(s) {cols} hold groups the proxy was not fitted on "
                f"({', '.join(_unknown_groups(frame[cols], fitted)[:5])}); the admitted "
                "groups are not reported. Name known groups, or refit."
            )
            return None
        evaluate = cols
    return evaluation_groups(frame, list(evaluate), fitted.classes)


def _unknown_groups(truth: pd.DataFrame, fitted: FittedProxy) -> list[str]:
    """Return the values of a table proxy's group columns that it does not know."""
    classes = fitted.classes
    known = [fitted.groups] if classes is None else list(classes.groups)
    return [
        str(v)
        for col, groups in zip(truth.columns, known, strict=True)
        for v in sorted(set(truth[col].astype(str)) - set(groups))
    ]


def _labels(truth: pd.Series | pd.DataFrame, fitted: FittedProxy) -> pd.DataFrame:
    """One 0/1 column per group of the proxy (``class=group`` for classes)."""
    if isinstance(truth, pd.Series):
        text = truth.astype(str).reset_index(drop=True)
        return pd.DataFrame({g: (text == g).to_numpy() for g in fitted.groups})
    frame = truth.astype(str).reset_index(drop=True)
    classes = fitted.classes
    pairs = [] if classes is None else zip(classes.names, classes.groups, strict=True)
    return pd.DataFrame(
        {f"{c}={g}": (frame[c] == g).to_numpy() for c, groups in pairs for g in groups}
    )


def _group_counts(
    truth: pd.Series | pd.DataFrame, fitted: FittedProxy, mask: NDArray[np.bool_]
) -> dict[str, dict[str, int]]:
    member = _labels(truth, fitted)
    return {
        g: {"seen": int(member[g].sum()), "admitted": int(member[g][mask].sum())}
        for g in member.columns
    }


def _check_free(frame: pd.DataFrame, names: Sequence[str]) -> None:
    taken = [n for n in names if n in frame.columns]
    if taken:
        raise InvalidDataError(
            f"candidates: the table already has a column {taken[0]!r}, which the filter adds "
            "to its output. Rename that column."
        )


def filter_table(
    proxy: FittedProxy | TableProxy,
    candidates: pd.DataFrame,
    *,
    random_state: RandomState = None,
    evaluate: Sequence[str] | bool | None = None,
    all_rows: bool = False,
    where: str = "candidates",
) -> TableFilterResult:
    """Admit candidates with a proxy's probabilities (Algorithm 2); return their own rows.

    Parameters
    ----------
    proxy : TableProxy or FittedProxy
        A :class:`TableProxy` takes the candidates' raw columns (the training table's,
        with or without the label and group columns) and encodes them as in training; a
        :class:`FittedProxy` reads its encoded feature columns.
    candidates : pandas.DataFrame
    random_state : int, Generator or None, default=None
        Seeds the admission draws.
    evaluate : sequence of str, bool or None, default=None
        Where the true groups are, for the report only (never to admit): column names
        (one per group class of an intersecting proxy); None reads a table proxy's group
        columns when the candidates have them; False reads none.
    all_rows : bool, default=False
        Return every candidate with an ``admitted`` column, not only the admitted ones.
    where : str, default="candidates"
        Names the table in errors and warnings.

    Returns
    -------
    TableFilterResult

    Raises
    ------
    InvalidDataError
        On a missing feature column, a missing value the proxy may not impute, a group the
        proxy does not know, or a column name the output would repeat.

    Warns
    -----
    UserWarning
        When candidates hold categories the training table did not (encoded as zeros).
    ResultWarning
        When every candidate has the same admission probability, or 95 % or more are
        admitted: the group shares stay as they were.

    Examples
    --------
    >>> import pandas as pd
    >>> from fairacq.data import TableColumns
    >>> from fairacq.filtering import fit_table_proxy
    >>> table = pd.DataFrame({"job": ["a", "b"] * 40, "years": [i % 20 for i in range(80)],
    ...                       "sex": ["F", "M"] * 40, "hired": ["y", "n", "n", "y"] * 20})
    >>> columns = TableColumns("hired", ("sex",), positive="y")
    >>> proxy = fit_table_proxy(table, columns, "qp-tree", random_state=0)
    >>> out = filter_table(proxy, table.drop(columns=["hired"]), random_state=0)
    >>> list(out.rows.columns), sorted(out.group_counts)
    (['job', 'years', 'sex', 'admission_probability'], ['F', 'M'])
    """
    added = [PROBABILITY_COLUMN, *([ADMITTED_COLUMN] if all_rows else [])]
    _check_free(candidates, added)
    if len(candidates) == 0:
        raise InvalidDataError("filter_table: no candidates (0 rows). Pass at least one row.")
    frame = candidates.reset_index(drop=True)
    fitted = proxy.proxy if isinstance(proxy, TableProxy) else proxy
    X = proxy.encode(frame, where=where) if isinstance(proxy, TableProxy) else frame
    unknown = dict(proxy.encoder.unknown_counts_) if isinstance(proxy, TableProxy) else {}
    truth = _truth(proxy, frame, evaluate, where)
    filt = BalancedFilter(proxy=fitted, random_state=random_state).fit(X, s=truth)
    chance = fitted.admission_probability(X)
    if fitted.beta > BALANCED:  # admitting all alike is right for balanced groups
        _warn_if_alike(chance, filt.mask_, where)
    rows = frame.assign(**{PROBABILITY_COLUMN: chance})
    if all_rows:
        rows[ADMITTED_COLUMN] = filt.mask_
    else:
        rows = rows.loc[filt.mask_].reset_index(drop=True)
    counts = None if truth is None else _group_counts(truth, fitted, filt.mask_)
    unknown = {c: n for c, n in unknown.items() if n}
    return TableFilterResult(rows, filt.mask_, filt.trace_, unknown, counts)


def _warn_if_alike(chance: NDArray[np.float64], mask: NDArray[np.bool_], where: str) -> None:
    """Warn when every candidate had the same chance, or nearly everyone was admitted."""
    alike = chance.size > 1 and float(np.ptp(chance)) <= 1e-9
    if not alike and mask.mean() < NEAR_ALL:
        return
    how = f"the same chance of admission ({chance[0]:.3f})" if alike else "a high chance"
    warn_caller(
        f"{where}: every candidate had {how}, so {int(mask.sum())} of "
        f"{mask.size} were admitted and the groups' shares stay as they were. The proxy "
        "cannot tell the groups apart (see the warning of `filter fit` in its summary); "
        "refit it with columns that differ between the groups, or a larger --alpha.",
        ResultWarning,
    )


def run_summary(
    command: str,
    report: Mapping[str, Any],
    *,
    config: Mapping[str, Any],
    seed: int | None,
    warnings: Sequence[str] = (),
) -> dict[str, Any]:
    """Return the JSON record of a command's run: what it did, with what, and what warned.

    Parameters
    ----------
    command : str
        E.g. ``"filter fit"``.
    report : mapping
        The run's numbers (JSON types), kept at the top level.
    config : mapping
        The options and files the run used.
    seed : int or None
    warnings : sequence of str
        Every warning issued, in order.
    """
    return {
        "command": command,
        "fairacq_version": __version__,
        "seed": seed,
        "config": dict(config),
        **dict(report),
        "warnings": list(warnings),
    }
