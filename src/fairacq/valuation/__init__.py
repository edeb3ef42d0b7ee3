"""Influence functions on fairness: which training rows would make the model fairer.

Hasan & Pradhan (DataSift-Inf, §3.3) values data by its first-order influence on a fairness
function f(theta). :func:`fairness_surrogate` turns a group-fairness notion (demographic
parity, equal opportunity, equalised odds) into a differentiable gap in mean predicted
probability; :func:`fairness_influence` computes ``d f / d epsilon`` for up-weighting each
training row of a fitted ``lr``, ``linear_svm`` or ``mlp`` (eqs. 4-5: an exact closed form
for logistic regression, autograd Hessian-vector products with conjugate gradient or LiSSA
for the others; torch is optional). :func:`fairness_improvement` turns that into the score
DataSift-Inf sorts by, and :class:`InfluenceRegressor` (§3.3.2) predicts it for pool rows
the model has never seen. Fairness itself is measured on thresholded predictions by
:mod:`fairacq.metrics`. Choices and validation numbers: ``docs/paper-notes/valuation.md``.
"""

from fairacq.valuation._influence import (
    SOLVERS,
    InfluenceResult,
    fairness_improvement,
    fairness_influence,
)
from fairacq.valuation._regressor import InfluenceRegressor
from fairacq.valuation._surrogates import SURROGATE_METRICS, FairnessSurrogate, fairness_surrogate
from fairacq.valuation._unwrap import has_gradients

__all__ = [
    "SOLVERS",
    "SURROGATE_METRICS",
    "FairnessSurrogate",
    "InfluenceRegressor",
    "InfluenceResult",
    "fairness_improvement",
    "fairness_influence",
    "fairness_surrogate",
    "has_gradients",
]
