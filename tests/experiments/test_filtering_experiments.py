"""Paper 003 experiments (quick): every proxy is measured in and out of sample."""

from __future__ import annotations

import pytest

from fairacq_experiments import run_experiment


@pytest.mark.slow
def test_filtering_quick(tmp_path):
    res = run_experiment(
        "filtering-fig1",
        preset="quick",
        out_dir=tmp_path,
        n_trials=1,
        alphas=(0.2, 0.9),
        max_rows=4000,
    )
    methods = {r["method"] for r in res.rows}
    assert {r["metric"] for r in res.rows} >= {"alpha_in", "alpha_out", "beta_in", "beta_out"}
    assert methods == {"naive-regression", "qp-regression", "naive-tree", "qp-tree", "alpha-beta"}
    for r in res.rows:
        if r["method"] == "alpha-beta" and r["metric"] == "alpha_in":
            assert r["value"] <= r["alpha"] + 1e-9  # the proxy is alpha-disclosive
        if r["metric"] in ("acceptance", "alpha_out"):
            assert 0 <= r["value"] <= 1
    assert (tmp_path / "filtering-fig1.png").exists()


@pytest.mark.slow
def test_fig2_variants_raw_regressions_and_finer_gamma(tmp_path):
    res = run_experiment(
        "filtering-fig2",
        preset="quick",
        out_dir=tmp_path,
        n_trials=1,
        alphas=(0.5, 0.9),
        max_rows=6000,
        raw_regression=True,
        fine_gamma=0.02,
    )

    def value(method, metric, alpha=None):
        return res.value(method=method, metric=metric, alpha=alpha)

    # scikit-learn's raw fit predicts White for (nearly) everyone: beta stays above 0.7,
    # as the paper's regression curves do, while the standardised fit goes lower
    for name in ("naive-regression", "qp-regression"):
        assert value(f"{name}-raw", "beta_in") > 0.7
        assert value(name, "beta_in") < value(f"{name}-raw", "beta_in")
    # a finer progress factor only adds splits after gamma = 0.1 stops: never worse in sample
    for alpha in (0.5, 0.9):
        assert value("alpha-beta-fine", "alpha_in", alpha) <= alpha + 1e-9
        fine, coarse = (value(m, "beta_in", alpha) for m in ("alpha-beta-fine", "alpha-beta"))
        assert fine <= coarse + 1e-12
    assert value("alpha-beta-fine", "beta_in", 0.9) < 0.1  # the paper's high-alpha end
    # the findings' numbers: the raw fit keeps both proxies above the paper's 0.7 floor
    raw = res.meta["regression_floor"]["regression-raw"]
    assert raw["beta_in"] == [
        value("naive-regression-raw", "beta_in"),
        value("qp-regression-raw", "beta_in"),
    ]
    assert raw["reproduced"] == (min(raw["beta_in"]) > 0.7 and min(raw["beta_out"]) > 0.65)
    # beta_in at alpha 0.9 is under 0.1 (above); at 0.5 it may be too: the first is the smaller
    first = 0.5 if value("alpha-beta-fine", "beta_in", 0.5) < 0.1 else 0.9
    assert res.meta["fine_gamma"] == {"gamma": 0.02, "first_alpha_beta_in_below_0.1": first}


def test_full_figure_presets_add_the_documented_variants():
    from fairacq_experiments.filtering import Fig2Config

    full, quick = Fig2Config.full(), Fig2Config.quick()
    assert full.raw_regression
    assert full.fine_gamma == 0.02
    assert full.gamma == 0.1
    assert not quick.raw_regression
    assert quick.fine_gamma is None


def _values(res, metric, alpha):
    return [r["value"] for r in res.rows if r["metric"] == metric and r["alpha"] == alpha]


@pytest.mark.slow
def test_group_shares_quick_move_towards_uniform(tmp_path):
    res = run_experiment(
        "filtering-fig3", preset="quick", out_dir=tmp_path, n_trials=1, max_rows=4000
    )
    for alpha in (0.0, 0.1, 0.2):
        for where in ("before", "in_sample", "out_of_sample"):
            assert sum(_values(res, f"share_{where}", alpha)) == pytest.approx(1.0)
    # alpha = 0 admits everyone alike: shares unchanged; alpha = 0.2 lifts the rarest group
    assert _values(res, "share_in_sample", 0.0) == pytest.approx(_values(res, "share_before", 0.0))
    before = _values(res, "share_before", 0.2)
    rarest = before.index(min(before))
    assert _values(res, "share_in_sample", 0.2)[rarest] > 2 * before[rarest]
    assert (tmp_path / "filtering-fig3.png").exists()


@pytest.mark.slow
def test_heatmaps_quick_grow_leaves_with_alpha(tmp_path):
    res = run_experiment("filtering-fig4", preset="quick", out_dir=tmp_path, max_rows=4000)
    leaves = [_values(res, "n_leaves", a)[0] for a in (0.0, 0.1, 0.3)]
    assert leaves[0] == 1  # alpha = 0 cannot split: the matrix is the base rates
    assert leaves[-1] > 1
    assert (tmp_path / "filtering-fig4.png").exists()
