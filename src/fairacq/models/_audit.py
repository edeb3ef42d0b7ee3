"""Audit a model: train it on a split and report its fairness, or audit one already fitted."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from sklearn.exceptions import NotFittedError as SklearnNotFittedError
from sklearn.model_selection import train_test_split

from fairacq._random import RandomState, derive_int_seed
from fairacq._typing import ArrayLike, LearnerLike
from fairacq._validation import Interval, validate_parameter_constraints
from fairacq.data import FairDataset, as_fair_dataset
from fairacq.exceptions import InvalidDataError, InvalidParameterError, NotFittedError
from fairacq.models._audit_predictions import _label_rows
from fairacq.models._audit_report import AuditReport, _build_report
from fairacq.models._evaluate import DEFAULT_METRICS, predict_scores
from fairacq.models._health import check_probabilities
from fairacq.models._registry import describe_learner, make_learner

__all__ = ["audit"]


def audit(
    dataset: FairDataset | pd.DataFrame | ArrayLike,
    model: LearnerLike = "lr",
    *,
    y: ArrayLike | None = None,
    sensitive_features: ArrayLike | None = None,
    positive: str | None = None,
    metrics: Sequence[str] = DEFAULT_METRICS,
    test_size: float = 0.3,
    random_state: RandomState = 0,
    refit: bool = True,
) -> AuditReport:
    """Train ``model`` on a stratified split of ``dataset`` and report its fairness.

    With ``refit=False`` nothing is trained: ``model`` is an estimator you already fitted, and
    it is audited on every row of ``dataset`` as given (no split, no copy, no refit).

    Parameters
    ----------
    dataset : FairDataset, pandas.DataFrame or array-like
        Data to audit; groups are its sensitive attribute(s). Raw features (string columns
        one-hot encoded) with ``y`` and ``sensitive_features``, as fairlearn takes them. With
        ``refit=False`` raw features reach the fitted model unchanged, and a FairDataset gives
        it ``dataset.to_numpy()``.
    model : str or estimator, default="lr"
        A name from :func:`fairacq.models.available_learners`, ``"module:Class"``, or any
        scikit-learn classifier (a Pipeline too), cloned before fitting. With
        ``refit=False``: a fitted classifier with ``predict_proba``.
    y, sensitive_features : array-like, optional
        Labels and group column(s) when ``dataset`` holds raw features.
    positive : str or None, default=None
        The favourable value of a ``y`` that is not 0/1.
    metrics : sequence of str, default=DEFAULT_METRICS
        Metric names from :func:`fairacq.metrics.available`.
    test_size : float, default=0.3
        Fraction held out for evaluation (stratified on label and group); unused with
        ``refit=False``.
    random_state : int, Generator, SeedSequence or None, default=0
        Controls the split and the learner; unused with ``refit=False``.
    refit : bool, default=True
        Train a copy of ``model`` on a split here (True), or audit the fitted ``model`` as it
        is on every row (False).

    Returns
    -------
    AuditReport

    Raises
    ------
    NotFittedError
        With ``refit=False``, when ``model`` has not been fitted.
    DegenerateModelError
        When the model's probabilities are NaN, outside [0, 1] or not one column per class.

    See Also
    --------
    fairacq.models.audit_predictions : Audit predictions your own model already made.

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> report = audit(load_toy(400), "lr", metrics=["accuracy"])
    >>> list(report.groups["group"])
    ['g0', 'g1']
    >>> fitted = make_learner("lr").fit(load_toy(400).to_numpy(), load_toy(400).y)
    >>> audit(load_toy(400), fitted, refit=False, metrics=["accuracy"]).n_test
    400
    """
    validate_parameter_constraints(
        {"test_size": [Interval(float, 0, 1, closed="neither")], "refit": ["boolean"]},
        {"test_size": test_size, "refit": refit},
        "audit",
    )
    if not refit:
        return _audit_fitted(
            dataset, model, y=y, sensitive_features=sensitive_features, positive=positive,
            metrics=metrics,
        )  # fmt: skip
    dataset = as_fair_dataset(dataset, y, sensitive_features=sensitive_features, positive=positive)
    seed = derive_int_seed(random_state)
    train, test = _split(dataset, test_size, seed)
    clf = make_learner(model, random_state=seed)
    clf.fit(train.to_numpy(), train.y)
    scores = predict_scores(clf, test.to_numpy())
    return _build_report(
        test, (scores >= 0.5).astype(np.int64), scores, model=describe_learner(model),
        metrics=metrics, source="trained", n_train=len(train),
    )  # fmt: skip


def _split(dataset: FairDataset, test_size: float, seed: int) -> tuple[FairDataset, FairDataset]:
    """Training and test rows, stratified on group and label."""
    if len(np.unique(dataset.y)) < 2:
        raise InvalidDataError(
            f"audit: every label of '{dataset.name}' is {int(dataset.y[0])}, so no classifier "
            "can be trained. Give rows of both classes (or check --label/--positive)."
        )
    strata = dataset.s * 2 + dataset.y
    try:
        idx_train, idx_test = train_test_split(
            np.arange(len(dataset)), test_size=test_size, random_state=seed, stratify=strata
        )
    except ValueError as exc:  # a group and label with too few rows for both parts
        raise InvalidDataError(
            f"audit: cannot split '{dataset.name}' ({len(dataset)} rows) into training and "
            f"test rows of every group and label ({exc}). Give more rows, or another "
            "--test-size (test_size)."
        ) from None
    return dataset.subset(idx_train), dataset.subset(idx_test)


def _audit_fitted(
    dataset: Any,
    model: Any,
    *,
    y: Any,
    sensitive_features: Any,
    positive: str | None,
    metrics: Sequence[str],
) -> AuditReport:
    """Score every row with the fitted ``model`` and report; no split, no copy, no fit."""
    if isinstance(model, str) or not hasattr(model, "predict_proba"):
        raise InvalidParameterError(
            f"audit: refit=False audits a fitted classifier with predict_proba; got "
            f"{model!r}. Pass your fitted estimator, or refit=True to train one here."
        )
    if isinstance(dataset, FairDataset):
        labels = as_fair_dataset(dataset, y, sensitive_features=sensitive_features)
        X: Any = dataset.to_numpy()
        positive = None  # a FairDataset's labels are 0/1 already
    else:
        labels = _label_rows(y, sensitive_features, positive=positive, name="data")
        X = dataset
    scores = _fitted_scores(model, X, positive)
    if len(scores) != len(labels):
        raise InvalidDataError(
            f"audit: the model scored {len(scores)} rows but y has {len(labels)} labels. Pass "
            "one label and one group per row of X."
        )
    return _build_report(
        labels, (scores >= 0.5).astype(np.int64), scores, model=describe_learner(model),
        metrics=metrics, source="fitted",
    )  # fmt: skip


def _fitted_scores(model: Any, X: Any, positive: str | None) -> NDArray[np.float64]:
    """Return the fitted model's probability of the favourable label on each row of ``X``."""
    name = describe_learner(model)
    try:
        proba = np.asarray(model.predict_proba(X), dtype=np.float64)
    except SklearnNotFittedError:
        raise NotFittedError(
            f"audit: the model {name} is not fitted yet. Fit it on your training rows first, "
            "or pass refit=True to train a copy here."
        ) from None
    except ValueError as exc:
        raise InvalidDataError(
            f"audit: the fitted model {name} cannot score these rows ({exc}). Give the rows "
            "in the form it was trained on (same columns)."
        ) from None
    if proba.ndim == 2 and proba.shape[1] == 2 and _favourable_column(model, positive) == 0:
        proba = proba[:, ::-1]
    return check_probabilities(proba, where=f"the model {name}")


def _favourable_column(model: Any, positive: str | None) -> int:
    """Which probability column is the favourable label's (by ``model.classes_``)."""
    classes = [_class_text(c) for c in getattr(model, "classes_", (0, 1))]
    target = "1" if positive is None else str(positive)
    if len(classes) != 2 or target not in classes:
        raise InvalidDataError(
            f"audit: the fitted model's classes are {', '.join(classes)}; none is the "
            f"favourable label {target!r}. Pass positive=... naming one of them."
        )
    return classes.index(target)


def _class_text(value: Any) -> str:
    """Write a class label as text, with 1, 1.0 and True all written "1"."""
    if isinstance(value, (bool, int, float, np.number)) and float(value).is_integer():
        return str(int(value))
    return str(value)
