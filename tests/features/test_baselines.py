from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from fairacq.data import load_adult, load_toy, split_dadi
from fairacq.exceptions import InvalidDataError, InvalidParameterError
from fairacq.features._baselines import (
    AgentScorer,
    LearnerScorer,
    column_mask,
    fixed_subset_baselines,
    greedy_fair_selection,
    score_predictions,
    sensitive_feature_groups,
    static_selection_front,
)
from fairacq.metrics import pareto_front


@pytest.fixture(scope="module")
def adult_split():
    data = load_adult(include_sensitive_features=True)
    rng = np.random.default_rng(0)
    small = data.subset(np.sort(rng.choice(len(data), 3000, replace=False)))
    return split_dadi(small, random_state=0)


def test_score_predictions_matches_definitions() -> None:
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 200)
    s = rng.integers(0, 2, 200)
    p = rng.random(200)
    auc, disp = score_predictions(y, p, s)
    yhat = p >= 0.5
    assert auc == pytest.approx(roc_auc_score(y, p))
    assert disp == pytest.approx(abs(yhat[s == 0].mean() - yhat[s == 1].mean()))


def test_sensitive_feature_groups() -> None:
    assert sensitive_feature_groups(load_adult(include_sensitive_features=True)) == ["sex"]
    with_race = load_adult(sensitive="race_binary", include_sensitive_features=True)
    assert sensitive_feature_groups(with_race) == ["race"]
    assert sensitive_feature_groups(load_adult()) == []


def test_column_mask_expands_groups() -> None:
    toy = load_toy()
    names = list(toy.feature_groups)
    mask = np.asarray([n == "region" for n in names])
    cols = column_mask(toy, mask)
    assert [c for c, m in zip(toy.feature_names, cols, strict=True) if m] == list(
        toy.feature_groups["region"]
    )
    with pytest.raises(InvalidParameterError, match="one boolean per feature group"):
        column_mask(toy, [True])


def test_learner_scorer(adult_split) -> None:
    scorer = LearnerScorer(adult_split.train, adult_split.validation, random_state=0)
    n = len(adult_split.train.feature_groups)
    assert scorer(np.zeros(n, dtype=bool)) == (0.5, 0.0)
    auc, disp = scorer(np.ones(n, dtype=bool))
    assert 0.85 < auc < 0.95
    assert 0.05 < disp < 0.4
    again = LearnerScorer(adult_split.train, adult_split.validation, random_state=0)
    assert again(np.ones(n, dtype=bool)) == (auc, disp)
    with pytest.raises(InvalidDataError, match="other feature columns"):
        LearnerScorer(adult_split.train, load_toy())


def test_greedy_selection_extremes_and_path(adult_split) -> None:
    scorer = LearnerScorer(adult_split.train, adult_split.validation, random_state=0)
    names = list(adult_split.train.feature_groups)
    greedy = greedy_fair_selection(scorer, names, lam=0.0)
    assert greedy.groups
    assert len(greedy.groups) == int(greedy.mask.sum())
    objectives = [a - 0.0 * d for _, a, d in greedy.path]
    assert objectives == sorted(objectives)  # every step raised the objective
    # a single group never beats the greedy subset at lam = 0
    for j in range(len(names)):
        one = np.zeros(len(names), dtype=bool)
        one[j] = True
        assert scorer(one)[0] <= greedy.auc + 1e-12
    # the empty subset has disparity 0, so a huge lam only accepts disparity-free subsets
    strict = greedy_fair_selection(scorer, names, lam=1e6)
    assert strict.disparity < 1e-6
    assert strict.auc >= 0.5
    with pytest.raises(InvalidParameterError, match="lam"):
        greedy_fair_selection(scorer, names, lam=-1.0)


def test_static_front_trades_auc_for_disparity(adult_split) -> None:
    select = LearnerScorer(adult_split.train, adult_split.validation, random_state=0)
    report = LearnerScorer(adult_split.train, adult_split.test, random_state=0)
    names = list(adult_split.train.feature_groups)
    front = static_selection_front(select, names, [0.0, 1.0, 4.0, 100.0], report=report)
    assert list(front["lam"]) == [0.0, 1.0, 4.0, 100.0]
    # more weight on disparity never raises the chosen subset's (selection) disparity
    assert np.all(np.diff(front["select_disparity"]) <= 1e-12)
    assert front["select_disparity"].iloc[0] > front["select_disparity"].iloc[-1]
    on = front.index[front["on_front"]].to_numpy()
    assert set(on) == set(pareto_front(front["auc"], front["disparity"]).tolist())


def test_fixed_subsets(adult_split) -> None:
    scorer = LearnerScorer(adult_split.train, adult_split.test, random_state=0)
    table = fixed_subset_baselines(scorer, adult_split.train)
    assert list(table["method"]) == ["full", "no-sensitive"]
    assert table["groups_dropped"].iloc[1] == "sex"
    assert table["auc"].iloc[0] != table["auc"].iloc[1]
    with pytest.raises(InvalidParameterError, match="not a feature group"):
        fixed_subset_baselines(scorer, adult_split.train, sensitive=["gender"])


class _MeanOfRevealed:
    """A stand-in agent: P(y=1) is the sigmoid of the mean revealed value."""

    def __init__(self) -> None:
        self.masks: list[np.ndarray] = []

    def predict_proba(self, X: pd.DataFrame, *, mask: np.ndarray | None = None) -> np.ndarray:
        assert mask is not None
        assert mask.shape == X.shape
        self.masks.append(mask)
        vals = np.where(mask, X.to_numpy(), 0.0).sum(axis=1) / np.maximum(mask.sum(axis=1), 1)
        return 1.0 / (1.0 + np.exp(-vals))


def test_agent_scorer_reveals_the_subset_for_every_row() -> None:
    toy = load_toy()
    agent = _MeanOfRevealed()
    scorer = AgentScorer(agent, toy)
    group_mask = np.asarray([n in ("x1", "region") for n in toy.feature_groups])
    auc, disp = scorer(group_mask)
    expected = column_mask(toy, group_mask)
    # the agent's probabilities for that subset, scored here with scikit-learn and numpy
    vals = toy.X.to_numpy()[:, expected].mean(axis=1)
    proba = 1.0 / (1.0 + np.exp(-vals))
    assert auc == pytest.approx(roc_auc_score(toy.y, proba))
    pred, s = proba >= 0.5, np.asarray(toy.s)
    assert disp == pytest.approx(abs(pred[s == 0].mean() - pred[s == 1].mean()))
    assert np.array_equal(agent.masks[0], np.tile(expected, (len(toy), 1)))
    scorer(group_mask)  # cached: the agent is not asked again
    assert len(agent.masks) == 1
