"""COMPAS and MovieLens baselines of paper 004 (fairlearn stand-ins, MF, Fair-MF)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairacq.exceptions import InvalidDataError, InvalidParameterError, UnknownNameError
from fairacq.metrics import non_parity_unfairness
from fairacq.relational import (
    COMPAS_FEATURES,
    RelationalData,
    compas_baseline,
    compas_features,
    evaluate_atoms,
    fit_biased_mf,
    fit_fair_mf,
    load_compas_relational,
    movielens_baseline,
)


@pytest.fixture(scope="module")
def compas_fold():
    train = load_compas_relational(1, split="train")
    test = load_compas_relational(1, split="test", include_compas_score=True)
    return train, test


def test_features_count_offences_and_read_graded_values(compas_fold):
    _, test = compas_fold
    X, y, protected = compas_features(test)
    assert list(X.columns) == list(COMPAS_FEATURES)
    assert len(X) == len(y) == len(protected) == test.n_atoms("recidivist")
    users = test.targets["recidivist"]["user"].astype(str).to_numpy()
    priors = test.observations["priors"].groupby("user").size()
    np.testing.assert_array_equal(X["priors"], priors.reindex(users).fillna(0).to_numpy())
    assert set(np.unique(X["old_age"])) <= {0.0, 0.5, 1.0}
    assert protected.sum() == len(test.protected)
    assert set(np.unique(y)) == {0, 1}


def test_fair_baselines_close_the_odds_gaps_of_the_plain_model(compas_fold):
    train, test = compas_fold
    out = {m: evaluate_atoms(test, compas_baseline(m, train, test)) for m in
           ("compas-score", "logistic", "expgrad-eo", "threshold-eo")}  # fmt: skip
    plain = out["logistic"]["equal_odds_pos"] + out["logistic"]["equal_odds_neg"]
    for method in ("expgrad-eo", "threshold-eo"):
        gaps = out[method]["equal_odds_pos"] + out[method]["equal_odds_neg"]
        assert gaps < plain, method
    # the COMPAS tool itself is the most unequal (paper Table 9: RD 0.26)
    assert out["compas-score"]["rd"] > 0.15
    assert out["compas-score"]["rd"] > abs(out["threshold-eo"]["rd"])
    assert out["logistic"]["auc_roc"] > out["compas-score"]["auc_roc"]


def test_demographic_parity_baseline_equalises_rates(compas_fold):
    train, test = compas_fold
    dp = evaluate_atoms(test, compas_baseline("expgrad-dp", train, test))
    plain = evaluate_atoms(test, compas_baseline("logistic", train, test))
    assert abs(dp["rd"]) < abs(plain["rd"])


def test_baseline_errors(compas_fold):
    train, _ = compas_fold
    with pytest.raises(InvalidDataError, match="include_compas_score=True"):
        compas_baseline("compas-score", train, train)
    with pytest.raises(UnknownNameError, match="Did you mean 'logistic'"):
        compas_baseline("logistc", train, train)


def _ratings(seed: int = 0):
    rng = np.random.default_rng(seed)
    n_users, n_items = 30, 20
    female = rng.random(n_users) < 0.4
    pairs = [(u, i) for u in range(n_users) for i in range(n_items) if rng.random() < 0.5]
    u = np.array([p[0] for p in pairs])
    i = np.array([p[1] for p in pairs])
    r = np.clip(0.6 + 0.2 * female[u] + 0.1 * rng.standard_normal(len(u)), 0, 1)
    return u, i, r, female, n_users, n_items


def test_fair_mf_without_penalty_is_plain_mf_and_penalty_closes_parity():
    u, i, r, female, n_u, n_i = _ratings()
    plain = fit_fair_mf(
        u, i, r, female, n_users=n_u, n_items=n_i, lam_parity=0, lam_over=0, rank=3,
        random_state=0,
    )  # fmt: skip
    als = fit_biased_mf(u, i, r, n_users=n_u, n_items=n_i, rank=3, random_state=0)
    np.testing.assert_allclose(plain.predict(u, i), als.predict(u, i))
    fair = fit_fair_mf(
        u, i, r, female, n_users=n_u, n_items=n_i, lam_parity=5.0, lam_over=0, rank=3,
        n_epochs=300, lr=0.01, random_state=0,
    )  # fmt: skip
    before = non_parity_unfairness(plain.predict(u, i), female[u], protected=True)
    after = non_parity_unfairness(fair.predict(u, i), female[u], protected=True)
    assert after < 0.5 * before


def test_fair_mf_parameter_errors():
    u, i, r, female, n_u, n_i = _ratings()
    with pytest.raises(InvalidParameterError, match="'lam_over' parameter"):
        fit_fair_mf(u, i, r, female, n_users=n_u, n_items=n_i, lam_over=-1.0)
    with pytest.raises(InvalidDataError, match="one per user"):
        fit_fair_mf(u, i, r, female[:3], n_users=n_u, n_items=n_i)


def _movielens_like() -> RelationalData:
    u, i, r, female, n_u, _ = _ratings(1)
    users = np.array([f"u{k}" for k in range(n_u)])
    frame = pd.DataFrame({"user": users[u], "item": [f"i{k}" for k in i], "value": r})
    obs, tgt = frame.iloc[:-40], frame.iloc[-40:].reset_index(drop=True)
    pairs = tgt[["user", "item"]]
    flags = dict(zip(users, female, strict=True))
    mask = pairs["user"].map(flags).to_numpy(dtype=bool)
    return RelationalData(
        observations={
            "rating": obs,
            "ratingMF": frame[["user", "item"]].assign(value=0.5),
            "female": pd.DataFrame({"user": users, "value": female.astype(float)}),
        },
        targets={"rating": pairs},
        truth={"rating": tgt},
        protected=pairs.loc[mask].reset_index(drop=True),
        unprotected=pairs.loc[~mask].reset_index(drop=True),
        metadata={"fairness_predicate": "rating", "task": "rating", "mf": {"rank": 3}},
    )


def test_movielens_baselines_predict_every_target_rating():
    data = _movielens_like()
    mf = movielens_baseline("mf", data)
    assert list(mf.columns) == ["user", "item", "value"]
    np.testing.assert_allclose(mf["value"], 0.5)
    fair = movielens_baseline("fair-mf", data, fair_options={"n_epochs": 20}, random_state=0)
    assert len(fair) == 40
    assert fair["value"].between(0, 1).all()
    metrics = evaluate_atoms(data, fair)
    assert metrics["mse"] < 0.1
    with pytest.raises(UnknownNameError):
        movielens_baseline("svd", data)  # type: ignore[arg-type]
