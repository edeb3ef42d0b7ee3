"""A user's raw table is read the way its user meant it, or refused with one line.

Every case goes through the command line (the shared reading step every command calls): it
ends in the intended encoding, a ``warning:`` line, or one ``error:`` line (exit 2).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.bad_input._corpus import assert_cli_error, people_frame, run_cli

AUDIT = ["audit", "--label", "approved", "--sensitive", "gender", "--positive", "yes", "--json"]


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One file per way a table can be misread."""
    root = tmp_path_factory.mktemp("tables")
    base = people_frame(200, seed=4)
    base.to_csv(root / "people.csv", index=False)
    base.to_csv(root / "semicolon.csv", sep=";", index=False)
    base.to_csv(root / "tab.csv.gz", sep="\t", index=False)
    unknown = base.assign(income=base["income"].astype(object))
    unknown.loc[[3, 9, 20], "income"] = "unknown"
    unknown.loc[[4], "income"] = "?"
    unknown.to_csv(root / "unknown.csv", index=False)
    base.assign(salary=[f"{v:,}" for v in np.arange(200) * 997 + 1000]).to_csv(
        root / "thousands.csv", index=False
    )
    days = pd.date_range("2020-01-01", periods=200)
    base.assign(when=days.strftime("%Y-%m-%d")).to_csv(root / "dates.csv", index=False)
    base.assign(when=days).to_parquet(root / "dates.parquet", index=False)
    text = base.to_csv(index=False)
    (root / "dup.csv").write_text(text.replace("years,income", "years,years", 1))
    case = base.copy()
    case.loc[case.index[case["approved"] == "yes"][:5], "approved"] = "Yes "
    case.loc[case.index[case["approved"] == "yes"][:3], "approved"] = "YES"
    case.to_csv(root / "case.csv", index=False)
    base.assign(town=base["town"].replace("Ayr", "Ayré")).to_csv(
        root / "latin.csv", index=False, encoding="latin-1"
    )
    base.assign(member=np.where(np.arange(200) % 3 == 0, "true", "false")).to_csv(
        root / "bool.csv", index=False
    )
    (root / "cut.csv.gz").write_bytes(gzip.compress(text.encode() * 3)[:1500])
    rng = np.random.default_rng(0)
    base.assign(city=[f"c{v}" for v in rng.integers(0, 150, 200)]).to_csv(
        root / "cities.csv", index=False
    )
    return root


def _audit(tables: Path, name: str, *extra: str):
    return run_cli(*AUDIT, "--data", tables / name, *extra)


def _lines(output: str, prefix: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith(prefix)]


ERRORS = [
    ("people.csv", [], ("column 'person'", "every row", "--drop person")),
    ("unknown.csv", ["--drop", "person"], ("'income'", "'?', 'unknown'", "--impute")),
    ("dates.csv", ["--drop", "person"], ("'when' holds dates", "--drop when")),
    ("dates.parquet", ["--drop", "person"], ("'when' holds dates", "--drop when")),
    ("dup.csv", ["--drop", "person"], ("names column 'years' twice",)),
    ("case.csv", ["--drop", "person"], ("'YES', 'Yes ', 'yes'", "case or spaces")),
    ("latin.csv", ["--drop", "person"], ("not UTF-8", "Save it again as UTF-8")),
    ("cut.csv.gz", ["--drop", "person"], ("truncated",)),
]


@pytest.mark.parametrize(("name", "extra", "fragments"), ERRORS, ids=[e[0] for e in ERRORS])
def test_misread_table_is_one_error_line(tables, name, extra, fragments):
    assert_cli_error(_audit(tables, name, *extra), fragments)


def test_positive_differing_in_case_is_refused(tables):
    res = run_cli(
        *AUDIT[:-3], "--positive", "YES", "--data", tables / "people.csv", "--drop", "person"
    )
    assert_cli_error(res, ("--positive 'YES'", "'yes' differs from it only in case"))


def test_drop_repeated_and_comma_lists_both_count(tables):
    for drop in (["--drop", "person", "--drop", "when"], ["--drop", "person,when"]):
        res = _audit(tables, "dates.csv", *drop)
        assert res.exit_code == 0, res.output
        assert "2 dropped" in res.output


def test_categorical_repeated_keeps_an_identifier(tables):
    res = _audit(tables, "people.csv", "--categorical", "person", "--categorical", "town")
    assert res.exit_code == 0, res.output
    assert "50 columns per categorical column" in res.output  # 200 ids capped


@pytest.mark.parametrize("name", ["semicolon.csv", "tab.csv.gz"])
def test_other_separators_are_sniffed_with_a_note(tables, name):
    res = _audit(tables, name, "--drop", "person")
    assert res.exit_code == 0, res.output
    notes = _lines(res.output, "note: ")
    assert "separated by" in notes[0]
    assert "6 columns: 2 numeric, 1 categorical, 1 label, 1 group, 1 dropped" in notes[1]


def test_thousands_separators_read_as_numbers_with_a_warning(tables):
    res = _audit(tables, "thousands.csv", "--drop", "person")
    assert res.exit_code == 0, res.output
    assert any("thousands separators" in w for w in _lines(res.output, "warning: "))
    assert "3 numeric" in res.output


def test_placeholders_imputed_with_a_warning(tables):
    res = _audit(tables, "unknown.csv", "--drop", "person", "--impute")
    assert res.exit_code == 0, res.output
    assert any("read as missing" in w for w in _lines(res.output, "warning: "))


def test_booleans_are_one_numeric_column(tables):
    res = _audit(tables, "bool.csv", "--drop", "person")
    assert res.exit_code == 0, res.output
    assert "1 true/false" in res.output


def test_many_categories_capped_with_a_warning(tables):
    res = _audit(tables, "cities.csv", "--drop", "person")
    assert res.exit_code == 0, res.output
    (warning,) = [w for w in _lines(res.output, "warning: ") if "'city'" in w]
    assert "49 most frequent are kept" in warning
    report = json.loads(res.stdout)
    assert report  # the audit still ran


def test_validation_with_text_where_training_had_numbers(tables, tmp_path):
    train = people_frame(200, seed=2).assign(zone=[f"z{i % 4}" for i in range(200)])
    val = people_frame(120, seed=3).assign(zone=[i % 4 for i in range(120)])
    train.to_csv(tmp_path / "train.csv", index=False)
    val.to_csv(tmp_path / "val.csv", index=False)
    people_frame(240, seed=1).to_csv(tmp_path / "pool.csv", index=False)
    res = run_cli(
        "acquire", "--train", tmp_path / "train.csv", "--val", tmp_path / "val.csv",
        "--pool", tmp_path / "pool.csv", "--label", "approved", "--sensitive", "gender",
        "--positive", "yes", "--drop", "person", "--budget", "5", "--out", tmp_path / "run",
    )  # fmt: skip
    assert_cli_error(res, ("validation: column 'zone' holds numbers", "held text"))


def test_repeated_sensitive_options_make_intersecting_groups(files: Path, tmp_path: Path) -> None:
    """``--sensitive gender --sensitive town`` is ``--sensitive gender,town`` (was: town only)."""
    counts = {}
    for form in (["--sensitive", "gender", "--sensitive", "town"], ["--sensitive", "gender,town"]):
        out = tmp_path / f"run{len(form)}"
        res = run_cli(
            "sample", "--data", files / "people.csv", "--label", "approved", "--positive", "yes",
            "--drop", "person", *form, "--method", "uniform", "--budget", "30", "--trials", "1",
            "--out", out,
        )  # fmt: skip
        assert res.exit_code == 0, res.output
        counts[len(form)] = sorted(set(pd.read_csv(out / "counts.csv")["group"]))
    assert counts[4] == counts[2]
    assert len(counts[4]) == 6, counts  # 2 genders x 3 towns


def test_encoder_matches_codes_written_as_floats_either_way():
    """Codes read as 3 in the training file and 3.0 in the validation file (or the other way
    round, e.g. when one file has a gap) are the same categories, not unseen ones."""
    from fairacq.data import TableEncoder

    ints = pd.DataFrame({"zone": [1, 2, 3, 3], "x": [1.0, 2.0, 3.0, 4.0]})
    floats = ints.astype({"zone": float})
    for fit, apply in ((ints, floats), (floats, ints)):
        enc = TableEncoder(["zone"]).fit(fit)
        coded = enc.transform(apply)
        assert enc.unknown_counts_ == {"zone": 0}
        assert coded.filter(like="zone=").sum(axis=1).tolist() == [1.0] * 4
    with pytest.warns(UserWarning, match="categories the training data did not have"):
        TableEncoder(["zone"]).fit(ints).transform(ints.assign(zone=[1.5, 2, 3, 3]))
