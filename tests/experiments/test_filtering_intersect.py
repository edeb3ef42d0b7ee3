"""Paper 003 App. A.2 experiment (quick) and the relaxed proxy's rows in Figs. 1-2."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fairacq.exceptions import InvalidParameterError
from fairacq_experiments import run_experiment
from fairacq_experiments.filtering import Fig2Config, FilteringConfig
from fairacq_experiments.filtering.intersect import IntersectConfig

_METHODS = {
    "naive-regression",
    "qp-regression",
    "naive-tree",
    "qp-tree",
    "alpha-beta",
    "alpha-beta-relaxed",
}


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("intersect")
    res = run_experiment(
        "filtering-intersect",
        preset="quick",
        out_dir=out,
        n_trials=1,
        alphas=(0.2, 0.9),
        max_rows=4000,
    )
    return res, out


@pytest.mark.slow
def test_intersect_quick_rows_and_outputs(quick):
    res, out = quick
    assert {r["method"] for r in res.rows} == _METHODS
    assert all(r["paper_value"] is None for r in res.rows)  # the paper has no numbers here
    for r in res.rows:
        if r["metric"].startswith(("alpha", "acceptance", "min_share")):
            assert 0.0 <= r["value"] <= 1.0, r
    relaxed = {r["metric"] for r in res.rows if r["method"] == "alpha-beta-relaxed"}
    assert "hull_distance_in" in relaxed
    assert "hull_distance_in" not in {r["metric"] for r in res.rows if r["method"] == "qp-tree"}
    assert (out / "filtering-intersect.png").exists()
    written = json.loads((out / "summary.json").read_text())["rows"]
    assert len(written) == len(res.rows)
    assert all(r["paper_value"] is None for r in written)


@pytest.mark.slow
def test_intersect_quick_directions(quick):
    res, _ = quick

    def value(method, metric, alpha=None):
        return res.value(method=method, metric=metric, alpha=alpha)

    before = value("qp-tree", "beta_before_in")
    assert before > 0.7  # Adult race x sex is far from U_intersect (our full data: 0.78)
    # the QP tree learns the classes' cells: balanced in sample, less so on fresh candidates
    assert value("qp-tree", "beta_in") < 0.1 < before - 0.1
    assert value("qp-tree", "beta_in") < value("qp-tree", "beta_out") < before
    for method in ("alpha-beta", "alpha-beta-relaxed"):
        for alpha in (0.2, 0.9):
            # alpha-disclosive in sample on every membership column
            assert value(method, "alpha_in", alpha) <= alpha + 1e-9
            # the relaxed tree's cone distance is a lower bound on the true beta
            if method == "alpha-beta-relaxed":
                cone = value(method, "hull_distance_in", alpha)
                assert cone <= value(method, "beta_in", alpha) + 1e-9
    # a looser budget buys balance in sample; filtering beats no filtering out of sample
    assert value("alpha-beta", "beta_in", 0.9) < value("alpha-beta", "beta_in", 0.2) < before
    for alpha in (0.2, 0.9):
        assert value("alpha-beta", "beta_out", alpha) < value("qp-tree", "beta_before_out")
    # the least represented class-group (race=Other) gains among the admitted
    rarest = value("qp-tree", "min_share_before")
    assert value("qp-tree", "min_share_after") > 2 * rarest
    assert value("alpha-beta", "min_share_after", 0.2) > rarest


def test_intersect_config_needs_two_classes():
    assert IntersectConfig.full().n_trials == 20
    assert len(IntersectConfig.full().alphas) == 21
    assert IntersectConfig.quick().relaxed
    with pytest.raises(InvalidParameterError, match="at least two distinct"):
        IntersectConfig.quick(sensitive="race")
    with pytest.raises(InvalidParameterError, match="at least two distinct"):
        IntersectConfig.quick(sensitive="race,race")


def test_relaxed_rows_only_in_full_figure_presets():
    for cls in (FilteringConfig, Fig2Config):
        assert cls.full().relaxed
        assert not cls.quick().relaxed


@pytest.mark.slow
def test_relaxed_rows_leave_figure_rows_unchanged():
    kwargs = {"preset": "quick", "n_trials": 2, "alphas": (0.2,), "max_rows": 2000}
    plain = run_experiment("filtering-fig1", relaxed=False, **kwargs)
    both = run_experiment("filtering-fig1", relaxed=True, **kwargs)
    assert both.rows[: len(plain.rows)] == plain.rows
    assert both.notes[: len(plain.notes)] == plain.notes
    extra = both.rows[len(plain.rows) :]
    assert {r["method"] for r in extra} == {"alpha-beta-relaxed"}
    got = {r["metric"]: r["value"] for r in extra}
    assert got["hull_distance_in"] <= got["beta_in"] + 1e-9
    assert np.isfinite(list(got.values())).all()
