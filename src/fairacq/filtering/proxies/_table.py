"""A proxy fitted on a user's raw table: it encodes candidates the way it was trained.

:func:`fit_table_proxy` reads the roles of a table's columns (:class:`~fairacq.data.TableColumns`:
label, group column(s), columns to drop or one-hot encode), fits a
:class:`~fairacq.data.TableEncoder` on the training rows' raw feature columns and a proxy
on the encoded features. The :class:`TableProxy` it returns takes candidates' raw columns
(the training table's, with or without the label and group columns), encodes them with the
stored encoder and applies the proxy; it saves as plain JSON with the encoder and the
column roles (:func:`~fairacq.filtering.save_proxy`). :func:`fit_proxy_report` checks what
a fit achieved on its training rows and warns (:class:`~fairacq.exceptions.ResultWarning`)
when it is not what was asked.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from fairacq._random import RandomState
from fairacq._trace import Trace
from fairacq._typing import LearnerLike
from fairacq._warnings import warn_caller
from fairacq.data._columns import TableColumns, prepare_table
from fairacq.data._dataset import FairDataset
from fairacq.data._encoder import TableEncoder
from fairacq.exceptions import ResultWarning
from fairacq.filtering._membership import GroupClasses
from fairacq.filtering._weights import UnreachableTargetWarning
from fairacq.filtering.proxies._estimator import EstimatorRule
from fairacq.filtering.proxies._factory import fit_proxy
from fairacq.filtering.proxies._holdout import admits_everyone_problem, held_out_group_check
from fairacq.filtering.proxies._proxies import FittedProxy, LabelProxy
from fairacq.filtering.proxies._tree import AlphaBetaProxy

__all__ = ["TableProxy", "fit_proxy_report", "fit_table_proxy", "training_group_counts"]

#: Fewer training rows than this in a group makes its row of A too noisy to trust.
MIN_GROUP_ROWS = 30


@dataclass(frozen=True, eq=False)
class TableProxy:
    """A fitted proxy with the encoder and column roles of the table it was trained on.

    Attributes
    ----------
    proxy : FittedProxy
        The proxy on the encoded features (what :class:`BalancedFilter` applies).
    encoder : TableEncoder
        Encodes candidates' raw feature columns as on the training table.
    columns : TableColumns
        The roles of the training table's columns (label, group column(s), ...).
    report : dict
        What the fit achieved on its training rows (JSON types; see
        :func:`fit_proxy_report`).
    trace : Trace or None
        The fit's trace (the proxy strategy's ``trace_``); not part of the proxy's JSON, so
        None for a proxy loaded from a file.
    """

    proxy: FittedProxy
    encoder: TableEncoder
    columns: TableColumns
    report: dict[str, Any] = field(default_factory=dict)
    trace: Trace | None = None

    @property
    def fitted_(self) -> FittedProxy:
        """The proxy on encoded features (read by :class:`BalancedFilter`)."""
        return self.proxy

    @property
    def groups(self) -> tuple[str, ...]:
        """Group names (``"class=group"`` for several group columns)."""
        return self.proxy.groups

    @property
    def classes(self) -> GroupClasses | None:
        """The group classes when trained on several group columns."""
        return self.proxy.classes

    @property
    def method(self) -> str:
        """The proxy's name."""
        return self.proxy.method

    @property
    def alpha(self) -> float:
        """In-sample disclosivity."""
        return self.proxy.alpha

    @property
    def beta(self) -> float:
        """In-sample expected imbalance of the admitted rows."""
        return self.proxy.beta

    def encode(self, frame: pd.DataFrame, *, where: str = "candidates") -> pd.DataFrame:
        """Encode candidates' raw columns (unknown categories become zeros, with a warning).

        Raises
        ------
        InvalidDataError
            On a missing feature column, or a missing value without stored ``impute``.
        """
        return self.encoder.transform(frame, where=where)

    def admission_probability(self, frame: pd.DataFrame) -> NDArray[np.float64]:
        """Return each candidate's admission probability from its raw columns."""
        return self.proxy.admission_probability(self.encode(frame))

    def proxy_values(
        self, frame: pd.DataFrame, *, random_state: RandomState = None
    ) -> NDArray[np.int64]:
        """Return each candidate's proxy value from its raw columns."""
        return self.proxy.proxy_values(self.encode(frame), random_state=random_state)


def training_group_counts(data: FairDataset, fitted: FittedProxy) -> dict[str, int]:
    """Return the training rows of each of the proxy's groups (``"class=group"`` for classes)."""
    if fitted.classes is None:
        names = np.asarray(data.group_names, dtype=object)[data.s]
        labels = pd.Series(names).astype(str)
        return {g: int((labels == g).sum()) for g in fitted.groups}
    sens = data.sensitive.astype(str)
    return {
        f"{c}={g}": int((sens[c] == g).sum())
        for c, groups in zip(fitted.classes.names, fitted.classes.groups, strict=True)
        for g in groups
    }


def _group_accuracy(data: FairDataset, fitted: FittedProxy) -> float | None:
    """In-sample accuracy of a label proxy at predicting the group (None otherwise)."""
    if fitted.classes is not None or fitted.method == "alpha-beta":
        return None
    lookup = {g: i for i, g in enumerate(fitted.groups)}
    names = np.asarray(data.group_names, dtype=object)[data.s]
    codes = np.array([lookup[str(n)] for n in names], dtype=np.int64)
    return float(np.mean(fitted.proxy_values(data.X) == codes))


def _model_name(model: Any) -> str | None:
    if model is None:
        return None
    from fairacq.models import describe_learner

    return str(describe_learner(model))


def fit_proxy_report(
    data: FairDataset,
    proxy: str = "alpha-beta",
    *,
    sensitive: Sequence[str] | None = None,
    alpha: float = 0.2,
    gamma: float = 0.1,
    model: LearnerLike | None = None,
    random_state: RandomState = None,
    max_beta: float = 0.1,
) -> tuple[LabelProxy | AlphaBetaProxy, dict[str, Any]]:
    """Fit a proxy with :func:`fit_proxy` and report what it achieved on its training rows.

    Parameters
    ----------
    data, proxy, sensitive, alpha, gamma, model, random_state
        As in :func:`fit_proxy`.
    max_beta : float, default=0.1
        The in-sample imbalance asked for (the (alpha, beta)-tree's stop rule): a larger
        in-sample beta warns.

    Returns
    -------
    model : fitted proxy
    report : dict
        JSON types: proxy, model, rows, rows per group, in-sample alpha, beta, acceptance
        rate, number of proxy values, the classifier's group accuracy (label proxies) and
        a classifier's group accuracy on 25 % held-out rows beside the largest group's share.

    Warns
    -----
    ResultWarning
        When the in-sample beta is above ``max_beta`` (the target is out of the proxy's
        reach), the in-sample alpha above the ``alpha`` asked (alpha-beta), the classifier
        predicts one group for every row (training or held-out), the filter admits (nearly)
        everyone alike (with why: no signal in the columns, or too small an alpha), or a
        group has fewer than 30 training rows.

    Raises
    ------
    DegenerateModelError
        When the proxy's classifier gives probabilities that are NaN or outside [0, 1].
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UnreachableTargetWarning)
        fitted_model = fit_proxy(
            data,
            proxy,
            sensitive=sensitive,
            alpha=alpha,
            gamma=gamma,
            model=model,
            random_state=random_state,
        )
    for w in caught:
        if not issubclass(w.category, UnreachableTargetWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    fitted: FittedProxy = fitted_model.fitted_
    report: dict[str, Any] = {
        "proxy": proxy,
        "model": _model_name(model),
        "saveable": not isinstance(fitted.rule, EstimatorRule),
        "n_rows": len(data),
        "rows_per_group": training_group_counts(data, fitted),
        "alpha": float(fitted.alpha),
        "beta": float(fitted.beta),
        "acceptance_rate": float(fitted.acceptance_rate),
        "n_values": len(fitted.proxy_marginal),
        "group_accuracy": _group_accuracy(data, fitted),
    }
    problems = _held_out_problems(data, report, fitted, (alpha, max_beta), model, random_state)
    # Admitting everyone alike says why the imbalance stays; the beta advice would not fit.
    alike = any(p.startswith("the filter admits") for p in problems)
    problems += _fit_problems(report, fitted, proxy, alpha, 1.0 if alike else max_beta)
    for message in problems:
        warn_caller(message, ResultWarning)
    return fitted_model, report


def _held_out_problems(
    data: FairDataset,
    report: dict[str, Any],
    fitted: FittedProxy,
    asked: tuple[float, float],
    model: Any,
    random_state: RandomState,
) -> list[str]:
    """Check the columns' signal and the proxy's classifier on held-out rows.

    One group column only: intersecting classes are balanced class by class, not cell by
    cell, so a classifier of the cells says little about them. ``asked`` is (alpha,
    max_beta).
    """
    if fitted.classes is not None:
        return []
    check = held_out_group_check(data, random_state=random_state)
    report.update(check.to_dict())
    used = fitted.rho[fitted.proxy_marginal > 0]
    spread = float(np.ptp(used)) if used.size else 0.0
    problems = [p for p in (admits_everyone_problem(report, spread, check, *asked),) if p]
    own = None if model is None else held_out_group_check(data, model=model,
                                                          random_state=random_state)  # fmt: skip
    if own is not None and own.one_group is not None:
        problems.append(
            f"the proxy's classifier {report['model']} predicts group {own.one_group!r} for "
            f"every one of the {own.n_rows} held-out rows, so it cannot tell candidates "
            "apart. Use another --model or more informative columns."
        )
    return problems


def _fit_problems(
    report: Mapping[str, Any], fitted: FittedProxy, proxy: str, alpha: float, max_beta: float
) -> list[str]:
    """Say where a fit falls short of what was asked, one sentence each."""
    problems = []
    if report["beta"] > max_beta:
        problems.append(
            f"in-sample beta (the imbalance of the admitted set) {report['beta']:.3f} is "
            f"above {max_beta:g}: even on the training rows it is not balanced. Use a more "
            "informative "
            "proxy (qp-tree, a larger --alpha) or accept this imbalance."
        )
    if proxy == "alpha-beta" and report["alpha"] > alpha + 1e-9:
        problems.append(
            f"in-sample alpha {report['alpha']:.3f} is above the {alpha:g} asked, which the "
            "tree should rule out. Please report it with the data."
        )
    if proxy != "alpha-beta" and np.count_nonzero(fitted.proxy_marginal) == 1:
        problems.append(
            f"the {proxy} proxy predicts one group for every training row (group accuracy "
            f"{report['group_accuracy'] or 0:.3f}), so it cannot steer admissions. Use another "
            "--model or more informative features."
        )
    for group, n in report["rows_per_group"].items():
        if n < MIN_GROUP_ROWS:
            problems.append(
                f"group {group!r} has {n} training rows (< {MIN_GROUP_ROWS}): its admission "
                "rate rests on too few rows to trust. Label more rows of that group."
            )
    return problems


def fit_table_proxy(
    frame: pd.DataFrame,
    columns: TableColumns,
    proxy: str = "alpha-beta",
    *,
    alpha: float = 0.2,
    gamma: float = 0.1,
    model: LearnerLike | None = None,
    random_state: RandomState = None,
    max_beta: float = 0.1,
    name: str = "table",
) -> TableProxy:
    """Fit a proxy on a raw table: encode its feature columns, learn the groups' proxy.

    Parameters
    ----------
    frame : pandas.DataFrame
        The labelled sample, raw (strings, numbers; gaps only with ``columns.impute``).
    columns : TableColumns
        Label, group column(s) (several: intersecting group classes, Deng et al. App. A.2),
        columns to drop or one-hot encode, favourable label value, imputation.
    proxy : str, default="alpha-beta"
        One of :data:`PROXY_NAMES`.
    alpha, gamma : float
        Disclosivity allowed and progress parameter of the (alpha, beta)-proxy.
    model : str, estimator or None, default=None
        The classifier of a naive or QP proxy (see :func:`make_proxy`); a Pipeline too. It
        is trained on the encoded features.
    random_state : int, Generator or None, default=None
        Seeds the tree proxies and the classifier.
    max_beta : float, default=0.1
        In-sample imbalance above which a :class:`ResultWarning` is issued.
    name : str, default="table"
        Names the table in errors.

    Returns
    -------
    TableProxy

    Raises
    ------
    InvalidDataError
        On a missing role column, a label that is not 0/1 without ``positive``, a missing
        value without ``impute``, a single group, ...

    Warns
    -----
    ResultWarning
        See :func:`fit_proxy_report`.

    Examples
    --------
    >>> import pandas as pd
    >>> from fairacq.data import TableColumns
    >>> table = pd.DataFrame({"job": ["a", "b"] * 40, "years": [i % 20 for i in range(80)],
    ...                       "sex": ["F", "M"] * 40, "hired": ["y", "n", "n", "y"] * 20})
    >>> columns = TableColumns("hired", ("sex",), positive="y")
    >>> proxy = fit_table_proxy(table, columns, "qp-tree", random_state=0)
    >>> proxy.groups, proxy.encoder.feature_names_
    (('F', 'M'), ['job=a', 'job=b', 'years'])
    """
    table = prepare_table(frame, columns, name=name)
    fitted_model, report = fit_proxy_report(
        table.dataset,
        proxy,
        sensitive=list(columns.sensitive),
        alpha=alpha,
        gamma=gamma,
        model=model,
        random_state=random_state,
        max_beta=max_beta,
    )
    trace = getattr(fitted_model, "trace_", None)
    return TableProxy(fitted_model.fitted_, table.encoder, columns, report, trace)
