"""``check_output_dir``/``check_output_file``: unusable output paths fail before any work."""

from __future__ import annotations

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
