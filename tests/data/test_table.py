"""``read_table``/``write_table``: one error shape for every unreadable user file."""

from __future__ import annotations

import gzip
from pathlib import Path

import pandas as pd
import pytest

from fairacq.data import (
    FairDataset,
    check_table_file,
    dataset_from_frame,
    read_dataset,
    read_table,
    write_table,
)
from fairacq.exceptions import CorruptFileError, InvalidDataError

FRAME = pd.DataFrame({"x": [0.5, 1.5, 2.5, 3.5], "group": list("abab"), "label": [0, 1, 1, 0]})


def _one_line(exc: pytest.ExceptionInfo[BaseException], path: Path) -> str:
    message = str(exc.value)
    assert "\n" not in message
    assert str(path) in message
    return message


@pytest.mark.parametrize("name", ["t.parquet", "t.pq", "t.csv", "t.csv.gz", "t.csv.bz2"])
def test_round_trip(tmp_path, name):
    path = write_table(FRAME, tmp_path / name)
    got = read_table(path)
    pd.testing.assert_frame_equal(got, FRAME)
    assert list(read_table(path, columns=["label", "x"]).columns) == ["label", "x"]


def test_gzip_csv_is_really_compressed(tmp_path):
    path = write_table(FRAME, tmp_path / "t.csv.gz")
    with gzip.open(path, "rt") as fh:
        assert fh.readline().strip() == "x,group,label"


def test_missing_file_is_corrupt_and_file_not_found(tmp_path):
    path = tmp_path / "none.csv"
    with pytest.raises(CorruptFileError) as info:
        read_table(path)
    assert isinstance(info.value, FileNotFoundError)
    assert "no such file" in _one_line(info, path)


def test_directory(tmp_path):
    folder = tmp_path / "d.csv"
    folder.mkdir()
    with pytest.raises(CorruptFileError) as info:
        read_table(folder)
    assert "directory" in _one_line(info, folder)


@pytest.mark.parametrize("name", ["t.csv", "t.parquet", "t.csv.gz"])
def test_empty_file(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(b"")
    with pytest.raises(CorruptFileError) as info:
        read_table(path)
    assert "empty" in _one_line(info, path)


def test_gzip_of_nothing_has_no_header(tmp_path):
    path = tmp_path / "t.csv.gz"
    path.write_bytes(gzip.compress(b""))
    with pytest.raises(CorruptFileError) as info:
        read_table(path)
    assert "header" in _one_line(info, path)


def test_header_only_has_no_rows(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("x,label\n")
    with pytest.raises(InvalidDataError) as info:
        read_table(path)
    assert "no rows" in _one_line(info, path)


def test_truncated_gzip_csv(tmp_path):
    path = tmp_path / "t.csv.gz"
    big = pd.concat([FRAME] * 500, ignore_index=True)
    write_table(big, path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(CorruptFileError) as info:
        read_table(path)
    message = _one_line(info, path)
    assert "truncated" in message
    assert "gzip-compressed CSV" in message


@pytest.mark.parametrize("cut", [0.5, 0.9])
def test_truncated_parquet(tmp_path, cut):
    path = write_table(FRAME, tmp_path / "t.parquet")
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * cut)])
    with pytest.raises(CorruptFileError) as info:
        read_table(path)
    assert "Cannot read" in _one_line(info, path)


def test_not_parquet_at_all(tmp_path):
    path = tmp_path / "t.parquet"
    path.write_bytes(b"not a parquet file at all")
    with pytest.raises(CorruptFileError) as info:
        read_table(path)
    assert "to_parquet" in _one_line(info, path)


def test_binary_file_named_csv(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(bytes(range(256)) * 8)
    with pytest.raises(CorruptFileError) as info:
        read_table(path)
    assert "CSV" in _one_line(info, path)


def test_unsupported_type(tmp_path):
    path = tmp_path / "t.xlsx"
    path.write_bytes(b"PK\x03\x04")
    with pytest.raises(InvalidDataError) as info:
        read_table(path)
    message = _one_line(info, path)
    assert "unsupported" in message
    assert ".parquet" in message
    with pytest.raises(InvalidDataError):
        write_table(FRAME, tmp_path / "out.xlsx")
    assert check_table_file(write_table(FRAME, tmp_path / "ok.csv")) == "CSV"


def test_missing_column(tmp_path):
    path = write_table(FRAME, tmp_path / "t.csv")
    with pytest.raises(InvalidDataError) as info:
        read_table(path, columns=["x", "age"])
    assert "'age'" in _one_line(info, path)


def test_read_dataset_and_frame(tmp_path):
    path = write_table(FRAME, tmp_path / "t.csv")
    ds = read_dataset(path, label="label", sensitive="group")
    assert isinstance(ds, FairDataset)
    assert ds.name == "t.csv"
    assert ds.feature_names == ["x"]
    assert ds.y.tolist() == [0, 1, 1, 0]
    with pytest.raises(InvalidDataError, match="no column 'grp'"):
        dataset_from_frame(FRAME, label="label", sensitive="grp", name="mine")


def test_write_table_keeps_a_non_default_index_in_parquet_only(tmp_path):
    frame = FRAME.set_axis([10, 11, 12, 13])
    assert read_table(write_table(frame, tmp_path / "t.parquet")).index.tolist() == [
        10,
        11,
        12,
        13,
    ]
    assert read_table(write_table(frame, tmp_path / "t.csv")).index.tolist() == [0, 1, 2, 3]
