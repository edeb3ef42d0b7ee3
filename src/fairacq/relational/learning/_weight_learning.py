"""Rule-weight learning for hinge-loss MRFs: PSL's voted perceptron (MaxLikelihoodMPE).

The log-likelihood of the truth ``y*`` under ``p(y) ∝ exp(-sum_r w_r Phi_r(y))`` has the
gradient ``E_w[Phi_r] - Phi_r(y*)`` in ``w_r``, where ``Phi_r`` is the total (unweighted)
incompatibility of rule ``r``'s groundings. PSL's ``MaxLikelihoodMPE`` (Bach et al. 2017,
§6.1) replaces the expectation by the incompatibility at the MAP state, a voted-perceptron
approximation. As in PSL 2.0/2.1 (``votedperceptron.*`` defaults):

- each step moves ``w_r += (step / t) * (Phi_r(y_MAP) - Phi_r(y*)) / n_r`` (a ``1/t``
  schedule, ``votedperceptron.schedule``; ``n_r`` the number of groundings of the rule,
  ``scalegradient``), then clips at 0 (``nonnegativeweights``);
- ``step`` = 1.0 (``stepsize``), 25 steps (``numsteps``), and the learned weights are the
  average of the weights after each step (``averagesteps``);
- the initial weight is 5.0, as the Fair-A3SL authors set it (Zhang & Ramesh, set-up notes).

MAP inference in each step is :func:`~fairacq.relational.map_inference` (ADMM unless
``admm_options`` names another ``solver``), with the fairness
constraints when given (fair weight learning) and warm-started from the previous MAP state;
the first start is random, as PSL's ADMM starts from random values. Latent (unobserved)
target variables, which need EM (PSL's ``HardEM``), are out of scope: every target must have
a truth value.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from fairacq._random import RandomState, as_generator
from fairacq._result import Result
from fairacq._validation import did_you_mean
from fairacq.exceptions import InvalidDataError, InvalidParameterError
from fairacq.relational.hlmrf._ground_model import GroundModel, LinearConstraints
from fairacq.relational.inference._map_inference import map_inference
from fairacq.relational.inference._map_result import MapResult

__all__ = ["WeightLearningResult", "learn_weights"]

Prior = Callable[[NDArray[np.float64]], float]
_WEIGHT_PREFIX = re.compile(r"^\s*[-+0-9.eE]+\s*:\s*")


@dataclass(frozen=True, eq=False)
class WeightLearningResult(Result):
    """Learned rule weights and the MAP state they give.

    A :class:`~fairacq.Result`: :meth:`to_frame` has one row per rule with its learned
    weight. Saving: ``save(path)`` writes every field but ``model`` (a grounded model, large
    and rebuilt by grounding the same rules on the same data, then
    ``model.with_rule_weights(result.weights)``); after ``WeightLearningResult.load(path)``
    ``model`` is None.

    Parameters
    ----------
    weights : ndarray of shape (n_rules,)
        Learned weights (the average over the steps).
    model : GroundModel or None
        The input model with the learned weights and the fairness constraints, if any
        (None after loading).
    map_result : MapResult
        MAP state of ``model`` (with the learned weights).
    weight_history : ndarray of shape (n_iter, n_rules)
        Weights after each step (before averaging).
    gradient_history : ndarray of shape (n_iter, n_rules)
        Scaled gradient ``(Phi(y_MAP) - Phi(y*)) / n_r`` of each step.
    truth_incompatibility : ndarray of shape (n_rules,)
        ``Phi_r(y*)``, the incompatibility of each rule at the truth.
    priors : dict of str to float
        Value of each prior at the final MAP state (for the Fair-A3SL reward).
    n_iter : int
        Steps taken.
    seconds : float
        Wall time, inference included.
    rule_names : tuple of str, default=()
        Name of each weighted rule (``model.rule_names``), in the order of ``weights``.
    """

    weights: NDArray[np.float64]
    model: GroundModel | None
    map_result: MapResult
    weight_history: NDArray[np.float64]
    gradient_history: NDArray[np.float64]
    truth_incompatibility: NDArray[np.float64]
    priors: dict[str, float]
    n_iter: int
    seconds: float
    rule_names: tuple[str, ...] = ()

    _not_saved = ("model",)

    def to_frame(self) -> pd.DataFrame:
        """Return one row per weighted rule: its learned weight and how it got there.

        Columns: ``rule`` (its text without the starting weight, or its position when the
        model named none), ``weight``, ``truth_incompatibility`` (the rule's distance to
        satisfaction at the truth) and ``last_gradient`` (the last step's scaled gradient;
        near 0 once the weight settled). The weights are what learning is for, so they are
        the table.

        Returns
        -------
        pandas.DataFrame
        """
        n_rules = len(self.weights)
        given = self.rule_names if len(self.rule_names) == n_rules else range(n_rules)
        names = [_WEIGHT_PREFIX.sub("", str(n)) for n in given]  # the weight has its column
        return pd.DataFrame(
            {
                "rule": names,
                "weight": self.weights,
                "truth_incompatibility": self.truth_incompatibility,
                "last_gradient": self.gradient_history[-1],  # n_iter >= 1
            }
        )

    def _caption(self) -> str:
        return (
            f"{len(self.weights)} rule weights learned in {self.n_iter} steps "
            f"({self.seconds:.2f} s); MAP objective {self.map_result.objective:.6g}"
        )


def _check_truth(model: GroundModel, truth: ArrayLike) -> NDArray[np.float64]:
    y = np.asarray(truth, dtype=np.float64).reshape(-1)
    if y.shape[0] != model.n_variables:
        raise InvalidDataError(
            f"learn_weights: truth has {y.shape[0]} values but the model has "
            f"{model.n_variables} target variables. Pass one truth value per variable."
        )
    if np.isnan(y).any():
        raise InvalidDataError(
            f"learn_weights: truth has {int(np.isnan(y).sum())} missing values. Latent targets "
            "are not supported; give every target atom a truth value or drop it from targets."
        )
    if not np.all(np.isfinite(y)) or y.min() < 0 or y.max() > 1:
        raise InvalidDataError("learn_weights: truth values must lie in [0, 1].")
    return y


def _check_params(n_iter: int, step: float, init_weight: Any, n_rules: int) -> NDArray[np.float64]:
    if isinstance(n_iter, bool) or not isinstance(n_iter, (int, np.integer)) or n_iter < 1:
        raise InvalidParameterError(
            f"The 'n_iter' parameter of learn_weights must be an int >= 1. Got {n_iter!r}."
        )
    if not (isinstance(step, (int, float)) and np.isfinite(step) and step > 0):
        raise InvalidParameterError(
            f"The 'step' parameter of learn_weights must be a positive float. Got {step!r}."
        )
    w0 = np.broadcast_to(np.asarray(init_weight, dtype=np.float64), (n_rules,)).copy()
    if not np.all(np.isfinite(w0)) or np.any(w0 < 0):
        raise InvalidParameterError(
            "The 'init_weight' parameter of learn_weights must be non-negative "
            f"(a float or one per rule). Got {init_weight!r}."
        )
    return w0


def _prior_names(priors: Sequence[Prior] | Mapping[str, Prior]) -> list[tuple[str, Prior]]:
    if isinstance(priors, Mapping):
        return list(priors.items())
    return [(str(getattr(p, "name", f"prior{i}")), p) for i, p in enumerate(priors)]


def learn_weights(
    model: GroundModel,
    truth: ArrayLike,
    *,
    method: Literal["voted_perceptron"] = "voted_perceptron",
    n_iter: int = 25,
    step: float = 1.0,
    schedule: bool = True,
    scale_gradient: bool = True,
    init_weight: float | ArrayLike | None = 5.0,
    fairness: LinearConstraints | None = None,
    priors: Sequence[Prior] | Mapping[str, Prior] = (),
    admm_options: Mapping[str, Any] | None = None,
    random_state: RandomState = None,
) -> WeightLearningResult:
    """Learn soft-rule weights by PSL's maximum-likelihood MPE voted perceptron.

    Works on a grounded model and the truth vector of its target variables (ground with
    :func:`~fairacq.relational.ground`, take the truth from the database), so that weight
    learning does not depend on how the model was built.

    Parameters
    ----------
    model : GroundModel
        Grounded rules; its current weights are ignored unless ``init_weight`` is None.
    truth : array-like of shape (n_variables,)
        Truth value in ``[0, 1]`` of every target variable (no latent variables).
    method : {"voted_perceptron"}, default="voted_perceptron"
        PSL's ``MaxLikelihoodMPE``.
    n_iter : int, default=25
        Number of steps (PSL ``votedperceptron.numsteps``).
    step : float, default=1.0
        Base step size (PSL ``votedperceptron.stepsize``).
    schedule : bool, default=True
        Shrink the step as ``step / t`` (PSL ``votedperceptron.schedule``).
    scale_gradient : bool, default=True
        Divide each rule's gradient by its number of groundings (PSL ``scalegradient``).
    init_weight : float or array-like of shape (n_rules,) or None, default=5.0
        Starting weights (5.0 as the Fair-A3SL authors); ``None`` keeps the model's weights.
    fairness : LinearConstraints or None, default=None
        Extra constraints (e.g. :func:`~fairacq.relational.fairness_constraints`) imposed on
        every MAP inference: fair weight learning.
    priors : sequence of callables or mapping of str to callable, default=()
        Functions ``values -> float`` (e.g. :class:`~fairacq.relational.FairnessPrior`)
        evaluated at the final MAP state and reported in ``result.priors``. They do not
        change the weights: the paper adds them to the structure-learning reward.
    admm_options : mapping or None, default=None
        Keyword arguments for :func:`~fairacq.relational.map_inference` (``solver``, ``rho``,
        ``max_iter``,
        ``eps_abs``, ``eps_rel``).
    random_state : int, numpy.random.Generator or None, default=None
        Draws the first ADMM starting point (PSL starts from random values).

    Returns
    -------
    WeightLearningResult

    Raises
    ------
    InvalidDataError
        If ``truth`` has the wrong length, missing values or values outside [0, 1].
    InvalidParameterError
        On a bad ``n_iter``, ``step`` or ``init_weight``.
    UnknownNameError
        On an unknown ``method``.

    Examples
    --------
    >>> import pandas as pd
    >>> from fairacq.relational import HingePotentials, LinearConstraints, GroundModel
    >>> variables = pd.DataFrame({"predicate": ["p", "p"], "args": [("a",), ("b",)]})
    >>> # rule 0 pushes y up (1 - y), rule 1 pushes y down (y); the truth is mostly 1.
    >>> pots = HingePotentials.build([[-1, 0], [0, -1], [1, 0], [0, 1]], [1, 1, 0, 0],
    ...                              [1, 1, 1, 1], [True] * 4, [0, 0, 1, 1], n_variables=2)
    >>> model = GroundModel(variables, pots, LinearConstraints.empty(2),
    ...                     np.ones(2), ("up", "down"))
    >>> result = learn_weights(model, [1.0, 0.8], random_state=0)
    >>> bool(result.weights[0] > result.weights[1])
    True
    """
    start = time.perf_counter()
    if method != "voted_perceptron":
        raise did_you_mean(
            "weight-learning method", str(method), ["voted_perceptron"], "learn_weights"
        )
    y_true = _check_truth(model, truth)
    w0 = model.rule_weights if init_weight is None else init_weight
    w = _check_params(n_iter, step, w0, model.n_rules)
    options = dict(admm_options or {})
    base = model if fairness is None else model.with_constraints(fairness)
    truth_inc = base.rule_incompatibility(y_true)
    groundings = np.bincount(base.potentials.rule_index, minlength=base.n_rules).astype(float)
    scale = np.where(scale_gradient & (groundings > 0), groundings, 1.0)
    values = as_generator(random_state).random(base.n_variables)
    weights = np.empty((n_iter, base.n_rules))
    gradients = np.empty((n_iter, base.n_rules))
    for t in range(n_iter):
        current = map_inference(base.with_rule_weights(w), init=values, **options)
        values = current.values
        gradient = (base.rule_incompatibility(values) - truth_inc) / scale
        rate = step / (t + 1) if schedule else step
        w = np.maximum(w + rate * gradient, 0.0)
        weights[t] = w
        gradients[t] = gradient
    learned = weights.mean(axis=0)
    final_model = base.with_rule_weights(learned)
    final = map_inference(final_model, init=values, **options)
    prior_values = {name: float(fn(final.values)) for name, fn in _prior_names(priors)}
    return WeightLearningResult(
        weights=learned,
        model=final_model,
        map_result=final,
        weight_history=weights,
        gradient_history=gradients,
        truth_incompatibility=truth_inc,
        priors=prior_values,
        n_iter=n_iter,
        seconds=time.perf_counter() - start,
        rule_names=tuple(final_model.rule_names),
    )
