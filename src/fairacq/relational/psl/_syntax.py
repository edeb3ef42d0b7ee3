r"""Lexical layer of the PSL rule language: tokens, numbers, constants and rule files.

The parser (:mod:`fairacq.relational.psl._parser`) reads tokens from :func:`tokenize`; the rule
classes (:mod:`fairacq.relational.psl._rules`) write text with :func:`format_number` and
:func:`format_constant`, so that what they write is read back unchanged and is accepted by
PSL itself (grammar ``PSL.g4`` of PSL 2.x: identifiers ``[a-zA-Z$_][a-zA-Z0-9$_]*``,
non-negative numbers ``\\d+(\\.\\d+)?([eE]-?\\d+)?``, ``#``, ``//`` and ``/* */`` comments).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from fairacq.exceptions import InvalidDataError

__all__ = [
    "Token",
    "format_constant",
    "format_number",
    "rule_lines",
    "syntax_error",
    "tokenize",
]

# Longest operators first so that "<=" wins over "<-" and "<", "!=" over "!".
_OPERATORS = (
    "&&",
    "||",
    "->",
    "<-",
    ">>",
    "<<",
    "<=",
    ">=",
    "==",
    "!=",
    "@Max",
    "@Min",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "&",
    "|",
    "!",
    "~",
    "^",
    ".",
    "+",
    "-",
    "*",
    "/",
    "=",
    "%",
)
_TOKEN_RE = re.compile(
    r"(?P<ws>\s+)"
    r"|(?P<number>\d+(?:\.\d+)?(?:[eE]-?\d+)?)"
    r"|(?P<ident>[A-Za-z$_][A-Za-z0-9$_]*)"
    r"|(?P<string>'[^'\n]*'|\"[^\"\n]*\")"
    r"|(?P<op>" + "|".join(re.escape(op) for op in _OPERATORS) + ")"
)
_NUMBER_RE = re.compile(r"^-?\d+(?:\.\d+)?(?:[eE]-?\d+)?$")


@dataclass(frozen=True)
class Token:
    """One token of a rule: its kind, its text and its 0-based column.

    ``kind`` is ``"number"``, ``"ident"``, ``"string"`` (a quoted constant, ``text`` without
    the quotes), ``"op"`` (``text`` is the operator) or ``"end"``.
    """

    kind: str
    text: str
    pos: int

    def describe(self) -> str:
        """Describe the token for an error message."""
        if self.kind == "end":
            return "the end of the rule"
        if self.kind == "string":
            return f"the constant '{self.text}'"
        return f"'{self.text}'"


def syntax_error(source: str, pos: int, message: str) -> InvalidDataError:
    """Build the error for a rule that cannot be parsed at column ``pos`` (0-based)."""
    near = source[max(pos - 12, 0) : pos + 12].strip()
    return InvalidDataError(
        f"Cannot parse rule {source.strip()!r}: at column {pos + 1} (near {near!r}), "
        f"{message}. Rules follow PSL's syntax, e.g. "
        "'2.0: submits(A, P) & student(A) -> !positiveSummary(P) ^2' or "
        "'a(X) + b(X) = 1 .'."
    )


def tokenize(source: str) -> list[Token]:
    """Split one rule into tokens; the last token has kind ``"end"``.

    Raises
    ------
    InvalidDataError
        For a character that no token starts with.
    """
    tokens: list[Token] = []
    pos = 0
    while pos < len(source):
        match = _TOKEN_RE.match(source, pos)
        if match is None:
            raise syntax_error(source, pos, f"unexpected character {source[pos]!r}")
        kind = match.lastgroup or "op"
        text = match.group()
        if kind == "string":
            inner = text[1:-1]
            if not inner:
                raise syntax_error(source, pos, "a quoted constant is empty")
            tokens.append(Token("string", inner, pos))
        elif kind != "ws":
            tokens.append(Token(kind, text, pos))
        pos = match.end()
    tokens.append(Token("end", "", len(source)))
    return tokens


def format_number(value: float) -> str:
    """Write a finite number so that PSL and :func:`tokenize` read it back exactly.

    Python's ``repr`` is exact; PSL's grammar has no ``+`` in exponents, so ``1e+20`` becomes
    ``1e20``, and a float without a point or exponent keeps ``.0``.

    Examples
    --------
    >>> format_number(2.0), format_number(1e-05), format_number(1e20), format_number(-0.5)
    ('2.0', '1e-05', '1e20', '-0.5')
    """
    if not math.isfinite(value):
        raise InvalidDataError(f"PSL rules cannot hold the number {value!r}; use a finite one.")
    text = repr(float(value)).replace("e+", "e")
    if not _NUMBER_RE.match(text):  # pragma: no cover - repr of a finite float always matches
        raise InvalidDataError(f"Cannot write the number {value!r} in PSL syntax.")
    return text


def format_constant(value: str) -> str:
    """Quote a constant (single quotes, or double quotes if it holds a single quote)."""
    if "'" not in value:
        return f"'{value}'"
    if '"' not in value:
        return f'"{value}"'
    raise InvalidDataError(
        f"The constant {value!r} holds both quote characters, which PSL cannot write; "
        "rename it in the data."
    )


_BLOCK_COMMENT_RE = re.compile(r"/\*.*?\*/", re.DOTALL)


def _strip_line_comment(line: str) -> str:
    # Comments start at '#' or '//' outside quoted constants.
    quote = ""
    for i, char in enumerate(line):
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#" or line.startswith("//", i):
            return line[:i]
    return line


def rule_lines(text: str) -> list[tuple[int, str]]:
    """Return the non-empty rule lines of a rule file as ``(line_number, text)``.

    One rule per line; ``#`` and ``//`` start a comment that runs to the end of the line;
    ``/* ... */`` comments may span lines (line numbers stay those of the file).
    """
    no_blocks = _BLOCK_COMMENT_RE.sub(lambda m: "\n" * m.group().count("\n"), text)
    out = []
    for number, line in enumerate(no_blocks.splitlines(), start=1):
        stripped = _strip_line_comment(line).strip()
        if stripped:
            out.append((number, stripped))
    return out
