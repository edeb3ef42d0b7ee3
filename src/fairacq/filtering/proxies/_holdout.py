"""Can the features tell the groups apart? A classifier checked on held-out rows.

A filter blind to the groups can change their shares only through features that differ
between groups. :func:`held_out_group_check` fits a classifier of the group (the proxy's own
model, or a logistic regression) on three quarters of the labelled sample and scores it on
the rest: its accuracy against always guessing the largest group says whether the features
carry any signal, and a classifier that predicts one group for every held-out row, or whose
probabilities are not numbers, is named (:func:`~fairacq.models.is_one_class`,
:func:`~fairacq.models.check_probabilities`). :func:`admits_everyone_problem` words why a
filter admits every candidate alike and what would make it select.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fairacq._random import RandomState
from fairacq.data._dataset import FairDataset
from fairacq.exceptions import DegenerateModelError
from fairacq.models import check_probabilities, is_one_class, make_learner

__all__ = ["HeldOutCheck", "admits_everyone_problem", "held_out_group_check"]

#: Held-out accuracy must beat the largest group's share by this much to count as signal.
SIGNAL_MARGIN = 0.02
#: Acceptance at or above this share counts as admitting (nearly) everyone.
NEAR_ALL = 0.95


@dataclass(frozen=True)
class HeldOutCheck:
    """How well a classifier of the group does on held-out rows.

    Attributes
    ----------
    accuracy : float
        Share of held-out rows whose group it guesses right.
    majority_share : float
        Share of the held-out rows in the largest group (what always guessing it scores).
    largest_group : str
    n_rows : int
        Held-out rows.
    one_group : str or None
        The group it predicts for every held-out row, if it predicts one only.
    """

    accuracy: float
    majority_share: float
    largest_group: str
    n_rows: int
    one_group: str | None

    @property
    def has_signal(self) -> bool:
        """Whether the features guess the group better than the largest group's share."""
        return self.accuracy > self.majority_share + SIGNAL_MARGIN

    def to_dict(self) -> dict[str, Any]:
        """Return the check as JSON types."""
        return {
            "held_out_group_accuracy": self.accuracy,
            "largest_group_share": self.majority_share,
            "held_out_rows": self.n_rows,
        }


def held_out_group_check(
    data: FairDataset, *, model: Any = None, random_state: RandomState = None
) -> HeldOutCheck:
    """Fit a classifier of the group on 75 % of ``data`` and score it on the other 25 %.

    Parameters
    ----------
    data : FairDataset
        The labelled sample (its groups: the intersection of its sensitive attributes).
    model : str, estimator or None, default=None
        The classifier (:func:`~fairacq.models.make_learner`); None is ``"lr"``.
    random_state : int, Generator or None, default=None
        Seeds the split and the classifier.

    Returns
    -------
    HeldOutCheck

    Raises
    ------
    DegenerateModelError
        When the classifier's probabilities are NaN or outside [0, 1].

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> check = held_out_group_check(load_toy(), random_state=0)
    >>> 0.0 <= check.accuracy <= 1.0
    True
    """
    from sklearn.model_selection import train_test_split

    X, codes = data.X.to_numpy(dtype=np.float64), data.s
    seed = int(np.random.default_rng(random_state).integers(2**31 - 1))
    X_fit, X_out, s_fit, s_out = train_test_split(
        X, codes, test_size=0.25, random_state=seed, stratify=codes
    )
    estimator = make_learner("lr" if model is None else model, random_state=seed)
    estimator.fit(X_fit, s_fit)
    if hasattr(estimator, "predict_proba"):
        proba = np.asarray(estimator.predict_proba(X_out), dtype=np.float64)
        where = "the proxy's classifier of the group"
        _check_columns(proba, len(np.unique(s_fit)), where)
        check_probabilities(proba.reshape(-1), where=where)
    pred = np.asarray(estimator.predict(X_out))
    names = np.asarray(data.group_names, dtype=object)
    counts = np.bincount(s_out, minlength=len(names))
    return HeldOutCheck(
        accuracy=float(np.mean(pred == s_out)),
        majority_share=float(counts.max() / len(s_out)),
        largest_group=str(names[int(np.argmax(counts))]),
        n_rows=len(s_out),
        one_group=str(names[int(pred[0])]) if is_one_class(pred) else None,
    )


def _check_columns(proba: NDArray[np.float64], n_groups: int, where: str) -> None:
    """Refuse probabilities that are not one column per group (no classifier's output)."""
    if proba.ndim != 2 or proba.shape[1] != n_groups:
        found = proba.shape[1] if proba.ndim == 2 else f"shape {proba.shape}"
        raise DegenerateModelError(
            f"{where} gave probabilities with {found} column(s) for {n_groups} groups, not one "
            "per group: its predict_proba is not a classifier's. Use another model."
        )


def admits_everyone_problem(
    report: Mapping[str, Any],
    rho_spread: float,
    check: HeldOutCheck,
    alpha: float,
    max_beta: float = 0.1,
) -> str | None:
    """Return why a filter cannot balance new candidates, or None when it can.

    Two cases: it admits (nearly) every candidate alike (with why, and what would make it
    select), or it selects although the columns carry no signal about the group on held-out
    rows (its in-sample balance is chance).

    Parameters
    ----------
    report : mapping
        The fit's report (``acceptance_rate``, ``rows_per_group``, ``proxy``).
    rho_spread : float
        Largest minus smallest admission probability over the proxy's values.
    check : HeldOutCheck
        Whether the features carry any signal about the group.
    alpha : float
        The disclosure allowed (alpha-beta proxies).
    max_beta : float, default=0.1
        The imbalance asked for: a fit within it needs no warning (admitting everyone is
        right when the groups are balanced already).
    """
    acceptance = float(report["acceptance_rate"])
    if float(report["beta"]) <= max_beta:  # balanced already: admitting all is right
        return None
    seen = (
        f"a classifier of the group trained on the other columns guesses it right for "
        f"{100 * check.accuracy:.0f} % of held-out rows, against {100 * check.majority_share:.0f}"
        f" % by always guessing {check.largest_group!r}"
    )
    if rho_spread > 1e-9 and acceptance < NEAR_ALL:
        if check.has_signal:
            return None
        return (
            f"the columns the filter reads do not tell the groups apart ({seen}), so the "
            f"balance it reaches on the training rows (beta {report['beta']:.3f}) comes from "
            "chance in this sample and will not hold for new candidates. Add columns that "
            "differ between the groups."
        )
    total = sum(report["rows_per_group"].values())
    shares = ", ".join(f"{g} {n / total:.2f}" for g, n in report["rows_per_group"].items())
    alike = "every candidate with the same chance" if rho_spread <= 1e-9 else "nearly everyone"
    head = (
        f"the filter admits {alike} (acceptance {acceptance:.3f}), so the admitted set "
        f"keeps the groups' shares as they are ({shares})"
    )
    if not check.has_signal:
        return (
            f"{head}: the columns it may read do not tell the groups apart ({seen}), so no "
            "filter blind to the groups can change their shares. Add columns that differ "
            "between the groups, or accept the shares as they are."
        )
    if report.get("proxy") == "alpha-beta":
        return (
            f"{head}, although the columns carry some signal ({seen}): no split keeps what the "
            f"filter discloses about a person's group within --alpha {alpha:g}. Raise --alpha "
            "(e.g. 0.4) or use --proxy qp-tree to let it select."
        )
    return (
        f"{head}, although the columns carry some signal ({seen}). Try --proxy alpha-beta or "
        "another --model."
    )
