from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.linear_model import LogisticRegression

from fairacq.data import FairDataset
from fairacq.data._toy import load_toy
from fairacq.data.relational import RelationalData, paper_review_table, write_paper_review
from fairacq.data.synthetic import (
    SyntheticModel1,
    SyntheticModel2,
    make_paper_review,
    make_scaled_adult,
    make_synthetic_model1,
    make_synthetic_model2,
)
from fairacq.exceptions import InvalidDataError, InvalidParameterError, UnknownNameError

# --------------------------------------------------------------------------------------------
# Synthetic Model 1
# --------------------------------------------------------------------------------------------


def test_model1_parameters_are_exposed():
    m = SyntheticModel1("I")
    np.testing.assert_array_equal(m.mu0u, [-2, -2])
    np.testing.assert_array_equal(m.mu1u, [2, 2])
    np.testing.assert_array_equal(m.mu0v, [-1, 1])
    np.testing.assert_array_equal(m.mu1v, [1, -1])
    assert m.p_positive == 0.5
    assert m.paper_minimax_pi_u == 0.23
    m2 = SyntheticModel1("II")
    np.testing.assert_array_equal(m2.mu1u, [1.5, 1.5])
    np.testing.assert_array_equal(m2.mu1v, [2, -2])
    # group v is the better separated one in instance II, u in instance I
    dist = {k: np.linalg.norm(getattr(m2, f"mu1{k}") - getattr(m2, f"mu0{k}")) for k in "uv"}
    assert dist["v"] > dist["u"]
    assert repr(m2) == "SyntheticModel1(instance='II')"


def test_model1_rejects_unknown_instance():
    with pytest.raises(InvalidParameterError, match="instance"):
        SyntheticModel1("III")  # type: ignore[arg-type]


def test_model1_sample_matches_definition():
    m = SyntheticModel1("I")
    X, y = m.sample("v", 40_000, random_state=3)
    assert X.shape == (40_000, 2)
    assert y.dtype == np.int64
    assert y.mean() == pytest.approx(0.5, abs=0.01)
    np.testing.assert_allclose(X[y == 0].mean(axis=0), m.mu0v, atol=0.03)
    np.testing.assert_allclose(X[y == 1].mean(axis=0), m.mu1v, atol=0.03)
    np.testing.assert_allclose(np.cov(X[y == 1].T), np.eye(2), atol=0.04)


def test_sample_determinism_and_generator_stream():
    m = SyntheticModel1("II")
    a = m.sample("u", 50, random_state=7)
    b = m.sample(0, 50, random_state=7)  # code 0 is "u"
    c = m.sample("u", 50, random_state=8)
    np.testing.assert_array_equal(a[0], b[0])
    assert not np.array_equal(a[0], c[0])
    rng = np.random.default_rng(0)
    first, second = m.sample("u", 5, rng), m.sample("u", 5, rng)
    assert not np.array_equal(first[0], second[0])


@pytest.mark.parametrize("group", ["w", 2, -1, True])
def test_unknown_group_raises(group):
    with pytest.raises(UnknownNameError, match="unknown group"):
        SyntheticModel1().sample(group, 3)


def test_sample_mixture_counts():
    m = SyntheticModel1()
    X, y, z = m.sample_mixture(0.3, 1000, random_state=0, exact_counts=True)
    assert X.shape == (1000, 2)
    assert y.shape == z.shape == (1000,)
    assert int((z == 0).sum()) == 300
    _, _, z2 = m.sample_mixture((0.3, 0.7), 20_000, random_state=1)
    assert (z2 == 0).mean() == pytest.approx(0.3, abs=0.015)
    _, _, z3 = m.sample_mixture(1.0, 10, random_state=1)
    assert set(z3.tolist()) == {0}


@pytest.mark.parametrize(
    "pi", [-0.1, 1.5, (0.5, 0.6), (1.0,), "half", (-0.5, 1.5), ["a", "b"], (np.nan, 1.0)]
)
def test_sample_mixture_rejects_bad_pi(pi):
    with pytest.raises(InvalidParameterError, match="pi"):
        SyntheticModel1().sample_mixture(pi, 10)


def test_negative_count_raises():
    with pytest.raises(InvalidParameterError, match="'n'"):
        SyntheticModel1().sample("u", -1)


@pytest.mark.parametrize("model", [SyntheticModel1("I"), SyntheticModel1("II"), SyntheticModel2()])
@pytest.mark.parametrize(("coef", "b"), [((1.0, 1.0), 0.0), ((2.0, -0.5), 0.7), ((0.0, 1.0), -1)])
def test_linear_accuracy_matches_monte_carlo(model, coef, b):
    for group in ("u", "v"):
        X, y = model.sample(group, 200_000, random_state=11)
        empirical = ((X @ np.asarray(coef) + b > 0).astype(int) == y).mean()
        assert model.linear_accuracy(coef, b, group) == pytest.approx(empirical, abs=0.004)


def test_linear_accuracy_validates_and_handles_constant_classifier():
    m = SyntheticModel1()
    with pytest.raises(InvalidParameterError, match="coef"):
        m.linear_accuracy([1.0, 2.0, 3.0], 0.0, "u")
    with pytest.raises(InvalidParameterError, match="finite"):
        m.linear_accuracy([np.nan, 1.0], 0.0, "u")
    assert m.linear_accuracy([0.0, 0.0], 1.0, "u") == pytest.approx(0.5)


@given(
    angle=st.floats(0, 2 * np.pi, allow_nan=False),
    b=st.floats(-5, 5, allow_nan=False),
)
def test_accuracies_stay_in_range_and_model2_u_is_capped(angle, b):
    coef = (np.cos(angle), np.sin(angle))
    for model in (SyntheticModel1("I"), SyntheticModel2()):
        for g in ("u", "v"):
            assert 0.0 <= model.linear_accuracy(coef, b, g) <= 1.0
    # the hard group of Model 2 never exceeds its Bayes accuracy Phi(0.4 * sqrt(2))
    assert SyntheticModel2().linear_accuracy(coef, b, "u") <= 0.7143


def _crossing(model: SyntheticModel1, grid: np.ndarray, n: int) -> float:
    diffs = []
    for k, pi in enumerate(grid):
        X, y, _ = model.sample_mixture(pi, n, random_state=k, exact_counts=True)
        clf = LogisticRegression(C=1e4).fit(X, y)
        w, b = clf.coef_[0], clf.intercept_[0]
        diffs.append(model.linear_accuracy(w, b, "u") - model.linear_accuracy(w, b, "v"))
    d = np.asarray(diffs)
    j = int(np.flatnonzero(np.diff(np.sign(d)) != 0)[0])
    return float(grid[j] - d[j] * (grid[j + 1] - grid[j]) / (d[j + 1] - d[j]))


def test_model1_group_accuracies_cross_near_documented_minimax_mixture():
    grid = np.round(np.arange(0.05, 0.96, 0.05), 2)
    m1 = SyntheticModel1("I")
    x1 = _crossing(m1, grid, 20_000)
    assert x1 == pytest.approx(m1.minimax_pi_u, abs=0.04)
    assert x1 == pytest.approx(0.23, abs=0.06)  # the paper's Fig. 1 value
    m2 = SyntheticModel1("II")
    x2 = _crossing(m2, grid, 20_000)
    assert x2 == pytest.approx(m2.minimax_pi_u, abs=0.04)
    assert x2 > 0.5  # the opposite trend of instance II


def test_model1_tradeoff_exists():
    # each group's accuracy falls when the mixture leaves it out: a real trade-off
    m = SyntheticModel1("I")
    accs = {}
    for pi in (0.05, 0.95):
        X, y, _ = m.sample_mixture(pi, 10_000, random_state=0, exact_counts=True)
        clf = LogisticRegression().fit(X, y)
        accs[pi] = [m.linear_accuracy(clf.coef_[0], clf.intercept_[0], g) for g in "uv"]
    assert accs[0.05][0] < accs[0.95][0] - 0.15
    assert accs[0.95][1] < accs[0.05][1] - 0.1


# --------------------------------------------------------------------------------------------
# Synthetic Model 2
# --------------------------------------------------------------------------------------------


def test_model2_geometry():
    m = SyntheticModel2()
    assert m.linear_accuracy([2.0, 1.0], 0.0, "v") == pytest.approx(0.9, abs=0.002)
    assert m.linear_accuracy([1.0, 2.0], 0.0, "v") > 0.99
    assert m.linear_accuracy([1.0, 1.0], 0.0, "u") == pytest.approx(0.714, abs=0.001)
    assert m.linear_accuracy([1.0, 2.0], 0.0, "u") > 0.70
    weights = [c.weight for c in m.components["v"]]
    assert sum(weights) == pytest.approx(1.0)
    assert sum(c.weight for c in m.components["v"] if c.std == m.v_sparse_std) >= 0.1
    _X, y = m.sample("v", 20_000, random_state=0)
    assert y.mean() == pytest.approx(0.5, abs=0.015)


def _fit_accuracies(m, n_u, n_v, seeds):
    out = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        Xu, yu = m.sample("u", n_u, rng)
        Xv, yv = m.sample("v", n_v, rng)
        clf = LogisticRegression().fit(np.vstack([Xu, Xv]), np.concatenate([yu, yv]))
        w, b = clf.coef_[0], clf.intercept_[0]
        out.append([m.linear_accuracy(w, b, g) for g in "uv"])
    return np.mean(out, axis=0)


def test_model2_sampling_the_worst_group_does_not_pay():
    m = SyntheticModel2()
    u_heavy = _fit_accuracies(m, 1900, 100, range(5))
    v_heavy = _fit_accuracies(m, 100, 1900, range(5))
    # u is the worst group either way and gains at most ~1 point from many more samples
    assert u_heavy[0] < u_heavy[1]
    assert v_heavy[0] < v_heavy[1]
    assert abs(u_heavy[0] - v_heavy[0]) < 0.015
    # v keeps improving with more samples of its sparse regions
    assert v_heavy[1] - u_heavy[1] > 0.02
    few_v = _fit_accuracies(m, 0, 20, range(5))[1]
    assert few_v > 0.9


def test_make_synthetic_datasets():
    ds = make_synthetic_model1(200, 0.25, "II", random_state=0)
    assert isinstance(ds, FairDataset)
    assert ds.name == "synthetic-model-1-II"
    assert ds.feature_names == ["x1", "x2"]
    assert ds.group_sizes().tolist() == [50, 150]
    assert "Shekhar et al. 2021" in ds.metadata["paper"]
    again = make_synthetic_model1(200, 0.25, "II", random_state=0)
    assert ds.X.equals(again.X)
    other = make_synthetic_model1(200, 0.25, "II", random_state=1)
    assert not ds.X.equals(other.X)
    ds2 = make_synthetic_model2(30, pi_u=0.5, random_state=0)
    assert ds2.group_sizes().tolist() == [15, 15]
    assert ds2.name == "synthetic-model-2"


@pytest.mark.parametrize("pi_u", [0.0, 1.0, 0.001])
def test_make_synthetic_model1_needs_both_groups(pi_u):
    with pytest.raises(InvalidParameterError, match="no rows"):
        make_synthetic_model1(100, pi_u)


def test_make_synthetic_bad_arguments_name_the_parameter():
    with pytest.raises(InvalidParameterError, match=r"'pi_u'.*make_synthetic_model2"):
        make_synthetic_model2(100, 1.5)
    with pytest.raises(InvalidParameterError, match="instance"):
        make_synthetic_model1(100, 0.5, "3")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="'n'"):
        make_synthetic_model1(-5)


# --------------------------------------------------------------------------------------------
# scaled Adult
# --------------------------------------------------------------------------------------------


def _mixed_dataset() -> FairDataset:
    rng = np.random.default_rng(0)
    n = 300
    X = pd.DataFrame(
        {
            "age": rng.integers(17, 91, n).astype(float),
            "score": rng.normal(0, 1, n),
            "flag": rng.integers(0, 2, n).astype(float),
            "color=red": 0.0,
            "color=blue": 0.0,
        }
    )
    pick = rng.integers(0, 2, n)
    X.loc[pick == 0, "color=red"] = 1.0
    X.loc[pick == 1, "color=blue"] = 1.0
    sens = pd.DataFrame({"sex": rng.choice(["F", "M"], n), "race": rng.choice(["a", "b"], n)})
    groups = {
        "age": ["age"],
        "score": ["score"],
        "flag": ["flag"],
        "color": ["color=red", "color=blue"],
    }
    return FairDataset(
        X, rng.integers(0, 2, n), sens, feature_groups=groups, privileged="M", name="mixed"
    )


def test_scaled_keeps_originals_and_structure():
    base = _mixed_dataset()
    big = make_scaled_adult(base, 3000, random_state=0)
    assert len(big) == 3000
    assert big.name == "mixed-scaled"
    assert big.feature_names == base.feature_names
    assert big.group_names == base.group_names
    assert big.privileged == "M"
    assert big.sensitive_attrs == base.sensitive_attrs
    assert list(big.sensitive.columns) == ["sex", "race"]
    assert big.feature_groups == base.feature_groups
    assert big.metadata["n_original"] == 300
    assert big.X.iloc[:300].equals(base.X)
    np.testing.assert_array_equal(big.y[:300], base.y)
    new = big.X.iloc[300:]
    # integer columns stay integers inside the observed range; binary and one-hot copied
    assert np.array_equal(new["age"], np.round(new["age"]))
    assert new["age"].between(base.X["age"].min(), base.X["age"].max()).all()
    assert set(np.unique(new["flag"])) <= {0.0, 1.0}
    np.testing.assert_array_equal(new[["color=red", "color=blue"]].sum(axis=1), 1.0)
    # noise is small and present on the continuous column
    assert not np.isin(new["score"].to_numpy(), base.X["score"].to_numpy()).all()
    np.testing.assert_allclose(big.base_rates(), base.base_rates(), atol=0.05)
    np.testing.assert_allclose(
        big.group_sizes() / len(big), base.group_sizes() / len(base), atol=0.05
    )


def test_scaled_without_noise_copies_whole_rows():
    toy = load_toy(100)
    big = make_scaled_adult(toy, 500, noise=0.0, random_state=1)
    frame = toy.to_frame()
    new = big.to_frame().iloc[100:]
    merged = new.merge(frame, how="left", on=[*toy.feature_names], suffixes=("", "_src"))
    assert len(merged) == 400
    assert (merged["label"] == merged["label_src"]).all()
    assert (merged["group"] == merged["group_src"]).all()


def test_scaled_is_deterministic_per_seed():
    toy = load_toy(100)
    a = make_scaled_adult(toy, 400, random_state=3)
    b = make_scaled_adult(toy, 400, random_state=3)
    c = make_scaled_adult(toy, 400, random_state=4)
    assert a.X.equals(b.X)
    assert not a.X.equals(c.X)
    assert make_scaled_adult(toy, 100, random_state=0).X.equals(toy.X)


def test_scaled_errors():
    toy = load_toy(100)
    with pytest.raises(InvalidParameterError, match="n_rows"):
        make_scaled_adult(toy, 50)
    with pytest.raises(InvalidParameterError, match="noise"):
        make_scaled_adult(toy, 200, noise=-1.0)
    with pytest.raises(InvalidDataError, match="FairDataset"):
        make_scaled_adult(toy.X, 200)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# paper-review Bayesian network
# --------------------------------------------------------------------------------------------

# arities of the authors' files (fair-a3sl/biasedPaperReview): arguments only
AUTHORS_ARGS = {
    "acceptable": 1,
    "affiliate2HighRank": 1,
    "affiliation": 2,
    "author": 1,
    "highRank": 1,
    "institute": 1,
    "paper": 1,
    "positiveReviews": 2,
    "positiveSummary": 1,
    "reviewer": 1,
    "reviews": 2,
    "student": 1,
    "submits": 2,
}


def _tables(data: RelationalData) -> dict[str, pd.DataFrame]:
    """Every predicate's table with its values: the observations and the targets' truth."""
    return {**data.observations, **data.truth}


def test_paper_review_sizes_and_values():
    s = make_paper_review(random_state=0)
    assert isinstance(s, RelationalData)
    t = _tables(s)
    assert len(t["paper"]) == 100
    assert len(t["author"]) == 100
    assert len(t["reviewer"]) == 30
    assert len(t["institute"]) == 20
    assert len(t["reviews"]) == len(t["positiveReviews"]) == 200
    assert set(t) == set(AUTHORS_ARGS)
    for name, frame in t.items():
        assert frame.shape[1] - 1 == AUTHORS_ARGS[name]
        assert list(frame.columns)[-1] == "value"
        assert frame["value"].between(0.0, 1.0).all()
        assert set(np.unique(frame["value"])) <= {0.0, 1.0}
    assert tuple(s.targets) == ("positiveReviews", "positiveSummary")
    assert not set(s.targets) & set(s.observations)
    assert set(s.targets) | set(s.observations) == set(t)
    per_paper = t["reviews"].groupby("paper")["reviewer"].nunique()
    assert (per_paper == 2).all()
    assert len(per_paper) == 100
    pairs = t["reviews"][["reviewer", "paper"]]
    assert pairs.equals(t["positiveReviews"][["reviewer", "paper"]])
    assert s.metadata["theta1"] == 0.5
    assert s.metadata["theta2"] == 0.9
    table = paper_review_table(s)
    assert set(s.protected["paper"]) == set(table.loc[table["protected"], "paper"])


def test_paper_review_follows_table2():
    s = make_paper_review(n_papers=40_000, random_state=1)
    table = paper_review_table(s)
    reviews = s.truth["positiveReviews"].merge(table, on="paper")
    cpt = reviews.groupby(["acceptable", "high_rank", "student"])["value"].mean()
    expected = {
        (0, 0, 0): 0.15, (0, 0, 1): 0.05, (0, 1, 0): 0.20, (0, 1, 1): 0.15,
        (1, 0, 0): 0.85, (1, 0, 1): 0.50, (1, 1, 0): 0.85, (1, 1, 1): 0.90,
    }  # fmt: skip
    for key, p in expected.items():
        assert cpt[key] == pytest.approx(p, abs=0.03), key
    summary = table.groupby("n_positive_reviews")["positive_summary"].mean()
    np.testing.assert_allclose(summary.to_numpy(), [0.0, 0.2, 0.9], atol=0.02)
    quality = table.groupby("student")["acceptable"].mean()
    np.testing.assert_allclose(quality.to_numpy(), [0.4, 0.2], atol=0.02)
    assert table["student"].mean() == pytest.approx(0.7, abs=0.01)
    assert table["protected"].mean() == pytest.approx(0.35, abs=0.1)


def test_paper_review_authors_preset():
    s = make_paper_review(preset="authors", random_state=2)
    assert s.metadata["theta1"] == 0.6
    assert 60 <= len(s.observations["paper"]) <= 140
    assert len(s.observations["reviews"]) == 2 * len(s.observations["paper"])
    explicit = make_paper_review(preset="authors", theta1=0.3, random_state=2)
    assert explicit.metadata["theta1"] == 0.3


def test_paper_review_determinism():
    a = make_paper_review(random_state=5)
    b = make_paper_review(random_state=5)
    c = make_paper_review(random_state=6)
    ta, tb, tc = _tables(a), _tables(b), _tables(c)
    for name in ta:
        assert ta[name].equals(tb[name])
    assert not all(ta[name].equals(tc[name]) for name in ta)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"reviewers_per_paper": 40}, "distinct reviewers"),
        ({"p_summary": (0.1, 0.5)}, "p_summary"),
        ({"theta1": 1.5}, "theta1"),
        ({"p_high_quality": (0.2,)}, "p_high_quality"),
        ({"preset": "farnadi"}, "preset"),
        ({"n_papers": 0}, "n_papers"),
    ],
)
def test_paper_review_bad_arguments(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        make_paper_review(**kwargs)


def test_unknown_predicate_raises():
    with pytest.raises(UnknownNameError, match="highQuality"):
        make_paper_review(random_state=0).n_atoms("highQuality")


def test_to_files_matches_authors_layout(tmp_path):
    s = make_paper_review(random_state=0)
    written = write_paper_review(s, tmp_path / "bias")
    assert [p.name for p in written] == sorted(f"{k}.txt" for k in AUTHORS_ARGS)
    first = (tmp_path / "bias" / "positiveReviews.txt").read_text().splitlines()[0]
    reviewer, paper, value = first.split(",")
    assert reviewer.startswith("r")
    assert paper.startswith("p")
    assert value in {"0", "1"}


@pytest.mark.needs_data("fair-a3sl/biasedPaperReview/bias1")
def test_names_and_arities_match_the_authors_samples(shared_data: Path):
    folder = shared_data / "fair-a3sl" / "biasedPaperReview" / "bias1"
    ours = _tables(make_paper_review(random_state=0))
    for path in sorted(folder.glob("*.txt")):
        name = path.stem
        assert name in ours, name
        theirs = pd.read_csv(path, header=None)
        n_cols = theirs.shape[1]
        arity = ours[name].shape[1] - 1
        # the authors omit the value column of always-true predicates
        assert n_cols in (arity, arity + 1), name
        assert str(theirs.iloc[0, 0])[0] == str(ours[name].iloc[0, 0])[0], name
