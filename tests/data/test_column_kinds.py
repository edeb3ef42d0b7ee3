"""Each raw column is read the way its user meant it, or refused with one line."""

from __future__ import annotations

import json
import logging

import numpy as np
import pandas as pd
import pytest

from fairacq.cli.shared._data_options import join_names
from fairacq.data import TableColumns, TableEncoder, encode_label, prepare_table
from fairacq.data._category_cap import OTHER, cap_categories
from fairacq.data._column_kinds import ColumnKind, as_numbers, infer_kind, looks_numeric
from fairacq.data._csv_layout import check_header, sniff_separator
from fairacq.data._notes import NOTES_LOGGER, reading_summary
from fairacq.exceptions import InvalidDataError, ResultWarning


def test_numbers_with_thousands_separators_are_numbers():
    col = pd.Series(["12,345", "7", "1,000,000.5"], name="income")
    with pytest.warns(UserWarning, match="thousands separators"):
        kind = infer_kind(col)
    assert kind == ColumnKind("numeric")
    assert as_numbers(col, kind).tolist() == [12345.0, 7.0, 1000000.5]


def test_placeholder_words_refused_without_impute_and_missing_with_it():
    col = pd.Series([str(v) for v in range(40)] + ["unknown", "?"], name="age")
    with pytest.raises(InvalidDataError, match=r"'age'.*'\?', 'unknown'.*--impute"):
        infer_kind(col)
    with pytest.warns(ResultWarning, match="read as missing"):
        kind = infer_kind(col, impute=True)
    assert kind.missing == ("?", "unknown")
    assert as_numbers(col, kind).isna().sum() == 2


def test_many_words_in_numbers_stay_categories():
    col = pd.Series(["1", "2", "a", "b", "c", "d", "e", "f"] * 3, name="code")
    assert infer_kind(col).kind == "categorical"


def test_dates_are_refused_as_text_and_as_datetimes():
    days = pd.date_range("2021-03-01", periods=30)
    with pytest.raises(InvalidDataError, match=r"'when' holds dates.*--drop when"):
        infer_kind(pd.Series(days.strftime("%d/%m/%Y"), name="when"))
    with pytest.raises(InvalidDataError, match="--drop when"):
        infer_kind(pd.Series(days, name="when"))
    kept = infer_kind(pd.Series(days.strftime("%Y-%m-%d"), name="when"), categorical=True)
    assert kept.kind == "categorical"


def test_identifiers_are_refused_unless_named_categorical():
    ids = pd.Series([f"a{i}" for i in range(30)], name="client")
    with pytest.raises(InvalidDataError, match=r"'client'.*every row.*--drop client"):
        infer_kind(ids)
    with pytest.raises(InvalidDataError, match="--drop rowid"):
        infer_kind(pd.Series(np.arange(1, 31), name="rowid"))
    assert infer_kind(ids, categorical=True).kind == "categorical"
    assert infer_kind(pd.Series(np.arange(30) * 7, name="income")).kind == "numeric"
    assert infer_kind(pd.Series(["x", "y"], name="tiny")).kind == "categorical"


def test_booleans_read_as_zero_one():
    col = pd.Series(["true", "False", "TRUE", None], name="member")
    kind = infer_kind(col)
    assert kind.kind == "boolean"
    assert as_numbers(col, kind).tolist()[:3] == [1.0, 0.0, 1.0]
    with pytest.raises(InvalidDataError, match="'member' holds text"):
        as_numbers(pd.Series(["yes"], name="member"), kind)


def test_looks_numeric():
    assert looks_numeric("12,345")
    assert looks_numeric("-0.5")
    assert not looks_numeric("Ayr")


def test_text_in_validation_where_training_had_numbers_is_refused():
    train = pd.DataFrame({"years": [30, 41, 25], "town": ["Ayr", "Bute", "Ayr"]})
    enc = TableEncoder().fit(train)
    with pytest.raises(InvalidDataError, match=r"validation: column 'years' holds text"):
        enc.transform(train.assign(years=["30", "old", "25"]), where="validation")
    with pytest.raises(InvalidDataError, match=r"'town' holds numbers .* held text"):
        enc.transform(train.assign(town=[1, 2, 1]), where="validation")
    # numbers written as text in a later file are still numbers
    assert enc.transform(train.assign(years=["30", "41", "25"]))["years"].tolist() == [30, 41, 25]


def test_many_categories_are_capped_and_round_trip_exactly():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"city": [f"c{v}" for v in rng.zipf(1.3, 3000) % 5000]})
    with pytest.warns(ResultWarning, match=r"'city' has .* categories; the 9 most frequent"):
        enc = TableEncoder(max_categories=10).fit(frame)
    X = enc.transform(frame)
    assert X.shape[1] == 10
    assert X.columns[-1] == f"city={OTHER}"
    assert X.to_numpy().sum(axis=1).tolist() == [1.0] * len(frame)
    again = TableEncoder.from_dict(json.loads(json.dumps(enc.to_dict())))
    pd.testing.assert_frame_equal(again.transform(frame), X)
    assert again.grouped_ == enc.grouped_
    assert again.kinds_ == enc.kinds_


def test_default_cap_is_fifty_and_small_columns_are_untouched():
    values = pd.Series([f"v{i % 200}" for i in range(1000)], name="c")
    with pytest.warns(ResultWarning):
        kept, grouped = cap_categories(values)
    assert len(kept) == 49
    assert len(grouped) == 151
    assert cap_categories(pd.Series(["b", "a"], name="c")) == (["a", "b"], [])


def test_saved_kinds_round_trip_and_old_files_still_load():
    frame = pd.DataFrame({"n": ["1,200", "7", "30"], "flag": ["true", "false", "true"]})
    with pytest.warns(UserWarning, match="thousands"):
        enc = TableEncoder().fit(frame)
    data = json.loads(json.dumps(enc.to_dict()))
    assert TableEncoder.from_dict(data).transform(frame).to_numpy().tolist() == [
        [1200.0, 1.0],
        [7.0, 0.0],
        [30.0, 1.0],
    ]
    old = {k: v for k, v in data.items() if k not in ("kinds", "grouped", "max_categories")}
    assert TableEncoder.from_dict(old).kinds_["n"].kind == "numeric"
    with pytest.raises(InvalidDataError, match="damaged"):
        TableEncoder.from_dict({**data, "kinds": {"n": {"kind": "date"}}})


def test_label_values_differing_in_case_or_spaces_are_refused():
    with pytest.raises(InvalidDataError, match=r"'YES', 'Yes ', 'yes'.*differ only"):
        encode_label(pd.Series(["yes", "Yes ", "YES", "no"], name="ok"), positive="yes")
    with pytest.raises(InvalidDataError, match=r"--positive 'yes' .* 'Yes' differs"):
        encode_label(pd.Series(["Yes", "No"], name="ok"), positive="yes")
    assert encode_label(pd.Series(["yes", "no"]), positive="yes").tolist() == [1, 0]


def test_sniff_separator_and_header(tmp_path):
    for sep in (";", "\t", "|"):
        path = tmp_path / "t.csv"
        path.write_text(f"a{sep}b\n1{sep}2\n")
        assert sniff_separator(path, ".csv") == sep
    path.write_text("a,b\n1;2,3\n")
    assert sniff_separator(path, ".csv") == ","
    with pytest.raises(InvalidDataError, match="names column 'age' twice"):
        check_header(path, ["age", "sex", "age"])


def test_reading_summary_is_logged_once_per_fitted_table(caplog):
    frame = pd.DataFrame(
        {
            "id": ["a", "b", "c", "d"],
            "age": [1, 2, 3, 4],
            "ok": [True, False, True, False],
            "job": ["x", "y", "x", "y"],
            "sex": ["F", "M", "F", "M"],
            "y": [0, 1, 1, 0],
        }
    )
    columns = TableColumns("y", ("sex",), drop=("id",))
    with caplog.at_level(logging.INFO, logger=NOTES_LOGGER):
        table = prepare_table(frame, columns, name="mine.csv")
        prepare_table(frame, columns, encoder=table.encoder, name="val.csv")
    assert [r.getMessage() for r in caplog.records] == [
        "mine.csv: 6 columns: 1 numeric, 1 true/false, 1 categorical, 1 label, 1 group, 1 dropped"
    ]
    assert reading_summary(6, columns, table.encoder).startswith("table: 6 columns")


def test_join_names_takes_repeats_and_commas():
    assert join_names(["a", "b, c"]) == "a,b,c"
    assert join_names("a,,b") == "a,b"
    assert join_names(None) is None
    assert join_names([]) is None
