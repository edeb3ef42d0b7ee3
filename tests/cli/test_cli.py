from __future__ import annotations

import json
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from fairacq.cli import app

runner = CliRunner()


def _run(*args: str):
    return runner.invoke(app, list(args))


def test_help_lists_commands():
    res = _run("--help")
    assert res.exit_code == 0
    for cmd in ("datasets", "audit", "reproduce", "demo"):
        assert cmd in res.output
    assert _run("--version").output.startswith("fairacq ")


def test_datasets_list_json():
    res = _run("datasets", "list", "--json")
    assert res.exit_code == 0, res.output
    rows = {r["name"]: r for r in json.loads(res.output)}
    for name in (
        "adult",
        "compas",
        "german",
        "bank-marketing",
        "give-me-some-credit",
        "taiwan-credit",
        "movielens-100k",
        "acs-income",
    ):
        assert name in rows
    assert rows["adult"]["bundled"]
    assert rows["adult"]["available_offline"]
    assert not rows["movielens-100k"]["bundled"]


def test_datasets_list_table_and_info():
    res = _run("datasets", "list")
    assert res.exit_code == 0
    assert "adult" in res.output
    info = _run("datasets", "info", "german", "--json")
    assert json.loads(info.output)["name"] == "german"


def test_unknown_dataset_exit_2():
    res = _run("datasets", "info", "adlt")
    assert res.exit_code == 2
    assert "Did you mean 'adult'" in res.output
    assert len(res.output.strip().splitlines()) == 1


def test_audit_json_equals_fairlearn():
    fairlearn_metrics = pytest.importorskip("fairlearn.metrics")
    res = _run("audit", "--dataset", "adult", "--sensitive", "sex", "--model", "lr", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    from fairacq.data import load_dataset
    from fairacq.models import audit

    report = audit(load_dataset("adult", sensitive="sex"), "lr", random_state=0)
    expected = fairlearn_metrics.demographic_parity_difference(
        report.y_test, report.y_pred, sensitive_features=report.s_test
    )
    assert data["metrics"]["demographic_parity_diff_abs"] == pytest.approx(expected, abs=1e-12)
    assert [g["group"] for g in data["groups"]] == ["Female", "Male"]
    assert np.isclose(sum(g["size"] for g in data["groups"]), data["n_test"])


def test_audit_bad_model_and_table():
    res = _run("audit", "--dataset", "german", "--model", "lrr")
    assert res.exit_code == 2
    assert "Did you mean 'lr'" in res.output
    ok = _run("audit", "--dataset", "german", "--sensitive", "sex")
    assert ok.exit_code == 0
    assert "female" in ok.output
    assert "equal_opportunity_diff" in ok.output


def test_reproduce_list_and_unknown(tmp_path):
    res = _run("reproduce", "--list", "--json")
    assert "demo-datasift" in {e["name"] for e in json.loads(res.output)}
    assert _run("reproduce", "--list").exit_code == 0
    bad = _run("reproduce", "nope", "--out", str(tmp_path))
    assert bad.exit_code == 2
    assert _run("reproduce").exit_code == 2


@pytest.mark.slow
def test_reproduce_set_overrides_config_fields(tmp_path):
    res = _run(
        "reproduce", "filtering-fig1", "--seeds", "1", "--executor", "serial",
        "--set", "alphas=[0.2]", "--set", "max_rows=1500", "--set", "relaxed=true",
        "--out", str(tmp_path),
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    summary = json.loads((tmp_path / "summary.json").read_text())
    config = json.loads((tmp_path / "config.json").read_text())["config"]
    assert config["alphas"] == [0.2]
    assert config["max_rows"] == 1500
    assert summary["meta"]["fairacq_version"]
    assert {r["method"] for r in summary["rows"]} >= {"alpha-beta-relaxed"}
    assert "--set 'alphas=[0.2]' --set max_rows=1500" in (tmp_path / "summary.md").read_text()


def test_reproduce_merge_reports_bad_parts(tmp_path):
    res = _run("reproduce", "dadi-fig2", "--merge", str(tmp_path / "a"), "--merge", str(tmp_path))
    assert res.exit_code == 2, res.output
    assert "not the output of a finished run" in res.output
    res = _run("reproduce", "datasift-fig3", "--merge", str(tmp_path), "--merge", str(tmp_path))
    assert res.exit_code == 2
    assert "cannot be merged" in res.output
    res = _run("reproduce", "dadi-fig2", "--merge", str(tmp_path), "--set", "seed=1")
    assert res.exit_code == 2
    assert "drop --set" in res.output


def test_reproduce_set_rejects_bad_items(tmp_path):
    for item, words in (
        ("no_such_field=1", "no field 'no_such_field'"),
        ("alphas", "FIELD=VALUE"),
        ("=3", "FIELD=VALUE"),
    ):
        res = _run("reproduce", "filtering-fig1", "--set", item, "--out", str(tmp_path))
        assert res.exit_code == 2, res.output
        assert words in res.output
    twice = _run("reproduce", "filtering-fig1", "--set", "seed=1", "--set", "seed=2")
    assert twice.exit_code == 2
    assert "twice" in twice.output


def test_parse_overrides_reads_json_and_plain_strings():
    from fairacq_experiments.cli._reproduce import parse_overrides

    got = parse_overrides(["a=3", "b=0.5", "c=[1,[2,3]]", "d=true", "e=null", "f=gnl1", 'g="x"'])
    assert got == {"a": 3, "b": 0.5, "c": (1, (2, 3)), "d": True, "e": None, "f": "gnl1", "g": "x"}


def test_fetch_restricted_dataset_explains(tmp_path):
    res = _run("datasets", "fetch", "give-me-some-credit", "--data-dir", str(tmp_path))
    assert res.exit_code == 2
    assert "Kaggle" in res.output


def test_acquire_writes_order_trace_plot(tmp_path):
    res = _run(
        "acquire",
        "--dataset",
        "german",
        "--method",
        "datasift-inf",
        "--budget",
        "30%",
        "--batch",
        "25%",
        "--seed",
        "0",
        "--out",
        str(tmp_path),
        "--json",
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.output[res.output.index("{") :])
    assert data["stop_reason"] in {"budget", "tau", "max_evaluations", "exhausted"}
    order = (tmp_path / "acquisition_order.csv").read_text().splitlines()
    assert order[0] == "order,pool_row"
    assert (tmp_path / "trace.parquet").exists()
    assert (tmp_path / "fairness.png").exists()
    assert (tmp_path / "summary.md").exists()


def test_acquire_own_files_with_costs(tmp_path):

    from fairacq.data import load_toy

    ds = load_toy(900, random_state=0)
    frame = ds.to_frame().drop(columns=["sensitive:s"], errors="ignore")
    frame = frame[[*ds.feature_names, "group", "label"]]
    frame.iloc[:150].to_parquet(tmp_path / "train.parquet")
    frame.iloc[150:300].to_parquet(tmp_path / "val.parquet")
    pool = frame.iloc[300:].assign(cost=[1.0, 2.0] * 300)
    pool.to_parquet(tmp_path / "pool.parquet")
    res = _run(
        "acquire",
        "--pool",
        str(tmp_path / "pool.parquet"),
        "--train",
        str(tmp_path / "train.parquet"),
        "--val",
        str(tmp_path / "val.parquet"),
        "--method",
        "random",
        "--budget",
        "100",
        "--batch",
        "20",
        "--cost-column",
        "cost",
        "--out",
        str(tmp_path / "out"),
    )
    assert res.exit_code == 0, res.output
    rows = (tmp_path / "out" / "acquisition_order.csv").read_text().splitlines()[1:]
    chosen = [int(r.split(",")[1]) for r in rows]
    assert sum(pool["cost"].iloc[chosen]) <= 100


def test_acquire_bad_input(tmp_path):
    res = _run("acquire", "--pool", str(tmp_path / "none.parquet"), "--out", str(tmp_path))
    assert res.exit_code == 2
    res = _run(
        "acquire",
        "--dataset",
        "german",
        "--method",
        "datasift-inf",
        "--model",
        "decision_tree",
        "--out",
        str(tmp_path),
    )
    assert res.exit_code == 2
    assert "differentiable" in res.output
    res = _run("acquire", "--dataset", "german", "--budget", "5000", "--out", str(tmp_path))
    assert res.exit_code == 2
    assert "budget" in res.output


def test_sample_command(tmp_path):
    res = _run(
        "sample",
        "--dataset",
        "german",
        "--groups",
        "sex",
        "--method",
        "aopt",
        "--budget",
        "80",
        "--trials",
        "2",
        "--workers",
        "1",
        "--out",
        str(tmp_path),
        "--json",
    )
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output[res.output.index("{") :])["rows"]
    shares = [r["value"] for r in rows if r["metric"].startswith("share_")]
    assert sum(shares) == pytest.approx(1.0)
    assert (tmp_path / "sampling.png").exists()
    assert len(list((tmp_path / "traces").glob("*.parquet"))) == 2


def test_sample_bad_input(tmp_path):
    res = _run("sample", "--dataset", "german", "--groups", "nope", "--out", str(tmp_path))
    assert res.exit_code == 2
    res = _run(
        "sample",
        "--dataset",
        "german",
        "--groups",
        "sex",
        "--method",
        "aoptt",
        "--out",
        str(tmp_path),
    )
    assert res.exit_code == 2
    assert "Did you mean 'aopt'" in res.output


def test_filter_fit_and_apply(tmp_path):
    from fairacq.data import load_dataset

    proxy = tmp_path / "proxy.json"
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
        "--json",
    )
    assert res.exit_code == 0, res.output
    summary = json.loads(res.output[res.output.index("{") :])
    from fairacq.filtering import load_proxy

    assert summary["alpha"] == pytest.approx(load_proxy(proxy).alpha)  # the saved proxy's
    text = proxy.read_text()
    assert json.loads(text)["format"] == "fairacq-proxy"
    # no individual's row is stored: no list in the file is as long as the sample
    n_rows = len(load_dataset("german").X)

    def lengths(obj):
        if isinstance(obj, dict):
            return [n for v in obj.values() for n in lengths(v)]
        if isinstance(obj, list):
            return [len(obj), *(n for item in obj for n in lengths(item))]
        return []

    assert n_rows not in lengths(json.loads(text))
    cands = tmp_path / "cands.parquet"
    load_dataset("german").X.to_parquet(cands)
    out = tmp_path / "admitted.parquet"
    res = _run(
        "filter",
        "apply",
        "--proxy",
        str(proxy),
        "--input",
        str(cands),
        "--out",
        str(out),
        "--seed",
        "0",
    )
    assert res.exit_code == 0, res.output
    assert out.exists()


def test_filter_bad_input(tmp_path):
    res = _run(
        "filter",
        "fit",
        "--dataset",
        "german",
        "--sensitive",
        "sex",
        "--alpha",
        "1.5",
        "--out",
        str(tmp_path / "p.json"),
    )
    assert res.exit_code == 2
    res = _run(
        "filter",
        "fit",
        "--dataset",
        "german",
        "--sensitive",
        "sex",
        "--proxy",
        "qp-tre",
        "--out",
        str(tmp_path / "p.json"),
    )
    assert res.exit_code == 2
    assert "Did you mean 'qp-tree'" in res.output


def test_acquire_accuracy_weight(tmp_path):
    args = ["acquire", "--dataset", "german", "--budget", "30%", "--batch", "25%"]
    ok = _run(*args, "--method", "datasift-inf", "--accuracy-weight", "1", "--out", str(tmp_path))
    assert ok.exit_code == 0, ok.output
    bad = _run(*args, "--method", "random", "--accuracy-weight", "1", "--out", str(tmp_path))
    assert bad.exit_code == 2
    assert "only datasift-inf" in bad.output


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_acquire_partial_refit(tmp_path):
    from fairacq import Trace

    args = ["acquire", "--dataset", "german", "--method", "random", "--model", "mlp"]
    args += ["--budget", "30%", "--batch", "25%", "--out", str(tmp_path)]
    ok = _run(*args, "--refit", "partial")
    assert ok.exit_code == 0, ok.output
    assert Trace.load(tmp_path / "trace").meta["refit_used"] == "partial"
    bad = _run(*args, "--refit", "warm", "--overwrite")  # the folder holds the run above
    assert bad.exit_code == 2
    assert "'refit' parameter" in bad.output


def test_metrics_lists_every_registered_metric():
    import json

    from fairacq.metrics import available

    out = runner.invoke(app, ["metrics", "--json"])
    assert out.exit_code == 0, out.output
    records = json.loads(out.output)
    assert [r["name"] for r in records] == available()
    dp = next(r for r in records if r["name"] == "demographic_parity_diff_abs")
    assert dp["ideal"] == 0.0
    assert dp["needs"] == ["y_pred", "s"]
    table = runner.invoke(app, ["metrics"])
    assert table.exit_code == 0
    assert "equalized_odds_diff" in table.output


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["reproduce", "aopt-fig1", "--quick", "--set", 'n_trials="many"'], "'n_trials' takes"),
        (["reproduce", "aopt-fig1", "--quick", "--set", "n_trials=2.5"], "got float 2.5"),
        (["reproduce", "datasift-fig5", "--quick", "--set", "methods=[1,2]"],
         r"'methods' takes tuple\[str, ...\]"),
        (["reproduce", "aopt-fig1", "--quick", "--workers", "-3"], "workers must be an int >= 1"),
        (["audit", "--dataset", "adult", "--sensitive", "sex", "--test-size", "0"],
         "--test-size must lie strictly between 0 and 1"),
        (["audit", "--dataset", "adult", "--sensitive", "sex", "--test-size", "1.5"],
         "got 1.5"),
    ],
)  # fmt: skip
def test_option_values_of_the_wrong_type_or_range_exit_2_in_one_line(args, match, tmp_path):
    out = runner.invoke(
        app, [*args, "--out", str(tmp_path / "o")] if args[0] == "reproduce" else args
    )
    assert out.exit_code == 2, out.output
    assert re.search(match, out.output)
    assert "Traceback" not in out.output


def test_a_budget_that_is_neither_a_fraction_nor_a_count_exits_2(tmp_path):
    out = runner.invoke(app, ["acquire", "--budget", "1.5", "--out", str(tmp_path / "o")])
    assert out.exit_code == 2
    assert "is not a size" in out.output
    assert "20%" in out.output


@pytest.mark.parametrize("flag", ["--alpha", "--gamma"])
def test_alpha_for_a_proxy_that_ignores_it_exits_2(flag, tmp_path):
    out = runner.invoke(
        app,
        ["filter", "fit", "--dataset", "german", "--sensitive", "sex", "--proxy", "qp-tree",
         flag, "0.05", "--out", str(tmp_path / "p.json")],
    )  # fmt: skip
    assert out.exit_code == 2
    assert f"{flag} applies to the (alpha, beta)-proxy only" in out.output
    assert not (tmp_path / "p.json").exists()
