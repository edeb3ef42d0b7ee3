"""A candidate pool streamed from a Parquet file larger than memory.

:class:`ParquetPool` keeps only a few bytes per row in memory (label as int8, group code as
int16, cost as float64 when the file has a cost column, each sensitive column as small
integer codes) and reads the features chunk by chunk with pyarrow (``iter_batches`` over the
row groups a chunk covers). Scattered rows would decode whole row groups, so the first read
in this process writes the encoded features once to an unnamed temporary file
(:class:`~fairacq.acquisition.pools._feature_cache.FeatureCache`, 8 bytes a value on disk, freed
with the pool): the rows a batch tries are then fetched by position
(:meth:`ParquetPool.take`), and the pool scored in blocks, at disk-cache speed. Workers of a
dask cluster read the Parquet file itself. Features are encoded exactly as the training
split's :class:`~fairacq.FairDataset`: the file holds either its columns, or for a one-hot
feature group ``g`` (columns ``g=v``) the raw column ``g``, one-hot encoded with the training
split's levels (a level the training split lacks: all zeros, counted).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from fairacq._validation import MAX_ABS_VALUE
from fairacq.acquisition.pools._chunk_map import RangeReader
from fairacq.acquisition.pools._column_codes import ColumnCodes
from fairacq.acquisition.pools._feature_cache import FeatureCache
from fairacq.acquisition.pools._pool_source import (
    DEFAULT_BLOCK_ROWS,
    DEFAULT_CHUNK_ROWS,
    PoolSource,
)
from fairacq.data import FairDataset
from fairacq.exceptions import CorruptFileError, InvalidDataError

__all__ = ["ParquetPool", "ParquetReader"]


class ParquetPool(PoolSource):
    """A pool read chunk by chunk from a Parquet file (for pools larger than memory).

    Parameters
    ----------
    path : str or Path
        The Parquet file: the feature columns of ``like`` (or the raw categorical columns
        of its one-hot feature groups), the label column, the sensitive column(s) and
        optionally a cost column. Any other column is an error.
    like : FairDataset
        The training split: the pool gets its feature columns (same order), groups,
        feature groups and privileged group.
    label : str, default="label"
        The 0/1 label column.
    sensitive : str, sequence of str or None, default=None
        The sensitive column(s) whose values (joined by ``" & "`` when several) are the group
        names of ``like``; default: ``like.sensitive_attrs``.
    cost_column : str or None, default=None
        Per-row acquisition cost (positive).
    chunk_rows : int, default=65_536
        Rows read at a time (one task of a chunk executor); best a multiple of the file's
        row-group size or a divisor of it.
    block_rows : int, default=4096
        Rows scored together (keep the default to match an :class:`InMemoryPool`).
    name : str, default="pool"
        Short name.
    positive : str or None, default=None
        The favourable value of a label that is not 0/1 (compared as text).
    ignore : sequence of str, default=()
        Further columns of the file that are neither features nor roles (ids, notes).
    fill_values : dict or None, default=None
        What a missing value of a raw column becomes (an imputing
        :class:`~fairacq.data.TableEncoder`'s ``fill_values_``); None refuses them.

    A raw categorical value the training split did not have encodes as all zeros; the rows
    holding one are counted once when the pool is opened (:attr:`unknown_counts`, and a
    warning).

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    CorruptFileError
        If pyarrow cannot read the file (naming it).
    InvalidDataError
        For missing or extra columns, a non-numeric feature, a label that is not 0/1, a
        group that ``like`` does not have, or a missing or non-positive cost (naming the
        row). Missing or infinite features are reported, with their row, when read.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from fairacq.data import load_toy
    >>> ds = load_toy(50)
    >>> frame = ds.X.assign(label=ds.y, group=ds.sensitive.iloc[:, 0])
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "pool.parquet"
    >>> frame.to_parquet(path)
    >>> pool = ParquetPool(path, like=ds, sensitive="group", chunk_rows=16)
    >>> len(pool), bool((pool.take([3, 1]).to_numpy() == ds.to_numpy()[[3, 1]]).all())
    (50, True)
    """

    def __init__(
        self,
        path: str | Path,
        *,
        like: FairDataset,
        label: str = "label",
        sensitive: str | Sequence[str] | None = None,
        cost_column: str | None = None,
        chunk_rows: int = DEFAULT_CHUNK_ROWS,
        block_rows: int = DEFAULT_BLOCK_ROWS,
        name: str = "pool",
        positive: str | None = None,
        ignore: Sequence[str] = (),
        fill_values: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(chunk_rows=chunk_rows, block_rows=block_rows)
        if not isinstance(like, FairDataset):
            raise InvalidDataError(
                f"ParquetPool: like must be the training FairDataset, got {type(like).__name__}."
            )
        self.path = Path(path)
        self._name = name
        self._template = like.subset(np.zeros(0, dtype=np.int64))
        if sensitive is None:
            sens_cols = list(like.sensitive_attrs)
        else:
            sens_cols = [sensitive] if isinstance(sensitive, str) else list(sensitive)
        self.sensitive_columns = sens_cols
        self.label = label
        self.positive = positive
        self.cost_column = cost_column
        pf = _open(self.path)
        schema = pf.schema_arrow
        self._offsets = np.concatenate(
            [[0], np.cumsum([pf.metadata.row_group(i).num_rows for i in range(pf.num_row_groups)])]
        ).astype(np.int64)
        named = [label, *sens_cols, *([cost_column] if cost_column is not None else [])]
        absent = [c for c in named if c not in schema.names]
        if absent:
            raise InvalidDataError(
                f"{self.path}: no column {absent[0]!r} (the label, sensitive or cost column). "
                f"Columns: {', '.join(schema.names[:12])}. Pass the right names "
                "(--label/--sensitive/--cost)."
            )
        direct, categorical = _feature_plan(self.path, like, schema)
        used = set(direct) | set(categorical) | {label, *sens_cols, *ignore}
        used |= {cost_column} if cost_column is not None else set()
        extra = [c for c in schema.names if c not in used]
        if extra:
            raise InvalidDataError(
                f"{self.path}: columns {extra[:5]} are neither features of the training split, "
                f"the label {label!r}, the sensitive column(s) {sens_cols} nor the cost column. "
                "Drop them from the file, name them with --label/--sensitive/--cost, or "
                "ignore them with --drop."
            )
        self._reader = ParquetReader(
            self.path,
            direct=direct,
            categorical=categorical,
            feature_names=like.feature_names,
            chunk_rows=self.chunk_rows,
            offsets=self._offsets,
            fill_values=fill_values,
        )
        self.unknown_counts: dict[str, int] = dict.fromkeys(categorical, 0)
        self._sensitive = {c: ColumnCodes(schema.field(c).type) for c in sens_cols}
        self._y, self._s, self._costs = self._read_side(pf)
        self._cache: FeatureCache | None = None
        self._cache_failed = False
        _warn_unknown(self.path, self.unknown_counts)

    # -- PoolSource ----------------------------------------------------------------------
    def __len__(self) -> int:
        return int(self._offsets[-1])

    @property
    def name(self) -> str:
        """Short name of the pool."""
        return self._name

    @property
    def template(self) -> FairDataset:
        """The training split's columns and groups, without rows."""
        return self._template

    @property
    def y(self) -> NDArray[np.int64]:
        """Binary label of every row."""
        return self._y.astype(np.int64)

    @property
    def s(self) -> NDArray[np.int64]:
        """Group code of every row."""
        return self._s.astype(np.int64)

    @property
    def costs(self) -> NDArray[np.float64] | None:
        """Cost of every row (None without a cost column)."""
        return self._costs

    def reader(self) -> ParquetReader:
        """Return the picklable reader that workers use to read their own rows."""
        return self._reader

    def take(self, positions: ArrayLike) -> FairDataset:
        """Return the rows at ``positions`` (in that order), reading only their row groups."""
        pos = np.asarray(positions, dtype=np.int64).ravel()
        if pos.size and (pos.min() < 0 or pos.max() >= len(self)):
            raise InvalidDataError(
                f"ParquetPool.take: positions must lie in 0 .. {len(self) - 1}; got "
                f"{int(pos.min())} .. {int(pos.max())}."
            )
        X = self._features_at(pos)
        sens = pd.DataFrame(
            {c: self._sensitive[c].take_pandas(pos) for c in self.sensitive_columns}
        )
        attrs = list(self._template.sensitive_attrs)
        if len(attrs) == len(self.sensitive_columns):
            sens.columns = pd.Index(attrs)
        return self._template.with_rows(
            pd.DataFrame(X, columns=self._template.feature_names),
            self._y[pos],
            self._s[pos],
            sens,
        )

    def read_rows(self, positions: ArrayLike) -> NDArray[np.float64]:
        """Return the features of the rows at ``positions`` (C-contiguous)."""
        return self._features_at(np.asarray(positions, dtype=np.int64).ravel())

    def labels_at(self, positions: ArrayLike) -> NDArray[np.int64]:
        """Return the labels of the rows at ``positions`` (no copy of the pool's labels)."""
        return self._y[np.asarray(positions, dtype=np.int64).ravel()].astype(np.int64)

    def local_reader(self) -> RangeReader:
        """Return the reader of the local copy of the features (built on first use).

        Falls back to :meth:`reader` when the temporary folder cannot hold the copy.
        """
        cache = self._local_cache()
        return self._reader if cache is None else cache

    def close(self) -> None:
        """Delete the local copy of the features (a later read builds it again)."""
        if self._cache is not None:
            self._cache.close()
            self._cache = None

    def __getstate__(self) -> dict[str, Any]:
        # a copy (another process, a resumed run) builds its own local copy, never shares one
        return {**self.__dict__, "_cache": None, "_cache_failed": False}

    def _features_at(self, pos: NDArray[np.int64]) -> NDArray[np.float64]:
        cache = self._local_cache()
        if cache is not None:
            return cache.rows(pos)
        return self._reader.encode_arrow(self._reader.read_positions(pos, extra=[]), pos)

    def _pieces_by_row_group(self) -> Iterator[NDArray[np.float64]]:
        """Yield the encoded features a row group at a time, handing Arrow's memory back.

        Arrow's allocator keeps freed buffers: a whole-file pass would otherwise leave the
        process holding about the file's decoded size.
        """
        import pyarrow as pa  # type: ignore[import-untyped]

        off = self._offsets
        for g in range(off.size - 1):
            yield from self._reader.read(int(off[g]), int(off[g + 1]))
            pa.default_memory_pool().release_unused()

    def _local_cache(self) -> FeatureCache | None:
        """Return the local copy of the features, writing it on first use (None if it cannot)."""
        if self._cache is None and not self._cache_failed:
            try:
                self._cache = FeatureCache(
                    self._pieces_by_row_group(),
                    n_rows=len(self),
                    n_features=len(self._template.feature_names),
                    chunk_rows=self.chunk_rows,
                )
            except CorruptFileError:
                raise
            except OSError as exc:
                self._cache_failed = True
                _warn_no_cache(self.path, len(self) * len(self._template.feature_names), exc)
        return self._cache

    def sensitive_values(self, column: str) -> NDArray[np.object_] | None:
        """Return a sensitive column's values as strings (read from the file)."""
        attrs = list(self._template.sensitive_attrs)
        if column in self.sensitive_columns:
            file_col = column
        elif column in attrs and len(attrs) == len(self.sensitive_columns):
            file_col = self.sensitive_columns[attrs.index(column)]
        else:
            return None
        values = [
            frame[file_col].astype(str).to_numpy(dtype=object)
            for frame, _ in self._reader.iter_frames(0, len(self), [file_col])
        ]
        return np.concatenate(values) if values else np.empty(0, dtype=object)

    # -- the side arrays -----------------------------------------------------------------
    def _labels(self, values: pd.Series, start: int) -> NDArray[np.int8]:
        if self.positive is not None:
            if values.isna().any():
                row = start + int(np.flatnonzero(values.isna().to_numpy())[0])
                raise InvalidDataError(
                    f"{self.path}: label {self.label!r} is missing in row {row}. Drop such rows."
                )
            return (values.astype(str) == str(self.positive)).to_numpy().astype(np.int8)
        lab = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64)
        bad = np.flatnonzero(~np.isin(lab, [0.0, 1.0]))
        if bad.size:
            raise InvalidDataError(
                f"{self.path}: label {self.label!r} must be 0/1; row {start + bad[0]} holds "
                f"{_plain(values.iloc[bad[0]])!r}. Name the favourable value with --positive."
            )
        return lab.astype(np.int8)

    def _read_side(
        self, pf: Any
    ) -> tuple[NDArray[np.int8], NDArray[np.int16], NDArray[np.float64] | None]:
        names = {g: k for k, g in enumerate(self._template.group_names)}
        cols = [self.label, *self.sensitive_columns, *self._reader.categorical]
        if self.cost_column is not None:
            cols.append(self.cost_column)
        n = len(self)
        y = np.empty(n, dtype=np.int8)
        s = np.empty(n, dtype=np.int16)
        costs = np.empty(n, dtype=np.float64) if self.cost_column is not None else None
        for batch, start in self._reader.iter_batches(0, n, cols):
            frame = batch.to_pandas()
            stop = start + len(frame)
            for col, codes in self._sensitive.items():
                codes.add(batch.column(batch.schema.names.index(col)))
            y[start:stop] = self._labels(frame[self.label], start)
            for col, levels in self._reader.categorical.items():
                known = frame[col].isna() | frame[col].astype(str).isin(levels)
                self.unknown_counts[col] += int((~known).sum())
            key = frame[self.sensitive_columns[0]].astype(str)
            for col in self.sensitive_columns[1:]:
                key = key + " & " + frame[col].astype(str)
            codes = key.map(names)
            if codes.isna().any():
                i = int(np.flatnonzero(codes.isna().to_numpy())[0])
                raise InvalidDataError(
                    f"{self.path}: row {start + i} is in group {key.iloc[i]!r}, which the "
                    f"training split does not have (groups: {self._template.group_names}). "
                    "Drop such rows or add them to the training split's groups."
                )
            s[start:stop] = codes.to_numpy(dtype=np.int16)
            if costs is not None:
                c = pd.to_numeric(frame[self.cost_column], errors="coerce").to_numpy(
                    dtype=np.float64
                )
                bad = np.flatnonzero(~np.isfinite(c) | (c <= 0))
                if bad.size:
                    raise InvalidDataError(
                        f"{self.path}: cost column {self.cost_column!r} must be finite and "
                        f"positive; row {start + bad[0]} holds {float(c[bad[0]])!r}. Fix or "
                        "drop it."
                    )
                costs[start:stop] = c
        for codes in self._sensitive.values():
            codes.finish()
        return y, s, costs


class ParquetReader:
    """Reads and encodes row ranges of a Parquet pool (picklable: workers open the file).

    Parameters
    ----------
    path : Path
        The file (made absolute here: dask workers may run in another folder).
    direct : list of str
        Feature columns read as they are.
    categorical : dict of str to list of str
        Raw categorical columns and the levels of their one-hot encoding.
    feature_names : list of str
        Order of the encoded feature matrix.
    chunk_rows : int
        Rows per piece read.
    offsets : ndarray of int
        First row of every row group, then the number of rows.
    fill_values : dict or None, default=None
        What a missing raw value becomes; None leaves it missing (then refused).
    """

    def __init__(
        self,
        path: Path,
        *,
        direct: list[str],
        categorical: dict[str, list[str]],
        feature_names: list[str],
        chunk_rows: int,
        offsets: NDArray[np.int64],
        fill_values: dict[str, Any] | None = None,
    ) -> None:
        self.path = Path(path).absolute()
        self.fill_values = dict(fill_values or {})
        self.direct = direct
        self.categorical = categorical
        self.feature_names = feature_names
        self.chunk_rows = chunk_rows
        self.offsets = offsets

    @property
    def columns(self) -> list[str]:
        """File columns that hold the features."""
        return [*self.direct, *self.categorical]

    def iter_frames(
        self, start: int, stop: int, columns: list[str]
    ) -> Iterator[tuple[pd.DataFrame, int]]:
        """Yield ``(frame, first_row)`` pieces of ``columns`` covering ``start .. stop-1``."""
        for batch, first in self.iter_batches(start, stop, columns):
            yield batch.to_pandas(), first

    def iter_batches(self, start: int, stop: int, columns: list[str]) -> Iterator[tuple[Any, int]]:
        """Yield ``(record_batch, first_row)`` pieces of ``columns`` covering the rows."""
        if stop <= start:
            return
        off = self.offsets
        groups = [i for i in range(off.size - 1) if off[i] < stop and off[i + 1] > start]
        pf = _open(self.path)
        pos = int(off[groups[0]])
        try:
            for batch in pf.iter_batches(
                batch_size=self.chunk_rows, row_groups=groups, columns=columns, use_threads=False
            ):
                a, b = pos, pos + batch.num_rows
                pos = b
                lo, hi = max(a, start), min(b, stop)
                if lo < hi:
                    yield batch.slice(lo - a, hi - lo), lo
                if pos >= stop:
                    break
        except (OSError, ValueError) as exc:  # pyarrow's ArrowException subclasses both
            raise CorruptFileError(
                f"Cannot read rows {start}..{stop - 1} of {self.path} "
                f"({type(exc).__name__}: {exc}). Rewrite the file."
            ) from exc

    def read(self, start: int, stop: int) -> Iterator[NDArray[np.float64]]:
        """Yield the encoded features of rows ``start .. stop-1`` in pieces."""
        for batch, first in self.iter_batches(start, stop, self.columns):
            yield self.encode_arrow(batch, np.arange(first, first + batch.num_rows))

    def read_positions(self, pos: NDArray[np.int64], extra: list[str]) -> Any:
        """Return the feature (and ``extra``) columns of rows ``pos`` (an Arrow table)."""
        import pyarrow as pa

        cols = list(dict.fromkeys([*self.columns, *extra]))
        order = np.argsort(pos, kind="stable")
        ordered = pos[order]
        group_of = np.searchsorted(self.offsets, ordered, side="right") - 1
        pf = _open(self.path)
        tables = []
        try:
            for g in np.unique(group_of):
                local = ordered[group_of == g] - self.offsets[g]
                table = pf.read_row_group(int(g), columns=cols, use_threads=False)
                tables.append(table.take(pa.array(local)))
        except (OSError, ValueError) as exc:
            raise CorruptFileError(
                f"Cannot read rows of {self.path} ({type(exc).__name__}: {exc}). Rewrite the file."
            ) from exc
        if not tables:
            fields = pf.schema_arrow
            return pa.table({c: pa.array([], type=fields.field(c).type) for c in cols})
        inverse = np.empty_like(order)
        inverse[order] = np.arange(order.size)
        return pa.concat_tables(tables).take(pa.array(inverse))

    def encode_arrow(self, data: Any, rows: NDArray[np.int64]) -> NDArray[np.float64]:
        """Encode an Arrow batch or table of file columns as the feature matrix.

        Numeric columns are copied straight from Arrow (the values pandas would give, without
        its copies); raw categorical columns go through :meth:`encode`.
        """
        if self.categorical or self.fill_values:
            return self.encode(data.to_pandas(), rows)
        names = data.schema.names
        X = np.empty((len(self.feature_names), data.num_rows), dtype=np.float64)
        for j, name in enumerate(self.feature_names):
            X[j] = data.column(names.index(name)).to_numpy(zero_copy_only=False)
        return self._check_finite(X.T, rows)

    def encode(self, frame: pd.DataFrame, rows: NDArray[np.int64]) -> NDArray[np.float64]:
        """Encode a frame of file columns as the training split's feature matrix."""
        frame = frame[self.columns]
        if self.fill_values:
            frame = frame.fillna(
                {c: self.fill_values[c] for c in self.columns if c in self.fill_values}
            )
        pieces = [frame[self.direct].astype(np.float64)]
        for col, levels in self.categorical.items():
            self._refuse_missing(frame[col], col, rows)
            codes = pd.Categorical(frame[col].astype(str), categories=levels).codes
            block = np.zeros((len(frame), len(levels)), dtype=np.float64)
            hit = codes >= 0  # a category the training split lacks stays all zeros
            block[np.flatnonzero(hit), codes[hit]] = 1.0
            names = [f"{col}={level}" for level in levels]
            pieces.append(pd.DataFrame(block, columns=names, index=frame.index))
        X = pd.concat(pieces, axis=1)[self.feature_names].to_numpy(dtype=np.float64)
        return self._check_finite(X, rows)

    def _refuse_missing(self, values: pd.Series, col: str, rows: NDArray[np.int64]) -> None:
        gaps = values.isna().to_numpy()
        if gaps.any():
            raise InvalidDataError(
                f"{self.path}: row {int(rows[np.flatnonzero(gaps)[0]])} has no value in column "
                f"{col!r}. Fill or drop such rows, or pass --impute."
            )

    def _check_finite(
        self, X: NDArray[np.float64], rows: NDArray[np.int64]
    ) -> NDArray[np.float64]:
        X = np.ascontiguousarray(X)
        finite = np.isfinite(X)
        if not finite.all():
            i, j = (int(v[0]) for v in np.nonzero(~finite))
            raise InvalidDataError(
                f"{self.path}: row {int(rows[i])} has a missing or infinite value in feature "
                f"{self.feature_names[j]!r}. Fill or drop such rows before acquiring."
            )
        huge = np.abs(X) >= MAX_ABS_VALUE  # its square overflows: models and scalers break
        if huge.any():
            i, j = (int(v[0]) for v in np.nonzero(huge))
            raise InvalidDataError(
                f"{self.path}: row {int(rows[i])} has the value {X[i, j]:g} in feature "
                f"{self.feature_names[j]!r}, too large to compute with (its square "
                "overflows). Rescale the column (other units or its logarithm) or drop the row."
            )
        return X


def _warn_no_cache(path: Path, values: int, exc: OSError) -> None:
    import tempfile

    from fairacq._warnings import warn_caller

    warn_caller(
        f"{path}: could not keep a local copy of the pool's features "
        f"({values * 8 / 2**20:.0f} MB) in {tempfile.gettempdir()} ({exc}); rows are read "
        "from the Parquet file instead, which is slower. Point TMPDIR to a folder with room."
    )


def _warn_unknown(path: Path, counts: dict[str, int]) -> None:
    seen = {c: n for c, n in counts.items() if n}
    if seen:
        from fairacq._warnings import warn_caller

        listed = ", ".join(f"{c}: {n}" for c, n in seen.items())
        warn_caller(
            f"{path}: {sum(seen.values())} value(s) in categories the training data did not "
            f"have ({listed}); they are encoded as all zeros."
        )


def _plain(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else value


def _open(path: Path) -> Any:
    import pyarrow.parquet as pq  # type: ignore[import-untyped]

    if not path.exists():
        raise FileNotFoundError(f"No pool file {path}. Check the path.")
    try:
        return pq.ParquetFile(path)
    except (OSError, ValueError) as exc:
        raise CorruptFileError(
            f"Cannot read the Parquet file {path} ({type(exc).__name__}: {exc}). Check that it "
            "is a complete Parquet file (rewrite it with pandas.DataFrame.to_parquet)."
        ) from exc


def _feature_plan(
    path: Path, like: FairDataset, schema: Any
) -> tuple[list[str], dict[str, list[str]]]:
    """Decide, per feature group of ``like``, which file columns give its features."""
    import pyarrow as pa

    names = set(schema.names)
    direct: list[str] = []
    categorical: dict[str, list[str]] = {}
    missing: list[str] = []
    for group, cols in like.feature_groups.items():
        if all(c in names for c in cols):
            direct.extend(cols)
        elif group in names and len(cols) > 1 and all(c.startswith(f"{group}=") for c in cols):
            categorical[group] = [c[len(group) + 1 :] for c in cols]
        else:
            missing.extend(c for c in cols if c not in names)
    if missing:
        raise InvalidDataError(
            f"{path}: the pool file lacks feature columns of the training split: "
            f"{missing[:5]}{' ...' if len(missing) > 5 else ''} ({len(missing)} missing). "
            "Write the pool with the training split's columns."
        )
    for col in direct:
        kind = schema.field(col).type
        if not (
            pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind)
        ):
            raise InvalidDataError(
                f"{path}: feature column {col!r} is not numeric ({kind}). Encode it as the "
                "training split is encoded, or name it in --categorical."
            )
    return direct, categorical
