"""The layout of a user's CSV file: which separator it uses, and whether its header repeats.

:func:`sniff_separator` reads the first lines (through the file's compression) and asks
:class:`csv.Sniffer` for the separator, so a semicolon- or tab-separated file is read as
such; :func:`check_header` refuses a header that names a column twice (pandas would silently
rename the second ``age`` to ``age.1``).
"""

from __future__ import annotations

import bz2
import csv
import gzip
import lzma
from pathlib import Path
from typing import IO, Any

from fairacq.exceptions import InvalidDataError

__all__ = ["check_header", "separator_name", "sniff_separator"]

_OPENERS: dict[str, Any] = {".csv.gz": gzip.open, ".csv.bz2": bz2.open, ".csv.xz": lzma.open}
_SAMPLE_BYTES = 64 * 1024
_SEPARATORS = ",;\t|"
_NAMES = {",": "commas", ";": "semicolons", "\t": "tabs", "|": "'|' characters"}


def _head(path: Path, suffix: str) -> str:
    """Return the first (up to 64 KB) text of the file; empty when it cannot be read."""
    opener = _OPENERS.get(suffix, open)
    try:
        handle: IO[bytes]
        with opener(path, "rb") as handle:
            raw = handle.read(_SAMPLE_BYTES)
    except (OSError, EOFError, lzma.LZMAError):
        return ""  # reading the whole file reports the damage
    return raw.decode("utf-8", errors="replace")


def sniff_separator(path: Path, suffix: str) -> str:
    r"""Return the separator of a CSV file: ``","`` unless its header clearly uses another.

    Parameters
    ----------
    path : pathlib.Path
        The CSV file.
    suffix : str
        Its ending (``".csv"``, ``".csv.gz"``, ...), which names the compression.

    Returns
    -------
    str
        ``","``, ``";"``, a tab or ``"|"``: another one than the comma only when the header
        line holds it and no comma.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = path.write_text("a;b\n1;2\n3;4\n")
    >>> sniff_separator(path, ".csv")
    ';'
    """
    lines = _head(path, suffix).splitlines()[:20]
    if not lines or "," in lines[0]:
        return ","
    try:
        found = csv.Sniffer().sniff("\n".join(lines), delimiters=_SEPARATORS).delimiter
    except csv.Error:
        return ","
    return found if found in lines[0] else ","


def separator_name(sep: str) -> str:
    """Return plain words for a separator (``"semicolons"``)."""
    return _NAMES.get(sep, repr(sep))


def check_header(path: Path, header: list[str]) -> None:
    """Refuse a header naming a column twice.

    Raises
    ------
    InvalidDataError
        Naming the repeated column and the fix.

    Examples
    --------
    >>> from pathlib import Path
    >>> check_header(Path("t.csv"), ["age", "sex"])
    """
    seen: set[str] = set()
    for name in header:
        if name in seen:
            raise InvalidDataError(
                f"{path}: the header names column {name!r} twice. Rename or remove one of "
                "them, so each column has its own name."
            )
        seen.add(name)
