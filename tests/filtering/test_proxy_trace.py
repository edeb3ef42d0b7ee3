"""The trace a proxy's fit leaves in ``trace_``, its ``callbacks`` and ``continue_from``."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from fairacq import CheckpointCallback, Trace, TraceRecorder
from fairacq.exceptions import InvalidDataError, InvalidParameterError
from fairacq.filtering import AlphaBetaProxy, LabelProxy, UnreachableTargetWarning
from fairacq.filtering.proxies._estimator import EstimatorRule
from fairacq.filtering.proxies._proxies import features_read
from fairacq.filtering.proxies._rules import LinearRule, RandomizedTreeRule, TreeRule


def _sample(n: int = 300) -> tuple[pd.DataFrame, np.ndarray]:
    """Two groups told apart by ``a`` only; ``noise`` carries nothing."""
    rng = np.random.default_rng(0)
    s = rng.choice(np.array(["f", "m"]), size=n, p=[0.7, 0.3])
    a = (s == "m") * 2.0 + rng.normal(size=n)
    return pd.DataFrame({"a": a, "noise": rng.normal(size=n)}), s


@pytest.mark.parametrize(
    "proxy",
    [
        LabelProxy(),
        LabelProxy(weights="qp"),
        LabelProxy(predictor="tree", max_depth=1, random_state=3),
        LabelProxy(predictor="tree", weights="qp", max_depth=1, random_state=3),
    ],
    ids=["naive-regression", "qp-regression", "naive-tree", "qp-tree"],
)
def test_label_proxy_trace_row_holds_the_fitted_values(proxy: LabelProxy) -> None:
    X, s = _sample()
    proxy.fit(X, s)
    trace = proxy.trace_
    assert isinstance(trace, Trace)
    assert len(trace) == 1
    row = trace.to_frame().iloc[0]
    assert trace.method == proxy.fitted_.method
    assert (row["cost"], row["n_rows"], row["n_values"]) == (300.0, 300, 2)
    assert row["alpha"] == proxy.alpha_
    assert row["beta"] == proxy.beta_
    assert row["acceptance_rate"] == proxy.fitted_.acceptance_rate
    assert row["acceptance_rate"] == pytest.approx(float(proxy.proxy_marginal_ @ proxy.rho_))
    # A depth-1 tree splits on the informative column only; the regression reads both.
    assert row["features"] == ("a" if proxy.predictor == "tree" else "a,noise")
    meta = trace.meta
    assert meta["stop_reason"] == "fitted"
    assert meta["seed"] == proxy.random_state
    assert meta["config"]["weights"] == proxy.weights


def _grow(**fit: Any) -> AlphaBetaProxy:
    X, s = _sample()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnreachableTargetWarning)
        return AlphaBetaProxy(alpha=0.15, gamma=0.01, max_iter=5, tol=0.002).fit(X, s, **fit)


def test_alpha_beta_proxy_records_the_root_then_one_row_per_split() -> None:
    proxy = _grow()
    frame = proxy.trace_.to_frame()
    assert len(frame) >= 3
    assert frame["n_values"].tolist() == list(range(1, len(frame) + 1))
    root, last = frame.iloc[0], frame.iloc[-1]
    assert (root["leaf"], root["iterations"], root["alpha"]) == (-1, 0, 0.0)
    assert np.isnan(root["duality_gap"])
    assert (frame["cost"] == 300.0).all()
    assert (frame["iterations"].iloc[1:] == 5).all()
    # Each split brings the hull closer by the factor 1 - gamma at least.
    distances = frame["hull_distance"].to_numpy()
    assert (distances[1:] <= 0.99 * distances[:-1]).all()
    # The last row is the fitted proxy.
    assert last["alpha"] == proxy.alpha_ <= 0.15 + 1e-12
    assert last["beta"] == proxy.beta_
    assert last["hull_distance"] == proxy.hull_distance_
    assert last["acceptance_rate"] == proxy.fitted_.acceptance_rate
    assert last["n_values"] == len(proxy.rho_)
    assert last["features"] == "a,noise"  # linear splits weigh every feature
    meta = proxy.trace_.meta
    assert (meta["stop_reason"], meta["seed"]) == (proxy.stop_reason_, 0)
    assert meta["config"]["alpha"] == 0.15


def test_a_callback_stops_the_growth_with_the_tree_so_far() -> None:
    full = _grow()
    stopped = _grow(callbacks=[lambda recorder: recorder.n_steps < 2])
    assert stopped.stop_reason_ == "callback"
    assert len(stopped.trace_) == 2
    assert len(stopped.rho_) == 2  # the root and one split: two leaves
    pd.testing.assert_frame_equal(
        stopped.trace_.to_frame(), full.trace_.to_frame().iloc[:2], check_dtype=False
    )
    assert stopped.alpha_ == full.trace_.to_frame()["alpha"].iloc[1]


def test_growth_resumes_only_on_its_own_sample(tmp_path: Path) -> None:
    folder = tmp_path / "ck"
    _grow(callbacks=[CheckpointCallback(folder, every=1), lambda r: r.n_steps < 2])
    assert {"leaves.npy", "tree.json"} <= {p.name for p in folder.iterdir()}
    X, s = _sample()
    with pytest.raises(InvalidDataError, match="another labelled sample"):
        AlphaBetaProxy(alpha=0.15, gamma=0.01, max_iter=5, tol=0.002).fit(
            X.iloc[::-1].reset_index(drop=True), s[::-1], continue_from=folder
        )
    resumed = _grow(continue_from=folder)
    assert resumed.trace_ == _grow().trace_


def test_callbacks_run_once_after_the_fit_and_a_checkpoint_holds_the_trace(
    tmp_path: Path,
) -> None:
    X, s = _sample()
    seen: list[dict[str, Any]] = []

    def stop(recorder: TraceRecorder) -> bool:
        seen.append(recorder.last())
        return False  # nothing left to stop: the fit is the same

    folder = tmp_path / "ck"
    proxy = LabelProxy(weights="qp").fit(
        X, s, callbacks=[stop, CheckpointCallback(folder, every=100)]
    )
    assert len(seen) == 1
    assert seen[0]["alpha"] == proxy.alpha_
    saved = Trace.load(folder)
    pd.testing.assert_frame_equal(saved.to_frame(), proxy.trace_.to_frame())
    plain = LabelProxy(weights="qp").fit(X, s)
    np.testing.assert_array_equal(plain.rho_, proxy.rho_)


def test_continue_from_is_refused_by_a_fit_in_one_go(tmp_path: Path) -> None:
    X, s = _sample()
    with pytest.raises(InvalidParameterError, match=r"LabelProxy\.fit fits in one go"):
        LabelProxy().fit(X, s, continue_from=tmp_path / "nothing")


def test_features_read_by_each_kind_of_rule() -> None:
    names = ("a", "b", "c")
    linear = LinearRule(
        coef=np.array([[0.0, 2.0, 0.0], [0.0, -1.0, 0.5]]),
        intercept=np.zeros(2),
        outputs=np.array([0, 1]),
    )
    assert features_read(linear, names) == ("b", "c")
    tree = TreeRule(
        left=np.array([1, -1, -1]),
        right=np.array([2, -1, -1]),
        feature=np.array([2, -2, -2]),
        threshold=np.array([0.5, 0.0, 0.0]),
        outputs=np.array([0, 0, 1]),
    )
    assert features_read(tree, names) == ("c",)
    mixed = RandomizedTreeRule(
        rules=((tree, linear), (), ()),
        probs=(np.array([0.5, 0.5]), np.zeros(0), np.zeros(0)),
        one=np.array([2, -1, -1]),
        zero=np.array([1, -1, -1]),
        leaf_index=np.array([-1, 0, 1]),
    )
    assert features_read(mixed, names) == ("b", "c")
    assert features_read(EstimatorRule(estimator=object()), names) == names  # type: ignore[arg-type]
