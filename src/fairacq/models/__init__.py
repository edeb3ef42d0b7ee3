"""Learners the papers train, their evaluation, and baseline audits.

:func:`make_learner` builds logistic regression, a linear SVM with probabilities, a 10-unit
MLP, a decision tree or a random forest by name, seeded from one ``random_state`` and with warm
starts where the learner allows them; :func:`partial_update` updates a fitted one with new rows
only where it has ``partial_fit``. :func:`evaluate` scores a fitted model on a
:class:`~fairacq.data.FairDataset` with any registered metrics, and :func:`audit` trains a
baseline on a stratified split (or takes a fitted model, ``refit=False``) and reports its
per-group table and fairness metrics; :func:`audit_predictions` does the same for
predictions the user's own model made.
:func:`fit_mitigation` fits the "collect nothing" comparators (fairlearn's
ThresholdOptimizer and ExponentiatedGradient, reweighing) and :func:`evaluate_mitigation`
scores them the same way; :func:`fit_thresholds` fits group thresholds within a tolerance
on a trained model (the knob of post-processing) and :func:`evaluate_thresholds` scores
them. :func:`check_probabilities` refuses outputs no classifier gives (NaN, outside [0, 1])
and :func:`one_class_problem` words the warning for a model that predicts one class.
:func:`fit_biased_mf` fits a biased matrix factorisation (:class:`BiasedMF`) of
ratings by alternating least squares.
"""

from fairacq.models._audit import audit
from fairacq.models._audit_predictions import audit_predictions
from fairacq.models._audit_report import AuditReport
from fairacq.models._biased_mf import BiasedMF, fit_biased_mf
from fairacq.models._evaluate import DEFAULT_METRICS, evaluate, predict_scores
from fairacq.models._group_thresholds import (
    GroupThresholds,
    place_on_unlabelled,
    thresholds_at_rates,
)
from fairacq.models._health import check_probabilities, is_one_class, one_class_problem
from fairacq.models._mitigation import (
    MITIGATIONS,
    MitigatedModel,
    evaluate_mitigation,
    fit_mitigation,
    mitigation_unavailable,
    prediction_metrics,
    reweighing_weights,
)
from fairacq.models._partial import partial_update
from fairacq.models._registry import (
    LearnerSpec,
    available_learners,
    describe_learner,
    is_learner,
    learner_spec,
    make_learner,
)
from fairacq.models._threshold_fallback import PartialThresholds, one_label_groups
from fairacq.models._thresholds import (
    THRESHOLD_CONSTRAINTS,
    describe_thresholds,
    evaluate_thresholds,
    fit_thresholds,
    group_rates,
    threshold_constraint,
)

__all__ = [
    "DEFAULT_METRICS",
    "MITIGATIONS",
    "THRESHOLD_CONSTRAINTS",
    "AuditReport",
    "BiasedMF",
    "GroupThresholds",
    "LearnerSpec",
    "MitigatedModel",
    "PartialThresholds",
    "audit",
    "audit_predictions",
    "available_learners",
    "check_probabilities",
    "describe_learner",
    "describe_thresholds",
    "evaluate",
    "evaluate_mitigation",
    "evaluate_thresholds",
    "fit_biased_mf",
    "fit_mitigation",
    "fit_thresholds",
    "group_rates",
    "is_learner",
    "is_one_class",
    "learner_spec",
    "make_learner",
    "mitigation_unavailable",
    "one_class_problem",
    "one_label_groups",
    "partial_update",
    "place_on_unlabelled",
    "predict_scores",
    "prediction_metrics",
    "reweighing_weights",
    "threshold_constraint",
    "thresholds_at_rates",
]
