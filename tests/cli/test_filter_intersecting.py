"""``fairacq filter fit|apply`` with intersecting group classes (paper 003, App. A.2)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from fairacq.cli import app
from fairacq.data import load_dataset
from fairacq.filtering import intersecting_imbalance, load_proxy

runner = CliRunner()

_GROUPS = ["race=African-American", "race=Caucasian", "sex=Female", "sex=Male"]


def _run(*args: str):
    return runner.invoke(app, list(args))


def _json(output: str) -> dict:
    return json.loads(output[output.index("{") :])


@pytest.fixture(scope="module")
def compas_proxy(tmp_path_factory):
    out = tmp_path_factory.mktemp("proxy") / "proxy.json"
    res = _run(
        "filter",
        "fit",
        "--dataset",
        "compas",
        "--sensitive",
        "race,sex",
        "--proxy",
        "qp-tree",
        "--out",
        str(out),
        "--json",
    )
    assert res.exit_code == 0, res.output
    return out, _json(res.output)


@pytest.fixture(scope="module")
def candidates(tmp_path_factory):
    data = load_dataset("compas", sensitive="race")
    frame = data.X
    frame["race"] = data.sensitive["race"].to_numpy()
    frame["sex"] = data.sensitive["sex"].to_numpy()
    path = tmp_path_factory.mktemp("cands") / "cands.parquet"
    frame.to_parquet(path)
    return path, frame


def test_fit_reports_the_classes_groups_and_saves_them(compas_proxy):
    out, summary = compas_proxy
    assert summary["groups"] == _GROUPS
    assert summary["sensitive"] == ["race", "sex"]
    fitted = load_proxy(out)
    assert fitted.classes is not None
    assert fitted.classes.names == ("race", "sex")
    assert list(fitted.groups) == _GROUPS
    # the summary's numbers are the saved proxy's (Definition 16 beta, per-column alpha)
    assert summary["beta"] == pytest.approx(fitted.beta)
    assert summary["alpha"] == pytest.approx(fitted.alpha)
    assert 0.0 <= summary["alpha"] <= 1.0
    # QP tree on the classes: beta in sample far below the unfiltered beta
    data = load_dataset("compas", sensitive="race").with_sensitive("race", "sex")
    before = intersecting_imbalance(data.sensitive[["race", "sex"]])
    assert summary["beta"] < 0.5 * before


def test_fit_text_output_lists_every_group(tmp_path):
    res = _run(
        "filter",
        "fit",
        "--dataset",
        "german",
        "--sensitive",
        "sex, age",
        "--proxy",
        "naive-regression",
        "--out",
        str(tmp_path / "p.json"),
    )
    assert res.exit_code == 0, res.output
    assert "groups (sex x age)" in res.output
    for label in ("sex=female", "sex=male", "age=age < 25", "age=age >= 25"):
        assert label in res.output


def test_alpha_beta_fit_on_classes_is_alpha_disclosive(tmp_path):
    res = _run(
        "filter",
        "fit",
        "--dataset",
        "german",
        "--sensitive",
        "sex,age",
        "--proxy",
        "alpha-beta",
        "--alpha",
        "0.1",
        "--out",
        str(tmp_path / "p.json"),
        "--json",
    )
    assert res.exit_code == 0, res.output
    summary = _json(res.output)
    assert summary["alpha"] <= 0.1 + 1e-9
    assert load_proxy(tmp_path / "p.json").alpha == pytest.approx(summary["alpha"])


def test_apply_shows_per_class_shares_and_beta(compas_proxy, candidates, tmp_path):
    proxy, _ = compas_proxy
    path, frame = candidates
    out = tmp_path / "admitted.parquet"
    args = ["filter", "apply", "--proxy", str(proxy), "--input", str(path), "--out", str(out)]
    res = _run(*args, "--evaluate", "race,sex", "--json")
    assert res.exit_code == 0, res.output
    row = _json(res.output)
    admitted = pd.read_parquet(out)
    assert row["n_admitted"] == len(admitted) > 0
    assert row["n_seen"] == len(frame)
    for g in _GROUPS:
        cls, name = g.split("=", 1)
        assert row[f"share_seen_{g}"] == pytest.approx(np.mean(frame[cls] == name))
        assert row[f"share_admitted_{g}"] == pytest.approx(np.mean(admitted[cls] == name))
    shares = np.array([row[f"share_admitted_{g}"] for g in _GROUPS])
    seen = np.array([row[f"share_seen_{g}"] for g in _GROUPS])
    assert shares[:2].sum() == pytest.approx(1.0)  # each class sums to 1
    assert shares[2:].sum() == pytest.approx(1.0)
    assert row["beta_admitted"] == pytest.approx(np.linalg.norm(shares - 0.5))
    # in sample, the QP tree balances the admitted set (beta 0 in expectation)
    assert row["beta_admitted"] < 0.5 * np.linalg.norm(seen - 0.5)
    # the same seed admits the same rows; the text output names every group
    res = _run(*args, "--evaluate", "race,sex", "--seed", "0")
    assert res.exit_code == 0, res.output
    assert f"admitted {len(admitted)} of {len(frame)}" in res.output
    assert all(g in res.output for g in _GROUPS)
    assert "beta of the admitted set" in res.output
    # without --evaluate the filter runs blind, as before
    res = _run(*args, "--json")
    assert res.exit_code == 0, res.output
    assert not any(k.startswith("share_") for k in _json(res.output))


def test_apply_disjoint_proxy_evaluates_one_column_by_group_name(tmp_path):
    proxy = tmp_path / "p.json"
    res = _run(
        "filter",
        "fit",
        "--dataset",
        "german",
        "--sensitive",
        "sex",
        "--proxy",
        "qp-tree",
        "--out",
        str(proxy),
    )
    assert res.exit_code == 0, res.output
    data = load_dataset("german", sensitive="sex")
    frame = data.X.assign(sex=data.sensitive["sex"].to_numpy())  # the groups' real names
    cands = tmp_path / "c.csv"
    frame.to_csv(cands, index=False)
    out = tmp_path / "a.csv"
    res = _run(
        "filter",
        "apply",
        "--proxy",
        str(proxy),
        "--input",
        str(cands),
        "--out",
        str(out),
        "--evaluate",
        "sex",
        "--json",
    )
    assert res.exit_code == 0, res.output
    row = json.loads(res.stdout)
    assert row["share_seen_female"] + row["share_seen_male"] == pytest.approx(1.0)
    assert row["groups"]["female"]["seen"] == int((frame["sex"] == "female").sum())
    assert "beta_admitted" in row


@pytest.mark.parametrize(
    ("sensitive", "fragment"),
    [("race,,sex", "separated by commas"), ("race,race", "repeats"), ("race,colour", "colour")],
)
def test_fit_bad_sensitive(tmp_path, sensitive, fragment):
    res = _run(
        "filter",
        "fit",
        "--dataset",
        "compas",
        "--sensitive",
        sensitive,
        "--out",
        str(tmp_path / "p.json"),
    )
    assert res.exit_code == 2
    assert fragment in res.output
    assert not (tmp_path / "p.json").exists()


@pytest.mark.parametrize(
    ("evaluate", "fragment"), [("race,gender", "lacks"), ("race", "one column per class")]
)
def test_apply_bad_evaluate(compas_proxy, candidates, tmp_path, evaluate, fragment):
    proxy, _ = compas_proxy
    path, _ = candidates
    out = tmp_path / "a.parquet"
    res = _run(
        "filter",
        "apply",
        "--proxy",
        str(proxy),
        "--input",
        str(path),
        "--out",
        str(out),
        "--evaluate",
        evaluate,
    )
    assert res.exit_code == 2
    assert fragment in res.output
    assert not out.exists()
