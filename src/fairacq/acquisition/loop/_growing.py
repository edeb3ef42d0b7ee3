"""An append-only array whose prefixes are cheap, unchanging snapshots (resume states)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["GrowingArray"]


class GrowingArray:
    """Integers appended in order; :meth:`view` returns what was appended so far, without a copy.

    The storage doubles when full, so appending ``k`` values costs about ``k``. A view is a
    read-only prefix of the storage; later appends write past it (or into new storage), so a
    view taken after a step still shows that step's values at the end of the run: a snapshot
    of the state at no cost, as :meth:`fairacq._loop.RunLoop.resume_state` asks.

    Parameters
    ----------
    values : array-like of int, default=()
        The first values.

    Examples
    --------
    >>> grow = GrowingArray([3])
    >>> before = grow.view()
    >>> grow.extend([5, 7])
    >>> before.tolist(), grow.view().tolist(), len(grow)
    ([3], [3, 5, 7], 3)
    """

    def __init__(self, values: ArrayLike = ()) -> None:
        first = np.asarray(values, dtype=np.int64).ravel()
        self._data = np.empty(max(16, 2 * first.size), dtype=np.int64)
        self._data[: first.size] = first
        self._size = int(first.size)

    def __len__(self) -> int:
        return self._size

    def extend(self, values: ArrayLike) -> None:
        """Append ``values`` (integers) at the end."""
        new = np.asarray(values, dtype=np.int64).ravel()
        end = self._size + new.size
        if end > self._data.size:
            grown = np.empty(max(end, 2 * self._data.size), dtype=np.int64)
            grown[: self._size] = self._data[: self._size]
            self._data = grown
        self._data[self._size : end] = new
        self._size = end

    def view(self) -> NDArray[np.int64]:
        """Return the values appended so far as a read-only view (no copy)."""
        out = self._data[: self._size]
        out.flags.writeable = False
        return out
