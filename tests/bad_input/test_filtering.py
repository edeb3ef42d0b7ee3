"""Bad input to balanced filtering (paper 003): ``fairacq filter`` and the proxies' API."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from fairacq.data import columns_from_options, load_toy
from fairacq.exceptions import (
    CorruptFileError,
    FairacqError,
    InvalidDataError,
    InvalidParameterError,
    NotFittedError,
    UnknownNameError,
)
from fairacq.filtering import (
    AlphaBetaProxy,
    BalancedFilter,
    LabelProxy,
    filter_table,
    fit_proxy,
    fit_table_proxy,
    load_proxy,
    make_proxy,
    proxy_from_dict,
    sampling_weights,
)
from tests.bad_input._corpus import (
    Fragments,
    assert_api_error,
    assert_cli_error,
    people_frame,
    run_cli,
)

FIT = {
    "--data": "people.csv",
    "--label": "approved",
    "--positive": "yes",
    "--sensitive": "gender",
    "--drop": "person",
    "--proxy": "qp-tree",
}


def _fit_args(files: Path, out: Path, change: dict[str, str | None]) -> list[str]:
    options = {**FIT, **change}
    args = ["filter", "fit", "--out", str(out)]
    for option, value in options.items():
        if value is not None:
            args += [option, str(files / value) if option == "--data" else value]
    return args


FIT_CASES: list[tuple[dict[str, Any], Fragments]] = [
    ({"--data": "empty.csv"}, ("empty.csv", "empty")),
    ({"--data": "header_only.csv"}, ("no rows",)),
    ({"--data": "truncated.csv.gz"}, ("truncated",)),
    ({"--data": "binary.csv"}, ("not CSV",)),
    ({"--data": "binary.parquet"}, ("not Parquet",)),
    ({"--data": "table.txt"}, ("unsupported file type",)),
    ({"--data": "folder.csv"}, ("is a directory",)),
    ({"--data": "nan.csv"}, ("'income'", "--impute")),
    ({"--data": "inf.csv"}, ("'income'", "infinite")),
    ({"--data": "one_group.csv"}, ("single group",)),
    ({"--data": "three_labels.csv", "--positive": None}, ("not 0/1", "--positive")),
    ({"--proxy": "qp-tre"}, ("Unknown proxy 'qp-tre'", "Did you mean 'qp-tree'?")),
    ({"--proxy": "alpha-beta", "--alpha": "2"}, ("--alpha must be in [0, 1]",)),
    ({"--proxy": "alpha-beta", "--alpha": "-0.1"}, ("--alpha must be in [0, 1]",)),
    ({"--proxy": "alpha-beta", "--gamma": "0"}, ("'gamma'", "(0, 1)")),
    ({"--proxy": "alpha-beta", "--gamma": "nan"}, ("'gamma'", "nan")),
    ({"--alpha": "0.1"}, ("--alpha",)),
    ({"--model": "lrr"}, ("Unknown learner 'lrr'", "Did you mean 'lr'?")),
    ({"--model": "os:getcwd"}, ("not a class",)),
    ({"--model": "nosuch_mod_q:Model"}, ("Cannot import module",)),
    ({"--model-param": "C=abc"}, ("--model-param needs --model",)),
    ({"--model": "decision_tree", "--model-param": "max_depth=-1"}, ("'max_depth'", "Got -1")),
    ({"--model": "lr", "--model-param": "C"}, ("is not key=value",)),
    ({"--seed": "-1"}, ("random_state", "Got -1")),
    ({"--sensitive": "approved"}, ("both --label and --sensitive",)),
    ({"--sensitive": "gender,gender"}, ("repeats an attribute", "Name each once")),
    ({"--label": "outcome"}, ("no column 'outcome' for --label",)),
    ({"--drop": "nosuch"}, ("no column 'nosuch' for --drop",)),
    ({"--summary": "folder.csv"}, ("--summary", "existing folder")),
]


@pytest.mark.parametrize(("change", "fragments"), FIT_CASES, ids=lambda v: str(v)[:60])
def test_filter_fit_cli(files: Path, tmp_path: Path, change, fragments) -> None:
    if "--summary" in change:
        change = {**change, "--summary": str(files / change["--summary"])}
    res = run_cli(*_fit_args(files, tmp_path / "p.json", change))
    assert_cli_error(res, fragments)
    assert not (tmp_path / "p.json").exists()


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--dataset", "germn"], ("Unknown dataset 'germn'", "Did you mean 'german'?")),
        (["--dataset", "german", "--sensitive", "gendr"], ("sensitive attribute", "'gendr'")),
        (["--out", "{files}/afile.txt/p.json"], ("afile.txt is a file",)),
        (["--out", "{files}/folder.csv"], ("existing folder",)),
    ],
)
def test_filter_fit_cli_other(files: Path, tmp_path: Path, args, fragments) -> None:
    filled = [a.format(files=files) for a in args]
    out = [] if "--out" in filled else ["--out", str(tmp_path / "p.json")]
    res = run_cli("filter", "fit", "--dataset", "german", "--sensitive", "sex", *filled, *out)
    assert_cli_error(res, fragments)


@pytest.fixture(scope="module")
def proxies(files: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A qp-tree and an alpha-beta proxy fitted on people.csv, and candidates."""
    root = tmp_path_factory.mktemp("proxies")
    out = {}
    for name in ("qp-tree", "alpha-beta", "naive-regression"):
        out[name] = root / f"{name}.json"
        res = run_cli(*_fit_args(files, out[name], {"--proxy": name}))
        assert res.exit_code == 0, res.output
    pd.read_csv(files / "pool.csv").to_csv(root / "cands.csv", index=False)
    out["cands"] = root / "cands.csv"
    return out


def _edit(edit: Callable[[dict[str, Any]], Any]) -> Callable[[dict[str, Any]], Any]:
    return edit


TAMPER: list[tuple[str, str, Callable[[dict[str, Any]], Any], Fragments]] = [
    ("format", "qp-tree", lambda d: d.update(format="x"), ("not a fairacq proxy file",)),
    ("version", "qp-tree", lambda d: d.update(version=99), ("version 99", "Re-save")),
    ("rule kind", "qp-tree", lambda d: d["rule"].update(kind="forest"), ("'forest'",)),
    (
        "tree feature",
        "qp-tree",
        lambda d: d["rule"].update(feature=[99] * len(d["rule"]["left"])),
        ("tests features outside the 5", "Re-save"),
    ),
    (
        "tree short",
        "qp-tree",
        lambda d: d["rule"].update(left=d["rule"]["left"][:3]),
        ("one entry per node",),
    ),
    (
        "tree cycle",
        "qp-tree",
        lambda d: d["rule"]["left"].__setitem__(0, 0),
        ("children must be later nodes",),
    ),
    (
        "tree thresholds",
        "qp-tree",
        lambda d: d["rule"].update(threshold=["nan"] * len(d["rule"]["left"])),
        ("thresholds",),
    ),
    (
        "tree outputs",
        "qp-tree",
        lambda d: d["rule"].update(outputs=[7] * len(d["rule"]["left"])),
        ("outputs must lie in [0, 2)",),
    ),
    (
        "linear width",
        "naive-regression",
        lambda d: d["rule"].update(coef=[[1.0, 2.0]]),
        ("do not fit 5 features",),
    ),
    (
        "linear inf",
        "naive-regression",
        lambda d: d["rule"].update(intercept=[float("inf")] * len(d["rule"]["intercept"])),
        ("finite",),
    ),
    (
        "randomized leaves",
        "alpha-beta",
        lambda d: d["rule"].update(leaf_index=[-1] * len(d["rule"]["leaf_index"])),
        ("leaves must be the",),
    ),
    (
        "randomized probs",
        "alpha-beta",
        lambda d: d["rule"].update(probs=[[-1.0] * len(p) for p in d["rule"]["probs"]]),
        ("probabilities",),
    ),
    ("rho negative", "qp-tree", lambda d: d.update(rho=[-1, 0.5]), ("rho must hold",)),
    ("rho short", "qp-tree", lambda d: d.update(rho=[0.5]), ("rho needs one entry",)),
    ("rho text", "qp-tree", lambda d: d.update(rho="all"), ("incomplete", "Re-save")),
    ("A", "qp-tree", lambda d: d.update(A=[[1]]), ("A must be a matrix",)),
    (
        "encoder categories",
        "qp-tree",
        lambda d: d["table"]["encoder"]["categories"].update(town=[]),
        ("encoder",),
    ),
    (
        "roles",
        "qp-tree",
        lambda d: d["table"]["columns"].update(sensitive="gender"),
        ("column roles",),
    ),
    (
        "group among features",
        "qp-tree",
        lambda d: d["table"]["columns"].update(sensitive=["town"]),
        ("among the proxy's features",),
    ),
    ("json list", "qp-tree", lambda d: "[1, 2, 3]", ("not a fairacq proxy file",)),
    ("deep nesting", "qp-tree", lambda d: "[" * 3000 + "]" * 3000, ("nests deeper",)),
    ("not json", "qp-tree", lambda d: "{nope", ("not valid JSON",)),
    ("binary", "qp-tree", lambda d: bytes(range(256)), ("not a text file",)),
    ("empty", "qp-tree", lambda d: b"", ("not valid JSON",)),
]


@pytest.mark.parametrize(
    ("name", "source", "edit", "fragments"), TAMPER, ids=[t[0] for t in TAMPER]
)
def test_filter_apply_tampered_proxy(proxies, tmp_path, name, source, edit, fragments) -> None:
    data = json.loads(proxies[source].read_text())
    result = edit(data)
    path = tmp_path / "p.json"
    if isinstance(result, bytes):
        path.write_bytes(result)
    else:
        path.write_text(result if isinstance(result, str) else json.dumps(data))
    res = run_cli("filter", "apply", path, proxies["cands"], "--out", tmp_path / "a.csv")
    assert_cli_error(res, fragments)
    assert not (tmp_path / "a.csv").exists()
    assert_api_error(lambda: load_proxy(path), fragments, CorruptFileError)


APPLY_CASES: list[tuple[list[str], Fragments]] = [
    (["{qp}", "{files}/empty.csv"], ("empty",)),
    (["{qp}", "{files}/binary.csv"], ("not CSV",)),
    (["{qp}", "{files}/truncated.csv.gz"], ("truncated",)),
    (["{qp}", "{files}/inf.csv"], ("infinite",)),
    (["{qp}", "{files}/nan.csv"], ("missing value",)),
    (["{qp}", "{files}/folder.csv"], ("is a directory",)),
    (
        ["{qp}", "{files}/people.csv", "--evaluate", "nope"],
        ("--evaluate names column(s) ['nope']",),
    ),
    (["{qp}", "{files}/people.csv", "--evaluate", "town"], ("not fitted on", "Refit the proxy")),
    (["{qp}", "{files}/people.csv", "--seed", "-1"], ("random_state", "Got -1")),
    (["{files}/folder.csv", "{files}/people.csv"], ("is a folder, not a JSON file",)),
    (["{files}/people.csv", "{files}/people.csv"], ("not valid JSON",)),
    (["{files}/nope.json", "{files}/people.csv"], ("does not exist", "Check the path")),
    (["{qp}", "{files}/people.csv", "--summary", "{files}/folder.csv"], ("existing folder",)),
    (["{qp}", "{files}/people.csv", "--out", "{files}/afile.txt/a.csv"], ("is a file",)),
    (["{qp}"], ("Missing CANDIDATES",)),
]


@pytest.mark.parametrize(("args", "fragments"), APPLY_CASES, ids=lambda v: str(v)[:70])
def test_filter_apply_cli(files, proxies, tmp_path, args, fragments) -> None:
    filled = [a.format(files=files, qp=proxies["qp-tree"]) for a in args]
    out = [] if "--out" in filled else ["--out", str(tmp_path / "a.csv")]
    res = run_cli("filter", "apply", *filled, *out)
    assert_cli_error(res, fragments)


# -- the library -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def toy():
    ds = load_toy(200, random_state=0)
    return ds.to_numpy(), ds.s


def _cols(**change: Any):
    base = {"label": "approved", "sensitive": "gender", "positive": "yes", "drop": ["person"]}
    return columns_from_options(**{**base, **change})


API_CASES: list[tuple[str, Any, type[FairacqError], Fragments]] = [
    ("unknown proxy", lambda t: make_proxy("qp-tre"), UnknownNameError, "Did you mean 'qp-tree'?"),
    ("alpha 2", lambda t: AlphaBetaProxy(alpha=2.0).fit(*t), InvalidParameterError, "'alpha'"),
    ("gamma 0", lambda t: AlphaBetaProxy(gamma=0.0).fit(*t), InvalidParameterError, "'gamma'"),
    (
        "X NaN",
        lambda t: LabelProxy(predictor="tree", weights="qp").fit(
            np.where(t[0] > 1, np.nan, t[0]), t[1]
        ),
        InvalidDataError,
        "NaN",
    ),
    (
        "X inf",
        lambda t: LabelProxy(predictor="tree", weights="qp").fit(
            np.where(t[0] > 1, np.inf, t[0]), t[1]
        ),
        InvalidDataError,
        "inf",
    ),
    (
        "one group",
        lambda t: LabelProxy(predictor="tree", weights="qp").fit(
            t[0], np.zeros(len(t[1]), dtype=int)
        ),
        InvalidDataError,
        "group",
    ),
    (
        "lengths",
        lambda t: LabelProxy(predictor="tree", weights="qp").fit(t[0], t[1][:10]),
        InvalidDataError,
        "lengths",
    ),
    (
        "unfitted proxy",
        lambda t: LabelProxy(predictor="tree", weights="qp").admission_probability(t[0]),
        NotFittedError,
        "fit",
    ),
    (
        "fitted on other width",
        lambda t: (
            LabelProxy(predictor="tree", weights="qp", random_state=0)
            .fit(*t)
            .admission_probability(t[0][:, :2])
        ),
        InvalidDataError,
        "column",
    ),
    (
        "filter unfitted proxy",
        lambda t: BalancedFilter(proxy=LabelProxy(predictor="tree", weights="qp")).fit(
            pd.DataFrame(t[0])
        ),
        FairacqError,
        "fit",
    ),
    (
        "filter seed",
        lambda t: BalancedFilter(
            proxy=LabelProxy(predictor="tree", weights="qp"), random_state=-1
        ).fit(pd.DataFrame(t[0])),
        InvalidParameterError,
        "random_state",
    ),
    (
        "weights bad A",
        lambda t: sampling_weights(np.array([[2.0, -1.0]]), np.array([1.0])),
        FairacqError,
        "A",
    ),
    (
        "weights bad target",
        lambda t: sampling_weights(np.eye(2), np.array([0.5, 0.5]), target=[np.nan, 1.0]),
        FairacqError,
        "target",
    ),
    (
        "weights solver",
        lambda t: sampling_weights(np.eye(2), np.array([0.5, 0.5]), solver="cvx"),
        FairacqError,
        "solver",
    ),
    (
        "fit_proxy name",
        lambda t: fit_proxy(load_toy(100), "alpha-bet"),
        UnknownNameError,
        "Did you mean 'alpha-beta'?",
    ),
    (
        "fit_proxy frame",
        lambda t: fit_proxy(pd.DataFrame(t[0]), "qp-tree"),
        FairacqError,
        "FairDataset",
    ),
    (
        "table proxy roles",
        lambda t: fit_table_proxy(people_frame(), _cols(sensitive="approved")),
        InvalidDataError,
        "both --label and --sensitive",
    ),
    (
        "table proxy NaN",
        lambda t: fit_table_proxy(people_frame().assign(income=np.nan), _cols()),
        InvalidDataError,
        "'income'",
    ),
    (
        "table proxy missing column",
        lambda t: fit_table_proxy(people_frame().drop(columns="gender"), _cols()),
        InvalidDataError,
        "'gender'",
    ),
    (
        "proxy_from_dict None",
        lambda t: proxy_from_dict(None),
        CorruptFileError,  # type: ignore
        "not a fairacq proxy",
    ),
    ("load directory", lambda t: load_proxy(Path(__file__).parent), CorruptFileError, "folder"),
    ("load missing", lambda t: load_proxy("/nonexistent/p.json"), FairacqError, "does not exist"),
]


@pytest.mark.parametrize(
    ("name", "call", "kind", "fragments"), API_CASES, ids=[c[0] for c in API_CASES]
)
def test_filtering_api(toy, name, call, kind, fragments) -> None:
    assert_api_error(lambda: call(toy), fragments, kind)


def test_filter_table_bad_candidates(proxies) -> None:
    proxy = load_proxy(proxies["qp-tree"])
    cands = pd.read_csv(proxies["cands"])
    for frame, fragment in [
        (cands.drop(columns="town"), "'town'"),
        (cands.assign(years="old"), "'years'"),
        (cands.assign(income=np.inf), "infinite"),
        (cands.iloc[:0], "row"),
    ]:
        assert_api_error(lambda f=frame: filter_table(proxy, f), fragment, InvalidDataError)


def test_filter_apply_refuses_a_proxy_linked_to_a_device(files, tmp_path) -> None:
    # a link to /dev/zero would otherwise be read until memory runs out
    link = tmp_path / "proxy.json"
    link.symlink_to("/dev/zero")
    res = run_cli("filter", "apply", link, files / "people.csv", "--out", tmp_path / "a.csv")
    assert_cli_error(res, ("is not a regular file", "Pass the file fairacq wrote"))
    assert not (tmp_path / "a.csv").exists()
