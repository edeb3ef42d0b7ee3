"""Proxies by name, fitted on a dataset; the true groups of candidates for evaluation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from fairacq._random import RandomState
from fairacq._typing import LearnerLike
from fairacq._validation import check_known_params, did_you_mean
from fairacq.data import FairDataset
from fairacq.exceptions import InvalidDataError, InvalidParameterError
from fairacq.filtering._membership import GroupClasses
from fairacq.filtering.proxies._proxies import LabelProxy
from fairacq.filtering.proxies._tree import AlphaBetaProxy

__all__ = ["PROXY_NAMES", "evaluation_groups", "fit_proxy", "make_proxy"]

#: Names accepted by :func:`make_proxy`.
PROXY_NAMES = ("naive-regression", "qp-regression", "naive-tree", "qp-tree", "alpha-beta")

#: The :class:`LabelProxy` of each name: (predictor, weights).
_LABEL_PROXIES: dict[str, tuple[str, str]] = {
    "naive-regression": ("regression", "naive"),
    "qp-regression": ("regression", "qp"),
    "naive-tree": ("tree", "naive"),
    "qp-tree": ("tree", "qp"),
}


def make_proxy(
    name: str,
    *,
    alpha: float = 0.2,
    gamma: float = 0.1,
    model: LearnerLike | None = None,
    random_state: RandomState = None,
    **unknown: Any,
) -> LabelProxy | AlphaBetaProxy:
    """Build an unfitted proxy by name.

    Parameters
    ----------
    name : str
        One of :data:`PROXY_NAMES`.
    alpha, gamma : float
        Disclosivity allowed and progress parameter of :class:`AlphaBetaProxy` (the other
        proxies take no parameter).
    model : str, estimator or None, default=None
        The classifier of a naive or QP proxy (their ``estimator``: a name of
        :func:`fairacq.models.make_learner`, ``"module:Class"``, or a scikit-learn
        classifier or Pipeline); None keeps the proxy's logistic regression or tree. The
        (alpha, beta)-proxy trains no classifier and refuses it.
    random_state : int, Generator or None, default=None
        Seeds the tree proxies' tie-breaking and the classifier (the others are
        deterministic).
    **unknown
        Refused: any other keyword (a typo such as ``alhpa``) raises.

    Raises
    ------
    UnknownNameError
        With the closest name.
    InvalidParameterError
        On ``model`` with ``"alpha-beta"``, or on any other keyword, naming the closest one.

    Examples
    --------
    >>> make_proxy("qp-tree")
    LabelProxy(predictor='tree', weights='qp')
    """
    check_known_params("make_proxy", unknown, ("alpha", "gamma", "model", "random_state"))
    if name == "alpha-beta":
        if model is not None:
            raise InvalidParameterError(
                "--model (model=) applies to the naive and QP proxies, which train a "
                "classifier; the alpha-beta proxy's splits come from its own split game. "
                "Drop --model or pick e.g. --proxy qp-tree."
            )
        return AlphaBetaProxy(alpha=alpha, gamma=gamma)
    if name not in _LABEL_PROXIES:
        raise did_you_mean("proxy", name, PROXY_NAMES, "fairacq filter fit --help")
    predictor, weights = _LABEL_PROXIES[name]
    return LabelProxy(
        predictor=predictor, weights=weights, estimator=model, random_state=random_state
    )


def fit_proxy(
    data: FairDataset,
    proxy: str = "alpha-beta",
    *,
    sensitive: Sequence[str] | None = None,
    alpha: float = 0.2,
    gamma: float = 0.1,
    model: LearnerLike | None = None,
    random_state: RandomState = None,
) -> LabelProxy | AlphaBetaProxy:
    """Fit proxy ``proxy`` on a labelled sample.

    Parameters
    ----------
    data : FairDataset
        The labelled sample.
    proxy : str, default="alpha-beta"
        One of :data:`PROXY_NAMES`.
    sensitive : sequence of str or None, default=None
        None or one attribute: balance the groups of ``data`` (every group, in code order).
        Several attributes: balance them as intersecting group classes (App. A.2), one
        class per attribute.
    alpha, gamma, model, random_state
        See :func:`make_proxy`.

    Returns
    -------
    The fitted proxy; its groups are the dataset's group names (``data.group_names``).

    Warns
    -----
    UnreachableTargetWarning
        When the proxy cannot reach the balance target.
    """
    if not isinstance(data, FairDataset):
        raise InvalidDataError(
            f"fit_proxy: data must be a FairDataset, got {type(data).__name__}. Build one with "
            "fairacq.FairDataset(X, y, sensitive), or fit a raw table with fit_table_proxy."
        )
    fitted = make_proxy(proxy, alpha=alpha, gamma=gamma, model=model, random_state=random_state)
    if sensitive is None or len(sensitive) <= 1:
        # The groups' names, not their codes: candidates are evaluated by name.
        names = np.asarray(data.group_names, dtype=object)
        return fitted.fit(data.X, names[data.s], groups=list(data.group_names))
    # Intersecting classes: the dataset's sensitive columns, one per class.
    return fitted.fit(data.with_sensitive(*sensitive))


def evaluation_groups(
    frame: pd.DataFrame, columns: Sequence[str], classes: GroupClasses | None
) -> pd.Series | pd.DataFrame:
    """Return the true groups of candidates, to evaluate a filter (never to admit).

    Parameters
    ----------
    frame : pandas.DataFrame
        The candidates.
    columns : sequence of str
        Columns of ``frame`` holding the true groups: one for a proxy of one group
        attribute, one per class (in the proxy's class order) for an intersecting proxy.
    classes : GroupClasses or None
        The proxy's classes (``FittedProxy.classes``), None for one attribute.

    Returns
    -------
    pandas.Series or pandas.DataFrame
        The groups (a frame with the classes' names as columns when intersecting).

    Raises
    ------
    InvalidDataError
        If a column is missing or the number of columns does not match the proxy.
    """
    cols = [c.strip() for c in columns]
    missing = [c for c in cols if c not in frame.columns]
    if missing or not all(cols):
        raise InvalidDataError(
            f"--evaluate names column(s) {missing or cols} that the input lacks. Pass the "
            "input's columns holding the true groups, separated by commas."
        )
    if classes is None:
        if len(cols) != 1:
            raise InvalidDataError(
                f"--evaluate: the proxy has one group attribute but {len(cols)} columns were "
                "given. Pass one column."
            )
        return frame[cols[0]]
    if len(cols) != len(classes.names):
        raise InvalidDataError(
            f"--evaluate: the proxy balances the group classes {list(classes.names)}; pass "
            f"one column per class, in that order. Got {cols}."
        )
    # The proxy's classes are named after the sensitive columns it was fitted on.
    return frame[cols].set_axis(list(classes.names), axis=1)
