"""Baselines that show why per-individual acquisition matters (Bakker et al., §1 and §4).

Three static answers to "which features may the data collector see?", each the same for
every individual:

- the **full-feature classifier** (the black square of Fig. 2c): every feature group;
- the classifier **without the sensitive attribute**: every group except the ones that
  encode the sensitive attribute itself (:func:`sensitive_feature_groups`). Its proxies are
  not removed: which features are proxies is a threshold choice, not a definition, and the
  static selection below is the principled version of removing them;
- **static fair feature selection** (Grgić-Hlača et al. 2018, cited in §1): one subset of
  feature groups for everybody, grown by greedy forward selection that maximises
  ``AUC - lam * disparity`` and stops when no group improves it; tracing ``lam`` over a
  grid gives a front (:func:`static_selection_front`).

A subset is scored by a callable ``score(group_mask) -> (auc, disparity)``:
:class:`LearnerScorer` retrains a scikit-learn learner on the subset's columns (logistic
regression by default), :class:`AgentScorer` asks a fitted DADI agent's classifier for
``predict_proba(X, mask=...)`` with the subset's columns revealed for every row. Disparity is
``|P(yhat=1 | b=0) - P(yhat=1 | b=1)|`` with ``yhat = 1[p >= 0.5]`` (§4; the largest gap
for more than two groups) and AUC is ROC AUC, both from :func:`fairacq.metrics.compute`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeAlias

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from sklearn.exceptions import ConvergenceWarning

from fairacq._random import RandomState, derive_int_seed
from fairacq.data import FairDataset
from fairacq.exceptions import InvalidDataError, InvalidParameterError
from fairacq.metrics import compute, pareto_front
from fairacq.models import make_learner

__all__ = [
    "AgentScorer",
    "LearnerScorer",
    "StaticSelection",
    "SubsetScore",
    "column_mask",
    "fixed_subset_baselines",
    "greedy_fair_selection",
    "score_predictions",
    "sensitive_feature_groups",
    "static_selection_front",
]

#: ``score(group_mask) -> (auc, disparity)`` for a boolean mask over feature groups.
SubsetScore: TypeAlias = Callable[[NDArray[np.bool_]], tuple[float, float]]


class _MaskedClassifier(Protocol):
    def predict_proba(
        self, X: pd.DataFrame, *, mask: NDArray[np.bool_] | None = None
    ) -> NDArray[np.float64]: ...


def score_predictions(y: ArrayLike, proba: ArrayLike, s: ArrayLike) -> tuple[float, float]:
    """Return ROC AUC and demographic disparity of probabilities ``proba``.

    Parameters
    ----------
    y : array-like of shape (n,)
        Binary labels.
    proba : array-like of shape (n,)
        Predicted P(y=1); the decision is ``proba >= 0.5`` (Bakker et al., §4).
    s : array-like of shape (n,)
        Group codes.

    Returns
    -------
    (float, float)
        ``auc_roc`` and ``demographic_parity_diff_abs`` of the thresholded predictions.

    Examples
    --------
    >>> score_predictions([0, 1, 0, 1], [0.2, 0.9, 0.8, 0.7], [0, 0, 1, 1])
    (0.75, 0.5)
    """
    p = np.asarray(proba, dtype=float).reshape(-1)
    y_pred = (p >= 0.5).astype(np.int64)
    auc = compute("auc_roc", y, scores=p)
    disparity = compute("demographic_parity_diff_abs", y_pred=y_pred, s=s)
    return float(auc), float(disparity)


def sensitive_feature_groups(dataset: FairDataset) -> list[str]:
    """Names of the feature groups that encode the dataset's sensitive attribute(s).

    A group matches an attribute when their names are equal ignoring case (Adult's ``sex``,
    ACS's ``SEX``, Bank Marketing's ``age``), or when the attribute is a coarsening named
    ``<group>_...`` (Adult's ``race_binary`` is encoded by the group ``race``). Empty when the
    sensitive columns are not among the features.

    Examples
    --------
    >>> from fairacq.data import load_adult
    >>> sensitive_feature_groups(load_adult(include_sensitive_features=True))
    ['sex']
    """
    attrs = [a.lower() for a in dataset.sensitive_attrs]
    out = []
    for name in dataset.feature_groups:
        low = name.lower()
        if any(a == low or a.startswith(low + "_") for a in attrs):
            out.append(name)
    return out


def column_mask(dataset: FairDataset, group_mask: ArrayLike) -> NDArray[np.bool_]:
    """Expand a mask over ``dataset.feature_groups`` to a mask over ``dataset.feature_names``.

    Raises
    ------
    InvalidParameterError
        If ``group_mask`` has not one entry per feature group.

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> ds = load_toy()
    >>> column_mask(ds, [True] + [False] * (len(ds.feature_groups) - 1)).sum() >= 1
    np.True_
    """
    gm = np.asarray(group_mask, dtype=bool).reshape(-1)
    groups = dataset.feature_groups
    if gm.size != len(groups):
        raise InvalidParameterError(
            f"column_mask: the mask has {gm.size} entries but the dataset has {len(groups)} "
            "feature groups. Pass one boolean per feature group, in dataset.feature_groups "
            "order."
        )
    chosen = {c for keep, cols in zip(gm, groups.values(), strict=True) if keep for c in cols}
    return np.asarray([c in chosen for c in dataset.feature_names], dtype=bool)


def _check_same_columns(train: FairDataset, other: FairDataset, where: str) -> None:
    if train.feature_names != other.feature_names:
        raise InvalidDataError(
            f"{where}: the evaluation data has other feature columns than the training data. "
            "Use parts of one dataset (fairacq.data.split_dadi)."
        )


class LearnerScorer:
    """Score a subset of feature groups by retraining a learner on its columns.

    Parameters
    ----------
    train : FairDataset
        Data the learner is fitted on (for every subset anew).
    test : FairDataset
        Data the AUC and disparity are measured on (same columns).
    learner : str, default="lr"
        A name of :func:`fairacq.models.make_learner`; features are standardised first.
    random_state : int, numpy.random.Generator, SeedSequence or None, default=None
        One seed, used for every subset, so that a subset's score does not depend on the
        order subsets are asked for.

    Notes
    -----
    The empty subset predicts the training base rate for everybody: AUC 0.5 and disparity 0.
    Scores are cached per subset. Convergence warnings of the learner are silenced: a few
    unconverged iterations on a subset do not change a baseline's AUC at the reported
    precision.
    """

    def __init__(
        self,
        train: FairDataset,
        test: FairDataset,
        *,
        learner: str = "lr",
        random_state: RandomState = None,
    ) -> None:
        _check_same_columns(train, test, "LearnerScorer")
        self.train, self.test, self.learner = train, test, learner
        self._seed = derive_int_seed(random_state) if random_state is not None else 0
        self._Xtr = train.to_numpy()
        self._Xte = test.to_numpy()
        self._cache: dict[bytes, tuple[float, float]] = {}

    def predict_proba(self, group_mask: ArrayLike) -> NDArray[np.float64]:
        """P(y=1) on ``test`` of the learner trained on the subset's columns."""
        cols = column_mask(self.train, group_mask)
        if not cols.any():
            return np.full(len(self.test), float(np.mean(self.train.y)))
        model = make_learner(self.learner, random_state=self._seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(self._Xtr[:, cols], self.train.y)
        proba: NDArray[np.float64] = model.predict_proba(self._Xte[:, cols])[:, 1]
        return proba

    def __call__(self, group_mask: NDArray[np.bool_]) -> tuple[float, float]:
        """Return ``(auc, disparity)`` on ``test`` for the subset ``group_mask``."""
        key = np.asarray(group_mask, dtype=bool).tobytes()
        if key not in self._cache:
            self._cache[key] = score_predictions(
                self.test.y, self.predict_proba(group_mask), self.test.s
            )
        return self._cache[key]


class AgentScorer:
    """Score a subset of feature groups with a fitted agent's classifier on masked inputs.

    Every row of ``test`` reveals exactly the subset's columns, and the agent's classifier
    (DADI's ``predict_proba(X, mask=...)``) predicts from them: the same classifier the
    dynamic policy uses, so static and dynamic acquisition are compared on equal terms.

    Parameters
    ----------
    agent : object with ``predict_proba(X, *, mask)``
        A fitted :class:`~fairacq.features.DADI` (or anything with that method).
    test : FairDataset
        Rows to score; its columns must be the agent's.
    """

    def __init__(self, agent: _MaskedClassifier, test: FairDataset) -> None:
        self.agent, self.test = agent, test
        self._cache: dict[bytes, tuple[float, float]] = {}

    def predict_proba(self, group_mask: ArrayLike) -> NDArray[np.float64]:
        """Return the agent classifier's P(y=1) on ``test`` with the subset revealed."""
        cols = column_mask(self.test, group_mask)
        mask = np.broadcast_to(cols, (len(self.test), cols.size)).copy()
        return np.asarray(self.agent.predict_proba(self.test.X, mask=mask), dtype=float)

    def __call__(self, group_mask: NDArray[np.bool_]) -> tuple[float, float]:
        """Return ``(auc, disparity)`` on ``test`` for the subset ``group_mask``."""
        key = np.asarray(group_mask, dtype=bool).tobytes()
        if key not in self._cache:
            self._cache[key] = score_predictions(
                self.test.y, self.predict_proba(group_mask), self.test.s
            )
        return self._cache[key]


@dataclass(frozen=True)
class StaticSelection:
    """The subset greedy forward selection ends with for one ``lam``.

    Attributes
    ----------
    lam : float
        Weight of disparity in the objective ``AUC - lam * disparity``.
    groups : tuple of str
        Chosen feature groups, in the order they were added.
    mask : ndarray of bool
        The same subset as a mask over the feature groups.
    auc, disparity : float
        The subset's score under the selection scorer.
    path : tuple of (str, float, float)
        Each added group with the AUC and disparity after adding it.
    """

    lam: float
    groups: tuple[str, ...]
    mask: NDArray[np.bool_]
    auc: float
    disparity: float
    path: tuple[tuple[str, float, float], ...]

    @property
    def objective(self) -> float:
        """``auc - lam * disparity``."""
        return self.auc - self.lam * self.disparity


def greedy_fair_selection(
    score: SubsetScore, group_names: Sequence[str], *, lam: float
) -> StaticSelection:
    """Grow one subset of feature groups greedily to maximise ``AUC - lam * disparity``.

    Starting from the empty subset, each step adds the group whose addition gives the
    highest objective (ties: the earlier group), and the search stops when no addition
    raises the objective strictly. ``lam = 0`` trades nothing away for fairness.

    Parameters
    ----------
    score : callable
        ``score(group_mask) -> (auc, disparity)`` (a :class:`LearnerScorer` or
        :class:`AgentScorer` on validation data).
    group_names : sequence of str
        Names of the feature groups, in mask order.
    lam : float
        Disparity weight, ``>= 0``.

    Returns
    -------
    StaticSelection

    Raises
    ------
    InvalidParameterError
        For a negative or NaN ``lam`` or no groups.

    Examples
    --------
    >>> table = {(): (0.5, 0.0), (0,): (0.7, 0.3), (1,): (0.6, 0.0), (0, 1): (0.75, 0.3)}
    >>> def score(mask):
    ...     return table[tuple(int(i) for i in np.flatnonzero(mask))]
    >>> greedy_fair_selection(score, ["a", "b"], lam=1.0).groups
    ('b',)
    >>> greedy_fair_selection(score, ["a", "b"], lam=0.0).groups
    ('a', 'b')
    """
    if not np.isfinite(lam) or lam < 0:
        raise InvalidParameterError(
            f"greedy_fair_selection: lam must be a finite float >= 0. Got {lam!r} instead."
        )
    names = list(group_names)
    if not names:
        raise InvalidParameterError(
            "greedy_fair_selection: no feature groups to choose from. Pass at least one name."
        )
    mask = np.zeros(len(names), dtype=bool)
    auc, disp = score(mask.copy())
    current = auc - lam * disp
    path: list[tuple[str, float, float]] = []
    while not mask.all():
        best: tuple[float, int, float, float] | None = None
        for k in np.flatnonzero(~mask):
            trial = mask.copy()
            trial[k] = True
            a, d = score(trial)
            value = a - lam * d
            if best is None or value > best[0]:
                best = (value, int(k), a, d)
        assert best is not None  # at least one group is left
        if best[0] <= current:
            break
        current, j, auc, disp = best
        mask[j] = True
        path.append((names[j], auc, disp))
    return StaticSelection(
        lam=float(lam),
        groups=tuple(p[0] for p in path),
        mask=mask,
        auc=float(auc),
        disparity=float(disp),
        path=tuple(path),
    )


def static_selection_front(
    score: SubsetScore,
    group_names: Sequence[str],
    lams: Sequence[float],
    *,
    report: SubsetScore | None = None,
) -> pd.DataFrame:
    """Run :func:`greedy_fair_selection` for every ``lam`` and tabulate the subsets.

    Parameters
    ----------
    score : callable
        Scorer the subsets are *chosen* with (validation data).
    group_names : sequence of str
        Feature-group names in mask order.
    lams : sequence of float
        Disparity weights (e.g. 0 to 16).
    report : callable or None, default=None
        Scorer the chosen subsets are *reported* with (test data); ``score`` when None.

    Returns
    -------
    pandas.DataFrame
        One row per ``lam``: ``lam``, ``groups`` (comma-separated), ``n_groups``,
        ``select_auc``, ``select_disparity``, ``auc``, ``disparity`` and ``on_front`` (the
        row is non-dominated among the rows by reported AUC and disparity).
    """
    rows = []
    for lam in lams:
        sel = greedy_fair_selection(score, group_names, lam=float(lam))
        auc, disp = (report or score)(sel.mask.copy())
        rows.append(
            {
                "lam": float(lam),
                "groups": ",".join(sel.groups),
                "n_groups": len(sel.groups),
                "select_auc": sel.auc,
                "select_disparity": sel.disparity,
                "auc": float(auc),
                "disparity": float(disp),
            }
        )
    frame = pd.DataFrame(rows)
    front = np.zeros(len(frame), dtype=bool)
    if len(frame):
        front[pareto_front(frame["auc"], frame["disparity"])] = True
    frame["on_front"] = front
    return frame


def fixed_subset_baselines(
    score: SubsetScore, dataset: FairDataset, *, sensitive: Sequence[str] | None = None
) -> pd.DataFrame:
    """Score the full-feature and the without-sensitive-attribute subsets.

    Parameters
    ----------
    score : callable
        ``score(group_mask) -> (auc, disparity)``.
    dataset : FairDataset
        Gives the feature groups (any part of the data the scorer was built on).
    sensitive : sequence of str or None, default=None
        Groups to drop for the second baseline; :func:`sensitive_feature_groups` when None.

    Returns
    -------
    pandas.DataFrame
        Rows ``method`` in ``{"full", "no-sensitive"}`` with ``groups_dropped``, ``auc`` and
        ``disparity``. When no group encodes the sensitive attribute both rows coincide.
    """
    names = list(dataset.feature_groups)
    drop = list(sensitive) if sensitive is not None else sensitive_feature_groups(dataset)
    unknown = [g for g in drop if g not in names]
    if unknown:
        raise InvalidParameterError(
            f"fixed_subset_baselines: {unknown[0]!r} is not a feature group. "
            f"Groups: {', '.join(names)}."
        )
    full = np.ones(len(names), dtype=bool)
    without = np.asarray([n not in drop for n in names], dtype=bool)
    rows = []
    for method, mask, dropped in (("full", full, ""), ("no-sensitive", without, ",".join(drop))):
        auc, disp = score(mask)
        rows.append({"method": method, "groups_dropped": dropped, "auc": auc, "disparity": disp})
    return pd.DataFrame(rows)
