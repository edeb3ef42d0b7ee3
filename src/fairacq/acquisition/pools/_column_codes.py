"""A file column held as small integer codes into its distinct values (for streamed pools).

A streamed pool hands back the sensitive column(s) of the rows a batch tries. Reading them
from the Parquet file decodes whole row groups; :class:`ColumnCodes` keeps instead one code
per row (the smallest integer type that fits) and the distinct values once, as an Arrow
array of the file's type, so that the values of any rows come back without the file and
convert to pandas as the file's column does.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

__all__ = ["ColumnCodes"]


class ColumnCodes:
    """One column's values as codes into its distinct values, filled piece by piece.

    Parameters
    ----------
    kind : pyarrow.DataType
        The column's type in the file.

    Examples
    --------
    >>> import pyarrow as pa
    >>> codes = ColumnCodes(pa.string())
    >>> codes.add(pa.array(["b", "a", None]))
    >>> codes.add(pa.array(["a", "c"]))
    >>> codes.finish()
    >>> codes.take(np.array([4, 0, 2, 3])).to_pylist()
    ['c', 'b', None, 'a']
    >>> codes.codes.dtype
    dtype('int8')
    """

    def __init__(self, kind: Any) -> None:
        import pyarrow as pa  # type: ignore[import-untyped]

        self.kind = kind
        self._plain = kind.value_type if pa.types.is_dictionary(kind) else kind
        self._lookup: dict[Any, int] = {}
        self._pieces: list[NDArray[np.int64]] = []
        self.codes: NDArray[np.signedinteger[Any]] = np.empty(0, dtype=np.int8)
        self._values: Any = None
        self._pandas: Any = None  # the distinct values as pandas holds them (first use)

    def add(self, column: Any) -> None:
        """Append the rows of an Arrow array (the next rows of the column)."""
        import pyarrow as pa
        import pyarrow.compute as pc  # type: ignore[import-untyped]

        if pa.types.is_dictionary(column.type):
            column = column.dictionary_decode()
        encoded = pc.dictionary_encode(column)
        local = [
            self._lookup.setdefault(v, len(self._lookup)) for v in encoded.dictionary.to_pylist()
        ]
        remap = np.array([*local, -1], dtype=np.int64)  # index -1: a missing value
        self._pieces.append(remap[encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False)])

    def finish(self) -> None:
        """Pack the codes into the smallest integer type and the values into one array."""
        import pyarrow as pa

        joined = np.concatenate(self._pieces) if self._pieces else np.empty(0, dtype=np.int64)
        self.codes = joined.astype(np.min_scalar_type(-max(len(self._lookup), 1)))
        self._values = pa.array(list(self._lookup), type=self._plain)
        self._pieces = []

    def take_pandas(self, positions: NDArray[np.int64]) -> Any:
        """Return the values of the rows at ``positions``, a Series as ``to_pandas`` gives it.

        A string column without missing values is picked from the distinct values converted
        once (the same values and dtype, without a conversion per call); any other column
        is converted from :meth:`take`.

        Examples
        --------
        >>> import pyarrow as pa
        >>> codes = ColumnCodes(pa.string())
        >>> codes.add(pa.array(["b", "a", "b"]))
        >>> codes.finish()
        >>> list(codes.take_pandas(np.array([2, 1])))
        ['b', 'a']
        """
        import pyarrow as pa

        picked = self.codes[positions]
        plain_text = pa.types.is_string(self.kind) or pa.types.is_large_string(self.kind)
        if not plain_text or (picked.size and picked.min() < 0):
            return pa.table({"v": self.take(positions)}).to_pandas()["v"]
        if self._pandas is None:
            self._pandas = pa.table({"v": self._values}).to_pandas()["v"].array
        return pd.Series(self._pandas.take(picked.astype(np.intp)), name="v")

    def take(self, positions: NDArray[np.int64]) -> Any:
        """Return the values of the rows at ``positions`` as an Arrow array of the file's type."""
        import pyarrow as pa

        picked = self.codes[positions].astype(np.int32)
        values = self._values.take(pa.array(picked, mask=picked < 0))
        return values.dictionary_encode() if pa.types.is_dictionary(self.kind) else values
