from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairacq.data.synthetic import make_paper_review
from fairacq.exceptions import CorruptFileError, InvalidDataError, InvalidParameterError
from fairacq.relational import Database, paper_review_data
from fairacq.relational.hlmrf._database import _infer_arity

BIAS1 = "fair-a3sl/biasedPaperReview/bias1"


@pytest.fixture
def bias1(shared_data):
    """The authors' first paper-review sample (under FAIRACQ_DATA)."""
    return shared_data / BIAS1


def small():
    return Database.from_frames(
        observations={
            "good": pd.DataFrame({"p": ["a", "b", "c"], "value": [1.0, 0.2, 0.0]}),
            "link": pd.DataFrame({"p": [1, 2], "q": [2, 3]}),
            "score": pd.DataFrame({"p": ["c"], "value": [0.7]}),
        },
        targets={
            "score": pd.DataFrame({"p": ["a", "b"], "value": [0.5, 0.25]}),
            "accept": pd.DataFrame({"p": ["b", "a"]}),
        },
        truth={"accept": pd.DataFrame({"p": ["a", "zz"], "value": [1.0, 0.0]})},
    )


def test_from_frames_orders_variables_and_truth():
    db = small()
    assert db.target_predicates == ("score", "accept")
    assert db.n_targets == 4
    variables = db.variables()
    assert list(variables.columns) == ["predicate", "args"]
    assert variables["predicate"].tolist() == ["score", "score", "accept", "accept"]
    assert variables["args"].tolist() == [("a",), ("b",), ("b",), ("a",)]
    truth = db.truth_vector()
    assert np.isnan(truth[:3]).all()
    assert truth[3] == 1.0
    np.testing.assert_array_equal(db.initial_values()[:2], [0.5, 0.25])
    assert np.isnan(db.initial_values()[2:]).all()
    assert db.variable_offset("accept") == 2


def test_arguments_become_strings_and_missing_value_means_one():
    db = small()
    link = db.frame("link")
    assert link["p"].tolist() == ["1", "2"]
    assert link["value"].tolist() == [1.0, 1.0]
    assert db.arity("link") == 2
    assert db.argument_names("link") == ("p", "q")
    assert db.is_closed("good")
    assert not db.is_closed("score")


def test_to_frames_round_trip_and_with_observations():
    db = small()
    again = Database.from_frames(*db.to_frames())
    pd.testing.assert_frame_equal(again.variables(), db.variables())
    np.testing.assert_array_equal(again.truth_vector(), db.truth_vector())
    extra = db.with_observations({"group": pd.DataFrame({"p": ["a"], "value": [1.0]})})
    assert extra.predicates["group"] == 1
    assert extra.n_targets == db.n_targets


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        (
            {"observations": {"a": pd.DataFrame({"x": ["1"], "value": [1.5]})}},
            "outside \\[0, 1\\]",
        ),
        ({"observations": {"a": pd.DataFrame({"x": ["1"], "value": [np.nan]})}}, "outside"),
        ({"observations": {"a": pd.DataFrame({"x": [None], "value": [1.0]})}}, "missing argument"),
        (
            {"observations": {"a": pd.DataFrame({"x": ["1", "1"], "value": [1.0, 0.0]})}},
            "duplicated atoms",
        ),
        ({"observations": {"a b": pd.DataFrame({"x": ["1"]})}}, "not a PSL identifier"),
        ({"observations": {"a": pd.DataFrame({"value": [1.0]})}}, "no argument columns"),
        ({"observations": {"a": pd.DataFrame({"x": ["1"], "value": ["high"]})}}, "not numeric"),
        (
            {"observations": {"y": pd.DataFrame({"x": ["1"], "value": [1.0]})}},
            "both observed and a target",
        ),
        (
            {"observations": {"y": pd.DataFrame({"x": ["1"], "z": ["2"]})}},
            "2 arguments in one frame and 1 in its targets",
        ),
        ({"truth": {"a": pd.DataFrame({"x": ["1"], "value": [1.0]})}}, "has no target atoms"),
        ({"truth": {"y": pd.DataFrame({"x": ["1"]})}}, "'value' column is required"),
        ({"observations": {"a": [1, 2]}}, "expected a pandas DataFrame"),
    ],
)
def test_from_frames_rejects_bad_data(kwargs, fragment):
    args = {"observations": {}, "targets": {"y": pd.DataFrame({"x": ["1", "2"]})}, "truth": None}
    args.update(kwargs)
    with pytest.raises(InvalidDataError, match=fragment):
        Database.from_frames(**args)


def test_unknown_predicate_and_role():
    db = small()
    with pytest.raises(InvalidParameterError, match="unknown predicate 'nope'"):
        db.arity("nope")
    with pytest.raises(InvalidParameterError, match="role must be"):
        db.frame("good", "guesses")


def test_from_data_default_and_chosen_targets():
    sample = make_paper_review(random_state=0)
    db = Database.from_data(sample)
    assert db.target_predicates == ("positiveReviews", "positiveSummary")
    assert db.n_targets == 200 + 100
    np.testing.assert_array_equal(
        db.truth_vector()[200:], sample.truth["positiveSummary"]["value"].to_numpy()
    )
    only = Database.from_data(paper_review_data(sample, targets=["positiveSummary"]))
    assert only.n_targets == 100
    assert only.is_closed("positiveReviews")
    with pytest.raises(InvalidParameterError, match="targets"):
        paper_review_data(sample, targets=["highQuality"])


def test_from_psl_dir(tmp_path):
    (tmp_path / "good_obs.txt").write_text("a\t1.0\nb\t0.25\n")
    (tmp_path / "link_obs.txt").write_text("a\tb\nb\tc\n")
    (tmp_path / "accept_targets.txt").write_text("a\nb\n")
    (tmp_path / "accept_truth.txt").write_text("a\t1\nb\t0\n")
    (tmp_path / "README.md").write_text("ignored")
    db = Database.from_psl_dir(tmp_path)
    assert db.predicates == {"accept": 1, "good": 1, "link": 2}
    assert db.frame("good")["value"].tolist() == [1.0, 0.25]
    assert db.truth_vector().tolist() == [1.0, 0.0]
    with pytest.raises(CorruptFileError, match=r"no '\*_nothing\.txt'"):
        Database.from_psl_dir(
            tmp_path / "..", obs_suffix="_nothing", targets_suffix="_no", truth_suffix="_none"
        )


def test_from_psl_dir_needs_arity_for_empty_files(tmp_path):
    (tmp_path / "good_obs.txt").write_text("")
    (tmp_path / "accept_targets.txt").write_text("a\n")
    with pytest.raises(CorruptFileError, match="arities="):
        Database.from_psl_dir(tmp_path)
    db = Database.from_psl_dir(tmp_path, arities={"good": 1})
    assert db.arity("good") == 1
    assert len(db.frame("good")) == 0


def test_infer_arity_heuristic():
    frame = pd.DataFrame
    assert _infer_arity(frame({0: ["a", "b"]})) == 1
    assert _infer_arity(frame({0: ["a", "b"], 1: ["1", "0.5"]})) == 1
    assert _infer_arity(frame({0: ["a", "b"], 1: ["i1", "i2"]})) == 2
    # 54,0 and 54,1: a repeated first column means the last one is an argument
    assert _infer_arity(frame({0: ["54", "54"], 1: ["0", "1"]})) == 2
    assert _infer_arity(frame({0: ["a", "b"], 1: ["2", "0"]})) == 2


@pytest.mark.needs_data(BIAS1)
def test_from_csv_dir_reads_the_authors_sample(bias1):
    db = Database.from_csv_dir(bias1, targets=["positiveSummary"])
    assert db.n_targets == 98
    assert db.arity("positiveReviews") == 2
    assert db.arity("author") == 1
    assert db.arity("affiliation") == 2
    assert db.arity("submits") == 2
    assert (db.frame("author")["value"] == 1.0).all()
    assert set(np.unique(db.truth_vector())) <= {0.0, 1.0}
    assert db.frame("positiveReviews")["value"].isin([0.0, 1.0]).all()
    with pytest.raises(CorruptFileError, match="no file for target"):
        Database.from_csv_dir(bias1, targets=["highQuality"])
    with pytest.raises(InvalidParameterError, match="not a single string"):
        Database.from_csv_dir(bias1, targets="positiveSummary")


def test_argument_columns_of_any_dtype_become_their_str_values():
    from fairacq.relational.hlmrf._database import _SMALL

    n = _SMALL + 10  # a string column this long is factorised by pyarrow
    frames = {
        "ints": pd.DataFrame({"p": [1, 2, 10]}),
        "nullable": pd.DataFrame({"p": pd.array([1, 2, 3], dtype="Int64")}),
        "flags": pd.DataFrame({"p": [True, False, True], "q": ["1", "2", "3"]}),
        "floats": pd.DataFrame({"p": [1.0, 2.5, -0.0]}),
        "mixed": pd.DataFrame({"p": pd.Series([1, "2", 1.0], dtype=object)}),
        "objects": pd.DataFrame({"p": pd.Series(["a", "b", "c"], dtype=object)}),
        "category": pd.DataFrame({"p": pd.Categorical(["x", "y", "x"]), "q": [1, 2, 3]}),
        "long": pd.DataFrame({"p": [f"u{i % 97}" for i in range(n)], "q": list(range(n))}),
    }
    db = Database.from_frames(observations=frames, targets={})
    for name, frame in frames.items():
        got = db.frame(name).drop(columns="value")
        want = frame.astype(str)
        assert got.to_numpy().tolist() == want.to_numpy().tolist(), name
    # one dictionary of constants: "1" from an int column and from a string column agree
    assert db._code("1") >= 0
    assert len(set(db._constants.tolist())) == len(db._constants)


@pytest.mark.parametrize(
    "column",
    [
        pd.Series(["a", None, "c"], dtype=object),
        pd.Series([1.0, np.nan, 3.0]),
        pd.array([1, None, 3], dtype="Int64"),
        pd.Series(["a", None, "c"], dtype="string"),
    ],
)
def test_missing_arguments_are_found_in_every_dtype(column):
    with pytest.raises(InvalidDataError, match=r"missing argument values in rows \[1\]"):
        Database.from_frames(observations={"a": pd.DataFrame({"x": column})}, targets={})


def test_duplicates_are_found_across_several_columns():
    frame = pd.DataFrame({"x": ["1", "2", "1"], "y": [3, 4, 3], "value": [1.0, 0.5, 0.2]})
    with pytest.raises(InvalidDataError, match=r"1 duplicated atoms, e.g. a\('1', '3'\)"):
        Database.from_frames(observations={"a": frame}, targets={})
    ok = frame.assign(y=[3, 4, 5])
    assert len(Database.from_frames(observations={"a": ok}, targets={}).frame("a")) == 3


def test_atom_lookups_agree_between_direct_and_hashed_indices():
    rng = np.random.default_rng(0)
    names = [f"c{i}" for i in range(700)]
    pairs = pd.DataFrame({"a": rng.choice(names, 300), "b": rng.choice(names, 300)})
    pairs = pairs.drop_duplicates().reset_index(drop=True)
    values = rng.random(len(pairs))
    db = Database.from_frames(
        observations={
            "big": pairs.assign(value=values),
            "small": pairs.head(5).assign(value=values[:5]),
            "names": pd.DataFrame({"x": names}),
        },
        targets={},
    )
    query = np.array([[db._code(a), db._code(b)] for a, b in pairs.to_numpy()] + [[0, 0]])
    for predicate, n in (("big", len(pairs)), ("small", 5)):
        val, var = db._lookup_codes(predicate, query)
        np.testing.assert_array_equal(val[:n], values[:n])
        assert (var == -1).all()
        assert val[-1] == (values[0] if (query[-1] == query[0]).all() else 0.0)
        assert isinstance(db._keyed[predicate][1], pd.Index)  # 701 ** 2 keys: hashed
    codes = np.array([[db._code(x)] for x in ["c3", "c699", "c7"]] + [[-1]])
    val, var = db._lookup_codes("names", codes)
    assert val.tolist() == [1.0, 1.0, 1.0, 0.0]
    assert isinstance(db._keyed["names"][1], np.ndarray)  # 701 keys: a direct table
