"""Algorithm 2: the filter for batches (fit) and streams, simulated against beta."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from fairacq import CheckpointCallback, Trace
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
    out = BalancedFilter(proxy=proxy, random_state=0).fit(big_X, s=big_s)
    A, r_hat, rho = proxy.A_, proxy.proxy_marginal_, proxy.rho_
    predicted = (r_hat * rho) @ A / (r_hat @ rho)
    shares = _admitted_shares(out.mask_, big_s)
    n_adm = int(out.mask_.sum())
    # Admission is Bernoulli per row, so shares are within a few standard errors.
    se = np.sqrt(predicted * (1 - predicted) / n_adm)
    assert np.all(np.abs(shares - predicted) <= 5 * se + 1e-12)
    beta_sim = float(np.linalg.norm(shares - 1 / 3))
    assert beta_sim == pytest.approx(proxy.beta_, abs=5 * float(np.linalg.norm(se)) + 1e-12)
    assert out.trace_.final("beta_admitted") == pytest.approx(beta_sim)
    assert n_adm / len(big_X) == pytest.approx(r_hat @ rho, abs=0.01)


def test_batch_trace_counts(fitted: tuple[LabelProxy, pd.DataFrame, np.ndarray]) -> None:
    proxy, X, s = fitted
    out = BalancedFilter(proxy=proxy, random_state=3)
    assert out.fit(X, s=s) is out
    row = out.trace_.to_frame().iloc[-1]
    assert len(out.trace_) == 1  # no chunk_size: the batch is one step
    assert row["n_seen"] == len(X) == row["n_admitted"] + row["n_rejected"]
    assert row["n_admitted"] == len(out.admitted_) == out.mask_.sum()
    assert row["share_seen_a"] == pytest.approx((s == "a").mean())
    assert sum(row[f"share_admitted_{g}"] for g in "abc") == pytest.approx(1.0)
    pd.testing.assert_frame_equal(out.admitted_, X.loc[out.mask_])


def test_without_groups_records_counts_only(
    fitted: tuple[LabelProxy, pd.DataFrame, np.ndarray],
) -> None:
    proxy, X, _ = fitted
    out = BalancedFilter(proxy=proxy, random_state=3).fit(X)
    assert "share_admitted_a" not in out.trace_.to_frame().columns
    assert out.trace_.final("n_seen") == len(X)


def test_stream_equals_batch(fitted: tuple[LabelProxy, pd.DataFrame, np.ndarray]) -> None:
    proxy, X, s = fitted
    batch = BalancedFilter(proxy=proxy, random_state=11).fit(X, s=s)
    filt = BalancedFilter(proxy=proxy, random_state=11)
    cuts = [0, 100, 250, 251, 600]
    chunks = ((X.iloc[a:b], s[a:b]) for a, b in itertools.pairwise(cuts))
    parts = list(filt.filter_stream(chunks))
    assert len(parts) == 4
    pd.testing.assert_frame_equal(pd.concat(parts), batch.admitted_)
    steps = filt.trace_.to_frame()
    assert steps["n_seen"].tolist() == [100, 250, 251, 600]
    assert steps["n_admitted"].iloc[-1] == len(batch.admitted_)
    assert filt.trace_.final("beta_admitted") == pytest.approx(batch.trace_.final("beta_admitted"))


def test_stream_of_frames_only(fitted: tuple[LabelProxy, pd.DataFrame, np.ndarray]) -> None:
    proxy, X, _ = fitted
    filt = BalancedFilter(proxy=proxy, random_state=0)
    parts = list(filt.filter_stream(iter([X.iloc[:300], X.iloc[300:]])))
    assert sum(len(p) for p in parts) == filt.trace_.final("n_admitted")


def test_seeded(fitted: tuple[LabelProxy, pd.DataFrame, np.ndarray]) -> None:
    proxy, X, _ = fitted
    a = BalancedFilter(proxy=proxy, random_state=5).fit(X).mask_
    b = BalancedFilter(proxy=proxy, random_state=5).fit(X).mask_
    c = BalancedFilter(proxy=proxy, random_state=6).fit(X).mask_
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_bad_input(fitted: tuple[LabelProxy, pd.DataFrame, np.ndarray]) -> None:
    proxy, X, s = fitted
    filt = BalancedFilter(proxy=proxy, random_state=0)
    with pytest.raises(InvalidDataError, match="lack feature"):
        filt.fit(X.drop(columns="x0"))
    with pytest.raises(InvalidDataError, match="not fitted on"):
        filt.fit(X, s=np.where(s == "a", "z", s))
    with pytest.raises(InvalidDataError, match="one group per candidate"):
        filt.fit(X, s=s[:10])
    with pytest.raises(InvalidDataError, match="DataFrame"):
        filt.fit(X.to_numpy())  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="'proxy' parameter"):
        BalancedFilter(proxy="tree").fit(X)
    with pytest.raises(InvalidParameterError, match="'chunk_size' parameter"):
        BalancedFilter(proxy=proxy, chunk_size=0).fit(X)


def test_strategy_contract(
    fitted: tuple[LabelProxy, pd.DataFrame, np.ndarray], tmp_path: Path
) -> None:
    """The common checks (tests/checks.py) on the stream (the battery runs ``fit``)."""
    proxy, X, s = fitted

    def run(strategy: BalancedFilter, **resume: Any) -> list[list[int]]:
        chunks = [(X.iloc[i : i + 100], s[i : i + 100]) for i in range(0, len(X), 100)]
        if resume.get("continue_from") is not None:  # the caller passes the chunks after it
            chunks = chunks[len(Trace.load(resume["continue_from"])) :]
        return [list(frame.index) for frame in strategy.filter_stream(chunks, **resume)]

    # A FittedProxy (plain arrays) survives clone; a fitted strategy would be refitted-empty.
    spec = Spec(
        cls=BalancedFilter,
        make=lambda: BalancedFilter(proxy=proxy.fitted_, random_state=0),
        run=run,
        decisions=lambda f, out: out,
        # A generator of admitted chunks, so it cannot return the filter.
        verb="filter_stream",
        # On resuming only the chunks after the checkpoint come out.
        resume_tail=True,
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
        BalancedFilter(proxy=LabelProxy(predictor="tree", weights="qp"), random_state=0).fit(X)
    with pytest.raises(InvalidDataError, match="numeric"):
        BalancedFilter(proxy=proxy, random_state=0).fit(X.assign(x0="a"))


@pytest.mark.parametrize("bad", [np.inf, -np.inf, 1e308, np.nan])
def test_candidates_with_unusable_values_are_refused_naming_column_and_row(bad):
    X, s = make_sample(300)
    proxy = LabelProxy(predictor="tree", max_depth=3, random_state=0).fit(X, s)
    candidates = X.copy()
    candidates.loc[7, "x1"] = bad
    with pytest.raises(InvalidDataError, match=r"column 'x1' has 1 .* \(rows 7\)"):
        BalancedFilter(proxy=proxy, random_state=0).fit(candidates)


class _Interrupt(Exception):
    """Raised by a callback to simulate a killed stream."""


@pytest.mark.parametrize("k", [1, 2, 4])
def test_stream_interrupted_then_resumed_with_the_remaining_chunks(
    k: int, fitted: tuple[LabelProxy, pd.DataFrame, np.ndarray], tmp_path: Path
) -> None:
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


def test_fit_in_chunks_admits_what_one_batch_admits(
    fitted: tuple[LabelProxy, pd.DataFrame, np.ndarray],
) -> None:
    proxy, X, s = fitted
    whole = BalancedFilter(proxy=proxy, random_state=7).fit(X, s=s)
    chunked = BalancedFilter(proxy=proxy, chunk_size=7, random_state=7).fit(X, s=s)
    np.testing.assert_array_equal(chunked.mask_, whole.mask_)
    pd.testing.assert_frame_equal(chunked.admitted_, whole.admitted_)
    steps = chunked.trace_.to_frame()
    assert len(steps) == 86  # ceil(600 / 7), one row per chunk
    assert steps["n_seen"].tolist()[:3] == [7, 14, 21]
    last, only = steps.iloc[-1].drop("step"), whole.trace_.to_frame().iloc[-1].drop("step")
    pd.testing.assert_series_equal(last, only, check_names=False)


def test_fit_resumed_covers_the_whole_batch(
    fitted: tuple[LabelProxy, pd.DataFrame, np.ndarray], tmp_path: Path
) -> None:
    proxy, X, s = fitted
    full = BalancedFilter(proxy=proxy, chunk_size=100, random_state=2).fit(X, s=s)

    def interrupt(rec: Any) -> None:
        if rec.n_steps >= 3:
            raise _Interrupt

    with pytest.raises(_Interrupt):
        BalancedFilter(proxy=proxy, chunk_size=100, random_state=2).fit(
            X, s=s, callbacks=[CheckpointCallback(tmp_path / "ck", every=1), interrupt]
        )
    resumed = BalancedFilter(proxy=proxy, chunk_size=100).fit(
        X, s=s, continue_from=tmp_path / "ck"
    )
    assert resumed.trace_.meta["resumed_at_step"] == 3
    np.testing.assert_array_equal(resumed.mask_, full.mask_)  # the first 3 chunks too
    assert resumed.mask_[:300].any()
    assert resumed.trace_.to_frame().equals(full.trace_.to_frame())  # seeded by the checkpoint
    for other in (BalancedFilter(proxy=proxy, chunk_size=50), BalancedFilter(proxy=proxy)):
        with pytest.raises(
            InvalidDataError, match="the checkpoint had seen 100 candidates, this batch"
        ):
            other.fit(X, s=s, continue_from=tmp_path / "ck")


def test_fit_stopped_by_a_callback_admits_no_row_it_did_not_reach(
    fitted: tuple[LabelProxy, pd.DataFrame, np.ndarray],
) -> None:
    proxy, X, _ = fitted
    filt = BalancedFilter(proxy=proxy, chunk_size=100, random_state=0)
    filt.fit(X, callbacks=[lambda rec: rec.n_steps < 2])
    whole = BalancedFilter(proxy=proxy, random_state=0).fit(X)
    assert filt.trace_.meta["stop_reason"] == "callback"
    assert filt.trace_.final("n_seen") == 200
    np.testing.assert_array_equal(filt.mask_[:200], whole.mask_[:200])
    assert not filt.mask_[200:].any()
    assert len(filt.admitted_) == filt.trace_.final("n_admitted")
