"""What every bad-input case checks, through the command line and through the API.

A command given bad input exits with code 2 and prints exactly one non-empty line, starting
with ``error: ``, that names the problem (and, where there is one, the fix); no traceback.
A library call given bad input raises a :class:`~fairacq.exceptions.FairacqError` subclass
whose message is one line.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import Result
from typer.testing import CliRunner

from fairacq.cli import app
from fairacq.exceptions import FairacqError

__all__ = [
    "Fragments",
    "assert_api_error",
    "assert_cli_error",
    "people_frame",
    "run_cli",
    "write_bad_files",
]

#: The text (or texts) an error line must hold: the problem, and the fix where one exists.
Fragments = str | Sequence[str]

_runner = CliRunner()


def run_cli(*args: object) -> Result:
    """Run ``fairacq ARGS`` in this process (stdout and stderr both in ``output``)."""
    return _runner.invoke(app, [str(a) for a in args])


def _as_tuple(fragments: Fragments) -> tuple[str, ...]:
    return (fragments,) if isinstance(fragments, str) else tuple(fragments)


def assert_cli_error(res: Result, fragments: Fragments) -> str:
    """Exit 2, one ``error: `` line holding every fragment, no traceback; return the line."""
    escaped = ""
    if res.exc_info is not None and not isinstance(res.exception, SystemExit):
        escaped = "".join(traceback.format_exception(*res.exc_info))
    assert res.exit_code == 2, f"exit {res.exit_code}\n{res.output}\n{escaped}"
    assert "Traceback" not in res.output, res.output
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1, res.output
    line = lines[0]
    assert line.startswith("error: "), res.output
    for fragment in _as_tuple(fragments):
        assert fragment in line, f"{fragment!r} not in {line!r}"
    return line


def assert_api_error(
    call: Callable[[], Any], fragments: Fragments, kind: type[FairacqError] = FairacqError
) -> str:
    """``call()`` raises ``kind`` (a FairacqError), its one-line message holding the fragments."""
    with pytest.raises(FairacqError) as info:
        call()
    assert isinstance(info.value, kind), f"{type(info.value).__name__}: {info.value}"
    message = str(info.value)
    assert message.strip(), "empty message"
    assert "\n" not in message.strip(), message
    for fragment in _as_tuple(fragments):
        assert fragment in message, f"{fragment!r} not in {message!r}"
    return message


def people_frame(n: int = 160, seed: int = 0) -> pd.DataFrame:
    """A tiny raw table with its own column names and string columns.

    ``person`` (an id), ``town`` (text), ``years`` (int), ``income`` (float), ``gender``
    (``"f"``/``"m"``: the group) and ``approved`` (``"yes"``/``"no"``: the outcome).
    """
    rng = np.random.default_rng(seed)
    gender = rng.choice(["f", "m"], n, p=[0.4, 0.6])
    town = rng.choice(["Ayr", "Bute", "Crail"], n)
    years = rng.integers(18, 70, n)
    income = rng.normal(30, 8, n).round(1)
    score = (income - 30) / 8 + (gender == "m") * 0.5 + rng.normal(0, 0.7, n)
    approved = np.where(score > 0.2, "yes", "no")
    return pd.DataFrame(
        {
            "person": [f"p{i:04d}" for i in range(n)],
            "town": town,
            "years": years,
            "income": income,
            "gender": gender,
            "approved": approved,
        }
    )


def write_bad_files(root: Path) -> Path:
    """Write the unreadable and malformed table files every family is given."""
    import gzip

    frame = people_frame(400, seed=9)
    big = frame.to_csv(index=False).encode()
    (root / "empty.csv").write_bytes(b"")
    (root / "header_only.csv").write_text(",".join(frame.columns) + "\n")
    (root / "truncated.csv.gz").write_bytes(gzip.compress(big * 4)[:3000])
    (root / "binary.csv").write_bytes(bytes(range(256)) * 8)
    (root / "binary.parquet").write_bytes(b"PAR1" + bytes(range(256)) * 4)
    (root / "table.json").write_text('{"person": ["p1"]}')
    (root / "table.txt").write_text("person,town\np1,Ayr\n")
    (root / "folder.csv").mkdir()
    base = people_frame()
    nan = base.copy()
    nan.loc[[3, 7], "income"] = np.nan
    nan.to_csv(root / "nan.csv", index=False)
    inf = base.copy()
    inf["income"] = inf["income"].astype(float)
    inf.loc[[5], "income"] = np.inf
    inf.to_csv(root / "inf.csv", index=False)
    base.assign(gender="f").to_csv(root / "one_group.csv", index=False)
    base.assign(approved="yes").to_csv(root / "one_class.csv", index=False)
    three = base.copy()
    three.loc[three.index % 3 == 0, "approved"] = "maybe"
    three.to_csv(root / "three_labels.csv", index=False)
    return root
