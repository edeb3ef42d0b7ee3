"""Bad input to relational learning (paper 004): ``fairacq relational`` and the PSL API."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from fairacq.exceptions import (
    FairacqError,
    InvalidDataError,
    InvalidParameterError,
    UnknownNameError,
)
from fairacq.relational import (
    Database,
    FairA3SL,
    admm_map,
    ground,
    learn_weights,
    load_named_relational,
    map_inference,
    parse_fairness,
    parse_rule,
    parse_rules,
    read_psl_data,
    read_rules,
    run_pipeline,
    write_example,
)
from tests.bad_input._corpus import Fragments, assert_api_error, assert_cli_error, run_cli

USERS = [f"u{i}" for i in range(8)]
RULES = "5: risky(U) -> recid(U) ^2\n5: !recid(U) ^2\n"


def _write(folder: Path, name: str, values: list[Any] | None = None) -> None:
    rows = USERS if values is None else [f"{u}\t{v}" for u, v in zip(USERS, values, strict=True)]
    (folder / name).write_text("".join(f"{r}\n" for r in rows))


@pytest.fixture(scope="module")
def psl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A rules file and a PSL data folder: risky and grp observed, recid the target."""
    root = tmp_path_factory.mktemp("psl")
    data = root / "data"
    data.mkdir()
    _write(data, "risky_obs.txt", [1, 1, 1, 0.5, 0, 0, 1, 0])
    _write(data, "grp_obs.txt", [1, 1, 1, 1, 0, 0, 0, 0])
    _write(data, "recid_targets.txt")
    _write(data, "recid_truth.txt", [1, 1, 0, 1, 0, 0, 1, 0])
    (root / "model.psl").write_text(RULES)
    (root / "afile.txt").write_text("x\n")
    return root


def _infer(psl: Path, out: Path, *extra: object, rules: object = None, data: object = None):
    return run_cli(
        "relational", "infer", "--rules", rules or psl / "model.psl",
        "--data", data or psl / "data", "--out", out, *extra,
    )  # fmt: skip


RULE_CASES: list[tuple[str | bytes, Fragments]] = [
    ("-5: risky(U) -> recid(U) ^2\n", ("weight must be >= 0",)),
    ("nan: risky(U) -> recid(U) ^2\n", ("expected an atom", "found 'nan'")),
    ("1e400: risky(U) -> recid(U) ^2\n", ("finite number >= 0", "inf")),
    ("5: risky(U) -> recid(U) ^3\n", ("expected 1 or 2 after '^'",)),
    (": risky(U) -> recid(U)\n", ("expected an atom",)),
    ("5: risky(U) -> recid(V) ^2\n", ("variable(s) V", "cannot be grounded")),
    ("risky(U) + recid(U) <= \n", ("expected a number",)),
    ("5: risky(U) -> grp(U) ^2\n", ("no rule mentions a target predicate (recid)",)),
    (
        "5: " + " & ".join(["risky(U)"] * 3000) + " -> recid(U) ^2\n",
        ("holds 3001 atoms, more than 500", "split it into shorter rules"),
    ),
    ("1: " + "(" * 200 + "risky(U)" + ")" * 200 + " -> recid(U) ^2\n", ("nest more than 64",)),
    ("5: risky(U) -> recid(U) ^2 ^2\n", ("--rules:",)),
    ("5: risky(U) -> recid(U, U) ^2\n", ("'recid' takes 2 argument(s)", "Fix the file")),
    ("5: recidd(U) -> recid(U) ^2\n", ("unknown predicate 'recidd'", "Did you mean 'recid'")),
    ("5: risky('') -> recid(U) ^2\n", ("quoted constant is empty",)),
    ("5: risky(U) -> recid(U) ^2 \u00a7\n", ("unexpected character",)),
    (b"\xff\xfe5\x00:\x00 \x00", ("--rules:", "not UTF-8 text")),
    (b"5: risky(U) -> recid(U) ^2\x00\n", ("NUL bytes",)),
    ("/* never closed\n5: risky(U) -> recid(U) ^2\n", ("--rules:",)),
    ("   \n\t\n", ("holds no rule",)),
    (
        "5: risky(U, V) -> recid(U) ^2\n",
        ("'risky' takes 2 arguments in the rules", "risky_obs.txt", "1 argument(s) and a truth"),
    ),
    ("5: risky(U, U) -> recid(U) ^2\n", ("'risky' takes 2 arguments", "add a truth column")),
]


@pytest.mark.parametrize(("rules", "fragments"), RULE_CASES, ids=lambda v: repr(v)[:50])
def test_relational_infer_bad_rules(psl, tmp_path, rules, fragments) -> None:
    path = tmp_path / "rules.psl"
    path.write_bytes(rules if isinstance(rules, bytes) else rules.encode())
    res = _infer(psl, tmp_path / "out", rules=path)
    assert_cli_error(res, fragments)
    assert not (tmp_path / "out" / "summary.json").exists()


DATA_CASES: list[tuple[str, str | None, Fragments]] = [
    ("recid_targets.txt", None, ("truth is given for 'recid', which has no target atoms",)),
    ("recid_targets.txt", "", ("list no atoms", "nothing to infer")),
    ("risky_obs.txt", "u0\t2\n", ("'2' in column 2", "[0, 1]")),
    ("risky_obs.txt", "u0\t-1\n", ("'-1'",)),
    ("risky_obs.txt", "u0\tnan\n", ("'nan'",)),
    ("risky_obs.txt", "u0\tinf\n", ("'inf'",)),
    ("risky_obs.txt", "u0\t1\t1\t1\n", ("4 columns", "takes 1 argument")),
    ("recid_truth.txt", "u0\tyes\n", ("recid_truth.txt",)),
    ("grp_obs.txt", "\x00\x01\x02\n", ("grp_obs.txt holds NUL bytes",)),
]


@pytest.mark.parametrize(("file", "content", "fragments"), DATA_CASES, ids=lambda v: repr(v)[:40])
def test_relational_infer_bad_data(psl, tmp_path, file, content, fragments) -> None:
    import shutil

    data = tmp_path / "data"
    shutil.copytree(psl / "data", data)
    if content is None:
        (data / file).unlink()
    else:
        (data / file).write_text(content)
    assert_cli_error(_infer(psl, tmp_path / "out", data=data), ("--data:", *fragments))


OPTION_CASES: list[tuple[list[str], Fragments]] = [
    (["--fair", "rd<=nan protected=grp"], ("cannot read 'rd<=nan'",)),
    (["--fair", "rd<=-1 protected=grp"], ("cannot read 'rd<=-1'",)),
    (["--fair", "rd<=0.1 protected=nope"], ("protected='nope' is not an observed predicate",)),
    (["--fair", "rd<=0.1 protected=grp protected=risky"], ("protected= is given twice",)),
    (["--fair", "protected=grp extra=1"], ("unknown option 'extra'",)),
    (["--fair", "rd<=0.1 protected=grp target=risky"], ("not a target predicate",)),
    (["--fair", "rdd<=0.1 protected=grp"], ("Did you mean",)),
    (["--task", "ranking"], ("--task must be",)),
    (["--format", "xlsx"], ("--format must be",)),
    (["--train", "{psl}/nope"], ("--train:", "does not exist")),
    (["--train", "{psl}/model.psl"], ("--train:", "is a file, not a folder")),
    (["--learn", "--seed", "-1"], ("random_state",)),
]


@pytest.mark.parametrize(("extra", "fragments"), OPTION_CASES, ids=lambda v: str(v)[:50])
def test_relational_infer_bad_options(psl, tmp_path, extra, fragments) -> None:
    args = [a.format(psl=psl) for a in extra]
    assert_cli_error(_infer(psl, tmp_path / "out", *args), fragments)


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--rules", "{psl}/data"], ("--rules:", "is a folder")),
        (["--rules", "{psl}/nope.psl"], ("--rules:", "does not exist")),
        (["--data", "{psl}/afile.txt"], ("--data:", "is a file, not a folder")),
        (["--out", "{psl}/afile.txt"], ("--out", "existing file")),
    ],
)
def test_relational_infer_wrong_paths(psl, tmp_path, args, fragments) -> None:
    base = {"--rules": str(psl / "model.psl"), "--data": str(psl / "data"),
            "--out": str(tmp_path / "out")}  # fmt: skip
    base[args[0]] = args[1].format(psl=psl)
    res = run_cli("relational", "infer", *[x for kv in base.items() for x in kv])
    assert_cli_error(res, fragments)


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (
            ["learn", "--dataset", "compass"],
            ("Unknown dataset 'compass'", "Did you mean 'compas'"),
        ),
        (["learn", "--preset", "fast"], ("'preset'", "'fast'")),
        (["learn", "--fold", "-1"], ("'fold'", "Got -1")),
        (
            ["learn", "--dataset", "paper-review", "--fold", "10"],
            ("'fold' of paper-review", "from 0 to 9", "Got 10"),
        ),
        (["learn", "--fold", "99"], ("'fold' of compas", "from 0 to 4", "Got 99")),
        (["learn", "--out", "/proc/fairacq-a3sl"], ("--out", "cannot write in /proc")),
        (["learn", "--refine-evaluations", "-1"], ("--refine-evaluations must be >= 1",)),
        (["learn", "--seed", "-1"], ("random_state",)),
        (["learn", "--prior", "eqodds=-1"], ("'alpha_odds'",)),
        (["learn", "--prior", "foo=1"], ("--prior: write 'eqodds=<strength>'",)),
        (["learn", "--episodes", "-5"], ("--episodes must be >= 1",)),
        (["learn", "--fair", "rd<=0.1 rr<=0.1 protected=x"], ("constraints only",)),
        (["example", "--out", "{psl}/afile.txt/ex"], ("afile.txt is a file",)),
        (["example", "--out", "{psl}/afile.txt"], ("--out", "existing file")),
    ],
)
def test_relational_learn_and_example(psl, tmp_path, args, fragments) -> None:
    filled = [a.format(psl=psl) for a in args]
    out = [] if "--out" in filled else ["--out", str(tmp_path / "o")]
    assert_cli_error(run_cli("relational", *filled, *out), fragments)


# -- the library -----------------------------------------------------------------------------


def _frames() -> dict[str, Any]:
    risky = pd.DataFrame({"user": USERS, "value": [1, 1, 1, 0.5, 0, 0, 1, 0]})
    return {
        "observations": {"risky": risky},
        "targets": {"recid": pd.DataFrame({"user": USERS})},
        "truth": {"recid": pd.DataFrame({"user": USERS, "value": [1, 1, 0, 1, 0, 0, 1, 0]})},
    }


def _db(**change: Any) -> Database:
    return Database.from_frames(**{**_frames(), **change})


def _model():
    return ground(parse_rules(RULES), _db())


API_CASES: list[tuple[str, Any, type[FairacqError], Fragments]] = [
    (
        "parse nesting",
        lambda p: parse_rule("1: " + "(" * 100 + "a(X)" + ")" * 100 + " -> b(X)"),
        InvalidDataError,
        "nest more than 64",
    ),
    (
        "parse width",
        lambda p: parse_rule("1: " + " & ".join(["a(X)"] * 600) + " -> b(X) ^2"),
        InvalidDataError,
        "more than 500",
    ),
    ("parse not text", lambda p: parse_rule(b"1: a(X) -> b(X)"), InvalidDataError, "str"),
    ("parse empty", lambda p: parse_rule("   "), InvalidDataError, "empty"),
    ("read rules binary", lambda p: read_rules(p / "binary.psl"), FairacqError, "UTF-8"),
    ("read rules folder", lambda p: read_rules(p / "data"), FairacqError, "folder"),
    (
        "obs value 2",
        lambda p: _db(
            observations={"risky": pd.DataFrame({"user": USERS[:2], "value": [2.0, 0.5]})}
        ),
        InvalidDataError,
        "[0, 1]",
    ),
    (
        "obs value nan",
        lambda p: _db(
            observations={"risky": pd.DataFrame({"user": USERS[:2], "value": [np.nan, 0.5]})}
        ),
        InvalidDataError,
        "risky",
    ),
    ("truth without target", lambda p: _db(targets={}), InvalidDataError, "no target atoms"),
    (
        "obs and target clash",
        lambda p: _db(observations={"recid": pd.DataFrame({"user": USERS, "value": 1.0})}),
        InvalidDataError,
        "recid",
    ),
    (
        "ground unknown predicate",
        lambda p: ground(parse_rules("1: nope(U) -> recid(U) ^2"), _db()),
        InvalidDataError,
        "nope",
    ),
    (
        "ground not a database",
        lambda p: ground(parse_rules(RULES), _frames()),
        InvalidDataError,
        "Database",
    ),
    ("map solver", lambda p: map_inference(_model(), solver="admmm"), FairacqError, "admmm"),
    ("admm rho", lambda p: admm_map(_model(), rho=-1.0), InvalidParameterError, "rho"),
    ("admm max_iter", lambda p: admm_map(_model(), max_iter=0), InvalidParameterError, "max_iter"),
    (
        "learn truth length",
        lambda p: learn_weights(_model(), np.ones(3)),
        InvalidDataError,
        "truth",
    ),
    (
        "learn truth nan",
        lambda p: learn_weights(_model(), np.full(8, np.nan)),
        InvalidDataError,
        "truth",
    ),
    (
        "learn n_iter",
        lambda p: learn_weights(_model(), np.ones(8), n_iter=0),
        InvalidParameterError,
        "n_iter",
    ),
    ("fairness measure", lambda p: parse_fairness("rdd<=0.1"), UnknownNameError, "rd"),
    ("fairness delta", lambda p: parse_fairness("rd<=1.5"), InvalidParameterError, "delta"),
    ("psl data file", lambda p: read_psl_data(p / "model.psl"), FairacqError, "folder"),
    ("psl data missing", lambda p: read_psl_data(p / "nope"), FairacqError, "does not exist"),
    (
        "psl data task",
        lambda p: read_psl_data(p / "data", task="rank"),
        InvalidParameterError,
        "task",
    ),
    (
        "psl data target",
        lambda p: read_psl_data(p / "data", target="risky"),
        InvalidDataError,
        "not a target predicate",
    ),
    (
        "pipeline weights",
        lambda p: run_pipeline(RULES, None, read_psl_data(p / "data"), weights=[1.0]),
        InvalidParameterError,
        "weights",
    ),
    (
        "pipeline no target rule",
        lambda p: run_pipeline("1: risky(U) -> grp(U) ^2", None, read_psl_data(p / "data")),
        InvalidDataError,
        "no rule mentions a target predicate",
    ),
    (
        "a3sl preset",
        lambda p: FairA3SL(preset="fast").fit(read_psl_data(p / "data")),
        FairacqError,
        "preset",
    ),
    (
        "named dataset",
        lambda p: load_named_relational("compass", 0, "train"),
        UnknownNameError,
        "compas",
    ),
    (
        "named split",
        lambda p: load_named_relational("compas", 0, "validation"),
        FairacqError,
        "split",
    ),
    ("example into a file", lambda p: write_example(p / "afile.txt"), FairacqError, "afile.txt"),
    (
        "pipeline rules int",
        lambda p: run_pipeline(123, None, read_psl_data(p / "data")),
        InvalidParameterError,
        ("rules must be PSL rule text or a list", "int 123"),
    ),
    (
        "pipeline rules [None]",
        lambda p: run_pipeline([None], None, read_psl_data(p / "data")),
        InvalidParameterError,
        ("rules[0] is None, not a rule",),
    ),
    (
        "pipeline map option typo",
        lambda p: run_pipeline(RULES, None, read_psl_data(p / "data"), map_options={"nope": 1}),
        InvalidParameterError,
        ("map_options has the unknown key 'nope'", "max_iter"),
    ),
    (
        "pipeline map options list",
        lambda p: run_pipeline(RULES, None, read_psl_data(p / "data"), map_options=[1]),
        InvalidParameterError,
        ("map_options must be a dict",),
    ),
    (
        "pipeline weight learning typo",
        lambda p: run_pipeline(
            RULES, None, read_psl_data(p / "data"), weight_learning={"n_iters": 3}
        ),
        InvalidParameterError,
        ("weight_learning has the unknown key 'n_iters'", "n_iter"),
    ),
    (
        "pipeline fairness int",
        lambda p: run_pipeline(RULES, None, read_psl_data(p / "data"), fairness=3),
        InvalidParameterError,
        ("fairness must be a constraint",),
    ),
    (
        "named fold out of range",
        lambda p: load_named_relational("paper-review", 99, "train"),
        InvalidParameterError,
        ("from 0 to 9", "Got 99"),
    ),
]


@pytest.mark.parametrize(
    ("name", "call", "kind", "fragments"), API_CASES, ids=[c[0] for c in API_CASES]
)
def test_relational_api(psl, name, call, kind, fragments) -> None:
    (psl / "binary.psl").write_bytes(bytes(range(256)))
    assert_api_error(lambda: call(psl), fragments, kind)
