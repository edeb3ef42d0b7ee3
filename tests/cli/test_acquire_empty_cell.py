"""``fairacq acquire --method post-thresholds`` when a validation (group, label) cell is empty.

The validation rows of one group all carry the same label (as on COMPAS split by Falcon's
recipe): the run ends with exit 0 and one ``warning:`` line kept in summary.json, or, when no
group holds both labels, exit 2 and one ``error:`` line; never a traceback.
"""

from __future__ import annotations

import json

import pytest

from tests.bad_input._corpus import assert_cli_error, people_frame, run_cli

pytest.importorskip("fairlearn")


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    root = tmp_path_factory.mktemp("cell")
    people_frame(200, seed=0).to_csv(root / "train.csv", index=False)
    people_frame(300, seed=1).to_csv(root / "pool.csv", index=False)
    val = people_frame(200, seed=2)
    val = val[(val["gender"] == "m") | (val["approved"] == "no")]  # no ('f', yes) row
    val.to_csv(root / "val.csv", index=False)
    split = val[(val["gender"] == "f") != (val["approved"] == "yes")]  # f: no, m: yes only
    split.to_csv(root / "val_split.csv", index=False)
    return root


def _acquire(root, out, val, *extra):
    return run_cli(
        "acquire", "--train", root / "train.csv", "--val", root / val,
        "--pool", root / "pool.csv", "--label", "approved", "--positive", "yes",
        "--sensitive", "gender", "--drop", "person", "--method", "post-thresholds",
        "--budget", "20", "--batch", "10", "--no-baseline", "--out", out, *extra,
    )  # fmt: skip


@pytest.mark.parametrize("metric", ["dp", "eopp"])
def test_an_empty_cell_is_a_warning_kept_in_the_summary(tables, tmp_path, metric) -> None:
    res = _acquire(tables, tmp_path / "run", "val.csv", "--metric", metric)
    assert res.exit_code == 0, res.output
    assert "Traceback" not in res.output
    assert "Degenerate" not in res.output
    told = [line for line in res.output.splitlines() if "group 'f' has label 0 only" in line]
    assert len(told) == 1, res.output
    assert told[0].startswith("warning: "), res.output
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert any("group 'f' has label 0 only" in w for w in summary["meta"]["warnings"])


def test_no_group_with_both_labels_is_one_error_line(tables, tmp_path) -> None:
    res = _acquire(tables, tmp_path / "run", "val_split.csv")
    assert_cli_error(res, ("no group's labelled rows hold both labels", "both labels"))
