"""``check_output_dir``/``check_output_file``: unusable output paths fail before any work."""

from __future__ import annotations

import os

import pytest

from fairacq._io import check_output_dir, check_output_file
from fairacq.exceptions import InvalidParameterError


def test_output_dir(tmp_path):
    assert check_output_dir(tmp_path) == tmp_path
    assert check_output_dir(tmp_path / "new" / "deeper") == tmp_path / "new" / "deeper"
    assert not (tmp_path / "new").exists()  # nothing is created
    file = tmp_path / "f.txt"
    file.write_text("x")
    with pytest.raises(InvalidParameterError, match=r"^--out .*f\.txt is an existing file"):
        check_output_dir(file, option="--out")
    with pytest.raises(InvalidParameterError, match="is a file, so no folder"):
        check_output_dir(file / "sub" / "run")


def test_output_file(tmp_path):
    assert check_output_file(tmp_path / "a.csv", suffixes=(".csv",)) == tmp_path / "a.csv"
    with pytest.raises(InvalidParameterError, match="existing folder"):
        check_output_file(tmp_path)
    with pytest.raises(InvalidParameterError, match="unsupported file type"):
        check_output_file(tmp_path / "a.xlsx", option="--out", suffixes=(".csv", ".parquet"))
    file = tmp_path / "f.txt"
    file.write_text("x")
    with pytest.raises(InvalidParameterError, match="cannot hold the output"):
        check_output_file(file / "a.csv")


@pytest.mark.parametrize("empty", ["", "."])
def test_output_dir_refuses_the_current_folder(empty):
    with pytest.raises(InvalidParameterError, match=r"^--out is empty or the current folder"):
        check_output_dir(empty, option="--out")


def test_output_file_refuses_an_input(tmp_path):
    table = tmp_path / "people.csv"
    table.write_text("a\n1\n")
    with pytest.raises(InvalidParameterError, match="would overwrite an input: --data"):
        check_output_file(table, option="--out", inputs={"--data": table})
    # the same file reached by another spelling, a symbolic link and a hard link
    for other in (tmp_path / "sub" / ".." / "people.csv", tmp_path / "link.csv"):
        if other.name == "link.csv":
            other.symlink_to(table)
        with pytest.raises(InvalidParameterError, match="would overwrite an input"):
            check_output_file(other, option="--out", inputs={"--data": table})
    hard = tmp_path / "hard.csv"
    os.link(table, hard)
    with pytest.raises(InvalidParameterError, match="would overwrite an input"):
        check_output_file(hard, option="--summary", inputs={"PROXY": [tmp_path / "x", table]})
    assert table.read_text() == "a\n1\n"


def test_output_file_beside_inputs_is_fine(tmp_path):
    table = tmp_path / "people.csv"
    table.write_text("a\n")
    out = tmp_path / "admitted.csv"
    assert check_output_file(out, inputs={"--data": table, "--pool": None}) == out


def test_output_dir_refuses_an_input_inside_it(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "counts.csv").write_text("g,n\n")
    with pytest.raises(InvalidParameterError, match=r"--data .*counts\.csv lies inside"):
        check_output_dir(run, option="--out", inputs={"--data": run / "counts.csv"})
    with pytest.raises(InvalidParameterError, match="lies inside"):
        check_output_dir(tmp_path / "run", inputs={"MODEL": run})  # the input folder itself
    other = tmp_path / "other"
    assert check_output_dir(other, inputs={"--data": run / "counts.csv"}) == other
    assert check_output_dir(run, inputs={"--data": tmp_path / "missing.csv"}) == run
