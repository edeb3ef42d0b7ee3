"""The filter of Algorithm 2 (Deng et al., §3): admit each candidate with ``rho[z_hat(x)]``.

The filter never looks at a candidate's group: it applies the proxy, draws one uniform
number per candidate from the run's single Generator and admits when it falls below the
admission probability. :meth:`BalancedFilter.fit` filters one batch (in chunks of
``chunk_size`` rows, each a step that a checkpoint can keep) and sets ``admitted_``,
``mask_`` and ``trace_``; :meth:`BalancedFilter.filter_stream` takes chunks in and yields
admitted chunks out. Both record a :class:`~fairacq.Trace` (admitted / rejected counts and,
when the true groups are supplied for evaluation, group proportions), and both admit the
same rows for the same seed however the candidates are cut into chunks.
"""

from __future__ import annotations

import os
from collections.abc import Generator, Iterable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from fairacq._base import Strategy
from fairacq._callbacks import Callback
from fairacq._loop import LoopResult, RunLoop, iter_loop, run_loop
from fairacq._random import RandomState
from fairacq._trace import Trace
from fairacq._typing import AdmissionRule
from fairacq._validation import HasMethods, Interval
from fairacq.exceptions import InvalidDataError
from fairacq.filtering._membership import GroupClasses, group_mass
from fairacq.filtering.proxies._proxies import FittedProxy

__all__ = ["BalancedFilter"]


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
    chunk_size : int or None, default=None
        Rows per step of :meth:`fit`: each chunk is one trace row, and a
        :class:`~fairacq.CheckpointCallback` can keep the work after every chunk. None
        filters the batch in one step. The admissions do not depend on it.
    random_state : int, numpy.random.Generator or None, default=None
        Controls the admission draws. An int gives identical admissions on every call.

    Attributes
    ----------
    admitted_ : pandas.DataFrame
        The admitted rows of the last :meth:`fit` (original index kept).
    mask_ : numpy.ndarray of shape (n,)
        True for the candidates :meth:`fit` admitted.
    trace_ : Trace
        Trace of the last batch (one row per chunk, cumulative counts) or stream.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from fairacq.filtering import LabelProxy
    >>> rng = np.random.default_rng(0)
    >>> s = rng.integers(0, 2, 400)
    >>> X = pd.DataFrame({"x": s + rng.normal(size=400)})
    >>> proxy = LabelProxy(predictor="tree", weights="qp", max_depth=2, random_state=0)
    >>> proxy = proxy.fit(X, s)
    >>> filt = BalancedFilter(proxy=proxy, random_state=0).fit(X, s=s)
    >>> int(filt.mask_.sum()) == len(filt.admitted_) == filt.trace_.final("n_admitted")
    True
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "proxy": [HasMethods(["admission_probability"])],
        "chunk_size": [Interval(int, 1, None, closed="left"), None],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        proxy: AdmissionRule,
        chunk_size: int | None = None,
        random_state: RandomState = None,
    ) -> None:
        self.proxy = proxy
        self.chunk_size = chunk_size
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

    def fit(
        self,
        X: pd.DataFrame,
        *,
        s: pd.DataFrame | ArrayLike | None = None,
        continue_from: Trace | str | os.PathLike[str] | None = None,
        callbacks: Sequence[Callback] = (),
    ) -> BalancedFilter:
        """Filter one batch of candidates (Algorithm 2 applied row by row).

        The batch goes in chunks of ``chunk_size`` rows, one trace row each; a run stopped
        on the way resumes from its checkpoint with the same ``X`` and ``s`` (the chunks
        it finished are drawn again, not counted twice), and admits what the uninterrupted
        run admits. :meth:`filter_stream` is the form for candidates arriving in chunks.

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
        continue_from : Trace, path-like or None, default=None
            The checkpoint of a run of this filter on the same candidates, stopped on the
            way.
        callbacks : sequence of callables, default=()
            Called after each chunk with the :class:`~fairacq.TraceRecorder`; one returning
            ``False`` stops the run (the rows not reached stay out of ``mask_``).

        Returns
        -------
        BalancedFilter
            The filter, with ``admitted_``, ``mask_`` and ``trace_`` set.

        Raises
        ------
        InvalidDataError
            If a feature the proxy uses is missing, ``s`` is malformed, or
            ``continue_from`` was written on other candidates or chunks.
        """
        self._validate_params()
        _check_frame(X)
        loop = _BatchLoop(self, X, self._codes(s, len(X)))
        result = run_loop(
            loop,
            method=_METHOD,
            config={**self._config(), "chunk_size": self.chunk_size},
            random_state=self.random_state,
            continue_from=continue_from,
            callbacks=callbacks,
        )
        self.trace_ = result.trace
        self.mask_ = loop.batch_mask()
        self.admitted_ = X.loc[self.mask_]
        return self

    def filter_stream(
        self,
        chunks: Iterable[pd.DataFrame | tuple[pd.DataFrame, pd.DataFrame | ArrayLike]],
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

        See Also
        --------
        fit : The one-batch form: the same admissions for candidates held in memory.
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

    def _draw(self, X: pd.DataFrame, rng: np.random.Generator) -> NDArray[np.bool_]:
        """Admit each candidate of ``X`` with its probability (one uniform draw per row)."""
        _check_frame(X)
        prob = np.asarray(self.proxy.admission_probability(X), dtype=np.float64)
        return rng.random(prob.shape[0]) < prob


def _check_frame(X: Any) -> None:
    if not isinstance(X, pd.DataFrame):
        raise InvalidDataError(
            "BalancedFilter: candidates must be a pandas DataFrame with the proxy's "
            f"feature columns. Got {type(X).__name__}."
        )


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
        X, codes = self._read(chunk)
        self.mask = self.filt._draw(X, self.rng)
        self.counts.update(self.mask, codes)
        self.admitted = X.loc[self.mask]
        row = self.counts.row(self.filt._groups(), self.filt._target())
        return {"cost": self.counts.seen, **row}

    def _read(self, chunk: Any) -> tuple[pd.DataFrame, NDArray[np.int64] | None]:
        """Return a chunk's candidates and the codes of its true groups (None: unknown)."""
        X, s = chunk if isinstance(chunk, tuple) else (chunk, None)
        _check_frame(X)
        return X, self.filt._codes(s, len(X))

    def resume_state(self) -> dict[str, Any]:
        return {"rng": self.rng.bit_generator.state, "counts": self.counts.state()}


class _BatchLoop(_StreamLoop):
    """One batch as chunks of ``chunk_size`` rows; a resumed run draws the finished ones again.

    The group codes of the whole batch are checked once, then cut with the rows. Replaying
    a checkpoint's row draws that chunk's admissions from the same stream (so ``mask_``
    covers the whole batch) after checking that the chunk has the rows the checkpoint saw.
    """

    def __init__(
        self, filt: BalancedFilter, X: pd.DataFrame, codes: NDArray[np.int64] | None
    ) -> None:
        size = filt.chunk_size or max(len(X), 1)
        starts = range(0, max(len(X), 1), size)
        super().__init__(filt, ((X.iloc[i : i + size], i) for i in starts))
        self.n_rows, self.codes, self.size = len(X), codes, size
        self.masks: list[NDArray[np.bool_]] = []

    def _read(self, chunk: Any) -> tuple[pd.DataFrame, NDArray[np.int64] | None]:
        X, start = chunk
        return X, None if self.codes is None else self.codes[start : start + len(X)]

    def step(self, index: int) -> dict[str, Any] | None:
        row = super().step(index)
        if row is not None:
            self.masks.append(self.mask)
        return row

    def replay(self, row: Mapping[str, Any]) -> None:
        chunk = next(self.chunks, None)
        done = sum(map(len, self.masks))
        seen = done + (0 if chunk is None else len(chunk[0]))
        if chunk is None or int(row["n_seen"]) != seen:
            raise InvalidDataError(
                f"continue_from: after {len(self.masks) + 1} chunk(s) the checkpoint had "
                f"seen {int(row['n_seen'])} candidates, this batch {seen} (chunk_size="
                f"{self.filt.chunk_size}). Resume with the candidates and chunk_size of the "
                "run that wrote it."
            )
        self.masks.append(self.filt._draw(chunk[0], self.rng))

    def batch_mask(self) -> NDArray[np.bool_]:
        """Return the whole batch's admissions (False for rows a stopped run did not reach)."""
        mask = np.zeros(self.n_rows, dtype=bool)
        done = np.concatenate([np.zeros(0, dtype=bool), *self.masks])
        mask[: done.size] = done
        return mask


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
