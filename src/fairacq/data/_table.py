"""Read a user's table file (Parquet or CSV) with one error shape for every failure.

:func:`read_table` is the one reader of tables that users hand to fairacq (pools, splits,
candidates, people): a missing, empty, truncated, corrupt or unsupported file raises a
:class:`~fairacq.exceptions.CorruptFileError` or :class:`~fairacq.exceptions.InvalidDataError`
whose message is one line naming the file, the problem and the fix. :func:`read_dataset` turns
such a table into a :class:`~fairacq.data.FairDataset` (label and group columns named, every
other column a feature), and :func:`write_table` writes one atomically in the same formats.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from fairacq.exceptions import CorruptFileError, InvalidDataError

if TYPE_CHECKING:
    import pandas as pd

    from fairacq.data._dataset import FairDataset

__all__ = [
    "TABLE_SUFFIXES",
    "check_table_file",
    "dataset_from_frame",
    "read_dataset",
    "read_table",
    "write_table",
]

#: File endings :func:`read_table` reads, and the format each one holds.
TABLE_SUFFIXES: dict[str, str] = {
    ".parquet": "Parquet",
    ".pq": "Parquet",
    ".csv": "CSV",
    ".csv.gz": "gzip-compressed CSV",
    ".csv.bz2": "bzip2-compressed CSV",
    ".csv.xz": "xz-compressed CSV",
}

_MAX_DETAIL = 160


class _MissingFileError(CorruptFileError, FileNotFoundError):
    """A table file that does not exist (also a :class:`FileNotFoundError`)."""


def _suffix(path: Path) -> str | None:
    name = path.name.lower()
    # Longest ending first, so ".csv.gz" wins over a plain ".gz".
    for suffix in sorted(TABLE_SUFFIXES, key=len, reverse=True):
        if name.endswith(suffix):
            return suffix
    return None


def _detail(exc: BaseException) -> str:
    """``Type: first line of the message``, shortened, for a one-line error."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if len(text) > _MAX_DETAIL:
        text = text[: _MAX_DETAIL - 3] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def check_table_file(path: str | os.PathLike[str]) -> str:
    """Return the format of ``path`` (``"Parquet"``, ``"CSV"``, ...) if it can be a table.

    Raises
    ------
    CorruptFileError, InvalidDataError
        As :func:`read_table` for a missing, empty, directory or unsupported file.
    """
    path = Path(path)
    suffix = _suffix(path)
    if not path.exists():
        raise _MissingFileError(f"{path}: no such file. Check the path.")
    if path.is_dir():
        raise CorruptFileError(
            f"{path}: is a directory, not a table file. Pass a .parquet or .csv file."
        )
    if suffix is None:
        known = ", ".join(TABLE_SUFFIXES)
        raise InvalidDataError(
            f"{path}: unsupported file type. Pass a table saved as one of {known} "
            "(e.g. with pandas.DataFrame.to_parquet or to_csv)."
        )
    if path.stat().st_size == 0:
        raise CorruptFileError(
            f"{path}: the file is empty (0 bytes). Write the table again, with a header row "
            "for CSV."
        )
    return TABLE_SUFFIXES[suffix]


def read_table(
    path: str | os.PathLike[str], *, columns: Sequence[str] | None = None
) -> pd.DataFrame:
    """Read a Parquet or CSV table that a user passed to fairacq.

    Parameters
    ----------
    path : str or path-like
        A ``.parquet`` (``.pq``) file, or a CSV file with a header row: ``.csv``, optionally
        compressed (``.csv.gz``, ``.csv.bz2``, ``.csv.xz``).
    columns : sequence of str or None, default=None
        Return only these columns, in this order; every one must exist. ``None`` returns all.

    Returns
    -------
    pandas.DataFrame
        The table, with at least one row.

    Raises
    ------
    CorruptFileError
        If the file does not exist (this error is then also a :class:`FileNotFoundError`), is
        a directory, is empty, or cannot be parsed (truncated, corrupt, not the format its
        name says).
    InvalidDataError
        If the file type is not supported, the table has no rows, or a column of
        ``columns`` is missing.

    Every message is one line naming the file, the problem and the fix.

    Examples
    --------
    >>> import tempfile, pathlib, pandas as pd
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "people.csv"
    >>> pd.DataFrame({"age": [31, 45], "label": [0, 1]}).to_csv(path, index=False)
    >>> read_table(path, columns=["label"])["label"].tolist()
    [0, 1]
    >>> try:
    ...     read_table(path.with_name("nobody.csv"))
    ... except FileNotFoundError as exc:
    ...     print(str(exc).endswith("nobody.csv: no such file. Check the path."))
    True
    """
    import pandas as pd

    path = Path(path)
    kind = check_table_file(path)
    try:
        frame = pd.read_parquet(path) if kind == "Parquet" else _read_csv(path)
    except UnicodeDecodeError as exc:
        raise CorruptFileError(
            f"{path}: the file is not UTF-8 text (it holds byte {exc.object[exc.start]:#04x}; "
            "perhaps it was saved as Latin-1 or Windows-1252). Save it again "
            "as UTF-8 (e.g. 'CSV UTF-8' in a spreadsheet, or iconv -f latin1 -t utf-8)."
        ) from None
    except InvalidDataError:
        raise
    except pd.errors.EmptyDataError:
        raise CorruptFileError(
            f"{path}: the {kind} file holds no table (no header row). Write the table again, "
            "with a header row naming the columns."
        ) from None
    except (MemoryError, KeyboardInterrupt):
        raise
    except Exception as exc:  # pandas, pyarrow, gzip and codecs raise many types
        fix = (
            "write it again with pandas.DataFrame.to_parquet"
            if kind == "Parquet"
            else "check that it is complete and comma-separated, or write it again with "
            "pandas.DataFrame.to_csv"
        )
        raise CorruptFileError(
            f"Cannot read {path} as {kind} ({_detail(exc)}): the file is truncated, corrupt "
            f"or not {kind}. Download it again or {fix}."
        ) from exc
    if len(frame) == 0:
        raise InvalidDataError(
            f"{path}: the table has no rows (columns: {_names(frame.columns)}). Pass a file "
            "with at least one row."
        )
    if columns is None:
        return frame
    wanted = list(columns)
    missing = [c for c in wanted if c not in frame.columns]
    if missing:
        raise InvalidDataError(
            f"{path}: no column {_names(missing)} (the file has {_names(frame.columns)}). "
            "Add the column or name the right one."
        )
    return frame[wanted]


def _read_csv(path: Path) -> pd.DataFrame:
    """Read a CSV file with its own separator, refusing a header that repeats a name."""
    import pandas as pd

    from fairacq.data._csv_layout import check_header, separator_name, sniff_separator
    from fairacq.data._notes import note

    suffix = _suffix(path) or ".csv"
    sep = sniff_separator(path, suffix)
    header = pd.read_csv(path, sep=sep, header=None, nrows=1, dtype=str)
    check_header(path, [str(v) for v in header.iloc[0].tolist()] if len(header) else [])
    if sep != ",":
        note(f"{path.name}: columns are separated by {separator_name(sep)}; read as such.")
    return pd.read_csv(path, sep=sep)


def _names(cols: Sequence[object] | pd.Index) -> str:
    shown = [repr(str(c)) for c in list(cols)[:8]]
    more = len(cols) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def dataset_from_frame(
    frame: pd.DataFrame, *, label: str, sensitive: str, name: str = "dataset"
) -> FairDataset:
    """Build a :class:`FairDataset` from a table: every column but the two named is a feature.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    label : str
        The 0/1 label column.
    sensitive : str
        The column of group labels.
    name : str, default="dataset"
        The dataset's short name (quoted in errors).

    Returns
    -------
    FairDataset

    Raises
    ------
    InvalidDataError
        If ``label`` or ``sensitive`` is not a column, or the :class:`FairDataset` checks fail.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"x": [0.1, 0.2, 0.3, 0.4], "group": ["a", "b", "a", "b"],
    ...                       "label": [0, 1, 1, 0]})
    >>> ds = dataset_from_frame(frame, label="label", sensitive="group", name="mine")
    >>> ds.feature_names, ds.n_groups
    (['x'], 2)
    """
    from fairacq.data._dataset import FairDataset

    for col in (label, sensitive):
        if col not in frame.columns:
            raise InvalidDataError(
                f"{name}: no column {col!r}. Pass --label/--sensitive-column "
                "naming the label and group columns."
            )
    features = frame.drop(columns=[label, sensitive])
    return FairDataset(features, frame[label].to_numpy(), frame[[sensitive]], name=name)


def read_dataset(
    path: str | os.PathLike[str], *, label: str, sensitive: str, name: str | None = None
) -> FairDataset:
    """Read a table file (see :func:`read_table`) as a :class:`FairDataset`.

    Parameters
    ----------
    path : str or path-like
        Parquet or CSV file.
    label, sensitive : str
        The label and group columns; every other column is a feature.
    name : str or None, default=None
        The dataset's short name; default: the file name.

    Returns
    -------
    FairDataset

    Raises
    ------
    CorruptFileError, InvalidDataError
        As :func:`read_table` and :func:`dataset_from_frame`.
    """
    path = Path(path)
    return dataset_from_frame(
        read_table(path), label=label, sensitive=sensitive, name=name or path.name
    )


def write_table(
    frame: pd.DataFrame, path: str | os.PathLike[str], *, index: bool | None = None
) -> Path:
    """Write ``frame`` atomically as Parquet or CSV, chosen by the ending of ``path``.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    path : str or path-like
        Ends in ``.parquet``/``.pq`` (Parquet) or ``.csv``/``.csv.gz``/... (CSV).
    index : bool or None, default=None
        Write the index: ``None`` lets Parquet keep a non-default index (pandas' default)
        and leaves it out of CSV.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    InvalidDataError
        If the ending of ``path`` is not one of :data:`TABLE_SUFFIXES`.

    Examples
    --------
    >>> import tempfile, pathlib, pandas as pd
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "out.csv"
    >>> _ = write_table(pd.DataFrame({"a": [1, 2]}), path)
    >>> path.read_text().split()
    ['a', '1', '2']
    """
    from fairacq._io import atomic_path, check_output_file

    out = check_output_file(path)  # a folder, or a parent that is a file: one line
    suffix = _suffix(out)
    if suffix is None:
        raise InvalidDataError(
            f"{out}: unsupported file type. Name the output with one of "
            f"{', '.join(TABLE_SUFFIXES)}."
        )
    with atomic_path(out) as tmp:
        if TABLE_SUFFIXES[suffix] == "Parquet":
            frame.to_parquet(tmp, index=index)
        else:
            # The temporary file has no telling ending: name the compression explicitly.
            codec = {".csv.gz": "gzip", ".csv.bz2": "bz2", ".csv.xz": "xz"}.get(suffix)
            frame.to_csv(tmp, index=bool(index), compression=codec)  # type: ignore[arg-type]
    return out
