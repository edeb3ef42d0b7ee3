"""The learners the five papers train, built by name with one seed."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sklearn.calibration import CalibratedClassifierCV
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier

from fairacq._random import RandomState, derive_int_seed
from fairacq._typing import Classifier, LearnerLike
from fairacq._validation import check_known_params, did_you_mean
from fairacq.exceptions import InvalidParameterError

__all__ = [
    "LearnerSpec",
    "available_learners",
    "describe_learner",
    "is_learner",
    "learner_spec",
    "make_learner",
]


@dataclass(frozen=True)
class LearnerSpec:
    """A learner the papers use.

    Attributes
    ----------
    name : str
        Registry name.
    description : str
        What it is and which paper uses it.
    warm_start : bool
        Whether a refit can start from the previous solution.
    build : callable
        ``build(seed, warm_start, **params)`` returning the unscaled classifier.
    partial_fit : bool
        Whether a fitted model can learn from new rows only
        (:func:`~fairacq.models.partial_update`).
    """

    name: str
    description: str
    warm_start: bool
    build: Callable[..., Classifier]
    partial_fit: bool = False


def _lr(seed: int, warm_start: bool, **params: Any) -> Any:
    return LogisticRegression(
        **{"C": 1.0, "max_iter": 1000, "random_state": seed, "warm_start": warm_start, **params}
    )


def _svm(seed: int, warm_start: bool, **params: Any) -> Any:
    # Platt scaling on out-of-fold decision values, one final LinearSVC (ensemble=False).
    svc = LinearSVC(**{"C": 1.0, "max_iter": 5000, "random_state": seed, **params})
    return CalibratedClassifierCV(svc, method="sigmoid", cv=3, ensemble=False)


def _mlp(seed: int, warm_start: bool, **params: Any) -> Any:
    return MLPClassifier(
        **{
            "hidden_layer_sizes": (10,),
            "max_iter": 500,
            "random_state": seed,
            "warm_start": warm_start,
            **params,
        }
    )


def _tree(seed: int, warm_start: bool, **params: Any) -> Any:
    return DecisionTreeClassifier(**{"random_state": seed, "min_samples_leaf": 5, **params})


def _forest(seed: int, warm_start: bool, **params: Any) -> Any:
    return RandomForestClassifier(
        **{"n_estimators": 100, "random_state": seed, "n_jobs": 1, **params}
    )


_REGISTRY: dict[str, LearnerSpec] = {
    spec.name: spec
    for spec in (
        LearnerSpec(
            "lr", "Logistic regression (L2, C=1, lbfgs), as most cited papers use.", True, _lr
        ),
        LearnerSpec(
            "linear_svm", "Linear SVM with Platt-scaled probabilities (DataSift).", False, _svm
        ),
        LearnerSpec(
            "mlp",
            "One-hidden-layer MLP with 10 units (ReLU, Adam): Hasan & Pradhan.",
            True,
            _mlp,
            partial_fit=True,
        ),
        LearnerSpec(
            "decision_tree", "CART decision tree (min 5 rows per leaf): Deng et al.", False, _tree
        ),
        LearnerSpec("random_forest", "Random forest of 100 trees.", False, _forest),
    )
}


def available_learners() -> list[str]:
    """Names accepted by :func:`make_learner`.

    Examples
    --------
    >>> available_learners()
    ['decision_tree', 'linear_svm', 'lr', 'mlp', 'random_forest']
    """
    return sorted(_REGISTRY)


def learner_spec(name: str) -> LearnerSpec:
    """Return the :class:`LearnerSpec` registered under ``name``.

    Raises
    ------
    UnknownNameError
        With the closest registered name.
    """
    try:
        return _REGISTRY[name]
    except KeyError:
        raise did_you_mean(
            "learner", name, _REGISTRY, "fairacq.models.available_learners()"
        ) from None


def make_learner(
    name: LearnerLike,
    *,
    random_state: RandomState = None,
    scale: bool = True,
    warm_start: bool = False,
    **params: Any,
) -> Classifier:
    """Build a fresh scikit-learn classifier by name.

    Parameters
    ----------
    name : str or estimator
        One of :func:`available_learners`; ``"module:Class"`` (e.g.
        ``"sklearn.ensemble:HistGradientBoostingClassifier"``), built with ``params`` and not
        scaled; or a scikit-learn classifier (a :class:`~sklearn.pipeline.Pipeline` too),
        cloned, its unset ``random_state`` parameters seeded.
    random_state : int, numpy.random.Generator, SeedSequence or None, default=None
        Seeds the learner (one int derived from it).
    scale : bool, default=True
        Standardise features first (a :class:`~sklearn.pipeline.Pipeline` with a
        :class:`~sklearn.preprocessing.StandardScaler`); the classifier is the step ``"clf"``.
    warm_start : bool, default=False
        Reuse the previous solution on refits where the learner allows it (``lr``, ``mlp``);
        ignored otherwise.
    **params
        Passed to the classifier, overriding the defaults.

    Returns
    -------
    estimator
        An unfitted classifier with ``fit``, ``predict`` and ``predict_proba``.

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> ds = load_toy()
    >>> model = make_learner("lr", random_state=0).fit(ds.to_numpy(), ds.y)
    >>> model.predict_proba(ds.to_numpy()).shape
    (200, 2)
    """
    seed = derive_int_seed(random_state) if random_state is not None else None
    if not isinstance(name, str) or ":" in name:
        user: Classifier = _user_learner(name, seed, params)  # scikit-learn is untyped
        return user
    spec = learner_spec(name)
    check_known_params(f"The model {name!r}", params, _takes(spec.build(None, False)))
    clf = spec.build(seed, warm_start and spec.warm_start, **params)
    if params:
        _check_param_values(clf, params)
    if not scale:
        return clf
    scaled: Classifier = Pipeline([("scale", StandardScaler()), ("clf", clf)])
    return scaled


def is_learner(value: object) -> bool:
    """Whether :func:`make_learner` takes ``value``: a name, ``"module:Class"`` or a classifier."""
    if isinstance(value, str):
        return value in _REGISTRY or _IMPORT_PATH.fullmatch(value) is not None
    return callable(getattr(value, "fit", None)) and callable(
        getattr(value, "predict_proba", None)
    )


def describe_learner(learner: LearnerLike) -> str:
    """Return a short name for reports: registry name, import path or class name."""
    if isinstance(learner, str):
        return learner
    steps = getattr(learner, "steps", None)
    if isinstance(steps, list) and steps:
        return "Pipeline(" + ", ".join(type(step).__name__ for _, step in steps) + ")"
    return type(learner).__name__


def _takes(clf: Any) -> list[str]:
    """Return the parameters ``make_learner(name, **params)`` passes on to the classifier."""
    if isinstance(clf, CalibratedClassifierCV):  # linear_svm: they go to the calibrated SVM
        clf = clf.estimator
    return sorted(clf.get_params(deep=False))


_IMPORT_PATH = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")


def _user_learner(learner: Any, seed: int | None, params: dict[str, Any]) -> Any:
    """Clone a user's estimator, or build ``module:Class`` with ``params``."""
    from sklearn.base import clone

    if isinstance(learner, str):
        cls = _import_class(learner)
        if hasattr(cls, "_get_param_names"):  # a scikit-learn estimator lists its parameters
            check_known_params(f"The model {learner}", params, cls._get_param_names())
        learner = cls(**params)
    elif params:
        where = f"The model {describe_learner(learner)}"
        check_known_params(where, params, learner.get_params(deep=True))
        learner = clone(learner).set_params(**params)
    _check_param_values(learner, params)
    if not is_learner(learner):
        raise InvalidParameterError(
            f"The model {describe_learner(learner)} has no fit/predict_proba. Pass a "
            "scikit-learn classifier with predict_proba (e.g. LogisticRegression)."
        )
    try:
        model = clone(learner)
    except TypeError as exc:
        raise InvalidParameterError(
            f"Cannot clone the model {describe_learner(learner)} ({exc}). Pass a scikit-learn "
            "estimator (get_params/set_params), e.g. one built with sklearn.base.BaseEstimator."
        ) from None
    if seed is not None:
        unset = {
            k: seed
            for k, v in model.get_params().items()
            if k.endswith("random_state") and v is None
        }
        model.set_params(**unset)
    return model


def _import_class(path: str) -> Any:
    """Import ``module:Class``; one clear error if it cannot be imported."""
    import importlib

    if _IMPORT_PATH.fullmatch(path) is None:
        raise InvalidParameterError(
            f"--model {path!r} is not module:Class. Write e.g. "
            "sklearn.ensemble:RandomForestClassifier, or one of " + ", ".join(_REGISTRY) + "."
        )
    module_name, class_name = path.split(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise InvalidParameterError(
            f"Cannot import module {module_name!r} for --model {path} ({exc}). Install it or "
            "check the spelling."
        ) from None
    except Exception as exc:  # the module's own code failed while it was imported
        raise InvalidParameterError(
            f"Importing module {module_name!r} for --model {path} failed "
            f"({type(exc).__name__}: {_first_line(exc)}). Fix the module, or pick a built-in "
            "model such as lr."
        ) from None
    cls = getattr(module, class_name, None)
    if cls is None:
        raise InvalidParameterError(
            f"Module {module_name!r} has no {class_name!r} for --model {path}. Check the name."
        )
    if not isinstance(cls, type):
        raise InvalidParameterError(
            f"--model {path} names a {type(cls).__name__}, not a class. Name a scikit-learn "
            "classifier class, e.g. sklearn.ensemble:RandomForestClassifier."
        )
    return cls


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else "no message"


def _check_param_values(model: Any, params: dict[str, Any]) -> None:
    """Refuse, before any fit, parameter values the estimator's own constraints reject."""
    fix = (
        f"Fix the value of {', '.join(sorted(params))} (--model-param)."
        if params
        else "Fix the model's parameters."
    )
    steps = [step for _, step in getattr(model, "steps", None) or []] or [model]
    for step in steps:
        validate = getattr(step, "_validate_params", None)  # scikit-learn's own check
        if not callable(validate) or not hasattr(step, "_parameter_constraints"):
            continue  # a user's own estimator that declares no constraints
        try:
            validate()
        except (TypeError, ValueError) as exc:
            detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise InvalidParameterError(f"{detail} {fix}") from None
