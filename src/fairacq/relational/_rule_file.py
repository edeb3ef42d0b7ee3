"""Rule files: a PSL model read from disk, with one clear error for every way it can fail."""

from __future__ import annotations

import os
from pathlib import Path

from fairacq.exceptions import CorruptFileError, InvalidDataError
from fairacq.relational.psl._parser import parse_rules
from fairacq.relational.psl._rules import ArithmeticRule, Rule

__all__ = ["read_rules"]


def read_rules(path: str | os.PathLike[str]) -> list[Rule | ArithmeticRule]:
    r"""Read and parse a rule file (PSL syntax, one rule per line, UTF-8 text).

    Parameters
    ----------
    path : str or path-like
        The ``.psl`` file.

    Returns
    -------
    list of Rule or ArithmeticRule

    Raises
    ------
    CorruptFileError
        If the file does not exist, is a folder, is not UTF-8 text (e.g. a binary file) or
        holds no rule.
    InvalidDataError
        If a rule does not parse; the message names the file and the line.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "model.psl"
    >>> _ = path.write_text("5: risky(U) -> recid(U) ^2  # a comment\n")
    >>> [rule.text for rule in read_rules(path)]
    ['5.0: risky(U) -> recid(U) ^2']
    """
    where = Path(path)
    if where.is_dir():
        raise CorruptFileError(f"{where} is a folder; pass the rule file (e.g. model.psl).")
    try:
        raw = where.read_bytes()
    except FileNotFoundError:
        raise CorruptFileError(
            f"{where} does not exist; check the path of the rule file."
        ) from None
    except OSError as exc:
        raise CorruptFileError(f"cannot read {where}: {exc.strerror or exc}.") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CorruptFileError(
            f"{where} is not UTF-8 text (byte {exc.start} cannot be decoded); a rule file is "
            "plain text with one PSL rule per line."
        ) from None
    if "\x00" in text:
        raise CorruptFileError(
            f"{where} holds NUL bytes, so it is a binary file; a rule file is plain text with "
            "one PSL rule per line."
        )
    try:
        rules = parse_rules(text)
    except InvalidDataError as exc:
        raise InvalidDataError(f"{where}: {exc}") from None
    if not rules:
        raise CorruptFileError(
            f"{where} holds no rule (only blank lines or comments); write one PSL rule per "
            "line, e.g. '5: risky(U) -> recid(U) ^2'."
        )
    return rules
