"""Group thresholds when a group's labelled rows hold one label only: a documented fallback.

fairlearn's ``ThresholdOptimizer`` traces each group's accuracy against its rate and refuses a
group whose rows are all positive or all negative ("Degenerate labels"). Such cells are
common on small validation splits (COMPAS split by Falcon's recipe has one). Here the
thresholds are fitted on the groups with both labels, and each one-label group gets:

- demographic parity (rates need no labels): the rate inside the tolerance band of the other
  groups' rates that is best for its own label (lowest if all its rows are negative, highest
  if all are positive), placed at that quantile of its own rows' scores;
- equal opportunity / equalized odds (rates among positives or negatives, undefined here):
  the model's own threshold, 0.5, so the gap is closed among the other groups only.

The rule says so in :attr:`PartialThresholds.note`, a plain sentence the caller turns into a
warning.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from fairacq._typing import ArrayLike, Classifier
from fairacq.data import FairDataset
from fairacq.exceptions import InvalidDataError
from fairacq.models._group_thresholds import thresholds_at_rates
from fairacq.models._mitigated_model import quiet_fairlearn

if TYPE_CHECKING:
    from fairlearn.postprocessing import ThresholdOptimizer

__all__ = ["PartialThresholds", "one_label_groups"]


@dataclass
class PartialThresholds:
    """fairlearn's thresholds for some groups, one fixed threshold for the others.

    Attributes
    ----------
    estimator : estimator
        The fitted model (``predict_proba``), left unchanged.
    fitted : ThresholdOptimizer
        fairlearn's rule, fitted on the rows of the groups with both labels.
    fixed : dict of int to float
        Group code -> its deterministic threshold (the one-label groups).
    note : str
        Which groups fell back, and to what (a warning's text).
    """

    estimator: Classifier
    fitted: ThresholdOptimizer
    fixed: dict[int, float]
    note: str

    def chances(self, X: ArrayLike, *, sensitive_features: ArrayLike) -> NDArray[np.float64]:
        """Return each row's chance of a positive prediction."""
        X = np.asarray(X)
        groups = np.asarray(sensitive_features, dtype=np.int64)
        out = np.zeros(len(groups), dtype=np.float64)
        fixed = np.isin(groups, list(self.fixed))
        if fixed.any():
            scores = self.estimator.predict_proba(X[fixed])[:, 1]
            cuts = np.array([self.fixed[int(g)] for g in groups[fixed]])
            out[fixed] = (scores > cuts).astype(np.float64)
        if not fixed.all():
            with quiet_fairlearn():
                pmf = self.fitted._pmf_predict(X[~fixed], sensitive_features=groups[~fixed])
            out[~fixed] = np.asarray(pmf)[:, 1]
        return out

    def predict(
        self, X: ArrayLike, *, sensitive_features: ArrayLike, random_state: int | None = None
    ) -> NDArray[np.int64]:
        """Return 0/1 predictions, each drawn with its row's chance (seeded as fairlearn's)."""
        chances = self.chances(X, sensitive_features=sensitive_features)
        coin = np.random.RandomState(random_state).rand(len(chances))
        return (chances >= coin).astype(np.int64)


def one_label_groups(dataset: FairDataset) -> dict[int, int]:
    """Return each group whose rows of ``dataset`` hold one label only, with that label.

    Raises :class:`~fairacq.exceptions.InvalidDataError` when a group has no row at all, or
    when no group holds both labels (no threshold can then be chosen for accuracy).

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> ds = load_toy(200, random_state=0)
    >>> one_label_groups(ds)
    {}
    """
    s, y = np.asarray(dataset.s, dtype=np.int64), np.asarray(dataset.y, dtype=np.int64)
    out: dict[int, int] = {}
    for g, name in enumerate(dataset.group_names):
        labels = np.unique(y[s == g])
        if labels.size == 0:
            raise InvalidDataError(
                f"group thresholds: the labelled rows hold no row of group {name!r}; give "
                "validation rows of every group."
            )
        if labels.size == 1:
            out[g] = int(labels[0])
    if len(out) == dataset.n_groups:
        raise InvalidDataError(
            "group thresholds: no group's labelled rows hold both labels, so no threshold "
            "can be chosen for accuracy; give validation rows of both labels."
        )
    return out


def fallback_thresholds(
    model: Any, fitted: Any, dataset: FairDataset, one_label: dict[int, int], **how: Any
) -> PartialThresholds:
    """Return ``fitted`` (fitted on the other groups) plus a threshold per one-label group.

    ``how`` holds ``constraint`` (fairlearn's name) and ``tol``.
    """
    names = dataset.group_names
    cells = ", ".join(f"group {names[g]!r} has label {y} only" for g, y in one_label.items())
    if how["constraint"] != "demographic_parity":
        fixed = dict.fromkeys(one_label, 0.5)
        note = (
            f"group thresholds: in the validation rows {cells}, so its error rates cannot be "
            "measured; it keeps the model's own threshold (0.5) and the gap is closed among "
            "the other groups only. Give validation rows of both labels in every group."
        )
        return PartialThresholds(model, fitted, fixed, note)
    fixed = _dp_cuts(model, fitted, dataset, one_label, float(how["tol"]))
    note = (
        f"group thresholds: in the validation rows {cells}, so its selection rate was set "
        "to the other groups' rate (within the tolerance) rather than chosen for accuracy. "
        "Give validation rows of both labels in every group."
    )
    return PartialThresholds(model, fitted, fixed, note)


def _dp_cuts(
    model: Any, fitted: Any, dataset: FairDataset, one_label: dict[int, int], tol: float
) -> dict[int, float]:
    """Each one-label group's threshold at the rate its label prefers inside the others' band."""
    s, X = np.asarray(dataset.s, dtype=np.int64), dataset.to_numpy()
    kept = ~np.isin(s, list(one_label))
    rule = PartialThresholds(model, fitted, {}, "")
    chances = rule.chances(X[kept], sensitive_features=s[kept])
    rates = [chances[s[kept] == g].mean() for g in np.unique(s[kept])]
    low, high = max(0.0, max(rates) - tol), min(1.0, min(rates) + tol)
    low, high = min(low, high), max(low, high)  # an empty band: stay between the rates
    wanted = np.array([high if one_label.get(g) == 1 else low for g in range(dataset.n_groups)])
    scores = model.predict_proba(X)[:, 1]
    cuts = thresholds_at_rates(scores, s, wanted, dataset.group_names)
    return {g: float(cuts[g]) for g in one_label}
