"""TableEncoder and prepare_table: raw columns encoded once, saved as JSON, errors named."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from fairacq.data import (
    TableColumns,
    TableEncoder,
    columns_from_options,
    encode_label,
    prepare_table,
)
from fairacq.exceptions import InvalidDataError, NotFittedError, ResultWarning


@pytest.fixture
def people() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "age": [30, 41, 25, 52, 38, 29],
            "job": ["clerk", "nurse", "clerk", "driver", "nurse", "clerk"],
            "sex": ["F", "M", "M", "F", "F", "M"],
            "hired": ["yes", "no", "yes", "no", "yes", "no"],
            "cost": [1.0, 2.0, 1.5, 1.0, 3.0, 2.0],
        }
    )


def test_encoder_one_hot_in_column_order(people):
    enc = TableEncoder().fit(people[["age", "job"]])
    X = enc.transform(people[["age", "job"]])
    assert list(X.columns) == ["age", "job=clerk", "job=driver", "job=nurse"]
    assert X.to_numpy()[:, 1:].sum(axis=1).tolist() == [1.0] * 6
    assert enc.feature_groups_["job"] == ["job=clerk", "job=driver", "job=nurse"]


def test_encoder_round_trips_through_json(people):
    enc = TableEncoder(impute=True).fit(people[["age", "job"]])
    again = TableEncoder.from_dict(json.loads(json.dumps(enc.to_dict())))
    pd.testing.assert_frame_equal(
        again.transform(people[["age", "job"]]), enc.transform(people[["age", "job"]])
    )


def test_encoder_counts_unknown_categories(people):
    enc = TableEncoder().fit(people[["age", "job"]])
    new = pd.DataFrame({"age": [33, 34], "job": ["pilot", "clerk"]})
    with pytest.warns(UserWarning, match="1 value.*job: 1.*all zeros"):
        X = enc.transform(new)
    assert enc.unknown_counts_ == {"job": 1}
    assert X.iloc[0, 1:].sum() == 0.0
    assert X.iloc[1]["job=clerk"] == 1.0


def test_encoder_missing_values_named_or_imputed(people):
    frame = people[["age", "job"]].astype({"age": float})
    frame.loc[[1, 4], "age"] = np.nan
    frame.loc[2, "job"] = None
    with pytest.raises(
        InvalidDataError, match=r"'age' has 2 missing value\(s\) \(rows 1, 4\).*--impute"
    ):
        TableEncoder().fit(frame)
    enc = TableEncoder(impute=True).fit(frame)
    X = enc.transform(frame)
    median = float(np.median([30, 25, 52, 29]))
    assert X.loc[1, "age"] == median
    assert X.loc[2, "job=clerk"] == 1.0


def test_encoder_refuses_text_in_numeric_column_and_inf(people):
    enc = TableEncoder().fit(people[["age", "job"]])
    with pytest.raises(InvalidDataError, match="'age' holds text"):
        enc.transform(pd.DataFrame({"age": ["old"], "job": ["clerk"]}))
    with pytest.raises(InvalidDataError, match="infinite"):
        enc.transform(pd.DataFrame({"age": [np.inf], "job": ["clerk"]}))
    with pytest.raises(InvalidDataError, match="no column 'job'"):
        enc.transform(pd.DataFrame({"age": [3]}))


def test_encoder_named_categorical_numeric_column(people):
    enc = TableEncoder(["age"]).fit(people[["age"]])
    assert enc.feature_names_[0] == "age=25"
    with pytest.raises(InvalidDataError, match="--categorical names 'salary'"):
        TableEncoder(["salary"]).fit(people[["age"]])


def test_encoder_unfitted_and_damaged():
    with pytest.raises(NotFittedError):
        TableEncoder().transform(pd.DataFrame({"a": [1]}))
    with pytest.raises(InvalidDataError, match="Not a saved table encoder"):
        TableEncoder.from_dict({"format": "x"})
    with pytest.raises(InvalidDataError, match="damaged"):
        TableEncoder.from_dict(
            {"format": "fairacq-table-encoder/1", "columns": ["a"], "categories": {"a": [1]}}
        )


def test_prepare_table_roles(people):
    cols = TableColumns("hired", ("sex",), cost="cost", positive="yes")
    table = prepare_table(people, cols, name="mine")
    ds = table.dataset
    assert ds.feature_names == ["age", "job=clerk", "job=driver", "job=nurse"]
    assert ds.y.tolist() == [1, 0, 1, 0, 1, 0]
    assert ds.group_names == ("F", "M")
    assert table.costs.tolist() == people["cost"].tolist()
    assert ds.feature_groups["job"] == ["job=clerk", "job=driver", "job=nurse"]
    assert TableColumns.from_dict(json.loads(json.dumps(cols.to_dict()))) == cols


def test_prepare_table_reuses_training_encoder(people):
    cols = TableColumns("hired", ("sex",), drop=("cost",), positive="yes")
    train = prepare_table(people, cols)
    other = people.head(3).assign(job=["clerk", "clerk", "clerk"])
    again = prepare_table(other, cols, encoder=train.encoder)
    assert again.dataset.feature_names == train.dataset.feature_names


def test_prepare_table_intersectional(people):
    people = people.assign(band=["a", "a", "b", "b", "a", "b"])
    ds = prepare_table(
        people, columns_from_options("hired", "sex,band", drop="cost", positive="yes")
    ).dataset
    assert ds.group_names == ("F & a", "F & b", "M & a", "M & b")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"label": "outcome"}, "no column 'outcome' for --label"),
        ({"sensitive": ("gender",)}, "no column 'gender' for --sensitive"),
        ({"cost": "price"}, "no column 'price' for --cost"),
        ({"positive": "maybe"}, "--positive 'maybe' is not a value"),
        ({"positive": None}, "values no, yes, not 0/1.*--positive"),
    ],
)
def test_prepare_table_errors(people, change, message):
    base = {"label": "hired", "sensitive": ("sex",), "positive": "yes", "drop": ("cost",)}
    with pytest.raises(InvalidDataError, match=message):
        prepare_table(people, TableColumns(**{**base, **change}))


def test_prepare_table_bad_costs_and_groups(people):
    with pytest.raises(InvalidDataError, match="positive numbers"):
        prepare_table(
            people.assign(cost=[1, 0, 1, 1, 1, 1]),
            TableColumns("hired", ("sex",), cost="cost", positive="yes"),
        )
    gaps = people.assign(sex=["F", None, "M", "F", "F", "M"])
    with pytest.raises(InvalidDataError, match="group column 'sex' has 1 missing"):
        prepare_table(gaps, TableColumns("hired", ("sex",), drop=("cost",), positive="yes"))


def test_encode_label_forms():
    assert encode_label(pd.Series([True, False])).tolist() == [1, 0]
    assert encode_label(pd.Series([1.0, 0.0])).tolist() == [1, 0]
    assert encode_label(pd.Series(["a", "b", "c"]), positive="c").tolist() == [0, 0, 1]
    with pytest.raises(InvalidDataError, match="values a, b, c"):
        encode_label(pd.Series(["a", "b", "c"]))
    with pytest.raises(InvalidDataError, match="missing"):
        encode_label(pd.Series([1, None, 0]))


def test_result_warning_is_a_user_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn("x", ResultWarning, stacklevel=1)
    assert issubclass(caught[0].category, UserWarning)
