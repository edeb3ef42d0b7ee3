"""Paper 003 experiments (quick): every proxy is measured in and out of sample."""

from __future__ import annotations

import pytest

from fairacq.experiments import run_experiment


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
