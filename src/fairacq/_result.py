"""One protocol for every result: a table, a saved folder, and a view in a notebook.

Every result class (``*Result``) subclasses :class:`Result`: :meth:`~Result.to_frame` gives
its numbers as a table, :meth:`~Result.save` writes it to a folder that
:meth:`~Result.load` reads back, and a notebook shows a one-line summary and the table's
first rows (``_repr_html_``). A result is a frozen dataclass, and saving walks its fields:

- None, bool, int, float (NaN and infinities too) and str go to ``result.json``;
- tuples, lists and dicts with string keys are walked the same way;
- numpy arrays and pandas DataFrames become Parquet files, a :class:`~fairacq.Trace` its
  Parquet file and sidecar;
- another result, or a dataclass marked with :func:`saveable`, is walked field by field;
- a field named in the class's ``_not_saved`` (a live model with its own ``save``) is left
  out and comes back as None.

Anything else is refused when saving, naming the field. Loading builds only the classes
registered here, looked up by name, never a class or function named by the file (no pickle,
no import), so a result folder from someone else is safe to load; the folder's manifest
refuses a file edited or swapped since the save.
"""

from __future__ import annotations

import abc
import dataclasses
import html
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import numpy as np
import pandas as pd

from fairacq._artefact import MANIFEST, artefact_folder, check_manifest
from fairacq._io import read_json, write_json
from fairacq._trace import Trace
from fairacq.exceptions import CorruptFileError, InvalidParameterError

__all__ = ["FORMAT", "Result", "saveable"]

#: The layout of a saved result folder (raised when it changes).
FORMAT = "result/1"
_DOCUMENT = "result.json"
_HTML_ROWS = 20
_TAGS = ("$array", "$frame", "$trace", "$tuple", "$object")

#: Every class a result folder may name: results and :func:`saveable` dataclasses.
_REGISTRY: dict[str, type] = {}

T = TypeVar("T")
R = TypeVar("R", bound="Result")


def _register(cls: type) -> None:
    name = cls.__name__
    known = _REGISTRY.get(name)
    if known is not None and known.__qualname__ != cls.__qualname__:
        raise TypeError(f"Two saveable classes are named {name}: {known} and {cls}.")
    _REGISTRY[name] = cls


def saveable(cls: type[T]) -> type[T]:
    """Mark a dataclass as a part a result may hold: saved and loaded field by field.

    Examples
    --------
    >>> @saveable
    ... @dataclasses.dataclass(frozen=True)
    ... class Interval:
    ...     low: float
    ...     high: float
    >>> _REGISTRY["Interval"] is Interval
    True
    """
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls.__name__} must be a dataclass to be saveable.")
    _register(cls)
    return cls


class Result(abc.ABC):
    """What every result shares: ``to_frame``, ``save`` / ``load`` and a notebook view.

    Subclasses are frozen dataclasses that implement :meth:`to_frame`; they may name fields
    not to save in ``_not_saved`` (each comes back as None) and override :meth:`_caption`.
    """

    #: Fields left out of :meth:`save` (live models with their own save); None after load.
    _not_saved: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _register(cls)

    @abc.abstractmethod
    def to_frame(self) -> pd.DataFrame:
        """Return the result's numbers as a table (one row per item the result is about)."""

    def _caption(self) -> str:
        """One line above the table in a notebook."""
        return f"{len(self.to_frame())} rows"

    def _repr_html_(self) -> str:
        """Jupyter's view: the class, :meth:`_caption`, then the table's first rows."""
        frame = self.to_frame()
        shown = frame.head(_HTML_ROWS)
        more = f" (first {len(shown)} shown)" if len(frame) > len(shown) else ""
        head = f"<b>{type(self).__name__}</b>: {html.escape(self._caption())}{more}"
        return f"<div><p>{head}</p>{shown.to_html(max_cols=20)}</div>"

    def save(self, path: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
        """Write the result to the folder ``path`` (built aside, then swapped in whole).

        Parameters
        ----------
        path : path-like
            A new folder, or (with ``overwrite``) one holding a saved result.
        overwrite : bool, default=False
            Whether a result saved earlier at ``path`` may be replaced.

        Returns
        -------
        pathlib.Path
            The folder.

        Raises
        ------
        InvalidParameterError
            If ``path`` exists and is not a saved result, or is one and not ``overwrite``.
        TypeError
            If a field holds something that cannot be saved safely (named).
        """
        folder = Path(path)
        _check_target(folder, overwrite=overwrite)
        with artefact_folder(folder, format=FORMAT) as building:
            writer = _Writer(building)
            document = {"class": type(self).__name__, "fields": _fields(self, writer)}
            write_json(building / _DOCUMENT, document)
        return folder

    @classmethod
    def load(cls: type[R], path: str | os.PathLike[str]) -> R:
        """Read a result written by :meth:`save`.

        Raises
        ------
        CorruptFileError
            If the folder is not a saved result, holds another class of result, or a file
            in it was edited or swapped since the save (one line, with the fix).
        """
        folder = Path(path)
        if not (folder / MANIFEST).is_file():
            raise CorruptFileError(f"{folder} is not a saved result (no {MANIFEST}).")
        check_manifest(folder, formats={FORMAT})
        document = read_json(folder / _DOCUMENT)
        saved = document.get("class") if isinstance(document, dict) else None
        if saved != cls.__name__:
            raise CorruptFileError(
                f"{folder} holds a {saved}, not a {cls.__name__}. Load it with {saved}.load."
            )
        result = _Reader(folder).decode({"$object": saved, "fields": document.get("fields")})
        return result  # type: ignore[no-any-return]


def _check_target(folder: Path, *, overwrite: bool) -> None:
    if not folder.exists():
        return
    if not (folder / MANIFEST).is_file() or not (folder / _DOCUMENT).is_file():
        raise InvalidParameterError(
            f"{folder} exists and is not a saved result; pass a new folder to save into."
        )
    if not overwrite:
        raise InvalidParameterError(
            f"{folder} already holds a saved result; pass overwrite=True to replace it, "
            "or another folder."
        )


def _fields(obj: Any, writer: _Writer) -> dict[str, Any]:
    skipped = getattr(type(obj), "_not_saved", ())
    out = {}
    for field in dataclasses.fields(obj):
        if field.name in skipped:
            continue
        try:
            out[field.name] = writer.encode(getattr(obj, field.name))
        except TypeError as exc:
            raise TypeError(f"{type(obj).__name__}.{field.name}: {exc}") from None
    return out


class _Writer:
    """Turns field values into JSON, writing arrays, tables and traces as files."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.count = 0

    def _next(self, suffix: str) -> tuple[str, Path]:
        self.count += 1
        name = f"data/{self.count}{suffix}"
        (self.folder / "data").mkdir(exist_ok=True)
        return name, self.folder / name

    def encode(self, value: Any) -> Any:
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, (np.bool_, np.integer, np.floating)) or type(value) in (int, float):
            return value.item() if isinstance(value, np.generic) else value
        if isinstance(value, np.ndarray):
            return {"$array": self._array(value)}
        if isinstance(value, pd.DataFrame):
            return {"$frame": self._frame(value)}
        if isinstance(value, Trace):
            name, where = self._next("")
            value.save(where)
            return {"$trace": name}
        if isinstance(value, tuple):
            return {"$tuple": [self.encode(v) for v in value]}
        if isinstance(value, list):
            return [self.encode(v) for v in value]
        if isinstance(value, Mapping):
            return self._mapping(value)
        name = type(value).__name__
        if dataclasses.is_dataclass(value) and _REGISTRY.get(name) is type(value):
            return {"$object": name, "fields": _fields(value, self)}
        raise TypeError(f"a {type(value).__name__} cannot be saved safely.")

    def _mapping(self, value: Mapping[Any, Any]) -> dict[str, Any]:
        bad = [k for k in value if not isinstance(k, str) or k.startswith("$")]
        if bad:
            raise TypeError(f"a dict key {bad[0]!r} is not a string (or starts with '$').")
        return {k: self.encode(v) for k, v in value.items()}

    def _array(self, value: np.ndarray) -> dict[str, Any]:
        if value.dtype == object or value.dtype.kind not in "biufUS":
            raise TypeError(f"an array of {value.dtype} cannot be saved safely.")
        rows = value.shape[0] if value.ndim else 1
        flat = value.reshape(rows, int(np.prod(value.shape[1:], dtype=int)))
        table = pd.DataFrame({str(i): flat[:, i] for i in range(flat.shape[1])})
        name, where = self._next(".parquet")
        table.to_parquet(where, index=False)
        return {"file": name, "dtype": value.dtype.str, "shape": list(value.shape)}

    def _frame(self, value: pd.DataFrame) -> dict[str, Any]:
        if not all(isinstance(c, str) for c in value.columns):
            raise TypeError("a table's column names must all be strings to be saved.")
        name, where = self._next(".parquet")
        try:
            value.to_parquet(where)
        except (TypeError, ValueError) as exc:  # pyarrow: a column it cannot store
            raise TypeError(f"a table cannot be written as Parquet ({exc}).") from None
        # Parquet reads Python objects back as a text column with NaN for None
        objects = [c for c in value.columns if value[c].dtype == object]
        return {"file": name, "object_columns": objects}


class _Reader:
    """Turns ``result.json`` back into values, reading the files it names."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def decode(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self.decode(v) for v in value]
        if not isinstance(value, dict):
            return value
        tag = next((t for t in _TAGS if t in value), None)
        if tag is None:
            return {k: self.decode(v) for k, v in value.items()}
        if tag == "$tuple":
            return tuple(self.decode(v) for v in value[tag])
        if tag == "$array":
            return self._array(value[tag])
        if tag == "$frame":
            return self._frame(value[tag])
        if tag == "$trace":
            return Trace.load(self._file(value[tag]))
        return self._object(value[tag], value.get("fields"))

    def _file(self, name: Any) -> Path:
        where = (self.folder / str(name)).resolve()
        if not isinstance(name, str) or self.folder.resolve() not in where.parents:
            raise CorruptFileError(f"{self.folder / _DOCUMENT} names a file outside its folder.")
        return where

    def _frame(self, spec: Any) -> pd.DataFrame:
        if not isinstance(spec, dict):
            raise CorruptFileError(f"{self.folder / _DOCUMENT} describes a table it cannot read.")
        frame = pd.read_parquet(self._file(spec.get("file")))
        for column in spec.get("object_columns") or ():
            if column in frame.columns:
                values = frame[column].astype(object)
                frame[column] = values.where(values.notna(), None)
        return frame

    def _array(self, spec: Any) -> np.ndarray:
        try:
            dtype, shape = np.dtype(spec["dtype"]), tuple(int(n) for n in spec["shape"])
        except (TypeError, KeyError, ValueError):
            dtype, shape = np.dtype(object), ()
        if dtype.kind not in "biufUS":
            raise CorruptFileError(f"{self.folder} names an array of {dtype}, not saved here.")
        if not np.prod(shape[1:], dtype=int):
            return np.zeros(shape, dtype=dtype)
        table = pd.read_parquet(self._file(spec["file"]))
        flat = np.column_stack([table[c].to_numpy() for c in table.columns])
        return flat.astype(dtype).reshape(shape)

    def _object(self, name: Any, fields: Any) -> Any:
        cls = _REGISTRY.get(name) if isinstance(name, str) else None
        if cls is None or not isinstance(fields, dict):
            raise CorruptFileError(
                f"{self.folder / _DOCUMENT} names {name!r}, not a result fairacq saves. "
                "Save it again with this version of fairacq."
            )
        values = {k: self.decode(v) for k, v in fields.items()}
        for skipped in getattr(cls, "_not_saved", ()):
            values[skipped] = None
        try:
            return cls(**values)
        except TypeError as exc:
            raise CorruptFileError(
                f"{self.folder} does not match {name} as this fairacq defines it ({exc}). "
                "Save it again with this version of fairacq."
            ) from None
