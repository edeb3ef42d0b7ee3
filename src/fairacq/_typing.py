"""Small types shared by public signatures: what fairacq calls on a model, array-like inputs.

fairacq works with any scikit-learn style classifier, so it asks for the methods it calls
(a :class:`typing.Protocol`), never for a class. Vectors of labels, groups or features are
anything numpy turns into an array (:data:`numpy.typing.ArrayLike`): a list, a numpy array,
a pandas Series or DataFrame.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Protocol, TypeAlias, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "AdmissionRule",
    "ArrayLike",
    "Classifier",
    "Estimator",
    "GroupLabel",
    "LearnerLike",
    "Model",
    "Predictor",
]

#: One group's label, as it appears in a vector of groups: a string, a number, a bool.
GroupLabel: TypeAlias = Hashable


@runtime_checkable
class Estimator(Protocol):
    """Anything with a scikit-learn style ``fit(X, y)``."""

    # The return is the fitted estimator (scikit-learn returns ``self``); callers keep
    # the object they passed, so its type does not matter here.
    def fit(self, X: Any, y: Any, /) -> Any:
        """Fit on features ``X`` and labels ``y``."""


@runtime_checkable
class Predictor(Protocol):
    """Anything with a scikit-learn style ``predict(X)``: a fitted model or rule."""

    def predict(self, X: Any, /) -> Any:
        """Predicted labels for the rows of ``X``."""


@runtime_checkable
class Model(Protocol):
    """A scikit-learn style model: ``fit(X, y)`` and ``predict(X)``."""

    def fit(self, X: Any, y: Any, /) -> Any:
        """Fit on features ``X`` and labels ``y``."""

    def predict(self, X: Any, /) -> Any:
        """Predicted labels for the rows of ``X``."""


@runtime_checkable
class Classifier(Protocol):
    """A scikit-learn style classifier: ``fit(X, y)``, ``predict(X)`` and ``predict_proba(X)``.

    This is what fairacq calls on a learner; scikit-learn classifiers, pipelines ending in
    one, and fairacq's own learners all fit.
    """

    def fit(self, X: Any, y: Any, /) -> Any:
        """Fit on features ``X`` and labels ``y``."""

    def predict(self, X: Any, /) -> Any:
        """Predicted labels for the rows of ``X``."""

    def predict_proba(self, X: Any, /) -> Any:
        """Class probabilities, one column per class, for the rows of ``X``."""


#: A learner as users give it: a registry name (``"logreg"``), an import path
#: (``"module:Class"``) or a classifier object.
LearnerLike: TypeAlias = "str | Classifier"


@runtime_checkable
class AdmissionRule(Protocol):
    """A fitted proxy as the balanced filter uses it: each candidate's admission probability."""

    def admission_probability(self, X: Any, /) -> NDArray[np.float64]:
        """Return the probability of admitting each row of ``X``, in [0, 1]."""
