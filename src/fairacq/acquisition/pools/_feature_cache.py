"""A local copy of a streamed pool's encoded features, read by position at disk speed.

A Parquet file is compressed and stored in row groups of tens of thousands of rows: reading
200 scattered rows decodes nearly every row group, and scoring the whole pool decodes the
whole file each time. :class:`FeatureCache` writes the encoded feature matrix once, row after
row as raw float64, to an anonymous temporary file (:func:`tempfile.TemporaryFile`, in
``TMPDIR``: on POSIX it has no name, so nothing is left behind even when the process is
killed); rows are then read by position (one small read each, or a whole stretch of the file
when many are wanted from it) and row ranges with one read, from the operating system's page
cache. Process memory stays the rows read: the file is never mapped.

The copy is float64, so every value keeps its bits and results do not change. It lives as
long as its owner (freed by :meth:`FeatureCache.close`, at garbage collection or at exit)
and is never shared: a pickled or resumed pool builds its own.
"""

from __future__ import annotations

import os
import tempfile
import weakref
from collections.abc import Iterable, Iterator

import numpy as np
from numpy.typing import NDArray

__all__ = ["FeatureCache"]

_ITEM = np.dtype(np.float64).itemsize
#: A stretch of the file is read whole when more than one row in this many is wanted from it
#: (a read per row costs about as much as copying this many rows).
_DENSE = 64
_PREADV = hasattr(os, "preadv")  # POSIX; elsewhere a seek and a read a row


class FeatureCache:
    """Encoded features of ``n_rows`` rows kept in a raw float64 file (see the module).

    Parameters
    ----------
    pieces : iterable of ndarray
        Consecutive row pieces (2-D float arrays of ``n_features`` columns) covering all rows.
    n_rows, n_features : int
        Shape of the whole matrix.
    chunk_rows : int
        Rows per piece that :meth:`read` yields.

    Raises
    ------
    OSError
        If the temporary folder cannot hold the copy (what was written is freed again).
    ValueError
        If the pieces do not add up to ``n_rows`` rows of ``n_features`` columns.

    Examples
    --------
    >>> X = np.arange(12.0).reshape(6, 2)
    >>> cache = FeatureCache([X[:4], X[4:]], n_rows=6, n_features=2, chunk_rows=4)
    >>> cache.rows(np.array([5, 0, 5])).tolist()
    [[10.0, 11.0], [0.0, 1.0], [10.0, 11.0]]
    >>> [piece.shape[0] for piece in cache.read(1, 6)]
    [4, 1]
    >>> cache.close()
    """

    def __init__(
        self,
        pieces: Iterable[NDArray[np.float64]],
        *,
        n_rows: int,
        n_features: int,
        chunk_rows: int,
    ) -> None:
        self.n_rows = int(n_rows)
        self.n_features = int(n_features)
        self.chunk_rows = int(chunk_rows)
        # kept open for reads; closed by close() or the finalizer (closing frees the disk)
        self._file = tempfile.TemporaryFile(prefix="fairacq-pool-", buffering=0)  # noqa: SIM115
        self._close = weakref.finalize(self, self._file.close)
        try:
            self._write(pieces)
        except BaseException:
            self.close()
            raise

    @property
    def closed(self) -> bool:
        """Whether the copy was freed."""
        return bool(self._file.closed)

    def _write(self, pieces: Iterable[NDArray[np.float64]]) -> None:
        written = 0
        for piece in pieces:
            block = np.ascontiguousarray(piece, dtype=np.float64)
            if block.ndim != 2 or block.shape[1] != self.n_features:
                raise ValueError(f"FeatureCache: a piece has shape {block.shape}.")
            view, done = block.data.cast("B"), 0
            while done < view.nbytes:  # a raw write may write less than asked
                done += self._file.write(view[done:]) or 0
            written += block.shape[0]
        if written != self.n_rows:
            raise ValueError(f"FeatureCache: got {written} rows, expected {self.n_rows}.")

    @property
    def row_bytes(self) -> int:
        """Bytes of one row in the file."""
        return self.n_features * _ITEM

    def close(self) -> None:
        """Free the copy (the object must not be read afterwards)."""
        self._close()

    def read(self, start: int, stop: int) -> Iterator[NDArray[np.float64]]:
        """Yield rows ``start .. stop-1`` in fresh pieces of at most ``chunk_rows`` rows."""
        for a in range(start, stop, self.chunk_rows):
            b = min(a + self.chunk_rows, stop)
            out = np.empty((b - a, self.n_features), dtype=np.float64)
            self._read_into(out, a)
            yield out

    def rows(self, positions: NDArray[np.int64]) -> NDArray[np.float64]:
        """Return the rows at ``positions`` (in that order, C-contiguous).

        Positions are visited in file order, ``chunk_rows`` rows of the file at a time: a
        stretch holding few of them is read a row at a time, a stretch holding many is read
        whole (one read of at most ``chunk_rows`` rows, then picked from).
        """
        pos = np.asarray(positions, dtype=np.int64).ravel()
        out = np.empty((pos.size, self.n_features), dtype=np.float64)
        in_order = bool(np.all(pos[1:] >= pos[:-1]))  # e.g. np.flatnonzero: no sort needed
        order = np.arange(pos.size) if in_order else np.argsort(pos, kind="stable")
        ordered = pos if in_order else pos[order]
        edges = np.searchsorted(
            ordered, np.arange(0, self.n_rows + self.chunk_rows, self.chunk_rows)
        )
        for w, (a, b) in enumerate(zip(edges[:-1].tolist(), edges[1:].tolist(), strict=True)):
            if (b - a) * _DENSE > self.chunk_rows:
                first = w * self.chunk_rows
                stretch = np.empty((min(self.chunk_rows, self.n_rows - first), self.n_features))
                self._read_into(stretch, first)
                if in_order:
                    np.take(stretch, ordered[a:b] - first, axis=0, out=out[a:b])
                else:
                    out[order[a:b]] = stretch[ordered[a:b] - first]
            elif b > a:
                self._read_rows(out, order[a:b], pos)
        return out

    def _read_rows(
        self, out: NDArray[np.float64], ks: NDArray[np.int64], pos: NDArray[np.int64]
    ) -> None:
        """Fill ``out[k]`` with row ``pos[k]`` for each ``k`` in ``ks``: one ``pread`` a row."""
        fd, size = self._file.fileno(), self.row_bytes
        flat = out.data.cast("B")
        for k, row in zip(ks.tolist(), pos[ks].tolist(), strict=True):
            if not _PREADV or os.preadv(fd, [flat[k * size : (k + 1) * size]], row * size) != size:
                self._read_into(out[k : k + 1], row)  # a short read: read the rest, or fail

    def _read_into(self, out: NDArray[np.float64], first_row: int) -> None:
        """Fill ``out`` (C-contiguous rows) with the rows from ``first_row`` on."""
        view = out.data.cast("B")
        self._file.seek(first_row * self.row_bytes)
        done = 0
        while done < view.nbytes:
            got = self._file.readinto(view[done:])
            if not got:
                raise OSError(
                    f"FeatureCache: the copy ended before row {first_row + out.shape[0] - 1}."
                )
            done += got
