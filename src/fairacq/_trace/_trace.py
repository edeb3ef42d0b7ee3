"""The step-by-step record of one run, shared by all five families."""

from __future__ import annotations

import copy
import os
import platform
import time
from collections.abc import Callable, Mapping
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from fairacq._artefact import file_matches, to_jsonable
from fairacq._io import atomic_path, read_json, sha256_file, write_json
from fairacq._random import RandomState, seed_of
from fairacq._version import __version__
from fairacq.exceptions import CorruptFileError, InvalidDataError

if TYPE_CHECKING:
    # a type only: matplotlib is imported on the first plot (fairacq._trace._plot)
    from matplotlib.axes import Axes  # noqa: TID251

__all__ = ["Trace", "TraceRecorder"]

#: Metadata keys that differ between two otherwise identical runs (how long, where, and
#: whether the run was resumed on the way).
_VOLATILE_META = frozenset(
    {
        "elapsed_s",
        "created_unix",
        "package_versions",
        "python",
        "host",
        "timings",
        "resumed_at_step",
    }
)
#: Sidecar key holding the Parquet file's checksum and step count (not part of ``meta``).
_PAIR_KEY = "trace_file"
_PACKAGES = ("numpy", "scipy", "pandas", "scikit-learn", "torch", "cvxpy")
#: Rows of a trace shown in Jupyter (the last ones).
_HTML_ROWS = 8


class Trace:
    """An immutable record of one run: one row per step plus the run's metadata.

    Each row holds what was decided at that step (partition, group, feature, accepted or
    rejected, ...), the cumulative ``cost`` and the metrics measured. The metadata records the
    method, config, seed and spawn key, fairacq version, package versions and wall time.

    Parameters
    ----------
    steps : pandas.DataFrame
        One row per step; must contain ``step`` and ``cost`` columns.
    meta : mapping
        JSON-serialisable metadata.

    Examples
    --------
    >>> rec = TraceRecorder(method="demo", config={"budget": 2}, random_state=0)
    >>> rec.record(cost=1, accuracy=0.5); rec.record(cost=2, accuracy=0.75)
    >>> trace = rec.finish()
    >>> trace.final("accuracy"), len(trace)
    (0.75, 2)
    """

    def __init__(self, steps: pd.DataFrame, meta: Mapping[str, Any]) -> None:
        missing = {"step", "cost"} - set(steps.columns)
        if missing:
            raise InvalidDataError(
                f"Trace: steps lack the column(s) {sorted(missing)}. Every row needs a 'step' "
                "index and the cumulative 'cost'."
            )
        self._steps = _lists_in_cells(steps.reset_index(drop=True).copy())
        self._meta = copy.deepcopy(dict(meta))
        #: The checkpoint folder this trace was loaded from (None otherwise): a strategy
        #: resumed with ``continue_from=Trace.load(folder)`` reads its own files there.
        self.folder: Path | None = None

    # -- access --------------------------------------------------------------------------
    def to_frame(self) -> pd.DataFrame:
        """Return the steps as a new DataFrame."""
        return self._steps.copy()

    @property
    def meta(self) -> dict[str, Any]:
        """The run's metadata (a copy)."""
        return copy.deepcopy(self._meta)

    @property
    def method(self) -> str:
        """Name of the method that produced the trace."""
        return str(self._meta.get("method", "unknown"))

    @property
    def metrics(self) -> list[str]:
        """Numeric columns other than ``step`` and ``cost``."""
        return [
            str(c)
            for c in self._steps.columns
            if c not in ("step", "cost")
            and pd.api.types.is_numeric_dtype(self._steps[c])
            and not pd.api.types.is_bool_dtype(self._steps[c])
        ]

    def __len__(self) -> int:
        return len(self._steps)

    def __repr__(self) -> str:
        cols = list(self._steps.columns)
        return f"Trace(method={self.method!r}, steps={len(self)}, columns={cols})"

    def __eq__(self, other: object) -> bool:
        """Compare steps and metadata, ignoring timing and environment keys."""
        if not isinstance(other, Trace):
            return NotImplemented
        stable = {k: v for k, v in self._meta.items() if k not in _VOLATILE_META}
        other_stable = {k: v for k, v in other._meta.items() if k not in _VOLATILE_META}
        return stable == other_stable and _frames_equal(self._steps, other._steps)

    __hash__ = None  # type: ignore[assignment]  # mutable-looking content: not hashable

    def final(self, column: str) -> Any:
        """Value of ``column`` at the last step."""
        self._check_column(column)
        value = self._steps[column].iloc[-1]
        return value.item() if isinstance(value, np.generic) else value

    def summary(self) -> dict[str, Any]:
        """Return method, seed, step count, final cost and the final value of every metric."""
        out: dict[str, Any] = {
            "method": self.method,
            "seed": self._meta.get("seed"),
            "steps": len(self),
            "cost": float(self._steps["cost"].iloc[-1]) if len(self) else 0.0,
        }
        for m in self.metrics:
            out[m] = float(self._steps[m].iloc[-1]) if len(self) else float("nan")
        return out

    def _repr_html_(self) -> str:
        """Jupyter's view: method, seed, steps and final cost, then the last rows."""
        import html

        seed = self._meta.get("seed")
        cost = float(self._steps["cost"].iloc[-1]) if len(self) else 0.0
        head = (
            f"Trace of <b>{html.escape(self.method)}</b>: seed {html.escape(str(seed))}, "
            f"{len(self)} steps, final cost {cost:g}"
        )
        shown = self._steps.tail(_HTML_ROWS)
        if len(self) > len(shown):
            head += f" (last {len(shown)} rows)"
        return f"<div><p>{head}</p>{_html_rows(shown)}</div>"

    def _check_column(self, column: str) -> None:
        if column not in self._steps.columns:
            raise InvalidDataError(
                f"Trace of '{self.method}' has no column {column!r}. "
                f"Available: {', '.join(map(str, self._steps.columns))}."
            )

    # -- persistence ---------------------------------------------------------------------
    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write ``<path>.parquet`` and its JSON sidecar ``<path>.json`` atomically.

        The sidecar records the Parquet file's sha256 and step count, so a pair whose two
        files come from different saves (a copy of one of them, or a kill between the two
        writes) is refused by :meth:`load`.

        Returns
        -------
        pathlib.Path
            The Parquet file's path.
        """
        base = _base_path(path)
        parquet, sidecar = _pair(base)
        with atomic_path(parquet) as tmp:
            self._steps.to_parquet(tmp, index=False)
            digest = sha256_file(tmp)
        pair = {"parquet_sha256": digest, "n_steps": len(self._steps)}
        write_json(sidecar, {**self._meta, _PAIR_KEY: pair})
        return parquet

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Trace:
        """Read a trace written by :meth:`save`, or the trace of a checkpoint folder.

        Parameters
        ----------
        path : path-like
            ``<path>.parquet`` / ``<path>.json``, or a checkpoint folder written by
            :class:`~fairacq.CheckpointCallback` (its ``trace.parquet`` / ``trace.json``; the
            returned trace remembers the folder in :attr:`folder`).

        Raises
        ------
        CorruptFileError
            If either file is missing or unreadable, naming the file and the fix.
        """
        from fairacq._checkpoint import TRACE_NAME, resolve_checkpoint

        folder = resolve_checkpoint(path)
        if folder.is_dir():
            trace = cls.load(folder / TRACE_NAME)
            trace.folder = folder
            return trace
        base = _base_path(path)
        parquet, sidecar = _pair(base)
        for p in (parquet, sidecar):
            if not p.exists():
                raise CorruptFileError(
                    f"Trace file {p} is missing. A trace is a .parquet file plus its .json "
                    "sidecar; copy both together."
                )
        try:
            steps = pd.read_parquet(parquet)
        except Exception as exc:  # pyarrow raises several unrelated types on bad bytes
            raise CorruptFileError(
                f"Trace file {parquet} cannot be read as Parquet ({type(exc).__name__}: {exc}). "
                "Re-run the experiment or restore the file."
            ) from exc
        meta = read_json(sidecar)
        if not isinstance(meta, dict):
            raise CorruptFileError(f"Trace sidecar {sidecar} must hold a JSON object.")
        _check_pair(parquet, sidecar, meta.pop(_PAIR_KEY, None), len(steps))
        return cls(steps, meta)

    def plot(
        self,
        metric: str,
        *,
        x: str = "cost",
        ax: Axes | None = None,
        reference: float | None = None,
    ) -> Axes:
        """Plot ``metric`` against ``x`` (see :func:`fairacq.reporting.plot_traces`)."""
        from fairacq._trace._plot import plot_traces

        self._check_column(metric)
        return plot_traces({self.method: [self]}, metric, x=x, ax=ax, reference=reference)


class TraceRecorder:
    """Collects rows during a run and builds the :class:`Trace` at the end.

    Parameters
    ----------
    method : str
        Name of the method (e.g. ``"datasift"``).
    config : mapping
        The run's hyper-parameters (JSON-serialisable).
    random_state : int, numpy.random.SeedSequence, numpy.random.Generator or None
        Recorded as seed and spawn key when it is an int or a seed sequence.
    continue_from : Trace or None, default=None
        A trace to resume: its rows are kept and the step counter continues after them.
    **meta
        Further metadata (dataset name, ...).
    """

    def __init__(
        self,
        *,
        method: str,
        config: Mapping[str, Any],
        random_state: RandomState = None,
        continue_from: Trace | None = None,
        **meta: Any,
    ) -> None:
        self._rows: list[dict[str, Any]] = []
        self._pending_state: dict[str, Any] | None = None
        self._state_writer: Callable[[Path], None] | None = None
        self._checkpoint_requested = False
        self._start = time.perf_counter()
        self._prior_elapsed = 0.0
        self._meta: dict[str, Any] = {
            "method": method,
            "config": to_jsonable(dict(config)),
            **seed_of(random_state),
            **to_jsonable(meta),
        }
        if continue_from is not None:
            self._rows = [
                {str(k): v for k, v in row.items()}
                for row in continue_from.to_frame().to_dict("records")
            ]
            self._prior_elapsed = float(continue_from.meta.get("elapsed_s", 0.0))
            self._meta["resumed_at_step"] = len(self._rows)

    @property
    def n_steps(self) -> int:
        """Number of rows recorded so far (including resumed ones)."""
        return len(self._rows)

    def record(self, *, cost: float, **values: Any) -> None:
        """Append one step: the cumulative ``cost`` and any decisions/metrics."""
        row = {k: to_jsonable(v) for k, v in values.items()}
        self._rows.append({"step": len(self._rows), "cost": float(cost), **row})

    def set_resume_state(self, state: Mapping[str, Any]) -> None:
        """Store what a strategy needs to resume after the last row.

        It lands in the trace's ``meta["resume_state"]``, so a checkpoint carries it. The
        values (JSON types, numpy arrays and scalars) are converted to JSON only when a trace
        is built (:meth:`finish`, which a checkpoint calls), not at every step: they must be
        snapshots that later steps do not change (fresh containers or read-only views).
        """
        self._meta.setdefault("resume_state", None)  # its place among the keys, as before
        self._pending_state = dict(state)

    def _encode_resume_state(self) -> None:
        """Convert the state stored by :meth:`set_resume_state` to JSON (once per state)."""
        if self._pending_state is not None:
            self._meta["resume_state"] = to_jsonable(self._pending_state)
            self._pending_state = None

    def attach_state(self, writer: Callable[[Path], None]) -> None:
        """Attach the writer of a strategy's state that the trace does not hold.

        ``writer(folder)`` writes the strategy's own files (network weights, optimiser state)
        into ``folder``; :class:`~fairacq.CheckpointCallback` then writes a checkpoint folder
        holding the trace and those files as one unit (see :mod:`fairacq._checkpoint`).
        """
        self._state_writer = writer

    @property
    def state_writer(self) -> Callable[[Path], None] | None:
        """The attached state writer (None: the trace is the whole state)."""
        return self._state_writer

    def request_checkpoint(self) -> None:
        """Ask checkpoint callbacks to write at their next call whatever the step count.

        For the end of an expensive phase (a pre-training); the request is cleared once the
        callbacks have run.
        """
        self._checkpoint_requested = True

    @property
    def checkpoint_requested(self) -> bool:
        """Whether :meth:`request_checkpoint` was called since the callbacks last ran."""
        return self._checkpoint_requested

    def clear_checkpoint_request(self) -> None:
        """Forget a checkpoint request (called after a round of callbacks)."""
        self._checkpoint_requested = False

    def last(self) -> dict[str, Any]:
        """Return the last recorded row (empty dict when none)."""
        return dict(self._rows[-1]) if self._rows else {}

    def finish(self, **meta: Any) -> Trace:
        """Return the :class:`Trace` built from the rows so far (the recorder stays usable)."""
        self._encode_resume_state()
        steps = (
            pd.DataFrame(self._rows)
            if self._rows
            else pd.DataFrame(
                {"step": pd.Series(dtype="int64"), "cost": pd.Series(dtype="float64")}
            )
        )
        full_meta = {
            **self._meta,
            **to_jsonable(meta),
            "fairacq_version": __version__,
            "elapsed_s": self._prior_elapsed + time.perf_counter() - self._start,
            "created_unix": time.time(),
            "python": platform.python_version(),
            "package_versions": _package_versions(),
        }
        return Trace(steps, full_meta)


def _check_pair(parquet: Path, sidecar: Path, pair: Any, n_steps: int) -> None:
    """Refuse a Parquet file and a sidecar that were not written by one save.

    A sidecar written before the pair was recorded carries none and is accepted as it is.
    """
    if pair is None:
        return
    ok = isinstance(pair, dict) and pair.get("n_steps") == n_steps
    if ok and not file_matches(parquet, pair.get("parquet_sha256")):
        ok = False
    if not ok:
        recorded = pair.get("n_steps") if isinstance(pair, dict) else "?"
        raise CorruptFileError(
            f"Trace files {parquet.name} ({n_steps} steps) and {sidecar.name} (written for "
            f"{recorded} steps) do not belong together: one was replaced or a save was cut "
            "short. Restore both files from the same run, or re-run it."
        )


def _html_cell(value: Any) -> str:
    """Return a trace cell as escaped text: 4 significant digits, long lists cut short."""
    import html

    if isinstance(value, (float, np.floating)):
        text = f"{float(value):.4g}"
    elif isinstance(value, (list, tuple, np.ndarray)) and len(value) > 6:
        text = f"[{', '.join(map(str, list(value)[:5]))}, ... ({len(value)} items)]"
    else:
        text = str(value)
    return html.escape(text)


def _html_rows(frame: pd.DataFrame) -> str:
    """``frame`` as a small HTML table (headers and cells escaped)."""
    import html

    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{_html_cell(v)}</td>" for v in row) + "</tr>"
        for row in frame.itertuples(index=False, name=None)
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _base_path(path: str | os.PathLike[str]) -> Path:
    p = Path(path)
    return p.with_suffix("") if p.suffix in (".parquet", ".json") else p


def _pair(base: Path) -> tuple[Path, Path]:
    """Return the Parquet file and JSON sidecar of ``base`` (a dot in its name is kept)."""
    return base.with_name(base.name + ".parquet"), base.with_name(base.name + ".json")


def _lists_in_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """Turn array cells (as Parquet returns list columns) into plain lists."""
    for col in frame.columns:
        if frame[col].dtype == object and any(isinstance(v, np.ndarray) for v in frame[col]):
            frame[col] = [v.tolist() if isinstance(v, np.ndarray) else v for v in frame[col]]
    return frame


def _frames_equal(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    if list(a.columns) != list(b.columns) or len(a) != len(b):
        return False
    a, b = a.copy(), b.copy()
    for col in a.columns:
        if a[col].dtype == object or b[col].dtype == object:
            a[col] = [repr(v) for v in a[col]]
            b[col] = [repr(v) for v in b[col]]
    try:
        pd.testing.assert_frame_equal(a, b, check_dtype=False, check_exact=True)
    except AssertionError:
        return False
    return True


def _package_versions() -> dict[str, str]:
    out = {}
    for name in _PACKAGES:
        try:
            out[name] = importlib_metadata.version(name)
        except importlib_metadata.PackageNotFoundError:
            continue
    return out
