"""Relational data sets: RelationalData, paper review, COMPAS and MovieLens as predicates."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest

from fairacq.data.loaders import DatasetNotFoundError
from fairacq.data.relational import paper_review_table
from fairacq.data.relational._movielens import _fold_positions
from fairacq.data.relational._paper_review import _derive_affiliate2high_rank, _read_predicate
from fairacq.data.synthetic import make_paper_review
from fairacq.exceptions import InvalidDataError, InvalidParameterError, UnknownNameError
from fairacq.relational import (
    COMPAS_PREDICATES,
    Database,
    GroundModel,
    HingePotentials,
    LinearConstraints,
    RelationalData,
    fit_biased_mf,
    load_compas_relational,
    load_movielens_relational,
    load_paper_review,
    paper_review_data,
    pearson_top_k,
)

needs_paper_review = pytest.mark.needs_data("fair-a3sl/biasedPaperReview")
needs_compas_folds = pytest.mark.needs_data("fair-a3sl/compas_5cv.tar.gz")
needs_movielens = pytest.mark.needs_data("movielens-100k/u.user")


def _frame(**cols):
    return pd.DataFrame(cols)


def _tiny(**overrides):
    kwargs = {
        "observations": {"student": _frame(author=["a0"], value=[1.0])},
        "targets": {"positiveSummary": _frame(paper=["p0", "p1", "p2"])},
        "truth": {"positiveSummary": _frame(paper=["p0", "p1", "p2"], value=[0.0, 1.0, 1.0])},
        "protected": _frame(paper=["p0"]),
        "unprotected": _frame(paper=["p1", "p2"]),
        "metadata": {"fairness_predicate": "positiveSummary", "favourable": 1},
    }
    kwargs.update(overrides)
    return RelationalData(**kwargs)


# ---------------------------------------------------------------- RelationalData


def test_relational_data_validates_its_tables():
    data = _tiny()
    assert data.fairness_predicate == "positiveSummary"
    assert data.n_atoms("positiveSummary") == 3
    with pytest.raises(UnknownNameError, match="not a target"):
        data.n_atoms("student")
    with pytest.raises(InvalidDataError, match=r"outside \[0, 1\]"):
        _tiny(observations={"student": _frame(author=["a0"], value=[1.5])})
    with pytest.raises(InvalidDataError, match="no 'value' column"):
        _tiny(observations={"student": _frame(author=["a0"])})
    with pytest.raises(InvalidDataError, match="both groups"):
        _tiny(unprotected=_frame(paper=["p0", "p1"]))
    with pytest.raises(InvalidDataError, match="not a target"):
        _tiny(truth={"student": _frame(author=["a0"], value=[1.0])})
    with pytest.raises(InvalidDataError, match="fairness predicate"):
        _tiny(metadata={"fairness_predicate": "student"})
    summary = data.summary().set_index("predicate")
    assert summary.loc["positiveSummary", "role"] == "target"
    assert summary.loc["student", "observed"] == 1


def test_group_variables_maps_atoms_to_model_columns():
    data = _tiny()
    variables = pd.DataFrame(
        {
            "predicate": [
                "positiveReviews",
                "positiveSummary",
                "positiveSummary",
                "positiveSummary",
            ],
            "args": [("r0", "p0"), ("p2",), ("p0",), ("p1",)],
        }
    )
    model = GroundModel(variables, HingePotentials.empty(4), LinearConstraints.empty(4))
    prot, unprot = data.group_variables(model)
    assert prot.tolist() == [2]
    assert unprot.tolist() == [1, 3]
    small = GroundModel(variables.iloc[:2], HingePotentials.empty(2), LinearConstraints.empty(2))
    with pytest.raises(InvalidDataError, match="not a variable"):
        data.group_variables(small)


def test_database_from_data():
    db = Database.from_data(_tiny())
    assert type(db).__name__ == "Database"


# ---------------------------------------------------------------- paper review


@pytest.mark.parametrize("protected", ["student_low_rank", "student"])
def test_paper_review_groups_partition_the_summaries(protected):
    sample = make_paper_review(random_state=3)
    data = paper_review_data(sample, protected=protected)
    table = paper_review_table(sample).set_index("paper")
    expected = table["protected"] if protected == "student_low_rank" else table["student"] == 1
    got = set(data.protected["paper"])
    assert got == set(expected.index[expected.to_numpy(dtype=bool)])
    assert got | set(data.unprotected["paper"]) == set(data.targets["positiveSummary"]["paper"])
    assert data.metadata["favourable"] == 1
    assert data.metadata["task"] == "classification"
    assert sorted(data.targets) == ["positiveReviews", "positiveSummary"]
    assert "positiveReviews" not in data.observations
    truth = data.truth["positiveReviews"]
    assert list(truth.columns) == ["reviewer", "paper", "value"]
    assert set(truth["value"]) <= {0.0, 1.0}


def test_paper_review_targets_option():
    data = paper_review_data(
        make_paper_review(random_state=0), targets=["positiveSummary", "acceptable"]
    )
    assert sorted(data.targets) == ["acceptable", "positiveSummary"]
    assert "positiveReviews" in data.observations
    assert "acceptable" not in data.observations
    with pytest.raises(InvalidParameterError, match="targets"):
        paper_review_data(make_paper_review(random_state=0), targets=["highQuality"])
    with pytest.raises(InvalidParameterError, match="must include 'positiveSummary'"):
        paper_review_data(make_paper_review(random_state=0), targets=["positiveReviews"])
    with pytest.raises(InvalidParameterError, match="protected"):
        paper_review_data(make_paper_review(random_state=0), protected="female")


@needs_paper_review
def test_authors_paper_review_samples_load(shared_data):
    sizes = []
    for k in range(1, 11):
        data = load_paper_review(k, data_dir=shared_data)
        n = data.n_atoms("positiveSummary")
        sizes.append(n)
        assert data.n_atoms("positiveReviews") == 2 * n
        assert len(data.protected) + len(data.unprotected) == n
        assert set(data.observations) >= {"affiliate2HighRank", "student", "highRank"}
    assert min(sizes) == 90
    assert max(sizes) == 104


@needs_paper_review
def test_derived_affiliate2high_rank_equals_the_authors_file(shared_data):
    folder = shared_data / "fair-a3sl" / "biasedPaperReview" / "bias1"
    tables = {
        name: _read_predicate(folder / f"{name}.txt", name)
        for name in ("affiliation", "highRank", "affiliate2HighRank")
    }
    derived = _derive_affiliate2high_rank(tables).sort_values("author").reset_index(drop=True)
    given = tables["affiliate2HighRank"].sort_values("author").reset_index(drop=True)
    pd.testing.assert_frame_equal(derived, given)
    assert "derived" in load_paper_review(2, data_dir=shared_data).metadata


def test_load_paper_review_errors(tmp_path):
    with pytest.raises(InvalidParameterError, match="sample"):
        load_paper_review(11, data_dir=tmp_path)
    with pytest.raises(DatasetNotFoundError, match="biasedPaperReview"):
        load_paper_review(1, data_dir=tmp_path)


# ---------------------------------------------------------------- COMPAS


def test_compas_bundled_folds_partition_the_defendants():
    tests = [
        set(load_compas_relational(k, random_state=1).targets["recidivist"]["user"])
        for k in range(5)
    ]
    assert sorted(len(t) for t in tests) == [1442, 1443, 1443, 1443, 1443]
    assert len(set().union(*tests)) == 7214
    train = load_compas_relational(2, split="train", random_state=1)
    users = set(train.targets["recidivist"]["user"])
    assert users.isdisjoint(tests[2])
    assert len(users) == 7214 - len(tests[2])
    assert set(train.observations["priors"]["user"]) <= users
    again = load_compas_relational(2, random_state=1)
    assert set(again.targets["recidivist"]["user"]) == tests[2]


def test_compas_bundled_predicates():
    data = load_compas_relational(None)
    obs = data.observations
    assert set(obs["oldAge"]["value"]) == {0.0, 0.5, 1.0}
    assert set(obs["longJailDay"]["value"]) == {0.5, 1.0}
    assert set(obs["felony"]["value"]) == {0.5, 1.0}
    assert "compas_score" not in obs
    assert "recidivist" not in obs
    assert len(obs["priors"]) == 25_050
    assert set(data.protected["user"]) == set(obs["african_race"]["user"])
    assert len(data.protected) == 3696
    assert len(data.unprotected) == 3518
    assert data.metadata["favourable"] == 0
    assert set(obs) | {"recidivist", "compas_score"} | {
        "priorChargeFelony",
        "priorChargeMisd",
        "priorChargeOther",
    } == set(COMPAS_PREDICATES)
    with_score = load_compas_relational(0, include_compas_score=True)
    assert "compas_score" in with_score.observations
    with pytest.raises(InvalidParameterError, match="fold"):
        load_compas_relational(5)
    with pytest.raises(InvalidParameterError, match="split"):
        load_compas_relational(0, split="valid")


@needs_compas_folds
def test_compas_bundled_build_equals_the_authors_predicates(shared_data):
    bundled = load_compas_relational(None, include_compas_score=True)
    authors = load_compas_relational(
        None, source="authors", data_dir=shared_data, include_compas_score=True
    )

    def canon(frame):
        return frame.sort_values(list(frame.columns)).reset_index(drop=True)

    for name, frame in bundled.observations.items():
        pd.testing.assert_frame_equal(canon(frame), canon(authors.observations[name]))
    pd.testing.assert_frame_equal(
        canon(bundled.truth["recidivist"]), canon(authors.truth["recidivist"])
    )
    only = set(authors.observations) - set(bundled.observations)
    assert only == {"priorChargeFelony", "priorChargeMisd", "priorChargeOther"}


@needs_compas_folds
def test_compas_authors_folds(shared_data):
    sizes = []
    for k in range(5):
        test = load_compas_relational(k, source="authors", data_dir=shared_data)
        train = load_compas_relational(k, split="train", source="authors", data_dir=shared_data)
        t_users = set(test.targets["recidivist"]["user"])
        assert t_users.isdisjoint(train.targets["recidivist"]["user"])
        sizes.append(len(t_users))
    assert sorted(sizes) == [1442, 1443, 1443, 1443, 1443]


def test_compas_authors_missing_file(tmp_path):
    with pytest.raises(DatasetNotFoundError, match="compas_5cv"):
        load_compas_relational(0, source="authors", data_dir=tmp_path)


# ---------------------------------------------------------------- MovieLens


def test_fold_positions_keep_the_test_fold_hidden():
    seed = np.random.SeedSequence(0)
    obs_test, tgt_test = _fold_positions(103, 5, 2, "test", seed)
    obs_train, tgt_train = _fold_positions(103, 5, 2, "train", seed)
    assert len(obs_test) + len(tgt_test) == 103
    assert set(tgt_train).isdisjoint(tgt_test)
    assert set(obs_train).isdisjoint(tgt_test)
    assert set(obs_train) | set(tgt_train) == set(obs_test)


def test_fit_biased_mf_recovers_a_low_rank_matrix():
    rng = np.random.default_rng(0)
    n_u, n_i = 60, 40
    truth = 0.5 + 0.1 * rng.normal(size=(n_u, 2)) @ rng.normal(size=(2, n_i))
    u, i = np.nonzero(rng.random((n_u, n_i)) < 0.6)
    mf = fit_biased_mf(
        u, i, truth[u, i], n_users=n_u, n_items=n_i, rank=2, reg=1e-3, random_state=0
    )
    assert np.mean((mf.predict(u, i) - truth[u, i]) ** 2) < 1e-4
    again = fit_biased_mf(
        u, i, truth[u, i], n_users=n_u, n_items=n_i, rank=2, reg=1e-3, random_state=0
    )
    np.testing.assert_array_equal(mf.item_factors, again.item_factors)
    with pytest.raises(InvalidDataError, match="indices"):
        fit_biased_mf([0, 5], [0, 0], [1.0, 1.0], n_users=2, n_items=1)


def test_pearson_top_k_matches_a_direct_computation():
    rng = np.random.default_rng(1)
    n_rows, n_cols = 12, 30
    rated = rng.random((n_rows, n_cols)) < 0.6
    values = rng.integers(1, 6, size=(n_rows, n_cols)).astype(float)
    r, c = np.nonzero(rated)
    out = pearson_top_k(
        r, c, values[r, c], n_rows=n_rows, n_cols=n_cols, k=3, min_overlap=4, block=5
    )
    assert (out.groupby("row").size() <= 3).all()
    assert (out["row"] != out["neighbour"]).all()
    for row, nb, sim in out.itertuples(index=False):
        both = rated[row] & rated[nb]
        assert both.sum() >= 4
        expected = np.corrcoef(values[row, both], values[nb, both])[0, 1]
        assert sim == pytest.approx(expected, abs=1e-9)
    # every kept similarity is at least as large as any dropped positive one of that row
    for row, group in out.groupby("row"):
        others = [
            np.corrcoef(values[row, rated[row] & rated[j]], values[j, rated[row] & rated[j]])[0, 1]
            for j in range(n_rows)
            if j != row and j not in set(group["neighbour"]) and (rated[row] & rated[j]).sum() >= 4
        ]
        finite = [x for x in others if np.isfinite(x)]
        if finite:
            assert group["similarity"].min() >= max(finite) - 1e-12


@functools.cache
def _movielens(root: str):
    return load_movielens_relational(0, n_neighbours=10, mf_iter=8, data_dir=root)


@pytest.fixture
def movielens(shared_data):
    """MovieLens fold 0, built once per process (tests needing it are marked needs_movielens)."""
    return _movielens(str(shared_data))


@needs_movielens
def test_movielens_relational_predicates(movielens):
    data = movielens
    obs = data.observations
    targets = data.targets["rating"]
    assert len(targets) == 20_000
    assert len(obs["rating"]) == 80_000
    observed = set(obs["rating"][["user", "item"]].itertuples(index=False, name=None))
    target_keys = set(targets.itertuples(index=False, name=None))
    assert observed.isdisjoint(target_keys)
    assert set(np.round(data.truth["rating"]["value"] * 5, 9)) == {1.0, 2.0, 3.0, 4.0, 5.0}
    assert len(obs["reviews"]) == len(obs["ratingMF"]) == 100_000
    assert obs["ratingMF"]["value"].between(0, 1).all()
    for name, col in (("userPearsonSim", "user"), ("itemPearsonSim", "item")):
        sims = obs[name]
        assert sims["value"].between(0, 1, inclusive="right").all()
        assert sims.groupby(col).size().max() <= 10
        assert (sims[col] != sims[f"{col}2"]).all()
    female = set(obs["female"].loc[obs["female"]["value"] == 1, "user"])
    assert set(data.protected["user"]) <= female
    assert female.isdisjoint(data.unprotected["user"])
    assert len(data.protected) + len(data.unprotected) == 20_000
    # the factorisation beats the per-user average on the held-out fold
    avg = data.truth["rating"].merge(obs["avgUserRating"], on="user", suffixes=("", "_avg"))
    baseline = float(np.mean((avg["value"] - avg["value_avg"]) ** 2))
    assert data.metadata["mf_test_mse"] < baseline
    assert data.metadata["task"] == "rating"


def test_movielens_errors(tmp_path):
    with pytest.raises(InvalidParameterError, match="fold"):
        load_movielens_relational(5, data_dir=tmp_path)
    with pytest.raises(DatasetNotFoundError):
        load_movielens_relational(0, data_dir=tmp_path)
