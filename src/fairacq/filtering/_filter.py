"""The filter of Algorithm 2 (Deng et al., §3): admit each candidate with ``rho[z_hat(x)]``.

The filter never looks at a candidate's group: it applies the proxy, draws one uniform
number per candidate from the run's single Generator and admits when it falls below the
admission probability. Batches return a :class:`FilterResult`; streams are iterators of
chunks in, admitted chunks out. Both record a :class:`~fairacq.Trace` (admitted / rejected
counts and, when the true groups are supplied for evaluation, group proportions).
"""

from __future__ import annotations

import os
from collections.abc import Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from fairacq._base import Strategy
from fairacq._callbacks import Callback
from fairacq._loop import LoopResult, RunLoop, iter_loop, run_loop
from fairacq._random import RandomState
from fairacq._trace import Trace
from fairacq._validation import HasMethods
from fairacq.exceptions import InvalidDataError
from fairacq.filtering._membership import GroupClasses, group_mass
from fairacq.filtering.proxies._proxies import FittedProxy

__all__ = ["BalancedFilter", "FilterResult"]


@dataclass(frozen=True)
class FilterResult:
    """What :meth:`BalancedFilter.filter` returns for one batch.

    Attributes
    ----------
    admitted : pandas.DataFrame
        The admitted rows (original index kept).
    mask : numpy.ndarray of shape (n,)
        True for admitted candidates.
    trace : Trace
        One row for the batch: counts, acceptance rate, group proportions if known.
    """

    admitted: pd.DataFrame
    mask: NDArray[np.bool_]
    trace: Trace


class BalancedFilter(Strategy):
    """Admit candidates at random with a probability that depends only on the proxy value.

    Implements Algorithm 2 of Deng et al. (§3): for a candidate ``x``, compute
    ``z_hat(x)`` and admit with probability ``rho[z_hat(x)]``. By Lemma 2 the admitted set
    has the target group distribution in expectation when the proxy's ``A`` contains the
    target in its convex hull.

    Parameters
    ----------
    proxy : fitted proxy or FittedProxy
        Anything with ``admission_probability(X)`` and ``fitted_`` / ``groups`` (a fitted
        :class:`LabelProxy`, ..., or a :class:`FittedProxy` loaded from JSON).
    random_state : int, numpy.random.Generator or None, default=None
        Controls the admission draws. An int gives identical admissions on every call.

    Attributes
    ----------
    trace_ : Trace
        Trace of the last batch or (exhausted) stream.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from fairacq.filtering import LabelProxy
    >>> rng = np.random.default_rng(0)
    >>> s = rng.integers(0, 2, 400)
    >>> X = pd.DataFrame({"x": s + rng.normal(size=400)})
    >>> proxy = LabelProxy(predictor="tree", weights="qp", max_depth=2, random_state=0)
    >>> proxy = proxy.fit(X, s)
    >>> out = BalancedFilter(proxy=proxy, random_state=0).filter(X, s=s)
    >>> int(out.mask.sum()) == len(out.admitted)
    True
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "proxy": [HasMethods(["admission_probability"])],
        "random_state": ["random_state"],
    }

    def __init__(self, *, proxy: Any, random_state: RandomState = None) -> None:
        self.proxy = proxy
        self.random_state = random_state

    def _groups(self) -> tuple[str, ...]:
        fitted = getattr(self.proxy, "fitted_", self.proxy)
        if isinstance(fitted, FittedProxy):
            return fitted.groups
        return tuple(str(g) for g in getattr(fitted, "groups", ()))

    def _classes(self) -> GroupClasses | None:
        fitted = getattr(self.proxy, "fitted_", self.proxy)
        classes = getattr(fitted, "classes", None)
        return classes if isinstance(classes, GroupClasses) else None

    def _sizes(self) -> tuple[int, ...]:
        classes = self._classes()
        return classes.sizes if classes is not None else (len(self._groups()),)

    def _codes(self, s: Any, n: int) -> NDArray[np.int64] | None:
        if s is None:
            return None
        classes = self._classes()
        if classes is not None:
            return _class_codes(s, n, classes)
        groups = self._groups()
        labels = [str(v) for v in np.asarray(s).reshape(-1).tolist()]
        if len(labels) != n:
            raise InvalidDataError(
                f"BalancedFilter: s has {len(labels)} entries for {n} candidates. Pass one "
                "group per candidate (used for evaluation only)."
            )
        lookup = {g: i for i, g in enumerate(groups)}
        unknown = sorted({v for v in labels if v not in lookup})
        if unknown:
            raise InvalidDataError(
                f"BalancedFilter: s holds group(s) {unknown[:5]} the proxy was not fitted on "
                f"(it knows {list(groups)}). Refit the proxy with those groups."
            )
        return np.array([lookup[v] for v in labels], dtype=np.int64)

    def _target(self) -> NDArray[np.float64] | None:
        fitted = getattr(self.proxy, "fitted_", self.proxy)
        target = getattr(fitted, "target", None)
        return None if target is None else np.asarray(target, dtype=np.float64)

    def _config(self) -> dict[str, Any]:
        return {"proxy": getattr(getattr(self.proxy, "fitted_", self.proxy), "method", "")}

    def filter(self, X: pd.DataFrame, *, s: Any = None) -> FilterResult:
        """Filter one batch of candidates (Algorithm 2 applied row by row).

        Parameters
        ----------
        X : pandas.DataFrame
            Candidates; must hold every feature the proxy uses.
        s : array-like of shape (n,), pandas.DataFrame or None, default=None
            True groups, for evaluation only (never used to decide); adds group
            proportions to the trace. For a proxy fitted on intersecting group classes
            (App. A.2), a DataFrame with one column per class (or an (n, G) array in the
            classes' order); the trace then holds every ``class=group`` share and beta of
            Definition 16.

        Returns
        -------
        FilterResult
            The admitted rows, the admission mask and a one-row trace.

        Raises
        ------
        InvalidDataError
            If a feature the proxy uses is missing, or ``s`` is malformed.
        """
        self._validate_params()
        loop = _StreamLoop(self, [(X, s)])
        result = run_loop(
            loop, method=_METHOD, config=self._config(), random_state=self.random_state
        )
        self.trace_ = result.trace
        return FilterResult(admitted=X.loc[loop.mask], mask=loop.mask, trace=result.trace)

    def filter_stream(
        self,
        chunks: Iterable[Any],
        *,
        continue_from: Trace | str | os.PathLike[str] | None = None,
        callbacks: Sequence[Callback] = (),
    ) -> Generator[pd.DataFrame, None, None]:
        """Filter a stream of candidate chunks, yielding the admitted rows of each.

        Each chunk is one step of fairacq's shared loop: its admissions are drawn and recorded
        as one trace row (cumulative counts), its admitted rows are yielded, and when the
        consumer asks for the next chunk the callbacks run (a
        :class:`~fairacq.CheckpointCallback` saves the trace with the random stream's state),
        so a checkpoint counts only chunks the consumer has finished with. A stream stopped
        on the way resumes after its last checkpointed chunk: pass the checkpoint as
        ``continue_from`` and **the chunks that follow it** (its trace has one row per
        chunk, so ``itertools.islice(chunks, len(Trace.load(path)), None)`` for a stream that
        can be read again); the admissions are then those of the uninterrupted stream.

        Parameters
        ----------
        chunks : iterable of pandas.DataFrame or of (DataFrame, s) pairs
            The candidates as they arrive; ``s`` (true groups) is for evaluation only.
        continue_from : Trace, path-like or None, default=None
            The checkpoint of a stream stopped on the way; ``chunks`` are then the ones after
            its last finished chunk.
        callbacks : sequence of callables, default=()
            Called after each chunk (once its admitted rows were taken) with the
            :class:`~fairacq.TraceRecorder`; one returning ``False`` ends the stream.

        Yields
        ------
        pandas.DataFrame
            The admitted rows of each chunk (possibly empty). When the stream is exhausted
            or closed, ``trace_`` holds one row per chunk with cumulative counts.

        Raises
        ------
        InvalidDataError
            If a chunk lacks a feature the proxy uses, or ``continue_from`` is not a
            checkpoint of this filter.
        """
        self._validate_params()
        loop = _StreamLoop(self, chunks)

        def stopped(result: LoopResult) -> None:
            self.trace_ = result.trace

        rows = iter_loop(
            loop,
            method=_METHOD,
            config=self._config(),
            random_state=self.random_state,
            continue_from=continue_from,
            callbacks=callbacks,
            on_stop=stopped,
        )
        try:
            for _ in rows:
                yield loop.admitted
        finally:
            # Also when the consumer stops early (this generator is closed).
            rows.close()

    def _admit(
        self, X: pd.DataFrame, s: Any, rng: np.random.Generator, state: _Counts
    ) -> NDArray[np.bool_]:
        if not isinstance(X, pd.DataFrame):
            raise InvalidDataError(
                "BalancedFilter: candidates must be a pandas DataFrame with the proxy's "
                f"feature columns. Got {type(X).__name__}."
            )
        prob = np.asarray(self.proxy.admission_probability(X), dtype=np.float64)
        mask = rng.random(prob.shape[0]) < prob
        codes = self._codes(s, prob.shape[0])
        state.update(mask, codes)
        return mask


class _StreamLoop(RunLoop):
    """Chunks of candidates as the steps of a :class:`~fairacq._loop.RunLoop`.

    The admissions draw from one generator on the root seed, chunk after chunk (so a stream
    admits what one batch of the same rows admits); its state and the cumulative counts are
    the resume state.
    """

    def __init__(self, filt: BalancedFilter, chunks: Iterable[Any]) -> None:
        self.filt = filt
        self.chunks = iter(chunks)
        self.mask: NDArray[np.bool_] = np.zeros(0, dtype=bool)
        self.admitted = pd.DataFrame()

    def start(self, root: np.random.SeedSequence) -> None:
        self.rng = np.random.default_rng(root)
        self.counts = _Counts(self.filt._sizes())
        return None

    def restore(self, state: Mapping[str, Any]) -> None:
        self.rng.bit_generator.state = dict(state["rng"])
        self.counts.load(state["counts"])

    def step(self, index: int) -> dict[str, Any] | None:
        chunk = next(self.chunks, _END)
        if chunk is _END:
            return None
        X, s = chunk if isinstance(chunk, tuple) else (chunk, None)
        self.mask = self.filt._admit(X, s, self.rng, self.counts)
        self.admitted = X.loc[self.mask]
        row = self.counts.row(self.filt._groups(), self.filt._target())
        return {"cost": self.counts.seen, **row}

    def resume_state(self) -> dict[str, Any]:
        return {"rng": self.rng.bit_generator.state, "counts": self.counts.state()}


_METHOD = "balanced-filter"
_END = object()


def _class_codes(s: Any, n: int, classes: GroupClasses) -> NDArray[np.int64]:
    """Encode evaluation labels (one column per class) with the proxy's group codes."""
    frame = s if isinstance(s, pd.DataFrame) else pd.DataFrame(np.asarray(s, dtype=object))
    if frame.ndim != 2 or frame.shape != (n, len(classes.names)):
        raise InvalidDataError(
            f"BalancedFilter: s must hold one row per candidate and one column per group "
            f"class {list(classes.names)} (the proxy uses intersecting groups). Got shape "
            f"{frame.shape} for {n} candidates."
        )
    if isinstance(s, pd.DataFrame):
        missing = [c for c in classes.names if c not in [str(k) for k in s.columns]]
        if missing:
            raise InvalidDataError(
                f"BalancedFilter: s lacks the class column(s) {missing}. Pass a DataFrame "
                f"with columns {list(classes.names)}."
            )
        frame = s.rename(columns=str).loc[:, list(classes.names)]
    codes = np.empty((n, len(classes.names)), dtype=np.int64)
    for c, (name, groups) in enumerate(zip(classes.names, classes.groups, strict=True)):
        lookup = {g: i for i, g in enumerate(groups)}
        labels = [str(v) for v in frame.iloc[:, c].tolist()]
        unknown = sorted({v for v in labels if v not in lookup})
        if unknown:
            raise InvalidDataError(
                f"BalancedFilter: class '{name}' of s holds group(s) {unknown[:5]} the proxy "
                f"was not fitted on (it knows {list(groups)}). Refit the proxy with them."
            )
        codes[:, c] = [lookup[v] for v in labels]
    return codes


class _Counts:
    """Cumulative admitted / rejected counts and group counts (per class, concatenated)."""

    def __init__(self, sizes: tuple[int, ...]) -> None:
        self.seen = 0
        self.admitted = 0
        self.sizes = sizes
        n_groups = int(sum(sizes))
        self.seen_by_group = np.zeros(n_groups, dtype=np.int64)
        self.admitted_by_group = np.zeros(n_groups, dtype=np.int64)
        self.seen_labelled = 0
        self.admitted_labelled = 0
        self.with_groups = True

    def state(self) -> dict[str, Any]:
        """JSON-ready counts (the resume state of a stream)."""
        return {
            "seen": self.seen,
            "admitted": self.admitted,
            "seen_by_group": self.seen_by_group.tolist(),
            "admitted_by_group": self.admitted_by_group.tolist(),
            "seen_labelled": self.seen_labelled,
            "admitted_labelled": self.admitted_labelled,
            "with_groups": self.with_groups,
        }

    def load(self, state: Mapping[str, Any]) -> None:
        """Take the counts of :meth:`state`."""
        self.seen, self.admitted = int(state["seen"]), int(state["admitted"])
        self.seen_by_group = np.asarray(state["seen_by_group"], dtype=np.int64)
        self.admitted_by_group = np.asarray(state["admitted_by_group"], dtype=np.int64)
        self.seen_labelled = int(state["seen_labelled"])
        self.admitted_labelled = int(state["admitted_labelled"])
        self.with_groups = bool(state["with_groups"])

    def update(self, mask: NDArray[np.bool_], codes: NDArray[np.int64] | None) -> None:
        self.seen += int(mask.shape[0])
        self.admitted += int(mask.sum())
        if codes is None:
            self.with_groups = False
            return
        self.seen_labelled += int(mask.shape[0])
        self.admitted_labelled += int(mask.sum())
        if codes.ndim == 1:
            k = self.seen_by_group.shape[0]
            self.seen_by_group += np.bincount(codes, minlength=k)
            self.admitted_by_group += np.bincount(codes[mask], minlength=k)
            return
        self.seen_by_group += group_mass(np.ones(codes.shape[0]), codes, self.sizes).astype(
            np.int64
        )
        self.admitted_by_group += group_mass(
            np.ones(int(mask.sum())), codes[mask], self.sizes
        ).astype(np.int64)

    def row(self, groups: tuple[str, ...], target: NDArray[np.float64] | None) -> dict[str, Any]:
        row: dict[str, Any] = {
            "n_seen": self.seen,
            "n_admitted": self.admitted,
            "n_rejected": self.seen - self.admitted,
            "acceptance_rate": self.admitted / self.seen if self.seen else 0.0,
        }
        if self.with_groups and groups:
            # Each candidate counts once per class, so shares divide by the candidates.
            seen_tot = max(self.seen_labelled, 1)
            adm_tot = max(self.admitted_labelled, 1)
            for i, g in enumerate(groups):
                row[f"share_seen_{g}"] = float(self.seen_by_group[i] / seen_tot)
                row[f"share_admitted_{g}"] = float(self.admitted_by_group[i] / adm_tot)
            if target is not None and self.admitted_labelled > 0:
                # Definition 2 (16 for intersecting classes) on the admitted rows so far.
                share = self.admitted_by_group / self.admitted_labelled
                row["beta_admitted"] = float(np.linalg.norm(share - target))
        return row
