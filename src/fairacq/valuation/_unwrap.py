"""Recognise the differentiable learners and split a pipeline into features and classifier.

Influence functions (Hasan & Pradhan, §3.3.1) need a parametric model with a twice-differentiable
training objective. Among :func:`fairacq.models.make_learner`'s learners those are ``lr``
(:class:`~sklearn.linear_model.LogisticRegression`), ``linear_svm`` (a
:class:`~sklearn.calibration.CalibratedClassifierCV` around a
:class:`~sklearn.svm.LinearSVC`, squared hinge) and ``mlp``
(:class:`~sklearn.neural_network.MLPClassifier`). Trees and forests have no gradients.

A :class:`~sklearn.pipeline.Pipeline` is split into its preprocessing steps (fitted without
sample weights, so held fixed when a training point is up-weighted) and its final
classifier; influence is computed in the preprocessed feature space.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from fairacq.exceptions import InvalidParameterError, NotFittedError

__all__ = ["DIFFERENTIABLE_CLASSES", "DifferentiableModel", "has_gradients", "unwrap_model"]

#: Final classifiers whose influence fairacq computes (alone or last in a Pipeline).
DIFFERENTIABLE_CLASSES = ("LogisticRegression", "CalibratedClassifierCV", "MLPClassifier")

ModelKind = Literal["logistic", "linear_svm", "mlp"]

_MLP_ACTIVATIONS = ("identity", "logistic", "tanh", "relu")


@dataclass(frozen=True, eq=False)
class DifferentiableModel:
    """A fitted differentiable classifier and the fixed feature map in front of it.

    Attributes
    ----------
    kind : {"logistic", "linear_svm", "mlp"}
        Which objective the classifier minimises.
    classifier : estimator
        The fitted :class:`~sklearn.linear_model.LogisticRegression`,
        :class:`~sklearn.svm.LinearSVC` or :class:`~sklearn.neural_network.MLPClassifier`.
    preprocess : estimator or None
        The pipeline's preprocessing steps (e.g. the
        :class:`~sklearn.preprocessing.StandardScaler`), or None for a bare classifier.
    platt : tuple of (float, float) or None
        Platt's ``(a, b)`` of the calibrated linear SVM: ``p = 1 / (1 + exp(a f + b))`` for
        the decision value ``f``; None for the other learners.
    """

    kind: ModelKind
    classifier: Any
    preprocess: Any
    platt: tuple[float, float] | None = None

    def transform(self, X: Any) -> NDArray[np.float64]:
        """Map raw rows to the classifier's input space (float64, C-contiguous)."""
        Z = X if self.preprocess is None else self.preprocess.transform(X)
        return np.ascontiguousarray(np.asarray(Z, dtype=np.float64))


def has_gradients(model: object) -> bool:
    """Whether influence can be computed for ``model`` (a classifier or a Pipeline ending in one).

    Only the class is looked at (fitted or not); :func:`unwrap_model` checks the rest.
    """
    steps = getattr(model, "steps", None)
    final = steps[-1][1] if isinstance(steps, list) and steps else model
    return type(final).__name__ in DIFFERENTIABLE_CLASSES


def unwrap_model(model: Any, where: str = "fairness_influence") -> DifferentiableModel:
    """Recognise a fitted differentiable learner, possibly inside a pipeline.

    Parameters
    ----------
    model : estimator
        A fitted classifier from :func:`fairacq.models.make_learner` (``lr``,
        ``linear_svm`` or ``mlp``), scaled (a pipeline whose last step is the classifier) or
        bare.
    where : str, default="fairness_influence"
        Name of the caller, quoted in error messages.

    Returns
    -------
    DifferentiableModel

    Raises
    ------
    InvalidParameterError
        For a model without gradients (trees, forests, anything unrecognised) or a
        configuration whose objective is not twice differentiable (L1 penalty, hinge loss,
        isotonic calibration, class weights, multi-class).
    NotFittedError
        If the classifier is not fitted.
    """
    preprocess: Any = None
    clf = model
    steps = getattr(model, "steps", None)
    if isinstance(steps, list) and steps:
        clf = steps[-1][1]
        preprocess = model[:-1] if len(steps) > 1 else None
    name = type(clf).__name__
    if name == "LogisticRegression":
        _check_fitted(where, clf, "coef_")
        _check_logistic(where, clf)
        return DifferentiableModel("logistic", clf, preprocess)
    if name == "CalibratedClassifierCV":
        _check_fitted(where, clf, "calibrated_classifiers_")
        svc, platt = _check_calibrated_svm(where, clf)
        return DifferentiableModel("linear_svm", svc, preprocess, platt)
    if name == "MLPClassifier":
        _check_fitted(where, clf, "coefs_")
        _check_mlp(where, clf)
        return DifferentiableModel("mlp", clf, preprocess)
    raise InvalidParameterError(
        f"{where}: influence functions need a differentiable model with parameters; got "
        f"{name}, which has no gradients. Use make_learner('lr'), make_learner('linear_svm') "
        "or make_learner('mlp'), or use DataSift without -Inf (it is model agnostic)."
    )


def _check_fitted(where: str, clf: Any, attr: str) -> None:
    if not hasattr(clf, attr):
        raise NotFittedError(
            f"{where}: the {type(clf).__name__} is not fitted. Call model.fit(X_train, "
            "y_train) before computing influence."
        )


def _check_binary(where: str, clf: Any) -> None:
    classes = np.asarray(getattr(clf, "classes_", []))
    if classes.shape != (2,) or classes.tolist() != [0, 1]:
        raise InvalidParameterError(
            f"{where}: influence supports binary 0/1 classifiers; the "
            f"{type(clf).__name__} has classes {classes.tolist()}. Fit it on 0/1 labels."
        )


def _check_no_class_weight(where: str, clf: Any) -> None:
    if getattr(clf, "class_weight", None) is not None:
        raise InvalidParameterError(
            f"{where}: class_weight={clf.class_weight!r} is not supported (the weights would "
            "change with every added row). Fit with class_weight=None."
        )


def _check_logistic(where: str, clf: Any) -> None:
    _check_binary(where, clf)
    _check_no_class_weight(where, clf)
    penalty = getattr(clf, "penalty", "deprecated")
    l1_ratio = getattr(clf, "l1_ratio", None)
    if penalty is None:
        return
    l2 = penalty in ("l2", "deprecated") and (l1_ratio is None or float(l1_ratio) == 0.0)
    if not l2:
        raise InvalidParameterError(
            f"{where}: the LogisticRegression uses penalty={penalty!r}, l1_ratio={l1_ratio!r}; "
            "an L1 term is not twice differentiable. Use the L2 penalty (l1_ratio=0)."
        )


def _check_calibrated_svm(where: str, clf: Any) -> tuple[Any, tuple[float, float]]:
    if clf.method != "sigmoid":
        raise InvalidParameterError(
            f"{where}: the CalibratedClassifierCV uses method={clf.method!r}, which is not "
            "differentiable. Use method='sigmoid' (Platt scaling), as make_learner does."
        )
    cals = clf.calibrated_classifiers_
    if len(cals) != 1:
        raise InvalidParameterError(
            f"{where}: the CalibratedClassifierCV holds {len(cals)} fold models "
            "(ensemble=True). Fit it with ensemble=False, as make_learner('linear_svm') does."
        )
    svc = cals[0].estimator
    if type(svc).__name__ != "LinearSVC":
        raise InvalidParameterError(
            f"{where}: the calibrated estimator is {type(svc).__name__}; influence supports "
            "a calibrated LinearSVC. Use make_learner('linear_svm')."
        )
    _check_binary(where, svc)
    _check_no_class_weight(where, svc)
    if svc.loss != "squared_hinge" or svc.penalty != "l2":
        raise InvalidParameterError(
            f"{where}: the LinearSVC uses loss={svc.loss!r}, penalty={svc.penalty!r}; "
            "influence needs the twice-differentiable loss='squared_hinge' with "
            "penalty='l2' (the defaults)."
        )
    calibrator = cals[0].calibrators[0]
    return svc, (float(calibrator.a_), float(calibrator.b_))


def _check_mlp(where: str, clf: Any) -> None:
    _check_binary(where, clf)
    if clf.out_activation_ != "logistic" or clf.n_outputs_ != 1:
        raise InvalidParameterError(
            f"{where}: the MLPClassifier has output {clf.out_activation_!r} with "
            f"{clf.n_outputs_} units; influence supports binary classification (one logistic "
            "output). Fit it on 0/1 labels."
        )
    if clf.activation not in _MLP_ACTIVATIONS:
        raise InvalidParameterError(
            f"{where}: unknown MLP activation {clf.activation!r}; expected one of "
            f"{_MLP_ACTIVATIONS}."
        )
