"""Task results as JSON that executes nothing when read back: the task cache's format.

What the experiments' tasks return is plain data: numbers, strings, lists, tuples and dicts
of them, numpy arrays and scalars, and :class:`~fairacq.Trace` objects (a DataFrame of
steps plus metadata). :func:`encode` turns exactly those types into JSON values and
:func:`decode` turns them back, equal and of the same types:

- ``None``, ``bool``, ``int``, ``float`` (NaN and infinities too), ``str`` and ``list`` are
  JSON's own;
- every other value is a JSON object whose ``"~"`` names its type: ``tuple``, ``dict`` (as
  key-value pairs, so keys keep their types and order), ``ndarray`` and ``numpy`` scalars
  (the raw bytes in base64 beside the dtype, so values come back bit for bit),
  ``dataframe`` (column by column) and ``trace``.

Decoding builds only these types from their data: it looks up no class by name, imports
nothing and calls nothing named in the input, so a crafted file can at worst yield wrong
numbers, never run code. Anything else (sets, subclasses such as named tuples, object or
structured arrays, pandas extension dtypes other than strings, ...) raises
:class:`UnsupportedValueError`.
"""

from __future__ import annotations

import base64
from typing import Any

import numpy as np
import pandas as pd

from fairacq._trace import Trace

__all__ = ["CorruptValueError", "UnsupportedValueError", "decode", "encode"]

_TAG = "~"
#: numpy dtype kinds stored as raw bytes: bool, (unsigned) ints, floats, complex, bytes,
#: str, datetimes and timedeltas. Never objects or structured records.
_ARRAY_KINDS = frozenset("biufcSUMm")
_STRING_STORAGE = ("python", "pyarrow")


class UnsupportedValueError(TypeError):
    """A value of a type the task cache does not store."""


class CorruptValueError(ValueError):
    """Stored data that is not the encoding of any value."""


def encode(value: Any) -> Any:
    """Return ``value`` as JSON data (see the module's docstring for the types).

    Raises
    ------
    UnsupportedValueError
        Naming the first value of another type.

    Examples
    --------
    >>> encode({"a": (1, 2.5)})
    {'~': 'dict', 'items': [['a', {'~': 'tuple', 'items': [1, 2.5]}]]}
    """
    # numpy scalars first: np.float64 is a float and np.str_ a str, but must stay numpy
    if isinstance(value, np.generic):
        return {_TAG: "numpy", **_raw(np.asarray(value))}
    kind = type(value)
    if value is None or kind in (bool, int, float, str):
        return value
    if kind is list:
        return [encode(v) for v in value]
    if kind is tuple:
        return {_TAG: "tuple", "items": [encode(v) for v in value]}
    if kind is dict:
        return {_TAG: "dict", "items": [[encode(k), encode(v)] for k, v in value.items()]}
    if kind is np.ndarray:
        return {_TAG: "ndarray", **_raw(value)}
    if kind is pd.DataFrame:
        return _encode_frame(value)
    if kind is Trace:
        return {
            _TAG: "trace",
            "steps": _encode_frame(value.to_frame()),
            "meta": encode(value.meta),
        }
    raise UnsupportedValueError(f"a {kind.__module__}.{kind.__qualname__} cannot be stored")


def decode(data: Any) -> Any:
    """Rebuild the value :func:`encode` turned into ``data``.

    Raises
    ------
    CorruptValueError
        If ``data`` is not the encoding of a value.

    Examples
    --------
    >>> value = {"a": (1, 2.5), 3: [None, "x"]}
    >>> decode(encode(value)) == value
    True
    """
    try:
        return _decode(data)
    except CorruptValueError:
        raise
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError) as err:
        raise CorruptValueError(f"{type(err).__name__}: {err}") from None


def _decode(data: Any) -> Any:
    kind = type(data)
    if data is None or kind in (bool, int, float, str):
        return data
    if kind is list:
        return [_decode(v) for v in data]
    if kind is not dict:
        raise CorruptValueError(f"unexpected JSON value of type {kind.__name__}")
    tag = data.get(_TAG)
    if tag == "tuple":
        return tuple(_decode(v) for v in _list(data["items"]))
    if tag == "dict":
        return {_decode(k): _decode(v) for k, v in (_pair(p) for p in _list(data["items"]))}
    if tag == "ndarray":
        return _unraw(data).copy()  # frombuffer's arrays are read-only views
    if tag == "numpy":
        array = _unraw(data)
        if array.shape != ():
            raise CorruptValueError("a numpy scalar must have shape ()")
        return array[()]
    if tag == "dataframe":
        return _decode_frame(data)
    if tag == "trace":
        meta = _decode(data["meta"])
        if type(meta) is not dict:
            raise CorruptValueError("a trace's metadata must be a dict")
        return Trace(_decode_frame(data["steps"]), meta)
    raise CorruptValueError(f"unknown type tag {tag!r}")


def _list(data: Any) -> list[Any]:
    if type(data) is not list:
        raise CorruptValueError("expected a JSON array")
    return data


def _pair(data: Any) -> tuple[Any, Any]:
    if type(data) is not list or len(data) != 2:
        raise CorruptValueError("a dict item must be a [key, value] pair")
    return data[0], data[1]


def _raw(array: np.ndarray) -> dict[str, Any]:
    """Return the dtype, shape and base64 bytes of a numeric, boolean, text or time array."""
    dtype = array.dtype
    if dtype.kind not in _ARRAY_KINDS or dtype.fields is not None or dtype.hasobject:
        raise UnsupportedValueError(f"a numpy array of dtype {dtype} cannot be stored")
    data = base64.b64encode(np.ascontiguousarray(array).tobytes()).decode("ascii")
    return {"dtype": dtype.str, "shape": list(array.shape), "data": data}


def _unraw(data: dict[str, Any]) -> np.ndarray:
    if type(data["dtype"]) is not str or type(data["data"]) is not str:
        raise CorruptValueError("an array's dtype and data must be strings")
    dtype = np.dtype(data["dtype"])
    if dtype.kind not in _ARRAY_KINDS or dtype.fields is not None or dtype.hasobject:
        raise CorruptValueError(f"dtype {dtype} is not stored by the task cache")
    shape = tuple(_list(data["shape"]))
    if not all(type(n) is int and n >= 0 for n in shape):
        raise CorruptValueError("an array's shape must be non-negative integers")
    raw = base64.b64decode(data["data"], validate=True)
    return np.frombuffer(raw, dtype=dtype).reshape(shape)


def _encode_frame(frame: pd.DataFrame) -> dict[str, Any]:
    names = list(frame.columns)
    if isinstance(frame.columns, pd.MultiIndex) or len(set(names)) != len(names):
        raise UnsupportedValueError("a DataFrame with MultiIndex or repeated columns")
    index = frame.index
    if type(index) is not pd.RangeIndex or index.name is not None:
        raise UnsupportedValueError("a DataFrame whose index is not a plain RangeIndex")
    return {
        _TAG: "dataframe",
        "index": [index.start, index.stop, index.step],
        "columns": [[encode(name), _encode_column(frame[name])] for name in names],
    }


def _encode_column(column: pd.Series) -> dict[str, Any]:
    dtype = column.dtype
    if isinstance(dtype, pd.StringDtype):
        values = [None if pd.isna(v) else str(v) for v in column]
        missing = "nan" if dtype.na_value is np.nan else "NA"
        return {"strings": values, "storage": dtype.storage, "na": missing}
    if not isinstance(dtype, np.dtype):
        raise UnsupportedValueError(f"a DataFrame column of dtype {dtype} cannot be stored")
    if dtype.hasobject:
        return {"objects": [encode(v) for v in column]}
    return {"array": _raw(column.to_numpy())}


def _decode_frame(data: Any) -> pd.DataFrame:
    if type(data) is not dict or data.get(_TAG) != "dataframe":
        raise CorruptValueError("expected a DataFrame")
    start, stop, step = (int(v) for v in _list(data["index"]))
    index = pd.RangeIndex(start, stop, step)
    columns: dict[Any, Any] = {}
    for pair in _list(data["columns"]):
        name, column = _pair(pair)
        columns[_decode(name)] = _decode_column(column, index)
    return pd.DataFrame(columns, index=index)


def _decode_column(data: Any, index: pd.RangeIndex) -> pd.Series:
    if type(data) is not dict:
        raise CorruptValueError("a DataFrame column must be a JSON object")
    if "array" in data:
        values: Any = _unraw(data["array"]).copy()
    elif "objects" in data:
        values = np.empty(len(_list(data["objects"])), dtype=object)
        for i, v in enumerate(data["objects"]):
            values[i] = _decode(v)
    elif "strings" in data:
        strings = _list(data["strings"])
        if not all(v is None or type(v) is str for v in strings):
            raise CorruptValueError("a string column holds strings or nulls only")
        if data["storage"] not in _STRING_STORAGE or data["na"] not in ("nan", "NA"):
            raise CorruptValueError("unknown string storage")
        na_value = np.nan if data["na"] == "nan" else pd.NA
        values = pd.array(strings, dtype=pd.StringDtype(data["storage"], na_value=na_value))
    else:
        raise CorruptValueError("unknown DataFrame column encoding")
    if len(values) != len(index) or getattr(values, "ndim", 1) != 1:
        raise CorruptValueError("a DataFrame column's length differs from the index")
    # an explicit dtype: pandas would otherwise infer ``str`` for objects that are all strings
    series: pd.Series = pd.Series(values, index=index, dtype=values.dtype, copy=False)
    return series
