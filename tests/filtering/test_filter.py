"""Algorithm 2 (paper 003): the filter for batches and streams, simulated against beta."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from fairacq.exceptions import InvalidDataError, InvalidParameterError, NotFittedError
from fairacq.filtering import BalancedFilter, LabelProxy
from tests.checks import Spec, check_strategy
from tests.filtering.test_proxies import make_sample


@pytest.fixture(scope="module")
def fitted() -> tuple[LabelProxy, pd.DataFrame, np.ndarray]:
    X, s = make_sample(600, seed=1)
    return LabelProxy(predictor="tree", weights="qp", max_depth=3, random_state=0).fit(X, s), X, s


def _admitted_shares(mask: np.ndarray, s: np.ndarray) -> np.ndarray:
    return np.array([(s[mask] == g).mean() for g in ("a", "b", "c")])


@pytest.mark.parametrize(
    "proxy",
    [
        LabelProxy(predictor="tree", weights="qp", max_depth=3, random_state=0),
        LabelProxy(predictor="tree", max_depth=3, random_state=0),
    ],
)
def test_simulation_matches_predicted_beta(proxy: LabelProxy) -> None:
    X, s = make_sample(600, seed=1)
    proxy.fit(X, s)
    # Simulate on the labelled sample repeated 50 times: in-sample expectation applies.
    reps = 50
    big_X = pd.concat([X] * reps, ignore_index=True)
    big_s = np.tile(s, reps)
    out = BalancedFilter(proxy=proxy, random_state=0).filter(big_X, s=big_s)
    A, r_hat, rho = proxy.A_, proxy.proxy_marginal_, proxy.rho_
    predicted = (r_hat * rho) @ A / (r_hat @ rho)
    shares = _admitted_shares(out.mask, big_s)
    n_adm = int(out.mask.sum())
    # Admission is Bernoulli per row, so shares are within a few standard errors.
    se = np.sqrt(predicted * (1 - predicted) / n_adm)
    assert np.all(np.abs(shares - predicted) <= 5 * se + 1e-12)
    beta_sim = float(np.linalg.norm(shares - 1 / 3))
    assert beta_sim == pytest.approx(proxy.beta_, abs=5 * float(np.linalg.norm(se)) + 1e-12)
    assert out.trace.final("beta_admitted") == pytest.approx(beta_sim)
    assert n_adm / len(big_X) == pytest.approx(r_hat @ rho, abs=0.01)


def test_batch_trace_counts(fitted: tuple[LabelProxy, pd.DataFrame, np.ndarray]) -> None:
    proxy, X, s = fitted
    out = BalancedFilter(proxy=proxy, random_state=3).filter(X, s=s)
    row = out.trace.to_frame().iloc[-1]
    assert row["n_seen"] == len(X) == row["n_admitted"] + row["n_rejected"]
    assert row["n_admitted"] == len(out.admitted) == out.mask.sum()
    assert row["share_seen_a"] == pytest.approx((s == "a").mean())
    assert sum(row[f"share_admitted_{g}"] for g in "abc") == pytest.approx(1.0)
    pd.testing.assert_frame_equal(out.admitted, X.loc[out.mask])


def test_without_groups_records_counts_only(
    fitted: tuple[LabelProxy, pd.DataFrame, np.ndarray],
) -> None:
    proxy, X, _ = fitted
    out = BalancedFilter(proxy=proxy, random_state=3).filter(X)
    assert "share_admitted_a" not in out.trace.to_frame().columns
    assert out.trace.final("n_seen") == len(X)


def test_stream_equals_batch(fitted: tuple[LabelProxy, pd.DataFrame, np.ndarray]) -> None:
    proxy, X, s = fitted
    batch = BalancedFilter(proxy=proxy, random_state=11).filter(X, s=s)
    filt = BalancedFilter(proxy=proxy, random_state=11)
    cuts = [0, 100, 250, 251, 600]
    chunks = ((X.iloc[a:b], s[a:b]) for a, b in itertools.pairwise(cuts))
    parts = list(filt.filter_stream(chunks))
    assert len(parts) == 4
    pd.testing.assert_frame_equal(pd.concat(parts), batch.admitted)
    steps = filt.trace_.to_frame()
    assert steps["n_seen"].tolist() == [100, 250, 251, 600]
    assert steps["n_admitted"].iloc[-1] == len(batch.admitted)
    assert filt.trace_.final("beta_admitted") == pytest.approx(batch.trace.final("beta_admitted"))


def test_stream_of_frames_only(fitted: tuple[LabelProxy, pd.DataFrame, np.ndarray]) -> None:
    proxy, X, _ = fitted
    filt = BalancedFilter(proxy=proxy, random_state=0)
    parts = list(filt.filter_stream(iter([X.iloc[:300], X.iloc[300:]])))
    assert sum(len(p) for p in parts) == filt.trace_.final("n_admitted")


def test_seeded(fitted: tuple[LabelProxy, pd.DataFrame, np.ndarray]) -> None:
    proxy, X, _ = fitted
    a = BalancedFilter(proxy=proxy, random_state=5).filter(X).mask
    b = BalancedFilter(proxy=proxy, random_state=5).filter(X).mask
    c = BalancedFilter(proxy=proxy, random_state=6).filter(X).mask
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_bad_input(fitted: tuple[LabelProxy, pd.DataFrame, np.ndarray]) -> None:
    proxy, X, s = fitted
    filt = BalancedFilter(proxy=proxy, random_state=0)
    with pytest.raises(InvalidDataError, match="lack feature"):
        filt.filter(X.drop(columns="x0"))
    with pytest.raises(InvalidDataError, match="not fitted on"):
        filt.filter(X, s=np.where(s == "a", "z", s))
    with pytest.raises(InvalidDataError, match="one group per candidate"):
        filt.filter(X, s=s[:10])
    with pytest.raises(InvalidDataError, match="DataFrame"):
        filt.filter(X.to_numpy())  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="'proxy' parameter"):
        BalancedFilter(proxy="tree").filter(X)


def test_strategy_contract(
    fitted: tuple[LabelProxy, pd.DataFrame, np.ndarray], tmp_path: Path
) -> None:
    """The common checks (tests/checks.py) on the batch filter (the battery runs the stream)."""
    proxy, X, s = fitted
    # A FittedProxy (plain arrays) survives clone; a fitted strategy would be refitted-empty.
    spec = Spec(
        cls=BalancedFilter,
        make=lambda: BalancedFilter(proxy=proxy.fitted_, random_state=0),
        run=lambda f, **kw: f.filter(X, s=s, **kw),
        decisions=lambda f, out: out.mask,
        stepwise=False,  # one batch is one step
        verb="filter",
    )
    check_strategy(spec, tmp_path)


def test_stream_closed_early_still_records(
    fitted: tuple[LabelProxy, pd.DataFrame, np.ndarray],
) -> None:
    proxy, X, _ = fitted
    filt = BalancedFilter(proxy=proxy, random_state=0)
    stream = filt.filter_stream(X.iloc[i : i + 100] for i in range(0, 600, 100))
    next(stream)
    next(stream)
    stream.close()
    assert filt.trace_.final("n_seen") == 200
    assert len(filt.trace_) == 2


def test_unfitted_proxy_and_non_numeric(
    fitted: tuple[LabelProxy, pd.DataFrame, np.ndarray],
) -> None:
    proxy, X, _ = fitted
    with pytest.raises(NotFittedError, match="not fitted"):
        BalancedFilter(proxy=LabelProxy(predictor="tree", weights="qp"), random_state=0).filter(X)
    with pytest.raises(InvalidDataError, match="numeric"):
        BalancedFilter(proxy=proxy, random_state=0).filter(X.assign(x0="a"))


@pytest.mark.parametrize("bad", [np.inf, -np.inf, 1e308, np.nan])
def test_candidates_with_unusable_values_are_refused_naming_column_and_row(bad):
    X, s = make_sample(300)
    proxy = LabelProxy(predictor="tree", max_depth=3, random_state=0).fit(X, s)
    candidates = X.copy()
    candidates.loc[7, "x1"] = bad
    with pytest.raises(InvalidDataError, match=r"column 'x1' has 1 .* \(rows 7\)"):
        BalancedFilter(proxy=proxy, random_state=0).filter(candidates)


class _Interrupt(Exception):
    """Raised by a callback to simulate a killed stream."""


@pytest.mark.parametrize("k", [1, 2, 4])
def test_stream_interrupted_then_resumed_with_the_remaining_chunks(
    k: int, fitted: tuple[LabelProxy, pd.DataFrame, np.ndarray], tmp_path: Path
) -> None:
    from fairacq import CheckpointCallback, Trace

    proxy, X, s = fitted

    def chunks() -> Any:
        return ((X.iloc[i : i + 100], s[i : i + 100]) for i in range(0, 600, 100))

    full = BalancedFilter(proxy=proxy, random_state=None)
    whole = list(full.filter_stream(chunks()))

    def interrupt(rec: Any) -> None:
        if rec.n_steps >= k:
            raise _Interrupt

    seed = int(full.trace_.meta["resume_state"]["entropy"])  # the unseeded run's root
    got: list[pd.DataFrame] = []
    stream = BalancedFilter(proxy=proxy, random_state=seed).filter_stream(
        chunks(), callbacks=[CheckpointCallback(tmp_path / "ck", every=1), interrupt]
    )
    with pytest.raises(_Interrupt):
        got.extend(stream)  # the consumer had taken k chunks when the run was killed
    assert len(got) == k == len(Trace.load(tmp_path / "ck"))
    for seeded in (None, seed):  # without a seed, the checkpoint's root is used
        filt = BalancedFilter(proxy=proxy, random_state=seeded)
        rest = itertools.islice(chunks(), k, None)
        parts = got + list(filt.filter_stream(rest, continue_from=tmp_path / "ck"))
        assert len(parts) == 6
        for a, b in zip(parts, whole, strict=True):
            pd.testing.assert_frame_equal(a, b)
        assert filt.trace_.to_frame().equals(full.trace_.to_frame())
        assert filt.trace_.meta["stop_reason"] == "exhausted"
    again = BalancedFilter(proxy=proxy, random_state=seed)
    list(again.filter_stream(chunks()))
    assert filt.trace_ == again.trace_


def test_stream_refuses_a_checkpoint_of_another_strategy(
    fitted: tuple[LabelProxy, pd.DataFrame, np.ndarray],
) -> None:
    from fairacq import TraceRecorder

    proxy, X, _ = fitted
    other = TraceRecorder(method="random", config={}).finish()
    with pytest.raises(InvalidDataError, match="not a 'balanced-filter' one"):
        list(BalancedFilter(proxy=proxy).filter_stream([X], continue_from=other))
