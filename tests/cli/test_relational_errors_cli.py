"""Bad inputs of ``fairacq relational infer|learn|example``: exit 2, one line, the fix."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from fairacq.cli import app

runner = CliRunner()

RULES = "5: risky(U) -> recid(U) ^2\n5: !recid(U) ^2\n"
USERS = [f"u{i}" for i in range(8)]


def _write(folder, name, values=None):
    rows = USERS if values is None else [f"{u}\t{v}" for u, v in zip(USERS, values, strict=True)]
    (folder / name).write_text("".join(f"{r}\n" for r in rows))


@pytest.fixture
def psl(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    _write(data, "risky_obs.txt", [1, 1, 1, 0.5, 0, 0, 1, 0])
    _write(data, "grp_obs.txt", [1, 1, 1, 1, 0, 0, 0, 0])
    _write(data, "recid_targets.txt")
    _write(data, "recid_truth.txt", [1, 1, 0, 1, 0, 0, 1, 0])
    (tmp_path / "model.psl").write_text(RULES)
    return tmp_path


def _infer(psl, *extra, rules="model.psl", data="data"):
    args = ["relational", "infer", "--rules", str(psl / rules), "--data", str(psl / data)]
    return runner.invoke(app, [*args, "--out", str(psl / "out"), *extra])


def _one_line_error(res, *fragments):
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1, res.output
    assert lines[0].startswith("error: ")
    assert "Traceback" not in res.output
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


@pytest.mark.parametrize(
    ("rules", "fragments"),
    [
        (None, ("--rules:", "does not exist")),
        (b"\x89PNG\r\n\x1a\n" + bytes(range(256)), ("--rules:", "not UTF-8 text")),
        (b"5: risky(U)\x00 -> recid(U) ^2\n", ("--rules:", "NUL bytes")),
        (b"5: risky(U) -> -> recid(U) ^2\n",
         ("--rules:", "model.psl: line 1", "expected an atom")),
        (b"1: " + b"(" * 3000 + b"risky(U)" + b")" * 3000 + b" -> recid(U) ^2\n",
         ("--rules:", "nest more than 64 deep")),
        (b"5: risky(U) -> recid(U) ^2\n5: risky(U, V) -> recid(U) ^2\n",
         ("--rules:", "'risky' takes 1 argument")),
        (b"5: risk(U) -> recid(U) ^2\n", ("unknown predicate 'risk'", "Did you mean 'risky'")),
        (b"# nothing yet\n", ("--rules:", "holds no rule")),
    ],
)  # fmt: skip
def test_infer_bad_rules(psl, rules, fragments):
    if rules is not None:
        (psl / "model.psl").write_bytes(rules)
    else:
        (psl / "model.psl").unlink()
    _one_line_error(_infer(psl), *fragments)


def test_infer_rules_folder_and_data_file(psl):
    _one_line_error(_infer(psl, rules="data"), "--rules:", "is a folder")
    _one_line_error(_infer(psl, data="model.psl"), "--data:", "is a file, not a folder")
    _one_line_error(_infer(psl, data="nope"), "--data:", "does not exist")
    res = _infer(psl, "--train", str(psl / "nope"))
    _one_line_error(res, "--train:", "does not exist")


@pytest.mark.parametrize(
    ("file", "content", "fragments"),
    [
        ("risky_obs.txt", "u0\t1\t1\n", ("3 columns, but 'risky' takes 1 argument",)),
        ("risky_obs.txt", "u0\t1\nu1\tyes\n", ("line 2 has 'yes' in column 2", "[0, 1]")),
        ("risky_obs.txt", "user\tscore\nu0\t1\n", ("no header line",)),
        ("recid_truth.txt", "u0\t1.5\n", ("recid_truth.txt", "truth values are numbers")),
        ("risky_obs.txt", "u0\t1\nu0\t0\n", ("duplicated atoms",)),
    ],
)
def test_infer_bad_data_files(psl, file, content, fragments):
    (psl / "data" / file).write_text(content)
    _one_line_error(_infer(psl), "--data:", *fragments)


def test_a_truth_column_is_the_truth_value_not_an_argument(psl):
    # A target file with a value column and an obs file whose atoms repeat in the guess:
    # the rules say 'recid' and 'risky' take one argument, so the last column is the value.
    _write(psl / "data", "recid_targets.txt", [0.5] * 8)
    res = _infer(psl, "--fair", "protected=grp", "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["metrics"]["auc_roc"] is not None


def test_infer_bad_options(psl):
    _one_line_error(_infer(psl, "--task", "ranking"), "--task must be")
    _one_line_error(_infer(psl, "--format", "xlsx"), "--format must be")
    _one_line_error(_infer(psl, "--fair", "rd<=0.1"), "protected=")
    _one_line_error(
        _infer(psl, "--fair", "rd<=0.1 protected=grp target=risky"), "not a target predicate"
    )
    _one_line_error(_infer(psl, "--fair", "rd<=2 protected=grp"), "--fair:", "delta must be")
    _one_line_error(_infer(psl, "--fair", "rdd<=0.1 protected=grp"), "--fair:", "Did you mean")


@pytest.mark.parametrize(
    ("fair", "fragment"),
    [
        ("rd<0.1", "cannot read 'rd<0.1'"),
        ("xx<=0.1", "fairness measure"),
        ("rd<=1.5", "delta must be"),
        ("rd<=0.1 protected=grp", "constraints only"),
    ],
)
def test_learn_bad_fair_exits_before_any_work(tmp_path, fair, fragment):
    res = runner.invoke(app, ["relational", "learn", "--fair", fair, "--out", str(tmp_path / "o")])
    _one_line_error(res, fragment)
    assert not (tmp_path / "o").exists()


def test_learn_bad_numbers():
    _one_line_error(runner.invoke(app, ["relational", "learn", "--episodes", "0"]), "--episodes")
    _one_line_error(
        runner.invoke(app, ["relational", "learn", "--prior", "eqodds=lots"]), "a number"
    )


def test_example_out_is_a_file(tmp_path):
    taken = tmp_path / "taken"
    taken.write_text("x")
    res = runner.invoke(app, ["relational", "example", "--out", str(taken)])
    _one_line_error(res, "--out", "existing file")
    (tmp_path / "ex" / "data").mkdir(parents=True)
    (tmp_path / "ex" / "data" / "other_obs.txt").write_text("a\n")
    res = runner.invoke(app, ["relational", "example", "--out", str(tmp_path / "ex")])
    _one_line_error(res, "--out:", "other_obs.txt")


def test_infer_binary_data_file_and_empty_folder(psl):
    (psl / "data" / "risky_obs.txt").write_bytes(b"u0\t\xcc\xff\x00\x01\n")
    _one_line_error(_infer(psl), "--data:", "risky_obs.txt is not UTF-8 text")
    (psl / "empty").mkdir()
    _one_line_error(_infer(psl, data="empty"), "--data:", "no '*_obs.txt'", "example")


def test_learn_without_the_data_set_files(tmp_path, monkeypatch):
    monkeypatch.setenv("FAIRACQ_DATA", str(tmp_path))
    res = runner.invoke(
        app, ["relational", "learn", "--dataset", "paper-review", "--out", str(tmp_path / "o")]
    )
    _one_line_error(res, "fair-a3sl/biasedPaperReview", "FAIRACQ_DATA")
