"""``fairacq sample --data``: a user's own table, its own column names, string columns."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from fairacq.cli import app

runner = CliRunner()


def _run(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def _table(n: int = 240, tiny: int = 0, seed: int = 0) -> pd.DataFrame:
    """Applicants: a numeric and a string feature, two string group columns, string labels."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "applicant_id": [f"a{i}" for i in range(n)],
            "years_experience": rng.normal(5, 2, n).round(1),
            "degree": rng.choice(["none", "bachelor", "master"], n),
            "gender": rng.choice(["woman", "man"], n, p=[0.4, 0.6]),
            "city": rng.choice(["Lyon", "Paris"], n),
        }
    )
    score = (frame["years_experience"] - 5) * np.where(frame["gender"] == "woman", -1, 1)
    frame["decision"] = np.where(score + rng.normal(0, 1, n) > 0, "offer", "decline")
    if tiny:
        extra = frame.head(tiny).copy()
        extra["gender"] = "nonbinary"
        extra["decision"] = ["offer", "decline"] * (tiny // 2)
        frame = pd.concat([frame, extra], ignore_index=True)
    return frame


@pytest.fixture(scope="module")
def table_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sample") / "applicants.csv"
    _table().to_csv(path, index=False)
    return path


BASE = ("--label", "decision", "--positive", "offer", "--drop", "applicant_id")
FAST = ("--trials", "2", "--workers", "1")


@pytest.fixture(scope="module")
def json_run(table_csv: Path, tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("run") / "out"
    res = _run(
        "sample", "--data", table_csv, *BASE, "--sensitive", "gender,city",
        "--budget", "20%", *FAST, "--out", out, "--json",
    )  # fmt: skip
    return res, out


def test_json_holds_counts_per_group_and_nothing_else_on_stdout(json_run) -> None:
    res, out = json_run
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)  # the whole of stdout is the JSON document
    assert summary == json.loads((out / "summary.json").read_text())
    counts = summary["counts"]
    assert counts["budget"] == 48  # 20 % of 240 rows
    assert counts["method"] == "aopt"
    assert counts["baseline"] == "uniform"
    groups = {g["group"]: g for g in counts["groups"]}
    assert set(groups) == {"man & Lyon", "man & Paris", "woman & Lyon", "woman & Paris"}
    for method in ("aopt", "uniform"):
        per_trial = np.array([groups[g][method]["samples_per_trial"] for g in groups])
        assert per_trial.shape == (4, 2)
        assert (per_trial.sum(axis=0) == 48).all()  # every trial spends the budget
        mean = sum(groups[g][method]["samples_mean"] for g in groups)
        assert mean == pytest.approx(48)
    assert set(summary["counts"]["worst_group_accuracy"]) == {"aopt", "uniform"}
    assert summary["warnings"] == []
    assert summary["settings"]["groups"] == ["gender", "city"]
    shares = [r["value"] for r in summary["rows"] if r["metric"].startswith("share_")]
    assert sum(shares) == pytest.approx(1.0)


def test_writes_counts_csv_summary_and_figure(json_run) -> None:
    res, out = json_run
    assert res.exit_code == 0, res.output
    counts = pd.read_csv(out / "counts.csv", dtype={"trial": str})
    assert list(counts.columns) == [
        "method", "trial", "group", "samples", "low", "high", "train", "validation",
    ]  # fmt: skip
    top = counts[counts["trial"] == "recommended"]
    assert len(top) == 8  # 2 methods x 4 groups
    assert top.groupby("method")["samples"].sum().to_dict() == {"aopt": 48, "uniform": 48}
    summary = json.loads((out / "summary.json").read_text())
    for group in summary["counts"]["groups"]:
        row = top[(top["method"] == "aopt") & (top["group"] == group["group"])].iloc[0]
        assert row["samples"] == group["aopt"]["recommended"]
        assert [row["low"], row["high"]] == group["aopt"]["interval"]
    trials = counts[counts["trial"] != "recommended"]
    assert sorted(set(trials["trial"])) == ["0", "1"]
    assert (trials["samples"] == trials["train"] + trials["validation"]).all()
    assert (out / "sampling.png").stat().st_size > 0
    assert "Recommended samples per group" in (out / "summary.md").read_text()
    assert len(list((out / "traces").glob("aopt-trial*.parquet"))) == 2
    assert len(list((out / "traces" / "baseline").glob("uniform-trial*.parquet"))) == 2


def test_people_table_warning_and_deprecated_groups(tmp_path: Path) -> None:
    path = tmp_path / "small.csv"
    _table(n=80, tiny=12).to_csv(path, index=False)
    res = _run(
        "sample", "--data", path, *BASE, "--groups", "gender", "--budget", "12",
        "--model", "sklearn.tree:DecisionTreeClassifier", "--model-param", "max_depth=2",
        *FAST, "--out", tmp_path / "out",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "Traceback" not in res.output
    err = res.stderr.strip().splitlines()
    assert err[0] == "note: --groups is deprecated; use --sensitive."
    assert any(line.startswith("warning: group 'nonbinary' has only 12 rows") for line in err), err
    assert "nonbinary" in res.stdout
    assert "uniform" in res.stdout
    assert "Worst-group test accuracy" in res.stdout
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert any("'nonbinary' has only 12 rows" in w for w in summary["warnings"])
    assert summary["settings"]["model"] == "sklearn.tree:DecisionTreeClassifier"


def test_no_baseline(table_csv: Path, tmp_path: Path) -> None:
    res = _run(
        "sample", "--data", table_csv, *BASE, "--sensitive", "gender", "--budget", "10",
        "--no-baseline", *FAST, "--out", tmp_path, "--json",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    counts = json.loads(res.stdout)["counts"]
    assert counts["baseline"] is None
    assert set(counts["groups"][0]) == {"group", "rows", "aopt"}
    assert not (tmp_path / "traces" / "baseline").exists()


def _one_line_error(res, *fragments: str) -> None:
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1, res.output
    assert lines[0].startswith("error: ")
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (("--sensitive", "sex"), ("no column 'sex' for --sensitive",)),
        (("--sensitive", "gender", "--positive", "hired"), ("--positive 'hired'",)),
        (("--sensitive", "gender", "--budget", "500"), ("budget 500 is larger", "--budget 168")),
        (("--sensitive", "gender", "--budget", "0.2"), ("'0.2'", "200", "20%")),
        (("--sensitive", "gender", "--budget", "80%"), ("larger", "70%")),
        (("--sensitive", "gender", "--model", "sklearn.linear_model:Nope"), ("has no 'Nope'",)),
        (("--sensitive", "gender", "--model", "no_such_module_x:Model"), ("Cannot import",)),
        (("--sensitive", "gender", "--model", "lrr", "--budget", "10"), ("Did you mean 'lr'",)),
    ],
)
def test_bad_inputs_exit_2_with_one_line(
    table_csv: Path, tmp_path: Path, args: tuple[str, ...], fragments: tuple[str, ...]
) -> None:
    base = [a for a in BASE if a not in ("--positive", "offer")]
    positive = () if "--positive" in args else ("--positive", "offer")
    res = _run("sample", "--data", table_csv, *base, *positive, *args, *FAST, "--out", tmp_path)
    _one_line_error(res, *fragments)


def test_label_with_many_values_needs_positive(table_csv: Path, tmp_path: Path) -> None:
    res = _run(
        "sample", "--data", table_csv, "--label", "degree", "--sensitive", "gender",
        "--drop", "applicant_id,decision", *FAST, "--out", tmp_path,
    )  # fmt: skip
    _one_line_error(res, "label column 'degree'", "--positive")


def test_missing_options_and_mixed_sources(table_csv: Path, tmp_path: Path) -> None:
    _one_line_error(
        _run("sample", "--data", table_csv, *BASE, *FAST, "--out", tmp_path), "--sensitive"
    )
    _one_line_error(
        _run("sample", "--data", table_csv, "--sensitive", "gender", "--out", tmp_path),
        "--label",
    )
    _one_line_error(
        _run("sample", "--dataset", "german", "--label", "y", "--out", tmp_path), "--data"
    )
    both = ("--sensitive", "gender", "--groups", "city")
    _one_line_error(
        _run("sample", "--data", table_csv, *BASE, *both, "--out", tmp_path), "--groups"
    )


def test_group_running_out_is_said_and_its_rounds_go_elsewhere(tmp_path: Path) -> None:
    path = tmp_path / "small.csv"
    _table(n=100, tiny=10).to_csv(path, index=False)
    res = _run(
        "sample", "--data", path, *BASE, "--sensitive", "gender", "--method", "uniform",
        "--budget", "60", *FAST, "--out", tmp_path / "out", "--json",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "The pool ran out of group(s) 'nonbinary'" in res.stderr
    summary = json.loads(res.stdout)
    assert any("ran out of group(s) 'nonbinary'" in w for w in summary["warnings"])
    groups = {g["group"]: g for g in summary["counts"]["groups"]}
    assert groups["nonbinary"]["uniform"]["samples_per_trial"] == [6, 6]  # all it had


def _fake_trace(accs: list[float], shares: list[float]):
    from fairacq._trace import TraceRecorder

    rec = TraceRecorder(method="aopt", config={}, validation="paired")
    for i, (acc, share) in enumerate(zip(accs, shares, strict=True)):
        n_a = round(10 * share)
        rec.record(
            cost=2.0 * (i + 1), test_worst_acc=acc, test_acc_a=acc, test_acc_b=acc,
            pi_a=share, pi_b=1 - share, n_a=n_a, n_b=10 - n_a,
        )  # fmt: skip
    return rec.finish()


def test_figure_bands_lie_in_unit_interval(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    import fairacq.reporting
    from fairacq.cli.sample import _sample_report
    from fairacq.sampling import AllocationResult

    # Trials far apart near 1 and 0: mean +- std would leave [0, 1] unclipped.
    traces = [
        _fake_trace([1.0, 1.0, 0.98], [1.0, 0.9, 0.05]),
        _fake_trace([1.0, 0.99, 0.97], [1.0, 0.95, 0.0]),
        _fake_trace([0.4, 0.5, 0.6], [0.2, 0.1, 0.6]),
    ]
    result = AllocationResult(
        method="aopt", budget=6, groups=["a", "b"], available={"a": 40, "b": 40},
        traces=traces, baseline="uniform", baseline_traces=traces[::-1],
    )  # fmt: skip
    figures = []
    monkeypatch.setattr(
        fairacq.reporting, "save_figure", lambda fig, path: figures.append(fig) or path
    )
    _sample_report._figure(result, tmp_path / "sampling.png")
    (fig,) = figures
    bands = [c for ax in fig.axes for c in ax.collections]
    assert len(bands) == 2 + 2  # method and baseline; two groups' shares
    for band in bands:
        y = np.concatenate([p.vertices[:, 1] for p in band.get_paths()])
        assert y.min() >= 0.0
        assert y.max() <= 1.0
    assert max(np.concatenate([p.vertices[:, 1] for p in bands[0].get_paths()])) == 1.0


def test_cross_validation_trains_on_every_sample(table_csv: Path, tmp_path: Path) -> None:
    res = _run(
        "sample", "--data", table_csv, *BASE, "--sensitive", "gender", "--budget", "40",
        "--validation", "cross", "--method", "epsilon-greedy", *FAST, "--out", tmp_path,
        "--json",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["settings"]["validation"] == "cross"
    counts = pd.read_csv(tmp_path / "counts.csv", dtype={"trial": str})
    counts = counts[counts["trial"] != "recommended"]
    assert (counts["validation"] == 0).all()
    assert (counts["samples"] == counts["train"]).all()
    assert "training draws only" in (tmp_path / "summary.md").read_text()
    res = _run(
        "sample", "--data", table_csv, *BASE, "--sensitive", "gender", "--budget", "40",
        "--validation", "cross", *FAST, "--no-baseline", "--out", tmp_path / "t",
    )  # fmt: skip
    assert "Recommended samples per group (training draws):" in res.stdout
    assert "--validation cross: every sample trains" in res.stdout


def test_prints_one_count_per_group_and_a_verdict(table_csv: Path, tmp_path: Path) -> None:
    res = _run(
        "sample", "--data", table_csv, *BASE, "--sensitive", "gender", "--budget", "40",
        "--trials", "3", "--workers", "1", "--out", tmp_path,
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    out = " ".join(res.stdout.split())  # the terminal wraps long lines
    assert "Recommended samples per group (training + validation draws): the median" in out
    assert "aopt minus Uniform, worst-group test accuracy: " in out
    assert "paired by trial, 3 trials" in out
    summary = json.loads((tmp_path / "summary.json").read_text())
    verdict = summary["counts"]["verdict"]
    assert verdict["paired"] is True
    assert verdict["verdict"] in out
    assert verdict["verdict"] in (
        "beats Uniform", "worse than Uniform", "no better than Uniform within the trials' spread"
    )  # fmt: skip
    assert verdict["text"] in (tmp_path / "summary.md").read_text()
    assert "--validation paired: each group's loss is measured on fresh draws" in out
    recommended = [g["aopt"]["recommended"] for g in summary["counts"]["groups"]]
    assert sum(recommended) == 40
    for g in summary["counts"]["groups"]:
        low, high = g["aopt"]["interval"]
        assert f"{g['aopt']['recommended']} ({low}-{high})" in out or low == high


def test_constant_model_is_a_warning_kept_in_the_summary(table_csv: Path, tmp_path: Path):
    res = _run(
        "sample", "--data", table_csv, *BASE, "--sensitive", "gender", "--budget", "40",
        "--model", "sklearn.dummy:DummyClassifier", *FAST, "--out", tmp_path, "--json",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    warned = [line for line in res.stderr.splitlines() if "for every one of the test" in line]
    assert len(warned) == 2, res.stderr  # the sampler's model and Uniform's
    assert warned[0].startswith("warning: aopt, in 2 of 2 trial(s): the model predicts")
    summary = json.loads(res.stdout)
    assert sum("for every one of the test rows" in w for w in summary["warnings"]) == 2
    assert "fair" not in summary["counts"]["verdict"]["verdict"]


@pytest.mark.parametrize(
    ("diffs", "expected"),
    [
        ([0.10, 0.11, 0.12], "here it does."),
        ([-0.10, -0.11, -0.12], "collect Uniform's equal counts instead"),
        ([0.05, -0.04, 0.01], "made no difference beyond the trials' spread"),
        ([0.05], "that is not known"),
    ],
)
def test_mode_note_says_whether_to_follow_the_counts(diffs, expected) -> None:
    from fairacq.cli.sample._sample_report import mode_note
    from fairacq.sampling import compare_to_baseline

    verdict = compare_to_baseline(np.add(0.7, diffs), np.full(len(diffs), 0.7), paired=True)
    for validation in ("paired", "cross"):
        note = mode_note(validation, verdict)
        assert note.startswith(f"--validation {validation}: ")
        assert expected in note
    assert "not known" in mode_note("paired", None)
