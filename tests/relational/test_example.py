"""The shipped example: its files are what their sources write, and they copy out whole."""

from __future__ import annotations

import filecmp
import shlex

import pytest

from fairacq.exceptions import InvalidParameterError
from fairacq.relational import EXAMPLE_FAIRNESS, read_psl_data, read_rules, write_example
from fairacq.relational._example import build_example, example_commands

SHIPPED = ("model.psl", "README.md")


def test_shipped_files_equal_what_their_sources_write(tmp_path):
    build_example(tmp_path / "built")
    files = write_example(tmp_path / "copy")
    assert filecmp.cmp(tmp_path / "built" / "model.psl", files.rules, shallow=False)
    built = sorted(p.name for p in (tmp_path / "built" / "data").iterdir())
    copied = sorted(p.name for p in files.data.iterdir())
    assert built == copied
    _match, mismatch, errors = filecmp.cmpfiles(
        tmp_path / "built" / "data", files.data, built, shallow=False
    )
    assert (mismatch, errors) == ([], [])


def test_the_example_reads_with_its_groups(tmp_path):
    files = write_example(tmp_path)
    assert (tmp_path / "README.md").read_text().startswith("# fairacq's relational example")
    assert len(read_rules(files.rules)) == 6
    data = read_psl_data(files.data, target="positiveSummary", protected="protectedPaper")
    assert len(data.protected) > 5
    assert len(data.unprotected) > 5
    assert EXAMPLE_FAIRNESS in shlex.split(files.commands[1])


def test_commands_quote_paths_with_spaces():
    command = example_commands("my example")[0]
    assert shlex.split(command)[4] == "my example/model.psl"


def test_a_data_folder_with_other_predicates_is_refused(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "mine_obs.txt").write_text("a\n")
    with pytest.raises(InvalidParameterError, match=r"mine_obs\.txt"):
        write_example(tmp_path)
    assert not (tmp_path / "model.psl").exists()
