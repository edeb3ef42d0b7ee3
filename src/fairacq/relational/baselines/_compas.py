"""Non-relational baselines of Zhang & Ramesh's COMPAS tables (§5.2, Tables 8-9).

COMPAS (Tables 8-9). The paper ran five AIF360 models; fairlearn stands in for them, over a
logistic regression on the same features the PSL rules read (:func:`compas_features`: counts
of prior and juvenile offences, ``oldAge``, ``felony``, ``longJailDay``; no race, no sex):

- ``"compas-score"``: the COMPAS tool's own prediction (1 for Medium/High risk);
- ``"logistic"``: the unconstrained logistic regression;
- ``"expgrad-dp"`` / ``"expgrad-eo"``: ``ExponentiatedGradient`` with ``DemographicParity`` /
  ``EqualizedOdds`` (Agarwal et al. 2018), standing in for the in-processing models
  (Prejudice Remover, Adversarial Debiasing, Line-FERM); its soft prediction is the
  randomised classifier's probability of a positive label;
- ``"threshold-eo"``: ``ThresholdOptimizer`` with equalised odds on the logistic scores
  (Hardt et al. 2016), standing in for Calibrated Equalized Odds post-processing; it
  predicts the probability of a positive label of the group-dependent randomised threshold.

Both fairlearn methods are evaluated through their probability mass (``_pmf_predict``), so
the predictions are deterministic and soft (AUCs are defined); no random draw is made.

The sensitive feature of the fairness methods is the race (African-American or not), which
they see at training and (ThresholdOptimizer) at prediction time.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from fairacq._validation import did_you_mean
from fairacq.data.relational._relational_data import RelationalData
from fairacq.exceptions import InvalidDataError

__all__ = [
    "COMPAS_BASELINES",
    "COMPAS_FEATURES",
    "compas_baseline",
    "compas_features",
]

#: COMPAS feature -> (predicate, how it becomes a number per user).
COMPAS_FEATURES: Mapping[str, tuple[str, str]] = {
    "priors": ("priors", "count"),
    "juv_fel": ("juvFelHistory", "count"),
    "juv_misd": ("juvMisdHistory", "count"),
    "juv_other": ("juvOtherHistory", "count"),
    "old_age": ("oldAge", "value"),
    "felony": ("felony", "value"),
    "long_jail": ("longJailDay", "value"),
}
#: Baselines :func:`compas_baseline` runs, with the AIF360 models they stand in for.
COMPAS_BASELINES: Mapping[str, str] = {
    "compas-score": "COMPAS Scores",
    "logistic": "Logistic regression (no constraint)",
    "expgrad-dp": "ExpGrad + DemographicParity (for Prejudice Remover / Opt. Preproc.)",
    "expgrad-eo": "ExpGrad + EqualizedOdds (for Adversarial Debiasing / Line-FERM)",
    "threshold-eo": "ThresholdOptimizer, equalized odds (for Calibrated Equalized Odds)",
}


def _target_users(data: RelationalData) -> pd.DataFrame:
    pred = data.fairness_predicate
    if pred is None or pred not in data.targets:
        raise InvalidDataError(
            "compas_features: the data names no fairness predicate; load it with "
            "load_compas_relational."
        )
    frame = data.targets[pred]
    if list(frame.columns[:1]) != ["user"]:
        raise InvalidDataError(
            f"compas_features: the target {pred!r} must have a 'user' column first "
            f"(got {list(frame.columns)}). Load COMPAS with load_compas_relational."
        )
    return frame[["user"]].astype(str).reset_index(drop=True)


def compas_features(
    data: RelationalData,
) -> tuple[pd.DataFrame, NDArray[np.int64], NDArray[np.bool_]]:
    """Return per-user features, labels and the protected mask of COMPAS relational data.

    Parameters
    ----------
    data : RelationalData
        From :func:`~fairacq.relational.load_compas_relational`.

    Returns
    -------
    X : pandas.DataFrame
        One row per target user (in ``data.targets`` order), the columns of
        :data:`COMPAS_FEATURES` (instance predicates counted, graded ones by value, 0 when
        absent: closed world).
    y : ndarray of int
        Two-year recidivism (truth above 0.5).
    protected : ndarray of bool
        ``True`` for the protected group's users (African-American).

    Raises
    ------
    InvalidDataError
        If a predicate the features need is missing.
    """
    users = _target_users(data)
    index = pd.Index(users["user"])
    columns: dict[str, Any] = {}
    for name, (pred, how) in COMPAS_FEATURES.items():
        if pred not in data.observations:
            raise InvalidDataError(
                f"compas_features: predicate {pred!r} is not observed. Load the data with "
                "load_compas_relational."
            )
        frame = data.observations[pred]
        if how == "count":
            series = frame.groupby(frame["user"].astype(str)).size().astype(np.float64)
        else:
            series = frame.set_index(frame["user"].astype(str))["value"].astype(np.float64)
        columns[name] = series.reindex(index).fillna(0.0).to_numpy(dtype=np.float64)
    X = pd.DataFrame(columns)
    pred = str(data.fairness_predicate)
    truth = data.truth[pred]
    value = truth.set_index(truth["user"].astype(str))["value"].reindex(index)
    if value.isna().any():
        raise InvalidDataError("compas_features: some target users have no truth value.")
    y = (value.to_numpy(dtype=np.float64) > 0.5).astype(np.int64)
    protected = index.isin(data.protected["user"].astype(str)).astype(bool)
    return X, y, np.asarray(protected, dtype=bool)


def _logistic() -> Any:
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(max_iter=1000)  # lbfgs: deterministic


def _standardise(
    train: pd.DataFrame, test: pd.DataFrame
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    a = train.to_numpy(dtype=np.float64)
    b = test.to_numpy(dtype=np.float64)
    mean, std = a.mean(axis=0), a.std(axis=0)
    std = np.where(std > 0, std, 1.0)
    return (a - mean) / std, (b - mean) / std


@contextlib.contextmanager
def _quiet_fairlearn() -> Iterator[None]:
    """Silence the pandas deprecation warnings fairlearn 0.15 triggers in its own code."""
    with warnings.catch_warnings():
        # pandas 3 deprecations (".at" enlarging a Series, dtype upcasts) inside fairlearn.
        warnings.filterwarnings("ignore", message="Setting a", category=DeprecationWarning)
        yield


def compas_baseline(
    method: str,
    train: RelationalData,
    test: RelationalData,
) -> pd.DataFrame:
    """Fit one COMPAS baseline on ``train`` and predict the recidivism of ``test``'s users.

    Parameters
    ----------
    method : str
        A key of :data:`COMPAS_BASELINES`.
    train, test : RelationalData
        Folds from :func:`~fairacq.relational.load_compas_relational`; ``"compas-score"``
        needs ``test`` loaded with ``include_compas_score=True``.

    Returns
    -------
    pandas.DataFrame
        ``user`` and ``value`` (predicted probability of recidivism in ``[0, 1]``), one row
        per test target user; pass it to :func:`~fairacq.relational.evaluate_atoms`.

    Raises
    ------
    UnknownNameError
        For an unknown method.
    InvalidDataError
        If the data lack a predicate (e.g. ``compas_score``).

    Examples
    --------
    >>> from fairacq.relational import evaluate_atoms, load_compas_relational
    >>> test = load_compas_relational(0, include_compas_score=True)
    >>> pred = compas_baseline("compas-score", test, test)
    >>> round(evaluate_atoms(test, pred)["rd"], 2)
    0.24
    """
    if method not in COMPAS_BASELINES:
        raise did_you_mean(
            "COMPAS baseline", method, COMPAS_BASELINES, "fairacq.relational.COMPAS_BASELINES"
        )
    users = _target_users(test)
    if method == "compas-score":
        if "compas_score" not in test.observations:
            raise InvalidDataError(
                "compas_baseline: 'compas-score' needs the tool's predictions; load the test "
                "fold with load_compas_relational(..., include_compas_score=True)."
            )
        score = test.observations["compas_score"]
        mapped = score.set_index(score["user"].astype(str))["value"].reindex(users["user"])
        return pd.DataFrame(
            {"user": users["user"], "value": mapped.fillna(0.0).to_numpy(dtype=np.float64)}
        )
    F_tr, y_tr, s_tr = compas_features(train)
    F_te, _, s_te = compas_features(test)
    X_tr, X_te = _standardise(F_tr, F_te)
    if method == "logistic":
        model = _logistic().fit(X_tr, y_tr)
        proba = model.predict_proba(X_te)[:, 1]
    elif method in ("expgrad-dp", "expgrad-eo"):
        from fairlearn.reductions import DemographicParity, EqualizedOdds, ExponentiatedGradient

        moment = DemographicParity() if method == "expgrad-dp" else EqualizedOdds()
        reduction = ExponentiatedGradient(_logistic(), moment)
        with _quiet_fairlearn():
            reduction.fit(X_tr, y_tr, sensitive_features=s_tr)
        proba = reduction._pmf_predict(X_te)[:, 1]  # probability of the randomised classifier
    else:  # threshold-eo
        from fairlearn.postprocessing import ThresholdOptimizer

        post = ThresholdOptimizer(
            estimator=_logistic(),
            constraints="equalized_odds",
            predict_method="predict_proba",
        )
        with _quiet_fairlearn():
            post.fit(X_tr, y_tr, sensitive_features=s_tr)
            proba = post._pmf_predict(X_te, sensitive_features=s_te)[:, 1]
    value = np.clip(np.asarray(proba, dtype=np.float64), 0.0, 1.0)
    return pd.DataFrame({"user": users["user"], "value": value})
