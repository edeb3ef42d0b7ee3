"""The result protocol: to_frame, save / load round trips, refusals, and safe loading."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fairacq import Trace
from fairacq._artefact import write_manifest
from fairacq._result import Result, saveable
from fairacq.exceptions import CorruptFileError, InvalidParameterError


@saveable
@dataclasses.dataclass(frozen=True)
class _Part:
    name: str
    weight: float


@dataclasses.dataclass(frozen=True, eq=False)
class _ToyResult(Result):
    values: np.ndarray
    table: pd.DataFrame
    parts: tuple[_Part, ...]
    settings: dict[str, Any]
    trace: Trace | None = None
    model: Any = None

    _not_saved = ("model",)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"value": self.values})


@dataclasses.dataclass(frozen=True, eq=False)
class _OtherResult(Result):
    n: int

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"n": [self.n]})


def _table() -> pd.DataFrame:
    table = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}, index=pd.Index([7, 9], name="id"))
    table["c"] = pd.Series(["z", None], index=table.index, dtype=object)  # Python objects
    return table


def _toy(**changes: Any) -> _ToyResult:
    trace = Trace(pd.DataFrame({"step": [0, 1], "cost": [0.0, 2.0]}), {"method": "m", "seed": 3})
    fields: dict[str, Any] = {
        "values": np.array([0.5, np.nan, -np.inf]),
        "table": _table(),
        "parts": (_Part("rule", 1.5), _Part("other", 0.0)),
        "settings": {"alpha": 0.1, "nested": {"k": [1, (2, 3)]}, "none": None, "flag": True},
        "trace": trace,
        "model": object(),
    }
    return _ToyResult(**{**fields, **changes})


def test_a_result_comes_back_field_for_field(tmp_path: Path) -> None:
    original = _toy()
    back = _ToyResult.load(original.save(tmp_path / "r"))
    np.testing.assert_array_equal(back.values, original.values)
    pd.testing.assert_frame_equal(back.table, original.table)
    assert back.table["c"].tolist() == ["z", None]  # None, not NaN, in a column of objects
    assert back.parts == original.parts
    assert back.settings == {
        "alpha": 0.1,
        "nested": {"k": [1, (2, 3)]},
        "none": None,
        "flag": True,
    }
    assert back.trace is not None
    assert original.trace is not None
    assert back.trace.to_frame().equals(original.trace.to_frame())
    assert back.model is None  # named in _not_saved: a live object has its own save


def test_the_notebook_view_shows_the_class_and_the_first_rows() -> None:
    view = _toy(values=np.arange(30.0))._repr_html_()
    assert "<b>_ToyResult</b>: 30 rows (first 20 shown)" in view
    assert view.count("<tr") == 21  # the header row and 20 rows


@given(
    hnp.arrays(
        dtype=st.sampled_from([np.float64, np.float32, np.int64, np.int8, np.bool_, np.uint16]),
        shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
    )
)
@settings(max_examples=40, deadline=None)
def test_arrays_of_every_shape_and_dtype_come_back_exactly(array: np.ndarray) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as where:
        back = _ToyResult.load(_toy(values=array).save(Path(where) / "r")).values
    assert back.dtype == array.dtype
    assert back.shape == array.shape
    np.testing.assert_array_equal(back, array)


def test_string_arrays_come_back() -> None:
    import tempfile

    array = np.array([["a", "bb"], ["ccc", ""]])
    with tempfile.TemporaryDirectory() as where:
        back = _ToyResult.load(_toy(values=array).save(Path(where) / "r")).values
    np.testing.assert_array_equal(back, array)


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"settings": {"f": print}}, "_ToyResult.settings: a builtin_function_or_method"),
        ({"settings": {3: "x"}}, "dict key 3 is not a string"),
        ({"values": np.array([object()])}, "an array of object cannot be saved"),
        ({"table": pd.DataFrame({0: [1]})}, "column names must all be strings"),
        ({"parts": (dataclasses.make_dataclass("Loose", ["x"])(1),)}, "a Loose cannot be saved"),
    ],
)
def test_what_cannot_be_saved_safely_is_refused_naming_the_field(
    tmp_path: Path, changes: dict[str, Any], words: str
) -> None:
    with pytest.raises(TypeError, match=re.escape(words)):
        _toy(**changes).save(tmp_path / "r")
    assert not (tmp_path / "r").exists()  # nothing half-written is left


def test_an_earlier_result_is_replaced_only_on_request(tmp_path: Path) -> None:
    target = _OtherResult(1).save(tmp_path / "r")
    with pytest.raises(InvalidParameterError, match="pass overwrite=True"):
        _OtherResult(2).save(target)
    assert _OtherResult.load(target).n == 1
    _OtherResult(2).save(target, overwrite=True)
    assert _OtherResult.load(target).n == 2


def test_a_folder_that_is_not_a_result_is_never_overwritten(tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    with pytest.raises(InvalidParameterError, match="is not a saved result"):
        _OtherResult(1).save(tmp_path / "mine", overwrite=True)
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"


def test_loading_another_class_of_result_names_the_right_one(tmp_path: Path) -> None:
    folder = _OtherResult(1).save(tmp_path / "r")
    with pytest.raises(CorruptFileError, match="holds a _OtherResult, not a _ToyResult"):
        _ToyResult.load(folder)
    with pytest.raises(CorruptFileError, match="is not a saved result"):
        _ToyResult.load(tmp_path)


def test_an_edited_file_is_refused(tmp_path: Path) -> None:
    folder = _toy().save(tmp_path / "r")
    document = folder / "result.json"
    document.write_text(document.read_text().replace("0.1", "0.2"))
    with pytest.raises(CorruptFileError, match="checksum differs"):
        _ToyResult.load(folder)


_DATA = "data/1.parquet"


def _forge(folder: Path, fields: dict[str, Any], name: str = "_ToyResult") -> None:
    """Rewrite result.json as an attacker would, with a manifest to match."""
    (folder / "result.json").write_text(json.dumps({"class": name, "fields": fields}))
    write_manifest(folder, format="result/1")


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"values": {"$object": "system", "fields": {}}}, "names 'system', not a result"),
        ({"values": {"$frame": {"file": "../../etc/passwd"}}}, "names a file outside its folder"),
        (
            {"values": {"$array": {"file": "data/1.parquet", "dtype": "O", "shape": [1]}}},
            "array of object",
        ),
        ({"values": {"$array": {"file": "data/1.parquet", "dtype": "zz"}}}, "array of object"),
    ],
)
def test_a_forged_folder_builds_nothing_it_should_not(
    tmp_path: Path, fields: dict[str, Any], words: str
) -> None:
    folder = _toy().save(tmp_path / "r")
    _forge(folder, fields)
    with pytest.raises(CorruptFileError, match=re.escape(words)):
        _ToyResult.load(folder)


def test_a_folder_from_an_older_layout_of_the_class_is_refused(tmp_path: Path) -> None:
    folder = _OtherResult(1).save(tmp_path / "r")
    _forge(folder, {"n": 1, "removed_field": 2}, name="_OtherResult")
    with pytest.raises(CorruptFileError, match="does not match _OtherResult"):
        _OtherResult.load(folder)


def test_to_frame_is_required() -> None:
    @dataclasses.dataclass(frozen=True)
    class NoTable(Result):
        n: int

    with pytest.raises(TypeError, match="abstract"):
        NoTable(1)  # type: ignore[abstract]
