"""Run a PSL-style model end to end: ground, learn weights, fair MAP inference, evaluate.

:func:`run_pipeline` is the protocol of Zhang & Ramesh's experiments (§5) for any rule set:

1. ground the rules on the training data and learn their weights by PSL's voted perceptron
   (:func:`~fairacq.relational.learn_weights`) against the training truth — without
   fairness constraints unless ``fair_learning=True`` (the authors' code learns weights with
   PSL's plain ``MaxLikelihoodMPE`` and imposes fairness only at inference);
2. ground the same rules on the test data, set the learned weights, add the delta-fairness
   constraints (:func:`~fairacq.relational.fairness_constraints`) over the test data's
   protected and unprotected atoms, and find the MAP state with consensus ADMM;
3. evaluate the fairness predicate's atoms with the paper's metrics
   (:func:`~fairacq.relational.evaluate_atoms`).

Passing the same data as ``train`` and ``test`` is the authors' in-sample protocol for the
paper-review samples; ``train=None`` skips weight learning (the rules' own weights, or
``weights``).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from fairacq._random import RandomState
from fairacq._result import Result
from fairacq._warnings import warn_caller
from fairacq.data.relational._relational_data import RelationalData
from fairacq.exceptions import InvalidDataError, InvalidParameterError
from fairacq.relational._evaluation import evaluate_atoms
from fairacq.relational._metric_notes import MetricsWarning, json_metrics, metric_notes
from fairacq.relational._pipeline_checks import check_option_keys, check_rule_items
from fairacq.relational.hlmrf._database import Database
from fairacq.relational.hlmrf._ground_model import GroundModel, LinearConstraints
from fairacq.relational.hlmrf._grounding import ground
from fairacq.relational.inference._admm import admm_map
from fairacq.relational.inference._fairness import (
    FairnessSpec,
    fairness_constraints,
    parse_fairness,
)
from fairacq.relational.inference._map_inference import map_inference
from fairacq.relational.inference._map_result import MapResult
from fairacq.relational.learning._weight_learning import WeightLearningResult, learn_weights
from fairacq.relational.psl._parser import parse_rules
from fairacq.relational.psl._rules import ArithmeticRule, Rule

__all__ = [
    "MAP_TIGHT",
    "PipelineResult",
    "apply_fairness",
    "as_rules",
    "fairness_rows",
    "run_pipeline",
]

#: ADMM tolerances for the final MAP inference: tight enough that a delta-fairness constraint
#: holds to about 5e-7 (PSL's defaults, 1e-5 / 1e-3, can leave it violated by ~1e-3; on a
#: COMPAS test fold 1e-8 / 1e-7 costs 650 iterations instead of 60, under a second).
MAP_TIGHT: Mapping[str, float] = {"eps_abs": 1e-8, "eps_rel": 1e-7}

RuleInput = str | Sequence["str | Rule | ArithmeticRule"]


@dataclass(frozen=True, eq=False)
class PipelineResult(Result):
    """What :func:`run_pipeline` produced.

    A :class:`~fairacq.Result`: :meth:`to_frame` is ``predictions``, the inferred atoms a
    user came for (the metrics and rules are in :meth:`summary`). Saving: ``save(path)``
    writes every field but ``model`` (a grounded model, rebuilt by running the pipeline
    again, or grounding ``rules`` on the test data); after ``PipelineResult.load(path)``
    ``model`` and ``learning.model`` are None. ``fairacq relational infer`` writes its own
    folder (atoms, rules, summary) instead.

    Parameters
    ----------
    predictions : pandas.DataFrame
        MAP values of every test target atom: ``predicate``, ``arg0 ...``, ``value``.
    metrics : dict of str to float
        The paper's metrics on the fairness predicate (empty when ``evaluate=False``).
    weights : ndarray of shape (n_rules,)
        Rule weights used at inference (learned, given or the rules' own).
    rules : list of str
        The weighted rules as PSL text, with ``weights`` (hard rules unchanged).
    model : GroundModel or None
        The test model with its weights and the fairness constraints (None after loading).
    map_result : MapResult
        The MAP inference on ``model``.
    learning : WeightLearningResult or None
        Weight learning on the training data (None when skipped).
    fairness : tuple of FairnessSpec
        The constraints imposed at inference.
    seconds : dict of str to float
        Wall time of each stage (``ground_train``, ``learn``, ``ground_test``, ``infer``,
        ``evaluate``).
    warnings : tuple of str
        What to know about ``metrics`` (:func:`~fairacq.relational.metric_notes`: truth
        read with the threshold 0.5, metrics without a value), also issued as
        :class:`~fairacq.relational.MetricsWarning`.
    """

    predictions: pd.DataFrame
    metrics: dict[str, float]
    weights: NDArray[np.float64]
    rules: list[str]
    model: GroundModel | None
    map_result: MapResult
    learning: WeightLearningResult | None
    fairness: tuple[FairnessSpec, ...]
    seconds: dict[str, float] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    _not_saved = ("model",)

    def to_frame(self) -> pd.DataFrame:
        """Return the inferred atoms: ``predicate``, ``arg0 ...``, ``value`` (a copy)."""
        return self.predictions.copy()

    def _caption(self) -> str:
        names = {"auc_roc": "AUC-ROC", "rd": "RD"}
        shown = [f"{names[k]} {v:.4f}" for k, v in self.metrics.items() if k in names]
        state = "converged" if self.map_result.converged else "not converged"
        return ", ".join([f"{len(self.predictions)} atoms", *shown, f"inference {state}"])

    def summary(self) -> dict[str, Any]:
        """Return a JSON-ready dict: metrics (None where undefined), weights, rules, etc.

        ``n_potentials`` is None for a loaded result (its model is not saved).
        """
        res = self.map_result
        model = self.model
        return {
            "metrics": json_metrics(self.metrics),
            "rules": list(self.rules),
            "weights": [float(w) for w in self.weights],
            "fairness": [str(f) for f in self.fairness],
            "map": {
                "objective": float(res.objective),
                "max_violation": float(res.max_violation),
                "primal_residual": float(res.primal_residual),
                "dual_residual": float(res.dual_residual),
                "n_iter": int(res.n_iter),
                "converged": bool(res.converged),
            },
            "n_variables": len(res.values),
            "n_potentials": None if model is None else int(model.potentials.n_potentials),
            "seconds": {k: round(v, 4) for k, v in self.seconds.items()},
            "warnings": list(self.warnings),
        }


def _evaluate(
    test: RelationalData,
    frame: pd.DataFrame,
    predicate: str | None,
    threshold: float | None,
    times: dict[str, float],
) -> tuple[dict[str, float], list[str]]:
    """Return the metrics of ``frame`` and the notes on them, each issued as a warning."""
    tic = time.perf_counter()
    metrics = evaluate_atoms(test, frame, predicate=predicate, threshold=threshold)
    notes = metric_notes(test, metrics, predicate=predicate)
    times["evaluate"] = time.perf_counter() - tic
    for note in notes:
        warn_caller(note, MetricsWarning)
    return metrics, notes


def as_rules(rules: RuleInput) -> list[Rule | ArithmeticRule]:
    """Parse rule text (or a list of texts and rule objects) into rule objects.

    Parameters
    ----------
    rules : str or sequence of (str, Rule, ArithmeticRule)
        PSL text with one rule per line, or a list of single rules.

    Returns
    -------
    list of Rule or ArithmeticRule

    Raises
    ------
    InvalidDataError
        If the text does not parse or holds no rule.
    InvalidParameterError
        If ``rules`` is neither text nor a list, or an item is no rule.
    """
    out: list[Rule | ArithmeticRule] = []
    for item in check_rule_items(rules, "run_pipeline"):
        out.extend(parse_rules(item) if isinstance(item, str) else [item])
    if not out:
        raise InvalidDataError("run_pipeline: no rule given. Pass PSL rule text.")
    return out


def _option_dicts(weight_learning: Any, map_options: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return the keyword arguments of weight learning and MAP inference, keys checked."""
    learning = check_option_keys(
        weight_learning, "run_pipeline: weight_learning", [learn_weights],
        skip=("truth", "fairness", "random_state"),
    )  # fmt: skip
    options = check_option_keys(
        MAP_TIGHT if map_options is None else map_options, "run_pipeline: map_options",
        [map_inference, admm_map],
    )  # fmt: skip
    return learning, options


def _specs(
    fairness: str | FairnessSpec | Sequence[str | FairnessSpec],
) -> tuple[FairnessSpec, ...]:
    if not isinstance(fairness, (str, FairnessSpec, Sequence)):
        raise InvalidParameterError(
            f"run_pipeline: fairness must be a constraint such as 'rd<=0.1' or a list of them, "
            f"got {type(fairness).__name__} {fairness!r}. Pass e.g. fairness='rd<=0.1'."
        )
    items = [fairness] if isinstance(fairness, (str, FairnessSpec)) else list(fairness)
    return tuple(parse_fairness(f) if isinstance(f, str) else f for f in items)


def apply_fairness(
    model: GroundModel,
    data: RelationalData,
    fairness: str | FairnessSpec | Sequence[str | FairnessSpec],
    *,
    predicate: str | None = None,
) -> GroundModel:
    """Add delta-fairness constraints over ``data``'s groups to a model grounded from it.

    Parameters
    ----------
    model : GroundModel
        Grounded from ``data`` (its variables include the group atoms).
    data : RelationalData
        Gives the protected and unprotected atoms.
    fairness : str, FairnessSpec or sequence of them
        E.g. ``"rd<=0.1"`` or ``("rd<=0.1", "rr<=0.1")``; empty adds nothing.
    predicate : str or None, default=None
        Predicate of the group atoms; ``None`` means ``data.fairness_predicate``.

    Returns
    -------
    GroundModel
    """
    rows = fairness_rows(model, data, fairness, predicate=predicate)
    return model if rows.n_constraints == 0 else model.with_constraints(rows)


def fairness_rows(
    model: GroundModel,
    data: RelationalData,
    fairness: str | FairnessSpec | Sequence[str | FairnessSpec],
    *,
    predicate: str | None = None,
) -> LinearConstraints:
    """Return the delta-fairness rows over ``data``'s groups (see :func:`apply_fairness`)."""
    rows = LinearConstraints.empty(model.n_variables)
    specs = _specs(fairness)
    if not specs:
        return rows
    protected, unprotected = data.group_variables(model, predicate)
    for spec in specs:
        rows = rows + fairness_constraints(
            model, spec, protected=protected, unprotected=unprotected
        )
    return rows


def _check_truth(db: Database, where: str) -> NDArray[np.float64]:
    truth = db.truth_vector()
    missing = int(np.isnan(truth).sum())
    if missing:
        raise InvalidDataError(
            f"run_pipeline: {missing} target atoms of the {where} data have no truth value. "
            "Weight learning needs the truth of every training target."
        )
    return truth


def _rule_texts(rules: Sequence[Rule | ArithmeticRule], weights: NDArray[np.float64]) -> list[str]:
    out: list[str] = []
    k = 0
    for rule in rules:
        if rule.weight is None:
            out.append(rule.text)
            continue
        out.append(dataclasses.replace(rule, weight=round(float(weights[k]), 6)).text)
        k += 1
    return out


def _check_targets_ruled(parsed: Sequence[Rule | ArithmeticRule], test: RelationalData) -> None:
    """Refuse rules that mention no target predicate: inference would decide nothing."""
    targets = set(test.targets)
    if targets and not targets & {p for rule in parsed for p in rule.predicates()}:
        raise InvalidDataError(
            f"run_pipeline: no rule mentions a target predicate ({', '.join(sorted(targets))}), "
            "so inference has nothing to decide. Write rules whose atoms include one."
        )


def run_pipeline(
    rules: RuleInput,
    train: RelationalData | None,
    test: RelationalData,
    *,
    fairness: str | FairnessSpec | Sequence[str | FairnessSpec] = (),
    fair_learning: bool = False,
    weights: ArrayLike | None = None,
    weight_learning: Mapping[str, Any] | None = None,
    map_options: Mapping[str, Any] | None = None,
    predicate: str | None = None,
    evaluate: bool = True,
    threshold: float | None = None,
    random_state: RandomState = None,
) -> PipelineResult:
    """Ground, learn weights on ``train``, infer on ``test`` under fairness, evaluate.

    Parameters
    ----------
    rules : str or sequence of (str, Rule, ArithmeticRule)
        The model: PSL rule text (one rule per line) or parsed rules.
    train : RelationalData or None
        Training data with truth for every target atom; ``None`` skips weight learning.
    test : RelationalData
        Data to infer; its groups define the fairness constraints and its truth the metrics.
    fairness : str, FairnessSpec or sequence of them, default=()
        Delta-fairness constraints at test inference, e.g. ``"rd<=0.1"`` (Zhang & Ramesh §4.2).
    fair_learning : bool, default=False
        Also impose the constraints (over the training groups) during weight learning.
    weights : array-like of shape (n_weighted_rules,) or None, default=None
        Use these weights instead of learning (``train`` is then ignored).
    weight_learning : mapping or None, default=None
        Keyword arguments of :func:`~fairacq.relational.learn_weights` (``n_iter``,
        ``step``, ``init_weight``, ``admm_options``...).
    map_options : mapping or None, default=None
        Keyword arguments of :func:`~fairacq.relational.map_inference` (``solver``, ADMM
        tolerances) for the test inference;
        ``None`` means :data:`MAP_TIGHT`.
    predicate : str or None, default=None
        The evaluated (and fairness-constrained) predicate; ``None`` means
        ``test.fairness_predicate``.
    evaluate : bool, default=True
        Compute the metrics (needs the test truth).
    threshold : float or None, default=None
        See :func:`~fairacq.relational.evaluate_classification`.
    random_state : int, numpy.random.Generator or None, default=None
        Seeds weight learning's first ADMM start.

    Returns
    -------
    PipelineResult

    Raises
    ------
    InvalidDataError
        If a rule does not parse or names an unknown predicate, training truth is missing,
        or a group atom is not a test target.
    InvalidParameterError
        If ``weights`` has the wrong length, ``rules`` or ``fairness`` is of the wrong kind,
        or ``weight_learning`` / ``map_options`` holds a key its function does not take.

    Examples
    --------
    >>> import pandas as pd
    >>> from fairacq.relational import RelationalData
    >>> users = [f"u{i}" for i in range(6)]
    >>> data = RelationalData(
    ...     observations={"risky": pd.DataFrame({"user": users, "value": [1, 1, 0, 1, 0, 0]})},
    ...     targets={"recid": pd.DataFrame({"user": users})},
    ...     truth={"recid": pd.DataFrame({"user": users, "value": [1, 1, 0, 1, 0, 0]})},
    ...     protected=pd.DataFrame({"user": users[:3]}),
    ...     unprotected=pd.DataFrame({"user": users[3:]}),
    ...     metadata={"fairness_predicate": "recid", "favourable": 0},
    ... )
    >>> rules = ["5: risky(U) -> recid(U) ^2", "5: !recid(U) ^2"]
    >>> out = run_pipeline(rules, data, data, fairness="rd<=0.1", random_state=0)
    >>> round(out.metrics["auc_roc"], 3), abs(out.metrics["rd"]) <= 0.1 + 1e-4
    (1.0, True)
    """
    times: dict[str, float] = {}
    parsed = as_rules(rules)
    _check_targets_ruled(parsed, test)
    specs = _specs(fairness)
    learning, options = _option_dicts(weight_learning, map_options)
    learned: WeightLearningResult | None = None
    tic = time.perf_counter()
    if weights is None and train is not None:
        train_db = Database.from_data(train)
        train_model = ground(parsed, train_db)
        truth = _check_truth(train_db, "training")
        times["ground_train"] = time.perf_counter() - tic
        tic = time.perf_counter()
        extra = None
        if fair_learning and specs:
            extra = fairness_rows(train_model, train, specs, predicate=predicate)
        learned = learn_weights(
            train_model,
            truth,
            fairness=extra,
            random_state=random_state,
            **learning,
        )
        times["learn"] = time.perf_counter() - tic
        tic = time.perf_counter()
    test_model = ground(parsed, Database.from_data(test))
    times["ground_test"] = time.perf_counter() - tic
    if weights is not None:
        w = np.asarray(weights, dtype=np.float64).reshape(-1)
        if w.shape != (test_model.n_rules,):
            raise InvalidParameterError(
                f"run_pipeline: weights has {w.size} values but the rules have "
                f"{test_model.n_rules} weighted rules. Pass one weight per weighted rule."
            )
    elif learned is not None:
        w = np.asarray(learned.weights, dtype=np.float64)
    else:
        w = np.asarray(test_model.rule_weights, dtype=np.float64)
    model = apply_fairness(test_model.with_rule_weights(w), test, specs, predicate=predicate)
    tic = time.perf_counter()
    result = map_inference(model, **options)
    times["infer"] = time.perf_counter() - tic
    frame = result.to_frame(model)
    frame["value"] = np.clip(frame["value"].to_numpy(dtype=np.float64), 0.0, 1.0)
    metrics, notes = _evaluate(test, frame, predicate, threshold, times) if evaluate else ({}, [])
    return PipelineResult(
        predictions=frame,
        metrics=metrics,
        weights=w,
        rules=_rule_texts(parsed, w),
        model=model,
        map_result=result,
        learning=learned,
        fairness=specs,
        seconds=times,
        warnings=tuple(notes),
    )
